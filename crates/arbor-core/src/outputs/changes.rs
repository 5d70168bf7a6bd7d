//! What each agent changed (SPEC 6.5): the tool calls that write a file, read back from the
//! transcript (`outputs::transcript`), each with the session that made it, its turn, step and row,
//! whether it applied (its result's error flag, paired by call id), and its diff.
//!
//! A call is an edit by its tool's name and its arguments: a whole file written (Claude Code's
//! `Write`, Gemini CLI's `write_file`, OpenCode's `write`, Copilot's `create`), a replacement of
//! one text by another (`Edit`, `MultiEdit`, `replace`, OpenCode's and Copilot's `edit`), a
//! notebook cell (`NotebookEdit`), or a patch (Codex's and OpenCode's `apply_patch`/`patch`, one
//! edit per file it names). Nobody has shown the files whole, so a diff is of the edited parts
//! only: a replacement's old text against its new one, a written file as added lines, a patch's
//! own hunks, never a guess at the rest of the file.

use crate::report::Place;
use crate::transcript::{Index, Part, PartKind};
use crate::Analysis;
use serde_json::Value;

/// One edit of one file.
#[derive(Debug, Clone, PartialEq, serde::Serialize, ts_rs::TS)]
pub struct Edit {
    pub session: String,
    /// The file as the call names it.
    pub path: String,
    /// The line of the call.
    pub at: Place,
    /// The call's transcript row.
    pub row: u32,
    #[serde(skip_serializing_if = "serde_json::Value::is_null")]
    #[ts(type = "number | string | null", optional)]
    pub turn: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub step: Option<u32>,
    pub tool: String,
    /// What the edit does: `write` (the whole file), `edit` (texts replaced), `add`, `delete` or
    /// `update` (a patch's file), `notebook` (a cell).
    pub kind: &'static str,
    /// Whether it applied: its result's error flag (`null` while no result is read).
    pub applied: Option<bool>,
    /// Lines added and removed by the diff.
    pub added: u32,
    pub removed: u32,
    /// The unified diff of the edited parts (`---`/`+++` headers and `@@` hunks).
    pub diff: String,
}

/// A page of the edits of a session's subtree (or of the whole log), as the app's Changes tab
/// shows them: each diff cut to a budget of characters (`cut` then).
#[derive(Debug, Clone, PartialEq, serde::Serialize, ts_rs::TS)]
pub struct ChangesPage {
    pub session: Option<String>,
    /// Edits in all.
    pub total: u32,
    /// Files changed in all.
    pub files: u32,
    pub from: u32,
    pub edits: Vec<Edit>,
    /// By edit on the page: its diff was cut.
    pub cut: Vec<bool>,
}

/// Rows read back per page.
const PAGE: u32 = 256;

impl Analysis {
    /// The edits of every session, or of `session` and its subtree, in report order and each
    /// session's in the order it made them.
    pub fn changes(&self, session: Option<&str>) -> Vec<Edit> {
        let order = self.cx.graph.report_order();
        let sessions = order.len();
        let chosen = session.and_then(|s| self.cx.ids.get(s));
        let in_scope = |s: crate::intern::Sym| {
            let Some(top) = chosen else { return session.is_none() };
            let mut cur = Some(s);
            // A chain of parents is at most as long as the sessions are many (cycles are cut).
            for _ in 0..=sessions {
                match cur {
                    Some(c) if c == top => return true,
                    Some(c) => cur = self.cx.graph.get(c).and_then(|n| n.parent),
                    None => return false,
                }
            }
            false
        };
        let mut out = Vec::new();
        for s in order.into_iter().filter(|&s| in_scope(s)) {
            if let Some(index) = self.transcript_index(self.cx.ids.name(s)) {
                self.session_edits(&index, &mut out);
            }
        }
        out
    }

    /// Edits `from..from + limit` of `session`'s subtree (of every session: `None`), each diff cut
    /// to `max_diff` characters.
    pub fn changes_page(&self, session: Option<&str>, from: u32, limit: u32, max_diff: usize) -> ChangesPage {
        ChangesPage::of(&self.changes(session), session, from, limit, max_diff)
    }
}

