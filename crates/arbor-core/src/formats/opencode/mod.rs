//! `opencode`: OpenCode sessions (SPEC 2.7), from its SQLite store (`opencode.db`, read as rows by
//! `bytes::rows`) or its older JSON `storage/` tree (a document a file).
//!
//! **Records.** A record is a database row or a JSON file. In the store, line 1 of
//! `opencode.db` is the rendering's header (the tables and their columns) and each following line
//! one row (`$table`, `$rowid`, its columns); every row of every table is a record, those of tables
//! other than `session`, `message` and `part` (project, todo, permission, the migrations) saying
//! nothing. In the tree, `session/<project>/<id>.json`, `message/<session>/<id>.json` and
//! `part/<message>/<id>.json` are a record each (line 1 of their file).
//!
//! **Reading.** A file's machine records each row where it is, and keeps what the rules need; the
//! rules run in `settle` (`store`), once every record is read, because a part does not say its
//! message's role and the tables come one after another.
//!
//! **Rules.** A session with a `parentID` is a sub-agent; each `task` tool part that names it
//! (`state.metadata.sessionId`, else the `task_id:` its output starts with) is a run of it under
//! the calling session (`tool-call`): a resumed task is another run of the same child. A child no
//! call names hangs under its `parentID` (`parent-id`). A user message opens a turn; each
//! assistant message is a reply, its step-start…step-finish pairs its model calls (the turn's
//! steps), its last text part its text. Tokens count per call from each step-finish part (input
//! without the cache, output with the reasoning), with its recorded cost where it is more than 0;
//! a message's own `tokens` (its last call's only) count only when it has no step-finish part.
//! A completed task call whose output (the wrapper the producer puts around it aside, `reply`)
//! differs from the child's reply when that call ended is `subagent-reply-differs`.

mod reply;
mod row;
mod store;

use super::{routed, FileStart, FormatInfo, HeadLine, Routed};
use crate::ctx::{Ctx, Kind};
use crate::vocab::transcript::{Draft, Media, PartKind};
use serde_json::Value;

/// A line as the one-pass reader and as the serde reference read it (`row::parse`,
/// `row::parse_serde`), for the differential tests.
pub fn row_readings(text: &str) -> (String, String) {
    (format!("{:?}", row::parse(text)), format!("{:?}", row::parse_serde(text)))
}

pub const FORMAT: FormatInfo = FormatInfo {
    id: "opencode",
    description: "OpenCode sessions (opencode.db, or the older storage/ tree)",
    reader: &OpenCodeFormat,
};

#[derive(Debug, Clone)]
struct OpenCodeFormat;

impl super::Format for OpenCodeFormat {
    /// The store's header line (a SQLite database with tables `session`, `message` and `part`),
    /// or a document of the tree: a message (`role` and `sessionID`), a part (`type` and
    /// `messageID`), a session (`projectID`, `directory` and `title`).
    fn vote(&self, head: &HeadLine) -> bool {
        let Ok(text) = std::str::from_utf8(head.bytes()) else { return false };
        let Some(r) = row::parse(text) else { return false };
        match r.what() {
            row::What::Header => r.tables.0.as_ref().is_some_and(|t| {
                !t.session.0.is_empty() && !t.message.0.is_empty() && !t.part.0.is_empty()
            }),
            row::What::Message => r.doc.session_id.non_empty().is_some() && r.doc.id.non_empty().is_some(),
            row::What::Part => r.doc.message_id.non_empty().is_some() && r.doc.id.non_empty().is_some(),
            row::What::Session => {
                r.doc.project_id.non_empty().is_some() && r.doc.id.non_empty().is_some() && r.doc.directory.present()
            }
            row::What::Other => false,
        }
    }

    /// The files of a `storage/` tree are this format's by their place, as OpenCode's storage
    /// names them (a part's file under its message's folder, a message's under its session's),
    /// whether or not a document repeats the ids its folders give.
    fn plan(&self, plan: &mut super::Plan) {
        let roots: std::collections::HashSet<&str> =
            plan.files.iter().filter_map(|p| tree_place(&p.input.display).map(|(root, _, _)| root)).collect();
        let complete: std::collections::HashSet<String> = roots
            .iter()
            .filter(|root| {
                ["message/", "session/"].iter().all(|kind| {
                    let prefix = format!("{root}{kind}");
                    plan.files.iter().any(|p| p.input.display.starts_with(&prefix))
                })
            })
            .map(|r| r.to_string())
            .collect();
        for p in &mut plan.files {
            if p.format.is_some() || p.skip.is_some() {
                continue;
            }
            if tree_place(&p.input.display).is_some_and(|(root, _, _)| complete.contains(root)) {
                p.format = Some(&FORMAT);
            }
        }
    }

    fn machine(&self, file: &FileStart<'_>) -> Box<dyn Routed> {
        routed(store::Reader::at(tree_place(file.display)))
    }

