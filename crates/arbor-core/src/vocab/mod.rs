//! The vocabulary: the words every other layer is written in. Interned ids, the report's types
//! (the plain data every consumer reads), findings and their catalog for people, the transcript's parts. Nothing here
//! imports another layer.

pub mod explain;
pub mod finding;
pub mod intern;
pub mod print;
pub mod report;
pub mod transcript;
