//! The engine's reader and line parser alone (`cargo run --release --example parse_only FILE`).
fn main() {
    let path = std::path::PathBuf::from(std::env::args().nth(1).expect("usage: parse_only FILE"));
    let t = std::time::Instant::now();
    let mut lines = arbor_core::reader::Lines::new(arbor_core::reader::open(&path).unwrap());
    let (mut n, mut ok) = (0u64, 0u64);
    while let Some(l) = lines.next_line().unwrap() {
        n += 1;
        if simdutf8::basic::from_utf8(l.bytes).is_ok() && arbor_core::wire::parse_line(l.bytes).is_some() {
            ok += 1;
        }
    }
    let t1 = t.elapsed().as_secs_f64();
    println!("read+parse {t1:.3}s  {n} lines {ok} ok");
}
