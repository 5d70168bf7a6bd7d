// The Changes tab and image parts, in headless Chromium (IPC mocked, tests/browser.mjs). Changes:
// the selected session's edits with their files, lines added and removed, whether each applied,
// and a diff drawn as text (a line of markup from the log stays text, runs nothing). An image
// part: its type and size marked, drawn only when asked, from the data: URL the app reads back.
// usage: node tests/changes.browser.mjs   (from ui/; needs /usr/bin/chromium or $CHROMIUM)
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { browserTest, mockIpc, UI } from "./browser.mjs";
import { IMG, syntheticTranscript, transcriptReport } from "./transcript-fixture.mjs";

const SHOTS = resolve(UI, "../docs/screenshots");
// A 1×1 PNG.
const PNG = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

const edit = (path, line, tool, applied, diff) => ({
  session: "root",
  path,
  at: { file: "run.jsonl", line },
  row: line - 1,
  turn: 1,
  step: 1,
  tool,
  kind: "edit",
  applied,
  added: diff.split("\n").filter((l) => l.startsWith("+") && !l.startsWith("+++")).length,
  removed: diff.split("\n").filter((l) => l.startsWith("-") && !l.startsWith("---")).length,
  diff,
});

const CHANGES = {
  session: "root",
  total: 2,
  files: 2,
  from: 0,
  edits: [
    edit("src/lib.rs", 12, "Edit", true, `--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1 +1 @@\n-fn old() {}\n+${IMG}\n`),
    edit("README.md", 20, "Write", false, "--- a/README.md\t(whole file written)\n+++ b/README.md\n@@ -0,0 +1,1 @@\n+# hi\n"),
  ],
  cut: [false, false],
};

await browserTest("changes browser test", async ({ ui, newPage }) => {
  const page = await newPage({ viewport: { width: 1280, height: 800 } });
  const base = syntheticTranscript(10);
  // Row 2 of the root's transcript holds a prompt and an image.
  const transcript = {
    ...base,
    page(session, from, limit) {
      const p = base.page(session, from, limit);
      for (const r of p.rows)
        if (session === "root" && r.row === 2)
          r.parts = [
            { kind: "prompt", text: "look at this", text_len: 12, cut: false, json: false, tool: null, call_id: null, is_error: null, child: null, model: null, usage: null, media: null },
            { kind: "image", text: "", text_len: 0, cut: false, json: false, tool: null, call_id: null, is_error: null, child: null, model: null, usage: null, media: { media_type: "image/png", bytes: 70 } },
          ];
      return p;
    },
  };
  await mockIpc(page, { report: transcriptReport(10), transcript, launch: ["/logs"], answers: { changes_page: CHANGES, transcript_media: PNG } });
  await page.goto(ui.url);
  await page.locator('.node[data-session="root"]').click();

  await page.getByTestId("tab-changes").click();
  await page.getByTestId("changes-sum").waitFor();
  assert.match((await page.getByTestId("changes-sum").textContent()).replace(/\s+/g, " "), /2 files changed in 2 edits by this session/);
  assert.deepEqual(
    (await page.getByTestId("changed-file").allTextContents()).map((t) => t.replace(/\s+/g, " ").trim()),
    ["src/lib.rs +1 -1 1 edit", "README.md +1 -0 1 edit"],
  );
  assert.deepEqual(await page.getByTestId("applied").allTextContents(), ["applied", "failed"]);
  const calls = await page.evaluate(() => window.__ipcCalls.filter(([c]) => c === "changes_page").map(([, a]) => a));
  assert.equal(calls.at(-1).session, "root", "the selected session's changes are asked for");
  await page.getByTestId("toggle-diff").first().click();
  const diff = page.getByTestId("diff");
  await diff.waitFor();
  assert.ok((await diff.textContent()).includes(IMG), "a line of markup in a diff is shown as text");
  assert.equal(await diff.locator("img").count(), 0);
  assert.equal(await diff.locator("span.add").count(), 1);
  assert.equal(await diff.locator("span.del").count(), 1);
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: resolve(SHOTS, "changes-light.png") });

  // The image part: marked, drawn when asked, from the data: URL read back.
  await page.getByTestId("tab-transcript").click();
  const media = page.getByTestId("image-media");
  await media.waitFor();
  assert.equal(await media.textContent(), "image/png · 70 B");
  assert.equal(await page.getByTestId("image-drawn").count(), 0, "not drawn before it is asked for");
  await page.getByTestId("show-image").click();
  const img = page.getByTestId("image-drawn");
  await img.waitFor();
  assert.equal(await img.getAttribute("src"), PNG);
  const asked = await page.evaluate(() => window.__ipcCalls.filter(([c]) => c === "transcript_media").map(([, a]) => a));
  assert.deepEqual(asked, [{ session: "root", row: 2, part: 1 }]);
  assert.ok(await img.evaluate((e) => e.complete && e.naturalWidth === 1), "the image is drawn");
});