impl ChangesPage {
    /// Edits `from..from + limit` of `all` (the edits of `session`'s subtree, `Analysis::changes`,
    /// kept by a viewer that pages through them), each diff cut to `max_diff` characters.
    pub fn of(all: &[Edit], session: Option<&str>, from: u32, limit: u32, max_diff: usize) -> ChangesPage {
        let mut files: Vec<&str> = all.iter().map(|e| e.path.as_str()).collect();
        files.sort_unstable();
        files.dedup();
        let files = files.len() as u32;
        let total = all.len() as u32;
        let from = from.min(total);
        let mut cut = Vec::new();
        let edits: Vec<Edit> = all
            .iter()
            .skip(from as usize)
            .take(limit as usize)
            .map(|e| {
                let mut e = e.clone();
                let long = e.diff.chars().count() > max_diff;
                if long {
                    e.diff = e.diff.chars().take(max_diff).collect();
                }
                cut.push(long);
                e
            })
            .collect();
        ChangesPage { session: session.map(str::to_owned), total, files, from, edits, cut }
    }
}

impl Analysis {
    fn session_edits(&self, index: &Index, out: &mut Vec<Edit>) {
        let first = out.len();
        // Call id → the edits its call made, to be marked applied or not by its result.
        let mut open: crate::intern::HashMap<String, Vec<usize>> = crate::intern::HashMap::default();
        let mut from = 0;
        while (from as usize) < index.len() {
            let page = self.transcript_page(index, from, PAGE, usize::MAX);
            for row in &page.rows {
                for part in &row.parts {
                    match part.kind {
                        PartKind::ToolCall => {
                            let made = edits_of(part);
                            if made.is_empty() {
                                continue;
                            }
                            let ids: Vec<usize> = (out.len()..out.len() + made.len()).collect();
                            for (path, kind, diff) in made {
                                let (added, removed) = counts(&diff);
                                out.push(Edit {
                                    session: page.session.clone(),
                                    path,
                                    at: row.at.clone(),
                                    row: row.row,
                                    turn: row.turn.clone(),
                                    step: row.step,
                                    tool: part.tool.clone().unwrap_or_default(),
                                    kind,
                                    applied: None,
                                    added,
                                    removed,
                                    diff,
                                });
                            }
                            if let Some(id) = &part.call_id {
                                open.entry(id.clone()).or_default().extend(ids);
                            }
                        }
                        // The call's first result says whether it applied (its error flag, or a
                        // patch tool's words); an event that says so of the call by its id (Codex's
                        // `patch_apply_end`, a notice) has the last word.
                        PartKind::ToolResult | PartKind::Notice => {
                            let Some(ids) = part.call_id.as_ref().and_then(|id| open.get(id)) else { continue };
                            let explicit = part.kind == PartKind::Notice;
                            if explicit && part.is_error.is_none() {
                                continue;
                            }
                            let failed = part.is_error == Some(true) || (!explicit && patch_failed(&part.text));
                            for &i in ids {
                                if explicit || out[i].applied.is_none() {
                                    out[i].applied = Some(!failed);
                                }
                            }
                        }
                        _ => {}
                    }
                }
            }
            from += PAGE;
        }
        debug_assert!(out[first..].iter().all(|e| !e.path.is_empty()));
    }
}

/// A Codex patch tool's output that says it did not apply.
fn patch_failed(text: &str) -> bool {
    let t = text.trim_start();
    t.starts_with("apply_patch verification failed") || t.starts_with("Failed to apply patch")
}

/// The tools that write whole files, replace texts, edit notebook cells and apply patches.
const WRITE_TOOLS: &[&str] = &["Write", "write_file", "write", "create"];
const EDIT_TOOLS: &[&str] = &["Edit", "MultiEdit", "replace", "edit", "str_replace_editor", "str_replace"];
const PATCH_TOOLS: &[&str] = &["apply_patch", "patch"];

