//! Follow's switch: whether what is open is followed, turning it on or off, and stopping it when
//! the window closes. The following itself (its thread, the view grown at each revision) is
//! `crate::follow`'s.

use std::path::PathBuf;
use std::sync::atomic::Ordering;

use tauri::State;

use super::opened::Opened;
use crate::open::{lock, CommandError};

/// Whether what is open is followed, and how recently it was written (Follow is on by default
/// for a log written in the last minutes).
#[tauri::command]
pub fn follow_state(opened: State<'_, Opened>) -> Result<crate::follow::FollowState, CommandError> {
    let open = opened.current()?;
    let files: Vec<PathBuf> = open.analysis.files.iter().map(|f| f.path.clone()).collect();
    let modified_ago = crate::follow::modified_ago(&files);
    Ok(crate::follow::FollowState {
        following: lock(&opened.following).as_ref().is_some_and(|f| f.is_current(&opened.generation)),
        modified_ago,
        recent: modified_ago.is_some_and(|s| s <= crate::follow::RECENT.as_secs_f64()),
    })
}

/// Follows what is open as it is written (`on: true`), or stops following it. While it is
/// followed, `changed` messages with a `follow` part come over the channel it was loaded over.
#[tauri::command]
pub async fn set_follow(on: bool, opened: State<'_, Opened>) -> Result<crate::follow::FollowState, CommandError> {
    // The follow in progress ends (its thread gives what it read back to what is open).
    let before = lock(&opened.following).take();
    if let Some(before) = before {
        tauri::async_runtime::spawn_blocking(move || before.stop()).await.map_err(CommandError::stopped)?;
    }
    if on {
        let open = opened.current()?;
        let channel = lock(&opened.channel).clone().ok_or_else(|| CommandError::new("not-open", "no log is open"))?;
        let mine = opened.generation.load(Ordering::SeqCst);
        let shared = crate::follow::Shared {
            open: opened.open.clone(),
            revision: opened.revision.clone(),
            generation: opened.generation.clone(),
            mine,
            channel,
            taken: opened.taken.clone(),
        };
        let paths = open.paths.clone();
        // What the load (or the last follow) read, when it was kept: following goes on from it.
        let live = lock(&open.live).take();
        let following = tauri::async_runtime::spawn_blocking(move || crate::follow::start(paths, live, shared))
            .await
            .map_err(CommandError::stopped)??;
        // A load that began meanwhile wins (the follow is dropped, and stops).
        if opened.generation.load(Ordering::SeqCst) == mine {
            *lock(&opened.following) = Some(following);
        }
    }
    follow_state(opened)
}

/// Stops following (the window is closing).
pub fn stop_following(opened: &Opened) {
    *lock(&opened.following) = None;
}
