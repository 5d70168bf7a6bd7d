// The smaller things a person reads at a glance, in headless Chromium (IPC mocked,
// tests/browser.mjs; pages from the engine's view in the view host):
// - a folder's files in no known format are one folded line of the findings ("27 files skipped"),
//   each file listed on request (the report keeps one `unknown-format` finding per file, SPEC 1/3);
// - the inputs strip names a folder opened with one of its files, or a path given twice, once;
// - Zoom to selection fits the whole of the selected session: every turn of a root, with a margin;
// - the timeline's lanes are named as the tree names its rows (a Claude Code project read by the
//   view host as the app reads it, whose roots are named by their titles);
// - the lower tab (inspector or transcript) and the timeline come back with the selection when a
//   log is opened again, and are saved with its view state.
// usage: node tests/glance.browser.mjs   (from ui/; needs /usr/bin/chromium or $CHROMIUM)
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { browserTest, eventually, mockIpc, UI } from "./browser.mjs";

const T = Date.UTC(2026, 0, 1);
const s = (n) => T + n * 1000;
const FILE = "g.jsonl";
const at = (line) => ({ file: FILE, line });
const SKIPPED = Array.from({ length: 27 }, (_, i) => `notes/file-${String(i).padStart(2, "0")}.md.json`);

const report = {
  report_version: 1,
  inputs: [
    { file: FILE, format: "dsh-rpc", records: 40, bad_lines: 0, bytes: 4000 },
    ...SKIPPED.map((file) => ({ file, format: "unknown", records: 0, bad_lines: 0, bytes: 10 })),
  ],
  sessions: [
    { id: "R", parent: null, root: "R", depth: 0, label: null, runs: [], events: 3 },
    {
      id: "k", parent: "R", root: "R", depth: 1, label: "a sub-agent", events: 1,
      runs: [{ parent: "R", start: at(5), end: at(6), outcome: "ok", link: "start-edge", start_time: s(10), end_time: s(20) }],
    },
    { id: "S", parent: null, root: "S", depth: 0, label: null, runs: [], events: 1 },
  ],
  // R's turns: 100-140 s and 150-200 s; S's: 0-5 s and 290-300 s. The log spans 0-300 s.
  turns: [
    { session: "S", turn: 1, start: at(1), end: at(2), reason: "completed", steps: 0, start_time: s(0), end_time: s(5) },
    { session: "R", turn: 1, start: at(3), end: at(8), reason: "completed", steps: 0, start_time: s(100), end_time: s(140) },
    { session: "R", turn: 2, start: at(9), end: at(20), reason: "completed", steps: 0, start_time: s(150), end_time: s(200) },
    { session: "S", turn: 2, start: at(21), end: at(30), reason: "completed", steps: 0, start_time: s(290), end_time: s(300) },
  ],
  replies: [],
  waits: [],
  diagnostics: [
    { code: "malformed-line", severity: "error", at: at(31), session: null, message: "line 31 is not a JSON object" },
    ...SKIPPED.map((file) => ({ code: "unknown-format", severity: "warning", at: { file, line: 1 }, session: null, message: `${file} is in no known format: skipped` })),
  ],
};

