//! Time the engine's stages on one file (`cargo run --release --example stages FILE`).
fn main() {
    let path = std::path::PathBuf::from(std::env::args().nth(1).expect("usage: stages FILE"));
    let t = std::time::Instant::now();
    let a = arbor_core::analyze(std::slice::from_ref(&path), &mut ());
    let t1 = t.elapsed().as_secs_f64();
    let r = a.report();
    let t2 = t.elapsed().as_secs_f64();
    let json = serde_json::to_vec(&r).unwrap();
    let t3 = t.elapsed().as_secs_f64();
    println!(
        "analyze {t1:.3}s  report {:.3}s  json {:.3}s ({} bytes)  records {}",
        t2 - t1,
        t3 - t2,
        json.len(),
        a.records().len()
    );
}
