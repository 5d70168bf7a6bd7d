// The Transcript view in headless Chromium (IPC mocked, tests/browser.mjs) over a synthetic log
// (tests/transcript-fixture.mjs) whose root session has 100,000 transcript items: only the rows
// on screen are in the DOM as it scrolls and pages are asked for as needed; markup in log text
// stays inert (raw HTML shown as text, no `javascript:` link, a link's click goes nowhere); a
// finding opens its item, a spawn opens the child's transcript, the child's header goes back to
// where the parent received its reply, and a received item opens the child's last reply. Also the
// tokens column of the tree (own / subtree, 12.3k), the inspector's usage and link provenance, the
// per-model summary (opened whole, not clipped by the strip, at 1280 and 1920 px; a model without a
// price is "unpriced" and every cost gives the priced part with the tokens left unpriced), the
// unknown depth shown as nothing, and
// Export… (the save dialog mocked). Screenshots of the view, light and dark, go to
// docs/screenshots. usage: node tests/transcript.browser.mjs   (from ui/)
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { browserTest, mockIpc, UI } from "./browser.mjs";
import { syntheticTranscript, T0, transcriptReport } from "./transcript-fixture.mjs";

const ROWS = 100_000;
const SHOTS = resolve(UI, "../docs/screenshots");

