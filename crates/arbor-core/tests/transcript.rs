//! Transcripts (SPEC 5): each session's rows and parts, read back from the files, checked item by
//! item for a session of each format, and paging that agrees with reading the whole.

use crate::common;

use arbor_core::transcript::Page;
use std::path::PathBuf;

fn case(name: &str) -> PathBuf {
    common::repo().join("tests/conformance/cases").join(name).join("input")
}

/// Each part as `line kind [tool] [child] text`, the text's lines joined with `|`.
fn render(page: &Page) -> Vec<String> {
    let mut out = Vec::new();
    for row in &page.rows {
        for p in &row.parts {
            let mut s = format!("{} {:?}", row.at.line, p.kind);
            if let Some(t) = &p.tool {
                s.push_str(&format!(" {t}"));
            }
            if let Some(c) = &p.child {
                s.push_str(&format!(" [{c}]"));
            }
            if p.is_error == Some(true) {
                s.push_str(" error");
            }
            if !p.text.is_empty() {
                s.push_str(&format!(" {}", p.text.replace('\n', "|")));
            }
            out.push(s);
        }
    }
    out
}

fn whole(paths: &[PathBuf], session: &str) -> Vec<String> {
    let a = arbor_core::analyze(paths, &mut ());
    let index = a.transcript_index(session).unwrap_or_else(|| panic!("no session {session}"));
    render(&a.transcript_page(&index, 0, u32::MAX, usize::MAX))
}

#[test]
fn a_dsh_rpc_root_shows_its_spawns_and_what_each_child_sent_back() {
    assert_eq!(
        whole(&[case("builtin-sample")], "lead"),
        [
            "6 ToolCall subagent {}",
            "7 Spawn [planner]",
            "12 ToolCall subagent {}",
            "13 Spawn [worker-7]",
            "52 Received [worker-7] First pass: 4 citations found.",
            "63 Received [planner] Plan done: citations 1-3 hold, 4 is retracted (re-check failed).",
            "64 ToolResult Plan done: citations 1-3 hold, 4 is retracted (re-check failed).",
            "65 ToolResult First pass: 4 citations found.",
            "68 Reasoning Thinking it through.",
            "68 Text Citations [1]-[3] hold. Citation [4] cites a retracted paper: replace it.",
        ]
    );
}

#[test]
fn a_copilot_root_links_its_task_call_to_the_sub_agent_it_started() {
    assert_eq!(
        whole(&[case("copilot-events-saved")], "main-1"),
        [
            "2 Prompt Delegate a check.",
            "4 Spawn task [ag-a] {|  \"prompt\": \"check\"|}",
            "12 Received [ag-a]",
            "13 Text Root summary.",
            "16 Prompt And now?",
            "17 Text unannounced speaks",
        ]
    );
    // The sub-agent's own transcript holds its messages and its own spawn.
    let a = whole(&[case("copilot-events-saved")], "ag-a");
    assert!(a.contains(&"7 Spawn task [ag-b] {|  \"prompt\": \"deeper\"|}".to_owned()), "{a:#?}");
    assert!(a.contains(&"6 Text A progress".to_owned()), "{a:#?}");
}

