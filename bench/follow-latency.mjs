// Write → screen latency of Follow in the real app (BENCHMARKS.md, "Following"): the app follows a
// log while this script appends lines at RATE lines a second for SECONDS; each write is stamped
// (wall clock, bytes written so far), and the page keeps, for every followed revision its tree
// drew, the bytes that revision had read and when it was drawn (lib/follow.svelte.ts). A write's
// latency is the time until the first drawn revision that covers its bytes. Then the app's CPU
// (its process and the webview's) is read from /proc while nothing is written.
// usage: bench/follow-latency APP_BINARY [RATE] [SECONDS]   (the shell wrapper gives the display)
import { appendFileSync, readFileSync, readdirSync, statSync, writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Session, sleep, startDriver, waitFor } from "../tests/e2e/client.mjs";

const [APP, RATE = "1000", SECONDS = "10"] = process.argv.slice(2);
const ROOT = new URL("..", import.meta.url).pathname;
const rate = Number(RATE);
const seconds = Number(SECONDS);

const base = readFileSync(join(ROOT, "tests/conformance/cases/dsh-rpc-two-level/input/run.jsonl"), "utf8").trimEnd().split("\n");
let copy = 0;
let queue = [];
/** The next line of the run: the two-level case again and again, with fresh ids. */
function nextLine() {
  if (!queue.length) {
    queue = base.map((l) => l.replace(/"(root|kid|grand)"/g, `"$1-${copy}"`));
    copy++;
  }
  return queue.shift();
}

const dir = mkdtempSync(join(tmpdir(), "arbor-follow-bench-"));
const path = join(dir, "live.jsonl");
writeFileSync(path, Array.from({ length: 60 }, nextLine).join("\n") + "\n");

/** CPU seconds (user + system) of `pid` and every process under it. */
function cpuOfTree(pid) {
  const children = new Map();
  for (const p of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(p));
    } catch {}
  }
  let ticks = 0;
  const walk = (p) => {
    try {
      const f = readFileSync(`/proc/${p}/stat`, "utf8").slice(readFileSync(`/proc/${p}/stat`, "utf8").lastIndexOf(")") + 2).split(" ");
      ticks += Number(f[11]) + Number(f[12]);
    } catch {}
    for (const c of children.get(p) ?? []) walk(c);
  };
  walk(pid);
  return ticks / 100;
}

/** The app's process: the one whose executable is APP, started by the driver. */
function appPid() {
  for (const p of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${p}/cmdline`, "utf8").split("\0")[0] === APP && statSync(`/proc/${p}`).uid === process.getuid()) return Number(p);
    } catch {}
  }
  return null;
}

const q = (s, p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
const { base: wdBase, driver } = await startDriver();
let session;
try {
  session = await Session.start(wdBase, APP, [path], dir);
  await waitFor("the log followed", async () => (await session.text()).includes("following ·"), 60_000);
  await sleep(1000);
  // IDLE_UNFOLLOWED=1: the idle CPU of the same window with Follow off, to compare.
  if (process.env.IDLE_UNFOLLOWED) {
    await session.click('[data-testid="follow"]');
    await waitFor("Follow off", async () => !(await session.text()).includes("following ·"), 10_000);
    const pid = appPid();
    await sleep(2000);
    const c0 = cpuOfTree(pid);
    await sleep(10_000);
    console.log(`idle CPU, Follow off (app and webview, 10 s): ${(((cpuOfTree(pid) - c0) / 10) * 100).toFixed(2)} % of a core`);
    process.exit(0);
  }
  // Appending: every 10 ms, the lines due by then (RATE a second), each batch stamped.
  const writes = [];
  let bytes = statSync(path).size;
  const t0 = Date.now();
  let written = 0;
  while (Date.now() - t0 < seconds * 1000) {
    const due = Math.floor(((Date.now() - t0) / 1000) * rate) - written;
    if (due > 0) {
      const text = Array.from({ length: due }, nextLine).join("\n") + "\n";
      appendFileSync(path, text);
      bytes += Buffer.byteLength(text);
      written += due;
      writes.push({ at: Date.now(), bytes, lines: due });
    }
    await sleep(10);
  }
  // Until the last write is drawn.
  await waitFor("the last write drawn", async () => {
    const drawn = await session.run("return window.__arborLive.drawn.map((d) => [d.readTo, d.at]);");
    return drawn.length && drawn.at(-1)[0] >= bytes ? drawn : null;
  }, 30_000).catch(async (e) => {
    const state = await session.run("return [window.__arborLive.drawn.slice(-3), window.__arborLive.revision, window.__arborLive.last && window.__arborLive.last.read_to, document.documentElement.dataset.drawnRevision];");
    console.error(`bytes written ${bytes}; page: ${JSON.stringify(state)}`);
    throw e;
  });
  const drawn = await session.run("return window.__arborLive.drawn.map((d) => [d.readTo, d.at]);");
  const latencies = writes.map((w) => {
    const d = drawn.find(([readTo, at]) => readTo >= w.bytes && at >= w.at);
    return d ? d[1] - w.at : Infinity;
  });
  const sorted = [...latencies].sort((a, b) => a - b);
  console.log(`wrote ${written} lines (${(bytes / 1e6).toFixed(1)} MB log) in ${seconds} s at ${rate} lines/s in ${writes.length} writes; ${drawn.length} revisions drawn`);
  console.log(`write → screen: p50 ${q(sorted, 0.5)} ms  p95 ${q(sorted, 0.95)} ms  max ${sorted.at(-1)} ms`);
  // Idle: nothing written.
  const pid = appPid();
  if (pid) {
    await sleep(2000);
    const own = (p) => {
      const f = readFileSync(`/proc/${p}/stat`, "utf8");
      const x = f.slice(f.lastIndexOf(")") + 2).split(" ");
      return (Number(x[11]) + Number(x[12])) / 100;
    };
    const c0 = cpuOfTree(pid);
    const a0 = own(pid);
    await sleep(10_000);
    const c1 = cpuOfTree(pid);
    console.log(`  of which the app's own process: ${(((own(pid) - a0) / 10) * 100).toFixed(2)} % of a core`);
    console.log(`idle CPU (app and webview, following, nothing written, 10 s): ${(((c1 - c0) / 10) * 100).toFixed(2)} % of a core`);
  } else console.log("idle CPU: the app's process was not found");
} finally {
  if (session) await session.stop();
  driver.kill("SIGTERM");
}
