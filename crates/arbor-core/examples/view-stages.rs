//! Time and weigh the stages of opening a log in a viewer (`cargo run --release --example
//! view-stages FILE [owned|parts|deltas]`): the analysis, the view made from the report's items
//! (from the owned `report()` with `owned`, or one item at a time from its parts, the default),
//! and the resident memory after each (Linux: `/proc/self/status`). With `deltas` the analysis
//! hands its deltas to an observer that keeps them, as the app's load does.
use arbor_core::view::View;

fn rss() -> String {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb =
        |k: &str| s.lines().find(|l| l.starts_with(k)).and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok());
    format!("rss {} MB, peak {} MB", kb("VmRSS:").unwrap_or(0) / 1000, kb("VmHWM:").unwrap_or(0) / 1000)
}

/// CPU seconds this process has used so far, all threads (Linux: `/proc/self/stat`, in ticks of
/// 1/100 s), so that a stage's cost can be told from a busy machine's wall time.
fn cpu() -> f64 {
    let s = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = s.rsplit_once(')').map_or("", |(_, rest)| rest);
    let f: Vec<&str> = after.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the line, the 12th and 13th after the command's name.
    let field = |i: usize| f.get(i).and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0);
    (field(11) + field(12)) / 100.0
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = std::path::PathBuf::from(args.next().expect("usage: view-stages FILE [owned|parts]"));
    let mode = args.next();
    let owned = mode.as_deref() == Some("owned");
    let t = std::time::Instant::now();
    let a = if mode.as_deref() == Some("deltas") {
        let mut kept = Kept(Vec::new());
        let a = arbor_core::analyze(std::slice::from_ref(&path), &mut kept);
        println!("{} deltas kept", kept.0.len());
        a
    } else {
        arbor_core::analyze(std::slice::from_ref(&path), &mut ())
    };
    println!("analyze {:.3}s; {}", t.elapsed().as_secs_f64(), rss());
    let t = std::time::Instant::now();
    let c = cpu();
    let view = if owned {
        let report = a.report();
        println!("report() {:.3}s; {}", t.elapsed().as_secs_f64(), rss());
        View::from_report(report, 1)
    } else {
        View::of_analysis(&a, 1, &|| true).expect("not stopped")
    };
    println!("view {:.3}s ({:.2} s of CPU); {}", t.elapsed().as_secs_f64(), cpu() - c, rss());
    let s = view.summary();
    println!("{} sessions, {} waits, {} replies, {} findings", s.sessions, s.waits, s.replies, s.findings.total());
}

/// An observer that keeps every delta, as a viewer's load does until the log is open.
struct Kept(Vec<arbor_core::Delta>);

impl arbor_core::Observer for Kept {
    fn delta(&mut self, d: arbor_core::Delta) -> bool {
        self.0.push(d);
        true
    }
}
