// The Library, in headless Chromium (IPC mocked, tests/browser.mjs): every session on this
// machine grouped by project, sorted by a column, each row's facts; the search box searches the
// transcripts and a hit opens its session; a title or snippet of markup stays text. The sessions
// are what `arbor sessions` summarized of corpus logs (tests/corpus), one title made hostile.
// usage: node tests/library.browser.mjs   (from ui/; needs /usr/bin/chromium or $CHROMIUM)
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { browserTest, mockIpc, UI } from "./browser.mjs";
import { transcriptReport } from "./transcript-fixture.mjs";

const SHOTS = resolve(UI, "../docs/screenshots");
const MARKUP = '<img src=x onerror="window.__pwned=1">Fix the build';

const summary = (o) => ({
  session: null, title: null, project_from: "cwd", clock: "log", turns: 0, subagents: 0, depth: 0,
  findings: { error: 0, warning: 0, info: 0 }, outcome: null, files: 1, bytes: 1000, key: o.path, ...o,
});
const SESSIONS = [
  summary({
    path: "/home/me/.codex/sessions/2025/12/09/rollout-2025-12-09T19-55-16-019b04ae.jsonl", session: "019b04ae-b1c6-7c72-a134-a4c2de66058c",
    title: "add myapp directory and create myapp/hoge.py which shows result of print(1+1).", project: "/Users/test_user/agent-sample", harness: "codex",
    start: 1765310116336, end: 1765310166181, duration: 49845, turns: 2,
    usage: { input: 3828, output: 408, cache_read: 22912, cache_write: 0, cost: 0.011729 }, bytes: 27586,
  }),
  summary({
    path: "/home/me/.claude/projects/-Users-test-user-agent-sample/7f2abd2d-7cfc-4447-9ddd-3ca8d14e02e9.jsonl", session: "7f2abd2d-7cfc-4447-9ddd-3ca8d14e02e9",
    title: "add myapp directory and create myapp/hoge.py which shows result of print(1+1).", project: "/Users/test_user/agent-sample", harness: "claude-code",
    start: 1765309662930, end: 1765309730228, duration: 67298, turns: 4,
    usage: { input: 74, output: 844, cache_read: 93553, cache_write: 5158, cost: 0.0602904 }, bytes: 23449,
  }),
  summary({
    path: "/home/me/.claude/projects/-path-to-Demo/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl", session: "5c0375b4-57a5-4f26-b12d-d022ee4e51b7",
    title: "/init", project: "/path/to/Demo", harness: "claude-code", start: 1756860420000, end: 1757238840000, duration: 378420000, turns: 4, subagents: 8, depth: 1,
    usage: { input: 41210, output: 36240, cache_read: 3917000, cache_write: 305000, cost: 2.82 }, findings: { error: 0, warning: 1, info: 0 }, outcome: "end_turn",
  }),
  summary({
    path: "/home/me/.codex/sessions/2025/10/30/rollout-2025-10-30T10-00-00-legacy.jsonl", title: "Review the code changes", project: "/tmp/test", harness: "codex",
    start: 1761818400000, end: 1761930000000, duration: 111600000, subagents: 1, depth: 1,
    // A thread with its review sub-agent's rollout: opened together.
    paths: ["/home/me/.codex/sessions/2025/10/30/rollout-2025-10-30T10-00-00-legacy.jsonl", "/home/me/.codex/sessions/2025/10/31/rollout-2025-10-31T00-01-00-review.jsonl"],
    usage: { input: 1211, output: 182, cache_read: 10880, cache_write: 0, unpriced: { tokens: 12273, models: ["gpt-5-codex-legacy"] } },
  }),
  summary({
    path: "/home/me/.dsh/sessions/multi", session: "14dda109-5728-45ba-a002-7db9543fe50e", title: MARKUP, project: "/work/dsh", harness: "dsh-session",
    start: 1796318000000, end: 1796318000000, duration: 0, clock: "mtime", turns: 1, subagents: 2, depth: 1, outcome: "completed",
    usage: { input: 5120, output: 410, cache_read: 9700, cache_write: 0, cost: 0.0021 }, findings: { error: 1, warning: 0, info: 1 },
  }),
  // Two roots of one recording: one path, a key each.
  ...["s1", "s2"].map((id, i) =>
    summary({
      key: `/home/me/rec.jsonl#${id}`, path: "/home/me/rec.jsonl", session: id, title: `root ${id}`, project: "/work/rec", harness: "dsh-rpc",
      start: 1700000000000 + i, end: 1700000001000, duration: 1000 - i, turns: 1, usage: { input: 10 + i, output: 1, cache_read: 0, cache_write: 0, cost: 0.0001 },
    }),
  ),
];
const HITS = [
  {
    path: SESSIONS[0].path, session: SESSIONS[0].session, item: 3, file: SESSIONS[0].path, line: 17, kind: "tool-call",
    snippet: "apply_patch *** Begin Patch *** Add File: myapp/[hoge].[py] +print(1 + 1) <b>bold</b>", rank: -3.1,
  },
  {
    path: SESSIONS[1].path, session: SESSIONS[1].session, item: 0, file: SESSIONS[1].path, line: 2, kind: "prompt",
    snippet: "add myapp directory and create myapp/[hoge].[py] which shows result of print(1+1).", rank: -2.7,
  },
];

