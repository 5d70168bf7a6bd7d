// Write → screen latency of Follow in the real app (BENCHMARKS.md, "Following"): the app follows a
// log while this script appends lines at RATE lines a second for SECONDS; each write is stamped
// (wall clock, bytes written so far), and the page keeps, for every followed revision its tree
// drew, the bytes that revision had read and when it was drawn (lib/follow.svelte.ts). A write's
// latency is the time until the first drawn revision that covers its bytes. Then the app's CPU
// (its process and the webview's) is read from /proc while nothing is written.
// usage: bench/follow-latency APP_BINARY [RATE] [SECONDS]   (the shell wrapper gives the display)
import {
  appendFileSync,
  closeSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  readdirSync,
  statSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Session, sleep, startDriver, waitFor } from "../tests/e2e/client.mjs";

const [APP, RATE = "1000", SECONDS = "10"] = process.argv.slice(2);
const ROOT = new URL("..", import.meta.url).pathname;
const rate = Number(RATE);
const seconds = Number(SECONDS);
/** How long the idle CPU is measured (IDLE_SECONDS, 10 by default). */
const idle = Number(process.env.IDLE_SECONDS ?? 10);

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
// FOLLOW_LOG=PATH follows that log (a large one, copied where it may grow: it is appended to)
// instead of a new one of 60 lines; BURST_BYTES=N appends N bytes at once instead of the steady
// rate, and reports that one write's time to the screen.
const path = process.env.FOLLOW_LOG ?? join(dir, "live.jsonl");
const burst = Number(process.env.BURST_BYTES ?? 0);
if (!process.env.FOLLOW_LOG) writeFileSync(path, Array.from({ length: 60 }, nextLine).join("\n") + "\n");
// BURST_FROM_TAIL=1 (with FOLLOW_LOG and BURST_BYTES): the log's own last BURST_BYTES (whole
// lines) are cut off before the app opens it, and the burst appends them back: the log's own
// continuation, in its own format, instead of the two-level case's lines.
let tail = null;
if (burst > 0 && process.env.FOLLOW_LOG && process.env.BURST_FROM_TAIL) {
  const size = statSync(path).size;
  const fd = openSync(path, "r");
  const end = Buffer.alloc(Math.min(size, burst + (1 << 20)));
  readSync(fd, end, 0, end.length, size - end.length);
  closeSync(fd);
  // Cut after the newline that leaves at least BURST_BYTES behind it.
  let cut = end.length - burst;
  while (cut > 0 && end[cut - 1] !== 0x0a) cut--;
  tail = end.subarray(cut);
  truncateSync(path, size - tail.length);
}

/** Every process's children, by parent pid, from /proc. */
function childrenByParent() {
  const children = new Map();
  for (const p of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(p));
    } catch {}
  }
  return children;
}

