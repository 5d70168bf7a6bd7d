#!/usr/bin/env python3
"""`arbor check`'s CI formats read back by their real consumers' rules.

usage: ci_formats.py [ARBOR]     (ARBOR: the binary, default target/debug/arbor)

Run by scripts/test in the virtual environment of tests/python-requirements.txt. For each input
(every conformance case, the corpus, the hostile log, and a checkout made here whose log has
hostile text in its file name and its findings), `arbor check` is run in every format and:
- sarif: validated against the OASIS SARIF 2.1.0 JSON schema with `jsonschema` (draft 7, with its
  format checker, `uri` and `uri-reference` included), the schema taken from the serde-sarif package
  that `cargo metadata` fetches from crates.io for tests/sarif-schema/; then held to what GitHub code
  scanning requires of an upload (rules with id, short and full description and help; results with
  a message and a location), and each result matched to its finding in `--format json`;
- junit: parsed by `junitparser` (the stdlib XML parser underneath), a test case per input file and
  a failure per failing finding, with its code and message;
- github: each line parsed as the Actions runner parses a workflow command, unescaped, and matched
  to its finding.
A broken SARIF log and a broken XML document must be refused, so a validator that accepts
everything would fail here too. Prints one line per check and closes with 'N passed, N failed';
exits 1 when any check failed.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unicodedata
import urllib.parse
from pathlib import Path

import jsonschema
from junitparser import Failure, JUnitXml

REPO = Path(__file__).resolve().parent.parent
ARBOR = Path(sys.argv[1] if len(sys.argv) > 1 else REPO / "target/debug/arbor").resolve()
LEVEL = {"error": "error", "warning": "warning", "info": "note"}
COMMAND = {"error": "error", "warning": "warning", "info": "notice"}
results = {"passed": 0, "failed": 0}


def check(name, ok, detail=""):
    results["passed" if ok else "failed"] += 1
    print(f"{'ok  ' if ok else 'FAIL'} {name}" + (f": {detail}" if detail and not ok else ""))
    return ok


def sarif_schema():
    """The SARIF 2.1.0 schema shipped in the serde-sarif crate, fetched by cargo from crates.io."""
    manifest = REPO / "tests/sarif-schema/Cargo.toml"
    meta = json.loads(subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--locked", "--manifest-path", str(manifest)],
        check=True, capture_output=True, text=True).stdout)
    pkg = next(p for p in meta["packages"] if p["name"] == "serde-sarif")
    schema = json.loads((Path(pkg["manifest_path"]).parent / "src/schema.json").read_text())
    assert schema["$id"].endswith("/sarif-schema-2.1.0.json"), schema["$id"]
    assert schema["title"].startswith("Static Analysis Results Format (SARIF) Version 2.1.0"), schema["title"]
    return schema


def arbor(cwd, *args):
    return subprocess.run([str(ARBOR), *args], cwd=cwd, capture_output=True)


def lines_of(out):
    """Lines as a runner or a JSON Lines reader cuts them: at LF alone (str.splitlines would also cut
    at NEL and U+2028, which log text may hold)."""
    text = out.decode() if isinstance(out, bytes) else out
    return text.removesuffix("\n").split("\n") if text else []


def inert(s):
    """What `arbor` does to log text before a format escapes it: control characters other than
    line breaks and tabs written out as \\u{hex}."""
    return "".join(c if c in "\n\r\t" or unicodedata.category(c) != "Cc" else "\\u{%x}" % ord(c) for c in s)


def parse_workflow_command(line):
    """A line as the Actions runner reads a `::name k=v,k=v::data` command, values unescaped
    (ActionCommand.TryParseV2: data unescapes %0D %0A %25; properties also %3A %2C)."""
    if not line.startswith("::"):
        return None
    end = line.index("::", 2)
    head, data = line[2:end], line[end + 2:]
    name, _, props = head.partition(" ")

    def unescape(v, prop):
        pairs = [("%0D", "\r"), ("%0A", "\n")] + ([("%3A", ":"), ("%2C", ",")] if prop else []) + [("%25", "%")]
        for a, b in pairs:
            v = v.replace(a, b)
        return v

    properties = {}
    for kv in filter(None, props.split(",")):
        k, _, v = kv.partition("=")
        properties[k] = unescape(v, True)
    return name, properties, unescape(data, False)


def validate_sarif(label, validator, log, findings, root):
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.absolute_path))
    check(f"{label}: sarif is valid SARIF 2.1.0", not errors,
          "; ".join(f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors[:5]))
    run = log["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    missing = [r.get("id") for r in rules
               if not all(r.get(k, {}).get("text", "").strip() for k in ("shortDescription", "fullDescription", "help"))
               or len(r["shortDescription"]["text"]) > 1024 or len(r["fullDescription"]["text"]) > 1024]
    check(f"{label}: sarif rules carry what code scanning requires",
          bool(log.get("$schema")) and run["tool"]["driver"]["name"] == "arbor" and rules and not missing, missing)
    res = run["results"]
    bad = []
    for r, d in zip(res, findings):
        loc = r["locations"][0]["physicalLocation"]
        uri = loc["artifactLocation"]["uri"]
        file = Path(root) / urllib.parse.unquote(uri)
        want_region = d["at"]["line"] > 0
        if (r["ruleId"] != d["code"] or rules[r["ruleIndex"]]["id"] != d["code"]
                or rules[r["ruleIndex"]]["defaultConfiguration"]["level"] != LEVEL[d["severity"]]
                or r["level"] != LEVEL[d["severity"]] or r["message"]["text"] != d["message"]
                or not r["message"]["text"].strip() or urllib.parse.urlsplit(uri).scheme
                or ("region" in loc) != want_region
                or (want_region and (loc["region"]["startLine"] != d["at"]["line"] or not file.is_file()))
                or not file.name.endswith(Path(d["at"]["file"]).name)):
            bad.append((r, d))
    check(f"{label}: sarif has one result per finding, at its line, relative to the root",
          len(res) == len(findings) and not bad, bad[:1] or f"{len(res)} results, {len(findings)} findings")


def validate_junit(label, xml, findings, inputs, root, fail_on, units=1):
    """`units`: the suites expected, one per unit of `--each`, else one."""
    failing = {"error": {"error"}, "warning": {"error", "warning"}}[fail_on]
    doc = JUnitXml.fromstring(xml)
    suites = list(doc)
    cases = [c for s in suites for c in s]
    check(f"{label}: junit ({fail_on}) has one test case per input file",
          len(suites) == units and len(cases) == len(inputs) == sum(int(s.tests) for s in suites)
          and all(int(s.tests) == len(list(s)) for s in suites), f"{len(cases)} cases, {len(inputs)} inputs")
    bad = []
    failed_cases = 0
    for case, i in zip(cases, inputs):
        path = Path(root) / case.name
        mine = [d for d in findings if d["at"]["file"] == i["file"]]
        want = [(d["code"], d["message"]) for d in mine if d["severity"] in failing]
        got = [(r.type, r.message) for r in case.result if isinstance(r, Failure)]
        want = [(c, inert(m)) for c, m in want]
        failed_cases += bool(got)
        if got != want or case.classname != i["format"] or not (path.exists() or path.is_symlink()):
            bad.append((case.name, got, want))
        others = [d for d in mine if d["severity"] not in failing]
        if others and not all(f"{d['code']} ({d['severity']})" in (case.system_out or "") for d in others):
            bad.append((case.name, "system-out", case.system_out))
    check(f"{label}: junit ({fail_on}) has a failure per failing finding, with its code and message",
          not bad and sum(int(s.failures) for s in suites) == failed_cases, bad[:1])


def validate_github(label, out, findings, root):
    lines = lines_of(out)
    bad = []
    for line, d in zip(lines, findings):
        cmd = parse_workflow_command(line)
        if cmd is None:
            bad.append(line)
            continue
        name, props, message = cmd
        want = d["message"] + (f" (session {d['session']})" if d["session"] is not None else "")
        line_ok = props.get("line") == (str(d["at"]["line"]) if d["at"]["line"] else None)
        file = Path(root) / props.get("file", "")
        if (name != COMMAND[d["severity"]] or message != inert(want) or not line_ok
                or props.get("title") != f"arbor {d['code']}" or not (file.exists() or file.is_symlink())):
            bad.append((line, props, message, want))
    check(f"{label}: github has one workflow command per finding, unescaped to its text",
          len(lines) == len(findings) + 1 and not bad and parse_workflow_command(lines[-1]) is None, bad[:1])


def run_all(label, validator, cwd, root, *paths):
    root_args = ["--root", str(root)]
    report = json.loads(arbor(cwd, "analyze", "--json", *paths).stdout)
    json_lines = lines_of(arbor(cwd, "check", "--format", "json", *paths).stdout)
    findings = [json.loads(l) for l in json_lines]
    check(f"{label}: json lines are the report's diagnostics", findings == report["diagnostics"])
    sarif = arbor(cwd, "check", "--format", "sarif", *root_args, *paths)
    validate_sarif(label, validator, json.loads(sarif.stdout), findings, root)
    for fail_on in ("error", "warning"):
        junit = arbor(cwd, "check", "--format", "junit", "--fail-on", fail_on, *root_args, *paths)
        validate_junit(label, junit.stdout, findings, report["inputs"], root, fail_on)
    github = arbor(cwd, "check", "--format", "github", *root_args, *paths)
    validate_github(label, github.stdout, findings, root)
    return findings


def run_each(label, validator, cwd, root, folder):
    """`--each`: a folder's units one after the other, held to the same consumers."""
    root_args = ["--root", str(root)]
    lines = [json.loads(l) for l in lines_of(arbor(cwd, "analyze", "--json", "--each", folder).stdout)]
    reports, total = lines[:-1], lines[-1].get("total", {})
    inputs = [i for r in reports for i in r["inputs"]]
    diagnostics = [d for r in reports for d in r["diagnostics"]]
    findings = [json.loads(l) for l in lines_of(arbor(cwd, "check", "--each", "--format", "json", folder).stdout)]
    check(f"{label} (--each): json lines are the units' diagnostics, in the units' order, then the total",
          findings == diagnostics and total.get("units") == len(reports) == len({r["unit"] for r in reports})
          and [r["unit"] for r in reports] == sorted(r["unit"] for r in reports), total)
    sarif = arbor(cwd, "check", "--each", "--format", "sarif", *root_args, folder)
    validate_sarif(f"{label} (--each)", validator, json.loads(sarif.stdout), findings, root)
    for fail_on in ("error", "warning"):
        junit = arbor(cwd, "check", "--each", "--format", "junit", "--fail-on", fail_on, *root_args, folder)
        validate_junit(f"{label} (--each)", junit.stdout, findings, inputs, root, fail_on, units=len(reports))
    github = arbor(cwd, "check", "--each", "--format", "github", *root_args, folder)
    validate_github(f"{label} (--each)", github.stdout, findings, root)