const u = (input, output, cache_read, cache_write, cost) => ({ input, output, cache_read, cache_write, cost });
// What library_usage answers by day: oldest first, as the engine sorts keys.
const USAGE = [
  { key: "2025-09-03", sessions: 1, usage: u(1140, 56525, 4075332, 198421, 2.82) },
  { key: "2025-12-09", sessions: 2, usage: u(1000, 6000, 100000, 20000, 0.07) },
];

await browserTest("library browser test", async ({ ui, newPage }) => {
  const page = await newPage({ viewport: { width: 1280, height: 800 }, colorScheme: "light" });
  await mockIpc(page, { report: transcriptReport(4), launch: [], answers: { library_sessions: { sessions: SESSIONS, notice: null }, library_search: { hits: HITS, older: 4242 }, library_usage: USAGE } });
  await page.goto(ui.url);
  await page.getByTestId("sessions").click();
  await page.getByTestId("library-open").click();
  await page.getByTestId("library-row").first().waitFor();

  // Grouped by project, newest first; each group in the order of its newest session.
  const groups = async () =>
    page.getByTestId("library-group").evaluateAll((gs) => gs.map((g) => [g.querySelector(".project .mono").textContent, g.querySelectorAll("[data-testid=library-row]").length]));
  assert.deepEqual(await groups(), [["/work/dsh", 1], ["/Users/test_user/agent-sample", 2], ["/tmp/test", 1], ["/path/to/Demo", 1], ["/work/rec", 2]]);
  const rows = async () => (await page.getByTestId("library-row").allTextContents()).map((t) => t.replace(/\s+/g, " ").trim());
  const first = (await rows())[0];
  assert.ok(first.startsWith(MARKUP), `a title of markup is shown as text: ${first}`);
  assert.match(first, /dsh-session .* ~ .*1 2 \(depth 1\) 1\/0\/1 completed$/);
  assert.equal(await page.locator("[data-testid=library] img").count(), 0);
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  const codex = (await rows()).find((r) => r.includes("codex") && r.includes("hoge"));
  assert.match(codex, /50s 27\.1K \$0\.01 2/);
  assert.ok((await rows()).some((r) => r.includes("12.3K unpriced")), "an unpriced model's tokens are named, not a zero cost");

  // Sorted by tokens: the Demo project (4.3M) first.
  await page.getByTestId("sort-tokens").click();
  assert.deepEqual((await groups()).map((g) => g[0]), ["/path/to/Demo", "/Users/test_user/agent-sample", "/work/dsh", "/tmp/test", "/work/rec"]);
  assert.equal(await page.getByTestId("sort-tokens").getAttribute("aria-sort"), "descending");
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: resolve(SHOTS, "library-light.png") });

  // Usage by day: the report's lines newest first, each with its bar against the largest, a total.
  await page.getByTestId("library-mode").selectOption("daily");
  await page.getByTestId("usage-line").first().waitFor();
  const lines = (await page.getByTestId("usage-line").allTextContents()).map((t) => t.replace(/\s+/g, " ").trim());
  assert.deepEqual(lines, ["2025-12-09 2 127.0K $0.07", "2025-09-03 1 4.3M $2.82"]);
  const widths = await page.locator("[data-testid=usage-line] .fill").evaluateAll((els) => els.map((e) => e.style.width));
  assert.equal(parseFloat(widths[1]), 100);
  assert.ok(parseFloat(widths[0]) > 2 && parseFloat(widths[0]) < 4, widths[0]);
  assert.deepEqual((await page.evaluate(() => window.__ipcCalls.filter(([c]) => c === "library_usage").map(([, a]) => a))).at(-1), { by: "daily" });
  await page.screenshot({ path: resolve(SHOTS, "library-usage-light.png") });
  await page.getByTestId("library-mode").selectOption("sessions");
  await page.getByTestId("library-row").first().waitFor();

  // The search box searches the transcripts; the hits show their place, matches marked, markup as text.
  await page.getByLabel("Search every transcript").fill("hoge.py");
  await page.getByTestId("library-hit").first().waitFor();
  const asked = await page.evaluate(() => window.__ipcCalls.filter(([c]) => c === "library_search").map(([, a]) => a));
  assert.deepEqual(asked.at(-1), { text: "hoge.py" });
  const hits = (await page.getByTestId("library-hit").allTextContents()).map((t) => t.replace(/\s+/g, " ").trim());
  assert.equal(hits.length, 2);
  assert.match(hits[0], /tool-call · item 3 · rollout-2025-12-09T19-55-16-019b04ae\.jsonl:17/);
  assert.ok(hits[0].includes("<b>bold</b>"), hits[0]);
  assert.deepEqual(await page.locator("[data-testid=library-hit]").first().locator("mark").allTextContents(), ["hoge", "py"]);
  await page.screenshot({ path: resolve(SHOTS, "library-search-light.png") });
  // Older items were not searched: said, and searched when asked, their hits after the first.
  await page.getByTestId("library-older").click();
  await page.waitForFunction(() => document.querySelectorAll("[data-testid=library-hit]").length === 4);
  const more = await page.evaluate(() => window.__ipcCalls.filter(([c]) => c === "library_search").map(([, a]) => a));
  assert.deepEqual(more.at(-1), { text: "hoge.py", before: 4242 });

  // A hit opens its session's log, and the Library closes.
  await page.getByTestId("library-hit").first().click();
  await page.waitForFunction((p) => window.__ipcCalls.some(([c, a]) => c === "open_paths" && a.paths.length === 1 && a.paths[0] === p), HITS[0].path);
  assert.equal(await page.getByTestId("library").count(), 0);

  // A row opens its log too.
  await page.getByTestId("sessions").click();
  await page.getByTestId("library-open").click();
  await page.getByTestId("library-row").first().waitFor();
  await page.getByTestId("library-row").nth(1).click();
  await page.waitForFunction(() => window.__ipcCalls.filter(([c]) => c === "open_paths").length === 2);
  // Two roots of one log are two rows (a key each), each opening the log.
  await page.getByTestId("sessions").click();
  await page.getByTestId("library-open").click();
  await page.getByTestId("library-row").first().waitFor();
  const rec = (await rows()).filter((r) => r.startsWith("root s"));
  assert.deepEqual(rec.map((r) => r.slice(0, 7)), ["root s2", "root s1"]);
  await page.getByTestId("library-row").filter({ hasText: "root s1" }).click();
  await page.waitForFunction(() => window.__ipcCalls.filter(([c]) => c === "open_paths").at(-1)?.[1].paths[0] === "/home/me/rec.jsonl");
  // A session read from several files (a Codex thread and its sub-agent's rollout) opens them all.
  await page.getByTestId("sessions").click();
  await page.getByTestId("library-open").click();
  await page.getByTestId("library-row").filter({ hasText: "Review the code changes" }).click();
  await page.waitForFunction(() => window.__ipcCalls.filter(([c]) => c === "open_paths").at(-1)?.[1].paths.length === 2);
  const opened = await page.evaluate(() => window.__ipcCalls.filter(([c]) => c === "open_paths").at(-1)[1].paths);
  assert.deepEqual(opened, SESSIONS[3].paths);
  console.log("ok: the Library groups, sorts and opens sessions (a session of several files opens them all); its search opens a hit; log text stays text");
});
