//! Runs every conformance case under `tests/conformance/cases` through the engine in-process, with
//! the matching rules of `../shared/conformance/check` (one data-driven helper for all cases).

use crate::common;

use serde_json::Value;
use std::collections::HashSet;

fn severity(code: &str) -> &'static str {
    arbor_core::finding::Code::ALL
        .iter()
        .find(|c| c.as_str() == code)
        .map(|c| match c.severity() {
            arbor_core::report::Severity::Error => "error",
            arbor_core::report::Severity::Warning => "warning",
            arbor_core::report::Severity::Info => "info",
        })
        .unwrap_or("?")
}

fn is_place(v: &Value) -> bool {
    v.as_object().is_some_and(|o| o.contains_key("line") && o.keys().all(|k| k == "line" || k == "file"))
}

fn same_place(want: &Value, got: &Value) -> bool {
    if want.is_null() || got.is_null() {
        return want.is_null() && got.is_null();
    }
    if got.get("line") != want.get("line") {
        return false;
    }
    match want.get("file").and_then(Value::as_str) {
        Some(f) => got.get("file").and_then(Value::as_str).is_some_and(|g| g.replace('\\', "/").ends_with(f)),
        None => true,
    }
}

/// Every key of `want` must match `got`.
fn compare(path: &str, want: &Value, got: &Value, errs: &mut Vec<String>) {
    if is_place(want) {
        if !same_place(want, got) {
            errs.push(format!("{path}: want {want}, got {got}"));
        }
        return;
    }
    match (want, got) {
        (Value::Object(w), Value::Object(g)) => {
            for (k, v) in w {
                match g.get(k) {
                    None => errs.push(format!("{path}.{k}: missing")),
                    Some(gv) => compare(&format!("{path}.{k}"), v, gv, errs),
                }
            }
        }
        (Value::Object(_), _) => errs.push(format!("{path}: want an object, got {got}")),
        (Value::Array(w), Value::Array(g)) if w.len() == g.len() => {
            for (i, (wv, gv)) in w.iter().zip(g).enumerate() {
                compare(&format!("{path}[{i}]"), wv, gv, errs);
            }
        }
        (Value::Array(w), _) => errs.push(format!("{path}: want {} entries, got {got}", w.len())),
        _ if want != got => errs.push(format!("{path}: want {want}, got {got}")),
        _ => {}
    }
}

fn check_case(exp: &Value, rep: &Value) -> Vec<String> {
    let mut errs = Vec::new();
    let empty = vec![];
    let list = |v: &Value, k: &str| -> Vec<Value> { v.get(k).and_then(Value::as_array).unwrap_or(&empty).clone() };
    if let Some(f) = exp.get("format") {
        let fmts: HashSet<String> = list(rep, "inputs").iter().map(|i| i["format"].to_string()).collect();
        if fmts != HashSet::from([f.to_string()]) {
            errs.push(format!("format: want {f}, got {fmts:?}"));
        }
    }
    if let Some(sessions) = exp.get("sessions").and_then(Value::as_array) {
        let got = list(rep, "sessions");
        let got_ids: HashSet<String> = got.iter().map(|s| s["id"].to_string()).collect();
        let want_ids: HashSet<String> = sessions.iter().map(|s| s["id"].to_string()).collect();
        if got_ids != want_ids {
            errs.push(format!("sessions: want ids {want_ids:?}, got {got_ids:?}"));
        }
        for s in sessions {
            if let Some(g) = got.iter().find(|g| g["id"] == s["id"]) {
                compare(&format!("sessions[{}]", s["id"]), s, g, &mut errs);
            }
        }
    }
    for key in ["turns", "replies"] {
        for w in list(exp, key) {
            let hits: Vec<Value> = list(rep, key)
                .into_iter()
                .filter(|t| {
                    t["session"] == w["session"]
                        && t["turn"] == w["turn"]
                        && (w.get("run").is_none() || t.get("run") == w.get("run"))
                })
                .collect();
            if hits.len() != 1 {
                errs.push(format!("{key}[{} turn {}]: {} entries in the report", w["session"], w["turn"], hits.len()));
            } else {
                compare(&format!("{key}[{} turn {}]", w["session"], w["turn"]), &w, &hits[0], &mut errs);
            }
        }
    }
    if let Some(waits) = exp.get("waits").and_then(Value::as_array) {
        let mut roots: Vec<&Value> = Vec::new();
        for w in waits {
            if !roots.contains(&&w["root"]) {
                roots.push(&w["root"]);
            }
        }
        for r in roots {
            let want: Vec<Value> = waits.iter().filter(|w| &w["root"] == r).cloned().collect();
            let got: Vec<Value> = list(rep, "waits").into_iter().filter(|w| &w["root"] == r).collect();
            compare(&format!("waits[{r}]"), &Value::Array(want), &Value::Array(got), &mut errs);
        }
    }
    if let Some(diags) = exp.get("diagnostics").and_then(Value::as_array) {
        let got = list(rep, "diagnostics");
        let mut used = HashSet::new();
        for w in diags {
            let hit = got
                .iter()
                .enumerate()
                .position(|(i, d)| !used.contains(&i) && d["code"] == w["code"] && same_place(&w["at"], &d["at"]));
            match hit {
                None => errs.push(format!("diagnostic {} at {}: not reported", w["code"], w["at"])),
                Some(i) => {
                    used.insert(i);
                    let code = w["code"].as_str().unwrap_or_default();
                    if got[i]["severity"] != severity(code) {
                        errs.push(format!(
                            "diagnostic {code}: severity {}, catalog says {}",
                            got[i]["severity"],
                            severity(code)
                        ));
                    }
                }
            }
        }
        for (i, d) in got.iter().enumerate() {
            if !used.contains(&i) && (d["severity"] == "error" || d["severity"] == "warning") {
                errs.push(format!("unexpected {} {} at {}: {}", d["severity"], d["code"], d["at"], d["message"]));
            }
        }
    }
    errs
}

