//! The engine's integration tests, one binary: each file beside this one is a module of it
//! (`cargo test -p arbor-core --test integration hostile::` runs one file's tests). As eighteen
//! binaries they were eighteen compiles of the same generic code at the engine's opt-level and
//! eighteen links, the largest part of the workspace build after the Tauri stack (Cargo.toml,
//! `autotests = false`).

mod common;
#[path = "support/ts_file.rs"]
mod ts_file;

mod bomb;
mod claude_code;
mod codex;
mod conformance;
mod corpus;
mod explain;
mod hostile;
mod layers;
mod opencode;
mod props;
mod queries;
mod scan;
mod semantics;
mod share;
mod subagent_replies;
mod transcript;
mod ts_bindings;
mod usage;
