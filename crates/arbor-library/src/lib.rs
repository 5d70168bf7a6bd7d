//! Every session on this machine (SPEC 6.1, 6.2): the harnesses' places (`places`), one summary
//! per session made from its own analysis (`summary`), the library that keeps them on disk with
//! the transcripts' text for full-text search (`store`), and the usage reports summed from it
//! (`usage`). No Tauri: `arbor sessions`, `arbor usage` and the app's Library all call this.

pub mod places;
pub mod rank;
pub mod store;
pub mod summary;
pub mod usage;