/// The SQLite database `sql` makes, in `dir`, named as the script is with `.db`.
fn store_of(sql: &std::path::Path, dir: &std::path::Path) -> std::path::PathBuf {
    let db = dir.join(sql.with_extension("db").file_name().unwrap());
    let c = rusqlite::Connection::open(&db).unwrap();
    c.execute_batch(&std::fs::read_to_string(sql).unwrap()).unwrap();
    db
}

#[test]
fn every_conformance_case_matches_its_expected_report() {
    let cases = common::repo().join("tests/conformance/cases");
    let mut names: Vec<_> =
        std::fs::read_dir(&cases).unwrap().flatten().filter(|e| e.path().is_dir()).map(|e| e.file_name()).collect();
    names.sort();
    assert!(names.len() >= 8, "the cases folder lost cases: {names:?}");
    let mut failed = Vec::new();
    for name in &names {
        let dir = cases.join(name);
        let exp: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).unwrap()).unwrap();
        let mut files: Vec<_> = std::fs::read_dir(dir.join("input")).unwrap().flatten().map(|e| e.path()).collect();
        files.sort();
        let target = if files.len() == 1 { files[0].clone() } else { dir.join("input") };
        // A store of rows is kept as the SQL that makes it (text a reviewer reads and a diff
        // shows), and made here: `input/opencode.sql` is read as `opencode.db`.
        let made = tempfile::tempdir().unwrap();
        let target = match target.extension().and_then(|e| e.to_str()) {
            Some("sql") => store_of(&target, made.path()),
            _ => target,
        };
        let rep = common::report_json(&[target]);
        let errs = check_case(&exp, &rep);
        if !errs.is_empty() {
            failed.push(format!("{}:\n  {}", name.to_string_lossy(), errs.join("\n  ")));
        }
    }
    assert!(failed.is_empty(), "{} of {} cases failed:\n{}", failed.len(), names.len(), failed.join("\n"));
}

#[test]
fn the_copied_cases_match_the_shared_ones_when_shared_is_present() {
    let shared = common::repo().join("../shared/conformance/cases");
    let Ok(entries) = std::fs::read_dir(&shared) else { return };
    for e in entries.flatten() {
        let ours = common::repo().join("tests/conformance/cases").join(e.file_name()).join("expected.json");
        let theirs = e.path().join("expected.json");
        assert_eq!(
            std::fs::read_to_string(&ours).ok(),
            std::fs::read_to_string(&theirs).ok(),
            "tests/conformance/cases/{} differs from ../shared: copy it again",
            e.file_name().to_string_lossy()
        );
    }
}

#[test]
fn the_checker_itself_fails_on_a_wrong_report() {
    let exp = serde_json::json!({"sessions": [{"id": "a", "depth": 0}], "diagnostics": [{"code": "malformed-line", "at": {"line": 3}}]});
    let rep = serde_json::json!({"sessions": [{"id": "a", "depth": 1}], "diagnostics": [{"code": "ancestry-cycle", "severity": "error", "at": {"file": "x", "line": 3}}]});
    let errs = check_case(&exp, &rep);
    assert_eq!(errs.len(), 3, "{errs:?}");
}

#[test]
fn the_sample_written_out_reads_back_as_the_case_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let folder = arbor_core::sample::write_to(dir.path()).unwrap();
    let case = common::repo().join("tests/conformance/cases/builtin-sample");
    let exp: Value = serde_json::from_str(&std::fs::read_to_string(case.join("expected.json")).unwrap()).unwrap();
    let errs = check_case(&exp, &common::report_json(&[folder]));
    assert!(errs.is_empty(), "{errs:?}");
}
