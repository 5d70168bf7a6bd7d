//! Bytes: the files of an opened path, zstd, a SQLite database's rows rendered as lines (`rows`),
//! and lines with their numbers and offsets. Knows no format; JSON only as the rendering of rows.

pub mod reader;
pub mod rows;
