#!/usr/bin/env python3
"""`arbor usage` held to a real consumer of the same logs: ccusage (SPEC 6.2, issue 33).

usage: ccusage_roundtrip.py [ARBOR [ARBOR_GEN]]   (default target/debug/arbor, target/debug/arbor-gen)

Run by scripts/test. ccusage, pinned in tests/ccusage/package-lock.json, is installed with `npm install` (not `npm ci`: the registry here has its Linux x64 binary alone, so the lock cannot name the other platforms' optional packages that `npm ci` wants listed)
into target/ccusage-env (once; again when the lock changes) and run with `--offline` (its bundled
prices: nothing is fetched). arbor-gen writes a home folder of Claude Code projects (sub-agents,
resumed and forked sessions) and a Codex sessions tree; ccusage reads them through
`CLAUDE_CONFIG_DIR` and `CODEX_HOME`, arbor through the paths given. Held equal, to the token:
- the totals, and every day's input, output, cache read and cache write tokens, in UTC and in a
  zone far from it (Pacific/Kiritimati, UTC+14: days move);
- every project's totals (ccusage names a Claude Code project by its folder, arbor by the cwd its
  log names: the two are matched through `arbor sessions --json`, which gives both);
- every session's, except where SPEC 6.2 says they part: a resumed session's replayed chain
  counts where it was first written in arbor and in the resuming file in ccusage. Each session
  whose figures differ must be one that a resume replays (its file or the resuming one has
  `replayed-history`), and the totals agree whatever the split.
Prints one line per check and closes with 'N passed, N failed'; exit 1 on a failure.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TARGET = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
if not TARGET.is_absolute():
    TARGET = REPO / TARGET
ARBOR = Path(sys.argv[1] if len(sys.argv) > 1 else TARGET / "debug/arbor").resolve()
GEN = Path(sys.argv[2] if len(sys.argv) > 2 else ARBOR.parent / "arbor-gen").resolve()
ENV_DIR = TARGET / "ccusage-env"
PINNED = REPO / "tests/ccusage"
KINDS = [("input", "inputTokens"), ("output", "outputTokens"), ("cache_read", "cacheReadTokens"),
         ("cache_write", "cacheCreationTokens")]

results = {"passed": 0, "failed": 0}


def check(ok, what, detail=""):
    results["passed" if ok else "failed"] += 1
    print(f"{'ok  ' if ok else 'FAIL'} {what}{'' if ok or not detail else ': ' + str(detail)[:600]}")
    return ok


def install():
    """ccusage as pinned, in an npm prefix of its own; installed again only when the lock changed."""
    lock = (PINNED / "package-lock.json").read_bytes()
    stamp = ENV_DIR / ".lock"
    if stamp.exists() and stamp.read_bytes() == lock and (ENV_DIR / "node_modules/.bin/ccusage").exists():
        return ENV_DIR / "node_modules/.bin/ccusage"
    if ENV_DIR.exists():
        shutil.rmtree(ENV_DIR)
    ENV_DIR.mkdir(parents=True)
    for f in ("package.json", "package-lock.json"):
        shutil.copy(PINNED / f, ENV_DIR / f)
    subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--loglevel=error"], cwd=ENV_DIR, check=True)
    stamp.write_bytes(lock)
    return ENV_DIR / "node_modules/.bin/ccusage"


def run(cmd, env=None):
    r = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(map(str, cmd))} exited {r.returncode}:\n{r.stderr[-2000:]}")
    return r.stdout


def arbor_lines(*args):
    return [json.loads(line) for line in run([ARBOR, *args]).splitlines() if line.strip()]


def ccusage(tool, report, home, tz, *extra):
    """`ccusage TOOL REPORT` (`ccusage daily`: every agent it finds, with REPORT `--json`)."""
    env = dict(os.environ, CLAUDE_CONFIG_DIR=str(home / ".claude"), CODEX_HOME=str(home / ".codex"),
               HOME=str(home), NO_COLOR="1")
    args = [tool, report] if report != "--json" else [tool]
    return json.loads(run([CCUSAGE, *args, "--json", "--offline", "--timezone", tz, *extra], env=env))


def tokens_of_arbor(u):
    return tuple(u.get(k, 0) for k, _ in KINDS)


def tokens_of_ccusage(row, tool):
    # Both give Codex's input without the cached part (the log's `input_tokens` holds it).
    return tuple(row.get(c, 0) for _, c in KINDS)


def keyed_arbor(lines):
    return {l["key"]: tokens_of_arbor(l["usage"]) for l in lines if "key" in l}


def total_arbor(lines):
    return next(tokens_of_arbor(l["total"]["usage"]) for l in lines if "total" in l)


def main():
    global CCUSAGE
    CCUSAGE = install()
    version = run([CCUSAGE, "--version"]).strip()
    print(f"ccusage {version} from {CCUSAGE}")
    with tempfile.TemporaryDirectory(prefix="arbor-ccusage-") as tmp:
        home = Path(tmp) / "home"
        projects = home / ".claude/projects"
        # Three Claude Code projects of two sessions' worth each, sub-agents in every layout the
        # harness has written, resumes and forks; and a Codex tree.
        for seed, layout in ((3, "claude-code"), (5, "claude-code-flat"), (8, "claude-code-inline")):
            run([GEN, "--format", layout, "--size", "400K", "--depth", "2", "--fanout", "2", "--seed", seed,
                 "-o", projects / f"-work-proj{seed}"])
        codex = home / ".codex/sessions"
        run([GEN, "--format", "codex", "--size", "400K", "--depth", "2", "--fanout", "2", "--seed", "4", "-o", codex])

        for tool, paths in (("claude", [projects]), ("codex", [codex])):
            for tz in ("UTC", "Pacific/Kiritimati"):
                ours = arbor_lines("usage", "daily", "--json", "--timezone", tz, *paths)
                theirs = ccusage(tool, "daily", home, tz)
                days = {d["date"]: tokens_of_ccusage(d, tool) for d in theirs["daily"]}
                check(len(days) > 0, f"{tool} {tz}: ccusage read the generated logs", theirs)
                check(keyed_arbor(ours) == days, f"{tool} {tz}: each day's tokens equal ({len(days)} days)",
                      {"arbor": keyed_arbor(ours), "ccusage": days})
                check(total_arbor(ours) == tokens_of_ccusage(theirs["totals"], tool), f"{tool} {tz}: totals equal",
                      {"arbor": total_arbor(ours), "ccusage": theirs["totals"]})

        # The machine's places: no path given, arbor finds both harnesses under HOME as the app's
        # Library does (each Claude Code project read whole), against ccusage's every agent.
        env = dict(os.environ, HOME=str(home), ARBOR_LIBRARY=str(Path(tmp) / "library.sqlite3"))
        for v in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "COPILOT_HOME", "DSH_HOME"):
            env.pop(v, None)
        ours = [json.loads(l) for l in run([ARBOR, "usage", "daily", "--json", "--timezone", "UTC"], env=env).splitlines()]
        theirs = ccusage("daily", "--json", home, "UTC")
        days = {d["period"]: tokens_of_ccusage(d, "all") for d in theirs["daily"]}
        check(keyed_arbor(ours) == days, f"this machine's places: each day's tokens equal ({len(days)} days)",
              {"arbor": keyed_arbor(ours), "ccusage": days})

        # Projects: ccusage names a Claude Code project by its folder under projects/, arbor by
        # the cwd its log names (SPEC 6.1): `arbor sessions` says which folders each cwd's
        # sessions are in, and each cwd's total is held to those folders' in ccusage.
        sessions = arbor_lines("sessions", "--json", projects)
        folders_of = defaultdict(set)
        for s in sessions:
            folders_of[s["project"]].add(Path(s["path"]).relative_to(projects).parts[0])
        theirs = ccusage("claude", "daily", home, "UTC", "--instances")["projects"]
        by_folder = {f: tuple(map(sum, zip(*(tokens_of_ccusage(d, "claude") for d in days))))
                     for f, days in theirs.items()}
        check(sorted(f for fs in folders_of.values() for f in fs) == sorted(by_folder),
              "claude: every project folder is one cwd's", (dict(folders_of), sorted(by_folder)))
        ours = keyed_arbor(arbor_lines("usage", "project", "--json", "--timezone", "UTC", projects))
        want = {cwd: tuple(map(sum, zip(*(by_folder.get(f, (0, 0, 0, 0)) for f in fs)))) for cwd, fs in folders_of.items()}
        check(ours == want, f"claude: each project's tokens equal ({len(ours)} cwd, {len(by_folder)} folders)",
              {"arbor": ours, "ccusage": want})

        # Sessions: ccusage's is a file (a sub-agent's file its own session), arbor's a root with
        # every session under it; both are summed per root here. Equal, but where a resume's
        # replayed chain is booked to another root: arbor books it where it was first written,
        # ccusage to the resuming file (SPEC 6.2).
        for tool, path in (("claude", projects), ("codex", codex)):
            report = json.loads(run([ARBOR, "analyze", "--json", path]))
            root_of = {x["id"]: x["root"] or x["id"] for x in report["sessions"]}
            keyed = {x["key"]: x["session"] for x in arbor_lines("sessions", "--json", path)}
            ours = defaultdict(lambda: (0, 0, 0, 0))
            for line in arbor_lines("usage", "session", "--json", "--timezone", "UTC", path):
                if "key" in line:
                    r = keyed[line["key"]]
                    ours[r] = tuple(a + b for a, b in zip(ours[r], tokens_of_arbor(line["usage"])))
            theirs = defaultdict(lambda: (0, 0, 0, 0))
            for x in ccusage(tool, "session", home, "UTC")["sessions"]:
                name = x["sessionId"].split("/")[-1]
                sid = name[-36:] if tool == "codex" else name.removeprefix("agent-")
                r = root_of.get(sid, name)
                theirs[r] = tuple(a + b for a, b in zip(theirs[r], tokens_of_ccusage(x, tool)))
            differ = sorted(k for k in set(ours) | set(theirs) if ours[k] != theirs[k])
            resumed = resumes(report, path, root_of)
            unexplained = [k for k in differ if k not in resumed]
            check(not unexplained, f"{tool}: each root's tokens equal but where a resume's replay is booked elsewhere "
                  f"({len(theirs)} roots, {len(differ)} differ, all of a resume)",
                  {k: (ours[k], theirs[k]) for k in unexplained})
            check(tuple(map(sum, zip(*ours.values()))) == tuple(map(sum, zip(*theirs.values()))),
                  f"{tool}: the roots add up to the same totals")

    print(f"{results['passed']} passed, {results['failed']} failed")
    return 1 if results["failed"] else 0


def resumes(report, path, root_of):
    """The roots a resume's replay moves tokens between: each root whose file replays lines read
    before in another file (`replayed-history`), and the roots of the files those lines came from."""
    out = set()
    files = {}
    for f in Path(path).rglob("*.jsonl"):
        uuids = set()
        for line in f.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                v = json.loads(line)
            except ValueError:
                continue
            if isinstance(v, dict) and isinstance(v.get("uuid"), str):
                uuids.add(v["uuid"])
        files[f] = uuids
    for d in report["diagnostics"]:
        if d["code"] != "replayed-history" or "read before in another file" not in d["message"]:
            continue
        resumed = Path(path) / d["at"]["file"]
        out.add(root_of.get(d["session"], d["session"]))
        for f, uuids in files.items():
            if f != resumed and uuids & files.get(resumed, set()):
                out.add(root_of.get(f.stem, f.stem))
    return out


if __name__ == "__main__":
    sys.exit(main())
