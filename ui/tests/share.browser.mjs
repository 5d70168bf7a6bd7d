// Sharing a session (SPEC 6.4) in headless Chromium. First the real thing: `arbor export --html`
// (the debug CLI, built before the browser tests) of the hostile markup log and of a real Claude
// Code session from the corpus, each opened from its file: it renders with its own styles (the
// style block allowed by its hash in the file's Content-Security-Policy), requests nothing but
// itself, runs no script from the log, shows the log's markup as text, and folds tool results;
// screenshots light and dark. Then the app's Export… (IPC mocked): the preview drawn in a
// sandboxed frame that runs nothing, Markdown previewed as text, and Save… writing where the save
// dialog said with the options chosen.
// usage: node tests/share.browser.mjs   (from ui/; needs /usr/bin/chromium or $CHROMIUM)
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { browserTest, mockIpc, UI } from "./browser.mjs";
import { syntheticTranscript, transcriptReport } from "./transcript-fixture.mjs";

const ROOT = resolve(UI, "..");
const SHOTS = resolve(ROOT, "docs/screenshots");
const ARBOR = process.env.ARBOR_CLI ?? resolve(ROOT, process.env.CARGO_TARGET_DIR ?? "target", "debug/arbor");
const OUT = mkdtempSync(join(tmpdir(), "arbor-share-"));
process.on("exit", () => rmSync(OUT, { recursive: true, force: true }));

function arbor(...args) {
  const r = spawnSync(ARBOR, args, { encoding: "utf8" });
  assert.equal(r.status, 0, `arbor ${args.join(" ")}: ${r.stderr}`);
  return r;
}

const hostile = join(OUT, "hostile.html");
arbor("export", "--html", hostile, "--subagents", "inline", "--session", "root", resolve(ROOT, "tests/hostile/markup.jsonl"));
const hostileMd = join(OUT, "hostile.md");
arbor("export", "--markdown", hostileMd, "--subagents", "inline", "--session", "root", resolve(ROOT, "tests/hostile/markup.jsonl"));
const corpus = resolve(ROOT, "../shared/corpus/claude-code/claude-code-viewer");
const real = join(OUT, "claude-code.html");
arbor("export", "--html", real, "--subagents", "files", "--session", "fe5e1c67-53e7-4862-81ae-d0e013e3270b", corpus);
const childFiles = readdirSync(OUT).filter((f) => f.startsWith("claude-code.") && f !== "claude-code.html");

