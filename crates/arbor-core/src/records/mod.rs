//! What a log's records become as they are read: the context formats write into (`ctx`: the
//! record index, findings, strings), the session graph, turns and steps, token usage, and the
//! prices costs are reckoned at.

pub mod ctx;
pub mod graph;
pub mod prices;
pub mod turns;
pub mod usage;
