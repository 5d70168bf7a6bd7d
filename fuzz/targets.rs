//! The bodies of the fuzz targets, one function each, shared by the targets in
//! `fuzz_targets/` and by arbor-core's `tests/hostile.rs` (both include this file with `#[path]`).
//! Sharing them is what lets an ordinary `cargo test` on stable replay every kept crash and every
//! seed through exactly the code the fuzzer ran, with no cargo-fuzz and no nightly flags.
//!
//! Each function panics when the engine breaks one of its promises on `data`; it returns
//! normally otherwise. Only arbor-core and its own dependencies (zstd, serde_json) are used.
#![allow(dead_code)] // each fuzz target uses one of them

use std::path::Path;

/// Format detection on raw bytes: the file's lines, as the reader splits them, vote.
pub fn detect(data: &[u8]) {
    let lines: Vec<&[u8]> = data.split(|b| *b == b'\n').map(|l| l.strip_suffix(b"\r").unwrap_or(l)).collect();
    let _ = arbor_core::formats::detect(lines.iter().copied());
    for l in &lines {
        let _ = arbor_core::formats::vote(l);
    }
}

/// One line through the lenient wire shapes (`scan::parse_line` parses the nested payloads the
/// format modules read), then the format vote. Each line of the input is also tried alone. The
/// one-pass parsers (the wire shapes', Claude Code's) must read every input exactly as their
/// serde references do.
pub fn parse_line(data: &[u8]) {
    fn one(bytes: &[u8]) {
        let line = arbor_core::text::scan::parse_line(bytes);
        // Touch every field the parse produced, and compare them with the reference.
        let got = format!("{line:?}");
        let want = std::str::from_utf8(bytes).ok().and_then(arbor_core::wire::parse_line_serde);
        assert_eq!(got, format!("{want:?}"), "parse_line and parse_line_serde disagree on {bytes:?}");
        // As the engine parses a chunk's lines: the boxed parts in an arena.
        let arena = bumpalo::Bump::new();
        let in_arena = std::str::from_utf8(bytes).ok().and_then(|t| arbor_core::text::scan::parse_line_in(t, &arena));
        assert_eq!(format!("{in_arena:?}"), got, "parse_line and parse_line_in disagree on {bytes:?}");
        // The Claude Code reader, built of the same parts, against its own serde shapes.
        if let Ok(text) = std::str::from_utf8(bytes) {
            let (got, want) = arbor_core::formats::claude_code_line_readings(text);
            assert_eq!(got, want, "the Claude Code reader and its serde reference disagree on {bytes:?}");
            let (got, want) = arbor_core::formats::opencode_row_readings(text);
            assert_eq!(got, want, "the OpenCode reader and its serde reference disagree on {bytes:?}");
            let (got, want) = arbor_core::formats::codex_line_readings(text);
            assert_eq!(got, want, "the Codex reader and its serde reference disagree on {bytes:?}");
            let (got, want) = arbor_core::formats::gemini_cli_line_readings(text);
            assert_eq!(got, want, "the Gemini CLI reader and its serde reference disagree on {bytes:?}");
        }
        if line.is_some() {
            let _ = arbor_core::formats::vote(bytes);
        }
    }
    one(data);
    for l in data.split(|b| *b == b'\n') {
        one(l);
    }
}

