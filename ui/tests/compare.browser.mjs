// Compare (SPEC 5, 6.3) in headless Chromium, IPC mocked with what the engine says of real logs:
// `arbor diff --json` (the debug CLI, built before the browser tests) of a Claude Code corpus
// session against a copy with one tool call's arguments and one message's tokens changed, and
// its root's transcript rows (`arbor transcript --json`) for both sides. The Library's two ticked
// rows open the view: the verdict, a row per aligned pair with its mark and coloured deltas, the
// totals, and the two transcripts side by side from where they part, that row marked on both
// sides; a pair's label of markup stays text. Compare with… on the strip compares the open log
// with the files the dialog gives.
// usage: node tests/compare.browser.mjs   (from ui/; needs /usr/bin/chromium or $CHROMIUM)
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { browserTest, mockIpc, UI } from "./browser.mjs";
import { transcriptReport } from "./transcript-fixture.mjs";

const ROOT = resolve(UI, "..");
const SHOTS = resolve(ROOT, "docs/screenshots");
const ARBOR = process.env.ARBOR_CLI ?? resolve(ROOT, process.env.CARGO_TARGET_DIR ?? "target", "debug/arbor");
const OUT = mkdtempSync(join(tmpdir(), "arbor-compare-"));
process.on("exit", () => rmSync(OUT, { recursive: true, force: true }));
const MARKUP = '<img src=x onerror="window.__pwned=1">Search the repo';

function arbor(ok, ...args) {
  const r = spawnSync(ARBOR, args, { encoding: "utf8", maxBuffer: 1 << 26 });
  assert.ok(ok.includes(r.status), `arbor ${args.join(" ")}: ${r.status} ${r.stderr}`);
  return r.stdout;
}

const A = resolve(ROOT, "tests/corpus/claude-code/agtrace_claude_session.jsonl");
const B = join(OUT, "b.jsonl");
writeFileSync(
  B,
  readFileSync(A, "utf8")
    .replace('"command":"cd myapp && python hoge.py"', '"command":"cd myapp && python -u hoge.py"')
    .replace('"output_tokens":436', '"output_tokens":536'),
);
const comparison = JSON.parse(arbor([1], "diff", "--json", A, B));
/** What the app answers for a comparison: its head (`compare_runs`), its pairs a window at a time
 * (`compare_pairs`), as `Comparison::into_head` makes them. */
function answered(c) {
  const { pairs, ...rest } = c;
  const differs = [...new Set([...c.totals.differs, ...pairs.flatMap((p) => p.delta.differs)])];
  return { compare_runs: { ...rest, pairs: pairs.length, differs }, compare_pairs: { pages: pairs } };
}
// A child only in B, to show a one-sided pair (its label from a log: markup, kept as text).
comparison.pairs.push({ ...comparison.pairs[0], a: null, b: "child-b", parent: 0, depth: 1, label: MARKUP, divergence: null, delta: { ...comparison.pairs[0].delta, differs: ["sessions"] } });
const root = comparison.a.root;
// The root's transcript as pages of rows (the shape of `transcript_page`), from its items.
const rows = new Map();
for (const line of arbor([0], "transcript", "--json", "--session", root, A).split("\n").filter(Boolean)) {
  const it = JSON.parse(line);
  const { session, row, at, time, turn, step, ...part } = it;
  if (!rows.has(row)) rows.set(row, { row, record: row, at, kind: "message", time, turn, step, parts: [] });
  rows.get(row).parts.push({ text_len: part.text?.length ?? 0, cut: false, json: false, tool: null, call_id: null, is_error: null, child: null, model: null, usage: null, media: null, ...part });
}
const all = [...rows.values()];
const div = comparison.divergence;
const from = Math.max(0, div.row_a - 3);
const page = { session: root, total: all.length, from, rows: all.slice(from, from + 80) };

