// The tree pane's order in headless Chromium (IPC mocked, tests/browser.mjs; the rows come from
// the engine's view in the view host): a log whose view state saved an order opens in it;
// choosing subtree tokens, own tokens, subtree cost or the log's order shows the siblings (the roots among
// them) in that order, most first and sessions without tokens last, each under its parent, the
// selected session still selected and in view; the choice is saved in the log's view state, and
// the log's order saves none.
// usage: node tests/tree-order.browser.mjs   (from ui/; needs /usr/bin/chromium or $CHROMIUM)
import assert from "node:assert/strict";
import { browserTest, mockIpc } from "./browser.mjs";

const tokens = (n) => (n === null ? undefined : { input: n, output: 0, cache_read: 0, cache_write: 0 });

/** A session with its own tokens and its subtree's (`null`: the log counts none). */
function session(id, parent, depth, own, subtree, cost) {
  const runs = parent ? [{ parent, start: { file: "t.jsonl", line: depth + 1 }, end: null, outcome: "ok", link: "start-edge" }] : [];
  const s = { id, parent, root: parent ? "R" : id, depth, label: null, runs, events: 1 };
  if (own !== null) s.usage = tokens(own);
  if (subtree !== null) s.subtree_usage = cost === undefined ? tokens(subtree) : { ...tokens(subtree), cost };
  return s;
}

const report = {
  report_version: 1,
  inputs: [{ file: "t.jsonl", format: "dsh-rpc", records: 10, bad_lines: 0, bytes: 1000 }],
  sessions: [
    // The subtree's cost orders otherwise than its tokens: S has the most tokens and costs least.
    session("R", null, 0, 10, 310, 4),
    session("a", "R", 1, 100, 100, 1),
    session("b", "R", 1, 5, 200, 3),
    session("b1", "b", 2, 195, 195, 3),
    session("c", "R", 1, null, null),
    session("S", null, 0, 1000, 1000, 0.1),
  ],
  turns: [],
  replies: [],
  waits: [],
  diagnostics: [],
};

const WIRE = ["R", "a", "b", "b1", "c", "S"];
const SUBTREE = ["S", "R", "b", "b1", "a", "c"];
const OWN = ["S", "R", "a", "b", "b1", "c"];
const COST = ["R", "b", "b1", "a", "c", "S"];

await browserTest("tree order browser test", async ({ ui, newPage }) => {
  const page = await newPage({ viewport: { width: 1400, height: 900 } });
  await mockIpc(page, { report, answers: { view_state: { session: "b1", order: "own-tokens" } } });
  await page.goto(ui.url);
  await page.locator('.node[data-session="R"]').waitFor();
  const ids = () => page.locator('[role="tree"] .node[data-session]').evaluateAll((nodes) => nodes.map((n) => n.dataset.session));
  const order = page.getByTestId("tree-order");
  const waitFor = async (want, what) => {
    for (let i = 0; i < 100; i++) {
      if (JSON.stringify(await ids()) === JSON.stringify(want)) return;
      await page.waitForTimeout(20);
    }
    assert.deepEqual(await ids(), want, what);
  };
  await waitFor(OWN, "the order saved for this log is restored");
  assert.equal(await order.inputValue(), "own-tokens");
  const levels = await page.locator('[role="tree"] .node[data-session]').evaluateAll((nodes) => nodes.map((n) => `${n.dataset.session}:${n.getAttribute("aria-level")}`));
  assert.deepEqual(levels, ["S:1", "R:1", "a:2", "b:2", "b1:3", "c:2"], "each session keeps its depth");
  console.log("ok: a saved order is restored, siblings by own tokens, sessions without tokens last");

  await order.selectOption("subtree-tokens");
  await waitFor(SUBTREE, "siblings by subtree tokens");
  assert.equal(await page.locator('.node.selected').getAttribute("data-session"), "b1", "the selection stays");
  await page.waitForTimeout(600);
  const saved = await page.evaluate(() => window.__ipcCalls.filter(([c]) => c === "save_view_state").map(([, a]) => a.view));
  assert.equal(saved.at(-1)?.order, "subtree-tokens", `the order is saved with the log's view state: ${JSON.stringify(saved.at(-1))}`);
  assert.equal(saved.at(-1)?.session, "b1");
  console.log("ok: ordered by subtree tokens, the selection kept, the order saved");

  await order.selectOption("subtree-cost");
  await waitFor(COST, "siblings by their subtree's cost, sessions without one last");
  console.log("ok: ordered by subtree cost");

  await order.selectOption("wire");
  await waitFor(WIRE, "the log's own order again");
  await page.waitForTimeout(600);
  const last = await page.evaluate(() => window.__ipcCalls.filter(([c]) => c === "save_view_state").at(-1)[1].view);
  assert.equal(last.order, undefined, "the log's order is the default: nothing saved for it");
  const asked = await page.evaluate(() => window.__ipcCalls.filter(([c, a]) => c === "tree_rows" && a.of === "open").map(([, a]) => a.order));
  assert.ok(asked.includes("subtree-tokens") && asked.includes("own-tokens") && asked.includes("wire"), JSON.stringify(asked));
  console.log("ok: the log's order comes back, and is not saved");
});
