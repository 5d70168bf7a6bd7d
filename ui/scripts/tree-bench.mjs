// Frame time of the delegation tree at 10,000 sessions (or more), in headless Chromium with the IPC mocked
// (tests/browser.mjs): a synthetic report of 100 trees of 100 sessions (depth 0-2) whose inputs
// count 1,000,000 records (100 events a session), 2 turns a session and a finding every fifth
// session. Prints the time from navigation to the first tree rows, then p50/p95/max per frame for
// scrolling the tree: by wheel-sized steps, by pages, by jumps (the scrollbar dragged), and by the
// keyboard (j: the selection moves down a row and the tree follows it).
// Two figures per frame: "update" is the scroll handler, the Svelte update and style and layout
// (performance.now() around a scroll event and a forced layout), "frame" the interval between
// animation frames while scrolling one step a frame (paint and raster included; 60 Hz makes its
// floor 16.7 ms). Long animation frames (> 50 ms) are counted from the performance timeline.
// Both are wall-clock times, which other processes on a shared CPU stretch; so a third line gives
// CPU time per step, from Chromium's own counters (CDP Performance.getMetrics in thread ticks):
// the renderer's main thread in all (its script, style and layout parts; the rest is mostly
// paint), and the renderer process in all (raster and compositor threads too; not the GPU
// process, which composites in software here). Averages over the action's steps.
// Both builds are measured, each in its own server and page: the production bundle first (what
// `npm run build` makes and the app embeds: Svelte's production build, minified), then Vite's dev
// server (Svelte's development build, with its runtime checks: slower, and what `npm run dev` and
// the browser tests run). `--build production` or `--build dev` measures one.
// Figures only: nothing is asserted (the CPU is shared).
// `--trees N` makes N trees of 100 sessions instead (2437: 243,700 sessions, as many as the 1 GiB
// Copilot log has); the tree's rows are the view host's (tests/browser.mjs), as the app's are the
// Rust side's, and the page asks for those it shows.
// usage: node scripts/tree-bench.mjs [frames per action, default 120] [--build production|dev|both] [--trees N]   (from ui/)
import { loadavg } from "node:os";
import { launch, mockIpc, startUi, stats } from "../tests/browser.mjs";

const args = process.argv.slice(2);
const buildArg = args.indexOf("--build");
const BUILD = buildArg >= 0 ? args.splice(buildArg, 2)[1] : "both";
const treesArg = args.indexOf("--trees");
const TREES = treesArg >= 0 ? Number(args.splice(treesArg, 2)[1]) : 100;
if (!["production", "dev", "both"].includes(BUILD)) throw new Error(`--build ${BUILD}: production, dev or both`);
const FRAMES = Number(args[0] ?? 120);

/** Runs in Node (the view host gets it): the synthetic report (see the header). */
function buildReport({ trees: TREES, events: EVENTS }) {
  const file = "big.jsonl";
  const sessions = [];
  const turns = [];
  const diagnostics = [];
  let line = 1;
  let seed = 11;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const place = () => ({ file, line: line++ });
  let n = 0;
  for (let t = 0; t < TREES; t++) {
    const add = (id, parent, depth) => {
      const runs = parent ? [{ parent, start: place(), end: place(), outcome: rand() < 0.1 ? "error" : "ok", link: "start-edge" }] : [];
      sessions.push({ id, parent, root: `r${t}`, depth, label: parent ? `task ${id}` : null, runs, events: EVENTS });
      for (let k = 1; k <= 2; k++) turns.push({ session: id, turn: k, start: place(), end: place(), reason: "completed", steps: 1 });
      if (n++ % 5 === 0) {
        const severity = ["info", "warning", "error"][n % 3];
        diagnostics.push({ code: "x", severity, at: place(), session: id, message: `finding ${n}` });
      }
      line += EVENTS - 5;
    };
    add(`r${t}`, null, 0);
    for (let c = 0; c < 9; c++) {
      add(`r${t}c${c}`, `r${t}`, 1);
      for (let g = 0; g < 10; g++) add(`r${t}c${c}g${g}`, `r${t}c${c}`, 2);
    }
  }
  return {
    report_version: 1,
    inputs: [{ file, format: "dsh-rpc", records: sessions.length * EVENTS, bad_lines: 0, bytes: sessions.length * EVENTS * 400 }],
    sessions,
    turns,
    replies: [],
    waits: [],
    diagnostics,
  };
}

const load = () => loadavg().map((x) => x.toFixed(2)).join(" ");

