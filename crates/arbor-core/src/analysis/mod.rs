//! The analysis and its driver: reads each input through the reader, detects its format, feeds its lines in wire
//! order to that format's state machine, then lets each format settle cross-file facts and
//! builds the report. It knows formats only through `formats::Format` and `formats::Machine`.
//!
//! One pass over each file; memory holds the record index (a few dozen bytes a record), the graph
//! and the findings, never line text. Progress is reported to an observer, which may cancel.

mod ahead;
mod delta;
mod flow;
pub mod live;
mod read;
mod records;
mod value;

pub use delta::{Delta, EdgeDelta, Observer, Progress, SessionDelta};
pub(crate) use flow::KeptFile;
pub use read::{analyze, analyze_with};
pub(crate) use read::{read_all, read_one, settle};
pub(crate) use records::snippet;
pub use records::{Hit, RecordPage, RecordView};
pub(crate) use value::worker_threads;
pub(crate) use value::Lineage;
pub(crate) use value::ReplyTexts;
pub use value::{Analysis, FileInfo, Threads};
