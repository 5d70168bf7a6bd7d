//! The app's adapter over `arbor-core`: the few engine calls the commands make, in one place, so
//! that a change in the engine's surface is a change here and nowhere else. It owns no analysis.

use std::path::{Path, PathBuf};

pub use arbor_core::changes::ChangesPage;
pub use arbor_core::live::Live;
pub use arbor_core::report::{Diagnostic, Place};
pub use arbor_core::transcript::{
    Index as TranscriptIndex, Page as TranscriptPage, Part as TranscriptPart, PartKind as TranscriptPartKind,
    Show as TranscriptShow,
};
pub use arbor_core::view::search::{Cursor, SearchEnd, SearchEvent};
pub use arbor_core::view::{
    Axis, FindingsFilter, FindingsPage, Growing, HitQuery, Located, RepliesPage, SessionDetail, Summary, TimelineHit,
    TimelineInfo, TimelineOpen, TimelineWindow, TreeOrder, TreePage, TreeSpot, UsagePage, UsageSort, View, WaitsPage,
    WindowQuery,
};
pub use arbor_core::{Analysis, Delta, LoadError, Observer, Progress, RecordPage, RecordView, Report};

/// Why a load produced no analysis.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadFailure {
    /// The observer asked to stop (the user cancelled, or opened something else).
    Cancelled,
    /// Nothing could be read in a known format.
    Unreadable(String),
}

/// Analyzes files and folders, telling `observer` of progress and deltas as it goes (call it on a
/// blocking thread: it reads files). Fails as `arbor_core::analyze_paths` does: only when no input
/// could be read in a known format.
pub fn load(paths: &[PathBuf], observer: &mut dyn Observer) -> Result<Analysis, LoadFailure> {
    let analysis = arbor_core::analyze(paths, observer);
    if analysis.cancelled {
        return Err(LoadFailure::Cancelled);
    }
    unreadable(&analysis)?;
    Ok(analysis)
}

/// `load`, keeping what following the log needs (`arbor_core::live::Live::analyze`: the context
/// twice over while it is open), so that Follow turned on later reads only what was appended.
pub fn load_to_follow(paths: &[PathBuf], observer: &mut dyn Observer) -> Result<(Analysis, Live), LoadFailure> {
    let (analysis, live) = Live::analyze(paths, observer);
    let Some(live) = live else { return Err(LoadFailure::Cancelled) };
    unreadable(&analysis)?;
    Ok((analysis, live))
}

/// Nothing could be read in a known format: why.
fn unreadable(analysis: &Analysis) -> Result<(), LoadFailure> {
    if analysis.files.iter().all(|f| f.format.is_none()) {
        let why: Vec<String> = analysis.report().diagnostics.into_iter().map(|d| d.message).collect();
        return Err(LoadFailure::Unreadable(if why.is_empty() { "no log files found".into() } else { why.join("; ") }));
    }
    Ok(())
}

/// Whether a file `paths` stand for (a folder's, walked as the engine walks it) was written
/// within `recent`.
pub fn written_within(paths: &[PathBuf], recent: std::time::Duration) -> bool {
    let (inputs, _) = arbor_core::reader::expand(paths);
    let now = std::time::SystemTime::now();
    inputs.iter().any(|f| {
        std::fs::metadata(arbor_core::bytes::rows::file_of(&f.path))
            .and_then(|m| m.modified())
            .is_ok_and(|t| now.duration_since(t).unwrap_or_default() <= recent)
    })
}

/// Runs `work` on a thread of its own whose scheduling priority is lowered first. The engine's
/// threads are started from it and inherit that priority, so when the reading and the webview
/// both want the CPU (a large log takes both cores), the webview gets it: the first sessions
/// reach the screen while the rest is still being read. On Linux the thread's nice value is 10;
/// on Windows it is below normal, on macOS below the default of its policy (`lower_priority`).
/// `Err` when the thread could not start or panicked.
pub fn at_low_priority<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> Result<T, String> {
    let thread = std::thread::Builder::new().name("arbor-load".into()).spawn(move || {
        lower_priority();
        work()
    });
    match thread {
        Ok(t) => t.join().map_err(|_| "the reading thread panicked".to_owned()),
        Err(e) => Err(format!("no thread to read with: {e}")),
    }
}

/// Lowers the calling thread's scheduling priority, and that of the threads it starts from now
/// on, as `at_low_priority` does (for good: a thread cannot raise it again).
pub fn lower_this_thread() {
    lower_priority();
}

/// The priority the reading thread takes, on thread-priority's scale of 0 to 99 for every OS: on
/// Linux nice 10 (the crate maps 22 to it: the test below holds it), on Windows
/// THREAD_PRIORITY_BELOW_NORMAL (20 to 39), on macOS 22 of SCHED_OTHER's 15 to 47 (31 is the
/// default). Threads it starts inherit it on Linux and macOS; on Windows they start at normal.
const READING_PRIORITY: u8 = 22;

