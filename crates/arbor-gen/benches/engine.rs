//! Criterion benches of the engine's stages on a generated 20 MB log of each format:
//! line splitting (the reader), the bare serde floor (`IgnoredAny`), `scan::parse_line`, format
//! detection, and the whole `arbor_core::analyze`. `analyze` minus `parse_line` is what routing,
//! the boundary checker and the index cost.
//!
//! `cargo bench -p arbor-gen --bench engine -- --warm-up-time 1 --measurement-time 3`
//! The logs are generated once into the system temp folder and reused.

use arbor_core::reader::{self, Lines};
use arbor_core::text::scan::parse_line;
use arbor_gen::{generate, Format, GenOptions};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

const SIZE: u64 = 20 << 20;

fn log(format: Format) -> PathBuf {
    let path = std::env::temp_dir().join(format!("arbor-bench-{}-20M-d4f3-s1.jsonl", format.id()));
    if std::fs::metadata(&path).map(|m| m.len() >= SIZE).unwrap_or(false) {
        return path;
    }
    let opts = GenOptions { format, target_bytes: SIZE, depth: 4, fanout: 3, seed: 1, fault_rate: 0.001 };
    let tmp = path.with_extension("part");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&tmp).unwrap());
    generate(&opts, &mut f).unwrap();
    drop(f);
    std::fs::rename(&tmp, &path).unwrap();
    path
}

fn split(data: &[u8]) -> Vec<&[u8]> {
    data.split(|&b| b == b'\n').filter(|l| !l.is_empty()).collect()
}

fn stages(c: &mut Criterion) {
    for format in Format::ALL {
        let path = log(format);
        let data = std::fs::read(&path).unwrap();
        let lines = split(&data);
        let id = format.id();
        let mut g = c.benchmark_group(format!("engine/{id}"));
        g.throughput(Throughput::Bytes(data.len() as u64));
        g.sample_size(10);

        // The reader over bytes already in memory: buffering and line splitting only.
        g.bench_function(BenchmarkId::new("reader-lines", "memory"), |b| {
            b.iter(|| {
                let mut lines = Lines::new(std::io::BufReader::with_capacity(1 << 16, &data[..]));
                let mut n = 0u64;
                while let Some(l) = lines.next_line().unwrap() {
                    n += l.bytes.len() as u64;
                }
                black_box(n)
            })
        });
        // The reader from the file (page cache): what `analyze` pays for I/O.
        g.bench_function(BenchmarkId::new("reader-lines", "file"), |b| {
            b.iter(|| {
                let mut lines = Lines::new(reader::open(&path).unwrap());
                let mut n = 0u64;
                while let Some(l) = lines.next_line().unwrap() {
                    n += l.bytes.len() as u64;
                }
                black_box(n)
            })
        });
        // The floor: validating each line's JSON, nothing kept.
        g.bench_function("serde-ignored-any", |b| {
            b.iter(|| {
                let mut ok = 0u64;
                for l in &lines {
                    ok += serde_json::from_slice::<serde::de::IgnoredAny>(l).is_ok() as u64;
                }
                black_box(ok)
            })
        });
        g.bench_function("wire-parse_line", |b| {
            b.iter(|| {
                let mut ok = 0u64;
                for l in &lines {
                    ok += parse_line(l).is_some() as u64;
                }
                black_box(ok)
            })
        });
        // Detection reads at most the first 200 lines: its throughput is over those.
        let head: u64 = lines.iter().take(200).map(|l| l.len() as u64 + 1).sum();
        g.throughput(Throughput::Bytes(head));
        g.bench_function("detect", |b| {
            b.iter(|| black_box(arbor_core::formats::detect(lines.iter().take(200).copied())))
        });
        g.throughput(Throughput::Bytes(data.len() as u64));
        g.bench_function("analyze", |b| {
            b.iter(|| {
                let a = arbor_core::analyze(std::slice::from_ref(&path), &mut ());
                black_box(a.cx.records.len())
            })
        });
        g.finish();
    }
}

fn config() -> Criterion {
    Criterion::default().warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3))
}

/// The scan for the end of a run of JSON string text over every line of each log, as x86_64 runs
/// it (SSE2) and as every other CPU does (`string_special_portable`, 8 bytes a word): what the
/// engine's fallback path costs on Apple Silicon, measured here where both run.
fn string_scan(c: &mut Criterion) {
    use arbor_core::text::json::{string_special, string_special_portable};
    fn walk(lines: &[&[u8]], scan: fn(&[u8], usize) -> usize) -> usize {
        let mut stops = 0;
        for l in lines {
            let mut i = 0;
            while i < l.len() {
                i = scan(l, i) + 1;
                stops += 1;
            }
        }
        stops
    }
    for format in Format::ALL {
        let data = std::fs::read(log(format)).unwrap();
        let lines = split(&data);
        assert_eq!(walk(&lines, string_special), walk(&lines, string_special_portable));
        let mut g = c.benchmark_group(format!("string_scan/{}", format.id()));
        g.throughput(Throughput::Bytes(data.len() as u64));
        g.bench_function("sse2", |b| b.iter(|| walk(black_box(&lines), string_special)));
        g.bench_function("portable", |b| b.iter(|| walk(black_box(&lines), string_special_portable)));
        g.finish();
    }
}

criterion_group! { name = benches; config = config(); targets = stages, string_scan }
criterion_main!(benches);
