// The boundary timeline in headless Chromium (IPC mocked, tests/browser.mjs): the built-in sample's
// recorded report draws in every lane, the keyboard zooms and fits, a click on a span selects its
// session everywhere, the full-width pane it opens in resizes on its divider, and the window with
// it is photographed in light and dark (docs/screenshots/).
// usage: node tests/timeline.browser.mjs   (from ui/; needs /usr/bin/chromium or $CHROMIUM)
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { browserTest, mockIpc, UI } from "./browser.mjs";

const AXIS = 26;
const GUTTER = 190;
const LANE = 28;
const SHOTS = resolve(UI, "../docs/screenshots");

/** The report with a time on every span and finding: one second a record from 2025-01-01. */
function withClock(r) {
  const c = structuredClone(r);
  const offsets = new Map();
  let sum = 0;
  for (const i of c.inputs) {
    offsets.set(i.file, sum);
    sum += i.records + i.bad_lines;
  }
  const t = (p) => (p ? Date.UTC(2025, 0, 1) + (offsets.get(p.file) + p.line) * 1000 : undefined);
  for (const turn of c.turns) {
    turn.start_time = t(turn.start);
    turn.end_time = t(turn.end);
    for (const s of turn.step_spans ?? []) Object.assign(s, { start_time: t(s.start), end_time: t(s.end) });
  }
  for (const s of c.sessions) for (const run of s.runs) Object.assign(run, { start_time: t(run.start), end_time: t(run.end) });
  for (const d of c.diagnostics) d.time = t(d.at);
  return c;
}

/** The report with every time removed: wire order. */
function withoutClock(r) {
  const c = structuredClone(r);
  const strip = (o) => {
    delete o.start_time;
    delete o.end_time;
    delete o.time;
  };
  for (const turn of c.turns) {
    strip(turn);
    for (const s of turn.step_spans ?? []) strip(s);
  }
  for (const s of c.sessions) for (const run of s.runs) strip(run);
  for (const d of c.diagnostics) strip(d);
  return c;
}

/** `n` roots, each with one child that ran under it, in wire order: 2n lanes. */
function tallReport(n) {
  const file = "tall.jsonl";
  const sessions = [];
  const turns = [];
  let line = 1;
  for (let i = 0; i < n; i++) {
    const a = line;
    line += 4;
    sessions.push({ id: `r${i}`, parent: null, root: `r${i}`, depth: 0, label: null, events: 2, runs: [] });
    sessions.push({
      id: `r${i}c`, parent: `r${i}`, root: `r${i}`, depth: 1, label: `child of r${i}`, events: 2,
      runs: [{ parent: `r${i}`, start: { file, line: a + 1 }, end: { file, line: a + 2 }, outcome: "ok", link: "start-edge" }],
    });
    turns.push({ session: `r${i}`, turn: 1, start: { file, line: a }, end: { file, line: a + 3 }, reason: "completed", steps: 0 });
  }
  return {
    report_version: 1,
    inputs: [{ file, format: "dsh-rpc", records: line, bad_lines: 0, bytes: 0 }],
    sessions, turns, replies: [], waits: [], diagnostics: [],
  };
}

