//! Settings that persist between runs: the recent list, the theme, and each log's view state (the
//! session last selected, the tab last shown). One JSON file, `settings.json` in the app's data
//! folder, kept by the app and reached by the UI only through the commands in
//! `commands/settings.rs`: the web page names no path, so it can read or write no other file.
//!
//! Writes are atomic: the new content goes to a temporary file in the same folder, is flushed to
//! the disk, then renamed over the old file (`tempfile`'s `persist`: rename(2) on Unix,
//! `MoveFileExW` with replace on Windows). A crash or a full disk leaves the old file or the new
//! one, never a torn one. A file that is not settings (not JSON, or not an object) is moved aside
//! to `settings.json.corrupt` and the app starts from defaults, saying so once.
//!
//! Why not tauri-plugin-store, which this file replaces: its 2.4 `save` is `fs::write` (truncate,
//! then write; also run for every store at exit), which tears the file on a crash
//! (tauri-apps/plugins-workspace#3085); it discards a file it cannot parse without a word; and its
//! JavaScript API lets the page load a store at any path it names.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tauri::{AppHandle, Manager, Runtime};
use ts_rs::TS;

/// At most this many entries in the recent list.
pub const RECENT_LIMIT: usize = 10;
/// View state is kept for at most this many logs, the most recently used.
pub const VIEWS_LIMIT: usize = 50;
/// A hand-edited or hostile file cannot make the app hold much: longer lists are cut.
const PATHS_LIMIT: usize = 256;
/// The view state's strings (a session id, a tab name) are cut at this many bytes.
const TEXT_LIMIT: usize = 4096;

/// One entry of the recent list: the paths opened together, and when (epoch milliseconds).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RecentEntry {
    pub paths: Vec<String>,
    #[ts(type = "number")]
    pub opened_at: u64,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum Theme {
    #[default]
    System,
    Light,
    Dark,
}

/// What the UI restores when a log is opened again.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ViewState {
    /// The selected session's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub session: Option<String>,
    /// The side pane's tab (`findings`, `replies`, `search`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub tab: Option<String>,
    /// Whether the log is followed as it is written (absent: on when it was written lately).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub follow: Option<bool>,
    /// How the tree's siblings are ordered (`wire`, `own-tokens`, `subtree-tokens`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub order: Option<String>,
    /// The lower pane's tab (`inspector`, `transcript`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub lower: Option<String>,
    /// How the usage table is sorted (`cost subtree desc`: column, scope, direction).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub usage: Option<String>,
    /// Whether the timeline's pane is shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub timeline: Option<bool>,
}

/// What the UI reads once at start.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct SettingsView {
    pub recent: Vec<RecentEntry>,
    pub theme: Theme,
    /// A sentence for the user when the settings file could not be read and was set aside; given
    /// once.
    pub notice: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
struct StoredView {
    key: Vec<String>,
    #[serde(flatten)]
    view: ViewState,
    saved_at: u64,
}

/// The settings as kept in memory and on disk.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Settings {
    recent: Vec<RecentEntry>,
    theme: Theme,
    views: Vec<StoredView>,
}

/// Whether a settings file's content could be read, and what it held.
#[derive(Debug, PartialEq)]
enum Parsed {
    Settings(Settings),
    Corrupt(String),
}

fn strings(v: &Value) -> Option<Vec<String>> {
    let list = v.as_array()?;
    let out: Vec<String> = list.iter().take(PATHS_LIMIT).filter_map(|p| p.as_str().map(str::to_owned)).collect();
    (out.len() == list.len() && !out.is_empty()).then_some(out)
}

fn text(v: &Value, field: &str) -> Option<String> {
    v.get(field)?.as_str().filter(|s| s.len() <= TEXT_LIMIT).map(str::to_owned)
}

impl Settings {
    /// Reads a settings file's bytes. Entries that are not well formed (a hand edit, an older
    /// version) are dropped one by one; only a file that is not a JSON object is corrupt.
    fn parse(bytes: &[u8]) -> Parsed {
        let value: Value = match serde_json::from_slice(bytes) {
            Ok(v) => v,
            Err(e) => return Parsed::Corrupt(format!("it is not JSON ({e})")),
        };
        let Some(root) = value.as_object() else {
            return Parsed::Corrupt("it is not a JSON object".into());
        };
        let entries = |field: &str| root.get(field).and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
        let recent = entries("recent")
            .iter()
            .filter_map(|e| {
                Some(RecentEntry { paths: strings(e.get("paths")?)?, opened_at: e.get("openedAt")?.as_u64()? })
            })
            .take(RECENT_LIMIT)
            .collect();
        let views = entries("views")
            .iter()
            .filter_map(|e| {
                Some(StoredView {
                    key: strings(e.get("key")?)?,
                    view: ViewState {
                        session: text(e, "session"),
                        tab: text(e, "tab"),
                        follow: e.get("follow").and_then(Value::as_bool),
                        order: text(e, "order"),
                        lower: text(e, "lower"),
                        usage: text(e, "usage"),
                        timeline: e.get("timeline").and_then(Value::as_bool),
                    },
                    saved_at: e.get("savedAt").and_then(Value::as_u64).unwrap_or(0),
                })
            })
            .take(VIEWS_LIMIT)
            .collect();
        let theme = root.get("theme").and_then(|t| Theme::deserialize(t).ok()).unwrap_or_default();
        Parsed::Settings(Settings { recent, theme, views })
    }

