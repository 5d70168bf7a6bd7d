// The app's load benchmark (run through bench/app-load, which provides the display, a clean user
// and the builds): the real app opens each log through WebKitWebDriver; the page's User Timing
// measures give the first sessions and the fully loaded log; the resident memory of the app and
// its WebKit processes is sampled meanwhile; the CLI reads the same log. Figures only.
import { execFileSync, spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { basename } from "node:path";
import { Session, sleep, startDriver, waitFor } from "../tests/e2e/client.mjs";

const APPS = (process.env.ARBOR_BENCH_APPS ?? "").split(" ").filter(Boolean).map((s) => s.split("="));
const CLI = process.env.ARBOR_BENCH_CLI;
const OUT = process.env.ARBOR_BENCH_OUT;
const REPEAT = Math.max(1, Number(process.env.ARBOR_BENCH_REPEAT) || 1);
const LOGS = process.argv.slice(2);
if (!APPS.length || !CLI || !OUT || !LOGS.length) throw new Error("run through bench/app-load");

const MB = (kb) => (kb * 1024) / 1e6;

/** Every process's parent, from /proc. */
function parents() {
  const out = new Map();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      // The command name is in parentheses and may hold spaces: the fields after it are fixed.
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      out.set(Number(name), ppid);
    } catch {
      // the process ended meanwhile
    }
  }
  return out;
}

/** The resident kB of `pid`'s descendants (not `pid` itself: the driver), summed. */
function residentOfDescendants(pid) {
  const map = parents();
  const kids = new Map();
  for (const [p, pp] of map) kids.set(pp, [...(kids.get(pp) ?? []), p]);
  let kb = 0;
  const names = [];
  const stack = [...(kids.get(pid) ?? [])];
  while (stack.length) {
    const p = stack.pop();
    stack.push(...(kids.get(p) ?? []));
    try {
      const status = readFileSync(`/proc/${p}/status`, "utf8");
      const rss = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      kb += rss;
      names.push(`${/Name:\s+(\S+)/.exec(status)?.[1] ?? "?"} ${Math.round(MB(rss))}`);
    } catch {
      // ended meanwhile
    }
  }
  return { kb, names };
}

/** Samples the descendants' resident memory every 100 ms until stopped; keeps the peak. */
function sampler(pid) {
  let peak = 0;
  let names = [];
  const timer = setInterval(() => {
    const r = residentOfDescendants(pid);
    if (r.kb > peak) {
      peak = r.kb;
      names = r.names;
    }
  }, 100);
  return {
    stop() {
      clearInterval(timer);
      return { mb: MB(peak), names: [...names].sort() };
    },
  };
}

/** The duration of a User Timing measure in the page, or null. */
const measure = (s, name) => s.run("return performance.getEntriesByName(arguments[0])[0]?.duration ?? null;", name);

/**
 * Watches the page's frames from now on: the longest interval between animation frames, and how
 * many exceeded 100 ms. `stop` reads and ends it.
 */
const FRAMES = `
  const w = window;
  w.__benchFrames = { max: 0, over100: 0, n: 0, last: performance.now(), on: true };
  const f = (t) => {
    const b = w.__benchFrames;
    if (!b.on) return;
    const d = t - b.last;
    b.last = t;
    b.n++;
    if (d > b.max) b.max = d;
    if (d > 100) b.over100++;
    requestAnimationFrame(f);
  };
  requestAnimationFrame(f);
`;
const STOP_FRAMES = "const b = window.__benchFrames; if (!b) return null; b.on = false; return { max: b.max, over100: b.over100, n: b.n };";

function quantile(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))] : NaN;
}

/**
 * Scrolls an element in 120 steps, one a frame, by jumps to random offsets, and returns the frame
 * intervals (ms). The UI's tree is `[role=tree]`.
 */
const SCROLL_FRAMES = `
  const done = arguments[arguments.length - 1];
  const el = document.querySelector(arguments[0]);
  if (!el) return done(null);
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const frames = [];
  let last = performance.now();
  let k = 0;
  const step = (t) => {
    frames.push(t - last);
    last = t;
    if (k++ >= 120) return done(frames.slice(1));
    el.scrollTop = Math.floor(rand() * (el.scrollHeight - el.clientHeight));
    requestAnimationFrame(step);
  };
  requestAnimationFrame(step);
`;

