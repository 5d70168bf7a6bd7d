// What a newcomer tripped over (issue 20), in headless Chromium (IPC mocked, tests/browser.mjs)
// at 1280×800: a folder of many files (the deepseek-harness corpus, read by the engine here) keeps
// its inputs on one summed-up line with the list on request, and leaves the tree and the
// inspector their height; its durable logs' Replies say why there are no waits and show the
// replies, headed by their sessions' labels, rendered as Markdown with HTML off; roots count their
// turns, not "0 runs". Over the built-in sample: runs are counted from 1; a finding's row shows its
// message first (ids shortened, whole on hover) and choosing it explains its code; search rows
// show the match first, unescaped; a restored selection fills the inspector; Reload after a failed
// open reads it again; the red-ringed ok badge says what the ring means.
// usage: node tests/newcomer.browser.mjs   (from ui/; needs /usr/bin/chromium or $CHROMIUM)
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { browserTest, mockIpc, UI } from "./browser.mjs";

const ROOT = resolve(UI, "..");
// $ARBOR_CORPUS: where tests/corpus is (to run this test over another build of the UI).
const CORPUS = process.env.ARBOR_CORPUS ?? resolve(ROOT, "tests/corpus");
const FOLDER = resolve(CORPUS, "deepseek-harness");
const SAMPLE = resolve(ROOT, "tests/conformance/cases/builtin-sample/input");

/** The engine's report of `path` (`arbor analyze --json`; $ARBOR_BIN, or target/debug/arbor built first when stale). */
function analyze(path) {
  if (!process.env.ARBOR_BIN) {
    const built = spawnSync("cargo", ["build", "-q", "-p", "arbor-cli"], { cwd: ROOT, stdio: "inherit" });
    assert.equal(built.status, 0, "could not build arbor");
  }
  const bin = process.env.ARBOR_BIN ?? resolve(ROOT, "target/debug/arbor");
  const out = spawnSync(bin, ["analyze", "--json", path], { maxBuffer: 1 << 28, encoding: "utf8" });
  return JSON.parse(out.stdout);
}

/** Every file under `dir` by its path relative to it (the report's names for a folder's files). */
function filesUnder(dir, base = dir, out = {}) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) filesUnder(path, base, out);
    else out[relative(base, path)] = readFileSync(path, "utf8");
  }
  return out;
}

const box = (page, selector) => page.locator(selector).first().evaluate((e) => e.getBoundingClientRect().toJSON());