    fn settle(&self, cx: &mut Ctx) {
        store::settle(cx);
    }

    /// A session's title (not OpenCode's placeholder for one never generated).
    fn about(&self, line: &[u8]) -> Option<super::About> {
        let v: Value = serde_json::from_slice(line).ok()?;
        let session = v.get("$table").and_then(Value::as_str) == Some("session")
            || (v.get("$table").is_none() && v.get("projectID").is_some());
        if !session {
            return None;
        }
        v.get("title").and_then(Value::as_str).filter(|t| !is_default_title(t)).map(|t| super::About::Title(t.to_owned()))
    }

    /// A reply's record is its last text part: its text.
    fn reply_text(&self, line: &[u8]) -> String {
        let Ok(v) = serde_json::from_slice::<Value>(line) else { return String::new() };
        doc(&v).get("text").and_then(Value::as_str).unwrap_or_default().to_owned()
    }

    /// What a parent received from a task: the call's output without the wrapper the harness
    /// puts around the child's reply (`task_result`), the text `subagent-reply-differs` compares.
    fn received_text(&self, line: &[u8], _key: Option<&str>) -> String {
        let Ok(v) = serde_json::from_slice::<Value>(line) else { return String::new() };
        let out = doc(&v).pointer("/state/output").and_then(Value::as_str).unwrap_or_default();
        task_result(out).to_owned()
    }

    fn transcript(&self, line: &[u8], out: &mut Vec<Draft>) {
        self.transcript_as(line, Kind::Other, out)
    }

    fn transcript_as(&self, line: &[u8], kind: Kind, out: &mut Vec<Draft>) {
        let Ok(v) = serde_json::from_slice::<Value>(line) else { return };
        parts(&v, kind, out);
    }
}

/// Where a file of a `storage/` tree is: the tree's root (the display path up to it, with its
/// `/`), what the file is (`session`, `message`, `part`), and the folder it is in (a session's
/// project, a message's session, a part's message): `…/part/<message>/<part>.json`. A part file
/// right in `part/` (a tree some viewers write) has no folder.
fn tree_place(display: &str) -> Option<(&str, &str, Option<&str>)> {
    let name_at = display.rfind('/').map_or(0, |i| i + 1);
    if !display[name_at..].ends_with(".json") {
        return None;
    }
    let dir = display[..name_at].strip_suffix('/')?;
    for kind in ["session", "message", "part"] {
        // `…/<kind>/<folder>/<name>.json`
        if let Some((up, folder)) = dir.rsplit_once('/') {
            let up_kind = up.rsplit('/').next().unwrap_or(up);
            if up_kind == kind {
                let root = &up[..up.len() - kind.len()];
                return Some((root, kind, Some(folder)));
            }
        }
        // `…/part/<name>.json`
        let last = dir.rsplit('/').next().unwrap_or(dir);
        if last == kind && kind == "part" {
            return Some((&dir[..dir.len() - kind.len()], kind, None));
        }
    }
    None
}

/// A record's document: a row's `data`, else the line.
fn doc(v: &Value) -> &Value {
    v.get("data").filter(|d| d.is_object()).unwrap_or(v)
}

fn str_at<'a>(v: &'a Value, pointer: &str) -> Option<&'a str> {
    v.pointer(pointer).and_then(Value::as_str)
}

/// A task call's output as shown and as received: the child's reply inside the harness's
/// wrapper (`reply::unwrapped`, what `subagent-reply-differs` compares, so that what is shown is
/// what was compared), else the output whole (a running background task's notice).
fn task_result(out: &str) -> &str {
    reply::unwrapped(out).unwrap_or(out).trim()
}

