//! Every session on this machine (SPEC 6.1, 6.2): the harnesses' places (`places`), one summary
//! per session made from its own analysis (`summary`), and, to come, the library that keeps them on
//! disk. No Tauri: `arbor sessions`, `arbor usage` and the app's Library all call this.

pub mod places;
pub mod summary;
