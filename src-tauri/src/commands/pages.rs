//! The open log's lists and details, a page at a time from its view: findings (and those at a
//! place), one session's runs, the root's waits, the replies, the usage table.

use tauri::State;

use super::opened::{with_view, Opened};
use crate::engine::{
    Diagnostic, FindingsFilter, FindingsPage, Place, RepliesPage, SessionDetail, UsagePage, UsageSort, WaitsPage,
};
use crate::open::CommandError;

/// Rows `offset..offset + limit` (at most 500) of the findings list for `filter`.
#[tauri::command]
pub async fn findings_page(
    filter: FindingsFilter,
    offset: u32,
    limit: u32,
    opened: State<'_, Opened>,
) -> Result<FindingsPage, CommandError> {
    with_view(&opened, move |v| v.findings(&filter, offset, limit.min(500))).await
}

/// The findings reported at line `line` of `file`.
#[tauri::command]
pub async fn findings_at(file: String, line: u64, opened: State<'_, Opened>) -> Result<Vec<Diagnostic>, CommandError> {
    with_view(&opened, move |v| v.findings_at(&Place { file, line })).await
}

/// One session: its runs, with the parent each ran under; `null` when the log has no such session.
#[tauri::command]
pub async fn session_detail(id: String, opened: State<'_, Opened>) -> Result<Option<SessionDetail>, CommandError> {
    with_view(&opened, move |v| v.session(&id)).await
}

/// Root waits `offset..offset + limit` (at most 200), each beside its naive reading.
#[tauri::command]
pub async fn waits_page(offset: u32, limit: u32, opened: State<'_, Opened>) -> Result<WaitsPage, CommandError> {
    with_view(&opened, move |v| v.waits(offset, limit.min(200))).await
}

/// Replies `offset..offset + limit` (at most 200), grouped by session in the tree's order.
#[tauri::command]
pub async fn replies_page(offset: u32, limit: u32, opened: State<'_, Opened>) -> Result<RepliesPage, CommandError> {
    with_view(&opened, move |v| v.replies(offset, limit.min(200))).await
}

/// Rows `offset..offset + limit` (at most 500) of the usage table: every session with its own and
/// its subtree's tokens, cost, duration and turns, sorted by `sort`.
#[tauri::command]
pub async fn usage_page(
    sort: UsageSort,
    offset: u32,
    limit: u32,
    opened: State<'_, Opened>,
) -> Result<UsagePage, CommandError> {
    with_view(&opened, move |v| v.usage_page(sort, offset, limit.min(500))).await
}
