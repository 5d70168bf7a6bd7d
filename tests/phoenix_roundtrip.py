#!/usr/bin/env python3
"""`arbor export --otlp-http` into a real backend, Arize Phoenix, read back through its own API.

usage: phoenix_roundtrip.py [ARBOR]     (ARBOR: the binary, default target/debug/arbor)

Run by scripts/test in the virtual environment of tests/phoenix-requirements.txt (Phoenix and
every package under it, pinned). Phoenix is started here on loopback ports picked free (HTTP and
gRPC), with its database in a temporary folder, its telemetry and every feature that reaches the
internet off, and stopped at the end.
For a corpus log of each format, `arbor export --otlp-json` writes the spans to a file and
`arbor export --otlp-http` sends the same export to Phoenix (protobuf, its only OTLP/HTTP
encoding), into a project of its own (`openinference.project.name`); then the spans are read
back with Phoenix's REST API (`GET /v1/projects/{project}/spans`) and held to the file: every
span there, with the same trace id, parent span id, name, times and `gen_ai.*`/`arbor.*`
attributes, the tree rooted in `invoke_agent` spans, each child agent under the span the mapping
says, and Phoenix's own reading of the conventions (an `invoke_agent` span is an AGENT, a `chat`
an LLM, an `execute_tool` a TOOL). A second export of the same log must not add spans (the ids
are the log's). Prints one line per check and closes with 'N passed, N failed'.
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ARBOR = Path(sys.argv[1] if len(sys.argv) > 1 else REPO / "target/debug/arbor").resolve()
CASES = REPO / "tests/conformance/cases"

# One log of each format the engine reads. A format whose reader has not landed in this arbor is
# reported as skipped (the log reads as `unknown`); adding a format is adding its line here.
LOGS = [
    ("dsh-rpc", CASES / "builtin-sample/input/delegation.jsonl"),
    ("dsh-session", CASES / "dsh-session-folder/input"),
    ("copilot-events", CASES / "copilot-events-saved/input/events.jsonl"),
    ("copilot-rpc", CASES / "builtin-sample/input/copilot-sdk.jsonl"),
    ("claude-code", REPO / "tests/corpus/claude-code"),
    ("codex", REPO / "tests/corpus/codex-cli"),
]
# What Phoenix makes of each operation (its conversion of the GenAI conventions).
KINDS = {"invoke_agent": "AGENT", "chat": "LLM", "execute_tool": "TOOL"}

results = {"passed": 0, "failed": 0, "skipped": 0}


def check(ok, what, detail=""):
    results["passed" if ok else "failed"] += 1
    print(f"{'ok  ' if ok else 'FAIL'} {what}{'' if ok or not detail else ': ' + str(detail)[:400]}")
    return ok


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url):
    with urllib.request.urlopen(url, timeout=30) as r:
        return json.loads(r.read())


def value(v):
    """An OTLP-JSON AnyValue as Python."""
    if "stringValue" in v:
        return v["stringValue"]
    if "intValue" in v:
        return int(v["intValue"])
    if "boolValue" in v:
        return v["boolValue"]
    if "doubleValue" in v:
        return v["doubleValue"]
    if "arrayValue" in v:
        return [value(x) for x in v["arrayValue"].get("values", [])]
    return None


def file_spans(path):
    spans = []
    for line in path.read_text().splitlines():
        for rs in json.loads(line)["resourceSpans"]:
            for ss in rs["scopeSpans"]:
                for s in ss["spans"]:
                    s["attrs"] = {kv["key"]: value(kv["value"]) for kv in s.get("attributes", [])}
                    spans.append(s)
    return spans


def phoenix_spans(base, project):
    spans, cursor = [], None
    while True:
        url = f"{base}/v1/projects/{project}/spans?limit=1000" + (f"&cursor={cursor}" if cursor else "")
        page = get(url)
        spans.extend(page["data"])
        cursor = page.get("next_cursor")
        if not cursor:
            return spans


def iso_ns(text):
    """Phoenix's ISO time (microseconds) as epoch nanoseconds."""
    from datetime import datetime

    return int(round(datetime.fromisoformat(text).timestamp() * 1e6)) * 1000


def arbor(*args):
    return subprocess.run([str(ARBOR), *map(str, args)], capture_output=True, text=True, timeout=300)


def format_of(path):
    out = arbor("analyze", "--json", path)
    if out.returncode != 0:
        return None
    return {i["format"] for i in json.loads(out.stdout)["inputs"]} - {"unknown"}


