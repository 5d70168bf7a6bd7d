//! One session's transcript, a page of rows at a time (each part's text cut to a budget), a
//! part's whole text, the row a place opens, and the rows a find or a filter keeps. The index of the session last read is kept by
//! what is open (`Open::transcript`).

use serde::Serialize;
use tauri::State;
use ts_rs::TS;

use super::opened::Opened;
use crate::engine::{Analysis, ChangesPage, Place, TranscriptIndex, TranscriptPage, TranscriptShow};
use crate::open::CommandError;

/// How many characters of one part a transcript page carries; `transcript_part` gives the rest.
const TRANSCRIPT_TEXT: usize = 4000;

/// Runs `f` on the open log's analysis and the transcript index of `session` on a blocking
/// thread (the first ask for a session walks its records); `no-session` when there is none.
async fn with_transcript<T: Send + 'static>(
    opened: &Opened,
    session: String,
    f: impl FnOnce(&Analysis, &TranscriptIndex) -> T + Send + 'static,
) -> Result<T, CommandError> {
    let open = opened.current()?;
    tauri::async_runtime::spawn_blocking(move || {
        let index = open.transcript(&session);
        index
            .map(|i| f(&open.analysis, &i))
            .ok_or_else(|| CommandError::new("no-session", format!("no session {session}")))
    })
    .await
    .map_err(CommandError::stopped)?
}

/// Rows `from..from + limit` (at most 500) of a session's transcript, each part's text cut to
/// 4,000 characters (with its whole length).
#[tauri::command]
pub async fn transcript_page(
    session: String,
    from: u32,
    limit: u32,
    opened: State<'_, Opened>,
) -> Result<TranscriptPage, CommandError> {
    with_transcript(&opened, session, move |a, i| a.transcript_page(i, from, limit.min(500), TRANSCRIPT_TEXT)).await
}

/// The whole text of part `part` of row `row` of a session's transcript; `null` when it has none.
#[tauri::command]
pub async fn transcript_part(
    session: String,
    row: u32,
    part: u32,
    opened: State<'_, Opened>,
) -> Result<Option<String>, CommandError> {
    with_transcript(&opened, session, move |a, i| a.transcript_part(i, row, part as usize)).await
}

/// The data of image part `part` of row `row` of a session's transcript, as a `data:` URL (an
/// image type only); `null` when the part is not an inline image.
#[tauri::command]
pub async fn transcript_media(
    session: String,
    row: u32,
    part: u32,
    opened: State<'_, Opened>,
) -> Result<Option<String>, CommandError> {
    with_transcript(&opened, session, move |a, i| a.transcript_media(i, row, part as usize)).await
}

/// How many characters of one edit's diff a page of changes carries.
const CHANGES_DIFF: usize = 20_000;

/// Edits `from..from + limit` (at most 200) of what `session`'s subtree changed (every session's:
/// `null`), each diff cut to 20,000 characters.
#[tauri::command]
pub async fn changes_page(
    session: Option<String>,
    from: u32,
    limit: u32,
    opened: State<'_, Opened>,
) -> Result<ChangesPage, CommandError> {
    let open = opened.current()?;
    tauri::async_runtime::spawn_blocking(move || {
        let edits = open.changes(session.as_deref());
        ChangesPage::of(&edits, session.as_deref(), from, limit.min(200), CHANGES_DIFF)
    })
    .await
    .map_err(CommandError::stopped)
}

/// Where a place opens in a transcript: the session of the record there (else `session`), and the
/// row of that record or of the last one before it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct TranscriptSpot {
    pub session: String,
    pub row: u32,
}

/// The transcript item a place (a finding's, a search hit's, a run's start) opens: `null` when no
/// record starts there and `session` is not given, or its transcript is empty.
#[tauri::command]
pub async fn transcript_locate(
    session: Option<String>,
    place: Place,
    opened: State<'_, Opened>,
) -> Result<Option<TranscriptSpot>, CommandError> {
    let open = opened.current()?;
    tauri::async_runtime::spawn_blocking(move || {
        let record = open.analysis.find_record(&place.file, place.line);
        let owner = record.and_then(|r| open.analysis.record_view(r)).and_then(|v| v.session);
        let session = owner.or(session)?;
        let index = open.transcript(&session)?;
        let row = match record {
            Some(r) => index.row_near(r)?,
            None if index.is_empty() => return None,
            None => 0,
        };
        Some(TranscriptSpot { session, row })
    })
    .await
    .map_err(CommandError::stopped)
}

/// The rows of a session's transcript that a find (`query`, any case) and a filter (`show`)
/// keep, in order; `query` empty finds every row the filter keeps. With `from` and `limit`, only
/// among rows `from..from + limit` (a find asks a block at a time, nearest the reader first).
#[tauri::command]
pub async fn transcript_find(
    session: String,
    query: String,
    show: TranscriptShow,
    from: Option<u32>,
    limit: Option<u32>,
    opened: State<'_, Opened>,
) -> Result<Vec<u32>, CommandError> {
    let (from, limit) = (from.unwrap_or(0), limit.unwrap_or(u32::MAX));
    with_transcript(&opened, session, move |a, i| a.transcript_find_in(i, &query, show, from, limit)).await
}