async function bench(production) {
  const ui = await startUi({ production });
  const browser = await launch();
  try {
    const opts = { trees: TREES, events: 100 };
    const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
    page.on("pageerror", (e) => console.error("page error:", e.message));
    await mockIpc(page, { build: `() => (${buildReport.toString()})(${JSON.stringify(opts)})` });
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Performance.enable", { timeDomain: "threadTicks" });
    const metrics = async () => Object.fromEntries((await cdp.send("Performance.getMetrics")).metrics.map((m) => [m.name, m.value]));
    const t0 = Date.now();
    await page.goto(ui.url);
    await page.locator('.node[data-session="r0"]').waitFor({ timeout: 120_000 });
    const firstRows = Date.now() - t0;
    const inputs = (await page.locator("section.inputs").textContent()).replace(/\s+/g, " ").trim();
    const build = production ? "production build (vite build, served by vite preview; what the app embeds)" : "development build (Vite dev server)";
    console.log(`\ndelegation tree, window 1600x1000, ${build}: ${inputs}`);
    console.log(`  load average at the start: ${load()}`);
    console.log(`  navigation to the first tree rows (the view made by the host, the first rows asked for and drawn): ${firstRows} ms`);

    // Long animation frames, from the performance timeline, while the actions run.
    await page.evaluate(() => {
      window.__longFrames = [];
      try {
        new PerformanceObserver((l) => window.__longFrames.push(...l.getEntries().map((e) => e.duration))).observe({ type: "long-animation-frame" });
      } catch {
        window.__longFrames = null;
      }
    });

    // In the page: one step of an action a frame; per step the update time and the frame interval.
    const run = (action, n) =>
      page.evaluate(
        async ({ action, n }) => {
          const tree = document.querySelector('[role="tree"]');
          const frame = () => new Promise((res) => requestAnimationFrame(res));
          const rows = tree.scrollHeight / 28;
          let seed = 3;
          const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
          const out = [];
          let last = await frame();
          for (let i = 0; i < n; i++) {
            const t = performance.now();
            if (action === "j key (selection down a row)") {
              tree.dispatchEvent(new KeyboardEvent("keydown", { key: "j", bubbles: true, cancelable: true }));
            } else {
              if (action === "wheel steps (3 rows)") tree.scrollTop += 84;
              else if (action === "page steps (PageDown)") tree.scrollTop += tree.clientHeight;
              else tree.scrollTop = Math.floor(rand() * rows) * 28;
              tree.dispatchEvent(new Event("scroll"));
            }
            // Svelte applies state changes in a microtask; then force style and layout.
            await Promise.resolve();
            tree.getBoundingClientRect();
            void document.body.offsetHeight;
            const update = performance.now() - t;
            const now = await frame();
            out.push([update, now - last]);
            last = now;
          }
          return out;
        },
        { action, n },
      );

    await page.locator('.node[data-session="r0"]').click();
    for (const action of ["wheel steps (3 rows)", "page steps (PageDown)", "jumps (scrollbar drag)", "j key (selection down a row)"]) {
      await page.evaluate(() => {
        const tree = document.querySelector('[role="tree"]');
        tree.scrollTop = 0;
        if (window.__longFrames) window.__longFrames.length = 0;
      });
      if (action.startsWith("j key")) await page.locator('.node[data-session="r0"]').click();
      const m0 = await metrics();
      const xs = await run(action, FRAMES);
      const m1 = await metrics();
      const cpu = (name) => (((m1[name] - m0[name]) * 1000) / FRAMES).toFixed(2);
      const long = await page.evaluate(() => window.__longFrames?.length ?? "n/a");
      const shown = await page.evaluate(() => document.querySelectorAll('[role="tree"] .node').length);
      console.log(`  ${action.padEnd(30)} update: ${stats(xs.map((x) => x[0]))}`);
      console.log(`  ${"".padEnd(30)} frame:  ${stats(xs.map((x) => x[1]))}   long frames: ${long}; rows in the DOM: ${shown}`);
      console.log(
        `  ${"".padEnd(30)} CPU a step: main thread ${cpu("ThreadTime")} ms (script ${cpu("ScriptDuration")}, style ${cpu("RecalcStyleDuration")}, layout ${cpu("LayoutDuration")}); renderer ${cpu("ProcessTime")} ms`,
      );
    }
    console.log(`  load average at the end: ${load()}`);
    await page.close();
  } finally {
    await browser.close();
    await ui.close();
  }
}

if (BUILD !== "dev") await bench(true);
if (BUILD !== "production") await bench(false);