await browserTest("timeline browser test", async ({ ui, newPage }) => {
  const { REPORTS } = await ui.load("/src/lib/fixtures/reports.ts");
  // The sample's report without its times, so the axis (and what this test clicks) is wire order
  // whether or not the recorded fixture has clocks; the clocked case is checked further down.
  const report = withoutClock(REPORTS[0]);
  const page = await newPage({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 2 });
  await mockIpc(page, { report });
  await page.goto(ui.url);
  await page.getByTestId("tab-timeline").click();
  const canvas = page.getByTestId("timeline-canvas");
  await canvas.waitFor();
  await page.waitForFunction(() => document.querySelector("[data-testid=timeline-canvas]")?.dataset.viewEnd !== undefined);

  const view = () =>
    canvas.evaluate((c) => ({ start: Number(c.dataset.viewStart), end: Number(c.dataset.viewEnd), cssWidth: c.clientWidth, width: c.width }));
  const frame = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

  // HiDPI: the backing store is devicePixelRatio times the CSS size.
  const v0 = await view();
  assert.equal(v0.width, v0.cssWidth * 2, "canvas scaled by devicePixelRatio");
  const axis = await page.getByTestId("timeline-axis").textContent();
  console.log(`axis: ${axis}`);
  assert.equal(axis, "wire order (no clock)");

  /**
   * Columns of a lane's row, right of the labels, with ink (pixels away from the background, which
   * is the colour at the lane's right edge) within `band` (rows of the lane). A column inked over
   * the lane's whole height is a grid line or a connector, not counted.
   */
  const inked = (lane, band = [0, LANE - 1]) =>
    canvas.evaluate(
      (c, { lane, band, AXIS, GUTTER, LANE }) => {
        const dpr = c.width / c.clientWidth;
        const ctx = c.getContext("2d");
        const y0 = Math.round((AXIS + lane * LANE) * dpr);
        const h = Math.round((LANE - 1) * dpr);
        const b0 = Math.round(band[0] * dpr);
        const b1 = Math.round(band[1] * dpr);
        const x0 = Math.round((GUTTER + 2) * dpr);
        const w = c.width - x0;
        const data = ctx.getImageData(x0, y0, w, h).data;
        const bg = ctx.getImageData(c.width - 1, y0 + h - 2, 1, 1).data;
        let columns = 0;
        const xs = [];
        for (let x = 0; x < w; x++) {
          let all = 0;
          let inBand = 0;
          for (let y = 0; y < h; y++) {
            const i = (y * w + x) * 4;
            if (Math.abs(data[i] - bg[0]) + Math.abs(data[i + 1] - bg[1]) + Math.abs(data[i + 2] - bg[2]) > 30) {
              all++;
              if (y >= b0 && y < b1) inBand++;
            }
          }
          if (inBand > 0 && all < h) {
            columns++;
            xs.push(x);
          }
        }
        return { columns: Math.round(columns / dpr), xs: xs.map((x) => (x + x0) / dpr) };
      },
      { lane, band, AXIS, GUTTER, LANE },
    );

  // Every session has something drawn in its lane (a turn, a run on it, or its own run's connector).
  for (let lane = 0; lane < report.sessions.length; lane++) {
    const { columns } = await inked(lane);
    assert.ok(columns > 3, `lane ${lane} (${report.sessions[lane].id}) has ink: ${columns} columns`);
  }
  console.log(`ok: all ${report.sessions.length} lanes drawn`);

  // Keyboard zoom: three `+` narrow the window 1.5^3 times; `-` widens it; `0` fits again.
  await canvas.focus();
  for (let i = 0; i < 3; i++) await page.keyboard.press("+");
  await frame();
  const z = await view();
  const ratio = (v0.end - v0.start) / (z.end - z.start);
  assert.ok(Math.abs(ratio - 3.375) < 1e-6, `zoomed 3.375x, got ${ratio}`);
  assert.ok(z.start >= v0.start && z.end <= v0.end, "zoomed window inside the domain");
  await page.keyboard.press("l");
  await frame();
  const panned = await view();
  assert.ok(panned.start > z.start, "l pans later");
  assert.ok(Math.abs(panned.end - panned.start - (z.end - z.start)) < 1e-6, "panning keeps the width");
  await page.keyboard.press("0");
  await frame();
  assert.deepEqual(await view(), v0, "0 fits the whole domain again");
  console.log(`ok: zoom ${ratio.toFixed(3)}x with +, pan with l, fit with 0`);

  // The wheel zooms around the pointer: the domain point under it stays under it.
  const cb = await canvas.boundingBox();
  const px = 400;
  const under = (v) => v.start + ((px - GUTTER) / (v.cssWidth - GUTTER)) * (v.end - v.start);
  await page.mouse.move(cb.x + px, cb.y + 200);
  await page.mouse.wheel(0, -300);
  await frame();
  const w1 = await view();
  assert.ok(w1.end - w1.start < (v0.end - v0.start) * 0.9, "the wheel zoomed in");
  // Within a pixel: a wheel event's clientX is a whole number, the canvas's left edge need not be.
  const pixel = (v0.end - v0.start) / (v0.cssWidth - GUTTER);
  assert.ok(Math.abs(under(w1) - under(v0)) < pixel, `zoom kept the point under the pointer: ${under(w1)} vs ${under(v0)}`);
  // A drag pans (left drag: later) and selects nothing.
  const before = await page.evaluate(() => document.querySelector(".node.selected")?.getAttribute("data-session") ?? null);
  await page.mouse.down();
  await page.mouse.move(cb.x + px - 60, cb.y + 200, { steps: 4 });
  await page.mouse.up();
  await frame();
  const w2 = await view();
  const moved = ((w2.start - w1.start) / (w1.end - w1.start)) * (w1.cssWidth - GUTTER);
  assert.ok(Math.abs(moved - 60) < 1, `a 60 px drag panned ${moved.toFixed(2)} px`);
  assert.equal(await page.evaluate(() => document.querySelector(".node.selected")?.getAttribute("data-session") ?? null), before, "a drag is not a click");
  await page.keyboard.press("0");
  await frame();
  console.log(`ok: wheel zoom around the pointer, drag pans ${moved.toFixed(1)} px`);

  // Click a turn span: the lane of `planner` (a session with a turn), in its turn band below the
  // step (rows 22-25 of the lane hold only the turn).
  const lane = report.sessions.findIndex((s) => s.id === "planner");
  const { xs } = await inked(lane, [23, 25]);
  assert.ok(xs.length > 0, "planner's turn band has ink");
  const box = await canvas.boundingBox();
  const x = xs[Math.floor(xs.length / 2)];
  await page.mouse.move(box.x + x, box.y + AXIS + lane * LANE + 24);
  await frame();
  const hover = await page.getByTestId("timeline-hover").textContent();
  assert.match(hover, /^planner · turn 1 · delegation\.jsonl:\d+$/, `status line names the turn: ${hover}`);
  await page.mouse.click(box.x + x, box.y + AXIS + lane * LANE + 24);
  await frame();
  const selected = await page.evaluate(() => document.querySelector(".node.selected")?.getAttribute("data-session"));
  assert.equal(selected, "planner", "clicking the span selects its session in the tree");
  // ... and the turn's start record in the inspector (a click on the empty lane selects no place).
  const turnStart = report.turns.find((t) => t.session === "planner").start;
  assert.equal(await page.getByTestId("inspector-place").textContent(), `${turnStart.file}:${turnStart.line}`);
  console.log("ok: click on a span selected planner in the tree");

  // The selected lane is highlighted: its label background differs from an unselected one's.
  const shade = (l) =>
    canvas.evaluate((c, y) => Array.from(c.getContext("2d").getImageData(40, Math.round(y * 2), 1, 1).data), AXIS + l * LANE + 3);
  assert.notDeepEqual(await shade(lane), await shade(lane === 0 ? 1 : 0), "selected lane highlighted");

  // Selection from the tree: clicking another session there moves the highlight here.
  await page.locator('.node[data-session="fact-checker"]').click();
  await frame();
  const other = report.sessions.findIndex((s) => s.id === "fact-checker");
  assert.notDeepEqual(await shade(other), await shade(lane), "highlight follows the tree's selection");
  console.log("ok: selection from the tree highlights the lane");

  // Opening the tab after a selection elsewhere shows the selected lane (checked on a tall report below).

  // The pane spans the window under the tree and the tabs; the divider above it resizes it (drag
  // or arrows), and the height is kept when it is closed and opened again ("t" and the button).
  const pane = page.locator(".pane.timeline");
  const paneBox = await pane.boundingBox();
  const treeBox = await page.locator(".pane.tree").boundingBox();
  const sideBox = await page.locator(".pane.side").boundingBox();
  assert.ok(paneBox.y >= treeBox.y + treeBox.height, "the timeline is under the tree");
  assert.ok(Math.abs(paneBox.width - (sideBox.x + sideBox.width - treeBox.x)) <= 2, `the timeline is as wide as tree and tabs: ${paneBox.width}`);
  const divider = page.getByTestId("timeline-divider");
  const db = await divider.boundingBox();
  await page.mouse.move(db.x + 200, db.y + 3);
  await page.mouse.down();
  await page.mouse.move(db.x + 200, db.y + 3 - 60, { steps: 5 });
  await page.mouse.up();
  await frame();
  const dragged = await pane.boundingBox();
  const after = await divider.boundingBox();
  assert.ok(Math.abs(after.y - (db.y - 60)) <= 2, `the divider follows the pointer: ${db.y} -> ${after.y}`);
  assert.ok(dragged.height > paneBox.height + 60, `dragging up makes the timeline taller: ${paneBox.height} -> ${dragged.height}`);
  await divider.focus();
  await page.keyboard.press("ArrowDown");
  await frame();
  const keyed = (await pane.boundingBox()).height;
  assert.ok(Math.abs(dragged.height - 24 - keyed) <= 1, `ArrowDown on the divider takes 24 px: ${dragged.height} -> ${keyed}`);
  await page.getByTestId("tab-timeline").click();
  await pane.waitFor({ state: "detached" });
  await page.locator(".pane.tree").click({ position: { x: 5, y: 5 } });
  await page.keyboard.press("t");
  await pane.waitFor();
  await frame();
  assert.ok(Math.abs((await pane.boundingBox()).height - keyed) <= 1, "the height is kept while the app runs");
  console.log(`ok: the timeline pane spans ${Math.round(paneBox.width)} px; its divider resizes it (${Math.round(paneBox.height)} -> ${Math.round(keyed)} px), kept across t`);

  // Screenshots in both themes: the window (at the other screenshots' size and scale), with the
  // timeline in its pane and a session selected.
  mkdirSync(SHOTS, { recursive: true });
  const shot = await newPage({ viewport: { width: 1280, height: 960 } });
  await mockIpc(shot, { report });
  await shot.goto(ui.url);
  await shot.getByTestId("tab-timeline").click();
  await shot.locator('.node[data-session="planner"]').click();
  for (const theme of ["light", "dark"]) {
    await shot.getByLabel("Theme").selectOption(theme);
    await shot.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    await shot.screenshot({ path: `${SHOTS}/timeline-${theme}.png` });
  }
  await shot.close();
  console.log(`ok: screenshots in ${SHOTS}`);

  // The same log with a clock: every span timed, so the axis is time and every lane still drawn.
  const clocked = withClock(report);
  const timed = await newPage({ viewport: { width: 1280, height: 800 } });
  await mockIpc(timed, { report: clocked });
  await timed.goto(ui.url);
  await timed.getByTestId("tab-timeline").click();
  assert.equal(await timed.getByTestId("timeline-axis").textContent(), "time");
  const tc = timed.getByTestId("timeline-canvas");
  await timed.waitForFunction(() => document.querySelector("[data-testid=timeline-canvas]")?.dataset.viewEnd !== undefined);
  const tv = await tc.evaluate((c) => [Number(c.dataset.viewStart), Number(c.dataset.viewEnd)]);
  assert.ok(tv[0] >= 1.7e12 && tv[1] > tv[0], `time window in epoch ms: ${tv}`);
  await timed.getByTestId("timeline-axis-switch").click();
  assert.equal(await timed.getByTestId("timeline-axis").textContent(), "wire order");
  await timed.waitForFunction(() => Number(document.querySelector("[data-testid=timeline-canvas]")?.dataset.viewEnd) < 1e6);
  await timed.close();
  console.log("ok: a clocked log gets the time axis, and wire order on request");

  // A tall report (400 lanes): choosing a session far down in the tree scrolls the timeline to
  // its lane; a selection made before the tab opens is shown when it opens.
  const tall = tallReport(200);
  const big = await newPage({ viewport: { width: 1280, height: 800 } });
  await mockIpc(big, { report: tall });
  await big.goto(ui.url);
  const bc = big.getByTestId("timeline-canvas");
  const drawn = () => big.waitForFunction(() => document.querySelector("[data-testid=timeline-canvas]")?.dataset.viewEnd !== undefined);
  const settle = () => big.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const laneInView = async (id) => {
    const lane = tall.sessions.findIndex((s) => s.id === id);
    const { scrollY, rows } = await bc.evaluate((c) => ({ scrollY: Number(c.dataset.scrollY), rows: c.clientHeight - 26 }));
    return { lane, scrollY, ok: lane * LANE >= scrollY && (lane + 1) * LANE <= scrollY + rows };
  };
  // Selected while the Findings tab shows; the timeline opens on that lane.
  await big.locator('[role="tree"]').evaluate((el) => (el.scrollTop = el.scrollHeight));
  await big.locator('.node[data-session="r195c"]').click();
  await big.getByTestId("tab-timeline").click();
  await drawn();
  await settle();
  const opened = await laneInView("r195c");
  assert.ok(opened.scrollY > 0 && opened.ok, `lane ${opened.lane} in view when the tab opens: scrollY ${opened.scrollY}`);
  // Selected in the tree while the timeline shows: it scrolls back up to the lane.
  await big.locator('[role="tree"]').evaluate((el) => (el.scrollTop = 0));
  await big.locator('.node[data-session="r4c"]').click();
  await settle();
  const back = await laneInView("r4c");
  assert.ok(back.ok && back.scrollY < opened.scrollY, `lane ${back.lane} in view after a tree selection: scrollY ${back.scrollY}`);
  await big.close();
  console.log("ok: tree selection scrolls the timeline to the lane (400 lanes)");
});
