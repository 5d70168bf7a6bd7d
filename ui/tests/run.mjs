// Runs the browser tests (tests/*.browser.mjs, or the ones named) in one process, sharing one dev
// server and one Chromium: `node tests/run.mjs [file ...]`. Each test still gets pages of its own
// (a browser context each, closed at its end) and a view host of its own. A test that fails is run
// once more (a loaded machine answers late); failing twice fails the run, and a second run that
// passes is said, so that a flaky test is seen. Exits 1 when a test failed.
import { readdirSync } from "node:fs";
import { basename, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { launch, shareAcrossTests, sharedTestFailed, startUi, UI } from "./browser.mjs";

const named = process.argv.slice(2);
const files = (named.length ? named : readdirSync(resolve(UI, "tests")).filter((f) => f.endsWith(".browser.mjs")).sort()).map((f) =>
  resolve(UI, "tests", basename(f)),
);

// Imports one test file (its top-level `await browserTest(...)` runs it); true when it passed.
// `again` makes a second import a new module: an imported module runs once per URL.
async function run(file, again) {
  const url = pathToFileURL(file).href + (again ? "?again" : "");
  try {
    await import(url);
  } catch (e) {
    console.error(e);
    sharedTestFailed();
    return false;
  }
  return !sharedTestFailed();
}

const ui = await startUi();
const browser = await launch();
shareAcrossTests(ui, browser);
const failed = [];
const flaky = [];
const times = [];
for (const file of files) {
  const started = Date.now();
  let passed = await run(file, false);
  if (!passed) {
    console.error(`!! ${basename(file)} failed; running it once more`);
    passed = await run(file, true);
    if (passed) flaky.push(basename(file));
  }
  if (!passed) failed.push(basename(file));
  times.push(`${basename(file)} ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
await browser.close();
await ui.close();
console.log(`browser tests: ${times.join(", ")}`);
for (const f of flaky) console.error(`!! ${f} passed on its second run: a flaky test (see above)`);
if (failed.length) {
  console.error(`browser tests: ${failed.length} of ${files.length} failed: ${failed.join(", ")}`);
  process.exit(1);
}
console.log(`browser tests: ${files.length} passed`);
