//! The Library (SPEC 5, 6.1): every session on this machine, from `arbor_library`'s library on
//! disk (the same file `arbor sessions` keeps: `ARBOR_LIBRARY`, else the platform's local data
//! folder), brought up to date with the harnesses' places when asked; and a search through every
//! transcript's text. Both run on a blocking thread; the page gets summaries and hits, a line of
//! text each, never a transcript.

use crate::open::CommandError;
use arbor_library::places::{self, Env};
use arbor_library::store::{self, Hits, Library};
use arbor_library::summary::Summary;
use serde::Serialize;
use tauri::{AppHandle, Manager, Runtime};

/// The Library's sessions, and why it was rebuilt when it was.
#[derive(Debug, Clone, Serialize)]
pub struct LibrarySessions {
    pub sessions: Vec<Summary>,
    pub notice: Option<String>,
}

/// Hits at most for one search.
const HITS: usize = 200;

fn open() -> Result<Library, CommandError> {
    let path = store::default_path()
        .ok_or_else(|| CommandError::new("internal", "no folder for the library: set ARBOR_LIBRARY to a file"))?;
    Library::open(&path).map_err(|e| CommandError::new("library", e.to_string()))
}

/// Every session of the harnesses' places, the library brought up to date first (only what
/// changed is read).
#[tauri::command]
pub async fn library_sessions<R: Runtime>(app: AppHandle<R>) -> Result<LibrarySessions, CommandError> {
    let mut env = Env::from_process();
    if env.home.is_none() {
        env.home = app.path().home_dir().ok();
    }
    tauri::async_runtime::spawn_blocking(move || {
        let mut lib = open()?;
        let entries =
            lib.entries_of_places(places::logs(&env)).map_err(|e| CommandError::new("library", e.to_string()))?;
        lib.update(&entries, jobs()).map_err(|e| CommandError::new("library", e.to_string()))?;
        let sessions = lib.summaries().map_err(|e| CommandError::new("library", e.to_string()))?;
        // The transcripts' text indexed behind the list, for the first search (one that comes
        // sooner indexes what is left itself, waiting on this one's transactions).
        let notice = lib.notice.take();
        std::thread::spawn(move || lib.index(jobs()));
        Ok(LibrarySessions { sessions, notice })
    })
    .await
    .map_err(CommandError::stopped)?
}

/// The transcript items holding every word of `text`, best first, among items indexed before
/// `before` (all when none); with the oldest item searched when older ones were not (the
/// Library offers to search those).
#[tauri::command]
pub async fn library_search(text: String, before: Option<i64>) -> Result<Hits, CommandError> {
    tauri::async_runtime::spawn_blocking(move || {
        // What is not yet indexed is indexed first (the Library indexes after listing too).
        let mut lib = open()?;
        lib.index(jobs()).map_err(|e| CommandError::new("library", e.to_string()))?;
        lib.search_before(&text, HITS, before).map_err(|e| CommandError::new("library", e.to_string()))
    })
    .await
    .map_err(CommandError::stopped)?
}

/// The library's tokens and cost summed `by` day, week or month (in this machine's time zone),
/// model, project or session (SPEC 6.2), as `arbor usage` reports them; the library as the last
/// `library_sessions` left it.
#[tauri::command]
pub async fn library_usage(by: String) -> Result<Vec<arbor_library::usage::Line>, CommandError> {
    use arbor_library::usage::By;
    let by = match by.as_str() {
        "daily" => By::Daily,
        "weekly" => By::Weekly,
        "monthly" => By::Monthly,
        "session" => By::Session,
        "model" => By::Model,
        "project" => By::Project,
        other => return Err(CommandError::new("bad-argument", format!("no usage report by `{other}`"))),
    };
    tauri::async_runtime::spawn_blocking(move || {
        let lib = open()?;
        let failed = |e: store::Error| CommandError::new("library", e.to_string());
        let summaries = lib.summaries().map_err(failed)?;
        let booked = lib.booked().map_err(failed)?;
        let tz = arbor_library::usage::TimeZone::system();
        Ok(arbor_library::usage::report(by, &summaries, &booked, &tz))
    })
    .await
    .map_err(CommandError::stopped)?
}

/// Entries read at once: one a core.
fn jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
