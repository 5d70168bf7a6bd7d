//! The IPC commands: the app's whole surface towards the web UI, one file for each job. Each
//! command is a thin call into the engine (through `engine.rs`); the UI reaches them only through
//! `ui/src/lib/ipc.ts`.
//!
//! What is open stays in `Opened` (`opened.rs`): the analysis and its view (`arbor_core::view`),
//! which the page asks for what it draws, a page or a window at a time, never the whole report.
//! Reading a log runs on a blocking thread at a lower priority (`load.rs`); while it reads,
//! progress and "the tree of what is read so far changed" stream to the page through a `Channel`,
//! and the page asks for the rows of that tree it shows (`tree.rs`). Search streams its hits
//! through a channel of its own (`search.rs`).

pub mod compare;
pub mod export;
pub mod follow;
pub mod library;
pub mod load;
pub mod opened;
pub mod pages;
pub mod records;
pub mod search;
pub mod settings;
pub mod timeline;
pub mod transcript;
pub mod tree;
