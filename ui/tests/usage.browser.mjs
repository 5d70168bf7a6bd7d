// The usage table and the tree's orders by duration in headless Chromium (IPC mocked,
// tests/browser.mjs; the rows come from the engine's view in the view host): the Usage tab lists
// every session of the tree with its own or its subtree's tokens, cost, duration and turns; a
// click on a column sorts by it most first, again least first (sessions without the value last
// either way), a third time back to the tree's order; the sort is saved with the log's view state
// and restored with it; a row selects its session everywhere; the tree's order offers the own and
// the subtree's duration. The table is photographed for the closing note (/work/shots-ui32 when
// it exists).
// usage: node tests/usage.browser.mjs   (from ui/; needs /usr/bin/chromium or $CHROMIUM)
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { browserTest, eventually, mockIpc } from "./browser.mjs";

const T = Date.UTC(2026, 0, 1);
const s = (n) => T + n * 1000;
const FILE = "u.jsonl";
const at = (line) => ({ file: FILE, line });
const usage = (tokens, cost) => ({ input: tokens, output: 0, cache_read: 0, cache_write: 0, cost });

/** A session (`own`, `subtree`: [tokens, cost] or null) whose run, under `parent`, went from `from` to `to` seconds. */
function session(id, parent, depth, own, subtree, from, to, line) {
  const runs = parent ? [{ parent, start: at(line), end: at(line + 1), outcome: "ok", link: "start-edge", start_time: s(from), end_time: s(to) }] : [];
  const x = { id, parent, root: parent ? "R" : id, depth, label: parent ? `task ${id}` : null, runs, events: 1 };
  if (own) x.usage = usage(...own);
  if (subtree) x.subtree_usage = usage(...subtree);
  return x;
}

const report = {
  report_version: 1,
  inputs: [{ file: FILE, format: "dsh-rpc", records: 40, bad_lines: 0, bytes: 4000 }],
  sessions: [
    session("R", null, 0, [10, 0.4], [510, 4.0]),
    session("a", "R", 1, [100, 1.0], [100, 1.0], 10, 20, 3),
    session("b", "R", 1, [5, 0.05], [400, 2.6], 30, 90, 5),
    session("b1", "b", 2, [395, 2.55], [395, 2.55], 40, 85, 7),
    session("c", "R", 1, null, null, NaN, NaN, 9),
    session("S", null, 0, [1000, 0.1], [1000, 0.1]),
  ],
  // R's two turns span 0-100 s; S's one 100-105 s.
  turns: [
    { session: "R", turn: 1, start: at(1), end: at(2), reason: "completed", steps: 0, start_time: s(0), end_time: s(40) },
    { session: "R", turn: 2, start: at(11), end: at(20), reason: "completed", steps: 0, start_time: s(50), end_time: s(100) },
    { session: "S", turn: 1, start: at(21), end: at(30), reason: "completed", steps: 0, start_time: s(100), end_time: s(105) },
  ],
  replies: [],
  waits: [],
  diagnostics: [],
};
// c never ran on the clock: its run has no times.
for (const r of report.sessions.find((x) => x.id === "c").runs) {
  delete r.start_time;
  delete r.end_time;
}

const WIRE = ["R", "a", "b", "b1", "c", "S"];

