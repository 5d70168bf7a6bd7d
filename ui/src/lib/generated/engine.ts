// Generated from arbor-core's Rust types by ts-rs (crates/arbor-core/tests/ts_bindings.rs).
// Do not edit: change the Rust types, then ARBOR_UPDATE_BINDINGS=1 cargo test -p arbor-core --test ts_bindings

import type { Diagnostic } from "./report";

export type Progress = { files_done: number, files_total: number, bytes_read: number, bytes_total: number, records: number, sessions: number, findings: number, };

export type SessionDelta = { id: string, parent: string | null, label: string | null, };

export type EdgeDelta = { child: string, parent: string | null, };

export type Delta = { progress: Progress, sessions: Array<SessionDelta>, edges: Array<EdgeDelta>, findings: Array<Diagnostic>, };

export type RecordView = { 
/**
 * The record's position in the whole analysis (wire order across inputs).
 */
index: number, file: string, line: number, session: string | null, kind: string, 
/**
 * Epoch milliseconds, when the log has a clock.
 */
time: number | null, };

export type RecordPage = { total: number, offset: number, records: Array<RecordView>, };

export type Hit = { "type": "session", id: string, label: string | null, } | { "type": "record", record: RecordView, text: string, };

export type FormatInfo = { id: string, description: string, };
