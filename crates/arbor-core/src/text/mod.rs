//! One line's text: the lenient, borrowed shape of a JSON line of the harness family (`wire`)
//! and the hand-tuned scanner that parses a line into it (`scan`).

pub(crate) mod scan;
pub mod wire;
