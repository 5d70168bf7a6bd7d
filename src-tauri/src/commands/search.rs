//! Searching what is open: hits and progress streamed through a channel of their own, up to a
//! limit, a search stopped there kept to go on with (`search_more`); a newer search or
//! `cancel_search` stops the one running.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tauri::ipc::Channel;
use tauri::State;

use super::opened::{Opened, Paused};
use crate::engine::{self, Cursor, SearchEnd, SearchEvent};
use crate::open::{lock, CommandError, Open};

/// How many hits a search finds before it waits to be asked for more, at most.
const SEARCH_LIMIT: u32 = 1000;

/// Runs a search from `cursor` on a blocking thread at a lower priority, its hits and progress
/// (at most ten times a second) streamed to `on_event`, until `limit` hits, the end, or a newer
/// search; a search stopped at its limit is kept for `search_more`.
async fn search_from(
    opened: &Opened,
    open: Arc<Open>,
    mine: u64,
    mut cursor: Cursor,
    limit: u32,
    on_event: Channel<SearchEvent>,
) -> Result<SearchEnd, CommandError> {
    let generation = opened.search_generation.clone();
    let (end, cursor) = tauri::async_runtime::spawn_blocking(move || {
        engine::at_low_priority(move || {
            let mut last: Option<Instant> = None;
            // The view is held while its sessions are searched, not while the records are read:
            // a followed log's view grows meanwhile.
            let end = cursor.run_lent(&open.analysis, || open.view(), limit.min(SEARCH_LIMIT), &mut |e| {
                let wanted = generation.load(Ordering::SeqCst) == mine;
                if wanted
                    && (!matches!(e, SearchEvent::Progress { .. })
                        || last.is_none_or(|t| t.elapsed() >= Duration::from_millis(100)))
                {
                    if matches!(e, SearchEvent::Progress { .. }) {
                        last = Some(Instant::now());
                    }
                    let _ = on_event.send(e);
                }
                wanted
            });
            (end, cursor)
        })
    })
    .await
    .map_err(CommandError::stopped)?
    .map_err(CommandError::stopped)?;
    if end == SearchEnd::Limit {
        *lock(&opened.paused) = Some(Paused { generation: mine, cursor });
    }
    Ok(end)
}

/// Sessions whose id or label contains `query`, then records whose line does (ignoring case),
/// streamed to `on_event` as they are found, with progress, up to `limit` (at most 1000) hits;
/// `search_more` goes on from there. A newer search (or `cancel_search`) stops this one.
#[tauri::command]
pub async fn search(
    query: String,
    limit: u32,
    on_event: Channel<SearchEvent>,
    opened: State<'_, Opened>,
) -> Result<SearchEnd, CommandError> {
    let mine = opened.search_generation.fetch_add(1, Ordering::SeqCst) + 1;
    *lock(&opened.paused) = None;
    let open = opened.current()?;
    let Some(cursor) = Cursor::new(&query) else {
        let _ = on_event.send(SearchEvent::End { end: SearchEnd::Done, hits: 0 });
        return Ok(SearchEnd::Done);
    };
    search_from(&opened, open, mine, cursor, limit, on_event).await
}

/// Goes on with the last search after its limit: `limit` (at most 1000) more hits.
#[tauri::command]
pub async fn search_more(
    limit: u32,
    on_event: Channel<SearchEvent>,
    opened: State<'_, Opened>,
) -> Result<SearchEnd, CommandError> {
    let open = opened.current()?;
    let paused = lock(&opened.paused).take();
    let mine = opened.search_generation.load(Ordering::SeqCst);
    match paused.filter(|p| p.generation == mine) {
        Some(p) => search_from(&opened, open, mine, p.cursor, limit, on_event).await,
        None => Err(CommandError::new("no-search", "no search to go on with")),
    }
}

/// Stops the search in progress, if any.
#[tauri::command]
pub fn cancel_search(opened: State<'_, Opened>) {
    opened.search_generation.fetch_add(1, Ordering::SeqCst);
    *lock(&opened.paused) = None;
}
