//! `parse_only FILE`: `arbor_core::text::scan::parse_line` over every line of a file and nothing else,
//! read the way `arbor-bare-parse` reads it, so that the two can be compared instruction for
//! instruction (`bench/profile` runs both under callgrind).

use std::io::{BufRead, BufReader};

fn main() {
    let path = std::env::args().nth(1).expect("usage: parse_only FILE");
    let file = std::fs::File::open(&path).expect("cannot open the file");
    let mut reader = BufReader::with_capacity(1 << 16, file);
    let mut line = Vec::with_capacity(1 << 12);
    let (mut lines, mut parsed) = (0u64, 0u64);
    while reader.read_until(b'\n', &mut line).expect("read error") > 0 {
        lines += 1;
        let end = line.len() - usize::from(line.last() == Some(&b'\n'));
        parsed += u64::from(arbor_core::text::scan::parse_line(&line[..end]).is_some());
        line.clear();
    }
    println!("{lines} {parsed}");
}