await browserTest("share browser test", async ({ ui, newPage, fail }) => {
  // The Markdown: the log's markup escaped outside code, so no renderer takes it for HTML.
  const md = readFileSync(hostileMd, "utf8");
  assert.ok(!/<script|<img/i.test(md.replace(/`[^`\n]*`/g, "")), "markup outside code spans in the Markdown export");
  assert.equal(childFiles.length, 5, `five sub-agent files beside the export: ${childFiles}`);

  for (const file of [hostile, real, join(OUT, childFiles[0])]) {
    const page = await newPage({ viewport: { width: 1100, height: 900 } });
    const url = pathToFileURL(file).href;
    const requests = [];
    const blocked = [];
    page.on("request", (r) => requests.push(r.url()));
    page.on("console", (m) => {
      if (/Content.Security.Policy|Refused/i.test(m.text())) blocked.push(m.text());
    });
    page.on("dialog", (d) => {
      fail(`${file}: a dialog opened: ${d.message()}`);
      d.dismiss();
    });
    await page.goto(url);
    await page.waitForLoadState("load");
    assert.deepEqual(requests, [url], `${file} requests nothing but itself`);
    assert.deepEqual(blocked, [], `${file}: nothing tried to load or run`);
    const facts = await page.evaluate(() => ({
      pwned: window.__pwned,
      scripts: document.scripts.length,
      images: document.images.length,
      frames: document.querySelectorAll("iframe, object, embed, form").length,
      maxWidth: getComputedStyle(document.querySelector("main")).maxWidth,
      csp: document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute("content"),
      text: document.body.innerText,
      folded: [...document.querySelectorAll("details")].filter((d) => !d.open).length,
    }));
    assert.equal(facts.pwned, undefined, `${file}: injected script ran`);
    assert.equal(facts.scripts, 0, `${file}: a script element`);
    assert.equal(facts.images, 0, `${file}: an image element`);
    assert.equal(facts.frames, 0, `${file}: a frame, object or form`);
    assert.equal(facts.maxWidth, "960px", `${file}: the export's own styles apply (allowed by their hash)`);
    assert.match(facts.csp, /default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'; img-src data:/);
    if (file === hostile) {
      assert.ok(facts.text.includes("<script>window.__pwned=1</script>"), "the log's markup shown as text");
      assert.ok(facts.text.includes('<img src=x onerror="window.__pwned=1">'), "a hostile session id shown as text");
    }
    if (file === real) {
      assert.ok(facts.text.includes("Empty Repo Setup: CLAUDE.md Foundation Created"), "the session's title");
      assert.ok(facts.folded > 0, "long tool output folded");
      const links = await page.locator(".summary a").evaluateAll((as) => as.map((a) => a.getAttribute("href")));
      assert.deepEqual(links.sort(), [...childFiles].sort(), "each sub-agent's file linked from its spawn");
      mkdirSync(SHOTS, { recursive: true });
      for (const scheme of ["light", "dark"]) {
        await page.emulateMedia({ colorScheme: scheme });
        await page.screenshot({ path: resolve(SHOTS, `share-${scheme}.png`) });
      }
    }
    await page.close();
  }
  console.log("ok: exports of the hostile log and a real session render alone, request nothing, run nothing");

  // The app's Export…: a preview in a sandboxed frame, then Save… where the dialog said.
  const page = await newPage({ viewport: { width: 1280, height: 800 } });
  const out = "/tmp/arbor-shared.html";
  const preview = {
    session: "root",
    text: '<!DOCTYPE html><html><body><h1 id="h">Shared root</h1><script>window.top.__pwned = 1; document.getElementById("h").textContent = "ran";</script></body></html>',
    cut: false,
    sessions: 2,
    rows: 10,
  };
  await mockIpc(page, {
    report: transcriptReport(10),
    transcript: syntheticTranscript(10),
    launch: ["/logs"],
    answers: { share_preview: preview, "plugin:dialog|save": out, export_share: { sessions: 2, rows: 10, files: [], cut: false } },
  });
  await page.goto(ui.url);
  await page.locator('.node[data-session="root"]').click();
  await page.getByTestId("export").click();
  const frame = page.frameLocator("[data-testid=export-frame]");
  await frame.locator("#h").waitFor();
  assert.equal(await frame.locator("#h").textContent(), "Shared root", "the preview's script did not run");
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  const calls = (cmd) => page.evaluate((cmd) => window.__ipcCalls.filter(([c]) => c === cmd).map(([, a]) => a), cmd);
  assert.deepEqual((await calls("share_preview"))[0], { session: "root", options: { style: "html", subagents: "summary", reasoning: false } });
  await page.screenshot({ path: resolve(SHOTS, "export-dialog-light.png") });
  await page.getByTestId("export-inline").check();
  await page.getByTestId("export-markdown").check();
  await page.getByTestId("export-text").waitFor();
  assert.ok((await page.getByTestId("export-text").textContent()).includes("<script>"), "Markdown previewed as text");
  await page.getByTestId("export-save").click();
  await page.getByTestId("exported").getByText(`Shared 2 sessions (10 items) to ${out}`).waitFor();
  assert.deepEqual(await calls("export_share"), [{ path: out, session: "root", options: { style: "markdown", subagents: "inline", reasoning: false } }]);
  console.log("ok: Export… previews in a sandboxed frame, as text for Markdown, and saves with the options chosen");
});