/** Opens the timeline pane and times it to its first drawn window; then pans and zooms it by keys. */
const TIMELINE = `
  const done = arguments[arguments.length - 1];
  const button = document.querySelector("[data-testid=tab-timeline]");
  if (!button) return done(null);
  const t0 = performance.now();
  button.click();
  let opened = null;
  const keys = ["l", "l", "+", "l", "h", "-", "PageDown", "PageDown", "l", "+", "+", "h", "PageUp", "-", "-"];
  const frames = [];
  let last = 0;
  let k = 0;
  const wait = () => {
    const c = document.querySelector("[data-testid=timeline-canvas]");
    if (c && c.dataset.ready === "1") {
      opened = performance.now() - t0;
      last = performance.now();
      requestAnimationFrame(step);
      return;
    }
    if (performance.now() - t0 > 30000) return done({ opened: null, frames: [] });
    requestAnimationFrame(wait);
  };
  const step = (t) => {
    frames.push(t - last);
    last = t;
    if (k >= 120) return done({ opened, frames: frames.slice(1) });
    const c = document.querySelector("[data-testid=timeline-canvas]");
    c.dispatchEvent(new KeyboardEvent("keydown", { key: keys[k++ % keys.length], bubbles: true }));
    requestAnimationFrame(step);
  };
  requestAnimationFrame(wait);
`;

/**
 * Opens the Transcript tab, scrolls the tree to its top and selects its first session (on the
 * bench's logs a root with the most items), and times the selection to the first transcript row
 * drawn (SPEC 5 Transcript: its first page on screen). Returns { session, ms, total }.
 */
const TRANSCRIPT = `
  const done = arguments[arguments.length - 1];
  const tab = document.querySelector("[data-testid=tab-transcript]");
  const tree = document.querySelector("[role=tree]");
  if (!tab || !tree) return done(null);
  tab.click();
  tree.scrollTop = 0;
  const started = performance.now();
  const pick = () => {
    const row = tree.querySelector("[data-session]");
    if (!row) {
      if (performance.now() - started > 10000) return done(null);
      return requestAnimationFrame(pick);
    }
    const session = row.getAttribute("data-session");
    const t0 = performance.now();
    row.click();
    const wait = () => {
      const drawn = document.querySelector('[data-testid=transcript] .item[data-row="0"][data-drawn]');
      if (drawn) {
        const total = document.querySelector("[data-testid=transcript-total]")?.textContent ?? "";
        return done({ session, ms: performance.now() - t0, total });
      }
      if (performance.now() - t0 > 30000) return done({ session, ms: null, total: "" });
      requestAnimationFrame(wait);
    };
    requestAnimationFrame(wait);
  };
  // A few frames for the rows at the top to come.
  setTimeout(() => requestAnimationFrame(pick), 300);
`;

/** One app run on `args`: the page's measures, the peak memory, and the UI probes. */
async function appRun(driver, app, args, { probes }) {
  const session = await Session.start(driver.base, app, args, OUT);
  const watch = sampler(driver.pid);
  try {
    await session.run(FRAMES);
    const loaded = await waitFor("the arbor-loaded measure", () => measure(session, "arbor-loaded"), 900_000);
    const first = await measure(session, "arbor-first-sessions");
    const answered = await measure(session, "arbor-answered");
    const during = await session.run(STOP_FRAMES);
    // A moment after the load: what the app holds once the report is shown.
    await sleep(1000);
    const out = { loaded: loaded / 1000, first, answered, during };
    if (probes) {
      await session.run(FRAMES);
      const tree = await session.runAsync(SCROLL_FRAMES, "[role=tree]").catch(() => null);
      const timeline = await session.runAsync(TIMELINE).catch(() => null);
      const transcript = await session.runAsync(TRANSCRIPT).catch(() => null);
      out.after = await session.run(STOP_FRAMES);
      out.tree = tree;
      out.timeline = timeline;
      out.transcript = transcript;
      await session.screenshot(`app-load-${basename(args[0] ?? "sample")}`).catch(() => {});
    }
    out.memory = watch.stop();
    return out;
  } finally {
    watch.stop();
    await session.stop();
  }
}

