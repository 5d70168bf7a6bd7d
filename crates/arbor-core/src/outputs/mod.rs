//! What is made of a finished analysis: the report's parts and its JSON writer, transcripts
//! read back a page at a time, and the edits each agent made (`changes`).

pub mod changes;
pub(crate) mod report_json;
pub mod report_parts;
pub mod transcript;
