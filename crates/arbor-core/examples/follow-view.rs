//! What a followed log's revision costs in a viewer (`cargo run --release --example follow-view
//! LOG [MB] [ROUNDS]`): the log without its last MB megabytes (10 by default) is read to be
//! followed and viewed, then its last megabytes are appended in ROUNDS pieces (1 by default), and
//! each piece's revision is timed stage by stage: reading what was appended (`Live::update`),
//! finishing a copy (`Live::snapshot`), the view made again (`View::of_analysis_with`, as before
//! views grew) and the view grown (`View::grow`); against reading the appended bytes alone. The
//! grown view is compared with the one made again (`view::same_views`: every answer, the
//! timelines laid out), so that a figure of a wrong view is never printed; `NO_CHECK=1` leaves
//! that out, and `ONLY_GROW=1` with it also the view made again (to profile growing alone).
use std::io::Write;
use std::time::Instant;

use arbor_core::live::Live;
use arbor_core::view::{Timeline, View};

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

fn main() {
    let mut args = std::env::args().skip(1);
    let log = std::path::PathBuf::from(args.next().expect("usage: follow-view LOG [MB] [ROUNDS]"));
    let mb: f64 = args.next().map_or(10.0, |a| a.parse().expect("MB: a number"));
    let rounds: usize = args.next().map_or(1, |a| a.parse().expect("ROUNDS: a number"));
    let check = std::env::var_os("NO_CHECK").is_none();
    let only_grow = std::env::var_os("ONLY_GROW").is_some();
    let text = std::fs::read(&log).expect("the log");
    // Cut where a line ends, the appended part whole lines.
    let mut cut = text.len().saturating_sub((mb * 1e6) as usize);
    while cut > 0 && text[cut - 1] != b'\n' {
        cut -= 1;
    }
    let dir = std::env::temp_dir().join(format!("follow-view-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(log.file_name().unwrap());
    std::fs::write(&path, &text[..cut]).unwrap();
    let t = Instant::now();
    let mut live = Live::open(std::slice::from_ref(&path), &mut ());
    let mut before = live.snapshot();
    let mut view = View::of_analysis_with(&before, 1, &|| true, Timeline::WhenAsked).unwrap();
    println!("{}: {} bytes read and viewed in {:.0} ms", log.display(), cut, ms(t));
    let rest = &text[cut..];
    let mut from = 0;
    for round in 0..rounds {
        let mut to = if round + 1 == rounds { rest.len() } else { rest.len() * (round + 1) / rounds };
        while to < rest.len() && rest[to - 1] != b'\n' {
            to += 1;
        }
        let piece = &rest[from..to];
        from = to;
        let alone = dir.join("piece.jsonl");
        std::fs::write(&alone, piece).unwrap();
        let t = Instant::now();
        drop(arbor_core::analyze(std::slice::from_ref(&alone), &mut ()));
        let read_alone = ms(t);
        std::fs::OpenOptions::new().append(true).open(&path).unwrap().write_all(piece).unwrap();
        let t = Instant::now();
        let change = live.update(&mut ());
        let update = ms(t);
        let t = Instant::now();
        let snapshot = live.snapshot();
        let snap = ms(t);
        let revision = round as u64 + 2;
        let t = Instant::now();
        let mut made = (check || !only_grow)
            .then(|| View::of_analysis_with(&snapshot, revision, &|| true, Timeline::WhenAsked).unwrap());
        let remade = ms(t);
        let t = Instant::now();
        let grown = view.grow(&before, &snapshot, revision, &|| true).unwrap();
        let grow = ms(t);
        if check {
            if let Err(e) = arbor_core::view::same_views(&mut view, made.as_mut().unwrap()) {
                panic!("round {round}: the grown view differs from the one made again: {e}");
            }
        }
        before = snapshot;
        println!(
            "{} bytes appended: update {update:.1} ms, snapshot {snap:.1} ms, view made again {remade:.1} ms, \
             view grown {grow:.1} ms ({grown:?}); reading those bytes alone {read_alone:.1} ms",
            change.bytes
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