/// The engine's JSON string text (`text::json`) against serde_json, on the input as a string's
/// text and as a string's body: the special-byte scan finds what a byte loop finds, the escaper
/// writes what serde_json writes, the strict decoder decodes exactly what serde_json decodes (and
/// refuses what it refuses), the lenient one agrees with it wherever serde_json decodes.
pub fn json_text(data: &[u8]) {
    use arbor_core::text::json;
    for from in [0, data.len() / 3, data.len() / 2] {
        let want =
            data[from..].iter().position(|b| matches!(b, b'"' | b'\\' | 0..=0x1f)).map_or(data.len(), |k| from + k);
        assert_eq!(json::string_special(data, from), want, "string_special from {from} of {data:?}");
    }
    let Ok(text) = std::str::from_utf8(data) else { return };
    let mut escaped = Vec::new();
    json::escape_into(&mut escaped, text);
    assert_eq!(escaped, serde_json::to_vec(text).unwrap(), "escape_into and serde_json disagree on {text:?}");
    let quoted = format!("\"{text}\"");
    let want = serde_json::from_str::<String>(&quoted).ok();
    let mut got = String::new();
    let ok = json::decode_strict(text, &mut got);
    assert_eq!(ok.then_some(&got), want.as_ref(), "decode_strict and serde_json disagree on {text:?}");
    let mut pushed = String::from("kept");
    let ok = json::push_json_string(&mut pushed, quoted.as_bytes());
    assert_eq!(
        ok.then(|| &pushed["kept".len()..]),
        want.as_deref(),
        "push_json_string and serde_json disagree on {text:?}"
    );
    assert!(ok || pushed == "kept", "a refused string appends nothing");
    let mut lenient = String::new();
    json::decode_lenient(text, &mut lenient);
    if let Some(want) = &want {
        assert_eq!(&lenient, want, "decode_lenient and serde_json disagree on {text:?}");
    }
}

/// The records and bad lines a file's bytes give: its non-blank lines, a multi-line value (a
/// line that is only `{` or `[`, to the line where its brackets close; `bytes/reader`) once.
pub fn record_count(bytes: &[u8]) -> u64 {
    use arbor_core::reader::{opens_value, Framing};
    let mut parts: Vec<&[u8]> = bytes.split(|b| *b == b'\n').collect();
    if bytes.ends_with(b"\n") {
        parts.pop();
    }
    let (mut n, mut i) = (0, 0);
    while i < parts.len() {
        let line = parts[i];
        i += 1;
        if line.len() <= arbor_core::reader::MAX_LINE && line.iter().all(|b| b.is_ascii_whitespace()) {
            continue;
        }
        n += 1;
        let head = if i == 1 { arbor_core::reader::without_bom(line) } else { line };
        let terminated = i < parts.len() || bytes.ends_with(b"\n");
        if terminated && line.len() < arbor_core::reader::MAX_LINE && opens_value(head) {
            let mut framing = Framing::default();
            framing.feed(line);
            framing.feed(b"\n");
            while !framing.closed() && i < parts.len() {
                framing.feed(parts[i]);
                framing.feed(b"\n");
                i += 1;
            }
        }
    }
    n
}

/// The metadata lines each session file of `analyze_gemini` starts with: a root, its sub-agent
/// (in the root's folder, named by an `agentId`), and an older whole-file document.
const GEMINI_METAS: [(&str, &str); 3] = [
    (
        "chats/session-2026-05-02T10-00-r0000000.jsonl",
        r#"{"sessionId":"r0","projectHash":"p","startTime":"2026-05-02T10:00:00.000Z","lastUpdated":"2026-05-02T10:00:00.000Z","kind":"main"}"#,
    ),
    (
        "chats/r0/a1.jsonl",
        r#"{"sessionId":"a1","projectHash":"p","startTime":"2026-05-02T10:00:01.000Z","lastUpdated":"2026-05-02T10:00:01.000Z","kind":"subagent"}"#,
    ),
    (
        "chats/session-2026-01-16T18-34-d0000000.json",
        "{\n  \"sessionId\": \"d0\",\n  \"projectHash\": \"p\",\n  \"startTime\": \"2026-01-16T18:34:00.000Z\",",
    ),
];