#[test]
fn a_dsh_session_child_shows_its_turns_with_tokens_once_per_message() {
    let dir = common::repo().join("tests/corpus/deepseek-harness/examples_acp-agent__subagent-depth-two-rejection");
    let a = arbor_core::analyze(&[dir], &mut ());
    let child = "22222222-2222-4222-8222-222222222222";
    let index = a.transcript_index(child).unwrap();
    let page = a.transcript_page(&index, 0, u32::MAX, usize::MAX);
    let lines = render(&page);
    assert_eq!(
        lines[0],
        "8 Prompt Call subagent once. Ask that child to attempt one further subagent call, then report the result."
    );
    assert!(
        lines[1].starts_with("9 Notice Current runtime context."),
        "the runtime context is the harness's: {lines:#?}"
    );
    assert!(lines.iter().any(|l| l == "20 ToolResult DEPTH_REJECTED"), "{lines:#?}");
    assert!(lines.last().is_some_and(|l| l == "28 Text DEPTH_ONE_DONE"), "{lines:#?}");
    let tokens: Vec<(u64, u64)> =
        page.rows.iter().flat_map(|r| &r.parts).filter_map(|p| p.usage.as_ref().map(|u| (u.input, u.output))).collect();
    assert_eq!(tokens, [(10, 5), (10, 2)]);
    // Rows sit in their turns and steps.
    let last = page.rows.last().unwrap();
    assert_eq!((last.turn.as_i64(), last.step), (Some(1), Some(2)));
}

#[test]
fn pages_agree_with_the_whole_and_a_cut_text_is_whole_on_request() {
    let a = arbor_core::analyze(&[case("builtin-sample")], &mut ());
    let index = a.transcript_index("lead").unwrap();
    let all = a.transcript_page(&index, 0, u32::MAX, usize::MAX);
    assert_eq!(all.total as usize, all.rows.len());
    for from in 0..all.total {
        for limit in 1..4 {
            let page = a.transcript_page(&index, from, limit, usize::MAX);
            let want = &all.rows[from as usize..(from + limit).min(all.total) as usize];
            assert_eq!(page.rows, want, "from {from} limit {limit}");
        }
    }
    let short = a.transcript_page(&index, 0, u32::MAX, 5);
    let (row, part) = short
        .rows
        .iter()
        .enumerate()
        .find_map(|(r, row)| row.parts.iter().position(|p| p.cut).map(|p| (r, p)))
        .expect("a text longer than 5 characters");
    let p = &short.rows[row].parts[part];
    assert_eq!(p.text.chars().count(), 5);
    let full = a.transcript_part(&index, row as u32, part).unwrap();
    assert_eq!(full.chars().count() as u64, p.text_len);
    assert!(full.starts_with(&p.text));
    assert!(a.transcript_index("no-such-session").is_none());
}

#[test]
fn a_codex_parent_names_the_child_its_spawn_call_started_and_what_came_back() {
    assert_eq!(
        whole(&[case("codex-fork-replay")], "P"),
        [
            "4 Prompt fork a helper",
            "5 Spawn spawn_agent [H] {|  \"fork_turns\": \"all\",|  \"task_name\": \"helper\"|}",
            "6 Notice [H] /root/helper: started",
            // Each model call's tokens, on the line that counted them.
            "7 Usage",
            // The FINAL_ANSWER agent message is signed with the child's agent path, no session id.
            "8 Received helped",
            "9 Text ok",
            "10 Usage",
        ]
    );
    // An older child's notification is a user message; the spawn's output acknowledges the child.
    assert_eq!(
        whole(&[case("codex-activity-link")], "P"),
        [
            "3 Spawn spawn_agent [C] {}",
            "4 Notice [C] C: started",
            // The spawn's output only acknowledges the child: a tool result, not its reply.
            "5 ToolResult [C] {|  \"agent_id\": \"C\",|  \"nickname\": \"Nash\"|}",
            "6 Received [C] forty-two",
            "7 Text done",
        ]
    );
}

/// Each part's tokens as (line, input, output, cache read, cache write).
fn tokens(page: &Page) -> Vec<(u64, u64, u64, u64, u64)> {
    page.rows
        .iter()
        .flat_map(|r| r.parts.iter().map(move |p| (r.at.line, p)))
        .filter_map(|(line, p)| p.usage.as_ref().map(|u| (line, u.input, u.output, u.cache_read, u.cache_write)))
        .collect()
}