/** CPU seconds (user + system) of `pid` and every process under it. */
function cpuOfTree(pid) {
  const children = childrenByParent();
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

/** CPU ticks of every thread of `pid` and the processes under it, by "process/thread" name. */
function threadsOfTree(pid) {
  const children = childrenByParent();
  const out = new Map();
  const walk = (p) => {
    try {
      const name = readFileSync(`/proc/${p}/comm`, "utf8").trim();
      for (const t of readdirSync(`/proc/${p}/task`)) {
        const f = readFileSync(`/proc/${p}/task/${t}/stat`, "utf8");
        const comm = f.slice(f.indexOf("(") + 1, f.lastIndexOf(")"));
        const x = f.slice(f.lastIndexOf(")") + 2).split(" ");
        out.set(`${name}[${p}]/${comm}[${t}]`, Number(x[11]) + Number(x[12]));
      }
    } catch {}
    for (const c of children.get(p) ?? []) walk(c);
  };
  walk(pid);
  return out;
}

/** The threads that took CPU between two `threadsOfTree`, busiest first, as "name: % of a core". */
function busiest(before, after, seconds) {
  return [...after]
    .map(([k, v]) => [k, v - (before.get(k) ?? 0)])
    .filter(([, d]) => d > 0)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8)
    .map(([k, d]) => `${k}: ${((d / 100 / seconds) * 100).toFixed(2)} %`);
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
  await waitFor("the log followed", async () => (await session.text()).includes("following ·"), 600_000);
  await sleep(1000);
  // IDLE_UNFOLLOWED=1: the idle CPU of the same window with Follow off, to compare.
  if (process.env.IDLE_UNFOLLOWED) {
    await session.click('[data-testid="follow"]');
    await waitFor("Follow off", async () => !(await session.text()).includes("following ·"), 10_000);
    const pid = appPid();
    await sleep(2000);
    const c0 = cpuOfTree(pid);
    const t0 = threadsOfTree(pid);
    await sleep(idle * 1000);
    for (const line of busiest(t0, threadsOfTree(pid), idle)) console.log(`  thread ${line}`);
    console.log(`idle CPU, Follow off (app and webview, ${idle} s): ${(((cpuOfTree(pid) - c0) / idle) * 100).toFixed(2)} % of a core`);
  } else {
  // Appending: every 10 ms, the lines due by then (RATE a second), each batch stamped.
  const writes = [];
  let bytes = statSync(path).size;
  const t0 = Date.now();
  let written = 0;
  if (burst > 0) {
    const lines = [];
    let size = 0;
    while (!tail && size < burst) {
      const l = nextLine() + "\n";
      lines.push(l);
      size += Buffer.byteLength(l);
    }
    const text = tail ?? lines.join("");
    if (tail) {
      size = tail.length;
      for (let i = 0; i < tail.length; i++) if (tail[i] === 0x0a) lines.push("");
    }
    // BURSTS=N: the burst in N writes of whole lines, 3 s apart (each drawn before the next):
    // the first revision of a followed log copies what the ones after reuse.
    const parts = Math.max(1, Number(process.env.BURSTS ?? 1));
    const whole = Buffer.from(text);
    let from = 0;
    for (let k = 1; k <= parts; k++) {
      let to = k === parts ? whole.length : Math.floor((whole.length * k) / parts);
      while (to < whole.length && whole[to - 1] !== 0x0a) to++;
      const piece = whole.subarray(from, to);
      from = to;
      await sleep(k === 1 ? 2000 : 3000);
      // Stamped as the write begins (ten megabytes take a while to write).
      const at = Date.now();
      appendFileSync(path, piece);
      bytes += piece.length;
      let n = 0;
      for (const b of piece) if (b === 0x0a) n++;
      written += n;
      writes.push({ at, bytes, lines: n });
    }
  }
  while (burst <= 0 && Date.now() - t0 < seconds * 1000) {
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
  }, 300_000).catch(async (e) => {
    const state = await session.run("return [window.__arborLive.drawn.slice(-3), window.__arborLive.revision, window.__arborLive.last && window.__arborLive.last.read_to, document.documentElement.dataset.drawnRevision];");
    console.error(`bytes written ${bytes}; page: ${JSON.stringify(state)}`);
    throw e;
  });
  const drawn = await session.run("return window.__arborLive.drawn.map((d) => [d.readTo, d.at, d.shown ?? d.at]);");
  const received = await session.run("return (window.__arborLive.received ?? []).map((r) => [r.readTo, r.at]);");
  // Where each write's time went: until the app's message that read it came (the watcher, the
  // engine, the view's rebuild, the IPC), until the page showed it to the views (waiting, merged,
  // for the change before to be drawn), until the tree drew it.
  const stages = { app: [], held: [], drawing: [] };
  const latencies = writes.map((w) => {
    const d = drawn.find(([readTo, at]) => readTo >= w.bytes && at >= w.at);
    const r = received.find(([readTo, at]) => readTo >= w.bytes && at >= w.at);
    if (d && r) {
      stages.app.push(r[1] - w.at);
      stages.held.push(Math.max(0, d[2] - r[1]));
      stages.drawing.push(d[1] - d[2]);
    }
    return d ? d[1] - w.at : Infinity;
  });
  const sorted = [...latencies].sort((a, b) => a - b);
  const how = burst > 0 ? (writes.length > 1 ? `in ${writes.length} writes, 3 s apart` : "at once") : `in ${seconds} s at ${rate} lines/s in ${writes.length} writes`;
  console.log(`wrote ${written} lines (${(bytes / 1e6).toFixed(1)} MB log) ${how}; ${drawn.length} revisions drawn, ${received.length} received`);
  console.log(`write → screen: p50 ${q(sorted, 0.5)} ms  p95 ${q(sorted, 0.95)} ms  max ${sorted.at(-1)} ms`);
  for (const [name, xs] of Object.entries(stages)) {
    const s = xs.sort((a, b) => a - b);
    if (s.length) console.log(`  ${name.padEnd(8)} p50 ${q(s, 0.5)} ms  p95 ${q(s, 0.95)} ms  max ${s.at(-1)} ms`);
  }
  // Idle: nothing written.
  const pid = appPid();
  if (idle <= 0) console.log("idle CPU: not measured (IDLE_SECONDS=0)");
  else if (pid) {
    await sleep(2000);
    const own = (p) => {
      const f = readFileSync(`/proc/${p}/stat`, "utf8");
      const x = f.slice(f.lastIndexOf(")") + 2).split(" ");
      return (Number(x[11]) + Number(x[12])) / 100;
    };
    const c0 = cpuOfTree(pid);
    const a0 = own(pid);
    const t0 = threadsOfTree(pid);
    await sleep(idle * 1000);
    const c1 = cpuOfTree(pid);
    for (const line of busiest(t0, threadsOfTree(pid), idle)) console.log(`  thread ${line}`);
    console.log(`  of which the app's own process: ${(((own(pid) - a0) / idle) * 100).toFixed(2)} % of a core`);
    console.log(`idle CPU (app and webview, following, nothing written, ${idle} s): ${(((c1 - c0) / idle) * 100).toFixed(2)} % of a core`);
  } else console.log("idle CPU: the app's process was not found");
  }
} finally {
  if (session) await session.stop();
  driver.kill("SIGTERM");
}
