// Bidi controls in log text (issue #31) in headless Chromium (IPC mocked, tests/browser.mjs): a
// log whose session label, id, finding message, reply, raw line, search hit and transcript text
// carry U+202E (right-to-left override) and U+2066/U+2069 (an isolate). Every view shows each
// control as a marked ⟨U+202E⟩ and applies none: the page's text holds no bidi control at all,
// and `file<U+202E>gpj.exe` reads `file⟨U+202E⟩gpj.exe`, never as a .jpg.
// usage: node tests/bidi.browser.mjs   (from ui/; needs /usr/bin/chromium or $CHROMIUM)
import assert from "node:assert/strict";
import { browserTest, mockIpc } from "./browser.mjs";

const RLO = "\u202E";
const SPOOF = `file${RLO}gpj.exe`;
const SHOWN = "file⟨U+202E⟩gpj.exe";
const ISO = "a\u2066b\u2069c";
const CONTROLS = /[\u202A-\u202E\u2066-\u2069]/;
const FILE = "run.jsonl";

const line = (o) => JSON.stringify(o);
const lines = [
  line({ method: "session.start", params: { sessionId: "root" } }),
  line({ method: "session.start", params: { sessionId: `kid${RLO}dab`, label: `open ${SPOOF}` } }),
  line({ method: "reply", params: { sessionId: "root", text: `sent ${SPOOF}` } }),
];
const at = (l) => ({ file: FILE, line: l });
const report = {
  report_version: 2,
  inputs: [{ file: FILE, format: "dsh-rpc", records: 3, bad_lines: 0, bytes: 300 }],
  sessions: [
    { id: "root", parent: null, root: "root", depth: 0, label: `lead ${ISO}`, runs: [], events: 2 },
    { id: `kid${RLO}dab`, parent: "root", root: "root", depth: 1, label: `open ${SPOOF}`, runs: [{ parent: "root", start: at(2), end: at(2), outcome: "ok", link: "tool-call" }], events: 1 },
  ],
  turns: [],
  replies: [{ session: "root", root: true, turn: 1, text: `sent ${SPOOF}`, at: at(3) }],
  waits: [],
  diagnostics: [{ code: "subagent-unfinished", severity: "warning", at: at(2), session: `kid${RLO}dab`, message: `the child named ${SPOOF} did not end` }],
};
const transcript = {
  page: (session, from) => ({
    session,
    total: 1,
    from: 0,
    rows: from > 0 ? [] : [{ row: 0, record: 0, at: at(1), kind: "event", time: null, turn: 1, step: null, parts: [
      { kind: "text", text: `**look** at ${SPOOF}`, text_len: 20, cut: false, json: false, tool: null, call_id: null, is_error: null, child: null, model: null, usage: null },
      { kind: "tool-call", text: JSON.stringify({ command: `cat ${SPOOF}` }), text_len: 20, cut: false, json: true, tool: "Bash", call_id: "c1", is_error: null, child: null, model: null, usage: null },
    ] }],
  }),
  part: () => null,
  locate: (session) => ({ session, row: 0 }),
};
const hits = [
  { type: "session", id: `kid${RLO}dab`, label: `open ${SPOOF}` },
  { type: "record", record: { index: 3, file: FILE, line: 3, session: "root", kind: "reply", time: null }, text: `{"text":"sent ${SPOOF}"}` },
];

await browserTest("bidi browser test", async ({ ui, newPage }) => {
  const page = await newPage({ viewport: { width: 1280, height: 900 } });
  await mockIpc(page, { report, files: { [FILE]: lines.join("\n") }, launch: ["/logs"], hits, transcript });
  await page.goto(ui.url);
  await page.locator(".node").nth(1).waitFor();
  /** Text of `selector`: it shows the marks, and no control is left in it. */
  const marked = async (selector, where, want = SHOWN) => {
    const texts = await page.locator(selector).allTextContents();
    const all = texts.join("\n");
    assert.ok(all.includes(want), `${where} shows ${want}: ${all.slice(0, 400)}`);
    assert.ok(!CONTROLS.test(all), `${where} holds no bidi control: ${JSON.stringify(all.slice(0, 400))}`);
    assert.ok((await page.locator(`${selector} .bidi`).count()) > 0, `${where} marks the control`);
  };
  await marked(".node", "the tree");
  await marked(".node", "the tree (an isolate)", "lead a⟨U+2066⟩b⟨U+2069⟩c");
  await marked(".findings .item", "the findings");
  // The tooltips (attributes) carry the marks as text.
  assert.ok(!CONTROLS.test(await page.locator(".findings .item").first().getAttribute("title")));
  await page.locator(".node").nth(1).click();
  await page.getByTestId("raw-line").waitFor();
  await marked("[data-testid=raw-line]", "the inspector");
  await page.getByTestId("tab-replies").click();
  await marked("[data-testid=reply-text]", "the replies");
  await page.getByTestId("tab-search").click();
  await page.getByLabel("Search the log").fill("gpj");
  await page.locator("[data-hit=record]").waitFor();
  await marked("[data-hit]", "the search hits");
  await page.locator(".node").first().click();
  await page.getByTestId("tab-transcript").click();
  await page.locator("[data-testid=transcript] .item").first().getByText("look").waitFor();
  await marked("[data-testid=transcript] .md", "the transcript's markdown");
  await marked("[data-testid=tool-head]", "the tool card", `Bash: cat ${SHOWN}`);
  // The whole page: no control anywhere in its text.
  assert.ok(!CONTROLS.test(await page.locator("body").textContent()), "no bidi control in the page's text");
  console.log("ok: tree, findings, inspector, replies, search and transcript mark every bidi control and apply none");
});
