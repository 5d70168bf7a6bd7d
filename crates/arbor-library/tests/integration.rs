//! arbor-library's integration tests in one binary: each file beside this one is a module of it
//! (`cargo test -p arbor-library --test integration NAME::` runs one file's). One compile and one link
//! instead of one a file: crates/arbor-core/tests/integration.rs says why.

mod store;
mod summary;