#[test]
fn a_claude_code_root_shows_its_background_spawn_the_launch_and_the_notification_that_came_back() {
    assert_eq!(
        whole(&[case("claude-code-background")], "s-bg"),
        [
            "1 Prompt Start a survey and keep going",
            "2 Spawn Agent [bg1] Survey the docs",
            // The launch acknowledges the spawn; what came back is the notification.
            "3 ToolResult [bg1] Async agent launched successfully.|agentId: bg1 (This is an internal ID for your use, do not mention it to the user.)",
            "4 Text Launched; waiting.",
            "7 Received [bg1] The docs have 4 pages.",
            "8 Text The survey found 4 pages.",
        ]
    );
    // A foreground spawn's result names its child only in the text: the link finds it.
    let a = whole(&[case("claude-code-agent-files")], "s20");
    assert_eq!(
        a[1..5],
        [
            "2 Spawn Task [b1] Find TODOs",
            "3 Spawn Task [b2] Count files",
            "4 Received [b1] 3 TODOs",
            "5 Received [b2] 12 files|agentId: b2 (use SendMessage with to: 'b2' to continue this agent)"
        ]
    );
}

#[test]
fn a_codex_rollout_shows_each_message_once_from_its_response_items() {
    let file = common::repo().join("tests/corpus/codex-cli/agtrace_codex_session.jsonl");
    let lines = whole(&[file], "019b04ae-b1c6-7c72-a134-a4c2de66058c");
    let brief: Vec<String> = lines.iter().map(|l| l.chars().take(60).collect()).collect();
    assert_eq!(
        brief,
        [
            "2 Notice <environment_context>|  <cwd>/Users/test_user/agent",
            "3 Prompt add myapp directory and create myapp/hoge.py which ",
            "9 Reasoning **Creating directory and file using shell and pa",
            "10 ToolCall shell_command {|  \"command\": \"mkdir -p myapp\",| ",
            "11 Usage",
            "12 ToolResult Exit code: 0|Wall time: 0.1 seconds|Output:|/o",
            "16 Reasoning **Creating file with patch**||I'm creating a ne",
            "17 ToolCall apply_patch *** Begin Patch|*** Add File: myapp/",
            "18 Usage",
            "19 ToolResult Success. Updated the following files:|A myapp/",
            "23 Text Added simple script in `myapp/hoge.py` that prints t",
            "24 Usage",
            "25 Prompt cd to myapp and run python hoge.py",
            "31 Reasoning **Running Python script in workspace**",
            "32 ToolCall shell_command {|  \"command\": \"python hoge.py\",| ",
            "33 Usage",
            "34 ToolResult error Exit code: 1|Wall time: 0.1 seconds|Outp",
            "38 Reasoning **Handling command failure with escalation**||T",
            "39 ToolCall shell_command {|  \"command\": \"python hoge.py\",| ",
            "40 Usage",
            "41 ToolResult error Exit code: 1|Wall time: 0.1 seconds|Outp",
            "45 Reasoning **Considering python3 usage**||Noticing possibl",
            "46 ToolCall shell_command {|  \"command\": \"python3 hoge.py\",|",
            "47 Usage",
            "48 ToolResult Exit code: 0|Wall time: 0.1 seconds|Output:|/o",
            "52 Reasoning **Noting python3 usage due to missing shim**||T",
            "54 Text Ran the script with `python3` (since `python` shim i",
            "55 Usage",
        ]
    );
}