await browserTest("usage browser test", async ({ ui, newPage }) => {
  const page = await newPage({ viewport: { width: 1280, height: 800 } });
  await mockIpc(page, { report, answers: { view_state: { session: "b" } } });
  await page.goto(ui.url);
  await page.locator('.node[data-session="R"]').waitFor();
  await page.getByTestId("tab-usage").click();
  const table = page.getByTestId("usage-table");
  await table.waitFor();
  const ids = () => table.getByTestId("usage-row").evaluateAll((rows) => rows.map((r) => r.dataset.id));
  const rowsAre = (want, what) => eventually(ids, (got) => JSON.stringify(got) === JSON.stringify(want), what);
  const cell = (id, column) => table.locator(`[data-testid="usage-row"][data-id="${id}"] [data-column="${column}"]`).textContent();
  const heading = (column) => table.locator(`.head [data-column="${column}"]`);

  await rowsAre(WIRE, "every session, in the tree's order");
  assert.equal(await cell("b", "tokens"), "5");
  assert.equal(await cell("b", "cost"), "$0.05");
  assert.equal(await cell("b", "duration"), "1m 00s", "b ran 30-90 s");
  assert.equal(await cell("R", "duration"), "1m 40s", "R's turns span 0-100 s");
  assert.equal(await cell("R", "turns"), "2");
  assert.equal(await cell("c", "duration"), "", "no clock, no duration");
  console.log("ok: every session with its own tokens, cost, duration and turns");

  await heading("cost").click();
  await rowsAre(["b1", "a", "R", "S", "b", "c"], "by own cost, most first, none last");
  assert.equal(await heading("cost").getAttribute("aria-sort"), "descending");
  await heading("duration").click();
  await rowsAre(["R", "b", "b1", "a", "S", "c"], "by own duration, longest first, no clock last");
  console.log("ok: sorted by cost and by duration, most first");

  await page.getByTestId("usage-scope-subtree").click();
  await heading("tokens").click();
  await rowsAre(["S", "R", "b", "b1", "a", "c"], "by subtree tokens");
  assert.equal(await cell("b", "tokens"), "400", "b with its sub-agent");
  assert.equal(await cell("b", "duration"), "1m 00s", "b's subtree: 30-90 s (b1 ran inside it)");
  assert.equal(await cell("R", "turns"), "2", "R's subtree's turns: its own (the sub-agents ran none)");
  await heading("tokens").click();
  await rowsAre(["a", "b1", "b", "R", "S", "c"], "least first, none still last");
  assert.equal(await heading("tokens").getAttribute("aria-sort"), "ascending");
  await page.waitForTimeout(600);
  const saved = () => page.evaluate(() => window.__ipcCalls.filter(([c]) => c === "save_view_state").at(-1)?.[1].view);
  assert.equal((await saved())?.usage, "tokens subtree asc", "the sort is kept with the log's view state");
  await heading("tokens").click();
  await rowsAre(WIRE, "a third click: the tree's order again");
  console.log("ok: subtree counts; least first; back to the tree's order; the sort saved");

  // A row selects its session in the tree.
  await table.locator('[data-testid="usage-row"][data-id="b1"]').click();
  await page.locator('.node.selected[data-session="b1"]').waitFor();
  console.log("ok: a row selects its session everywhere");

  // The tree orders siblings by duration too.
  const order = page.getByTestId("tree-order");
  const tree = () => page.locator('[role="tree"] .node[data-session]').evaluateAll((nodes) => nodes.map((n) => n.dataset.session));
  await order.selectOption("own-duration");
  await eventually(tree, (t) => JSON.stringify(t) === JSON.stringify(["R", "b", "b1", "a", "c", "S"]), "siblings by their own duration");
  await order.selectOption("subtree-duration");
  await eventually(tree, (t) => JSON.stringify(t) === JSON.stringify(["R", "b", "b1", "a", "c", "S"]), "siblings by their subtree's duration");
  await page.waitForTimeout(600);
  assert.equal((await saved())?.order, "subtree-duration");
  console.log("ok: the tree orders siblings by duration, the choice saved");

  // Opened again: the saved sort comes back, with the tab.
  const again = await newPage({ viewport: { width: 1280, height: 800 } });
  await mockIpc(again, { report, answers: { view_state: { tab: "usage", usage: "cost subtree desc" } } });
  await again.goto(ui.url);
  const t2 = again.getByTestId("usage-table");
  await t2.waitFor();
  await eventually(
    () => t2.getByTestId("usage-row").evaluateAll((rows) => rows.map((r) => r.dataset.id)),
    (got) => JSON.stringify(got) === JSON.stringify(["R", "b", "b1", "a", "S", "c"]),
    "the saved sort (subtree cost, most first) is restored",
  );
  assert.equal(await again.getByTestId("usage-scope-subtree").getAttribute("aria-pressed"), "true");
  if (existsSync("/work/shots-ui32")) await again.screenshot({ path: "/work/shots-ui32/usage-browser.png" });
  console.log("ok: the usage tab and its sort come back with the log");
});
