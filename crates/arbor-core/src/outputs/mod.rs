//! What is made of a finished analysis: the report's parts and its JSON writer, transcripts
//! read back a page at a time, the edits each agent made (`changes`), and a session as Markdown or
//! HTML to share (`share`), and two runs compared (`compare`).

pub mod changes;
pub mod compare;
pub(crate) mod report_json;
pub mod report_parts;
pub mod share;
pub mod transcript;