fn lower_priority() {
    // Only ever lowered: on Linux a thread already nicer than 10 (the app started with `nice`)
    // stays so; as root, setting nice 10 would raise it.
    #[cfg(target_os = "linux")]
    // SAFETY: getpriority reads none of our memory; PRIO_PROCESS with id 0 is the calling thread
    // on Linux (nice is per thread).
    if unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) } >= 10 {
        return;
    }
    if let Ok(p) = thread_priority::ThreadPriorityValue::try_from(READING_PRIORITY) {
        // A failure leaves the priority as it was.
        let _ = thread_priority::set_current_thread_priority(thread_priority::ThreadPriority::Crossplatform(p));
    }
}

/// Keeps the memory a followed log's revision frees for the next one: set once, when Follow first
/// goes on, for the app's life. Each revision copies the engine's context (`Live::snapshot`) and
/// grows the view, and the revision before is dropped after: with glibc's defaults its larger
/// blocks went back to the kernel and the next revision's were page-faulted in again, fresh. On
/// the 1 GiB dsh-rpc log with 10 MB appended the snapshot took 45-48 ms and the view 62-64 ms
/// that way, 22-24 ms and 38-40 ms with blocks up to 32 MiB taken from the heap and up to
/// 128 MiB of it kept free (BENCHMARKS.md, "Following: the view grows"). The first revision
/// still faults its copy in (a 1 GiB Copilot log's first snapshot took 169-184 ms): set before a
/// log is read to be followed, the copy reused what the reading freed (67-70 ms), but the reading
/// then kept 42 MB more at its peak, and a recent 1 GiB Copilot log went over the app's memory
/// target. Until then the app keeps glibc's defaults.
pub fn keep_memory_for_revisions() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        // SAFETY: mallopt sets allocator parameters under the main arena's lock. glibc's manual
        // marks it MT-Unsafe only for its first-call initialisation (`init`), which every
        // allocation the app made before this one already did.
        ONCE.call_once(|| unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
            libc::mallopt(libc::M_TRIM_THRESHOLD, 128 << 20);
        });
    }
}

/// The view of a finished analysis's report, the page's side of what is open; `None` when
/// `go_on` said to stop (it is asked often: a cancel stops the making of a view within
/// milliseconds, but for the reading back of reply texts).
pub fn view_of(analysis: &Analysis, revision: u64, go_on: &dyn Fn() -> bool) -> Option<View> {
    View::of_analysis(analysis, revision, go_on)
}

/// The view of a followed log's revision: as `view_of`, but its timeline is laid out when the
/// page first asks for it (a revision shown on the tree alone does not pay for it).
pub fn followed_view_of(analysis: &Analysis, revision: u64, go_on: &dyn Fn() -> bool) -> Option<View> {
    View::of_analysis_with(analysis, revision, go_on, arbor_core::view::Timeline::WhenAsked)
}

/// Grows `view` (of `before`, a followed log's snapshot) into the view of `now`, a later snapshot
/// of the same log, at `revision` (`View::grow`: what did not change is kept; it is made whole
/// when it cannot grow, which `go_on` may stop: `None`, the view left as it was).
pub fn grow(
    view: &mut View,
    before: &Analysis,
    now: &Analysis,
    revision: u64,
    go_on: &dyn Fn() -> bool,
) -> Option<arbor_core::view::Grown> {
    view.grow(before, now, revision, go_on)
}

/// Analyzes files and folders into one report, with no observer.
pub fn analyze_paths(paths: &[PathBuf]) -> Result<Report, LoadError> {
    arbor_core::analyze_paths(paths)
}

/// Writes the built-in sample under `dir` (the app's cache folder) and returns its folder, to be
/// read like any folder of logs so that its raw lines can be shown like any other.
pub fn write_sample(dir: &Path) -> Result<PathBuf, LoadFailure> {
    arbor_core::sample::write_to(dir)
        .map_err(|e| LoadFailure::Unreadable(format!("could not write the sample under {}: {e}", dir.display())))
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    /// The nice value of the calling thread.
    fn nice() -> i32 {
        // SAFETY: getpriority reads none of our memory (errno is not checked: 0 is a valid value
        // and the call cannot fail for the calling thread).
        unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) }
    }

    /// The reading thread runs at nice 10, and so do the threads it starts (the engine's
    /// readers, parsers and writers), while the thread that asked keeps its priority.
    #[test]
    fn the_reading_thread_and_its_threads_run_at_a_lower_priority() {
        let here = nice();
        let (reading, started) = super::at_low_priority(|| (nice(), std::thread::spawn(nice).join().unwrap())).unwrap();
        assert_eq!(reading, here.max(10), "the reading thread");
        assert_eq!(started, here.max(10), "a thread it starts");
        assert_eq!(nice(), here, "the caller");
    }
}
