// Frame time of the boundary timeline on synthetic reports, in headless Chromium with the IPC
// mocked (tests/browser.mjs; the timeline's model and windows are the view host's, as the app's
// are the Rust side's): 10,000 lanes (100 trees of 100 sessions) with 1.33 million spans and
// markers, at devicePixelRatio 1 and 2, one lane holding 1.2 million spans, and 243,700 lanes. Prints the time
// from the tab click to the first frame of an answered window, and p50/p95/max per frame of the
// draw time (performance.now() around the renderers, the canvas's data-draw-ms) and of draw plus
// raster (a one-pixel read makes the canvas rasterize) for zoom, pan and lane scrolling.
// Figures only: nothing is asserted (the CPU is shared).
// usage: node scripts/timeline-bench.mjs [frames per action, default 120]   (from ui/)
import { launch, mockIpc, startUi, stats } from "../tests/browser.mjs";

const FRAMES = Number(process.argv[2] ?? 120);

/**
 * Runs in Node (the view host gets it): the synthetic report, everything with a clock (so the axis is time). `trees`
 * trees of 100 sessions (or of one session when `single`), each session with `turns` turns of
 * `steps` steps and `findings` findings.
 */
function buildReport({ trees: TREES, turns: TURNS, steps: STEPS, findings: FINDINGS, single }) {
  const SPAN = 10_000_000;
  const file = "big.jsonl";
  const sessions = [];
  const turns = [];
  const diagnostics = [];
  let line = 1;
  let seed = 7;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const place = () => ({ file, line: line++ });
  for (let t = 0; t < TREES; t++) {
    // Each tree: a root, 9 children, each child followed by its 10 grandchildren (depth first).
    const ids = [];
    const add = (id, parent, depth) => {
      const start = Math.floor(rand() * SPAN * 0.2);
      const end = start + Math.floor(SPAN * (0.3 + rand() * 0.5));
      const runs = parent
        ? [{ parent, start: place(), end: place(), outcome: rand() < 0.1 ? "error" : "ok", link: "start-edge", start_time: start, end_time: end }]
        : [];
      sessions.push({ id, parent, root: `r${t}`, depth, label: parent ? `task ${id}` : null, runs, events: TURNS * 3 });
      const w = (end - start) / TURNS;
      for (let k = 0; k < TURNS; k++) {
        const ts = start + k * w;
        const te = ts + w * 0.8;
        const step_spans = [];
        for (let s = 0; s < STEPS; s++) {
          const ss = ts + (s * (te - ts)) / STEPS + 1;
          step_spans.push({ step: s + 1, start: place(), end: place(), start_time: ss, end_time: ss + ((te - ts) / STEPS) * 0.7 });
        }
        turns.push({ session: id, turn: k + 1, start: place(), end: place(), reason: "completed", steps: STEPS, start_time: ts, end_time: te, step_spans });
      }
      for (let k = 0; k < FINDINGS; k++) {
        const sev = ["info", "warning", "error"][k % 3];
        diagnostics.push({ code: "x", severity: sev, at: place(), session: id, message: "m", time: start + rand() * (end - start) });
      }
      ids.push(id);
    };
    add(`r${t}`, null, 0);
    for (let c = 0; c < (single ? 0 : 9); c++) {
      add(`r${t}c${c}`, `r${t}`, 1);
      for (let g = 0; g < 10; g++) add(`r${t}c${c}g${g}`, `r${t}c${c}`, 2);
    }
  }
  return {
    report_version: 1,
    inputs: [{ file, format: "dsh-rpc", records: line, bad_lines: 0, bytes: 0 }],
    sessions,
    turns,
    replies: [],
    waits: [],
    diagnostics,
  };
}

