// Cancel while a large log loads, in headless Chromium (IPC mocked, tests/browser.mjs): the load
// of the launch path is held open here and its progress sent a step at a time. The Cancel button
// stays where it was while the counts after it grow (the first click lands on it), and after a
// Cancel the window shows what was read (the tree of the sessions read so far) with a line that
// says it was cancelled and a Reload that reads the log again, whole.
// usage: node tests/cancel.browser.mjs   (from ui/; needs /usr/bin/chromium or $CHROMIUM)
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { browserTest, mockIpc, UI } from "./browser.mjs";

const SHOTS = resolve(UI, "../docs/screenshots");

/** A report of a root and `n` children. */
function report(n) {
  const at = (line) => ({ file: "big.jsonl", line });
  return {
    report_version: 1,
    inputs: [{ file: "/logs/big.jsonl", format: "dsh-rpc", records: n * 2, bad_lines: 0, bytes: 1_000_000 }],
    sessions: [
      { id: "root", parent: null, root: "root", depth: 0, label: "lead", runs: [], events: 2 },
      ...Array.from({ length: n }, (_, i) => ({ id: `kid-${i}`, parent: "root", root: "root", depth: 1, label: `child ${i}`, runs: [{ parent: "root", start: at(i + 2), end: at(i + 3), outcome: "ok", link: "tool-call" }], events: 2 })),
    ],
    turns: [],
    replies: [],
    waits: [],
    diagnostics: [],
  };
}

await browserTest("cancel browser test", async ({ ui, newPage }) => {
  const page = await newPage({ viewport: { width: 1280, height: 800 } });
  await mockIpc(page, { report: report(6), launch: ["/logs/big.jsonl"] });
  // The first open_paths is held: its progress is sent when the test says (window.__progress),
  // and it ends when the load is cancelled; later ones are the mock's.
  await page.addInitScript(() => {
    const mocked = window.__TAURI_INTERNALS__.invoke;
    let held = 0;
    let cancel = null;
    window.__TAURI_INTERNALS__.invoke = async (cmd, args) => {
      if (cmd === "cancel_load" && cancel) cancel();
      if (cmd !== "open_paths" || held++ > 0) return mocked(cmd, args);
      window.__ipcCalls.push([cmd, { paths: args.paths }]);
      // The view host holds what was read so far (the tree of the log being read is answered from it).
      await window.__arborView("open", {});
      const channel = window[`_${args.onEvent.id}`];
      let index = 0;
      const send = (message) => channel({ index: index++, message });
      window.__progress = (records, sessions, bytes) => {
        send({ type: "progress", files_done: 0, files_total: 1, bytes_read: bytes, bytes_total: 1_000_000, records, sessions, findings: Math.floor(records / 1000) });
        if (sessions) send({ type: "changed", revision: 1, sessions });
      };
      return new Promise((_, reject) => (cancel = () => reject({ code: "cancelled", message: "the load was cancelled" })));
    };
  });
  await page.goto(ui.url);
  await page.waitForFunction(() => typeof window.__progress === "function");
  const button = page.getByTestId("cancel");
  await button.waitFor();
  const box = async () => {
    const b = await button.boundingBox();
    return [Math.round(b.x), Math.round(b.y)];
  };
  await page.evaluate(() => window.__progress(9, 0, 100));
  await page.getByTestId("load-counts").getByText("9 records").waitFor();
  const first = await box();
  // The counts grow by orders of magnitude; the button stays put.
  for (const [records, sessions, bytes] of [[950, 1, 10_000], [123_456, 4, 250_000], [98_765_432, 7, 600_000]]) {
    await page.evaluate(([r, s, b]) => window.__progress(r, s, b), [records, sessions, bytes]);
    await page.getByTestId("load-counts").getByText(`${records} records`).waitFor();
    assert.deepEqual(await box(), first, `Cancel stays where it was at ${records} records`);
  }
  await page.locator(".provisional .node").first().waitFor();
  const read = await page.locator(".provisional .node").count();
  assert.ok(read > 1, `the sessions read so far are shown: ${read}`);
  console.log(`ok: Cancel stays at ${first} while the counts grow from 9 to 98765432 records`);

  // Cancel: what was read stays, with a line that says so and Reload.
  await button.click();
  const line = page.getByTestId("cancelled");
  await line.waitFor();
  assert.match((await line.textContent()).replace(/\s+/g, " "), /Cancelled reading .*big\.jsonl.* after 98765432 records, 7 sessions/);
  assert.equal(await page.locator(".provisional .node").count(), read, "the tree of what was read stays on screen");
  assert.ok(await page.evaluate(() => window.__ipcCalls.some(([c]) => c === "cancel_load")), "the load was cancelled");
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: `${SHOTS}/cancelled-light.png` });
  // Reload reads it again, this time to the end: the log opens.
  await page.getByTestId("cancelled-reload").click();
  await page.getByTestId("inputs").waitFor();
  await page.locator('.node[data-session="kid-5"]').waitFor();
  assert.equal(await line.count(), 0, "the cancelled line goes once the log is open");
  // The inputs strip names the file opened once (its path), then its format and records.
  const strip = (await page.getByTestId("inputs").textContent()).replace(/\s+/g, " ");
  assert.equal(strip.split("/logs/big.jsonl").length - 1, 1, `the path said once: ${strip}`);
  assert.match(strip, /big\.jsonl dsh-rpc 12 records/);
  const opens = await page.evaluate(() => window.__ipcCalls.filter(([c]) => c === "open_paths").map(([, a]) => a.paths));
  assert.deepEqual(opens, [["/logs/big.jsonl"], ["/logs/big.jsonl"]]);
  console.log("ok: after Cancel, what was read stays with a cancelled line; Reload reads it whole");
});
