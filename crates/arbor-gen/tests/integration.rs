//! arbor-gen's integration tests in one binary: each file beside this one is a module of it
//! (`cargo test -p arbor-gen --test integration NAME::` runs one file's). One compile and one link
//! instead of one a file: crates/arbor-core/tests/integration.rs says why.

mod claude_code;
mod codex;
mod engine;
mod gemini;
mod line_endings;
mod live;
mod live_cli;
mod opencode;
