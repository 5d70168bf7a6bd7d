//! Bytes: the files of an opened path, zstd, and lines with their numbers and offsets. Knows no
//! format and no JSON.

pub mod reader;
