//! Time the engine's stages on one file (`cargo run --release --example stages FILE`): reading and
//! routing (`analyze`), then the report as the CLI writes it: its
//! parts (the tree's placements) and the pretty JSON (to a sink), while the reply texts are read back.
//! With `STAGES_SERIAL` set, the reply texts are read back alone first and timed.
fn main() {
    let path = std::path::PathBuf::from(std::env::args().nth(1).expect("usage: stages FILE"));
    let t = std::time::Instant::now();
    let a = arbor_core::analyze(std::slice::from_ref(&path), &mut ());
    let t1 = t.elapsed().as_secs_f64();
    let mut out = Counter(0);
    let parts = arbor_core::report_parts::ReportParts::new(&a);
    if std::env::var_os("STAGES_SERIAL").is_some() {
        // The reply texts alone, before the report (which then does not read them beside it).
        let t = std::time::Instant::now();
        let n = parts.replies().count();
        println!("{n} replies read back alone: {:.3}s", t.elapsed().as_secs_f64());
    }
    let t2 = t.elapsed().as_secs_f64();
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).min(3);
    parts.write_pretty(std::io::BufWriter::with_capacity(1 << 16, &mut out), threads).unwrap();
    let t3 = t.elapsed().as_secs_f64();
    println!(
        "analyze {t1:.3}s  report parts {:.3}s  report written, reply texts read back beside it {:.3}s ({} bytes)  records {}",
        t2 - t1,
        t3 - t2,
        out.0,
        a.records().len()
    );
}

/// A sink that counts the bytes written.
struct Counter(usize);

impl std::io::Write for Counter {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0 += b.len();
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