/// A Gemini CLI `chats/` folder (`formats/gemini_cli/`): `data` cut at NUL bytes into up to three
/// files, each after the lines that make it a session (the fuzzer drives the messages, their
/// rewrites, `$set` and `$rewindTo`, the links across files, and the older document's messages at
/// their own lines); the folder is read, then the root's file alone (which brings its sub-agents'
/// folder). No panic, and nothing is lost.
pub fn analyze_gemini(data: &[u8], dir: &Path) {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir.join("chats/r0")).unwrap();
    for ((name, meta), part) in GEMINI_METAS.iter().zip(data.splitn(3, |b| *b == 0)) {
        let mut bytes = format!("{meta}\n").into_bytes();
        bytes.extend_from_slice(part);
        std::fs::write(dir.join(name), &bytes).unwrap();
    }
    for paths in [vec![dir.to_path_buf()], vec![dir.join(GEMINI_METAS[0].0)]] {
        read_all_kept(&paths);
    }
}

/// The whole pipeline on a plain `.jsonl` file, written to `path`: read, detect, normalize,
/// graph, report. Beyond "no panic", nothing is lost: every non-blank line is a record or a bad line.
pub fn analyze_jsonl(data: &[u8], path: &Path) {
    std::fs::write(path, data).unwrap();
    let a = arbor_core::analyze(&[path.to_path_buf()], &mut ());
    let r = a.report();
    let _ = serde_json::to_string(&r).unwrap();
    let input = &r.inputs[0];
    if input.format != "unknown" {
        lines_kept(&input.format, input.records + input.bad_lines, record_count(data), &input.file);
        assert_eq!(a.records().len() as u64, input.records);
    }
}

const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// The whole pipeline on a `.jsonl.zst` file, written to `path`. An even first byte: the rest is
/// compressed into a valid frame (the fuzzer drives the decompressed content). An odd one: the zstd
/// magic followed by the rest, raw (the fuzzer drives the decoder with corrupt frames).
pub fn analyze_zst(data: &[u8], path: &Path) {
    let Some((&mode, rest)) = data.split_first() else { return };
    let bytes = if mode % 2 == 0 {
        zstd::encode_all(rest, 1).unwrap()
    } else {
        let mut b = ZSTD_MAGIC.to_vec();
        b.extend_from_slice(rest);
        b
    };
    std::fs::write(path, &bytes).unwrap();
    let a = arbor_core::analyze(&[path.to_path_buf()], &mut ());
    let r = a.report();
    let _ = serde_json::to_string(&r).unwrap();
    assert_eq!(a.records().len() as u64, r.inputs.iter().map(|i| i.records).sum::<u64>());
}

/// The headers each rollout of `analyze_codex` starts with: a root, its thread-spawn child, a
/// review sub-agent (linked by time), and a fork that names the child.
const CODEX_METAS: [&str; 4] = [
    r#"{"timestamp":"2026-09-12T00:00:00.000Z","type":"session_meta","payload":{"id":"t0","source":"cli"}}"#,
    r#"{"timestamp":"2026-09-12T00:00:01.000Z","type":"session_meta","payload":{"id":"t1","session_id":"t0","source":{"subagent":{"thread_spawn":{"parent_thread_id":"t0","agent_path":"/root/a","agent_nickname":"A"}}}}}"#,
    r#"{"timestamp":"2026-09-12T00:00:02.000Z","type":"session_meta","payload":{"id":"t2","source":{"subagent":"review"}}}"#,
    r#"{"timestamp":"2026-09-12T00:00:03.000Z","type":"session_meta","payload":{"id":"t3","parent_thread_id":"t1","forked_from_id":"t1","subagent_history_start_ordinal":3}}"#,
];