    /// `paths` moved (or added) to the front of the recent list, as opened at `now`.
    fn remember(&mut self, paths: Vec<String>, now: u64) {
        self.recent.retain(|e| e.paths != paths);
        self.recent.insert(0, RecentEntry { paths, opened_at: now });
        self.recent.truncate(RECENT_LIMIT);
    }

    fn view(&self, key: &[String]) -> Option<ViewState> {
        self.views.iter().find(|v| v.key == key).map(|v| v.view.clone())
    }

    fn save_view(&mut self, key: Vec<String>, view: ViewState, now: u64) {
        self.views.retain(|v| v.key != key);
        self.views.insert(0, StoredView { key, view, saved_at: now });
        self.views.truncate(VIEWS_LIMIT);
    }
}

/// Writes `bytes` to `path` atomically: a temporary file beside it, flushed, then renamed over it.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::Builder::new().prefix(".settings-").suffix(".tmp").tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// The settings file and its content, behind a lock (commands run on several threads).
pub struct SettingsStore {
    path: PathBuf,
    state: Mutex<(Settings, Option<String>)>,
}

impl SettingsStore {
    /// Reads `path`. A missing file is the defaults; a corrupt one is moved aside to
    /// `<path>.corrupt` (replacing an older one) and gives the defaults and a notice.
    pub fn open(path: PathBuf) -> Self {
        let (settings, notice) = match std::fs::read(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => (Settings::default(), None),
            Err(e) => (
                Settings::default(),
                Some(format!("Arbor could not read its settings ({e}); it started with defaults.")),
            ),
            Ok(bytes) => match Settings::parse(&bytes) {
                Parsed::Settings(s) => (s, None),
                Parsed::Corrupt(why) => {
                    let aside = corrupt_path(&path);
                    let moved = std::fs::rename(&path, &aside);
                    let notice = match moved {
                        Ok(()) => format!(
                            "Arbor's settings file could not be read: {why}. It was kept as {} and Arbor started with defaults (no recent list).",
                            aside.display()
                        ),
                        Err(e) => format!(
                            "Arbor's settings file could not be read: {why}; it could not be set aside either ({e}). Arbor started with defaults."
                        ),
                    };
                    (Settings::default(), Some(notice))
                }
            },
        };
        Self { path, state: Mutex::new((settings, notice)) }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, (Settings, Option<String>)> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Applies `change` and writes the file. The change stays in memory even when the write fails.
    fn change<T>(&self, change: impl FnOnce(&mut Settings) -> T) -> std::io::Result<T> {
        let mut state = self.lock();
        let out = change(&mut state.0);
        let bytes = serde_json::to_vec_pretty(&state.0).map_err(std::io::Error::other)?;
        write_atomically(&self.path, &bytes)?;
        Ok(out)
    }

    /// The recent list and theme, and the notice about a corrupt file (only on the first call).
    pub fn view(&self) -> SettingsView {
        let mut state = self.lock();
        let notice = state.1.take();
        SettingsView { recent: state.0.recent.clone(), theme: state.0.theme, notice }
    }

    /// Records `paths` as opened now; returns the new recent list.
    pub fn remember_opened(&self, paths: Vec<String>) -> std::io::Result<Vec<RecentEntry>> {
        let paths: Vec<String> = paths.into_iter().take(PATHS_LIMIT).collect();
        self.change(|s| {
            s.remember(paths, now_ms());
            s.recent.clone()
        })
    }

    pub fn set_theme(&self, theme: Theme) -> std::io::Result<()> {
        self.change(|s| s.theme = theme)
    }

    /// The view state last saved for the log named by `key` (its paths, as the UI opened them).
    pub fn view_state(&self, key: &[String]) -> Option<ViewState> {
        self.lock().0.view(key)
    }

    pub fn save_view_state(&self, key: Vec<String>, mut view: ViewState) -> std::io::Result<()> {
        let key: Vec<String> = key.into_iter().take(PATHS_LIMIT).collect();
        for s in [&mut view.session, &mut view.tab, &mut view.order, &mut view.lower, &mut view.usage] {
            if s.as_ref().is_some_and(|s| s.len() > TEXT_LIMIT) {
                *s = None;
            }
        }
        self.change(|s| s.save_view(key, view, now_ms()))
    }
}

/// The app's settings store, opened on first use (the file's place comes from the running app).
pub struct SettingsSlot {
    path: Option<PathBuf>,
    store: OnceLock<SettingsStore>,
}

impl SettingsSlot {
    /// `path` is the settings file; `None` is `settings.json` in the app's data folder.
    pub fn new(path: Option<PathBuf>) -> Self {
        Self { path, store: OnceLock::new() }
    }

