// Generated from arbor-core's Rust types by ts-rs (crates/arbor-core/tests/explain.rs).
// Do not edit: change the Rust types, then ARBOR_UPDATE_BINDINGS=1 cargo test -p arbor-core --test integration explain::

import type { Severity } from "./report";

export type Explanation = { 
/**
 * The finding's `code`, as in reports.
 */
code: string, severity: Severity, 
/**
 * One line: what was found.
 */
title: string, 
/**
 * Why it matters: what is wrong or lost when a log has it.
 */
why: string, 
/**
 * What a naive reader of the log does with it.
 */
naive: string, 
/**
 * How to fix it (in the producer, the log, or how it is opened).
 */
fix: string, 
/**
 * The sections of SPEC.md the rule comes from, such as `2.1` or `2.4, 2.5`.
 */
spec: string, };
