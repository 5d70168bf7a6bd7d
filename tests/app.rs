//! arbor-app's integration tests in one binary: each file beside this one is a module of it
//! (`cargo test -p arbor-app --test app NAME::` runs one file's). One compile and one link
//! instead of one a file: crates/arbor-core/tests/integration.rs says why.

mod app_commands;
mod app_ipc;
mod app_report_types;
mod app_ts_bindings;
