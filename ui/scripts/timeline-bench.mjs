// Frame time of the boundary timeline on a synthetic report: 10,000 lanes (100 trees of 100
// sessions) and over a million spans and markers, in headless Chromium with the IPC mocked
// (tests/browser.mjs). Prints the time to the first frame and p50/p95/max of the draw time per
// frame (performance.now() around the renderers, read from the canvas's data-draw-ms) for zoom,
// pan and lane scrolling. Figures only: nothing is asserted (the CPU is shared).
// usage: node scripts/timeline-bench.mjs [frames per action, default 120]   (from ui/)
import { launch, mockIpc, startUi } from "../tests/browser.mjs";

const FRAMES = Number(process.argv[2] ?? 120);

/** Runs in the page: the synthetic report, everything with a clock (so the axis is time). */
function buildReport() {
  const TREES = 100;
  const TURNS = 40;
  const STEPS = 2;
  const FINDINGS = 12;
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
        ? [{ parent, start: place(), end: place(), outcome: rand() < 0.1 ? "error" : "ok", start_time: start, end_time: end }]
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
    for (let c = 0; c < 9; c++) {
      add(`r${t}c${c}`, `r${t}`, 1);
      for (let g = 0; g < 10; g++) add(`r${t}c${c}g${g}`, `r${t}c${c}`, 2);
    }
  }
  return {
    report_version: 1,
    inputs: [{ file, format: "dsh-rpc", records: line, bad_lines: 0 }],
    sessions,
    turns,
    replies: [],
    waits: [],
    diagnostics,
  };
}

function stats(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return `p50 ${q(0.5).toFixed(2)} ms  p95 ${q(0.95).toFixed(2)} ms  max ${s[s.length - 1].toFixed(2)} ms  (n=${s.length})`;
}

const ui = await startUi();
const browser = await launch();
try {
  for (const dpr of [1, 2]) {
    const page = await browser.newPage({ viewport: { width: 1600, height: 1000 }, deviceScaleFactor: dpr });
    page.on("pageerror", (e) => console.error("page error:", e.message));
    await mockIpc(page, { build: buildReport.toString() });
    await page.goto(ui.url);
    await page.getByTestId("tab-timeline").waitFor({ timeout: 120_000 });
    const counts = await page.evaluate(() => 0);
    void counts;
    const t0 = Date.now();
    await page.getByTestId("tab-timeline").click();
    await page.waitForFunction(() => document.querySelector("[data-testid=timeline-canvas]")?.dataset.drawMs !== undefined, null, { timeout: 120_000 });
    const firstFrame = Date.now() - t0;
    const lanes = await page.getByTestId("timeline-canvas").evaluate(() => document.querySelector(".timeline .head")?.textContent ?? "");
    console.log(`\ndevicePixelRatio ${dpr}, 1600x1000: ${lanes.replace(/\s+/g, " ").trim()}`);
    console.log(`  tab click to first frame (model build + first draw): ${firstFrame} ms`);

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
            await frame();
            out.push(Number(c.dataset.drawMs));
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
      console.log(`  ${action.padEnd(32)} ${stats(xs)}`);
    }
    await page.close();
  }
} finally {
  await browser.close();
  await ui.close();
}
