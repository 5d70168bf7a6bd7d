//! What is made of a finished analysis: the report's parts and its JSON writer, and transcripts
//! read back a page at a time.

pub(crate) mod report_json;
pub mod report_parts;
pub mod transcript;