const ui = await startUi();
const browser = await launch();
try {
  const scenarios = [
    { name: "10,000 lanes, 1.33 M spans and markers", dpr: 1, opts: { trees: 100, turns: 40, steps: 2, findings: 12 } },
    { name: "10,000 lanes, 1.33 M spans and markers", dpr: 2, opts: { trees: 100, turns: 40, steps: 2, findings: 12 } },
    { name: "one lane, 400,000 turns with 2 steps each (1.2 M spans)", dpr: 1, opts: { trees: 1, turns: 400_000, steps: 2, findings: 0, single: true } },
    { name: "243,700 lanes (as many as the 1 GiB Copilot log's sessions), 2 turns each", dpr: 1, opts: { trees: 2437, turns: 2, steps: 0, findings: 0 } },
  ];
  for (const { name, dpr, opts } of scenarios) {
    const page = await browser.newPage({ viewport: { width: 1600, height: 1000 }, deviceScaleFactor: dpr });
    page.on("pageerror", (e) => console.error("page error:", e.message));
    await mockIpc(page, { build: `() => (${buildReport.toString()})(${JSON.stringify(opts)})` });
    await page.goto(ui.url);
    await page.getByTestId("tab-timeline").waitFor({ timeout: 120_000 });
    const t0 = Date.now();
    await page.getByTestId("tab-timeline").click();
    await page.waitForFunction(() => document.querySelector("[data-testid=timeline-canvas]")?.dataset.ready === "1", null, { timeout: 120_000 });
    const firstFrame = Date.now() - t0;
    const lanes = await page.getByTestId("timeline-canvas").evaluate(() => document.querySelector(".timeline .head")?.textContent ?? "");
    console.log(`\n${name}; devicePixelRatio ${dpr}, window 1600x1000: ${lanes.replace(/\s+/g, " ").trim()}`);
    console.log(`  tab click to the first frame of its window (axis, lanes and rectangles asked of the view host, drawn): ${firstFrame} ms`);

    // In the page: dispatch an input, wait for the frame it causes, read that frame's draw time.
    const run = (action, n) =>
      page.evaluate(
        async ({ action, n }) => {
          const c = document.querySelector("[data-testid=timeline-canvas]");
          const r = c.getBoundingClientRect();
          const frame = () => new Promise((res) => requestAnimationFrame(() => res()));
          const key = (k) => c.dispatchEvent(new KeyboardEvent("keydown", { key: k, bubbles: true }));
          const wheel = (o) =>
            c.dispatchEvent(new WheelEvent("wheel", { clientX: r.left + 190 + (r.width - 190) * 0.6, clientY: r.top + 300, bubbles: true, cancelable: true, ...o }));
          const out = [];
          for (let i = 0; i < n; i++) {
            if (action === "zoom in/out (wheel)") wheel({ deltaY: i % 40 < 20 ? -120 : 120 });
            else if (action === "zoom (+/- keys)") key(i % 20 < 10 ? "+" : "-");
            else if (action === "pan (wheel deltaX)") wheel({ deltaX: i % 40 < 20 ? 80 : -80 });
            else if (action === "pan (h/l keys)") key(i % 10 < 5 ? "l" : "h");
            else if (action === "scroll lanes (PageDown/PageUp)") key(i % 60 < 30 ? "PageDown" : "PageUp");
            else if (action === "fit then redraw (0)") key(i % 2 ? "0" : "+");
            await frame();
            const draw = Number(c.dataset.drawMs);
            // Reading a pixel makes the canvas rasterize what the frame recorded: the time it
            // takes is the frame's raster cost (software, as --disable-gpu makes it).
            const t = performance.now();
            c.getContext("2d").getImageData(0, 0, 1, 1);
            out.push([draw, draw + performance.now() - t]);
            await frame();
          }
          return out;
        },
        { action, n },
      );

    await page.getByTestId("timeline-canvas").focus();
    for (const action of ["fit then redraw (0)", "pan (h/l keys)", "zoom in/out (wheel)", "zoom (+/- keys)", "pan (wheel deltaX)", "scroll lanes (PageDown/PageUp)"]) {
      // Zoom in a little first so the pans move (a fitted window cannot pan).
      if (action.startsWith("pan")) await run("zoom (+/- keys)", 4);
      const xs = await run(action, FRAMES);
      console.log(`  ${action.padEnd(32)} draw:          ${stats(xs.map((x) => x[0]))}`);
      console.log(`  ${"".padEnd(32)} draw + raster: ${stats(xs.map((x) => x[1]))}`);
    }
    await page.close();
  }
} finally {
  await browser.close();
  await ui.close();
}
