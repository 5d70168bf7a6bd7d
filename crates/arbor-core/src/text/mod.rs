//! One line's text: JSON strings (`json`: escape, strict and lenient unescape, the special-byte
//! scan), timestamps (`time`), the line shapes formats parse into (`shape`), the lenient,
//! borrowed shape of a JSON line of the harness family (`wire`) and the hand-tuned scanner that
//! parses a line into it (`scan`); a text's hash with its whitespace aside (`loose`).

pub mod json;
pub mod loose;
pub mod scan;
pub mod shape;
pub mod time;
pub mod wire;