def roundtrip(base, fmt, log, work):
    read = format_of(log)
    if not read or fmt not in read:
        results["skipped"] += 1
        print(f"skip {fmt}: this arbor reads {log.relative_to(REPO)} as {sorted(read or ['unknown'])}")
        return
    project = f"arbor-{fmt}"
    file = work / f"{fmt}.jsonl"
    out = arbor("export", "--otlp-json", file, "--resource", f"openinference.project.name={project}", log)
    if not check(out.returncode == 0, f"{fmt}: export --otlp-json", out.stderr):
        return
    want = file_spans(file)
    out = arbor("export", "--otlp-http", f"{base}/v1/traces", "--resource", f"openinference.project.name={project}",
                "--timeout", "30", log)
    if not check(out.returncode == 0 and "spans" in out.stderr, f"{fmt}: export --otlp-http to Phoenix", out.stderr):
        return
    # Phoenix writes what it receives in the background: wait until every span is there.
    got, deadline = [], time.time() + 90
    while time.time() < deadline:
        try:
            got = phoenix_spans(base, project)
        except Exception:  # the project appears with its first span
            got = []
        if len(got) >= len(want):
            break
        time.sleep(0.5)
    check(len(got) == len(want), f"{fmt}: Phoenix holds the {len(want)} spans exported", f"{len(got)} spans")
    by_id = {g["context"]["span_id"]: g for g in got}
    missing = [s["name"] for s in want if s["spanId"] not in by_id]
    check(not missing, f"{fmt}: every span is in Phoenix by its span id", missing)
    wrong = []
    for s in want:
        g = by_id.get(s["spanId"])
        if g is None:
            continue
        if g["context"]["trace_id"] != s["traceId"]:
            wrong.append((s["name"], "trace", g["context"]["trace_id"]))
        if (g.get("parent_id") or "") != (s.get("parentSpanId") or ""):
            wrong.append((s["name"], "parent", g.get("parent_id")))
        if g["name"] != s["name"]:
            wrong.append((s["name"], "name", g["name"]))
        for t in ("start", "end"):
            if abs(iso_ns(g[f"{t}_time"]) - int(s[f"{t}TimeUnixNano"])) > 1000:
                wrong.append((s["name"], t, g[f"{t}_time"]))
        for k, v in s["attrs"].items():
            if (k.startswith("gen_ai.") or k.startswith("arbor.")) and g["attributes"].get(k) != v:
                wrong.append((s["name"], k, g["attributes"].get(k), v))
        op = s["attrs"].get("gen_ai.operation.name")
        if KINDS.get(op) and g.get("span_kind") != KINDS[op]:
            wrong.append((s["name"], "span_kind", g.get("span_kind")))
    check(not wrong, f"{fmt}: trace ids, parents, names, times, attributes and span kinds as exported", wrong[:5])
    # The tree: roots are invoke_agent spans; every other span's parent is in the same trace; a
    # child agent hangs under the execute_tool span that spawned it or under its parent's agent.
    roots = [g for g in got if not g.get("parent_id")]
    check(roots and all(r["attributes"].get("gen_ai.operation.name") == "invoke_agent" or r["name"] == "arbor findings"
                        for r in roots),
          f"{fmt}: every trace's root is an invoke_agent span (or the findings of no session)", [r["name"] for r in roots])
    bad = []
    for g in got:
        p = by_id.get(g.get("parent_id") or "")
        if g.get("parent_id") and (p is None or p["context"]["trace_id"] != g["context"]["trace_id"]):
            bad.append(g["name"])
        a = g["attributes"]
        if a.get("gen_ai.operation.name") == "invoke_agent" and p is not None:
            parent_op = p["attributes"].get("gen_ai.operation.name")
            via_call = parent_op == "execute_tool" and p["attributes"].get("arbor.spawn.child") == a.get("gen_ai.agent.id")
            via_agent = parent_op == "invoke_agent" and p["attributes"].get("gen_ai.agent.id") == a.get("arbor.session.parent")
            if not (via_call or via_agent):
                bad.append(f"{g['name']} under {p['name']}")
            if a.get("gen_ai.conversation.id") != p["attributes"].get("gen_ai.conversation.id"):
                bad.append(f"{g['name']}: another conversation")
    check(not bad, f"{fmt}: child agents hang under their spawning call or parent agent", bad[:5])
    # Exporting again sends the same ids: Phoenix has no new spans.
    arbor("export", "--otlp-http", f"{base}/v1/traces", "--resource", f"openinference.project.name={project}", log)
    time.sleep(2)
    again = phoenix_spans(base, project)
    check(len({g['context']['span_id'] for g in again}) == len(want), f"{fmt}: a second export adds no span ids",
          len(again))


def main():
    work = Path(tempfile.mkdtemp(prefix="arbor-phoenix-"))
    port, grpc = free_port(), free_port()
    base = f"http://127.0.0.1:{port}"
    env = dict(os.environ,
               PHOENIX_WORKING_DIR=str(work / "phoenix"),
               PHOENIX_HOST="127.0.0.1",
               PHOENIX_PORT=str(port),
               PHOENIX_GRPC_PORT=str(grpc),
               PHOENIX_TELEMETRY_ENABLED="false",
               # No request of Phoenix's own to the internet (fonts, its docs and GitHub tools
               # for the assistant, which it otherwise resolves at start): with these, strace
               # shows it opens no socket but its listeners.
               PHOENIX_ALLOW_EXTERNAL_RESOURCES="false",
               PHOENIX_DISABLE_AGENT_ASSISTANT="true",
               PHOENIX_AGENTS_DISABLE_GITHUB="true",
               PHOENIX_AGENTS_DISABLE_WEB_ACCESS="true",
               PHOENIX_AGENTS_DISABLE_BASH="true",
               PHOENIX_ENABLE_MCP_SERVER="false")
    phoenix = Path(sys.executable).parent / "phoenix"
    log = open(work / "phoenix.log", "w")
    started = time.time()
    server = subprocess.Popen([str(phoenix), "serve"], env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        ready = False
        while time.time() - started < 240 and server.poll() is None:
            try:
                with urllib.request.urlopen(f"{base}/healthz", timeout=5) as r:
                    ready = r.status == 200
            except Exception:
                pass
            if ready:
                break
            time.sleep(0.5)
        if not check(ready, f"Phoenix is up on {base} after {time.time() - started:.0f} s"):
            log.flush()
            print((work / "phoenix.log").read_text()[-3000:])
        else:
            for fmt, path in LOGS:
                roundtrip(base, fmt, path, work)
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()
        shutil.rmtree(work, ignore_errors=True)
    print(f"{results['passed']} passed, {results['failed']} failed, {results['skipped']} skipped")
    return 1 if results["failed"] or not results["passed"] else 0


if __name__ == "__main__":
    sys.exit(main())