fn str_of<'v>(v: &'v Value, keys: &[&str]) -> Option<&'v str> {
    keys.iter().find_map(|k| v.get(*k).and_then(Value::as_str))
}

const PATH_KEYS: &[&str] = &["file_path", "filePath", "path", "notebook_path", "absolute_path"];

/// The edits a tool call makes: (path, kind, diff) for each file.
fn edits_of(part: &Part) -> Vec<(String, &'static str, String)> {
    let Some(tool) = part.tool.as_deref() else { return Vec::new() };
    let args: Option<Value> = serde_json::from_str(&part.text).ok();
    if PATCH_TOOLS.contains(&tool) {
        // The patch text: the call's whole input, or its `input`/`patch`/`patchText` argument.
        let text = match &args {
            Some(v @ Value::Object(_)) => str_of(v, &["input", "patch", "patchText"]).map(str::to_owned),
            Some(Value::String(s)) => Some(s.clone()),
            _ => Some(part.text.clone()),
        };
        return text.map(|t| patch_files(&t)).unwrap_or_default();
    }
    let Some(args) = args.filter(Value::is_object) else { return Vec::new() };
    let Some(path) = str_of(&args, PATH_KEYS).filter(|p| !p.is_empty()) else { return Vec::new() };
    if tool == "str_replace_editor" {
        // The dsh harness's editor: `create` writes a file, `str_replace` replaces a text,
        // `insert` adds lines after one; `view` changes nothing.
        match str_of(&args, &["command"]) {
            Some("create") => {
                let content = str_of(&args, &["file_text"]).unwrap_or_default();
                return vec![(path.to_owned(), "write", headed(path, "whole file written", &added_lines(content)))];
            }
            Some("insert") => {
                let after = args
                    .get("insert_line")
                    .and_then(Value::as_u64)
                    .map_or(String::new(), |n| format!("after line {n}"));
                let new = str_of(&args, NEW_KEYS).unwrap_or_default();
                return vec![(
                    path.to_owned(),
                    "edit",
                    headed(path, format!("insert {after}").trim_end(), &added_lines(new)),
                )];
            }
            Some("str_replace") => {}
            _ => return Vec::new(),
        }
    }
    if tool == "NotebookEdit" {
        let new = str_of(&args, &["new_source"]).unwrap_or_default();
        let cell = str_of(&args, &["cell_id"]).unwrap_or("new cell");
        let mode = str_of(&args, &["edit_mode"]).unwrap_or("replace");
        let diff = if mode == "delete" { String::new() } else { added_lines(new) };
        return vec![(path.to_owned(), "notebook", headed(path, &format!("{mode} {cell}"), &diff))];
    }
    if WRITE_TOOLS.contains(&tool) {
        let Some(content) = str_of(&args, &["content", "file_text", "text"]) else { return Vec::new() };
        return vec![(path.to_owned(), "write", headed(path, "whole file written", &added_lines(content)))];
    }
    if EDIT_TOOLS.contains(&tool) {
        let pairs: Vec<(&str, &str)> = match args.get("edits").and_then(Value::as_array) {
            Some(edits) => edits
                .iter()
                .filter_map(|e| Some((str_of(e, OLD_KEYS)?, str_of(e, NEW_KEYS).unwrap_or_default())))
                .collect(),
            None => {
                str_of(&args, OLD_KEYS).map(|o| (o, str_of(&args, NEW_KEYS).unwrap_or_default())).into_iter().collect()
            }
        };
        if pairs.is_empty() {
            return Vec::new();
        }
        let mut hunks = String::new();
        for (old, new) in pairs {
            hunks.push_str(&replacement(old, new));
        }
        return vec![(path.to_owned(), "edit", headed(path, "", &hunks))];
    }
    Vec::new()
}

const OLD_KEYS: &[&str] = &["old_string", "old_str", "oldString"];
const NEW_KEYS: &[&str] = &["new_string", "new_str", "newString"];

