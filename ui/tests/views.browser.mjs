// The app's views in headless Chromium (IPC mocked, tests/browser.mjs) over the built-in sample's
// recorded report and its real log lines: the event inspector shows the records around the
// selected one and a click on one moves the selection; the replies view puts the lines that make
// the naive reading differ beside it (where each reading ends, the child message it returns, the
// notifications it drops, paged) and each selects its line, and a large log's waits and replies
// come a page at a time, forward and back; Reload (the button, Ctrl+R, F5) opens the
// same paths again and keeps the selected session; and each view is photographed in light and
// dark (docs/screenshots/: overview, replies, inspector, search).
// usage: node tests/views.browser.mjs   (from ui/; needs /usr/bin/chromium or $CHROMIUM)
import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { browserTest, eventually, mockIpc, UI } from "./browser.mjs";

const SHOTS = resolve(UI, "../docs/screenshots");
const SAMPLE = resolve(UI, "../tests/conformance/cases/builtin-sample/input");
const LOGS = "/home/user/logs/arbor-sample";
const QUERY = "fact-checker";

await browserTest("views browser test", async ({ ui, newPage }) => {
  const { REPORTS } = await ui.load("/src/lib/fixtures/reports.ts");
  const { DROPPED } = await ui.load("/src/lib/fixtures/dropped.ts");
  const report = REPORTS[0];
  const files = Object.fromEntries(report.inputs.map((i) => [i.file, readFileSync(`${SAMPLE}/${i.file}`, "utf8")]));

  // What the search answers for QUERY: the sessions by id, then the lines that contain it.
  const hits = report.sessions.filter((s) => s.id.includes(QUERY)).map((s) => ({ type: "session", id: s.id, label: s.label ?? null }));
  for (const [file, text] of Object.entries(files)) {
    text.split("\n").forEach((raw, i) => {
      const at = raw.indexOf(QUERY);
      if (at < 0 || hits.length >= 10) return;
      const o = JSON.parse(raw);
      const p = o.params ?? {};
      const record = { index: i, file, line: i + 1, session: p.sessionId ?? null, kind: p.event?.type ?? o.method ?? "response", time: null };
      // As the engine cuts it: 240 characters from 80 before the match.
      hits.push({ type: "record", record, text: (at > 80 ? "…" : "") + raw.slice(Math.max(0, at - 80), Math.max(0, at - 80) + 240) });
    });
  }

  const page = await newPage({ viewport: { width: 1280, height: 800 } });
  await mockIpc(page, { report, files, launch: [LOGS], hits, dropped: DROPPED });
  await page.goto(ui.url);
  const calls = (cmd) => page.evaluate((cmd) => window.__ipcCalls.filter(([c]) => c === cmd).map(([, a]) => a), cmd);
  await page.locator('.node[data-session="planner"]').waitFor();
  assert.deepEqual(await calls("open_paths"), [{ paths: [LOGS] }], "the launch paths are opened once");

  // The inspector: a session's place, its raw line, and the records around it.
  await page.locator('.node[data-session="planner"]').click();
  const place = await page.getByTestId("inspector-place").textContent();
  const [file, line] = [place.slice(0, place.lastIndexOf(":")), Number(place.slice(place.lastIndexOf(":") + 1))];
  const raw = files[file].split("\n")[line - 1];
  await page.getByTestId("records-after").waitFor();
  assert.deepEqual(JSON.parse(await page.getByTestId("raw-line").textContent()), JSON.parse(raw), "the raw line, pretty-printed");
  const before = await page.getByTestId("records-before").getByTestId("neighbour").allTextContents();
  const after = await page.getByTestId("records-after").getByTestId("neighbour").allTextContents();
  assert.equal(before.length, Math.min(3, line - 1), `records before ${place}: ${before}`);
  assert.equal(after.length, 3, `records after ${place}: ${after}`);
  assert.ok(after[0].includes(`${file}:${line + 1}`), `the first record after is the next line: ${after[0]}`);
  assert.deepEqual(
    await calls("records_around"),
    [{ file, line, before: 3, after: 3 }],
    "records_around asked once, for the selected place",
  );
  console.log(`ok: inspector at ${place} shows ${before.length} records before and ${after.length} after`);

  // A click on a neighbour moves the selection to it (and its session, in the tree).
  await page.getByTestId("records-after").getByTestId("neighbour").first().click();
  await page.waitForFunction((want) => document.querySelector("[data-testid=inspector-place]")?.textContent === want, `${file}:${line + 1}`);
  const next = JSON.parse(files[file].split("\n")[line]);
  const nextSession = next.params?.sessionId;
  if (nextSession) {
    await eventually(() => page.locator(".node.selected").getAttribute("data-session"), (s) => s === nextSession, "the neighbour's session is selected");
  }
  await page.getByTestId("records-before").getByTestId("neighbour").last().waitFor();
  await eventually(() => page.getByTestId("records-before").getByTestId("neighbour").last().textContent(), (t) => t.includes(place), "the old place is now before");
  console.log(`ok: a click on the next record selects ${file}:${line + 1}`);

  // Replies: the dsh-rpc root turn lists the notifications the naive reading drops, a page at a
  // time, each selecting its line; the Copilot wait's naive end selects that line.
  const lead = report.waits.find((w) => w.notifications !== undefined && w.notifications > w.naive.notifications);
  const all = DROPPED.find((d) => d.root === lead.root && d.file === lead.start.file && d.line === lead.start.line).page.records;
  assert.equal(all.length, lead.notifications - lead.naive.notifications, "the fixture lists every dropped notification");
  await page.getByTestId("tab-replies").click();
  const dropped = page.getByTestId("dropped-line");
  await dropped.first().waitFor();
  assert.equal(await dropped.count(), Math.min(20, all.length), "the first page");
  const row = (r) => `${r.kind}${r.session ?? "—"}${r.file}:${r.line}`;
  assert.equal((await dropped.first().textContent()).replace(/\s+/g, ""), row(all[0]).replace(/\s+/g, ""));
  assert.equal(await page.getByTestId("dropped-more").textContent(), `${all.length - 20} more`);
  await page.getByTestId("dropped-more").click();
  await page.waitForFunction((n) => document.querySelectorAll("[data-testid=dropped-line]").length === n, Math.min(40, all.length));
  const pages = (await calls("naive_dropped")).map((a) => [a.offset, a.limit]);
  assert.deepEqual(pages, [[0, 20], [20, 20]], "asked a page at a time");
  const pick = all[25];
  await dropped.nth(25).click();
  await page.waitForFunction((want) => document.querySelector("[data-testid=inspector-place]")?.textContent === want, `${pick.file}:${pick.line}`);
  await eventually(() => page.locator(".node.selected").getAttribute("data-session"), (s) => s === pick.session, "a dropped line selects its session");
  const sdk = report.waits.find((w) => w.naive.end !== undefined && w.naive.end !== null);
  await page.getByTestId("naive-end").first().click();
  await page.waitForFunction((want) => document.querySelector("[data-testid=inspector-place]")?.textContent === want, `${sdk.naive.end.file}:${sdk.naive.end.line}`);
  // A saved Copilot log: the naive waiter returns a sub-agent's message; its line is a link.
  const saved = REPORTS[1];
  const savedDir = resolve(UI, "../tests/conformance/cases/copilot-events-saved/input");
  const other = await newPage({ viewport: { width: 1280, height: 800 } });
  const savedFiles = Object.fromEntries(saved.inputs.map((i) => [i.file, readFileSync(`${savedDir}/${i.file}`, "utf8")]));
  await mockIpc(other, { report: saved, files: savedFiles, launch: [savedDir] });
  await other.goto(ui.url);
  await other.getByTestId("tab-replies").click();
  const childReply = saved.diagnostics.find((d) => d.code === "child-reply-would-replace-root-reply").at;
  await eventually(() => other.getByTestId("naive-reply").first().textContent(), (t) => t === `${childReply.file}:${childReply.line}`, "the naive reply's line");
  await other.getByTestId("naive-reply").first().click();
  await other.waitForFunction((want) => document.querySelector("[data-testid=inspector-place]")?.textContent === want, `${childReply.file}:${childReply.line}`);
  await eventually(() => other.getByTestId("raw-line").textContent(), (t) => t.includes("assistant.message"), "the child's message is in the inspector");
  await other.close();
  console.log(`ok: replies list ${all.length} dropped notifications of ${lead.root}'s turn a page at a time; lines select their place`);

  // Reload: the button, Ctrl+R and F5 open the same paths again; the selected session stays.
  await page.locator('.node[data-session="fact-checker"]').click();
  const opens = async (n) => {
    await page.waitForFunction((n) => window.__ipcCalls.filter(([c]) => c === "open_paths").length === n, n);
    await page.locator('.node[data-session="fact-checker"]').waitFor();
  };
  await page.getByTestId("reload").click();
  await opens(2);
  await page.keyboard.press("Control+r");
  await opens(3);
  await page.keyboard.press("F5");
  await opens(4);
  assert.deepEqual(await calls("open_paths"), Array(4).fill({ paths: [LOGS] }), "each reload opens the same paths");
  await eventually(() => page.locator(".node.selected").getAttribute("data-session"), (s) => s === "fact-checker", "the selection survives a reload");
  await eventually(() => page.getByTestId("inspector-place").textContent(), (t) => !!t, "and its place stays in the inspector");
  console.log("ok: Reload, Ctrl+R and F5 reopen the same paths and keep the selected session");

  // Screenshots of each view in both themes.
  mkdirSync(SHOTS, { recursive: true });
  const frame = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  // Tall enough that the inspector shows the selected line and the records on both sides.
  await page.setViewportSize({ width: 1280, height: 960 });
  for (const theme of ["light", "dark"]) {
    await page.getByLabel("Theme").selectOption(theme);
    await page.getByRole("tab", { name: /Findings/ }).click();
    await page.locator('.node[data-session="planner"]').click();
    await page.getByTestId("records-after").waitFor();
    await frame();
    await page.screenshot({ path: `${SHOTS}/overview-${theme}.png` });
    await page.locator(".pane.inspector").screenshot({ path: `${SHOTS}/inspector-${theme}.png` });
    await page.getByTestId("tab-replies").click();
    await frame();
    await page.locator(".pane.side").screenshot({ path: `${SHOTS}/replies-${theme}.png` });
    await page.getByTestId("tab-search").click();
    await page.getByLabel("Search the log").fill(QUERY);
    await page.locator("[data-hit=record]").first().waitFor();
    await frame();
    await page.locator(".pane.side").screenshot({ path: `${SHOTS}/search-${theme}.png` });
  }
  await eventually(() => page.locator("[data-hit]").count(), (n) => n === hits.length, "every search hit is listed");
  assert.equal(await page.locator("[data-hit=record] mark").first().textContent(), QUERY, "the match is marked");
  console.log(`ok: screenshots in ${SHOTS}`);

  // Keyboard and filters: j/k move through the tree, Enter folds a node, "/" opens the search with
  // its field focused, and a severity switch hides that severity's findings.
  await page.getByRole("tab", { name: /Findings/ }).click();
  await page.locator('.node[data-session="planner"]').click();
  await page.keyboard.press("j");
  await eventually(() => page.locator(".node.selected").getAttribute("data-session"), (s) => s !== "planner", "j moves the selection down");
  await page.keyboard.press("k");
  await eventually(() => page.locator(".node.selected").getAttribute("data-session"), (s) => s === "planner", "k moves it back up");
  await page.keyboard.press("Enter");
  await page.locator('.node[data-session="researcher"]').waitFor({ state: "detached" });
  await page.keyboard.press("Enter");
  await page.locator('.node[data-session="researcher"]').waitFor();
  // At 1280 px the Found menu's label is whole (it read "Found: …"), the toolbar on one line.
  const found = await page.locator('select[aria-label="Found on this machine"]').evaluate((el) => {
    const c = document.createElement("canvas").getContext("2d");
    const st = getComputedStyle(el);
    c.font = `${st.fontSize} ${st.fontFamily}`;
    const text = el.options[el.selectedIndex].text;
    // The label, its padding and the arrow (about 20 px) inside the box.
    return { text, need: c.measureText(text).width + parseFloat(st.paddingLeft) + parseFloat(st.paddingRight) + 20, width: el.clientWidth, wrapped: (() => {
      const mid = (e) => { const r = e.getBoundingClientRect(); return r.top + r.height / 2; };
      return Math.abs(mid(el) - mid(el.parentElement.querySelector("button"))) > 4;
    })() };
  });
  assert.ok(found.need <= found.width && !found.wrapped, `the Found menu reads "${found.text}" whole: ${JSON.stringify(found)}`);
  // At 1280 px every finding's line number is on screen whole, inside its row (the file name may be cut).
  const cut = await page.locator(".findings .item").evaluateAll((rows) =>
    rows
      .map((row) => {
        const line = row.querySelector("[data-testid=finding-place] .line");
        const [r, l, p] = [row.getBoundingClientRect(), line.getBoundingClientRect(), line.parentElement.getBoundingClientRect()];
        return { text: line.textContent, whole: l.width > 0 && l.right <= r.right && l.right <= p.right + 0.5 && line.scrollWidth <= line.clientWidth + 1 && getComputedStyle(line).textOverflow !== "ellipsis" };
      })
      .filter((x) => !x.whole || !/^:\d+$/.test(x.text)),
  );
  assert.deepEqual(cut, [], `line numbers cut: ${JSON.stringify(cut)}`);
  const warnings = () => page.locator(".findings .sev.warning").count();
  assert.ok((await warnings()) > 0, "the sample has warnings");
  await page.locator(".sev-switch.warning").click();
  await eventually(warnings, (n) => n === 0, "switching warnings off hides them");
  await page.locator(".sev-switch.warning").click();
  await eventually(warnings, (n) => n > 0, "and switching them on shows them again");
  await page.locator('.node[data-session="planner"]').click();
  await page.keyboard.press("/");
  await page.waitForFunction(() => document.activeElement?.getAttribute("aria-label") === "Search the log");
  console.log("ok: j/k and Enter in the tree, the severity switches, and / to search");

  // The inspector lists every run of the selected session with the parent it ran under.
  await page.getByRole("tab", { name: /Findings/ }).click();
  await page.locator('.node[data-session="worker-7"]').click();
  const runs = await eventually(() => page.getByTestId("run").allTextContents(), (r) => r.length === 2, "worker-7 has two runs");
  assert.match(runs[0], /run 1 under\s*lead\s*ok/);
  assert.match(runs[1], /run 2 under\s*planner\s*error/);
  console.log("ok: the inspector lists worker-7's runs under lead (ok) and planner (error)");

  // Findings are grouped by code inside each severity, and can be narrowed to the selected
  // session: worker-7 has the sample's two info findings, and no other session has any.
  const codeGroups = await page.locator("[data-group-code]").evaluateAll((els) => els.map((e) => e.dataset.groupCode));
  const expected = ["error", "warning", "info"].flatMap((sev) =>
    [...new Set(report.diagnostics.filter((x) => x.severity === sev).map((x) => x.code))].sort(),
  );
  assert.deepEqual(codeGroups, expected, "one group per severity and code, codes in order inside a severity");
  const listed = () => page.locator(".findings .item").evaluateAll((els) => els.map((e) => e.dataset.code));
  const every = await eventually(listed, (l) => l.length === report.diagnostics.length, "every finding listed");
  await page.getByTestId("only-selected").click();
  const mine = report.diagnostics.filter((x) => x.session === "worker-7").map((x) => x.code).sort();
  await eventually(async () => (await listed()).sort(), (l) => JSON.stringify(l) === JSON.stringify(mine), "only worker-7's findings");
  assert.ok(mine.length > 0 && mine.length < every.length);
  await page.locator('.node[data-session="lead"]').click();
  await page.getByText("No finding matches for lead.").waitFor();
  await page.getByTestId("only-selected").click();
  await eventually(listed, (l) => l.length === every.length, "switched off, every finding again");
  console.log("ok: findings grouped by code; narrowed to the selected session and back");

  // A large log's replies come a page at a time (drawing them all froze the webview; they stay on
  // the Rust side): 100 waits and 100 replies, then the next 100 of each on request, and back.
  const many = structuredClone(report);
  const [w0, r0] = [report.waits[0], report.replies[0]];
  many.waits = Array.from({ length: 250 }, (_, i) => ({ ...structuredClone(w0), start: { ...w0.start, line: 1000 + i } }));
  many.replies = Array.from({ length: 230 }, (_, i) => ({ ...structuredClone(r0), turn: i, text: `reply ${i}` }));
  const big = await newPage({ viewport: { width: 1280, height: 800 } });
  await mockIpc(big, { report: many, files, launch: [LOGS], dropped: DROPPED });
  await big.goto(ui.url);
  await big.getByTestId("tab-replies").click();
  await big.getByTestId("next-waits").waitFor();
  const counts = () => big.evaluate(() => [document.querySelectorAll(".replies .wait").length, document.querySelectorAll(".replies .reply").length]);
  const pagers = () => Promise.all(["waits", "replies"].map((w) => big.getByTestId(`pager-${w}`).evaluate((e) => e.firstChild.textContent.trim())));
  await eventually(counts, (c) => c[0] === 100 && c[1] === 100, "a page of each");
  await eventually(pagers, (p) => p[0] === "waits 1–100 of 250" && p[1] === "replies 1–100 of 230", "the pagers say where");
  assert.equal(await big.getByTestId("next-waits").textContent(), "Next 100");
  assert.ok(await big.getByTestId("prev-waits").isDisabled(), "nothing before the first page");
  await big.getByTestId("next-waits").click();
  await big.getByTestId("next-replies").click();
  await big.waitForFunction(() => document.querySelector("[data-testid=pager-replies]")?.textContent.includes("101–200"));
  await big.waitForFunction(() => document.querySelector("[data-testid=pager-waits]")?.textContent.includes("101–200"));
  await eventually(counts, (c) => c[0] === 100 && c[1] === 100, "the second page of each");
  await big.getByTestId("next-waits").click();
  await big.getByTestId("next-replies").click();
  await big.waitForFunction(() => document.querySelectorAll(".replies .reply").length === 30 && document.querySelectorAll(".replies .wait").length === 50);
  await eventually(pagers, (p) => p[0] === "waits 201–250 of 250" && p[1] === "replies 201–230 of 230", "the last pages");
  assert.ok(await big.getByTestId("next-waits").isDisabled(), "nothing after the last page");
  await eventually(() => big.locator(".replies .reply [data-testid=reply-text]").last().innerText(), (t) => t === "reply 229", "in report order");
  await big.getByTestId("prev-replies").click();
  await big.waitForFunction(() => document.querySelector("[data-testid=pager-replies]")?.textContent.includes("101–200"));
  await eventually(() => big.locator(".replies .reply [data-testid=reply-text]").first().innerText(), (t) => t === "reply 100", "back a page");
  await big.close();
  console.log("ok: 250 waits and 230 replies shown 100 at a time, in order, forward and back");
});