const summary = (o) => ({
  session: null, title: null, project: "/Users/test_user/agent-sample", project_from: "cwd", harness: "claude-code", clock: "log", start: 1765309662930, end: 1765309730228,
  duration: 67298, turns: 4, subagents: 0, depth: 0, findings: { error: 0, warning: 0, info: 0 }, outcome: null, files: 1, bytes: 23449,
  usage: { input: 74, output: 844, cache_read: 93553, cache_write: 5158, cost: 0.06 }, key: o.path, ...o,
});
const SESSIONS = [summary({ path: A, session: root, title: "the run" }), summary({ path: B, session: root, title: "the run, changed", start: 1765309662931 })];

await browserTest("compare browser test", async ({ ui, newPage }) => {
  const page1 = await newPage({ viewport: { width: 1280, height: 800 }, colorScheme: "light" });
  await mockIpc(page1, {
    report: transcriptReport(4),
    launch: [],
    answers: { library_sessions: { sessions: SESSIONS, notice: null }, ...answered(comparison), compare_transcript: page, "plugin:dialog|open": [B] },
  });
  await page1.goto(ui.url);
  await page1.getByTestId("sessions").click();
  await page1.getByTestId("library-open").click();
  await page1.getByTestId("library-row").first().waitFor();

  // Two ticked rows compare, the first ticked as A; Compare waits for two.
  const compare = page1.getByTestId("library-compare");
  assert.equal(await compare.isDisabled(), true);
  const ticks = page1.getByTestId("library-tick");
  await ticks.nth(1).check();
  await ticks.nth(0).check();
  assert.equal(await compare.textContent(), "Compare (2/2)");
  await compare.click();
  await page1.getByTestId("compare-pair").first().waitFor();
  assert.equal(await page1.getByTestId("library").count(), 0);
  const asked = (await page1.evaluate(() => window.__ipcCalls.filter(([c]) => c === "compare_runs").map(([, a]) => a))).at(-1);
  // The rows are newest first: the second row is A (ticked first), the first is B.
  assert.deepEqual(asked, { a: { paths: [A], session: root }, b: { paths: [B], session: root }, ignore: [] });

  // The verdict, a row per pair with its mark, the deltas coloured by which way B went.
  assert.equal(await page1.getByTestId("compare-verdict").textContent(), "They differ: tokens, cost, conversation, sessions");
  const pairs = page1.getByTestId("compare-pair");
  assert.deepEqual(await pairs.evaluateAll((ps) => ps.map((p) => p.dataset.mark)), ["~", "+"]);
  const first = (await pairs.first().textContent()).replace(/\s+/g, " ");
  assert.match(first, /99\.6K → 99\.7K \(\+100\) \$0\.0603 → \$0\.0618 \(\+2 %\)/, first);
  assert.equal(await pairs.first().locator(".num.up").count(), 2, "tokens and cost went up");
  const child = (await pairs.nth(1).textContent()).replace(/\s+/g, " ");
  assert.ok(child.includes(MARKUP), `a label of markup is text: ${child}`);
  assert.equal(await page1.locator("[data-testid=compare] img").count(), 0);
  assert.equal(await page1.evaluate(() => window.__pwned), undefined);
  assert.match((await page1.getByTestId("compare-totals").textContent()).replace(/\s+/g, " "), /Total/);

  // The pair where the runs part is chosen: both transcripts from a few rows before, the row marked.
  const head = (await page1.getByTestId("compare-divergence").textContent()).replace(/\s+/g, " ");
  assert.match(head, /a tool call's arguments differ, after \d+ items the same/, head);
  await page1.getByTestId("compare-row-a").first().waitFor();
  const loads = await page1.evaluate(() => window.__ipcCalls.filter(([c]) => c === "compare_transcript").map(([, a]) => a));
  assert.deepEqual(loads.map((l) => [l.side, l.session, l.from]), [["a", root, from], ["b", root, Math.max(0, div.row_b - 3)]]);
  for (const side of ["a", "b"]) {
    const marked = page1.locator(`[data-testid=compare-row-${side}].diverges`);
    assert.equal(await marked.count(), 1, `the divergence is marked on side ${side}`);
    assert.match(await marked.textContent(), /Bash/);
  }
  mkdirSync(SHOTS, { recursive: true });
  await page1.screenshot({ path: resolve(SHOTS, "compare-light.png") });

  // A one-sided pair has nothing to compare with.
  await pairs.nth(1).click();
  assert.match(await page1.getByTestId("compare-divergence").textContent(), /Only in B/);
  await page1.keyboard.press("Escape");
  assert.equal(await page1.getByTestId("compare").count(), 0);

  // Compare with… on the strip: the open log (no paths) against the files chosen.
  await page1.getByTestId("compare-with").click();
  await page1.getByTestId("compare-pair").first().waitFor();
  const withAsked = (await page1.evaluate(() => window.__ipcCalls.filter(([c]) => c === "compare_runs").map(([, a]) => a))).at(-1);
  assert.deepEqual(withAsked.a.paths, []);
  assert.deepEqual(withAsked.b, { paths: [B], session: null });

  const dark = await newPage({ viewport: { width: 1280, height: 800 }, colorScheme: "dark" });
  await mockIpc(dark, { report: transcriptReport(4), launch: [], answers: { ...answered(comparison), compare_transcript: page, "plugin:dialog|open": [B] } });
  await dark.goto(ui.url);
  await dark.getByTestId("compare-with").click();
  await dark.getByTestId("compare-row-a").first().waitFor();
  await dark.screenshot({ path: resolve(SHOTS, "compare-dark.png") });
  console.log("ok: Compare shows the aligned pairs, their deltas and where the runs part, side by side; log text stays text");

  // A run of 50,000 sub-agents is 50,000 pairs: only a window of them is drawn (as elements they
  // held the real app's page for minutes), scrolled to the pair where the runs part.
  const many = { ...comparison, pairs: [] };
  for (let i = 0; i < 50_000; i++) {
    many.pairs.push({ ...comparison.pairs[0], a: `a-${i}`, b: `b-${i}`, parent: i ? 0 : null, depth: i ? 1 : 0, label: `agent ${i}`, divergence: null });
  }
  many.pairs[40_000] = { ...many.pairs[40_000], divergence: { ...comparison.divergence, pair: 40_000 } };
  many.divergence = many.pairs[40_000].divergence;
  const big = await newPage({ viewport: { width: 1280, height: 800 } });
  await mockIpc(big, { report: transcriptReport(4), launch: [], answers: { ...answered(many), compare_transcript: page, "plugin:dialog|open": [B] } });
  await big.goto(ui.url);
  await big.getByTestId("compare-with").click();
  await big.locator("[data-testid=compare-pair].on").waitFor();
  const drawn = await big.getByTestId("compare-pair").count();
  assert.ok(drawn > 5 && drawn < 60, `a window of the pairs is drawn: ${drawn}`);
  // The pairs stay with the engine: the page asked for a few blocks, the divergence's among them.
  const pairAsks = await big.evaluate(() => window.__ipcCalls.filter(([c]) => c === "compare_pairs").map(([, a]) => a));
  const pairsAsked = pairAsks.reduce((n, a) => n + a.limit, 0);
  assert.ok(pairsAsked <= 1000 && pairAsks.some((a) => a.offset <= 40_000 && 40_000 < a.offset + a.limit), JSON.stringify(pairAsks));
  // Opened at the divergence: the first block (drawn at the top before the list scrolled) is
  // never asked for.
  assert.ok(!pairAsks.some((a) => a.offset === 0), `no ask for the first pairs: ${JSON.stringify(pairAsks)}`);
  assert.match(await big.locator("[data-testid=compare-pair].on").textContent(), /agent 40000/);
  // Scrolled to its end, the last pair is drawn; chosen, its transcripts are asked for.
  await big.locator("[data-testid=compare] [aria-label='Aligned sessions']").evaluate((e) => (e.scrollTop = e.scrollHeight));
  await big.getByText("agent 49999").click();
  await big.locator("[data-testid=compare-pair].on", { hasText: "agent 49999" }).waitFor();
  const asks = await big.evaluate(() => window.__ipcCalls.filter(([c]) => c === "compare_transcript").map(([, a]) => a.session));
  assert.ok(asks.includes("a-49999") && asks.includes("b-49999"), asks.join());
  console.log(`ok: 50,000 pairs draw ${drawn} rows, from the divergence's, and scroll to the last`);
});