await browserTest("transcript browser test", async ({ ui, newPage }) => {
  const page = await newPage({ viewport: { width: 1280, height: 960 } });
  page.on("dialog", (d) => {
    throw new Error(`a dialog opened: ${d.message()}`);
  });
  const out = "/tmp/arbor-export.otlp.json";
  await mockIpc(page, {
    report: transcriptReport(ROWS),
    transcript: syntheticTranscript(ROWS),
    launch: ["/logs"],
    hits: [{ type: "record", record: { index: 70_000, file: "run.jsonl", line: 70_001, session: "root", kind: "event", time: null }, text: "question 70000" }],
    answers: { "plugin:dialog|save": out, export_otel: { path: out, traces: 1, spans: 42 } },
  });
  await page.goto(ui.url);
  await page.locator('.node[data-session="root"]').click();
  await page.getByTestId("tab-transcript").click();
  const item = (row) => page.locator(`[data-testid=transcript] .item[data-row="${row}"]`);
  await item(0).getByText("question 0").waitFor();
  const calls = (cmd) => page.evaluate((cmd) => window.__ipcCalls.filter(([c]) => c === cmd).map(([, a]) => a), cmd);
  const rowsInDom = () => page.locator("[data-testid=transcript] .item").count();
  assert.equal(await page.getByTestId("transcript-total").textContent(), "100000 items");

  // Virtualized: a bounded number of rows in the DOM wherever the list is scrolled.
  const viewport = page.getByTestId("transcript");
  const counts = [await rowsInDom()];
  for (const frac of [0.25, 0.5, 0.999]) {
    await viewport.evaluate((el, f) => (el.scrollTop = el.scrollHeight * f), frac);
    await page.waitForFunction(() => [...document.querySelectorAll("[data-testid=transcript] .item")].some((e) => e.querySelector(".meta")));
    await page.waitForTimeout(100);
    counts.push(await rowsInDom());
  }
  const deepest = await page.evaluate(() => Math.max(...[...document.querySelectorAll("[data-testid=transcript] .item")].map((e) => Number(e.dataset.row))));
  assert.ok(deepest > ROWS * 0.9, `scrolled to the end: row ${deepest}`);
  assert.ok(counts.every((n) => n > 0 && n <= 80), `rows in the DOM stay bounded: ${counts}`);
  const pages = await calls("transcript_page");
  assert.ok(pages.length <= 20 && pages.every((a) => a.limit <= 100), `pages asked a block at a time: ${JSON.stringify(pages)}`);
  console.log(`ok: ${ROWS} items, ${counts.join("/")} rows in the DOM, ${pages.length} pages asked`);

  // Markup in log text is inert.
  await viewport.evaluate((el) => (el.scrollTop = 0));
  const hostile = item(3);
  await hostile.getByText("hostile:").waitFor();
  const text = await hostile.locator(".md").textContent();
  assert.ok(text.includes("<script>window.__pwned=1</script>") && text.includes('<img src=x onerror="window.__pwned=1">'), `markup shown as text: ${text}`);
  const seen = await page.evaluate(() => ({
    pwned: typeof window.__pwned,
    imgs: document.querySelectorAll("[data-testid=transcript] img").length,
    scripts: document.querySelectorAll("[data-testid=transcript] script").length,
    hrefs: [...document.querySelectorAll("[data-testid=transcript] a")].map((a) => a.getAttribute("href")),
  }));
  // No anchor at all: a link is its text, its address beside it and on hover (ui/src/lib/markdown.ts).
  assert.deepEqual(seen, { pwned: "undefined", imgs: 0, scripts: 0, hrefs: [] }, JSON.stringify(seen));
  const url = page.url();
  await hostile.locator(".md").click();
  await page.waitForTimeout(100);
  assert.equal(page.url(), url, "a click on the message goes nowhere");
  assert.equal(await page.evaluate(() => typeof window.__pwned), "undefined");
  console.log("ok: raw HTML shows as text, the javascript: link is not a link, a link's click goes nowhere");

  // Code blocks are monospaced; tool arguments are collapsible pretty JSON.
  const code = item(1).locator(".md pre code");
  assert.match(await code.evaluate((e) => getComputedStyle(e).fontFamily), /mono/i);
  const args = item(2).locator("details.json");
  assert.equal(await args.evaluate((d) => d.open), false, "arguments start folded");
  await args.locator("summary").click();
  assert.equal(await args.locator("pre").textContent(), JSON.stringify({ path: "src/file2.rs", line: 2 }, null, 2));

  // A tool call and its result are one card: the command visible without a click, the result
  // under it with its error flag, folded to a few lines with "show all", in a monospace font.
  // Rows drawn below a tall one: scrolled to, a little at a time.
  const bring = async (row) => {
    const inView = () =>
      viewport.evaluate((el, row) => {
        const e = el.querySelector(`.item[data-row="${row}"]`);
        if (!e) return false;
        const [v, r] = [el.getBoundingClientRect(), e.getBoundingClientRect()];
        return r.top >= v.top && r.top < v.bottom - 40;
      }, row);
    for (let n = 0; n < 60 && !(await inView()); n++) {
      await viewport.evaluate((el) => (el.scrollTop += 200));
      await page.waitForTimeout(30);
    }
    await page.waitForFunction((row) => document.querySelector(`[data-testid=transcript] .item[data-row="${row + 1}"]`), row);
  };
  await bring(11);
  const bash = item(11).getByTestId("tool-card");
  assert.equal(await bash.getByTestId("tool-head").textContent(), "Bash: bd show spotter-4te");
  const output = bash.getByTestId("tool-output");
  assert.equal(await output.textContent(), Array.from({ length: 6 }, (_, i) => `output line ${i + 1}`).join("\n"));
  assert.match(await output.evaluate((e) => getComputedStyle(e).fontFamily), /mono/i);
  assert.equal(await bash.getByTestId("tool-result").locator(".ok").textContent(), "ok");
  // The result's own row draws nothing: it is in the card.
  assert.equal(await item(12).evaluate((e) => e.offsetHeight), 0, "the result's row is drawn in its call's card");
  await bash.getByTestId("result-show-all").click();
  await page.waitForFunction(() => document.querySelector('[data-testid=transcript] .item[data-row="11"] [data-testid=tool-output]')?.textContent.split("\n").length === 30);
  // An edit as a coloured diff (spans of text, no markup from the log), its failed result flagged.
  await bring(13);
  const edit = item(13).getByTestId("tool-card");
  assert.equal(await edit.getByTestId("tool-head").textContent(), "Edit: src/x.rs");
  // Time on every row: the clock, and since the turn began (turn 3 began at row 10); the
  // call's duration (its result came a row, 1.5 s, later).
  const clock = await page.evaluate((t) => { const d = new Date(t); return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, "0")).join(":"); }, T0 + 13 * 1500);
  assert.equal(await item(13).getByTestId("row-time").textContent(), clock);
  assert.equal(await item(13).getByTestId("row-since").textContent(), "+4.5s");
  assert.equal(await edit.getByTestId("tool-duration").textContent(), "took 1.5s");
  assert.deepEqual(await edit.locator("[data-testid=tool-diff] > span").evaluateAll((ls) => ls.map((l) => [l.className.replace(/ .*/, ""), l.textContent])), [
    ["d-ctx", " fn a() {"],
    ["d-del", "-    old();"],
    ["d-add", "+    new();"],
    ["d-ctx", " }"],
  ]);
  const colour = (sel) => edit.locator(sel).evaluate((e) => getComputedStyle(e).color);
  assert.notEqual(await colour(".d-add"), await colour(".d-del"), "added and removed lines differ in colour");
  assert.equal(await edit.getByTestId("tool-error").textContent(), "error");
  assert.ok(await edit.evaluate((e) => e.classList.contains("failed")), "the card is marked failed");
  assert.equal(await edit.getByTestId("tool-output").textContent(), "String to replace not found in file.");
  // A patch (Codex's apply_patch) names its file and is a diff too.
  await bring(16);
  const patch = item(16).getByTestId("tool-card");
  assert.equal(await patch.getByTestId("tool-head").textContent(), "apply_patch: src/lib.rs");
  assert.equal(await patch.locator(".d-add").textContent(), '+    println!("new");');
  assert.ok((await patch.getByTestId("tool-output").textContent()).includes("M src/lib.rs"));
  // A bidi override in log text is shown marked, not applied.
  await bring(18);
  const spoof = item(18).locator(".md");
  assert.equal(await spoof.locator(".bidi").textContent(), "⟨U+202E⟩");
  assert.ok(!(await spoof.textContent()).includes("\u202E"), "the control itself is not in the page");
  console.log("ok: tool calls and results in one card (command shown, output folded and monospaced, edits and patches as diffs, errors flagged); bidi marked");

  // Find: the rows whose text holds the query, over the whole transcript (asked of the Rust side),
  // the match shown highlighted, Enter and Shift+Enter for the next and previous.
  await viewport.evaluate((el) => (el.scrollTop = 0));
  await item(0).waitFor();
  const synthetic = syntheticTranscript(ROWS);
  const hits = synthetic.find("root", "question 4000", "all");
  assert.deepEqual(hits, [4000, 40000, 40005]);
  const currentRow = () => page.evaluate(() => document.querySelector("[data-testid=transcript] .item.current")?.dataset.row);
  const findBox = page.getByTestId("transcript-find");
  await findBox.fill("QUESTION 4000");
  await findBox.press("Enter");
  await page.getByTestId("find-count").getByText("1 of 3").waitFor();
  await page.waitForFunction(() => document.querySelector("[data-testid=transcript] .item.current")?.dataset.row === "4000");
  const lit = () =>
    page.waitForFunction(
      (row) => {
        const h = CSS.highlights.get("transcript-find-current");
        if (!h || h.size === 0) return null;
        const texts = [...h].map((r) => r.toString());
        const inRow = [...h].every((r) => r.startContainer.parentElement.closest(".item")?.dataset.row === row);
        return inRow && texts.every((t) => t.toLowerCase() === "question 4000") ? texts : null;
      },
      String(hits.indexOf(0) < 0 ? "4000" : "0"),
    );
  await lit();
  await findBox.press("Enter");
  await page.getByTestId("find-count").getByText("2 of 3").waitFor();
  await page.waitForFunction(() => document.querySelector("[data-testid=transcript] .item.current")?.dataset.row === "40000");
  await findBox.press("Shift+Enter");
  await page.getByTestId("find-count").getByText("1 of 3").waitFor();
  assert.equal(await currentRow(), "4000");
  // Every block read: the count is whole ("1 of 3", no longer "1 of 3…").
  await page.waitForFunction(() => document.querySelector("[data-testid=find-count]")?.textContent === "1 of 3", null, { timeout: 30_000 });
  const finds = await calls("transcript_find");
  assert.ok(finds.length >= 1 && finds.every((a) => a.session === "root" && a.show === "all"), JSON.stringify(finds));
  // Read a block of 2,000 rows at a time, from the reader's block (row 0's) on, each block once:
  // the first hit shows once its block is read, not after the whole transcript.
  const blocks = finds.filter((a) => a.query === "QUESTION 4000").map((a) => a.from);
  assert.equal(blocks[0], 0, "the reader's block first");
  assert.deepEqual([...blocks].sort((a, b) => a - b), Array.from({ length: ROWS / 2000 }, (_, i) => i * 2000), "every block once");
  assert.ok(finds.every((a) => a.from === undefined || a.limit === 2000));
  await findBox.fill("");
  await findBox.press("Escape");
  console.log("ok: find goes to each hit of the whole transcript, highlighted, next and previous");

  // Filters: only what was said, only errors, no tool results.
  const drawnRows = () =>
    page.evaluate(() =>
      [...document.querySelectorAll("[data-testid=transcript] .item[data-drawn]")]
        .filter((e) => e.offsetHeight > 0)
        .map((e) => ({ text: e.textContent, cards: e.querySelectorAll("[data-testid=tool-card]").length, results: e.querySelectorAll("[data-testid=tool-result].standalone").length, errors: e.querySelectorAll(".bad").length, kinds: [...e.querySelectorAll(".part")].map((p) => p.className) })),
    );
  const filterTo = async (show) => {
    await page.getByTestId("transcript-show").selectOption(show);
    const n = synthetic.find("root", "", show).length;
    await page.getByTestId("transcript-total").getByText(`${n} items kept by the filter`).waitFor({ timeout: 10_000 }).catch(async (e) => {
      console.error("total:", await page.getByTestId("transcript-total").textContent(), "want", n);
      throw e;
    });
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=transcript] .item[data-drawn]").length > 3, null, { timeout: 10_000 }).catch(async (e) => {
      console.error("drawn:", await page.evaluate(() => document.querySelector("[data-testid=transcript]").innerHTML.slice(0, 500)));
      throw e;
    });
    await page.waitForTimeout(100);
    return drawnRows();
  };
  let rows = await filterTo("errors");
  assert.ok(rows.length > 3 && rows.every((r) => r.errors > 0), `every row kept has an error: ${JSON.stringify(rows.slice(0, 4))}`);
  rows = await filterTo("talk");
  assert.ok(rows.length > 3 && rows.every((r) => r.cards === 0 && !r.kinds.some((k) => /notice/.test(k))), `only prompts and replies: ${JSON.stringify(rows.slice(0, 4))}`);
  rows = await filterTo("no-results");
  assert.ok(rows.length > 3 && rows.every((r) => r.results === 0) && rows.some((r) => r.cards > 0), `calls kept, bare results gone: ${JSON.stringify(rows.slice(0, 4))}`);
  await page.getByTestId("transcript-show").selectOption("all");
  await page.getByTestId("transcript-total").getByText("100000 items").waitFor();
  // Back to every row, the reader is near where they were (the find's hit at 4000; a filter
  // that hides a row keeps the one before it).
  await page.waitForFunction(() => Math.abs(Number(document.querySelector("[data-testid=transcript] .item.current")?.dataset.row ?? -99) - 4000) <= 10);
  console.log("ok: filters to prompts and replies, to errors, and without tool results");

  // Keys: ] and [ for the next and previous turn, } and { for spawns.
  await viewport.evaluate((el) => (el.scrollTop = 0));
  await item(0).waitFor();
  // (A jump draws rows in brief until the list stays put: the place is a button once drawn whole.)
  await page.locator('[data-testid=transcript] .item[data-row="0"][data-drawn] button.where').click();
  await page.waitForFunction(() => document.querySelector("[data-testid=transcript] .item.current")?.dataset.row === "0").catch(async (e) => {
    console.error("after the click, current is", await currentRow(), await viewport.evaluate((el) => el.scrollTop));
    throw e;
  });
  await viewport.focus();
  for (const [key, row] of [["]", "5"], ["]", "10"], ["[", "5"], ["]", "10"], ["{", "5"]]) {
    await page.keyboard.press(key);
    await page.waitForFunction((row) => document.querySelector("[data-testid=transcript] .item.current")?.dataset.row === row, row).catch(async () => {
      throw new Error(`${key} should go to row ${row}, not ${await currentRow()}`);
    });
  }
  console.log("ok: keys for the next and previous turn and spawn");

  await viewport.evaluate((el) => (el.scrollTop = 0));
  await item(7).waitFor();
  // A long text comes cut with its length; "show all" asks for the whole.
  const more = item(7).getByTestId("show-all");
  assert.equal(await more.textContent(), "cut at 4000 of 10000 characters · show all");
  await more.click();
  await page.waitForFunction(() => document.querySelector('[data-testid=transcript] .item[data-row="7"] .md')?.textContent.trim().length === 9999);
  assert.deepEqual(await calls("transcript_part"), [{ session: "root", row: 7, part: 0 }]);
  console.log("ok: code monospaced, arguments as folded JSON, a cut text shown whole on request");

  // A finding opens its item in the transcript.
  await page.getByRole("tab", { name: /Findings/ }).click();
  await page.locator("button.item", { hasText: "half way down" }).click();
  await item(50_000).waitFor();
  await page.waitForFunction(() => document.querySelector('[data-testid=transcript] .item.current')?.dataset.row === "50000");
  assert.ok(await item(50_000).isVisible(), "the finding's item is on screen");
  // …and it lands at the top of the list once the rows around it are drawn whole and measured
  // (it stopped short by the growth of the rows just above it): held for 5 frames in a row.
  const landsOn = (row) =>
    page
      .waitForFunction(
        (row) => {
          const v = document.querySelector("[data-testid=transcript]");
          const c = v.querySelector(`.item[data-row="${row}"]`);
          const top = v.getBoundingClientRect().top;
          const settled = c && [...v.querySelectorAll(".item")].every((e) => e.dataset.drawn !== undefined) && Math.abs(c.getBoundingClientRect().top - top) <= 2;
          window.__landed = settled ? (window.__landed ?? 0) + 1 : 0;
          return window.__landed >= 5;
        },
        row,
        { polling: "raf", timeout: 10_000 },
      )
      .catch(async () => {
        throw new Error(`row ${row} should be at the top of the transcript: ${await viewport.evaluate((el, row) => Math.round(el.querySelector(`.item[data-row="${row}"]`)?.getBoundingClientRect().top - el.getBoundingClientRect().top), row)} px below it`);
      });
  await landsOn(50_000);

  // A search hit opens its item too.
  await page.getByTestId("tab-search").click();
  await page.locator('input[aria-label="Search the log"]').fill("question 70000");
  await page.locator('[data-hit="record"]').click();
  await page.waitForFunction(() => document.querySelector("[data-testid=transcript] .item.current")?.dataset.row === "70000");
  assert.ok((await item(70_000).textContent()).includes("question 70000"), "the hit's item is on screen");
  await landsOn(70_000);

  // Spawn → the child's transcript; the child's header → where the parent received its reply;
  // the received item → the child's reply.
  await viewport.evaluate((el) => (el.scrollTop = 0));
  await item(5).getByTestId("to-child").click();
  await page.waitForFunction(() => document.querySelector(".node.selected")?.dataset.session === "kid");
  await item(0).getByText("check the numbers").waitFor();
  assert.equal(await page.getByTestId("transcript-total").textContent(), "10 items");
  // Read to the child's end first (where its reply is): the parent still opens at the received
  // row, not pinned to its own end.
  await viewport.evaluate((el) => (el.scrollTop = el.scrollHeight));
  await item(9).waitFor();
  await page.waitForFunction(() => {
    const el = document.querySelector("[data-testid=transcript]");
    return el.scrollTop > 0 && el.scrollTop + el.clientHeight >= el.scrollHeight - 2;
  });
  await page.getByTestId("to-parent").click();
  await page.waitForFunction(() => document.querySelector(".node.selected")?.dataset.session === "root");
  await page.waitForFunction(() => document.querySelector("[data-testid=transcript] .item.current")?.dataset.row === "6");
  // "↑ received by root at run.jsonl:7" opens the parent's transcript at the received row.
  await landsOn(6);
  await item(6).getByTestId("to-child-reply").click();
  await page.waitForFunction(() => document.querySelector(".node.selected")?.dataset.session === "kid");
  await page.waitForFunction(() => document.querySelector("[data-testid=transcript] .item.current")?.dataset.row === "9");
  assert.ok((await item(9).textContent()).includes("kid answer"));
  console.log("ok: finding → its item, search hit → its item, spawn → child, child → parent's received item, received → child's reply");

  // Tokens in the tree: own / subtree on a node with children, own on a leaf, nothing without.
  const tokens = (id) => page.locator(`.node[data-session="${id}"] [data-testid=tokens]`).textContent();
  assert.equal(await tokens("root"), "137k / 148.1k");
  assert.equal(await tokens("kid"), "11.1k");
  assert.equal(await tokens("stray"), "");
  // A root with no turns in its log does not read "0 runs".
  assert.ok(!(await page.locator('.node[data-session="root"]').textContent()).includes("0 runs"), await page.locator('.node[data-session="root"]').textContent());
  // An unknown depth shows nothing (not "d0"); an inferred link is marked.
  const stray = page.locator('.node[data-session="stray"]');
  assert.ok(!(await stray.textContent()).includes("d0"), await stray.textContent());
  assert.ok(await stray.locator(".inferred-link").isVisible(), "the inferred link is marked");
  assert.ok((await page.locator('.node[data-session="kid"]').textContent()).includes("d1"));
  // The inspector: the session's and subtree's tokens, and how each run was linked.
  await page.getByTestId("tab-inspector").click();
  await page.locator('.node[data-session="kid"]').click();
  assert.equal(await page.getByTestId("run-link").textContent(), "linked by meta sidecar");
  assert.ok((await page.getByTestId("inspector-usage").textContent()).includes("own 11.1k tokens · 11.1k tokens unpriced"), await page.getByTestId("inspector-usage").textContent());
  await page.locator('.node[data-session="root"]').click();
  await page.getByTestId("inspector-usage").getByText("own 137k tokens · $1.50").waitFor();
  assert.ok((await page.getByTestId("inspector-usage").textContent()).includes("subtree 148.1k tokens · $1.50 + 11.1k tokens unpriced"), "a subtree with a model of no price: the priced part and the unpriced tokens");
  assert.ok(!(await page.locator("body").textContent()).includes("cost unknown"), "no cost is hidden as unknown");
  // The per-model summary opens whole, above the panes (the strip it sits in hides overflow):
  // its table is all on screen and on top at 1280 and 1920 px.
  assert.equal(await page.getByTestId("usage-cost").textContent(), "$1.50 + 11.1k tokens unpriced");
  assert.match(await page.getByTestId("usage-toggle").getAttribute("title"), /11.1k tokens of mystery-model/);
  for (const width of [1280, 1920]) {
    await page.setViewportSize({ width, height: 960 });
    await page.getByTestId("usage-toggle").click();
    const panel = page.getByTestId("usage-models");
    await panel.waitFor();
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const seen = await panel.evaluate((el) => {
      const r = el.getBoundingClientRect();
      const rows = [...el.querySelectorAll("tr")].map((tr) => {
        const b = tr.getBoundingClientRect();
        const hit = document.elementFromPoint(b.left + 20, b.top + b.height / 2);
        return el.contains(hit);
      });
      return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, height: r.height, rows, vw: innerWidth, vh: innerHeight };
    });
    assert.ok(seen.height > 60 && seen.left >= 0 && seen.right <= seen.vw && seen.bottom <= seen.vh, `the table is whole on screen at ${width} px: ${JSON.stringify(seen)}`);
    assert.ok(seen.rows.length >= 4 && seen.rows.every(Boolean), `every row of the table is drawn on top at ${width} px: ${JSON.stringify(seen)}`);
    if (width === 1280) await page.screenshot({ path: `${SHOTS}/usage-models-light.png` });
    const models = await page.getByTestId("usage-model").allTextContents();
    assert.ok(models[0].includes("gpt-known") && models[0].includes("$1.50"), models[0]);
    assert.ok(models[1].includes("mystery-model") && models[1].includes("unpriced") && !models[1].includes("$0"), models[1]);
    assert.equal(await page.getByTestId("usage-total").textContent(), "$1.50 + 11.1k tokens unpriced");
    await page.keyboard.press("Escape");
    await panel.waitFor({ state: "detached" });
  }
  await page.setViewportSize({ width: 1280, height: 960 });
  console.log("ok: tokens column, inspector usage and link provenance, per-model summary, no d0");

  // Export…: OpenTelemetry chosen in the dialog, the save dialog's path goes to export_otel, and
  // the app says what it wrote.
  await page.getByTestId("export").click();
  await page.getByTestId("export-otlp").check();
  await page.getByTestId("export-save").click();
  await page.getByTestId("exported").getByText(`Exported 42 spans in 1 trace to ${out}`).waitFor();
  assert.deepEqual(await calls("export_otel"), [{ path: out }]);
  console.log("ok: Export… writes where the dialog said and tells how many spans");

  // Screenshots of the transcript, light and dark.
  mkdirSync(SHOTS, { recursive: true });
  await page.getByTestId("exported").getByRole("button").click();
  await page.locator('.node[data-session="root"]').click();
  await page.getByTestId("tab-transcript").click();
  await item(0).waitFor();
  await page.getByTestId("transcript").evaluate((el) => (el.scrollTop = 0));
  await item(2).locator("details.json summary").click();
  await page.getByTestId("transcript").evaluate((el) => (el.scrollTop = 0));
  const frame = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  for (const theme of ["light", "dark"]) {
    await page.evaluate((t) => (document.documentElement.dataset.theme = t), theme);
    await frame();
    await page.screenshot({ path: `${SHOTS}/transcript-${theme}.png` });
  }
  // The tool cards.
  await viewport.evaluate((el) => (el.scrollTop = 1560));
  await item(11).waitFor();
  await page.waitForTimeout(200);
  await frame();
  for (const theme of ["light", "dark"]) {
    await page.evaluate((t) => (document.documentElement.dataset.theme = t), theme);
    await frame();
    await page.screenshot({ path: `${SHOTS}/transcript-cards-${theme}.png` });
  }
  console.log(`ok: screenshots in ${SHOTS}`);
});
