//! Sharing a session (SPEC 6.4, `outputs::share`): on a real Claude Code project from the corpus,
//! every item of every session written (inline) with its file:line, sub-agents summarized at
//! their spawn or written to files of their own beside the export and linked, reasoning only when
//! asked, a budget that cuts on a character, an unknown session refused; on the hostile log, no
//! markup of the log left as markup in either style; and the app's policy allowing the export's
//! style block, so that its preview is drawn with it.

use crate::common;

use arbor_core::share::{ShareOptions, Style, Subagents};
use std::path::PathBuf;

const ROOT: &str = "fe5e1c67-53e7-4862-81ae-d0e013e3270b";

fn viewer() -> arbor_core::Analysis {
    let corpus = common::repo().join("tests/corpus/claude-code/claude-code-viewer");
    arbor_core::analyze(&[corpus], &mut ())
}

fn share(
    a: &arbor_core::Analysis,
    session: &str,
    style: Style,
    subagents: Subagents,
    reasoning: bool,
) -> (String, arbor_core::share::Shared) {
    let mut out = Vec::new();
    let options = ShareOptions { style, subagents, reasoning };
    let shared = a.share(session, &options, &mut out, None, u64::MAX).unwrap().expect("the session is there");
    (String::from_utf8(out).unwrap(), shared)
}

#[test]
fn inline_writes_every_item_of_the_subtree_with_its_place() {
    let a = viewer();
    let r = a.report();
    let subtree: Vec<&str> =
        r.sessions.iter().filter(|s| s.root.as_deref() == Some(ROOT)).map(|s| s.id.as_str()).collect();
    assert_eq!(subtree.len(), 6, "the root and five sub-agents");
    for style in [Style::Markdown, Style::Html] {
        let (text, shared) = share(&a, ROOT, style, Subagents::Inline, false);
        assert_eq!(shared.sessions, 6);
        let mut rows = 0;
        for id in &subtree {
            let index = a.transcript_index(id).unwrap();
            rows += index.len() as u64;
            let page = a.transcript_page(&index, 0, u32::MAX, 0);
            for row in &page.rows {
                let place = format!("{}:{}", row.at.file, row.at.line);
                assert!(text.contains(&place), "{style:?}: {id} row {} ({place}) not written", row.row);
            }
        }
        assert_eq!(shared.rows, rows, "{style:?}: every row of the subtree, once");
        assert!(!shared.cut);
    }
}

#[test]
fn summaries_stand_for_sub_agents_and_files_hold_them_whole() {
    let a = viewer();
    let (inline, _) = share(&a, ROOT, Style::Markdown, Subagents::Inline, false);
    let (summary, s) = share(&a, ROOT, Style::Markdown, Subagents::Summary, false);
    assert_eq!(s.sessions, 1, "the root alone is written");
    assert_eq!(summary.matches("> **Sub-agent** ").count(), 5, "one summary a sub-agent:\n{summary}");
    assert!(summary.contains("`Setup Next.js project`"), "a sub-agent named by its label");
    assert!(summary.len() < inline.len() / 2);

    let dir = tempfile::tempdir().unwrap();
    let file: PathBuf = dir.path().join("run.html");
    let options = ShareOptions { style: Style::Html, subagents: Subagents::Files, reasoning: false };
    let shared = a.share_file(ROOT, &options, &file).unwrap().unwrap();
    assert_eq!(shared.files.len(), 5);
    assert_eq!(shared.sessions, 6);
    let top = std::fs::read_to_string(&file).unwrap();
    let mut names: Vec<String> =
        std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    assert_eq!(names.len(), 6, "the export and its five sub-agents' files, no temporary left: {names:?}");
    for f in &shared.files {
        assert!(top.contains(&format!("href=\"{f}\"")), "{f} linked from its spawn");
        let child = std::fs::read_to_string(dir.path().join(f)).unwrap();
        assert!(child.starts_with("<!DOCTYPE html>") && child.ends_with("</html>\n"), "{f} is a whole document");
    }
}

#[test]
fn reasoning_only_when_asked_a_budget_cuts_and_an_unknown_session_is_none() {
    let a = viewer();
    let (with, _) = share(&a, ROOT, Style::Markdown, Subagents::Inline, true);
    let (without, _) = share(&a, ROOT, Style::Markdown, Subagents::Inline, false);
    assert!(with.len() >= without.len());
    assert!(!without.contains("**Reasoning**"));

    let mut out = Vec::new();
    let options = ShareOptions { style: Style::Html, subagents: Subagents::Inline, reasoning: false };
    let shared = a.share(ROOT, &options, &mut out, None, 10_001).unwrap().unwrap();
    assert!(shared.cut);
    assert!(out.len() <= 10_001 && out.len() > 9_990, "{}", out.len());
    assert!(String::from_utf8(out).is_ok(), "cut on a character");
    assert!(a.share("no-such-session", &options, &mut Vec::new(), None, u64::MAX).unwrap().is_none());
}

#[test]
fn the_hostile_log_stays_text_in_both_styles() {
    let a = arbor_core::analyze(&[common::repo().join("tests/hostile/markup.jsonl")], &mut ());
    let (html, shared) = share(&a, "root", Style::Html, Subagents::Inline, true);
    assert!(shared.sessions >= 2);
    let body = &html[html.find("<body>").unwrap()..];
    // A quote in element text is only text: an attribute needs a tag, and none is the log's.
    for tag in ["<script", "<img", "<iframe", "<a href=\"javascript", "<svg", "<style", "<object"] {
        assert!(!body.to_ascii_lowercase().contains(tag), "{tag} in the HTML export:\n{body}");
    }
    assert!(body.contains("&lt;script&gt;window.__pwned=1&lt;/script&gt;"));
    let (md, _) = share(&a, "root", Style::Markdown, Subagents::Inline, true);
    // Outside code spans and fences, no `<` is left for a renderer to take for a tag.
    let mut in_fence = false;
    for line in md.lines() {
        if line.starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        let outside: String = line.split('`').step_by(2).collect();
        assert!(in_fence || !outside.contains('<'), "markup outside code: {line}");
    }
}

#[test]
fn the_apps_policy_allows_the_exports_style_for_its_preview() {
    let conf = std::fs::read_to_string(common::repo().join("tauri.conf.json")).unwrap();
    let conf: serde_json::Value = serde_json::from_str(&conf).unwrap();
    let csp = conf["app"]["security"]["csp"].as_str().unwrap();
    let style = csp.split(';').map(str::trim).find(|d| d.starts_with("style-src")).unwrap();
    assert!(
        style.split_whitespace().any(|s| s == arbor_core::share::style_source()),
        "tauri.conf.json's style-src wants {} (the export's style block changed)",
        arbor_core::share::style_source()
    );
}
