//! The practical limit: validate each line's JSON and nothing else (`cargo run --release --example
//! bare_parse FILE`). Prints records, seconds and MB/s.
use std::io::BufRead;

fn main() {
    let path = std::env::args().nth(1).expect("usage: bare_parse FILE");
    let t = std::time::Instant::now();
    let mut r = std::io::BufReader::with_capacity(1 << 16, std::fs::File::open(&path).unwrap());
    let (mut buf, mut n, mut bytes) = (Vec::new(), 0u64, 0u64);
    while r.read_until(b'\n', &mut buf).unwrap() > 0 {
        bytes += buf.len() as u64;
        if serde_json::from_slice::<serde::de::IgnoredAny>(&buf).is_ok() {
            n += 1;
        }
        buf.clear();
    }
    let s = t.elapsed().as_secs_f64();
    println!("{n} records, {s:.2} s, {:.0} MB/s", bytes as f64 / s / 1e6);
}