#[test]
fn a_codex_spawn_call_names_the_thread_its_collab_spawn_end_started() {
    // Newer builds write `collab_agent_spawn_end` (call id, new thread id) rather than a
    // `sub_agent_activity`; an event of another call names nothing.
    let (_dir, path) = common::log(
        "rollout-2026-09-12T00-00-00-R.jsonl",
        concat!(
            r#"{"timestamp":"2026-09-12T00:00:00.000Z","type":"session_meta","payload":{"id":"R"}}"#,
            "\n",
            r#"{"timestamp":"2026-09-12T00:00:01.000Z","type":"response_item","payload":{"type":"function_call","name":"spawn_agent","call_id":"c1","arguments":"{\"message\":\"Inspect the parser\"}"}}"#,
            "\n",
            r#"{"timestamp":"2026-09-12T00:00:01.100Z","type":"event_msg","payload":{"type":"collab_agent_spawn_end","call_id":"c1","sender_thread_id":"R","new_thread_id":"kid","status":"running"}}"#,
            "\n",
            r#"{"timestamp":"2026-09-12T00:00:01.200Z","type":"response_item","payload":{"type":"function_call","name":"spawn_agent","call_id":"c2","arguments":"{}"}}"#,
            "\n",
            r#"{"timestamp":"2026-09-12T00:00:01.300Z","type":"event_msg","payload":{"type":"collab_agent_spawn_end","call_id":"c9","new_thread_id":"other"}}"#,
            "\n",
            r#"{"timestamp":"2026-09-12T00:00:02.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"{\"agent_id\":\"kid\"}"}}"#,
            "\n",
        ),
    );
    assert_eq!(
        whole(&[path], "R"),
        [
            "2 Spawn spawn_agent [kid] Inspect the parser",
            "4 Spawn spawn_agent {}",
            "6 ToolResult [kid] {|  \"agent_id\": \"kid\"|}",
        ]
    );
}

#[test]
fn a_claude_code_message_split_over_lines_shows_its_largest_counts_once_and_each_request_again() {
    let a = arbor_core::analyze(&[case("claude-code-turns-usage")], &mut ());
    let index = a.transcript_index("s-u").unwrap();
    let page = a.transcript_page(&index, 0, u32::MAX, usize::MAX);
    assert_eq!(
        render(&page),
        [
            "1 Prompt Question one",
            "2 Reasoning hm",
            "3 Text Answer one.",
            "4 ToolCall Bash {|  \"command\": \"true\"|}",
            "5 ToolResult ok",
            "6 Notice <system-reminder>Keep going.</system-reminder>",
            "7 Text Done.",
            "8 Prompt Question two",
            "9 Reasoning hm",
            "10 Text Two.",
            "11 Text Two.",
        ]
    );
    // msg_1's lines say output 1, 8, 40: the message's is 40, on its first line; msg_3 came twice
    // (req_3, req_3b) and counts twice, as the report's usage does (output 52 in all).
    let want = [(2, 3, 40, 0, 10), (7, 4, 2, 50, 0), (9, 2, 5, 0, 0), (11, 2, 5, 0, 0)];
    assert_eq!(tokens(&page), want);
    assert_eq!(page.rows[1].parts[0].model.as_deref(), Some("claude-test-1"));
    // A page that ends inside a message reads on to its last line for its counts.
    assert_eq!(tokens(&a.transcript_page(&index, 0, 2, usize::MAX)), [(2, 3, 40, 0, 10)]);
    assert_eq!(tokens(&a.transcript_page(&index, 2, 3, usize::MAX)), []);
}