/// What one record says, by its kind as `settle` found it (a text part's message's role).
fn parts(v: &Value, kind: Kind, out: &mut Vec<Draft>) {
    let d = doc(v);
    let is_message = v.get("$table").and_then(Value::as_str) == Some("message")
        || (v.get("$table").is_none() && d.get("role").is_some());
    if is_message {
        // A message says nothing itself (its parts do), but its error.
        if let Some(e) = d.get("error") {
            let name = str_at(e, "/name").unwrap_or("error");
            let msg = str_at(e, "/data/message").unwrap_or_default();
            out.push(Draft { is_error: Some(true), ..Draft::new(PartKind::Notice, format!("{name}: {msg}").trim_end_matches([':', ' ']).to_owned()) });
        }
        return;
    }
    let text = || d.get("text").and_then(Value::as_str).unwrap_or_default().to_owned();
    match d.get("type").and_then(Value::as_str).unwrap_or("") {
        "text" => {
            let part = match kind {
                Kind::UserMessage => PartKind::Prompt,
                Kind::Notice => PartKind::Notice,
                _ => PartKind::Text,
            };
            out.push(Draft::new(part, text()));
        }
        "reasoning" => out.push(Draft::new(PartKind::Reasoning, text())),
        "tool" => {
            let tool = d.get("tool").and_then(Value::as_str).map(str::to_owned);
            let call = d.get("callID").and_then(Value::as_str).map(str::to_owned);
            let state = d.get("state");
            let input = state.and_then(|s| s.get("input")).map(|i| i.to_string()).unwrap_or_default();
            out.push(Draft {
                json: true,
                tool: tool.clone(),
                call_id: call.clone(),
                ..Draft::new(PartKind::ToolCall, input)
            });
            match state.and_then(|s| s.get("status")).and_then(Value::as_str) {
                Some("completed") => {
                    let output = state.and_then(|s| s.get("output")).and_then(Value::as_str).unwrap_or_default();
                    let output = if tool.as_deref() == Some("task") { task_result(output) } else { output };
                    out.push(Draft { tool, call_id: call, is_error: Some(false), ..Draft::new(PartKind::ToolResult, output) });
                }
                Some("error") => {
                    let error = state.and_then(|s| s.get("error")).and_then(Value::as_str).unwrap_or_default();
                    out.push(Draft { tool, call_id: call, is_error: Some(true), ..Draft::new(PartKind::ToolResult, error) });
                }
                // A call still pending or running has no result yet; a status OpenCode does not
                // write (a hand-made tree's `success`) shows the output it has.
                Some("pending" | "running") | None => {}
                Some(_) => {
                    if let Some(output) = state.and_then(|s| s.get("output")).and_then(Value::as_str) {
                        out.push(Draft { tool, call_id: call, ..Draft::new(PartKind::ToolResult, output) });
                    }
                }
            }
        }
        "step-finish" => {
            let mut p = Draft::new(PartKind::Usage, d.get("reason").and_then(Value::as_str).unwrap_or_default());
            p.message = None;
            out.push(p);
        }
        "compaction" => {
            let auto = d.get("auto").and_then(Value::as_bool) == Some(true);
            out.push(Draft::new(PartKind::Compaction, if auto { "compaction (automatic)" } else { "compaction" }));
        }
        "subtask" => {
            let agent = d.get("agent").and_then(Value::as_str).unwrap_or_default();
            let prompt = d.get("prompt").and_then(Value::as_str).unwrap_or_default();
            out.push(Draft::new(PartKind::Notice, format!("subtask for @{agent}: {prompt}")));
        }
        "file" => {
            let mime = d.get("mime").and_then(Value::as_str);
            let url = d.get("url").and_then(Value::as_str).unwrap_or_default();
            let name = d.get("filename").and_then(Value::as_str).unwrap_or(url);
            match Media::of_data_url(url) {
                Some(media) => out.push(Draft {
                    media: Some(media),
                    data_url: Some(url.to_owned()),
                    ..Draft::new(PartKind::Image, name.to_owned())
                }),
                None => out.push(Draft {
                    media: Some(Media { media_type: mime.map(str::to_owned), bytes: None }),
                    ..Draft::new(PartKind::Image, name.to_owned())
                }),
            }
        }
        "retry" => {
            let msg = str_at(d, "/error/data/message").unwrap_or_default();
            let attempt = d.get("attempt").and_then(Value::as_u64).unwrap_or(0);
            out.push(Draft { is_error: Some(true), ..Draft::new(PartKind::Notice, format!("retry {attempt}: {msg}")) });
        }
        "patch" => {
            let files: Vec<&str> =
                d.get("files").and_then(Value::as_array).map(|a| a.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
            out.push(Draft::new(PartKind::Notice, format!("patch: {}", files.join(", "))));
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests;

/// Whether a session's title is the placeholder OpenCode gives a session until a model names it
/// (`New session - <ISO time>`, a sub-agent's `Child session - <ISO time>`, newer builds'
/// `Untitled`): a session whose title was never generated keeps it, and a list shows its
/// first prompt instead, as the producer's own views do.
pub fn is_default_title(title: &str) -> bool {
    let title = title.trim();
    if title.is_empty() || title == "Untitled" {
        return true;
    }
    ["New session - ", "Child session - "].iter().filter_map(|p| title.strip_prefix(p)).any(|rest| {
        rest.len() == 24 && rest.ends_with('Z') && crate::text::time::rfc3339_ms(rest).is_some()
    })
}

#[cfg(test)]
mod default_title {
    #[test]
    fn a_placeholder_is_known_and_a_real_title_is_not() {
        assert!(super::is_default_title("New session - 2026-07-30T14:04:55.689Z"));
        assert!(super::is_default_title("Child session - 2026-07-30T14:05:01.002Z"));
        assert!(super::is_default_title("Untitled"));
        assert!(!super::is_default_title("New session - the parser"));
        assert!(!super::is_default_title("Fix the OTEL config"));
        assert!(!super::is_default_title("New session - 2026-07-30"));
    }
}