/// `---`/`+++` headers for `path` before `hunks`; `note` after the path (what the hunks are).
fn headed(path: &str, note: &str, hunks: &str) -> String {
    let note = if note.is_empty() { String::new() } else { format!("\t({note})") };
    let p = path.trim_start_matches('/');
    format!("--- a/{p}{note}\n+++ b/{p}\n{hunks}")
}

/// A whole text as one hunk of added lines.
fn added_lines(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = format!("@@ -0,0 +1,{} @@\n", lines.len());
    for l in lines {
        out.push('+');
        out.push_str(l);
        out.push('\n');
    }
    out
}

/// One text replaced by another, as the hunks of their line diff (positions within the edited
/// part: the file around it is not known).
fn replacement(old: &str, new: &str) -> String {
    let diff = similar::TextDiff::from_lines(old, new);
    let mut out = String::new();
    for hunk in diff.unified_diff().context_radius(3).iter_hunks() {
        out.push_str(&hunk.to_string());
        if !out.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

/// The files of a Codex/OpenCode patch (`*** Begin Patch` … `*** End Patch`): for each
/// `*** Add File:`, `*** Delete File:` or `*** Update File:` (with `*** Move to:`), its hunks.
fn patch_files(text: &str) -> Vec<(String, &'static str, String)> {
    let mut out: Vec<(String, &'static str, String)> = Vec::new();
    let mut body: Option<(String, &'static str, Vec<&str>)> = None;
    let flush = |body: &mut Option<(String, &'static str, Vec<&str>)>,
                 out: &mut Vec<(String, &'static str, String)>| {
        if let Some((path, kind, lines)) = body.take() {
            out.push((path.clone(), kind, headed(&path, "", &patch_hunks(kind, &lines))));
        }
    };
    for line in text.lines() {
        let start = [("*** Add File: ", "add"), ("*** Delete File: ", "delete"), ("*** Update File: ", "update")]
            .iter()
            .find_map(|(p, k)| line.strip_prefix(p).map(|path| (path.trim().to_owned(), *k)));
        if let Some((path, kind)) = start {
            flush(&mut body, &mut out);
            body = Some((path, kind, Vec::new()));
        } else if line.starts_with("*** End Patch") || line.starts_with("*** Begin Patch") {
            flush(&mut body, &mut out);
        } else if let Some((path, _, lines)) = body.as_mut() {
            match line.strip_prefix("*** Move to: ") {
                Some(to) => *path = format!("{path} → {}", to.trim()),
                None => lines.push(line),
            }
        }
    }
    flush(&mut body, &mut out);
    out
}

/// A patch file's lines as unified hunks: an added file's `+` lines as one hunk; an update's
/// `@@` sections as they are, each given the counts a unified diff needs.
fn patch_hunks(kind: &str, lines: &[&str]) -> String {
    if kind == "add" {
        let text: Vec<&str> = lines.iter().map(|l| l.strip_prefix('+').unwrap_or(l)).collect();
        return added_lines(&(text.join("\n") + "\n"));
    }
    if kind == "delete" {
        return String::new();
    }
    let mut out = String::new();
    let mut section: Vec<&str> = Vec::new();
    let mut context = "";
    let emit = |context: &str, section: &mut Vec<&str>, out: &mut String| {
        if section.is_empty() {
            return;
        }
        let old = section.iter().filter(|l| !l.starts_with('+')).count();
        let new = section.iter().filter(|l| !l.starts_with('-')).count();
        let ctx = if context.is_empty() { String::new() } else { format!(" {context}") };
        out.push_str(&format!("@@ -1,{old} +1,{new} @@{ctx}\n"));
        for l in section.drain(..) {
            if l.starts_with(['+', '-', ' ']) {
                out.push_str(l);
            } else {
                out.push(' ');
                out.push_str(l);
            }
            out.push('\n');
        }
    };
    for &l in lines {
        if let Some(rest) = l.strip_prefix("@@") {
            emit(context, &mut section, &mut out);
            context = rest.trim();
        } else if l != "*** End of File" {
            section.push(l);
        }
    }
    emit(context, &mut section, &mut out);
    out
}

/// Lines a diff adds and removes (its headers aside).
fn counts(diff: &str) -> (u32, u32) {
    let mut n = (0, 0);
    for l in diff.lines() {
        if l.starts_with("+++") || l.starts_with("---") {
            continue;
        }
        if l.starts_with('+') {
            n.0 += 1;
        } else if l.starts_with('-') {
            n.1 += 1;
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(tool: &str, text: &str) -> Part {
        Part {
            kind: PartKind::ToolCall,
            text: text.to_owned(),
            text_len: text.len() as u64,
            cut: false,
            json: true,
            tool: Some(tool.to_owned()),
            call_id: Some("c1".into()),
            is_error: None,
            child: None,
            model: None,
            usage: None,
            media: None,
        }
    }

    #[test]
    fn each_tool_that_writes_is_an_edit_with_the_diff_of_its_part() {
        let e = edits_of(&call(
            "Edit",
            r#"{"file_path":"src/a.rs","old_string":"fn a() {}\n","new_string":"fn a() { b() }\n"}"#,
        ));
        assert_eq!(e.len(), 1);
        assert_eq!((e[0].0.as_str(), e[0].1), ("src/a.rs", "edit"));
        assert_eq!(e[0].2, "--- a/src/a.rs\n+++ b/src/a.rs\n@@ -1 +1 @@\n-fn a() {}\n+fn a() { b() }\n");
        let w = edits_of(&call("Write", r#"{"file_path":"/x/new.py","content":"print(1)\nprint(2)"}"#));
        assert_eq!(
            w[0].2,
            "--- a/x/new.py\t(whole file written)\n+++ b/x/new.py\n@@ -0,0 +1,2 @@\n+print(1)\n+print(2)\n"
        );
        assert_eq!(counts(&w[0].2), (2, 0));
        let m = edits_of(&call(
            "MultiEdit",
            r#"{"file_path":"f","edits":[{"old_string":"a","new_string":"b"},{"old_string":"c","new_string":""}]}"#,
        ));
        assert_eq!(counts(&m[0].2), (1, 2));
        // OpenCode's and Gemini CLI's argument names; a read is no edit; a call without a path either.
        assert_eq!(edits_of(&call("edit", r#"{"filePath":"g","oldString":"x","newString":"y"}"#)).len(), 1);
        assert_eq!(edits_of(&call("write_file", r#"{"file_path":"h","content":"z"}"#)).len(), 1);
        assert!(edits_of(&call("Read", r#"{"file_path":"f"}"#)).is_empty());
        assert!(edits_of(&call("Edit", r#"{"old_string":"a","new_string":"b"}"#)).is_empty());
    }

    #[test]
    fn a_patch_is_one_edit_per_file_it_names() {
        let patch = "*** Begin Patch\n*** Add File: myapp/hoge.py\n+print(1 + 1)\n*** Update File: src/lib.rs\n@@ fn main\n-    old();\n+    new();\n     keep();\n*** Delete File: gone.txt\n*** End Patch";
        let e = edits_of(&call("apply_patch", patch));
        let got: Vec<(&str, &str)> = e.iter().map(|(p, k, _)| (p.as_str(), *k)).collect();
        assert_eq!(got, [("myapp/hoge.py", "add"), ("src/lib.rs", "update"), ("gone.txt", "delete")]);
        assert_eq!(e[0].2, "--- a/myapp/hoge.py\n+++ b/myapp/hoge.py\n@@ -0,0 +1,1 @@\n+print(1 + 1)\n");
        assert_eq!(
            e[1].2,
            "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1,2 +1,2 @@ fn main\n-    old();\n+    new();\n     keep();\n"
        );
        // An older Codex passes the patch as the `input` argument of a function call.
        let args = serde_json::json!({ "input": patch }).to_string();
        assert_eq!(edits_of(&call("apply_patch", &args)).len(), 3);
    }
}