/// A folder of Codex rollouts (`formats/codex.rs`): `data` is cut at NUL bytes into up to four
/// rollouts, each after a `session_meta` that makes it one (so the fuzzer drives turns, usage,
/// replays and the links `settle` makes across files). No panic, and nothing is lost.
pub fn analyze_codex(data: &[u8], dir: &Path) {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    let mut expected = std::collections::HashMap::new();
    for (i, part) in data.splitn(4, |b| *b == 0).enumerate() {
        let mut bytes = format!("{}\n", CODEX_METAS[i]).into_bytes();
        bytes.extend_from_slice(part);
        std::fs::write(dir.join(format!("rollout-{i}.jsonl")), &bytes).unwrap();
        expected.insert(format!("rollout-{i}.jsonl"), record_count(&bytes));
    }
    let a = arbor_core::analyze(&[dir.to_path_buf()], &mut ());
    let r = a.report();
    let _ = serde_json::to_string(&r).unwrap();
    assert_eq!(r.inputs.len(), expected.len());
    // By name: the report lists the inputs in the tree's order (a fork after what it forks).
    for input in &r.inputs {
        let lines = expected[input.file.as_str()];
        assert_eq!(input.format, "codex", "{}: a session_meta first makes a rollout", input.file);
        lines_kept(&input.format, input.records + input.bad_lines, lines, &input.file);
    }
    assert_eq!(a.records().len() as u64, r.inputs.iter().map(|i| i.records).sum::<u64>());
}

/// Nothing lost: each record the reader gives is a record or a bad line (a Gemini CLI document's
/// messages are records of their own besides: more, never fewer).
pub fn lines_kept(format: &str, got: u64, want: u64, file: &str) {
    if format == "gemini-cli" {
        assert!(got >= want, "{file}: lines lost ({got} of {want})");
    } else {
        assert_eq!(got, want, "{file}: lines lost");
    }
}

/// A Claude Code project folder made from `data`, in `dir`: the input cut at each `0x1e` byte
/// (ASCII record separator) into a session file, its sub-agent transcript and sidecar in
/// `<session>/subagents/`, a 2.0 agent file beside it, and a second session; the folder is read,
/// then the session file alone (which brings its sub-agent files along). Beyond "no panic":
/// every non-blank line of every input is a record or a bad line, and the record index holds
/// them all (the reader of SPEC 2.4 links files to each other in `settle`, where lines of one
/// file can change what another's mean).
pub fn analyze_claude_project(data: &[u8], dir: &Path) {
    let names =
        ["s1.jsonl", "s1/subagents/agent-a1.jsonl", "s1/subagents/agent-a1.meta.json", "agent-b1.jsonl", "s2.jsonl"];
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir.join("s1/subagents")).unwrap();
    for (name, part) in names.iter().zip(data.split(|&b| b == 0x1e)) {
        std::fs::write(dir.join(name), part).unwrap();
    }
    for paths in [vec![dir.to_path_buf()], vec![dir.join(names[0])]] {
        read_all_kept(&paths);
    }
}

/// `paths` read: no panic, every input's records and bad lines are what its bytes hold, and the
/// record index holds them all.
fn read_all_kept(paths: &[std::path::PathBuf]) {
    let a = arbor_core::analyze(paths, &mut ());
    let r = a.report();
    let _ = serde_json::to_string(&r).unwrap();
    // By name: the report lists the inputs in the tree's order, not the files'.
    for input in &r.inputs {
        let Some(info) = a.files.iter().find(|f| f.display == input.file) else { continue };
        if input.format == "unknown" {
            continue;
        }
        let bytes = std::fs::read(&info.path).unwrap();
        lines_kept(&input.format, input.records + input.bad_lines, record_count(&bytes), &input.file);
    }
    assert_eq!(a.records().len() as u64, r.inputs.iter().map(|i| i.records).sum::<u64>());
}

