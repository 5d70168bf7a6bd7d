//! The `arbor` binary as CI uses it: exit codes, the JSON report, and one-line errors.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn arbor(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_arbor")).args(args).output().unwrap()
}

fn case(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/conformance/cases").join(name).join("input")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn analyze_json_prints_the_report_and_exits_zero_whatever_it_found() {
    let p = case("dsh-rpc-bad-ancestry").join("run.jsonl");
    let out = arbor(&["analyze", "--json", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["report_version"], 1);
    assert_eq!(r["inputs"][0]["format"], "dsh-rpc");
    assert!(r["diagnostics"].as_array().unwrap().iter().any(|d| d["code"] == "ancestry-cycle"));
}

#[test]
fn check_exits_one_on_errors_and_zero_on_warnings_only() {
    let bad = case("dsh-rpc-bad-ancestry").join("run.jsonl");
    let out = arbor(&["check", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).contains("run.jsonl:4  ancestry-cycle"), "{}", text(&out.stdout));
    let fine = case("copilot-events-saved").join("events.jsonl");
    let out = arbor(&["check", fine.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
}

#[test]
fn check_exits_two_when_nothing_can_be_read() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("notes.jsonl");
    std::fs::write(&p, "{\"hello\":1}\n").unwrap();
    let out = arbor(&["check", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let out = arbor(&["check", "/definitely/not/here.jsonl"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert_eq!(err.lines().count(), 1, "one line, no backtrace: {err}");
    assert!(err.contains("/definitely/not/here.jsonl"));
}

#[test]
fn argument_errors_are_clap_errors_and_exit_two() {
    let p = case("builtin-sample");
    let p = p.to_str().unwrap();
    for (args, says) in [
        (&["frobnicate"][..], "unrecognized subcommand 'frobnicate'"),
        (&["analyze"], "required arguments were not provided"),
        (&["analyze", "--bogus", "x"], "unexpected argument '--bogus'"),
        (&["check", "--format", "xml", p], "invalid value 'xml' for '--format <FORMAT>'"),
        (&["check", "--fail-on", "info", p], "invalid value 'info' for '--fail-on <SEVERITY>'"),
        (&["explain", "no-such-code"], "invalid value 'no-such-code' for '[CODE]'"),
        (&["completions", "tcsh"], "invalid value 'tcsh'"),
    ] {
        let out = arbor(args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.starts_with("error: ") && err.contains(says), "{args:?}: {err}");
        assert!(err.contains("For more information, try '--help'."), "{args:?}: {err}");
        assert!(out.stdout.is_empty() && !err.contains("panicked"));
    }
    // No command at all: the help, on stderr, and exit 2.
    let out = arbor(&[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("Usage: arbor <COMMAND>"));
}

#[test]
fn every_command_has_help_and_the_version_is_arbor_and_its_version() {
    let out = arbor(&["--version"]);
    assert_eq!((out.status.code(), text(&out.stdout)), (Some(0), format!("arbor {}\n", env!("ARBOR_LONG_VERSION"))));
    // The workspace version, then the commit when the build could know it (build/commit.rs).
    let commit = env!("ARBOR_COMMIT");
    let want =
        if commit.is_empty() { arbor_core::VERSION.to_owned() } else { format!("{} ({commit})", arbor_core::VERSION) };
    assert_eq!(env!("ARBOR_LONG_VERSION"), want);
    let head = std::process::Command::new("git").args(["rev-parse", "--short", "HEAD"]).output().ok();
    if let Some(head) = head.filter(|h| h.status.success()) {
        if std::env::var_os("ARBOR_COMMIT").is_none() {
            assert_eq!(commit, text(&head.stdout).trim(), "the commit is git's HEAD");
        }
    }
    let out = arbor(&["--help"]);
    for cmd in ["analyze", "check", "explain", "completions"] {
        assert!(text(&out.stdout).contains(&format!("\n  {cmd} ")), "{cmd} missing from --help");
        let help = arbor(&[cmd, "--help"]);
        assert_eq!(help.status.code(), Some(0), "{cmd}");
        assert!(text(&help.stdout).contains(&format!("Usage: arbor {cmd}")), "{cmd}: {}", text(&help.stdout));
        let help = arbor(&["help", cmd]);
        assert!(text(&help.stdout).contains(&format!("Usage: arbor {cmd}")), "help {cmd}");
    }
    let help = text(&arbor(&["check", "--help"]).stdout);
    for word in ["text", "json", "sarif", "junit", "github", "--fail-on", "--root", "Exit status"] {
        assert!(help.contains(word), "check --help lacks {word}");
    }
}

#[test]
fn completions_are_scripts_for_each_shell_that_know_the_commands_and_options() {
    for (shell, marker) in [
        ("bash", "complete -F"),
        ("zsh", "#compdef arbor"),
        ("fish", "complete -c arbor"),
        ("powershell", "Register-ArgumentCompleter"),
    ] {
        let out = arbor(&["completions", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}");
        let script = text(&out.stdout);
        assert!(script.contains(marker), "{shell}: no `{marker}`");
        for word in ["check", "explain", "fail-on", "sarif"] {
            assert!(script.contains(word), "{shell} completion lacks {word}");
        }
    }
}

#[test]
fn generate_writes_what_the_packages_install_completions_and_man_pages() {
    let dir = tempfile::tempdir().unwrap();
    let completions = dir.path().join("completions");
    let out = arbor(&["generate", "completions", completions.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    for (file, marker) in
        [("arbor.bash", "complete -F"), ("_arbor", "#compdef arbor"), ("arbor.fish", "complete -c arbor")]
    {
        let script = std::fs::read_to_string(completions.join(file)).unwrap();
        assert!(script.contains(marker), "{file}: no `{marker}`");
        // The same script `arbor completions SHELL` prints.
        let shell = match file {
            "arbor.bash" => "bash",
            "_arbor" => "zsh",
            _ => "fish",
        };
        assert_eq!(script, text(&arbor(&["completions", shell]).stdout), "{file}");
    }
    let man = dir.path().join("man");
    let out = arbor(&["generate", "man", man.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let page = std::fs::read_to_string(man.join("arbor.1")).unwrap();
    assert!(page.contains(".TH arbor 1"), "{page}");
    assert!(page.contains(env!("ARBOR_LONG_VERSION")), "the page names the version: {page}");
    for cmd in ["analyze", "check", "explain", "watch", "export"] {
        assert!(man.join(format!("arbor-{cmd}.1")).is_file(), "no page for {cmd}");
    }
    // The packagers' command stays out of --help.
    assert!(!text(&arbor(&["--help"]).stdout).contains("generate"));
}

#[test]
fn the_summary_shows_the_tree_the_root_reply_and_findings_by_severity() {
    let out = arbor(&["analyze", case("builtin-sample").to_str().unwrap()]);
    let s = text(&out.stdout);
    assert!(s.contains("        fact-checker \"Verify citations\"  [ok]"), "{s}");
    assert!(s.contains("worker-7 \"Re-check [4]\"  [error]  2 runs"), "{s}");
    assert!(s.contains("[idle]  \"Citations [1]-[3] hold."), "{s}");
    assert!(s.contains("a naive waiter would have ended [error]"), "{s}");
    let warn = s.find("Warnings (2)").unwrap();
    let info = s.find("Info (2)").unwrap();
    assert!(warn < info);
    assert!(s.contains("copilot-sdk.jsonl:10  child-error-would-fail-wait"));
}

fn arbor_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_arbor")).current_dir(dir).args(args).output().unwrap()
}

#[test]
fn analyze_json_is_the_engines_report_byte_for_byte() {
    for p in [case("builtin-sample"), case("dsh-rpc-bad-ancestry").join("run.jsonl")] {
        let mut want = Vec::new();
        arbor_core::analyze(std::slice::from_ref(&p), &mut ()).write_report_json(&mut want).unwrap();
        want.push(b'\n');
        let out = arbor(&["analyze", "--json", p.to_str().unwrap()]);
        assert!(out.stdout == want, "{}", p.display());
    }
}

#[test]
fn fail_on_sets_the_exit_code_and_unreadable_input_still_exits_two() {
    // The sample has warnings and infos and no error; the bad-ancestry case has errors.
    let sample = case("builtin-sample");
    let bad = case("dsh-rpc-bad-ancestry").join("run.jsonl");
    let dir = tempfile::tempdir().unwrap();
    let unknown = dir.path().join("notes.jsonl");
    std::fs::write(&unknown, "{\"hello\":1}\n").unwrap();
    for (path, fail_on, code) in [
        (&sample, "error", 0),
        (&sample, "warning", 1),
        (&sample, "never", 0),
        (&bad, "error", 1),
        (&bad, "warning", 1),
        (&bad, "never", 0),
        (&unknown, "never", 2),
    ] {
        for format in ["text", "json", "sarif", "junit", "github"] {
            let out = arbor(&["check", "--format", format, "--fail-on", fail_on, path.to_str().unwrap()]);
            assert_eq!(out.status.code(), Some(code), "{format} --fail-on {fail_on} {}", path.display());
        }
    }
    let out = arbor(&["check", "--root", unknown.to_str().unwrap(), sample.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--root is not a folder"));
}

#[test]
fn check_text_is_the_findings_by_severity_and_json_is_one_diagnostic_a_line() {
    let sample = case("builtin-sample");
    let t = text(&arbor(&["check", sample.to_str().unwrap()]).stdout);
    assert!(t.starts_with("Warnings (2)\n  copilot-sdk.jsonl:10  child-error-would-fail-wait  "), "{t}");
    let j = arbor(&["check", "--format", "json", sample.to_str().unwrap()]);
    let report: serde_json::Value =
        serde_json::from_slice(&arbor(&["analyze", "--json", sample.to_str().unwrap()]).stdout).unwrap();
    let lines: Vec<serde_json::Value> = text(&j.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(&serde_json::Value::Array(lines), &report["diagnostics"]);
}

/// A folder under a root, with a log whose findings carry hostile text: a file name with the
/// characters GitHub's properties escape, and an event type with line breaks, a fake workflow
/// command, markup, `%` escapes, a terminal escape and a NUL.
fn hostile_checkout() -> (tempfile::TempDir, &'static str) {
    let root = tempfile::tempdir().unwrap();
    let logs = root.path().join("logs");
    std::fs::create_dir(&logs).unwrap();
    let evil = "x\r\n::error file=evil.jsonl,line=1::pwned <&>\"' ]]> %0A 50% a:b,c \u{1b}[31m\u{0} ü";
    let ev = |seq: u32, ty: &str, data: serde_json::Value| {
        serde_json::json!({"method": "session.event", "params": {"sessionId": "root",
            "event": {"type": ty, "seq": seq, "time": seq, "data": data}}})
        .to_string()
    };
    let lines = [
        ev(0, "turn/start", serde_json::json!({"turn": 1})),
        ev(1, evil, serde_json::json!({})),
        ev(2, "turn/end", serde_json::json!({"turn": 1, "reason": {"kind": "completed"}})),
        r#"{"method":"session.status","params":{"sessionId":"root","status":"idle"}}"#.to_owned(),
        "{not json".to_owned(),
    ];
    let name = "run, 50%: ü.jsonl";
    std::fs::write(logs.join(name), lines.join("\n") + "\n").unwrap();
    // A link to nothing is a file that cannot be read: a finding at line 0.
    #[cfg(unix)]
    std::os::unix::fs::symlink(root.path().join("gone"), logs.join("gone.jsonl")).unwrap();
    (root, name)
}

#[test]
fn sarif_has_a_rule_per_code_and_a_result_per_finding_at_its_place_under_the_root() {
    use arbor_core::finding::Code;
    let (root, name) = hostile_checkout();
    let logs = root.path().join("logs");
    // Run from inside the logs folder, with the checkout as the root.
    let out = arbor_in(&logs, &["check", "--format", "sarif", "--root", "..", "."]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let log: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(log["version"], "2.1.0");
    let run = &log["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "arbor");
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    assert_eq!(rules.len(), Code::ALL.len());
    for (rule, code) in rules.iter().zip(Code::ALL) {
        let e = arbor_core::explain::explain(*code);
        assert_eq!(rule["id"], code.as_str());
        assert_eq!(rule["shortDescription"]["text"], e.title);
        assert_eq!(rule["fullDescription"]["text"], e.why);
        assert!(rule["help"]["text"].as_str().unwrap().contains(e.fix));
        let level = ["error", "warning", "note"][code.severity() as usize];
        assert_eq!(rule["defaultConfiguration"]["level"], level, "{}", code.as_str());
    }
    let results = run["results"].as_array().unwrap();
    let report: serde_json::Value =
        serde_json::from_slice(&arbor_in(&logs, &["analyze", "--json", "."]).stdout).unwrap();
    let diagnostics = report["diagnostics"].as_array().unwrap();
    assert_eq!(results.len(), diagnostics.len());
    assert!(results.len() >= 3, "{results:?}");
    for (r, d) in results.iter().zip(diagnostics) {
        assert_eq!(r["ruleId"], d["code"]);
        assert_eq!(rules[r["ruleIndex"].as_u64().unwrap() as usize]["id"], d["code"]);
        assert_eq!(r["message"]["text"], d["message"]);
        let loc = &r["locations"][0]["physicalLocation"];
        assert_eq!(loc["artifactLocation"]["uriBaseId"], "%SRCROOT%");
        match d["at"]["line"].as_u64().unwrap() {
            0 => assert!(loc.get("region").is_none(), "{r}"),
            line => assert_eq!(loc["region"]["startLine"], line),
        }
    }
    let uris: Vec<&str> = results
        .iter()
        .map(|r| r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].as_str().unwrap())
        .collect();
    assert!(uris.contains(&"logs/run,%2050%25%3A%20%C3%BC.jsonl"), "{uris:?} ({name})");
    #[cfg(unix)]
    assert!(uris.contains(&"logs/gone.jsonl"), "{uris:?}");
    let base = run["originalUriBaseIds"]["%SRCROOT%"]["uri"].as_str().unwrap();
    assert!(base.starts_with("file:///") && base.ends_with('/'), "{base}");
}

#[test]
fn github_commands_keep_hostile_text_inside_one_escaped_command_each() {
    let (root, _) = hostile_checkout();
    let out = arbor_in(root.path(), &["check", "--format", "github", "logs"]);
    let s = text(&out.stdout);
    let lines: Vec<&str> = s.lines().collect();
    let report: serde_json::Value =
        serde_json::from_slice(&arbor_in(root.path(), &["analyze", "--json", "logs"]).stdout).unwrap();
    let diagnostics = report["diagnostics"].as_array().unwrap();
    // One command a finding and a closing count: the line breaks in the log text made no lines.
    assert_eq!(lines.len(), diagnostics.len() + 1, "{s}");
    let evil = lines.iter().find(|l| l.contains("unknown-event-type")).unwrap();
    assert!(
        evil.starts_with("::warning file=logs/run%2C 50%25%3A ü.jsonl,line=2,title=arbor unknown-event-type::"),
        "{evil}"
    );
    assert!(evil.contains("x%0D%0A::error file=evil.jsonl") && evil.contains("%250A 50%25 a:b,c \\u{1b}[31m\\u{0}"));
    assert!(lines
        .iter()
        .any(|l| l.starts_with("::error file=logs/run%2C 50%25%3A ü.jsonl,line=5,title=arbor malformed-line::")));
    #[cfg(unix)]
    assert!(lines.iter().any(|l| l.starts_with("::error file=logs/gone.jsonl,title=arbor unreadable-input::")), "{s}");
    assert_eq!(lines.last().unwrap(), &"arbor check: 2 errors, 1 warnings, 0 info findings in 2 files");
}

#[test]
fn junit_has_a_case_per_file_and_a_failure_per_error() {
    let (root, _) = hostile_checkout();
    let out = arbor_in(root.path(), &["check", "--format", "junit", "logs"]);
    let xml = text(&out.stdout);
    assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites "), "{xml}");
    assert_eq!(xml.matches("<testcase ").count(), 2, "{xml}");
    assert_eq!(xml.matches("<failure ").count(), 2, "{xml}");
    assert!(xml.contains(r#"<testcase name="logs/run, 50%: ü.jsonl" classname="dsh-rpc""#), "{xml}");
    assert!(xml.contains(r#"<failure type="malformed-line""#));
    // The warning is not a failure by default; with --fail-on warning it is.
    assert!(xml.contains("<system-out>logs/run, 50%: ü.jsonl:2 unknown-event-type (warning)"), "{xml}");
    assert!(xml.contains("pwned &lt;&amp;&gt;&quot;&apos; ]]&gt;") && !xml.contains('\u{1b}') && !xml.contains('\0'));
    let strict = text(&arbor_in(root.path(), &["check", "--format", "junit", "--fail-on", "warning", "logs"]).stdout);
    assert_eq!(strict.matches("<failure ").count(), 3);
    assert!(strict.contains(r#"tests="2" failures="2""#), "{strict}");
}

#[test]
fn explain_prints_one_code_every_code_json_and_the_findings_page() {
    use arbor_core::finding::Code;
    let one = text(&arbor(&["explain", "child-idle-would-resolve-wait"]).stdout);
    let e = arbor_core::explain::find("child-idle-would-resolve-wait").unwrap();
    assert!(
        one.starts_with("child-idle-would-resolve-wait (warning, SPEC 2.2)\nA sub-agent's `session.idle`"),
        "{one}"
    );
    assert!(one.contains(e.why) && one.contains(e.naive) && one.contains(e.fix));
    let all = text(&arbor(&["explain"]).stdout);
    for c in Code::ALL {
        assert_eq!(all.lines().filter(|l| l.starts_with(&format!("{} ", c.as_str()))).count(), 1, "{}", c.as_str());
    }
    let json: serde_json::Value = serde_json::from_slice(&arbor(&["explain", "--json"]).stdout).unwrap();
    assert_eq!(json.as_array().unwrap().len(), Code::ALL.len());
    assert_eq!(json[9]["code"], "ancestry-cycle");
    let page = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/findings.md")).unwrap();
    assert_eq!(text(&arbor(&["explain", "--markdown"]).stdout), page.replace("\r\n", "\n"));
}

#[test]
fn findings_of_files_that_share_a_name_in_the_report_are_placed_in_their_own_file() {
    // Two opened folders named `logs`: the report calls both files `logs/run.jsonl`.
    let root = tempfile::tempdir().unwrap();
    let clean = std::fs::read(case("dsh-rpc-two-level").join("run.jsonl")).unwrap();
    let bad = std::fs::read(case("dsh-rpc-bad-ancestry").join("run.jsonl")).unwrap();
    for (dir, log) in [("a", &clean), ("b", &bad)] {
        std::fs::create_dir_all(root.path().join(dir).join("logs")).unwrap();
        std::fs::write(root.path().join(dir).join("logs/run.jsonl"), log).unwrap();
    }
    let out = arbor_in(root.path(), &["check", "--format", "github", "a/logs", "b/logs"]);
    let s = text(&out.stdout);
    assert!(s.contains("::error file=b/logs/run.jsonl,line=4,title=arbor ancestry-cycle::"), "{s}");
    assert!(!s.contains("file=a/logs/run.jsonl,line=4,"), "{s}");
    let xml = text(&arbor_in(root.path(), &["check", "--format", "junit", "a/logs", "b/logs"]).stdout);
    let a = xml.find(r#"<testcase name="a/logs/run.jsonl""#).unwrap();
    let b = xml.find(r#"<testcase name="b/logs/run.jsonl""#).unwrap();
    assert!(
        a < b && !xml[a..b].contains("<failure ") && xml[b..].contains("<failure type=\"ancestry-cycle\""),
        "{xml}"
    );
}

/// A folder of independent sessions: two Copilot session folders, a dsh sessions folder's
/// root with its children and an orphan, and a recording with errors.
fn sessions_folder() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let copy = |from: PathBuf, to: &str| {
        let to = d.path().join(to);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(from, to).unwrap();
    };
    copy(case("copilot-events-saved").join("events.jsonl"), "s-copilot/events.jsonl");
    copy(case("builtin-sample").join("copilot-sdk.jsonl"), "s-sample/copilot-sdk.jsonl");
    copy(case("builtin-sample").join("delegation.jsonl"), "s-sample/delegation.jsonl");
    for f in ["root.jsonl", "child1.jsonl", "child2.jsonl", "orphan.jsonl"] {
        copy(case("dsh-session-folder").join(f), f);
    }
    copy(case("dsh-rpc-bad-ancestry").join("run.jsonl"), "bad/run.jsonl");
    d
}

#[test]
fn analyze_each_writes_one_report_a_unit_in_order_each_as_if_read_alone_then_a_total() {
    let d = sessions_folder();
    let dir = d.path().to_str().unwrap();
    let out = arbor(&["analyze", "--json", "--each", "--jobs", "3", dir]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let lines: Vec<serde_json::Value> = text(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let units: Vec<&str> = lines.iter().filter_map(|l| l["unit"].as_str()).collect();
    assert_eq!(units, ["bad", "orphan.jsonl", "root.jsonl", "s-copilot", "s-sample"]);
    // Each report is the one its unit alone gives, its files named under the folder.
    for line in &lines[..5] {
        let unit = line["unit"].as_str().unwrap();
        let mut alone = match unit {
            "root.jsonl" => {
                let files = ["child1.jsonl", "child2.jsonl", "root.jsonl"].map(|f| d.path().join(f));
                let args: Vec<&str> = files.iter().map(|p| p.to_str().unwrap()).collect();
                arbor_in(d.path(), &[&["analyze", "--json"][..], &args].concat())
            }
            "orphan.jsonl" => arbor_in(d.path(), &["analyze", "--json", "orphan.jsonl"]),
            folder => arbor_in(d.path(), &["analyze", "--json", folder]),
        };
        if unit.starts_with("s-") || unit == "bad" {
            // A folder opened alone names its files relative to itself.
            let fixed = text(&alone.stdout).replace("\"file\": \"", &format!("\"file\": \"{unit}/"));
            alone.stdout = fixed.into_bytes();
        } else {
            let fixed = text(&alone.stdout).replace(&format!("{}/", d.path().display()), "");
            alone.stdout = fixed.into_bytes();
        }
        let alone: serde_json::Value = serde_json::from_slice(&alone.stdout).unwrap();
        let mut each = line.clone();
        each.as_object_mut().unwrap().remove("unit");
        assert_eq!(each, alone, "{unit}");
    }
    let total = &lines[5]["total"];
    assert_eq!((total["units"].as_u64(), total["files"].as_u64()), (Some(5), Some(8)), "{total}");
    assert!(total["diagnostics"]["error"].as_u64().unwrap() > 0);
    assert_eq!(lines.len(), 6);
    // The order does not depend on how many run at once.
    let one = arbor(&["analyze", "--json", "--each", "--jobs", "1", dir]);
    assert_eq!(one.stdout, out.stdout);
}

#[test]
fn check_each_fails_when_a_unit_fails_and_every_format_holds_every_units_findings() {
    let d = sessions_folder();
    let dir = d.path().to_str().unwrap();
    let whole = arbor_in(d.path(), &["check", "--format", "json", "--fail-on", "never", "."]);
    let each = arbor_in(d.path(), &["check", "--each", "--format", "json", "--fail-on", "never", "."]);
    let sorted = |o: &Output| {
        let mut v: Vec<String> = text(&o.stdout).lines().map(str::to_owned).collect();
        v.sort();
        v
    };
    // The same findings as one reading of the folder: its units share nothing.
    assert_eq!(sorted(&each), sorted(&whole));
    assert!(text(&each.stderr).contains("arbor check: 5 units (8 files"), "{}", text(&each.stderr));
    let out = arbor(&["check", "--each", dir]);
    assert_eq!(out.status.code(), Some(1));
    let s = text(&out.stdout);
    assert!(s.contains("== bad\nErrors") && s.contains("bad/run.jsonl:4  ancestry-cycle"), "{s}");
    // A unit without findings prints nothing.
    let quiet = tempfile::tempdir().unwrap();
    std::fs::create_dir(quiet.path().join("empty")).unwrap();
    std::fs::copy(case("dsh-rpc-two-level").join("run.jsonl"), quiet.path().join("two.jsonl")).unwrap();
    let q = text(&arbor(&["check", "--each", quiet.path().to_str().unwrap()]).stdout);
    assert!(!q.contains("== two.jsonl") || q.contains("Errors") || q.contains("Warnings") || q.contains("Info"), "{q}");
    assert!(q.trim_end().ends_with("info findings") && q.contains("1 units (1 files"), "{q}");
    assert!(s.trim_end().ends_with("info findings"), "{s}");
    let sarif = arbor(&["check", "--each", "--format", "sarif", "--fail-on", "never", dir]);
    let log: serde_json::Value = serde_json::from_slice(&sarif.stdout).unwrap();
    assert_eq!(log["runs"][0]["results"].as_array().unwrap().len(), sorted(&whole).len());
    let junit = text(&arbor(&["check", "--each", "--format", "junit", dir]).stdout);
    assert_eq!(junit.matches("<testsuite ").count(), 5);
    assert!(junit.contains(r#"<testsuite name="bad" tests="1" failures="1""#), "{junit}");
    let github = text(&arbor(&["check", "--each", "--format", "github", dir]).stdout);
    assert_eq!(github.lines().filter(|l| l.starts_with("::")).count(), sorted(&whole).len());
    assert!(github.trim_end().lines().last().unwrap().starts_with("arbor check: "));
    // Nothing readable in any unit: exit 2.
    let empty = tempfile::tempdir().unwrap();
    std::fs::write(empty.path().join("notes.jsonl"), "{\"hello\":1}\n").unwrap();
    assert_eq!(arbor(&["check", "--each", empty.path().to_str().unwrap()]).status.code(), Some(2));
}

#[test]
fn analyze_prints_a_sessions_tree_with_its_labels_and_the_json_report_its_links() {
    let tree = case("codex-thread-spawn");
    let out = arbor(&["analyze", tree.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let summary = text(&out.stdout);
    assert!(summary.contains("worker-id \"Nash\""), "{summary}");
    assert!(summary.contains("tally-id \"tally\""), "{summary}");
    assert!(summary.contains("No findings."), "{summary}");
    let out = arbor(&["analyze", "--json", tree.to_str().unwrap()]);
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(r["inputs"].as_array().unwrap().iter().all(|i| i["format"] == "codex"));
    let worker = r["sessions"].as_array().unwrap().iter().find(|s| s["id"] == "worker-id").unwrap();
    assert_eq!(worker["runs"][0]["link"], "thread-spawn");
    assert_eq!(worker["runs"][0]["received"]["text"], "forty  two");
    assert_eq!(r["usage"]["total"]["output"], 38);
}

#[test]
fn check_fails_on_disagreeing_links_and_passes_a_clean_tree() {
    let out = arbor(&["check", case("codex-links-disagree").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).contains("p2.jsonl:3  subagent-links-disagree"), "{}", text(&out.stdout));
    let out = arbor(&["check", case("codex-thread-spawn").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    // A review sub-agent opened alone is only a warning: it does not fail the check by default.
    let alone = case("codex-review-window").join("review-b.jsonl");
    let out = arbor(&["check", "--format", "json", alone.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).contains("\"subagent-link-inferred\""), "{}", text(&out.stdout));
}

#[test]
fn claude_code_projects_are_summarised_with_each_runs_link_and_checked() {
    let out = arbor(&["analyze", case("claude-code-subagents-meta").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let s = text(&out.stdout);
    assert!(s.contains("    a1 \"crates\"  [ok]  via meta"), "{s}");
    assert!(s.contains("      a2 \"lines\"  [ok]  via meta"), "{s}");
    assert!(s.contains("s-root turn 1 at s-root.jsonl:5  \"Done: three crates.\""), "{s}");
    let out = arbor(&["analyze", case("claude-code-agent-files").to_str().unwrap()]);
    assert!(text(&out.stdout).contains("b3  [open]  via inferred"), "{}", text(&out.stdout));
    // Disagreeing links are errors: check fails; an inferred link is a warning: it passes.
    let out = arbor(&["check", case("claude-code-links-disagree").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).contains("s-d.jsonl:4  subagent-links-disagree"), "{}", text(&out.stdout));
    let out = arbor(&["check", case("claude-code-agent-files").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    // One session file opened alone brings its own sub-agents along.
    let one = case("claude-code-subagents-meta").join("s-root.jsonl");
    let out = arbor(&["analyze", "--json", one.to_str().unwrap()]);
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["inputs"].as_array().unwrap().len(), 5);
    assert_eq!(r["sessions"].as_array().unwrap().len(), 3);
}

#[test]
fn transcript_shows_a_codex_model_calls_tokens_and_model_and_a_spawns_acknowledgement_as_a_tool_result() {
    let rollout = case("codex-turns-usage").join("rollout.jsonl");
    let out = arbor(&["transcript", rollout.to_str().unwrap(), "--session", "U"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let shown = text(&out.stdout);
    assert!(
        shown.contains("rollout.jsonl:7 turn a step 1 model call gpt-5 · tokens in 100 out 10 cache read 0 write 0"),
        "{shown}"
    );
    let out = arbor(&["transcript", rollout.to_str().unwrap(), "--session", "U", "--json"]);
    let calls: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|i| i["kind"] == "usage")
        .collect();
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert_eq!((calls[1]["usage"]["input"].as_u64(), calls[1]["model"].as_str()), (Some(70), Some("gpt-5")));
    // The spawn's output names the child, and is no reply: what came back is the notification.
    let parent = case("codex-activity-link").join("parent.jsonl");
    let out = arbor(&["transcript", parent.to_str().unwrap(), "--session", "P"]);
    let shown = text(&out.stdout);
    assert!(
        shown.contains("parent.jsonl:5 turn p1 tool result [C]")
            && shown.contains("parent.jsonl:6 turn p1 received [C]"),
        "{shown}"
    );
}

/// A dsh-rpc recording of one session named `id` whose turn never ends (an `unclosed-at-end`
/// warning) and whose second line is not JSON (a `malformed-line` error).
fn small_log(id: &str) -> String {
    let ev = |seq: u32, ty: &str, data: serde_json::Value| {
        serde_json::json!({"method": "session.event", "params": {"sessionId": id,
            "event": {"type": ty, "seq": seq, "time": seq, "data": data}}})
        .to_string()
    };
    [ev(0, "turn/start", serde_json::json!({"turn": 1})), "{not json".to_owned()].join("\n") + "\n"
}

/// File names that are not UTF-8 stay apart in every output: each byte outside UTF-8 is
/// `\xNN` and a backslash `\\` (`reader::path_text`), in the JSON report, the text, and SARIF
/// (whose URIs percent-encode the name's own bytes). Once both files printed as `a\u{fffd}.jsonl`
/// and their findings could not be told apart.
#[cfg(unix)]
#[test]
fn file_names_that_are_not_utf8_stay_distinct_in_json_text_and_sarif() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs");
    std::fs::create_dir(&logs).unwrap();
    let names: [&[u8]; 3] = [b"a\xfe.jsonl", b"a\xff.jsonl", b"a\\xff.jsonl"];
    for (i, n) in names.iter().enumerate() {
        std::fs::write(logs.join(std::ffi::OsStr::from_bytes(n)), small_log(&format!("s{i}"))).unwrap();
    }
    let shown = ["a\\\\xff.jsonl", "a\\xfe.jsonl", "a\\xff.jsonl"];
    let out = arbor(&["analyze", "--json", logs.to_str().unwrap()]);
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let files: Vec<&str> = r["inputs"].as_array().unwrap().iter().map(|i| i["file"].as_str().unwrap()).collect();
    assert_eq!(files, shown);
    let mut at: Vec<&str> =
        r["diagnostics"].as_array().unwrap().iter().map(|d| d["at"]["file"].as_str().unwrap()).collect();
    at.sort();
    at.dedup();
    assert_eq!(at, shown, "each file's findings name it");
    let out = arbor(&["check", logs.to_str().unwrap()]);
    let said = text(&out.stdout);
    for s in shown {
        assert!(said.contains(&format!("{s}:2")), "{s} in {said}");
    }
    assert!(!said.contains('\u{fffd}'), "{said}");
    let out = arbor_in(dir.path(), &["check", "--format", "sarif", "--root", ".", "logs"]);
    let log: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut uris: Vec<&str> = log["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].as_str().unwrap())
        .collect();
    uris.sort();
    uris.dedup();
    assert_eq!(uris, ["logs/a%5Cxff.jsonl", "logs/a%FE.jsonl", "logs/a%FF.jsonl"]);
}

/// Bidi controls in log text (here a session id and a file name) are shown as `<U+202E>` in
/// every text output, not applied: `file<U+202E>gpj.exe` cannot read as `fileexe.jpg`. The JSON
/// report keeps the text as it is.
#[test]
fn bidi_controls_are_shown_not_applied_in_text_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let id = "file\u{202e}gpj.exe\u{2066}x\u{2069}";
    let name = "run\u{202e}lmth.jsonl";
    let path = dir.path().join(name);
    std::fs::write(&path, small_log(id)).unwrap();
    let p = path.to_str().unwrap();
    let is_bidi = |c: char| matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
    for args in
        [&["analyze", p][..], &["check", p], &["check", "--format", "github", p], &["watch", "--idle", "100ms", p]]
    {
        let out = arbor(args);
        let said = text(&out.stdout);
        assert!(!said.contains(is_bidi), "{args:?}: {said}");
        assert!(said.contains("run<U+202E>lmth.jsonl"), "{args:?}: {said}");
        if args[0] == "analyze" {
            assert!(said.contains("file<U+202E>gpj.exe<U+2066>x<U+2069>"), "{said}");
        }
    }
    let out = arbor(&["analyze", "--json", p]);
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["sessions"][0]["id"], id);
    // A transcript: its places and its text.
    let claude = std::fs::read_to_string(case("claude-code-turns-usage").join("s-u.jsonl")).unwrap();
    let cc = dir.path().join("cc\u{202e}.jsonl");
    std::fs::write(&cc, claude.replace("Question one", "Question \u{202e}one")).unwrap();
    let out = arbor(&["transcript", "--session", "s-u", cc.to_str().unwrap()]);
    let said = text(&out.stdout);
    assert!(!said.contains(is_bidi), "{said}");
    assert!(said.contains("cc<U+202E>.jsonl:1") && said.contains("Question <U+202E>one"), "{said}");
}
