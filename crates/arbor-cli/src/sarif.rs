//! `arbor check --format sarif`: the findings as a SARIF 2.1.0 log, for GitHub code scanning and
//! other SARIF consumers.
//!
//! One rule per finding code, every code of the catalog (a consumer sees the same rules in every
//! run; only the results change), with the catalog's title, explanation and severity. One result
//! per finding, at its file relative to `--root` and its line; a finding at line 0 (a path that
//! could not be read) has a location without a region. `partialFingerprints` are left to the
//! consumer: GitHub's upload action computes them from the files, as for any tool.

use crate::check::Check;
use arbor_core::explain::{self, Explanation};
use arbor_core::finding::Code;
use arbor_core::report::Severity;
use serde_json::{json, Map, Value};
use std::io::{self, Write};

/// The schema GitHub's documentation names for SARIF 2.1.0.
const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// The `uriBaseId` of every relative location: the `--root`, given in `originalUriBaseIds`.
const ROOT: &str = "%SRCROOT%";

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// GitHub's `problem.severity` for a result that is not a security finding.
fn problem_severity(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "recommendation",
    }
}

/// `ancestry-cycle` → `AncestryCycle`: SARIF's `name` is an identifier-like form of the rule.
fn rule_name(code: &str) -> String {
    code.split('-')
        .flat_map(|w| w.char_indices().map(move |(i, c)| if i == 0 { c.to_ascii_uppercase() } else { c }))
        .collect()
}

fn rule(e: &Explanation) -> Value {
    json!({
        "id": e.code,
        "name": rule_name(e.code),
        "shortDescription": {"text": e.title},
        "fullDescription": {"text": e.why},
        "help": {
            "text": format!("{}\nSPEC {}.", e.text(), e.spec),
            "markdown": format!("{}\nSPEC {}.", e.markdown(), e.spec),
        },
        "defaultConfiguration": {"level": level(e.severity)},
        "properties": {
            "tags": ["arbor", format!("spec-{}", e.spec.split(", ").next().unwrap_or(e.spec))],
            "precision": "very-high",
            "problem.severity": problem_severity(e.severity),
        },
    })
}

pub fn write(out: &mut impl Write, c: &Check) -> io::Result<()> {
    let (head, tail) = frame(&c.root_uri);
    out.write_all(head.as_bytes())?;
    results(out, c)?;
    out.write_all(tail.as_bytes())
}

/// The log around its results: everything before the first result and after the last, so that
/// `arbor check --each` can write the results of one part of a folder at a time between them.
pub fn frame(root_uri: &str) -> (String, String) {
    let catalog = explain::catalog();
    let rules: Vec<Value> = catalog.iter().map(rule).collect();
    let log = json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "arbor",
                "version": arbor_core::VERSION,
                "semanticVersion": arbor_core::VERSION,
                "rules": rules,
            }},
            "originalUriBaseIds": {ROOT: {
                "uri": root_uri,
                "description": {"text": "The root the log paths are relative to (arbor check --root)."},
            }},
            "results": [],
        }],
    });
    let text = serde_json::to_string_pretty(&log).unwrap_or_default();
    // `results` is the run's last member (serde_json keeps the order written), so the last
    // empty array in the text is its value.
    let at = text.rfind("\"results\": []").map_or(text.len(), |i| i + "\"results\": [".len());
    (format!("{}\n", &text[..at]), format!("\n{}\n", &text[at..]))
}

/// The results of one check, one a line, separated by commas (nothing when there are none).
pub fn results(out: &mut impl Write, c: &Check) -> io::Result<()> {
    for (i, &(file, d)) in c.findings.iter().enumerate() {
        let f = &c.files[file];
        let mut artifact = Map::new();
        artifact.insert("uri".into(), f.uri.clone().into());
        if f.under_root {
            artifact.insert("uriBaseId".into(), ROOT.into());
        }
        let mut physical = Map::new();
        physical.insert("artifactLocation".into(), artifact.into());
        if d.at.line > 0 {
            physical.insert("region".into(), json!({"startLine": d.at.line}));
        }
        // GitHub refuses an empty message; a finding always has one, but a rule's title is
        // the better fallback than an upload that fails.
        let message = match d.message.trim() {
            "" => explain::find(&d.code).map_or(d.code.as_str(), |e| e.title).to_owned(),
            _ => d.message.clone(),
        };
        let mut result = Map::new();
        result.insert("ruleId".into(), d.code.clone().into());
        if let Some(i) = Code::ALL.iter().position(|k| k.as_str() == d.code) {
            result.insert("ruleIndex".into(), i.into());
        }
        result.insert("level".into(), level(d.severity).into());
        result.insert("message".into(), json!({"text": message}));
        result.insert("locations".into(), json!([{"physicalLocation": physical}]));
        if let Some(s) = &d.session {
            result.insert("properties".into(), json!({"session": s}));
        }
        if i > 0 {
            out.write_all(b",\n")?;
        }
        out.write_all(b"        ")?;
        serde_json::to_writer(&mut *out, &Value::Object(result))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::rule_name;

    #[test]
    fn a_rule_name_is_the_code_in_pascal_case() {
        assert_eq!(rule_name("ancestry-cycle"), "AncestryCycle");
        assert_eq!(rule_name("child-reply-would-replace-root-reply"), "ChildReplyWouldReplaceRootReply");
    }
}