    pub fn get<R: Runtime>(&self, app: &AppHandle<R>) -> Result<&SettingsStore, String> {
        if let Some(store) = self.store.get() {
            return Ok(store);
        }
        let path = match &self.path {
            Some(p) => p.clone(),
            None => app
                .path()
                .app_data_dir()
                .map_err(|e| format!("no data folder for the settings: {e}"))?
                .join("settings.json"),
        };
        Ok(self.store.get_or_init(|| SettingsStore::open(path)))
    }
}

fn corrupt_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".corrupt");
    path.with_file_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store_in(dir: &tempfile::TempDir) -> (SettingsStore, PathBuf) {
        let path = dir.path().join("settings.json");
        (SettingsStore::open(path.clone()), path)
    }

    #[test]
    fn a_missing_file_is_the_defaults_without_a_notice() {
        let dir = tempfile::tempdir().unwrap();
        let (store, path) = store_in(&dir);
        assert_eq!(store.view(), SettingsView { recent: vec![], theme: Theme::System, notice: None });
        assert!(!path.exists(), "reading writes nothing");
    }

    #[test]
    fn settings_survive_a_restart() {
        let dir = tempfile::tempdir().unwrap();
        let (store, path) = store_in(&dir);
        store.remember_opened(vec!["a.jsonl".into()]).unwrap();
        store.remember_opened(vec!["b".into(), "c".into()]).unwrap();
        store.set_theme(Theme::Dark).unwrap();
        let key = vec!["b".to_string(), "c".to_string()];
        store
            .save_view_state(
                key.clone(),
                ViewState {
                    session: Some("kid".into()),
                    tab: Some("replies".into()),
                    follow: Some(false),
                    order: Some("subtree-duration".into()),
                    lower: Some("transcript".into()),
                    usage: Some("cost subtree desc".into()),
                    timeline: Some(true),
                },
            )
            .unwrap();
        drop(store);

        let again = SettingsStore::open(path);
        let view = again.view();
        assert_eq!(view.theme, Theme::Dark);
        assert_eq!(view.recent.iter().map(|e| e.paths.clone()).collect::<Vec<_>>(), [vec!["b", "c"], vec!["a.jsonl"]]);
        assert_eq!(view.notice, None);
        assert_eq!(again.view_state(&key).unwrap().session.as_deref(), Some("kid"));
        assert_eq!(again.view_state(&key).unwrap().follow, Some(false), "Follow is remembered per log");
        assert_eq!(again.view_state(&key).unwrap().order.as_deref(), Some("subtree-duration"), "and the tree's order");
        assert_eq!(again.view_state(&key).unwrap().lower.as_deref(), Some("transcript"), "and the lower tab");
        assert_eq!(again.view_state(&key).unwrap().usage.as_deref(), Some("cost subtree desc"), "and the usage sort");
        assert_eq!(again.view_state(&key).unwrap().timeline, Some(true), "and the timeline shown");
        assert_eq!(again.view_state(&["a.jsonl".to_string()]), None);
    }

    #[test]
    fn the_recent_list_moves_a_repeat_to_the_front_and_is_capped() {
        let mut s = Settings::default();
        s.remember(vec!["a".into()], 1);
        s.remember(vec!["b".into()], 2);
        s.remember(vec!["a".into()], 3);
        assert_eq!(
            s.recent,
            [
                RecentEntry { paths: vec!["a".into()], opened_at: 3 },
                RecentEntry { paths: vec!["b".into()], opened_at: 2 }
            ]
        );
        for i in 0..20 {
            s.remember(vec![format!("p{i}")], 10 + i);
        }
        assert_eq!(s.recent.len(), RECENT_LIMIT);
        assert_eq!(s.recent[0].paths, ["p19"]);
    }

    #[test]
    fn view_state_is_kept_for_the_most_recent_logs_only() {
        let mut s = Settings::default();
        for i in 0..(VIEWS_LIMIT + 5) {
            s.save_view(
                vec![format!("log{i}")],
                ViewState { session: Some(format!("s{i}")), ..ViewState::default() },
                i as u64,
            );
        }
        assert_eq!(s.views.len(), VIEWS_LIMIT);
        assert_eq!(s.view(&["log0".into()]), None, "the oldest were dropped");
        assert_eq!(
            s.view(&[format!("log{}", VIEWS_LIMIT + 4)]).unwrap().session.unwrap(),
            format!("s{}", VIEWS_LIMIT + 4)
        );
    }

    #[test]
    fn a_corrupt_file_is_set_aside_with_a_notice_once_and_the_next_save_is_clean() {
        for garbage in [&b"{\"recent\": [{\"paths\": [\"a\"], "[..], b"\x00\x00\x00\x00", b"[1, 2, 3]", b""] {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("settings.json");
            std::fs::write(&path, garbage).unwrap();

            let store = SettingsStore::open(path.clone());
            let view = store.view();
            assert_eq!(view.recent, vec![]);
            let notice = view.notice.expect("a corrupt file is reported");
            assert!(notice.contains("settings.json.corrupt"), "{notice}");
            assert_eq!(store.view().notice, None, "the notice is given once");
            assert_eq!(
                std::fs::read(dir.path().join("settings.json.corrupt")).unwrap(),
                garbage,
                "the old bytes are kept"
            );
            assert!(!path.exists());

            store.remember_opened(vec!["x".into()]).unwrap();
            let saved: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
            assert_eq!(saved["recent"][0]["paths"][0], "x");
        }
    }

    #[test]
    fn malformed_entries_are_dropped_one_by_one() {
        let file = br#"{
            "recent": [{"paths": ["ok"], "openedAt": 5}, {"paths": [], "openedAt": 1}, {"paths": [3], "openedAt": 1},
                       {"paths": ["no-time"]}, "junk", {"paths": ["ok2"], "openedAt": 4}],
            "theme": "purple",
            "views": [{"key": ["ok"], "session": "s", "savedAt": 1}, {"key": "ok"}, {"session": "orphan"}],
            "unknown": true
        }"#;
        let Parsed::Settings(s) = Settings::parse(file) else { panic!("a JSON object is settings") };
        assert_eq!(s.recent.iter().map(|e| e.paths[0].as_str()).collect::<Vec<_>>(), ["ok", "ok2"]);
        assert_eq!(s.theme, Theme::System);
        assert_eq!(s.views.len(), 1);
        assert_eq!(s.view(&["ok".into()]).unwrap().session.as_deref(), Some("s"));
    }

    #[test]
    fn the_file_written_by_the_earlier_store_plugin_still_reads() {
        // tauri-plugin-store kept the same file name and keys; users keep their recent list.
        let file = br#"{"recent":[{"paths":["/logs/run.jsonl"],"openedAt":1764460000000}],"theme":"light"}"#;
        let Parsed::Settings(s) = Settings::parse(file) else { panic!() };
        assert_eq!(s.recent[0].paths, ["/logs/run.jsonl"]);
        assert_eq!(s.theme, Theme::Light);
    }

    #[test]
    fn a_reader_never_sees_a_torn_file_while_settings_are_written() {
        // With a plain truncate-then-write, a reader racing the writer sees an empty or half file.
        let dir = tempfile::tempdir().unwrap();
        let (store, path) = store_in(&dir);
        let long = "x".repeat(2000);
        for i in 0..RECENT_LIMIT {
            store.remember_opened(vec![format!("{long}{i}"); 20]).unwrap();
        }
        let done = std::sync::atomic::AtomicBool::new(false);
        std::thread::scope(|scope| {
            let reader = scope.spawn(|| {
                let mut reads = 0;
                while !done.load(std::sync::atomic::Ordering::Relaxed) || reads < 100 {
                    let bytes = std::fs::read(&path).expect("the file is always there");
                    assert!(
                        matches!(Settings::parse(&bytes), Parsed::Settings(_)),
                        "read a torn file ({} bytes)",
                        bytes.len()
                    );
                    reads += 1;
                }
                reads
            });
            for i in 0..100 {
                store.remember_opened(vec![format!("{long}{}", i % RECENT_LIMIT); 20]).unwrap();
            }
            done.store(true, std::sync::atomic::Ordering::Relaxed);
            assert!(reader.join().unwrap() >= 100);
        });
        let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(leftovers, ["settings.json"], "no temporary file is left behind");
    }

    #[test]
    fn oversized_view_strings_are_not_kept() {
        let dir = tempfile::tempdir().unwrap();
        let (store, _) = store_in(&dir);
        let key = vec!["k".to_string()];
        store
            .save_view_state(
                key.clone(),
                ViewState {
                    session: Some("s".repeat(TEXT_LIMIT + 1)),
                    tab: Some("replies".into()),
                    follow: Some(true),
                    order: None,
                    lower: None,
                    usage: None,
                    timeline: None,
                },
            )
            .unwrap();
        assert_eq!(
            store.view_state(&key),
            Some(ViewState { session: None, tab: Some("replies".into()), follow: Some(true), ..ViewState::default() })
        );
    }
}
