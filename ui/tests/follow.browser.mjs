// Follow in headless Chromium (IPC mocked, tests/browser.mjs): a log written in the last minutes
// opens followed (set_follow asked, the live indicator shown); `changed` messages with a `follow`
// part, as the app sends them while the log grows, make the tree ask again: new sessions and runs
// appear under their parents, the selected session stays selected, and the indicator says when
// the log last changed. The switch turns Follow off and remembers it for that log. The selected
// session's transcript grows at its bottom: a reader at the bottom is scrolled on to the new
// items, a reader above stays where they read.
// usage: node tests/follow.browser.mjs   (from ui/; needs /usr/bin/chromium or $CHROMIUM)
import assert from "node:assert/strict";
import { browserTest, mockIpc } from "./browser.mjs";
import { syntheticTranscript, transcriptReport } from "./transcript-fixture.mjs";

/** A report of `sessions` ([id, parent]) read from one file. */
function report(sessions) {
  let line = 1;
  const place = () => ({ file: "run.jsonl", line: line++ });
  const depth = (id) => {
    let d = 0;
    for (let p = sessions.find((s) => s[0] === id)[1]; p; p = sessions.find((s) => s[0] === p)[1]) d++;
    return d;
  };
  return {
    report_version: 1,
    inputs: [{ file: "run.jsonl", format: "dsh-rpc", records: sessions.length * 2, bad_lines: 0, bytes: 1000 }],
    sessions: sessions.map(([id, parent]) => ({
      id,
      parent,
      root: "root",
      depth: depth(id),
      label: null,
      runs: parent ? [{ parent, start: place(), end: place(), outcome: "ok", link: "tool-call" }] : [],
      events: 2,
    })),
    turns: [],
    replies: [],
    waits: [],
    diagnostics: [],
  };
}

const ids = (page) => page.$$eval("[data-session]", (rows) => rows.map((r) => r.getAttribute("data-session")));
const calls = (page, cmd) => page.evaluate((cmd) => window.__ipcCalls.filter((c) => c[0] === cmd).map((c) => c[1]), cmd);