/** The CLI on `log`: wall seconds and peak resident MB (/usr/bin/time). */
function cliRun(log) {
  const r = spawnSync("/usr/bin/time", ["-f", "%e %M", CLI, "analyze", "--json", log], {
    stdio: ["ignore", "ignore", "pipe"],
    encoding: "utf8",
    maxBuffer: 1 << 20,
  });
  const last = r.stderr.trim().split("\n").at(-1).split(" ");
  return { wall: Number(last[0]), mb: MB(Number(last[1])) };
}

const fmt = (x, d = 2) => (typeof x === "number" && Number.isFinite(x) ? x.toFixed(d) : "?");

const { base, driver } = await startDriver();
const at = { base, pid: driver.pid };
const lines = [];
// The page cache warmed, as for the CLI in bench/run.
for (const log of LOGS) execFileSync("cat", [log], { stdio: ["ignore", "ignore", "inherit"] });
try {
  const cli = new Map();
  for (const log of LOGS) {
    const runs = Array.from({ length: REPEAT }, () => cliRun(log));
    cli.set(log, { wall: Math.min(...runs.map((r) => r.wall)), mb: Math.min(...runs.map((r) => r.mb)) });
    console.log(`cli ${basename(log)}: ${runs.map((r) => `${fmt(r.wall)} s ${fmt(r.mb, 0)} MB`).join(", ")}`);
  }
  for (const [build, app] of APPS) {
    const idle = await appRun(at, app, [], { probes: false });
    console.log(`[${build}] idle app (the built-in sample open): ${fmt(idle.memory.mb, 0)} MB (${idle.memory.names.join(", ")} MB)`);
    for (const log of LOGS) {
      const runs = [];
      for (let i = 0; i < REPEAT; i++) runs.push(await appRun(at, app, [log], { probes: i === 0 }));
      const best = runs.reduce((a, b) => (b.loaded < a.loaded ? b : a));
      const mb = Math.min(...runs.map((r) => r.memory.mb));
      const c = cli.get(log);
      const name = basename(log);
      const probe = runs[0];
      console.log(
        `[${build}] ${name}: fully loaded ${runs.map((r) => `${fmt(r.loaded)} s`).join(", ")} (the engine's answer at ${runs.map((r) => `${fmt(r.answered / 1000)} s`).join(", ")}); first sessions ` +
          `${runs.map((r) => `${fmt(r.first, 0)} ms`).join(", ")}; longest frame while loading ${runs.map((r) => `${fmt(r.during?.max, 0)} ms`).join(", ")}` +
          ` (${runs.map((r) => r.during?.over100 ?? "?").join(", ")} over 100 ms)`,
      );
      if (probe.tree?.length) console.log(`[${build}] ${name}: tree jumps, frame p50 ${fmt(quantile(probe.tree, 0.5), 1)} ms, p95 ${fmt(quantile(probe.tree, 0.95), 1)} ms, max ${fmt(Math.max(...probe.tree), 1)} ms`);
      if (probe.timeline?.opened != null) {
        const f = probe.timeline.frames;
        console.log(`[${build}] ${name}: timeline open ${fmt(probe.timeline.opened, 0)} ms; pan/zoom frames p50 ${fmt(quantile(f, 0.5), 1)} ms, p95 ${fmt(quantile(f, 0.95), 1)} ms, max ${fmt(Math.max(...f), 1)} ms`);
      }
      if (probe.transcript?.ms != null) console.log(`[${build}] ${name}: transcript of ${probe.transcript.session} (${probe.transcript.total}): first row drawn ${fmt(probe.transcript.ms, 0)} ms after selecting it`);
      if (probe.after) console.log(`[${build}] ${name}: longest frame after the load ${fmt(probe.after.max, 0)} ms (${probe.after.over100} over 100 ms)`);
      const budget = 2 * c.mb + idle.memory.mb;
      console.log(`[${build}] ${name}: memory target 2 × cli + idle = ${fmt(budget, 0)} MB: ${mb <= budget ? "within" : "over"}; at the peak (MB): ${probe.memory.names.join(", ")}`);
      lines.push(
        `app-load ${name}${build === "dev" ? " (dev build)" : ""}: app ${fmt(best.loaded)} s, cli ${fmt(c.wall)} s, ratio ${fmt(best.loaded / c.wall)}; ` +
          `memory app+webkit ${fmt(mb, 0)} MB, cli ${fmt(c.mb, 0)} MB, ratio ${fmt(mb / c.mb)}`,
      );
    }
  }
} finally {
  driver.kill("SIGTERM");
}
console.log();
for (const l of lines) console.log(l);
