// Follow in headless Chromium (IPC mocked, tests/browser.mjs): a log written in the last minutes
// opens followed (set_follow asked, the live indicator shown); `changed` messages with a `follow`
// part, as the app sends them while the log grows, make the tree ask again: new sessions and runs
// appear under their parents, the selected session stays selected, and the indicator says when
// the log last changed. The switch turns Follow off and remembers it for that log.
// usage: node tests/follow.browser.mjs   (from ui/; needs /usr/bin/chromium or $CHROMIUM)
import assert from "node:assert/strict";
import { browserTest, mockIpc } from "./browser.mjs";

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
  assert.match(await page.textContent('[data-testid="live-indicator"]'), /following · updated \d s ago/);
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
});