await browserTest("glance browser test", async ({ ui, newPage }) => {
  const page = await newPage({ viewport: { width: 1280, height: 800 } });
  // A folder, one of its files and the folder again (with a trailing slash).
  await mockIpc(page, { report, launch: ["/home/u/logs", "/home/u/logs/g.jsonl", "/home/u/logs/"], answers: { view_state: { session: "R", tab: "findings", lower: "transcript", timeline: true } } });
  await page.goto(ui.url);
  await page.locator('.node[data-session="R"]').waitFor();

  // The inputs strip says the folder once.
  assert.equal(await page.getByTestId("source").textContent(), "/home/u/logs", "a folder and what is in it named once");
  assert.match(await page.getByTestId("inputs-summary").textContent(), /28 files: 1 dsh-rpc, 27 skipped/);
  console.log("ok: the inputs strip names the folder once");

  // The 27 files in no known format: one line, folded, until asked.
  const group = page.locator('[data-group-code="unknown-format"]');
  await group.waitFor();
  assert.equal(await group.getAttribute("data-folded"), "true");
  assert.match(await group.textContent(), /unknown-format\s*27\s*27 files skipped: in no known format · show files/);
  assert.equal(await page.locator('.item[data-code="unknown-format"]').count(), 0, "no row per file");
  assert.equal(await page.locator('.item[data-code="malformed-line"]').count(), 1, "other findings listed");
  await group.click();
  await eventually(() => page.locator('.item[data-code="unknown-format"]').count(), (n) => n >= 3, "the files listed on request");
  assert.equal(await page.locator('[data-group-code="unknown-format"]').getAttribute("data-folded"), "false");
  assert.match(await page.locator('.item[data-code="unknown-format"]').first().textContent(), /notes\/file-00\.md\.json/);
  await page.locator('[data-group-code="unknown-format"]').click();
  await eventually(() => page.locator('.item[data-code="unknown-format"]').count(), (n) => n === 0, "folded again");
  console.log("ok: 27 unknown-format findings are one folded line, the files on request");

  // The lower tab and the timeline came back with the selection, and are saved with it.
  assert.equal(await page.getByTestId("tab-transcript").getAttribute("aria-selected"), "true", "the transcript tab restored");
  await page.getByTestId("timeline-canvas").waitFor();
  await page.locator('.node.selected[data-session="R"]').waitFor();
  await page.getByTestId("tab-inspector").click();
  await page.waitForTimeout(600);
  const saved = await page.evaluate(() => window.__ipcCalls.filter(([c]) => c === "save_view_state").at(-1)?.[1].view);
  assert.equal(saved?.lower, "inspector", JSON.stringify(saved));
  assert.equal(saved?.timeline, true);
  assert.equal(saved?.session, "R");
  console.log("ok: the lower tab and the timeline restored with the selection, and saved");

  // Zoom to selection: R ran two turns, 100-140 s and 150-200 s; the view fits both with a margin.
  const canvas = page.getByTestId("timeline-canvas");
  await page.waitForFunction(() => document.querySelector("[data-testid=timeline-canvas]")?.dataset.viewEnd !== undefined);
  const view = () => canvas.evaluate((c) => ({ start: Number(c.dataset.viewStart), end: Number(c.dataset.viewEnd) }));
  await page.getByTestId("timeline-zoom-selection").click();
  const z = await eventually(view, (v) => v.end - v.start < 200_000, "zoomed in");
  assert.ok(z.start <= s(100) && z.end >= s(200), `the whole of R in view: ${(z.start - T) / 1000}-${(z.end - T) / 1000} s`);
  assert.ok(z.start >= s(85) && z.end <= s(215), `with a margin, not the whole log: ${(z.start - T) / 1000}-${(z.end - T) / 1000} s`);
  // A sub-agent: its one run, 10-20 s.
  await page.locator('.node[data-session="k"]').click();
  await page.getByTestId("timeline-zoom-selection").click();
  const k = await eventually(view, (v) => v.end < s(100), "zoomed to k");
  assert.ok(k.start <= s(10) && k.end >= s(20) && k.end - k.start <= 13_000, `k's run in view: ${(k.start - T) / 1000}-${(k.end - T) / 1000} s`);
  console.log(`ok: zoom to selection fits R's turns (${(z.start - T) / 1000}-${(z.end - T) / 1000} s) and k's run`);

  // Timeline lanes named as the tree names its rows: a Claude Code project read as the app reads it.
  const corpus = resolve(UI, "../../shared/corpus/claude-code/claude-code-viewer");
  if (!existsSync(corpus)) {
    console.log(`skip: lane names (no corpus at ${corpus})`);
    return;
  }
  const cc = await newPage({ viewport: { width: 1280, height: 800 } });
  await mockIpc(cc, { paths: [corpus], launch: [corpus], answers: { view_state: { timeline: true } } });
  await cc.goto(ui.url);
  await cc.locator('[role="tree"] .node[data-session]').first().waitFor();
  await cc.getByTestId("timeline-canvas").waitFor();
  const treeNames = await cc.locator('[role="tree"] .node[data-session]').evaluateAll((nodes) =>
    nodes.map((n) => ({ id: n.dataset.session, name: n.querySelector(".label:not([hidden])")?.textContent?.trim() ?? null })),
  );
  const lanes = await eventually(
    () => cc.getByTestId("timeline-lane-names").locator("li").allTextContents(),
    (l) => l.length > 0,
    "the lanes in view are named",
  );
  const titled = treeNames.filter((r) => r.name);
  assert.ok(titled.length > 0, `the tree names some roots by their titles: ${JSON.stringify(treeNames)}`);
  for (const r of treeNames) {
    const lane = lanes.find((l) => l === r.id || l.endsWith(` ${r.id}`));
    if (!lane) continue;
    assert.equal(lane, r.name ? `${r.name} ${r.id}` : r.id, `the lane of ${r.id} is named as its row`);
  }
  assert.ok(lanes.some((l) => titled.some((r) => l === `${r.name} ${r.id}`)), `a titled lane in view: ${JSON.stringify(lanes)}`);
  console.log(`ok: ${lanes.length} lanes named as the tree names them (${titled.length} titled rows)`);
});
