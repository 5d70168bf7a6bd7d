// The delegation tree's virtual list in headless Chromium (IPC mocked, tests/browser.mjs) over a
// synthetic report of 3,000 sessions (30 trees of 100, depth 0-2), whose rows the view host
// answers a block at a time: after wheel steps, pages, jumps to random rows and to either end,
// the rows in the DOM are the right sessions, in row order, each at its row's offset and showing
// that session's parts (and only those: the parts that do not apply are hidden and empty), and
// the visible rows are all there. A jump updates the rows' elements in place: none is created,
// destroyed or moved. Collapsing a node hides its subtree. Rows are asked for in blocks of 100,
// never the whole tree. No timing is asserted (scripts/tree-bench.mjs measures).
// usage: node tests/tree.browser.mjs   (from ui/; needs /usr/bin/chromium or $CHROMIUM)
import assert from "node:assert/strict";
import { browserTest, mockIpc } from "./browser.mjs";

const TREES = 30;
const ROW = 28;

/** The report, and the sessions in tree (pre-)order with the text each row shows. */
function synthetic() {
  const sessions = [];
  const diagnostics = [];
  const order = [];
  let line = 1;
  const place = () => ({ file: "big.jsonl", line: line++ });
  const add = (t, id, parent, depth, hasChildren) => {
    const n = sessions.length;
    const outcome = parent ? (n % 7 === 0 ? "error" : "ok") : null;
    const runs = parent ? [{ parent, start: place(), end: place(), outcome, link: "start-edge" }] : [];
    const label = parent ? `task ${id}` : null;
    sessions.push({ id, parent, root: `r${t}`, depth, label, runs, events: n % 50 });
    const findings = { error: 0, warning: 0, info: 0 };
    if (n % 5 === 0) {
      const severity = ["info", "warning", "error"][n % 3];
      findings[severity] = 1 + (n % 2);
      for (let k = 0; k < findings[severity]; k++) diagnostics.push({ code: "x", severity, at: place(), session: id, message: `finding ${n}` });
    }
    const parts = [hasChildren ? "▾" : "·", label ? `${label} ${id}` : id];
    if (outcome) parts.push(outcome);
    // A root with neither runs nor turns says nothing of them (not "0 runs").
    if (parent) parts.push(`${runs.length} ${runs.length === 1 ? "run" : "runs"}`);
    parts.push(`${n % 50} ev`, `d${depth}`);
    for (const s of ["error", "warning", "info"]) if (findings[s]) parts.push(String(findings[s]));
    order.push({ id, text: parts.join(" "), level: String(depth + 1) });
  };
  for (let t = 0; t < TREES; t++) {
    add(t, `r${t}`, null, 0, true);
    for (let c = 0; c < 9; c++) {
      add(t, `r${t}c${c}`, `r${t}`, 1, true);
      for (let g = 0; g < 10; g++) add(t, `r${t}c${c}g${g}`, `r${t}c${c}`, 2, false);
    }
  }
  const report = {
    report_version: 1,
    inputs: [{ file: "big.jsonl", format: "dsh-rpc", records: line, bad_lines: 0, bytes: line * 400 }],
    sessions,
    turns: [],
    replies: [],
    waits: [],
    diagnostics,
  };
  return { report, order };
}