/// The report of a followed folder's snapshot, or of a fresh read, made comparable: the
/// `file-rewritten` findings left out (they tell that it was followed), costs left out (a sum of
/// the same prices taken in another order may differ in its last digit), and the bytes of files
/// in no known format.
fn comparable(mut r: serde_json::Value) -> serde_json::Value {
    fn strip(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(m) => {
                m.remove("cost");
                m.values_mut().for_each(strip);
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    if let Some(d) = r.get_mut("diagnostics").and_then(|d| d.as_array_mut()) {
        d.retain(|d| d["code"] != "file-rewritten");
    }
    // A file in no known format counts the bytes its detection read, which a file growing after
    // it was judged does not change while followed.
    for input in r.get_mut("inputs").and_then(|i| i.as_array_mut()).into_iter().flatten() {
        if input["format"] == "unknown" {
            input["bytes"] = 0.into();
        }
    }
    strip(&mut r);
    r
}

/// One change a follow script makes to one of its two files.
enum Change<'a> {
    /// Bytes appended (a line, part of one, several): the file made when missing.
    Append(&'a [u8]),
    /// Cut to this share (of 256) of its length: shorter than it was.
    Truncate(u8),
    /// Replaced by a new file with these bytes (written beside it, renamed over it).
    Rewrite(&'a [u8]),
    /// Deleted.
    Delete,
}

/// Following a folder of two files (`a.jsonl`, `b.jsonl`) through random appends, cuts,
/// truncations, rewrites and deletions gives, at the end, what a one-shot read of the final files
/// gives (but for the `file-rewritten` findings that say it was followed). Each change is seen
/// by an update before the next, as a watcher sees each write. `data` up to its first `0x1e`
/// byte is `a.jsonl`'s first content; the rest is the script: an op byte (its low bit the file,
/// the next two bits the change), a length byte, then that many bytes of payload. A log with no
/// script (every seed) is written in three pieces cut mid-line, truncated to half and written
/// whole again, beside an empty `b.jsonl` that goes away.
pub fn follow(data: &[u8], dir: &Path) {
    use std::io::Write;
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    let names = ["a.jsonl", "b.jsonl"];
    let (first, script) = match data.iter().position(|&b| b == 0x1e) {
        Some(i) => (&data[..i], Some(&data[i + 1..])),
        None => (data, None),
    };
    let mut changes: Vec<(usize, Change)> = Vec::new();
    match script {
        Some(mut s) => {
            while let [op, len, rest @ ..] = s {
                let n = usize::from(*len).min(rest.len());
                let (payload, after) = rest.split_at(n);
                let file = usize::from(op & 1);
                changes.push((
                    file,
                    match (op >> 1) % 4 {
                        0 => Change::Append(payload),
                        1 => Change::Truncate(*len),
                        2 => Change::Rewrite(payload),
                        _ => Change::Delete,
                    },
                ));
                s = after;
            }
        }
        None => {
            // (Not copied to the other file: a copy of a log beside it reads as a replay of it,
            // which depends on which is read first, `follow_replays_beside_a_log` in hostile.rs.)
            let third = first.len() / 3;
            changes.extend([
                (0, Change::Append(&first[third..2 * third])),
                (0, Change::Append(&first[2 * third..])),
                (0, Change::Truncate(128)),
                (0, Change::Rewrite(first)),
                (1, Change::Append(b"")),
                (1, Change::Delete),
            ]);
        }
    }
    let start = if script.is_some() { first } else { &first[..first.len() / 3] };
    std::fs::write(dir.join(names[0]), start).unwrap();
    let folder = dir.to_path_buf();
    let mut live = arbor_core::live::Live::open(std::slice::from_ref(&folder), &mut ());
    for (file, change) in changes {
        let path = dir.join(names[file]);
        match change {
            Change::Append(bytes) => {
                let mut f = std::fs::OpenOptions::new().create(true).append(true).open(&path).unwrap();
                f.write_all(bytes).unwrap();
            }
            Change::Truncate(share) => {
                if let Ok(f) = std::fs::OpenOptions::new().write(true).open(&path) {
                    let len = f.metadata().unwrap().len();
                    f.set_len((len * u64::from(share) / 256).min(len.saturating_sub(1))).unwrap();
                }
            }
            Change::Rewrite(bytes) => {
                let beside = dir.join(".rewrite");
                std::fs::write(&beside, bytes).unwrap();
                std::fs::rename(&beside, &path).unwrap();
            }
            Change::Delete => {
                let _ = std::fs::remove_file(&path);
            }
        }
        live.update(&mut ());
    }
    let followed = serde_json::to_value(live.snapshot().report()).unwrap();
    let fresh = serde_json::to_value(arbor_core::analyze(&[folder], &mut ()).report()).unwrap();
    let (followed, fresh) = (comparable(followed), comparable(fresh));
    assert!(followed == fresh, "followed:\n{followed:#}\nfresh:\n{fresh:#}");
}

/// OpenCode's tables as its first migration makes them (`formats/opencode`).
const OPENCODE_TABLES: &str = "
CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL, parent_id text, slug text NOT NULL, directory text NOT NULL, title text NOT NULL, version text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL);
INSERT INTO session VALUES ('ses_0', 'p', NULL, 's', '/w', 'root', '1', 0, 0);
INSERT INTO session VALUES ('ses_1', 'p', 'ses_0', 's', '/w', 'child', '1', 1, 1);
INSERT INTO session VALUES ('ses_2', 'p', 'ses_1', 's', '/w', 'grandchild', '1', 2, 2);
";

/// An OpenCode store made from `data`, at `path`. An odd first byte: SQLite's magic and the rest
/// raw (a corrupt database: a finding, never a panic). An even one: a database of OpenCode's
/// tables whose rows' `data` documents are the input's pieces (cut at NUL bytes, alternately a
/// message's and a part's, in three sessions), so the fuzzer drives the documents the rules join
/// across rows. Beyond "no panic": every row is a record or a `malformed-line` at its line, and the
/// header line one more.
pub fn analyze_opencode(data: &[u8], path: &Path) {
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let mut p = path.as_os_str().to_owned();
        p.push(suffix);
        let _ = std::fs::remove_file(std::path::PathBuf::from(p));
    }
    let Some((&mode, rest)) = data.split_first() else { return };
    if mode % 2 == 1 {
        let mut bytes = b"SQLite format 3\0".to_vec();
        bytes.extend_from_slice(rest);
        std::fs::write(path, &bytes).unwrap();
        let a = arbor_core::analyze(&[path.to_path_buf()], &mut ());
        let _ = serde_json::to_string(&a.report()).unwrap();
        return;
    }
    let c = rusqlite::Connection::open(path).unwrap();
    c.execute_batch(OPENCODE_TABLES).unwrap();
    let mut rows = 3u64;
    for (i, piece) in rest.split(|b| *b == 0).take(64).enumerate() {
        let text = String::from_utf8_lossy(piece).into_owned();
        let session = format!("ses_{}", i % 3);
        let message = format!("msg_{}", i / 2);
        let at = i as i64;
        if i % 2 == 0 {
            c.execute("INSERT INTO message VALUES (?1, ?2, ?3, ?3, ?4)", rusqlite::params![message, session, at, text])
                .unwrap();
        } else {
            c.execute(
                "INSERT INTO part VALUES (?1, ?2, ?3, ?4, ?4, ?5)",
                rusqlite::params![format!("prt_{i}"), message, session, at, text],
            )
            .unwrap();
        }
        rows += 1;
    }
    drop(c);
    let a = arbor_core::analyze(&[path.to_path_buf()], &mut ());
    let r = a.report();
    let _ = serde_json::to_string(&r).unwrap();
    assert_eq!(r.inputs.len(), 1);
    assert_eq!(r.inputs[0].format, "opencode", "a store of OpenCode's tables is OpenCode's");
    // Every row is accounted for: a record, or a `malformed-line` at its line (a `data` document
    // the row shape cannot take, such as one naming a key twice), and the header line one more.
    let malformed = r.diagnostics.iter().filter(|d| d.code == "malformed-line").count() as u64;
    assert_eq!(r.inputs[0].bad_lines, malformed);
    assert_eq!(
        r.inputs[0].records + r.inputs[0].bad_lines,
        rows + 1,
        "every row is a record or a finding, and the header"
    );
    assert_eq!(a.records().len() as u64, r.inputs[0].records);
}