await browserTest("follow browser test", async ({ ui, newPage, fail }) => {
  const page = await newPage({ viewport: { width: 1280, height: 800 } });
  await mockIpc(page, {
    report: report([["root", null], ["kid", "root"]]),
    launch: ["/logs/run.jsonl"],
    answers: {
      follow_state: { following: false, modified_ago: 12, recent: true },
      set_follow: { following: true, modified_ago: 12, recent: true },
    },
  });
  await page.goto(ui.url);
  await page.waitForSelector('[data-session="kid"]', { timeout: 20_000 }).catch(async (e) => { console.error(await page.textContent("body")); throw e; });
  // Written 12 s ago: followed at once.
  await page.waitForSelector('[data-testid="live-indicator"]');
  assert.deepEqual(await calls(page, "set_follow"), [{ on: true }]);
  assert.equal(await page.isChecked('[data-testid="follow"]'), true);
  assert.match(await page.textContent('[data-testid="live-indicator"]'), /following · waiting for changes/);

  await page.click('[data-session="kid"]');
  await page.waitForSelector('[data-session="kid"][aria-selected="true"]');

  // The log grows: a grandchild under kid and a second root; then a run of kid's grandchild.
  const rev = await page.evaluate(
    (r) => window.__arborFollowGrow(r, ["run.jsonl"]),
    report([["root", null], ["kid", "root"], ["grand", "kid"], ["other", null]]),
  );
  await page.waitForFunction(() => document.querySelector('[data-session="other"]') !== null, null, { timeout: 10_000 });
  assert.deepEqual(await ids(page), ["root", "kid", "grand", "other"]);
  assert.equal(await page.getAttribute('[data-session="kid"]', "aria-selected"), "true", "the selection stays");
  assert.equal((await page.$$('[aria-selected="true"][data-session]')).length, 1);
  assert.match(await page.textContent('[data-testid="live-indicator"]'), /following · updated just now/);
  await page.waitForFunction((rev) => document.documentElement.dataset.drawnRevision === String(rev), rev, { timeout: 10_000 });
  // The summary's counts move on with it.
  assert.match(await page.textContent('section[aria-label="Inputs"]'), /4 sessions/);

  // A second change: the tree grows again, the older revision's rows are not kept.
  await page.evaluate((r) => window.__arborFollowGrow(r), report([["root", null], ["kid", "root"], ["grand", "kid"], ["great", "grand"], ["other", null]]));
  await page.waitForFunction(() => document.querySelector('[data-session="great"]') !== null, null, { timeout: 10_000 });
  assert.equal(await page.getAttribute('[data-session="kid"]', "aria-selected"), "true");

  // Off: asked of the app, the indicator goes, and the choice is saved for this log.
  await page.click('[data-testid="follow"]');
  await page.waitForSelector('[data-testid="live-indicator"]', { state: "detached" });
  const follows = await calls(page, "set_follow");
  assert.deepEqual(follows.at(-1), { on: false });
  await page.waitForFunction(() => window.__ipcCalls.some((c) => c[0] === "save_view_state" && c[1].view.follow === false), null, { timeout: 5_000 });
  if ((await ids(page)).length !== 5) fail("the tree should keep what it showed after Follow is off", await ids(page));

  // The transcript of the selected session grows while the log is followed.
  const reader = await newPage({ viewport: { width: 1280, height: 800 } });
  let rows = 40;
  let synthetic = syntheticTranscript(rows);
  // The transcript answers of a log whose root has `rows` items (it grows with each change).
  const growing = {
    page: (...a) => synthetic.page(...a),
    part: (...a) => synthetic.part(...a),
    locate: (...a) => synthetic.locate(...a),
    find: (...a) => synthetic.find(...a),
  };
  const grow = async (n) => {
    rows = n;
    synthetic = syntheticTranscript(rows);
    const rev = await reader.evaluate((r) => window.__arborFollowGrow(r, ["run.jsonl"]), transcriptReport(rows, rows));
    await reader.waitForFunction((n) => document.querySelector("[data-testid=transcript-total]")?.textContent === `${n} items`, n, { timeout: 10_000 });
    return rev;
  };
  await mockIpc(reader, {
    report: transcriptReport(rows, rows),
    transcript: growing,
    launch: ["/logs/run.jsonl"],
    answers: {
      follow_state: { following: false, modified_ago: 3, recent: true },
      set_follow: { following: true, modified_ago: 3, recent: true },
    },
  });
  await reader.goto(ui.url);
  await reader.locator('.node[data-session="root"]').click();
  await reader.getByTestId("tab-transcript").click();
  await reader.waitForSelector('[data-testid="live-indicator"]');
  const item = (row) => reader.locator(`[data-testid=transcript] .item[data-row="${row}"]`);
  await item(0).waitFor();
  const viewport = reader.getByTestId("transcript");
  const atBottom = () => viewport.evaluate((el) => el.scrollTop + el.clientHeight >= el.scrollHeight - 2);
  // At the bottom: the new items come into view, the view stays at the bottom.
  // (Scrolled again until the rows drawn at the end are measured and it stays there.)
  await reader.waitForFunction(() => {
    const el = document.querySelector("[data-testid=transcript]");
    const at = el.scrollTop + el.clientHeight >= el.scrollHeight - 2 && el.querySelector('.item[data-row="39"]');
    el.scrollTop = el.scrollHeight;
    return at;
  }, null, { polling: 100, timeout: 10_000 });
  await reader.waitForTimeout(300);
  assert.equal(await atBottom(), true, "at the bottom before the log grows");
  const totals = () => reader.getByTestId("transcript-usage").textContent();
  // The header's totals are the log's as it is now, not as it was first read.
  assert.equal(await totals(), "subtree 152.5k tokens · $1.90 + 11.1k tokens unpriced");
  await grow(60);
  await reader.waitForFunction(() => document.querySelector("[data-testid=transcript-usage]")?.textContent === "subtree 154.7k tokens · $2.10 + 11.1k tokens unpriced", null, { timeout: 10_000 })
    .catch(async () => fail("the transcript's totals should follow the log", await totals()));
  await item(59).waitFor({ timeout: 10_000 });
  await reader.waitForFunction(() => {
    const el = document.querySelector("[data-testid=transcript]");
    return el.scrollTop + el.clientHeight >= el.scrollHeight - 2;
  }, null, { timeout: 10_000 }).catch(async () =>
    fail("a reader at the bottom should be scrolled on to the new items", await viewport.evaluate((el) => [el.scrollTop, el.clientHeight, el.scrollHeight, [...el.querySelectorAll(".item")].map((e) => e.dataset.row).join(",")])),
  );
  assert.ok(await item(59).isVisible(), "the last new item is on screen");
  // Reading above: the view stays put while items are appended below.
  await viewport.evaluate((el) => (el.scrollTop = 200));
  await reader.waitForTimeout(200);
  const before = await viewport.evaluate((el) => el.scrollTop);
  const topRow = () =>
    viewport.evaluate((el) => {
      const top = el.getBoundingClientRect().top;
      const first = [...el.querySelectorAll(".item")].find((e) => e.getBoundingClientRect().bottom > top);
      return first ? [Number(first.dataset.row), Math.round(first.getBoundingClientRect().top - top)] : null;
    });
  const readingAt = await topRow();
  await grow(90);
  await reader.waitForTimeout(300);
  assert.equal(await viewport.evaluate((el) => el.scrollTop), before, "the reader's scroll position stays");
  assert.deepEqual(await topRow(), readingAt, "the item read stays where it was");
  assert.equal(await atBottom(), false);
  // Scrolled down by hand, the new items are there.
  await viewport.evaluate((el) => (el.scrollTop = el.scrollHeight));
  await item(89).waitFor({ timeout: 10_000 });
  console.log(`ok: the transcript grew 40 → 60 → 90 items, followed at the bottom, kept at row ${readingAt[0]} above`);
});