await browserTest("newcomer browser test", async ({ ui, newPage }) => {
  const { REPORTS } = await ui.load("/src/lib/fixtures/reports.ts");
  const { CATALOG } = await ui.load("/src/lib/generated/catalog.ts");
  const { shortId } = await ui.load("/src/lib/report.ts");

  // 1. A folder of many files at 1280×800.
  const folder = analyze(FOLDER);
  const formats = {};
  for (const i of folder.inputs) formats[i.format] = (formats[i.format] ?? 0) + 1;
  assert.ok(folder.inputs.length > 20 && formats.unknown > 5 && formats["dsh-session"] > 5, "the corpus folder has many files, some skipped");
  const page = await newPage({ viewport: { width: 1280, height: 800 } });
  await mockIpc(page, { report: folder, files: filesUnder(FOLDER), launch: [FOLDER] });
  await page.goto(ui.url);
  await page.locator(".node").first().waitFor();
  const known = Object.entries(formats)
    .filter(([f]) => f !== "unknown")
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([f, n]) => `${n} ${f}`);
  const want = `${folder.inputs.length} files: ${[...known, `${formats.unknown} skipped`].join(", ")}`;
  assert.equal(await page.getByTestId("inputs-summary").textContent(), want, "the inputs summed up on one line");
  const strip = await box(page, "[data-testid=inputs]");
  assert.ok(strip.height <= 40, `the inputs strip is one line high (${strip.height}px)`);
  const tree = await box(page, ".pane.tree");
  const inspector = await box(page, ".pane.inspector");
  assert.ok(tree.height >= 250 && inspector.height >= 150, `the tree (${tree.height}px) and the inspector (${inspector.height}px) keep their height`);
  await page.getByTestId("inputs-toggle").click();
  assert.equal(await page.getByTestId("inputs-list").locator("tbody tr").count(), folder.inputs.length, "the list names every file");
  const list = await box(page, "[data-testid=inputs-list]");
  assert.ok(list.height <= 240, `the open list is bounded (${list.height}px)`);
  assert.ok((await box(page, ".pane.tree")).height >= 120, "and the tree still shows");
  await page.getByTestId("inputs-toggle").click();
  // 11. The open path has room (on the inputs strip), and the toolbar is one row.
  const source = await box(page, "[data-testid=source]");
  assert.ok(source.width >= 180, `the open path has room (${source.width}px)`);
  assert.equal(await page.getByTestId("source").textContent(), FOLDER, "the whole path, its start cut when it must be");
  const tops = await page.evaluate(() => [...document.querySelectorAll("header.bar > *")].map((c) => c.getBoundingClientRect().top));
  assert.ok(Math.max(...tops) - Math.min(...tops) < 24, `the toolbar is one row at 1280 px: ${tops}`);
  console.log(`ok: ${want}, on one line; the list of ${folder.inputs.length} opens in ${Math.round(list.height)}px`);

  // 8. With the timeline open at its default size, each pane keeps a usable height.
  await page.getByTestId("tab-timeline").click();
  await page.locator(".pane.timeline").waitFor();
  const sizes = {};
  for (const pane of ["tree", "side", "timeline", "inspector"]) sizes[pane] = Math.round((await box(page, `.pane.${pane}`)).height);
  assert.ok(sizes.tree >= 200 && sizes.inspector >= 200 && sizes.timeline >= 180, `pane heights at 1280×800 with the timeline: ${JSON.stringify(sizes)}`);
  await page.getByTestId("tab-timeline").click();
  console.log(`ok: with the timeline open the panes are ${JSON.stringify(sizes)} px high`);

  // Roots ran turns: they say so instead of "0 runs".
  const root = folder.sessions.find((s) => s.parent === null && s.runs.length === 0 && folder.turns.some((t) => t.session === s.id));
  const turns = folder.turns.filter((t) => t.session === root.id).length;
  const rootRow = page.locator(`.node[data-session="${root.id}"]`);
  await rootRow.waitFor();
  assert.ok((await rootRow.textContent()).includes(`${turns} ${turns === 1 ? "turn" : "turns"}`), `the root ${root.id} counts its ${turns} turns: ${await rootRow.textContent()}`);
  assert.ok(!(await rootRow.textContent()).includes("0 runs"));

  // 2. Durable logs: replies, no waits, and the view says why.
  assert.equal(folder.waits.length > 0 ? "has waits" : "no waits", folder.waits.length > 0 ? "has waits" : "no waits");
  const replyTab = await page.getByTestId("tab-replies").textContent();
  await page.getByTestId("tab-replies").click();
  await page.getByTestId("reply-text").first().waitFor();
  assert.equal(await page.getByTestId("reply-text").count(), Math.min(100, folder.replies.length), "the replies are shown");
  if (folder.waits.length === 0) {
    assert.match(replyTab, new RegExp(`${folder.replies.length} replies`), "the tab counts the replies");
    assert.match(await page.getByTestId("no-waits").textContent(), /records turns and replies but no waits/);
  }
  console.log(`ok: Replies shows ${folder.replies.length} replies of the folder (tab: ${replyTab.trim()})`);
  await page.close();

  // One durable log (a dsh-session folder: a session and its sub-agents' files): no waits, and
  // the view says why; its replies come first.
  const one = resolve(FOLDER, "examples_acp-agent__subagent-multi");
  const durable = analyze(one);
  assert.equal(durable.waits.length, 0);
  assert.ok(durable.replies.length > 0);
  const d = await newPage({ viewport: { width: 1280, height: 800 } });
  await mockIpc(d, { report: durable, files: filesUnder(one), launch: [one] });
  await d.goto(ui.url);
  await d.getByTestId("tab-replies").click();
  assert.match(await d.getByTestId("tab-replies").textContent(), new RegExp(`${durable.replies.length} repl`), "the tab counts the replies");
  assert.match(await d.getByTestId("no-waits").textContent(), /records turns and replies but no waits/);
  assert.equal(await d.getByTestId("reply-text").count(), durable.replies.length, "every reply is shown");
  console.log(`ok: a durable log's Replies say it has no waits and show its ${durable.replies.length} replies`);
  await d.close();

  // Over the sample, with a few changes: a reply in Markdown with markup in it, a finding with a
  // long file name and a UUID session, worker-7's failed run first (its latest ok, ringed red).
  const sample = structuredClone(REPORTS[0]);
  const files = Object.fromEntries(sample.inputs.map((i) => [i.file, readFileSync(`${SAMPLE}/${i.file}`, "utf8")]));
  const md = sample.replies.find((r) => r.session === "planner");
  md.text = "The plan: **three steps**, then `check`.\n\n- one\n- two\n\n<b>not bold</b> [site](https://example.com)";
  const UUID = "3f2a9c1e-7b4d-4e8a-9c2f-1a2b3c4d5e6f";
  const long = { file: "sessions/2026-11-30T10-22-41-long-session-folder-name/events.jsonl", line: 12 };
  const code = sample.diagnostics.find((d) => d.severity === "warning").code;
  sample.diagnostics.push({ code, severity: "warning", at: long, session: UUID, message: "MESSAGE FIRST: what the reader needs to see" });
  const worker = sample.sessions.find((s) => s.id === "worker-7");
  worker.runs.reverse();
  const QUERY = "needle";
  const escaped = '{"type":"assistant.message","data":{"content":"line one\\nthe \\"needle\\" is here"}}';
  const hits = [{ type: "record", record: { index: 1, file: long.file, line: 3, session: UUID, kind: "assistant.message", time: null }, text: escaped }];
  const p = await newPage({ viewport: { width: 1280, height: 800 } });
  await mockIpc(p, { report: sample, files, launch: [SAMPLE], hits, answers: { view_state: { session: "planner", tab: "findings" } } });
  await p.goto(ui.url);

  // 4. The saved selection comes back into the inspector, not only the tree.
  await p.locator('.node[data-session="planner"][aria-selected="true"]').waitFor();
  const planner = sample.sessions.find((s) => s.id === "planner");
  const start = planner.runs[0].start;
  await p.waitForFunction((want) => document.querySelector("[data-testid=inspector-place]")?.textContent === want, `${start.file}:${start.line}`, { timeout: 5000 });
  await p.getByTestId("raw-line").waitFor();
  console.log(`ok: the restored selection (planner) shows ${start.file}:${start.line} in the inspector`);

  // The inputs strip names each of the sample's two files apart from its format (Svelte drops
  // the space written between them: they ran together as "delegation.jsonldsh-rpc").
  const gaps = await p.locator("[data-testid=inputs] .input").evaluateAll((inputs) =>
    inputs.map((i) => i.querySelector(".format").getBoundingClientRect().left - i.querySelector(".name").getBoundingClientRect().right),
  );
  assert.equal(gaps.length, sample.inputs.length, "each input named in the strip");
  assert.ok(gaps.every((g) => g >= 3), `each file's name stands apart from its format (gaps ${gaps.map((g) => g.toFixed(1))} px)`);
  console.log(`ok: the inputs strip's names stand apart from their formats (${gaps.map((g) => g.toFixed(1)).join(", ")} px)`);

  // 3 and 10. A finding's row: the message first, ids shortened, whole on hover; chosen, explained.
  const item = p.locator(".findings .item").filter({ hasText: "MESSAGE FIRST" });
  await item.scrollIntoViewIfNeeded();
  const message = await item.getByTestId("finding-message").evaluate((e) => ({ left: e.getBoundingClientRect().left, shown: e.clientWidth, full: e.scrollWidth }));
  const rowBox = await item.evaluate((e) => e.getBoundingClientRect().toJSON());
  assert.ok(message.left - rowBox.left < 90, `the message starts the row (at ${message.left - rowBox.left}px)`);
  assert.ok(message.shown >= Math.min(message.full, rowBox.width * 0.4), `the message has the room (${message.shown} of ${message.full}px)`);
  assert.equal(await item.getByTestId("finding-session").textContent(), shortId(UUID));
  assert.notEqual(shortId(UUID), UUID);
  const tip = await item.getAttribute("title");
  assert.ok(tip.includes(UUID) && tip.includes(`${long.file}:${long.line}`) && tip.includes(CATALOG[code].why), "the row's tooltip has the whole ids and why the code matters");
  await item.click();
  const explain = p.getByTestId("finding-explain");
  await explain.waitFor();
  const said = await explain.textContent();
  for (const part of ["why", "naive", "fix"]) assert.ok(said.includes(CATALOG[code][part]), `the explanation says ${part}`);
  console.log(`ok: the finding's message leads its row; ${code} explained under the list`);

  // 5. Runs from 1: worker-7's replies are of its runs 1 and 2, as the inspector counts them.
  await p.getByTestId("tab-replies").click();
  const runsShown = await p.getByTestId("reply-place").allTextContents();
  const want5 = sample.replies.filter((r) => r.run !== undefined).map((r) => `run ${r.run + 1}`);
  for (const w of want5) assert.ok(runsShown.some((t) => t.includes(w)), `${w} among ${runsShown}`);
  assert.ok(!runsShown.some((t) => /run 0\b/.test(t)), "no run 0");
  console.log(`ok: replies count runs from 1 (${want5.join(", ")})`);

  // 11. Replies in Markdown, raw HTML shown as text, links not followed.
  const rendered = p.getByTestId("reply-text").filter({ hasText: "three steps" });
  assert.equal(await rendered.locator("strong").textContent(), "three steps");
  assert.equal(await rendered.locator("li").count(), 2);
  assert.ok((await rendered.textContent()).includes("<b>not bold</b>"), "raw HTML is text");
  assert.equal(await rendered.locator("b, a").count(), 0, "no element from the log's markup, no link");
  assert.ok((await rendered.textContent()).includes("https://example.com"), "the link's address is shown");
  // The sessions of "Replies by session" show their labels.
  const heads = await p.getByTestId("reply-session").allTextContents();
  assert.ok(heads.some((h) => h.includes("Plan the audit") && h.includes("planner")), `labels in the headings: ${heads}`);
  console.log("ok: a reply's **bold** and list render; its <b> stays text; sessions headed by their labels");

  // 3. A search row: the match first and inside the row, the JSON unescaped.
  await p.getByTestId("tab-search").click();
  await p.getByLabel("Search the log").fill(QUERY);
  const hit = p.locator("[data-hit=record]").first();
  await hit.waitFor();
  const text = await hit.getByTestId("hit-text").textContent();
  assert.ok(!text.includes('\\"') && !text.includes("\\n"), `unescaped: ${text}`);
  assert.ok(text.includes('the "needle" is here'), text);
  const [mark, row] = await Promise.all([hit.locator("mark").evaluate((e) => e.getBoundingClientRect().toJSON()), hit.evaluate((e) => e.getBoundingClientRect().toJSON())]);
  assert.ok(mark.right <= row.right && mark.left - row.left < 400, `the match is inside the row, near its start (${mark.left - row.left}px)`);
  assert.ok((await hit.getAttribute("title")).includes(UUID), "the whole session on hover");
  console.log(`ok: the search row reads ${JSON.stringify(text)}`);

  // 7. The timeline: a legend; zoom to the selected session (the button and z).
  await p.locator('.node[data-session="worker-7"]').click();
  await p.getByTestId("tab-timeline").click();
  const canvas = p.getByTestId("timeline-canvas");
  await p.waitForFunction(() => document.querySelector("[data-testid=timeline-canvas]")?.dataset.ready === "1");
  const legend = await p.getByTestId("timeline-legend").textContent();
  for (const w of ["run ok", "run (error)", "turn", "step", "finding", "sub-agent"]) assert.ok(legend.includes(w), `the legend names ${w}: ${legend}`);
  const span = () => canvas.evaluate((c) => Number(c.dataset.viewEnd) - Number(c.dataset.viewStart));
  const whole = await span();
  await p.getByTestId("timeline-zoom-selection").click();
  await p.waitForFunction((w) => {
    const c = document.querySelector("[data-testid=timeline-canvas]");
    return Number(c.dataset.viewEnd) - Number(c.dataset.viewStart) < w * 0.9;
  }, whole);
  const zoomed = await span();
  await canvas.focus();
  await p.keyboard.press("0");
  await p.waitForFunction((w) => {
    const c = document.querySelector("[data-testid=timeline-canvas]");
    return Number(c.dataset.viewEnd) - Number(c.dataset.viewStart) === w;
  }, whole);
  await p.keyboard.press("z");
  await p.waitForFunction((w) => {
    const c = document.querySelector("[data-testid=timeline-canvas]");
    return Number(c.dataset.viewEnd) - Number(c.dataset.viewStart) < w * 0.9;
  }, whole);
  console.log(`ok: the timeline has a legend; zoom to worker-7 shows ${zoomed.toFixed(1)} of ${whole.toFixed(1)} (button and z)`);
  await p.getByTestId("tab-timeline").click();

  // 11. The ok badge ringed red says an earlier run failed.
  const badge = p.locator('.node[data-session="worker-7"] .status');
  assert.equal(await badge.textContent(), "ok");
  assert.match(await badge.getAttribute("title"), /earlier run failed/);
  await p.close();

  // 9. The session list: titles, harness, date and size of the recent and found logs, filtered.
  const foundLogs = [
    { path: "/home/u/.claude/projects/-home-u-app/5d1c.jsonl", harness: "claude-code", name: "-home-u-app/5d1c.jsonl", modified: Date.UTC(2026, 10, 30, 9, 5), title: "Explain why the build fails on CI", size: 48_000 },
    { path: "/home/u/.copilot/session-state/9f3e", harness: "copilot", name: "9f3e", modified: Date.UTC(2026, 10, 29, 9, 5), title: "Review the parser PR", size: 2_400_000 },
    { path: "/home/u/.dsh/sessions/run-7", harness: "dsh", name: "run-7", modified: null, title: null, size: null },
  ];
  const lister = await newPage({ viewport: { width: 1280, height: 800 } });
  // Launched with no paths: the sample opens, and the recent list stays the saved one.
  await mockIpc(lister, {
    report: sample,
    files,
    launch: [],
    answers: { found_logs: foundLogs, settings: { recent: [{ paths: [foundLogs[1].path], openedAt: Date.UTC(2026, 10, 30, 12) }], theme: "system", notice: null } },
  });
  await lister.goto(ui.url);
  await lister.locator(".node").first().waitFor();
  // With no log given and sessions on this machine, the Library is the home, over the sample.
  await lister.getByTestId("library").waitFor();
  await lister.getByTestId("library-close").click();
  assert.equal(await lister.getByTestId("library").count(), 0);
  await lister.getByTestId("sessions").click();
  const rowsText = await lister.getByTestId("session-row").allTextContents();
  assert.equal(rowsText.length, 4, "the recent entry and the three found");
  assert.ok(rowsText[0].includes("recent") && rowsText[0].includes("Review the parser PR") && rowsText[0].includes("copilot"), rowsText[0]);
  assert.ok(rowsText[1].includes("Explain why the build fails on CI") && rowsText[1].includes("47 KB") && rowsText[1].includes("2026-11-30"), rowsText[1]);
  assert.ok(rowsText[3].includes("run-7"), "an untitled log shows its name");
  await lister.getByLabel("Filter sessions").fill("build ci");
  assert.equal(await lister.getByTestId("session-row").count(), 1);
  await lister.getByTestId("session-row").click();
  await lister.waitForFunction((p) => window.__ipcCalls.some(([c, a]) => c === "open_paths" && a.paths[0] === p), foundLogs[0].path);
  assert.equal(await lister.getByTestId("session-list").count(), 0, "the list closes on open");
  const outside = await lister.evaluate(() => [...document.querySelectorAll("header.bar > *")].filter((c) => c.getBoundingClientRect().right > window.innerWidth).length);
  assert.equal(outside, 0, "the toolbar fits 1280 px");
  await lister.close();
  console.log("ok: the session list shows titles, harness, date and size, filters, and opens the chosen one");

  // 11. An open that failed: Reload (enabled) reads it again, as the error says.
  const failing = await newPage({ viewport: { width: 1280, height: 800 } });
  await mockIpc(failing, { report: sample, files, launch: [SAMPLE], answers: { open_paths: { reject: { code: "io", message: "no such file" } } } });
  await failing.goto(ui.url);
  await failing.getByTestId("error").waitFor();
  assert.match(await failing.getByTestId("error").textContent(), /press Reload/);
  assert.ok(await failing.getByTestId("reload").isEnabled(), "Reload is enabled when the error says to press it");
  await failing.getByTestId("reload").click();
  await failing.waitForFunction(() => window.__ipcCalls.filter(([c]) => c === "open_paths").length === 2);
  await failing.close();
  console.log("ok: after a failed open, Reload is enabled and reads it again");
});