#[test]
fn a_claude_code_corpus_session_shows_its_thinking_tools_an_error_and_tokens_per_message() {
    let file = common::repo().join("tests/corpus/claude-code/agtrace_claude_session.jsonl");
    let a = arbor_core::analyze(&[file], &mut ());
    let index = a.transcript_index("7f2abd2d-7cfc-4447-9ddd-3ca8d14e02e9").unwrap();
    let page = a.transcript_page(&index, 0, u32::MAX, 40);
    let lines = render(&page);
    assert_eq!(
        lines,
        [
            "2 Prompt add myapp directory and create myapp/hog",
            "3 Reasoning The user wants me to:|1. Add a myapp dir",
            "4 Text I'll create the myapp directory and then",
            "5 ToolCall Bash {|  \"command\": \"mkdir -p myapp\",|  \"desc",
            "6 ToolResult",
            "7 Reasoning Good, the directory has been created. No",
            "8 ToolCall Write {|  \"content\": \"print(1+1)\\n\",|  \"file_p",
            "10 ToolResult File created successfully at: /Users/tes",
            "11 Reasoning Perfect! I've created the directory and ",
            "12 Text Done! I've created the `myapp` directory",
            "14 Prompt cd to myapp and run python hoge.py",
            "15 Reasoning The user wants me to change directory to",
            "16 ToolCall Bash {|  \"command\": \"cd myapp && python hoge.",
            "17 ToolResult error error: target shim binary not found",
            "18 Reasoning It seems there's an issue with the pytho",
            "19 ToolCall Bash {|  \"command\": \"cd myapp && python3 hoge",
            "20 ToolResult 2",
            "21 Reasoning Great! The script ran successfully and o",
            "22 Text Perfect! The script executed successfull",
            "24 Notice Caveat: The messages below were generate",
            "25 Prompt <command-name>/exit</command-name>|     ",
            "26 Prompt <local-command-stdout>Goodbye!</local-co",
        ]
    );
    let calls: Vec<&str> = page.rows.iter().flat_map(|r| &r.parts).filter_map(|p| p.call_id.as_deref()).collect();
    assert_eq!(calls[..2], ["toolu_01AwnkWRXpcpsXYF2KnbdPDv", "toolu_01AwnkWRXpcpsXYF2KnbdPDv"]);
    // Six messages, each split over lines whose output grows (8, 8, 436 for the first): the
    // largest counts, once a message; their sum is the session's usage in the report.
    let want = [
        (3, 10, 436, 12135, 3893),
        (7, 14, 126, 16028, 458),
        (11, 13, 112, 16486, 169),
        (15, 10, 123, 16028, 333),
        (18, 14, 1, 16361, 154),
        (21, 13, 46, 16515, 151),
    ];
    assert_eq!(tokens(&page), want);
    let out: u64 = want.iter().map(|w| w.2).sum();
    assert_eq!(a.report().sessions[0].usage.as_ref().map(|u| u.output), Some(out));
}

/// A Codex rollout's transcript shows each model call's tokens as a `usage` part, with the
/// turn's model, where the reader counted the call: per turn they add up to the turn's usage in
/// the report, and over the rollout to the session's.
fn codex_usage_parts_add_up_to_the_report(path: PathBuf, session: &str) -> usize {
    use arbor_core::report::Usage;
    use arbor_core::transcript::PartKind;
    let a = arbor_core::analyze(std::slice::from_ref(&path), &mut ());
    let report = a.report();
    let index = a.transcript_index(session).unwrap();
    let page = a.transcript_page(&index, 0, u32::MAX, usize::MAX);
    let key = |t: &serde_json::Value| t.to_string();
    let mut by_turn: std::collections::BTreeMap<String, Usage> = Default::default();
    let mut all = Usage::default();
    let mut calls = 0;
    for row in &page.rows {
        for p in row.parts.iter().filter(|p| p.usage.is_some()) {
            assert_eq!(p.kind, PartKind::Usage, "{}: only a model call's row carries tokens", row.at.line);
            assert!(p.model.is_some(), "{}: the turn's model names the call's", row.at.line);
            by_turn.entry(key(&row.turn)).or_default().add(p.usage.as_ref().unwrap());
            all.add(p.usage.as_ref().unwrap());
            calls += 1;
        }
    }
    let strip = |u: Usage| (u.input, u.output, u.cache_read, u.cache_write);
    for t in report.turns.iter().filter(|t| t.session == session) {
        let shown = by_turn.remove(&key(&serde_json::to_value(&t.turn).unwrap())).map(strip);
        assert_eq!(shown, t.usage.clone().map(strip), "{}: turn {:?}", path.display(), t.turn);
    }
    assert!(by_turn.is_empty(), "tokens outside the report's turns: {by_turn:?}");
    let own = report.sessions.iter().find(|s| s.id == session).unwrap().usage.clone();
    assert_eq!(Some(strip(all)), own.map(strip), "{}", path.display());
    calls
}