def hostile_checkout(tmp):
    """A checkout whose log has a file name with `,`, `:`, `%` and a space, an unknown event type
    that carries a fake workflow command, markup, escapes and control characters, a line that is
    not JSON, and a link to nothing (a finding at line 0)."""
    logs = tmp / "logs"
    logs.mkdir()
    evil = "x\r\n::error file=evil.jsonl,line=1::pwned <&>\"' ]]> %0A %25 50% a:b,c \u001b[31m\u0000\u0085 ü"

    def ev(seq, ty, data):
        return json.dumps({"method": "session.event", "params": {"sessionId": "r<o>ot,%:",
                           "event": {"type": ty, "seq": seq, "time": seq, "data": data}}})

    lines = [ev(0, "turn/start", {"turn": 1}), ev(1, evil, {}),
             ev(2, "turn/end", {"turn": 1, "reason": {"kind": "completed"}}), "{not json"]
    (logs / "run, 50%: ü.jsonl").write_text("\n".join(lines) + "\n")
    os.symlink(tmp / "gone", logs / "gone.jsonl")
    return logs


def main():
    if not ARBOR.is_file():
        sys.exit(f"no arbor binary at {ARBOR}: build it first (cargo build -p arbor-cli)")
    schema = sarif_schema()
    validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    check("the schema is a valid draft-7 schema", not list(jsonschema.Draft7Validator(
        jsonschema.Draft7Validator.META_SCHEMA).iter_errors(schema)))

    cases = sorted((REPO / "tests/conformance/cases").glob("*/input"))
    for c in cases:
        inputs = sorted(c.iterdir())
        arg = inputs[0] if len(inputs) == 1 else c
        run_all(c.parent.name, validator, REPO, REPO, str(arg.relative_to(REPO)))
    run_all("corpus", validator, REPO, REPO, "tests/corpus")
    run_all("hostile markup", validator, REPO, REPO, "tests/hostile")
    # Every case's files at once (as files: folders that share a name, here all `input`, give files
    # the same name in the report, which tests/cli.rs covers).
    all_files = [str(f.relative_to(REPO)) for c in cases for f in sorted(c.rglob("*.jsonl"))]
    run_all("every case at once", validator, REPO, REPO, *all_files)
    run_each("every case, one at a time", validator, REPO, REPO, "tests/conformance/cases")
    run_each("the dsh corpus, one example at a time", validator, REPO, REPO, "tests/corpus/deepseek-harness")

    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        logs = hostile_checkout(tmp)
        # From inside the logs folder, with the checkout as the root.
        findings = run_all("hostile checkout", validator, logs, tmp, ".")
        check("hostile checkout: has its error, warning and unreadable findings",
              {"malformed-line", "unknown-event-type", "unreadable-input"} <= {d["code"] for d in findings},
              [d["code"] for d in findings])
        gh = lines_of(arbor(logs, "check", "--format", "github", "--root", str(tmp), ".").stdout)
        check("hostile checkout: no log text starts a workflow command of its own",
              sum(l.startswith("::") for l in gh) == len(findings)
              and all("::error file=evil.jsonl" not in l.split("::", 2)[1] for l in gh[:-1]), gh)

        # The consumers refuse what is broken.
        log = json.loads(arbor(logs, "check", "--format", "sarif", "--root", str(tmp), ".").stdout)
        broken = json.loads(json.dumps(log))
        broken["runs"][0]["results"][0]["level"] = "info"
        del broken["runs"][0]["tool"]["driver"]["name"]
        broken["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] = "a b"
        check("a broken SARIF log is refused by the validator", len(list(validator.iter_errors(broken))) == 3)
        xml = arbor(logs, "check", "--format", "junit", "--root", str(tmp), ".").stdout
        try:
            JUnitXml.fromstring(xml.replace(b"</testsuite>", b"\x1b</testsuite>"))
            refused = False
        except Exception:
            refused = True
        check("a document with a raw control character is refused by the XML parser", refused)

    print(f"{results['passed']} passed, {results['failed']} failed")
    sys.exit(1 if results["failed"] else 0)


if __name__ == "__main__":
    main()
