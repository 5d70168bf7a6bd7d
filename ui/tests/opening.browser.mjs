// Opening logs in headless Chromium (IPC mocked, tests/browser.mjs), over the built-in sample's
// recorded report: a corrupt-settings notice is shown and dismissed; a log opened again comes back
// to the session and tab last shown; a change of selection is saved as that log's view state;
// "Add… › Files…" reads the chosen files together with what is open, "Open files…" instead of it;
// nothing can be added to the built-in sample; and a path that cannot be read says why and what to do next.
// usage: node tests/opening.browser.mjs   (from ui/; needs /usr/bin/chromium or $CHROMIUM)
import assert from "node:assert/strict";
import { browserTest, eventually, mockIpc } from "./browser.mjs";

const LOGS = "/home/user/logs/arbor-sample";
const MORE = "/home/user/logs/more.jsonl";
const NOTICE = "Arbor's settings file could not be read: it is not JSON. It was kept as settings.json.corrupt";

await browserTest("opening browser test", async ({ ui, newPage }) => {
  const { REPORTS } = await ui.load("/src/lib/fixtures/reports.ts");
  const report = REPORTS[0];
  const page = await newPage({ viewport: { width: 1280, height: 800 } });
  await mockIpc(page, {
    report,
    launch: [LOGS],
    answers: {
      settings: { recent: [], theme: "system", notice: NOTICE },
      view_state: { session: "planner", tab: "replies" },
      "plugin:dialog|open": [MORE],
    },
  });
  await page.goto(ui.url);
  const calls = (cmd) => page.evaluate((cmd) => window.__ipcCalls.filter(([c]) => c === cmd).map(([, a]) => a), cmd);

  // The settings notice, once, until dismissed.
  await page.getByTestId("notice").waitFor();
  assert.match(await page.getByTestId("notice").textContent(), /settings\.json\.corrupt/);
  await page.getByTestId("notice").getByRole("button", { name: "Dismiss" }).click();
  assert.equal(await page.getByTestId("notice").count(), 0, "dismissed");
  console.log("ok: a corrupt settings file is reported, and the notice dismissed");

  // The saved view state of this log comes back: its session selected, its tab shown.
  await page.locator('.node[data-session="planner"][aria-selected="true"]').waitFor();
  // Asked for this log (the page may also ask for what it showed before, the sample).
  assert.deepEqual((await calls("view_state")).at(-1), { key: [LOGS] });
  assert.equal(await page.getByTestId("tab-replies").getAttribute("aria-selected"), "true");
  console.log("ok: reopening a log restores its selected session (planner) and tab (replies)");

  // Choosing another session saves it as this log's view state (a moment later).
  await page.locator('.node[data-session="researcher"]').click();
  await page.waitForFunction(() =>
    window.__ipcCalls.some(([c, a]) => c === "save_view_state" && a.view.session === "researcher"),
  );
  const saved = (await calls("save_view_state")).at(-1);
  assert.deepEqual(saved, { key: [LOGS], view: { session: "researcher", tab: "replies", lower: "inspector", timeline: false } });
  console.log("ok: the new selection is saved as the log's view state");

  // Add… › Files… reads the chosen files together with what is open; Open files… instead of it.
  await page.getByTestId("add").selectOption("files");
  await page.waitForFunction(() => window.__ipcCalls.filter(([c]) => c === "open_paths").length === 2);
  assert.deepEqual((await calls("open_paths")).at(-1), { paths: [LOGS, MORE] });
  await page.locator('.node[data-session="planner"]').waitFor();
  await page.getByTestId("open-files").click();
  await page.waitForFunction(() => window.__ipcCalls.filter(([c]) => c === "open_paths").length === 3);
  assert.deepEqual((await calls("open_paths")).at(-1), { paths: [MORE] });
  const remembered = JSON.stringify([[LOGS], [LOGS, MORE], [MORE]]);
  await eventually(async () => JSON.stringify((await calls("remember_opened")).map((a) => a.paths)), (r) => r === remembered, "each open is remembered with the paths it read");
  console.log("ok: Add… › Files… adds to what is open; Open files… replaces it");

  // The sample has no paths to add to.
  await page.getByRole("button", { name: "Sample" }).click();
  await page.waitForFunction(() => window.__ipcCalls.some(([c]) => c === "open_sample"));
  await page.locator('.node[data-session="planner"]').waitFor();
  await page.waitForFunction(() => document.querySelector('[data-testid="add"]')?.disabled === true);
  assert.deepEqual((await calls("view_state")).at(-1), { key: ["arbor:sample"] }, "the sample keeps a view state of its own");
  console.log("ok: nothing can be added to the built-in sample");

  // Long names in the recent and found menus do not push the toolbar's last controls (the
  // theme menu) out of a 1280-pixel window: every control stays inside it.
  const crowded = await newPage({ viewport: { width: 1280, height: 800 } });
  const long = "/home/user/projects/a-harness-with-a-very-long-name/runs/2026-11-30/session-0123456789abcdef/events.jsonl";
  await mockIpc(crowded, {
    report,
    answers: {
      settings: { recent: [{ paths: [long, `${long}.2`], openedAt: 0 }], theme: "system", notice: null },
      found_logs: [{ path: long, harness: "copilot", name: "session-0123456789abcdef-with-a-long-name/events.jsonl", modified: null }],
    },
  });
  await crowded.goto(ui.url);
  await crowded.getByRole("combobox", { name: "Theme" }).waitFor();
  await crowded.waitForFunction(() => document.querySelector('select[aria-label="Found on this machine"]')?.disabled === false);
  const outside = await crowded.evaluate(() =>
    [...document.querySelectorAll("header.bar button, header.bar select")]
      .map((c) => ({ name: c.getAttribute("aria-label") ?? c.textContent.trim(), right: c.getBoundingClientRect().right }))
      .filter((c) => c.right > window.innerWidth),
  );
  assert.deepEqual(outside, [], "no toolbar control outside the window");
  await crowded.close();
  console.log("ok: at 1280 px, long recent and found entries leave every toolbar control in the window");

  // A path that cannot be read: the error says why and what to do next.
  const failing = await newPage({ viewport: { width: 1280, height: 800 } });
  const why = "/home/user/logs/gone.jsonl: No such file or directory (os error 2)";
  await mockIpc(failing, { report, launch: ["/home/user/logs/gone.jsonl"], answers: { open_paths: { reject: { code: "load-failed", message: why } } } });
  await failing.goto(ui.url);
  const shown = await failing.getByTestId("error").textContent({ timeout: 20_000 });
  assert.match(shown, /Could not open: .*No such file or directory/);
  assert.match(shown, /\(load-failed\)/);
  assert.match(shown, /Choose another file or folder .* or\s+fix the file and press Reload/);
  await failing.close();
  console.log("ok: an unreadable path shows the reason and what to do next");
});
