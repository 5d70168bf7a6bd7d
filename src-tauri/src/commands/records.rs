//! The open analysis's records, read back from the files it was made from: a raw line, the
//! records around a line, and the notifications a naive reading drops from a dsh-rpc root turn.
//! Only the files of what is open can be asked about.

use tauri::State;

use super::opened::Opened;
use crate::engine::{RecordPage, RecordView};
use crate::open::CommandError;

/// The raw text of line `line` (1-based) of `file`, a file as the open report names it; `None`
/// when the file has no such line. Only the files of what is open can be read.
#[tauri::command]
pub async fn raw_line(file: String, line: u64, opened: State<'_, Opened>) -> Result<Option<String>, CommandError> {
    let open = opened.current()?;
    if !open.analysis.files.iter().any(|f| f.display == file) {
        return Err(CommandError::new("not-open", format!("{file} is not part of what is open")));
    }
    tauri::async_runtime::spawn_blocking(move || open.analysis.raw_line(&file, line))
        .await
        .map_err(CommandError::stopped)
}

/// The records around the one at line `line` (1-based) of `file`: up to `before` (capped at 50)
/// before it, the record itself, up to `after` (capped at 50) after it, in wire order. Empty when
/// no record starts on that line. Only the files of what is open can be asked about.
#[tauri::command]
pub async fn records_around(
    file: String,
    line: u64,
    before: usize,
    after: usize,
    opened: State<'_, Opened>,
) -> Result<Vec<RecordView>, CommandError> {
    let open = opened.current()?;
    let analysis = &open.analysis;
    if !analysis.files.iter().any(|f| f.display == file) {
        return Err(CommandError::new("not-open", format!("{file} is not part of what is open")));
    }
    Ok(analysis
        .find_record(&file, line)
        .map_or_else(Vec::new, |i| analysis.records_around(i, before.min(50), after.min(50))))
}

/// The notifications of the dsh-rpc root turn of `root` that starts at `file:line` that the naive
/// reading drops (attributed to the root through a descendant): `limit` (capped at 500) of them
/// from `offset`, and how many there are, so that a huge turn crosses the IPC a page at a time.
#[tauri::command]
pub async fn naive_dropped(
    root: String,
    file: String,
    line: u64,
    offset: usize,
    limit: usize,
    opened: State<'_, Opened>,
) -> Result<RecordPage, CommandError> {
    opened
        .current()?
        .analysis
        .naive_dropped(&root, &file, line, offset, limit.min(500))
        .ok_or_else(|| CommandError::new("no-such-wait", format!("no root turn of {root} starts at {file}:{line}")))
}
