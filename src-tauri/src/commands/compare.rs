//! Comparing two runs (SPEC 5 Compare, 6.3): the two trees aligned, each pair's deltas and the
//! first place their conversations part, as `arbor diff` gives them (`arbor_core::compare`):
//! the comparison's head in one answer, its pairs a window at a time (a run of 235,000
//! sub-agents was ~300 MB of JSON in one answer); and a page of either side's transcript, for the
//! two shown side by side from the divergence. The two analyses and the pairs are kept until the
//! next comparison (the open log's analysis is shared, not read again).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use serde::Deserialize;
use tauri::State;
use ts_rs::TS;

use super::opened::Opened;
use crate::engine::{Analysis, TranscriptPage};
use crate::open::{lock, CommandError, Open};
use arbor_core::outputs::compare::{ComparedPair, ComparisonHead, Measure, PairsPage};

/// One side of a comparison: files and folders to read (none: the open log), and the session
/// its run starts at (none: the only root those files hold).
#[derive(Debug, Clone, Deserialize, TS)]
pub struct CompareSide {
    pub paths: Vec<String>,
    pub session: Option<String>,
}

/// Which side a transcript page is of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
#[ts(rename = "CompareWhich")]
pub enum Which {
    A,
    B,
}

/// An analysis a comparison holds: the open log's, or one it read itself.
#[derive(Clone)]
enum Held {
    Open(Arc<Open>),
    Read(Arc<Analysis>),
}

impl Held {
    fn analysis(&self) -> &Analysis {
        match self {
            Held::Open(o) => &o.analysis,
            Held::Read(a) => a,
        }
    }
}

/// The last comparison: its two analyses and its pairs.
struct Kept {
    a: Held,
    b: Held,
    pairs: Vec<ComparedPair>,
}

/// The last comparison.
#[derive(Default)]
pub struct Compared(Mutex<Option<Arc<Kept>>>);

/// How many characters of one part a compared transcript's page carries.
const TEXT: usize = 4000;

/// A side being read: the open log at once, else its files on a blocking thread.
enum Reading {
    Now(Result<Held, CommandError>),
    Files(tauri::async_runtime::JoinHandle<Result<Held, CommandError>>),
}

impl Reading {
    async fn done(self) -> Result<Held, CommandError> {
        match self {
            Reading::Now(held) => held,
            Reading::Files(task) => task.await.map_err(CommandError::stopped)?,
        }
    }
}

/// What a side stands for: the open log (no paths, or the open log's own), else its files read
/// on a blocking thread, started here (two sides are read at once) and awaited with `done`.
fn read(side: &CompareSide, opened: &Opened) -> Reading {
    let paths: Vec<PathBuf> = side.paths.iter().map(PathBuf::from).collect();
    if paths.is_empty() {
        return Reading::Now(opened.current().map(Held::Open));
    }
    if let Some(open) = opened.current().ok().filter(|o| o.paths == paths) {
        return Reading::Now(Ok(Held::Open(open)));
    }
    Reading::Files(tauri::async_runtime::spawn_blocking(move || {
        if let Some(p) = paths.iter().find(|p| !arbor_core::reader::exists(p)) {
            return Err(CommandError::new("not-found", format!("no such file or folder: {}", p.display())));
        }
        match crate::engine::load(&paths, &mut ()) {
            Ok(a) => Ok(Held::Read(Arc::new(a))),
            Err(crate::engine::LoadFailure::Unreadable(why)) => Err(CommandError::new("unreadable", why)),
            Err(crate::engine::LoadFailure::Cancelled) => {
                Err(CommandError::new("cancelled", "the reading was cancelled"))
            }
        }
    }))
}

/// The session a side's run starts at: the one named, else the only top session.
fn root(held: &Held, named: Option<&str>, side: &str) -> Result<String, CommandError> {
    if let Some(s) = named {
        return Ok(s.to_owned());
    }
    match held.analysis().top_sessions().as_slice() {
        [one] => Ok((*one).to_owned()),
        [] => Err(CommandError::new("no-session", format!("{side} holds no session"))),
        many => Err(CommandError::new(
            "several-roots",
            format!(
                "{side} holds {} root sessions: choose one ({})",
                many.len(),
                many.iter().take(5).copied().collect::<Vec<_>>().join(", ")
            ),
        )),
    }
}

/// Compares the run of `a` with the run of `b` (SPEC 6.3), measures in `ignore` left out of
/// whether they are the same. What is not open is read first, each set of files once.
#[tauri::command]
pub async fn compare_runs(
    a: CompareSide,
    b: CompareSide,
    ignore: Vec<Measure>,
    opened: State<'_, Opened>,
    compared: State<'_, Compared>,
) -> Result<ComparisonHead, CommandError> {
    // Both sides read at once (one analysis routes on one thread); A's failure said first.
    let reading_a = read(&a, &opened);
    let reading_b = (a.paths != b.paths).then(|| read(&b, &opened));
    let held_a = reading_a.done().await?;
    let held_b = match reading_b {
        Some(b) => b.done().await?,
        None => held_a.clone(),
    };
    let (head, kept) = tauri::async_runtime::spawn_blocking(move || {
        let ra = root(&held_a, a.session.as_deref(), "A")?;
        let rb = root(&held_b, b.session.as_deref(), "B")?;
        let cmp = held_a
            .analysis()
            .compare(&ra, held_b.analysis(), &rb, &ignore)
            .ok_or_else(|| CommandError::new("no-session", format!("no session {ra} in A, or {rb} in B")))?;
        let (head, pairs) = cmp.into_head();
        Ok::<_, CommandError>((head, Arc::new(Kept { a: held_a, b: held_b, pairs })))
    })
    .await
    .map_err(CommandError::stopped)??;
    *lock(&compared.0) = Some(kept);
    Ok(head)
}

/// Pairs `offset..offset + limit` (at most 500) of the last comparison.
#[tauri::command]
pub async fn compare_pairs(offset: u32, limit: u32, compared: State<'_, Compared>) -> Result<PairsPage, CommandError> {
    let kept = lock(&compared.0).clone().ok_or_else(|| CommandError::new("not-compared", "nothing is compared"))?;
    Ok(arbor_core::outputs::compare::pairs_page(&kept.pairs, offset, limit.min(500)))
}

/// Rows `from..from + limit` (at most 500) of `session`'s transcript on `side` of the last
/// comparison, each part's text cut to 4,000 characters.
#[tauri::command]
pub async fn compare_transcript(
    side: Which,
    session: String,
    from: u32,
    limit: u32,
    compared: State<'_, Compared>,
) -> Result<TranscriptPage, CommandError> {
    let kept = lock(&compared.0).clone().ok_or_else(|| CommandError::new("not-compared", "nothing is compared"))?;
    tauri::async_runtime::spawn_blocking(move || {
        let held = if side == Which::A { &kept.a } else { &kept.b };
        let a = held.analysis();
        let index = a
            .transcript_index(&session)
            .ok_or_else(|| CommandError::new("no-session", format!("no session {session}")))?;
        Ok(a.transcript_page(&index, from, limit.min(500), TEXT))
    })
    .await
    .map_err(CommandError::stopped)?
}