await browserTest("tree browser test", async ({ ui, newPage }) => {
  const { report, order } = synthetic();
  const page = await newPage({ viewport: { width: 1600, height: 1000 } });
  await mockIpc(page, { report });
  await page.goto(ui.url);
  await page.locator('.node[data-session="r0"]').waitFor();
  const tree = page.locator('[role="tree"]');

  /**
   * Scrolls the tree to `top` and lets it update (the rows come from the view host: it waits
   * frames until none in the window is still being asked for); returns what the DOM then holds.
   */
  const scrollTo = (top) =>
    tree.evaluate(async (el, top) => {
      el.scrollTop = top;
      el.dispatchEvent(new Event("scroll"));
      for (let i = 0; i < 200; i++) {
        await new Promise((res) => requestAnimationFrame(() => res()));
        if (i > 0 && !el.querySelector('.node[aria-busy="true"]')) break;
      }
      return {
        scrollTop: el.scrollTop,
        height: el.clientHeight,
        rows: [...el.querySelectorAll(".slot")].map((slot) => {
          const node = slot.querySelector(".node");
          return {
            top: parseFloat(slot.style.top),
            id: node.dataset.session,
            text: node.textContent.replace(/\s+/g, " ").trim(),
            shown: node.innerText.replace(/\s+/g, " ").trim(),
            level: node.getAttribute("aria-level"),
          };
        }),
      };
    }, top);

  /** Checks the rows against the tree order (`shownOrder`: the rows left visible). */
  const check = (what, dom, shownOrder) => {
    const { rows, scrollTop, height } = dom;
    assert.ok(rows.length > 0, `${what}: rows`);
    rows.forEach((r, i) => {
      const index = r.top / ROW;
      assert.ok(Number.isInteger(index), `${what}: row ${i} at ${r.top}px is on a row boundary`);
      if (i > 0) assert.equal(r.top, rows[i - 1].top + ROW, `${what}: the DOM holds the rows in order, without gaps`);
      const want = shownOrder[index];
      assert.equal(r.id, want.id, `${what}: row ${index} is ${want.id}`);
      assert.equal(r.text, want.text, `${what}: row ${index} (${want.id}) shows its parts`);
      assert.equal(r.shown, want.text, `${what}: row ${index} (${want.id}) shows nothing else`);
      assert.equal(r.level, want.level, `${what}: row ${index} (${want.id}) has its aria-level`);
    });
    const firstVisible = Math.floor(scrollTop / ROW);
    const lastVisible = Math.min(shownOrder.length - 1, Math.floor((scrollTop + height - 1) / ROW));
    assert.ok(rows[0].top / ROW <= firstVisible && rows[rows.length - 1].top / ROW >= lastVisible, `${what}: every visible row is there`);
  };

  const max = order.length * ROW;
  let dom = await scrollTo(0);
  check("top", dom, order);
  const pool = dom.rows.length;
  for (let i = 1; i <= 20; i++) check(`wheel step ${i}`, await scrollTo(i * 3 * ROW), order);
  for (let i = 1; i <= 10; i++) check(`page ${i}`, await scrollTo(dom.scrollTop + i * dom.height), order);

  // Jumps: the same elements, in the same DOM order, updated in place.
  await tree.evaluate((el) => {
    window.__slots = [...el.querySelectorAll(".slot")];
  });
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const jumps = [...Array.from({ length: 30 }, () => Math.floor(rand() * order.length) * ROW + Math.floor(rand() * ROW)), max, 0, max / 2];
  for (const [i, top] of jumps.entries()) {
    dom = await scrollTo(top);
    check(`jump ${i} to ${top}px`, dom, order);
    assert.equal(dom.rows.length, pool, `jump ${i}: the window keeps its size`);
    const same = await tree.evaluate((el) => {
      const now = [...el.querySelectorAll(".slot")];
      return now.length === window.__slots.length && now.every((s, k) => s === window.__slots[k]);
    });
    assert.ok(same, `jump ${i} to ${top}px: the rows' elements are updated in place (none created, destroyed or moved)`);
  }
  console.log(`ok: ${pool} rows in the DOM over ${order.length} sessions; wheel steps, pages and ${jumps.length} jumps show the right rows in order`);
  const asked = await page.evaluate(() => window.__ipcCalls.filter(([c, a]) => c === "tree_rows" && a.of === "open").map(([, a]) => a));
  // TreeView's BLOCK: about two screenfuls, so that a jump asks for little more than it shows.
  assert.ok(asked.length > 0 && asked.every((a) => a.limit === 50 && a.offset % 50 === 0), JSON.stringify(asked.slice(0, 5)));
  console.log(`ok: the rows were asked for in ${asked.length} blocks of 50`);

  // Collapsing r1 hides its 99 descendants; the rows after it move up.
  await scrollTo(90 * ROW);
  await page.locator('.node[data-session="r1"] button.twisty').click();
  const collapsed = order.filter((r) => !/^r1c/.test(r.id)).map((r) => (r.id === "r1" ? { ...r, text: r.text.replace("▾", "▸") } : r));
  check("r1 collapsed", await scrollTo(90 * ROW), collapsed);
  for (const top of [0, 500 * ROW, (collapsed.length - 5) * ROW]) check(`r1 collapsed, jump to ${top}px`, await scrollTo(top), collapsed);
  await scrollTo(90 * ROW);
  await page.locator('.node[data-session="r1"] button.twisty').click();
  check("r1 expanded again", await scrollTo(90 * ROW), order);
  console.log("ok: collapsing a node hides its subtree in the virtual list, expanding shows it again");
});
