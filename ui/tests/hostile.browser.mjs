// Log text is untrusted: the app's views in headless Chromium (IPC mocked, tests/browser.mjs) over
// the engine's recorded report of tests/hostile/markup.jsonl, a log whose session ids, labels,
// event types, replies and finding messages are markup (`<script>`, `<img onerror>`, a
// `javascript:` link) and ANSI escapes. Every view (tree, findings, replies with the dropped
// notifications, inspector, search, timeline) must show that text verbatim, as text, and run none
// of it: `window.__pwned` stays undefined and no element the log names appears in the page.
// usage: node tests/hostile.browser.mjs   (from ui/; needs /usr/bin/chromium or $CHROMIUM)
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { browserTest, mockIpc, UI } from "./browser.mjs";

const DIR = resolve(UI, "../tests/hostile");
const FILE = "markup.jsonl";
const SCRIPT = "<script>window.__pwned=1</script>";
const IMG = '<img src=x onerror="window.__pwned=1">';
const JS = "javascript:window.__pwned=1";
const ANSI = "\x1b[31mred\x1b[0m";

await browserTest("hostile browser test", async ({ ui, newPage, fail }) => {
  const { REPORTS } = await ui.load("/src/lib/fixtures/reports.ts");
  const { DROPPED } = await ui.load("/src/lib/fixtures/dropped.ts");
  const { prettyLine } = await ui.load("/src/lib/inspector.ts");
  const { snippetParts } = await ui.load("/src/lib/search.ts");
  const report = REPORTS.find((r) => r.inputs.some((i) => i.file === FILE));
  assert.ok(report, `the fixtures record ${FILE} (ARBOR_UPDATE_FIXTURES=1, tests/app_report_types.rs)`);
  const text = readFileSync(`${DIR}/${FILE}`, "utf8");
  const files = { [FILE]: text };
  const lines = text.split("\n").filter((l) => l !== "");

  // What the log says, as the engine reads it: the markup must be in the report, or this tests nothing.
  const kid = report.sessions.find((s) => s.id === IMG);
  assert.ok(kid && kid.label.includes(SCRIPT) && kid.label.includes(ANSI), "a session id and label that are markup");
  assert.ok(report.replies.some((r) => r.text.includes(JS) && r.text.includes(IMG)), "a reply with a javascript: link");
  assert.ok(report.diagnostics.some((d) => d.message.includes(SCRIPT)), "a finding message with a script");
  assert.ok(report.diagnostics.some((d) => d.message.includes(IMG)), "a finding message with an img");

  // Search answers every line with markup, cut as the engine cuts it (240 characters from 80 before).
  const hits = [{ type: "session", id: kid.id, label: kid.label }];
  lines.forEach((raw, i) => {
    const at = raw.indexOf("pwned");
    if (at < 0) return;
    const p = JSON.parse(raw).params ?? {};
    const record = { index: i, file: FILE, line: i + 1, session: p.sessionId ?? p.parentSessionId ?? null, kind: p.event?.type ?? "event", time: null };
    hits.push({ type: "record", record, text: (at > 80 ? "…" : "") + raw.slice(Math.max(0, at - 80), Math.max(0, at - 80) + 240) });
  });

  const page = await newPage({ viewport: { width: 1280, height: 960 } });
  page.on("dialog", (d) => {
    fail("a dialog opened:", d.message());
    d.dismiss();
  });
  await mockIpc(page, { report, files, launch: [DIR], hits, dropped: DROPPED });
  await page.goto(ui.url);
  await page.locator(".node").first().waitFor();
  const scripts = await page.evaluate(() => document.scripts.length);

  /** Nothing ran, and no element the log names is in the page. */
  const clean = async (where) => {
    const seen = await page.evaluate(() => ({
      pwned: typeof window.__pwned,
      imgs: document.querySelectorAll("img").length,
      anchors: document.querySelectorAll("a").length,
      scripts: document.scripts.length,
    }));
    assert.deepEqual(seen, { pwned: "undefined", imgs: 0, anchors: 0, scripts }, `${where}: ${JSON.stringify(seen)}`);
  };
  /** The text of everything matching `selector`, as the user reads it. */
  const texts = (selector) => page.locator(selector).allTextContents();
  const shows = async (selector, want, where) => {
    const all = (await texts(selector)).join("\n");
    assert.ok(all.includes(want), `${where} shows ${JSON.stringify(want)} verbatim; it shows:\n${all.slice(0, 600)}`);
  };

  // The tree: the id and the label, escapes and all.
  const node = page.locator(".node").filter({ hasText: "pwned" }).first();
  assert.equal(await node.getAttribute("data-session"), IMG, "the id is the node's data, unchanged");
  await shows(".node", kid.label, "the tree");
  await shows(".node", IMG, "the tree");
  await clean("tree");

  // The findings: each message as the engine wrote it.
  for (const d of report.diagnostics) await shows(".findings .item", d.message, "the findings");
  await clean("findings");

  // The inspector: the selected session's line, pretty-printed, with its text unchanged.
  await node.click();
  const place = await page.getByTestId("inspector-place").textContent();
  const line = Number(place.slice(place.lastIndexOf(":") + 1));
  await page.getByTestId("raw-line").waitFor();
  assert.equal(await page.getByTestId("raw-line").textContent(), prettyLine(lines[line - 1]), "the raw line, verbatim");
  await shows(".inspector", IMG, "the inspector");
  // The line with the label (ANSI escapes survive JSON as \u001b, as the file has them).
  const labelLine = lines.findIndex((l) => l.includes("subagent/descriptor")) + 1;
  await page.getByTestId("neighbour").filter({ hasText: `${FILE}:${labelLine}` }).first().click();
  await page.waitForFunction((want) => document.querySelector("[data-testid=inspector-place]")?.textContent === want, `${FILE}:${labelLine}`);
  assert.equal(await page.getByTestId("raw-line").textContent(), prettyLine(lines[labelLine - 1]));
  await shows("[data-testid=raw-line]", "\\u001b[31mred", "the inspector");
  await clean("inspector");

  // The replies: both readings' texts and every session's replies; the dropped notifications.
  await page.getByTestId("tab-replies").click();
  // Replies are Markdown with raw HTML off: the markup in them is text.
  for (const r of report.replies) await shows(".replies [data-testid=reply-text]", r.text, "the replies");
  for (const w of report.waits) await shows(".replies .wait pre", w.reply, "the root wait");
  await page.getByTestId("dropped-line").first().waitFor();
  await shows("[data-testid=dropped-line]", IMG, "the dropped notifications");
  await shows(".replies h4 button", IMG, "the replies' session heading");
  await clean("replies");

  // Search: session and record hits, the text around the match as it is.
  await page.getByTestId("tab-search").click();
  await page.getByLabel("Search the log").fill("pwned");
  await page.locator("[data-hit=record]").first().waitFor();
  // A record hit's row starts a little before the match (lib/search.ts), its JSON escapes undone;
  // the markup in it is text.
  const row = (h) => Object.values(snippetParts(h.text, "pwned")).join("");
  for (const h of hits) await shows("[data-hit]", h.type === "session" ? h.label : row(h), "the search hits");
  assert.ok(hits.some((h) => h.type === "record" && row(h).includes(SCRIPT)), "a record hit shows a script element as text");
  await clean("search");

  // The timeline draws ids and labels on a canvas; its status line names the hovered session.
  await page.getByTestId("tab-timeline").click();
  await page.waitForFunction(() => document.querySelector("[data-testid=timeline-canvas]")?.dataset.viewEnd !== undefined);
  await clean("timeline");
  console.log(`ok: tree, findings, inspector, replies, search and timeline show ${FILE}'s markup as text; nothing ran`);
});