#[test]
fn a_codex_rollouts_model_calls_show_their_tokens_and_model_adding_up_to_each_turns() {
    let corpus = common::repo().join("tests/corpus/codex-cli/agtrace_codex_session.jsonl");
    let calls = codex_usage_parts_add_up_to_the_report(corpus, "019b04ae-b1c6-7c72-a134-a4c2de66058c");
    assert!(calls > 0, "the corpus rollout counts its calls");
    // A count repeated after a turn_context is no new call; one with only the running total
    // counts what it grew by, on its own line.
    assert_eq!(codex_usage_parts_add_up_to_the_report(case("codex-turns-usage").join("rollout.jsonl"), "U"), 2);
    let a = arbor_core::analyze(&[case("codex-turns-usage")], &mut ());
    let index = a.transcript_index("U").unwrap();
    let page = a.transcript_page(&index, 0, u32::MAX, usize::MAX);
    let calls: Vec<(u64, Option<&str>)> = page
        .rows
        .iter()
        .flat_map(|r| r.parts.iter().map(move |p| (r.at.line, p)))
        .filter(|(_, p)| p.kind == arbor_core::transcript::PartKind::Usage)
        .map(|(line, p)| (line, p.model.as_deref()))
        .collect();
    assert_eq!(calls, [(7, Some("gpt-5")), (12, Some("gpt-5"))]);
    assert_eq!(tokens(&page), [(7, 100, 10, 0, 0), (12, 70, 15, 80, 0)]);
}

/// The older harness's `steering/message` (a user's word in the middle of a turn) is a prompt in
/// the transcript, where it was: it was read as an event of no kind, and shown nowhere.
#[test]
fn a_dsh_steering_message_is_a_prompt_where_it_was_written() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("session.jsonl");
    std::fs::write(
        &log,
        [
            r#"{"type":"session","version":0,"id":"S","createdAt":1000}"#,
            r#"{"type":"turn/start","seq":0,"time":1001,"data":{"turn":1}}"#,
            r#"{"type":"user/message","seq":1,"time":1002,"data":{"turn":1,"message":{"role":"user","content":[{"type":"text","text":"fix the parser"}]}}}"#,
            r#"{"type":"step/start","seq":2,"time":1003,"data":{"turn":1,"step":1}}"#,
            r#"{"type":"steering/message","seq":3,"time":1004,"data":{"content":"and keep the tests green","source":{"kind":"user"}}}"#,
            r#"{"type":"assistant/message","seq":4,"time":1005,"data":{"turn":1,"step":1,"message":{"role":"assistant","content":[{"type":"text","text":"done"}]}}}"#,
            r#"{"type":"step/end","seq":5,"time":1006,"data":{"turn":1,"step":1}}"#,
            r#"{"type":"turn/end","seq":6,"time":1007,"data":{"turn":1,"reason":{"kind":"completed"}}}"#,
        ]
        .join("\n")
            + "\n",
    )
    .unwrap();
    let lines = whole(&[log], "S");
    assert_eq!(lines, ["3 Prompt fix the parser", "5 Prompt and keep the tests green", "6 Text done"]);
}

/// Gemini CLI's `<session_context>` message (the environment the CLI sets up first) is shown as
/// a notice, not as the first prompt.
#[test]
fn a_gemini_session_context_is_a_notice_before_the_first_prompt() {
    let lines = whole(&[case("gemini-cli-session-context")], "4b7e21a0-5c3d-4e8f-9a1b-2c3d4e5f6a7b");
    assert!(lines[0].starts_with("2 Notice <session_context>|This is the Gemini CLI."), "{lines:#?}");
    assert_eq!(
        lines[1..],
        ["3 Prompt what does paginate() return?", "5 Text A list of pages, each a slice of the items."]
    );
}
