// Frame time of the Transcript view scrolling a 100,000-item session (tests/transcript-fixture.mjs:
// prompts, markdown answers with code blocks, folded tool calls and results, rows of different
// heights) in headless Chromium with the IPC mocked (tests/browser.mjs), on the production build
// (what the app embeds). Per action, one step a frame: "update" is the scroll handler, the Svelte
// update and style and layout (performance.now() around a scroll event and a forced layout),
// "frame" the interval between animation frames (paint and raster included; 60 Hz makes its floor
// 16.7 ms). Pages come from Node through the mock (as JSON text, as Tauri's IPC sends them), so
// a jump's first frames wait for the answer: the figures are the view's, not the engine's.
// "jumps, each settled" jumps every 24th frame (400 ms) and counts the frames in between too:
// while a drag goes on the view draws its rows in brief, and once it has stayed put 150 ms it
// draws them whole, with their markdown, and measures them. Wall-clock figures stretch with the other
// processes on a shared CPU, so each action also prints the CPU a step from Chromium's own
// counters (CDP Performance.getMetrics in thread ticks), as the tree bench does. Figures only:
// nothing is asserted (the CPU is shared).
// With --paths DIR the session is a real log read by the view host as the app reads it (the root
// of DIR, say the 100,000-item Claude Code session `cargo bench -p arbor-gen --bench transcript`
// writes, or `arbor-gen --format claude-code --depth 0 --turns N -o DIR`): its pages, cards and
// finds are the engine's, read back from the file, and the bench also times the tab click to the
// first rows and a find (typed, then Enter) to its first hit shown, through the mock.
// usage: node scripts/transcript-bench.mjs [frames per action, default 120] [--paths DIR] [--find WORD]   (from ui/)
import { loadavg } from "node:os";
import { closeViewHost, launch, mockIpc, startUi, stats } from "../tests/browser.mjs";
import { syntheticTranscript, transcriptReport } from "../tests/transcript-fixture.mjs";

const argv = process.argv.slice(2);
const flag = (name) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv.splice(i, 2)[1] : undefined;
};
const PATHS = flag("--paths");
const FIND = flag("--find") ?? "Bash";
const FRAMES = Number(argv[0] ?? 120);
const ROWS = 100_000;
const load = () => loadavg().map((x) => x.toFixed(2)).join(" ");

const ui = await startUi({ production: true });
const browser = await launch();
try {
  const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
  page.on("pageerror", (e) => console.error("page error:", e.message));
  if (PATHS) await mockIpc(page, { paths: [PATHS], launch: [PATHS] });
  else await mockIpc(page, { report: transcriptReport(ROWS), transcript: syntheticTranscript(ROWS), launch: ["/logs"] });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Performance.enable", { timeDomain: "threadTicks" });
  const metrics = async () => Object.fromEntries((await cdp.send("Performance.getMetrics")).metrics.map((m) => [m.name, m.value]));
  await page.goto(ui.url);
  await page.locator(PATHS ? '.node[data-session][aria-level="1"]' : '.node[data-session="root"]').first().click({ timeout: 120_000 });
  const t0 = Date.now();
  await page.getByTestId("tab-transcript").click();
  await page.locator('[data-testid=transcript] .item[data-row="0"] .meta').waitFor({ timeout: 60_000 });
  const first = Date.now() - t0;
  const items = PATHS ? await page.evaluate(() => document.querySelector(".pane.inspector")?.textContent?.match(/([\d,]+) items/)?.[1] ?? "?") : ROWS;
  console.log(`\ntranscript, ${items} items${PATHS ? ` (${PATHS}, read by the view host)` : ""}, window 1600x1000, production build; load average ${load()}`);
  console.log(`  tab click to the first rows drawn: ${first} ms`);
  if (PATHS) {
    // A find typed and asked with Enter, to its first hit shown (the count says "1 of N").
    for (const word of [FIND, "zqxjkvw"]) {
      const box = page.getByTestId("transcript-find");
      await box.fill(word);
      const t = Date.now();
      await box.press("Enter");
      await page.waitForFunction(() => /of \d|no match/.test(document.querySelector("[data-testid=find-count]")?.textContent ?? ""), null, { timeout: 60_000 });
      const said = await page.getByTestId("find-count").textContent();
      console.log(`  find "${word}" (Enter) to its first hit shown: ${Date.now() - t} ms (${said})`);
      await box.fill("");
      await box.press("Escape");
    }
    await page.waitForTimeout(500);
  }
  await page.evaluate(() => {
    window.__longFrames = [];
    try {
      new PerformanceObserver((l) => window.__longFrames.push(...l.getEntries().map((e) => e.duration))).observe({ type: "long-animation-frame" });
    } catch {
      window.__longFrames = null;
    }
  });
  const run = (action, n) =>
    page.evaluate(
      async ({ action, n }) => {
        const list = document.querySelector("[data-testid=transcript]");
        const frame = () => new Promise((res) => requestAnimationFrame(res));
        let seed = 3;
        const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
        const out = [];
        let last = await frame();
        for (let i = 0; i < n; i++) {
          const t = performance.now();
          if (action === "wheel steps (100 px)") list.scrollTop += 100;
          else if (action === "page steps (PageDown)") list.scrollTop += list.clientHeight;
          else if (action === "jumps (scrollbar drag)" || i % 24 === 0) list.scrollTop = Math.floor(rand() * list.scrollHeight);
          list.dispatchEvent(new Event("scroll"));
          await Promise.resolve();
          list.getBoundingClientRect();
          void document.body.offsetHeight;
          const update = performance.now() - t;
          const now = await frame();
          out.push([update, now - last]);
          last = now;
        }
        return out;
      },
      { action, n },
    );
  for (const action of ["wheel steps (100 px)", "page steps (PageDown)", "jumps (scrollbar drag)", "jumps, each settled"]) {
    await page.evaluate(() => {
      document.querySelector("[data-testid=transcript]").scrollTop = 0;
      if (window.__longFrames) window.__longFrames.length = 0;
    });
    await page.waitForTimeout(300);
    const m0 = await metrics();
    const xs = await run(action, FRAMES);
    const m1 = await metrics();
    const cpu = (name) => (((m1[name] - m0[name]) * 1000) / FRAMES).toFixed(2);
    const long = await page.evaluate(() => window.__longFrames?.length ?? "n/a");
    const shown = await page.evaluate(() => document.querySelectorAll("[data-testid=transcript] .item").length);
    console.log(`  ${action.padEnd(26)} update: ${stats(xs.map((x) => x[0]))}`);
    console.log(`  ${"".padEnd(26)} frame:  ${stats(xs.map((x) => x[1]))}   long frames: ${long}; rows in the DOM: ${shown}`);
    console.log(
      `  ${"".padEnd(26)} CPU a step: main thread ${cpu("ThreadTime")} ms (script ${cpu("ScriptDuration")}, style ${cpu("RecalcStyleDuration")}, layout ${cpu("LayoutDuration")}); renderer ${cpu("ProcessTime")} ms`,
    );
  }
  console.log(`  load average at the end: ${load()}`);
} finally {
  closeViewHost();
  await browser.close();
  await ui.close();
}
