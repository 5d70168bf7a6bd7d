// The UI in headless Chromium with Tauri's IPC mocked: a Vite dev server over ui/ (or the
// production bundle, built and served by `vite preview`) and a page whose
// window.__TAURI_INTERNALS__ answers the app's commands from a report given by the test. The
// commands that ask for pages of the open log (the tree's rows, findings, waits, replies, the
// timeline's windows) are answered by the engine's own view, in a view host process
// (crates/arbor-core/examples/view-host.rs) that holds the report, as the app does: the page
// holds only what it draws. Shared by the browser tests (tests/*.browser.mjs) and the UI benches
// (scripts/*-bench.mjs).
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { build, createServer, preview } from "vite";

export const UI = fileURLToPath(new URL("..", import.meta.url));

export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
  "--disable-sync",
];

/**
 * Starts the dev server on a free port; `load(path)` imports a UI module in Node (fixtures).
 * With `production`, builds the production bundle (what `npm run build` puts in ui/dist and the
 * app embeds) into a temporary directory instead and serves it with `vite preview`: the same page
 * and IPC mock, Svelte's production build (no `load`).
 */
export async function startUi({ production = false } = {}) {
  if (production) return startBuiltUi();
  const server = await createServer({
    root: UI,
    configFile: `${UI}/vite.config.ts`,
    logLevel: "error",
    server: { port: 0, strictPort: false, hmr: false, watch: null },
  });
  await server.listen();
  const url = server.resolvedUrls.local[0];
  return { url, load: (path) => server.ssrLoadModule(path), close: () => server.close() };
}

async function startBuiltUi() {
  const outDir = await mkdtemp(join(tmpdir(), "arbor-ui-dist-"));
  const config = { root: UI, configFile: `${UI}/vite.config.ts`, logLevel: "error", build: { outDir, emptyOutDir: true } };
  try {
    await build(config);
    const server = await preview({ ...config, preview: { port: 0, strictPort: false, open: false } });
    const url = server.resolvedUrls.local[0];
    const load = () => {
      throw new Error("startUi({ production: true }) serves the built bundle: no load()");
    };
    const close = async () => {
      await server.close();
      await rm(outDir, { recursive: true, force: true });
    };
    return { url, load, close };
  } catch (e) {
    await rm(outDir, { recursive: true, force: true });
    throw e;
  }
}

/**
 * The view host, started once per process (and built first when it is missing):
 * `call(key, cmd, args)` asks the view of `key` and resolves to `{ ok }` or `{ err }`.
 */
let host = null;

export function viewHost() {
  if (host) return host;
  const bin = process.env.ARBOR_VIEW_HOST ?? resolve(UI, "../target/debug/examples/view-host");
  if (!process.env.ARBOR_VIEW_HOST) {
    // Cheap when it is up to date: the tests always talk to the engine as it is.
    const built = spawnSync("cargo", ["build", "-q", "-p", "arbor-core", "--example", "view-host"], { cwd: resolve(UI, ".."), stdio: "inherit" });
    if (built.status !== 0 || !existsSync(bin)) throw new Error(`could not build the view host (${bin})`);
  }
  const child = spawn(bin, [], { stdio: ["pipe", "pipe", "inherit"] });
  const waiting = new Map();
  let next = 1;
  createInterface({ input: child.stdout }).on("line", (line) => {
    const answer = JSON.parse(line);
    waiting.get(answer.id)?.(answer.err ? { err: answer.err } : { ok: answer.ok });
    waiting.delete(answer.id);
  });
  host = {
    call(key, cmd, args) {
      const id = next++;
      return new Promise((resolve) => {
        waiting.set(id, resolve);
        child.stdin.write(JSON.stringify({ id, key, cmd, args }) + "\n");
      });
    },
    close() {
      child.stdin.end();
      child.kill();
      host = null;
    },
  };
  return host;
}

/** Lets the view host go (a script that used it ends only then: its pipes keep node running). */
export function closeViewHost() {
  host?.close();
}

export async function launch() {
  return chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", args: CHROMIUM_ARGS, headless: true });
}

/** "p50 … ms  p95 … ms  max … ms  (n=…)" of a list of durations, for the UI benches. */
/** Waits until `check(await read())` holds (the page answers asynchronously: a loaded machine is
 * slow to), then returns the value; fails with `message` after `ms`. */
export async function eventually(read, check, message, ms = 15000) {
  const until = Date.now() + ms;
  let value = await read();
  while (!check(value)) {
    if (Date.now() > until) throw new Error(`${message} (last: ${JSON.stringify(value)})`);
    await new Promise((r) => setTimeout(r, 50));
    value = await read();
  }
  return value;
}

export function stats(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return `p50 ${q(0.5).toFixed(2)} ms  p95 ${q(0.95).toFixed(2)} ms  max ${s[s.length - 1].toFixed(2)} ms  (n=${s.length})`;
}

/**
 * The dev server and Chromium every test of one run shares (tests/run.mjs sets it; a test file
 * run by itself starts its own). Starting both and compiling the UI's modules for the first page
 * was ~4 s a test.
 */
let shared = null;

/** Makes the browser tests that run after it in this process use `ui` and `browser` (tests/run.mjs). */
export function shareAcrossTests(ui, browser) {
  shared = { ui, browser, failed: false };
}

/** Whether a test failed since the last call (and resets it): tests/run.mjs asks after each file. */
export function sharedTestFailed() {
  const failed = shared?.failed ?? false;
  if (shared) shared.failed = false;
  return failed;
}

/**
 * Runs one browser test: the dev server and Chromium around `body`, which gets
 * `{ ui, browser, newPage, fail }`. `newPage(options)` opens a page whose uncaught errors fail the
 * test; `fail(...message)` fails it and goes on. A throw fails it too. Prints `PASS: name` or
 * `FAIL: name` and exits 1 on failure (or, in a shared run, says so to tests/run.mjs). In a shared
 * run the pages the test opened are closed at its end, so that none keeps running into the next.
 */
export async function browserTest(name, body) {
  const ui = shared?.ui ?? (await startUi());
  const browser = shared?.browser ?? (await launch());
  const before = new Set(browser.contexts());
  let failed = false;
  const fail = (...message) => {
    failed = true;
    console.error(...message);
  };
  const newPage = async (options) => {
    const page = await browser.newPage(options);
    page.on("pageerror", (e) => fail("page error:", e.message));
    return page;
  };
  try {
    await body({ ui, browser, newPage, fail });
  } catch (e) {
    fail(e);
  } finally {
    if (shared) {
      for (const context of browser.contexts()) if (!before.has(context)) await context.close();
    } else {
      await browser.close();
      await ui.close();
    }
    host?.close();
  }
  if (failed) {
    console.error(`FAIL: ${name}`);
    if (shared) {
      shared.failed = true;
      return;
    }
    process.exit(1);
  }
  console.log(`PASS: ${name}`);
}

let pages = 0;

/**
 * Installs the IPC mock in a page before the app's scripts run. `report` is a report object, or
 * `build` the source of a function that makes one (run here, in Node: the page never holds the
 * report, the view host does), or `paths` the logs the view host reads as the app does (its view
 * then has the roots' titles, read from their files). `files` (name to text) are the logs `raw_line` and
 * `records_around` read, approximating the engine's records as one per line (kind: the event type
 * or method; session: its sessionId); `launch` are the launch paths; `hits` what `search` streams;
 * `dropped` what the engine answered `naive_dropped` for root turns (`fixtures/dropped.ts`: whole
 * lists, paged here). Every call is kept, in order, in `window.__ipcCalls` as `[command, args]`
 * (channels left out). `answers` (command to a JSON value) override the default answers, for
 * example the settings or the open dialog's choice; `{ reject: error }` makes the command fail
 * with that error; `{ pages: rows }` answers `{ offset, limit }` with that page of the rows. `transcript` answers the transcript commands in Node (the view host holds a
 * report, not the files a transcript is read back from): `{ page(session, from, limit),
 * part(session, row, part), locate(session, place), find(session, query, show) }`, as
 * `transcript_page`, `transcript_part`, `transcript_locate` and `transcript_find` answer (tests/transcript-fixture.mjs makes one);
 * with `paths` and no `transcript`, the view host answers them from the logs it read.
 */
export async function mockIpc(page, { report, build, paths, files, launch, hits, dropped, answers, transcript }) {
  const key = `page-${++pages}`;
  const log = report ?? (build ? new Function(`return (${build})()`)() : null);
  const view = viewHost();
  // The page asks the view host through this binding; opening gives it the report first. Answers
  // cross as JSON text, parsed in the page, as Tauri's IPC does: a binding's object result goes
  // through Playwright's own value encoding, which costs the page's main thread tens of ms for a
  // page of rows (the transcript bench's jumps measured that encoding, not the view).
  await page.exposeBinding("__arborView", async (_source, cmd, args) =>
    JSON.stringify(
      await (cmd === "open" ? view.call(key, "open", args?.report || !paths ? { report: args?.report ?? log } : { paths }) : view.call(key, cmd, args)),
    ),
  );
  await page.exposeBinding("__arborTranscript", async (_source, cmd, args) => {
    // Logs read by the view host: their transcripts are the engine's, read back from the files.
    if (!transcript && paths) return JSON.stringify(await view.call(key, cmd, args));
    if (!transcript) return JSON.stringify({ err: { code: "unknown-command", message: "this test gives no transcript" } });
    try {
      if (cmd === "transcript_page") return JSON.stringify({ ok: await transcript.page(args.session, args.from, Math.min(args.limit, 500)) });
      if (cmd === "transcript_part") return JSON.stringify({ ok: await transcript.part(args.session, args.row, args.part) });
      if (cmd === "transcript_find") {
        if (!transcript.find) return JSON.stringify({ err: { code: "unknown-command", message: "this test's transcript has no find" } });
        const rows = await transcript.find(args.session, args.query, args.show);
        // A block of rows asked for (`from`, `limit`): its hits alone, as the engine answers.
        const inBlock = (r) => args.from === undefined || (r >= args.from && r < args.from + args.limit);
        return JSON.stringify({ ok: rows.filter(inBlock) });
      }
      return JSON.stringify({ ok: await transcript.locate(args.session, args.place) });
    } catch (e) {
      return JSON.stringify({ err: e && e.code ? e : { code: "internal", message: String(e) } });
    }
  });
  // A closed page's view goes (a bench opens several large ones).
  page.on("close", () => void view.call(key, "close", {}));
  await page.addInitScript(
    ({ files, launch, hits, dropped, answers }) => {
      let next = 1;
      const lines = Object.fromEntries(Object.entries(files).map(([name, text]) => [name, text.split("\n").filter((l) => l !== "")]));
      const record = (file, line) => {
        let o = {};
        try {
          o = JSON.parse(lines[file][line - 1]);
        } catch {}
        const p = o.params ?? {};
        return { index: line, file, line, session: p.sessionId ?? null, kind: p.event?.type ?? o.method ?? "response", time: null };
      };
      /** Messages on a channel, in order, as Tauri sends them. */
      const sent = new Map();
      const send = (channel, message) => {
        const index = sent.get(channel.id) ?? 0;
        sent.set(channel.id, index + 1);
        window[`_${channel.id}`]?.({ index, message });
      };
      const ask = async (cmd, args) => {
        const answer = JSON.parse(await window.__arborView(cmd, args));
        if (answer.err) throw answer.err;
        return answer.ok;
      };
      /** The channel the open log was loaded over (what Follow's `changed` messages come on). */
      let loadChannel = null;
      /**
       * A followed log grew (for a test): `report` replaces the open one in the view host, under a
       * new revision, and a `changed` message with a `follow` part goes on the load's channel.
       */
      window.__arborFollowGrow = async (report, grown = []) => {
        const summary = await ask("open", { report });
        const follow = { grown, appeared: [], bytes: 1, read_to: 1, reread: null, errors: [], summary };
        send(loadChannel, { type: "changed", revision: summary.revision, sessions: summary.sessions, follow });
        return summary.revision;
      };
      const askTranscript = async (cmd, args) => {
        const answer = JSON.parse(await window.__arborTranscript(cmd, args));
        if (answer.err) throw answer.err;
        return answer.ok;
      };
      /** Opening: the report goes to the view host; progress and the tree's first revision stream. */
      const open = async (args) => {
        loadChannel = args.onEvent;
        const summary = await ask("open", {});
        const progress = { files_done: 0, files_total: 1, bytes_read: 0, bytes_total: 100, records: 0, sessions: 0, findings: 0 };
        send(args.onEvent, { type: "progress", ...progress });
        send(args.onEvent, { type: "changed", revision: summary.revision, sessions: summary.sessions });
        send(args.onEvent, { type: "progress", ...progress, bytes_read: 100, sessions: summary.sessions });
        return summary;
      };
      window.__ipcCalls = [];
      const commands = {
        engine_info: () => ({ version: "0.1.0", commit: "", formats: [] }),
        launch_paths: () => launch,
        found_logs: () => [],
        open_sample: open,
        open_paths: open,
        raw_line: (a) => (lines[a.file] ? (lines[a.file][a.line - 1] ?? null) : JSON.stringify({ line: a.line })),
        records_around: (a) => {
          const n = lines[a.file]?.length ?? 0;
          if (a.line < 1 || a.line > n) return [];
          const out = [];
          for (let l = Math.max(1, a.line - a.before); l <= Math.min(n, a.line + a.after); l++) out.push(record(a.file, l));
          return out;
        },
        search: (a) => {
          send(a.onEvent, { type: "hits", hits });
          send(a.onEvent, { type: "end", end: "done", hits: hits.length });
          return "done";
        },
        search_more: () => {
          throw { code: "no-search", message: "no search to go on with" };
        },
        cancel_search: () => null,
        naive_dropped: (a) => {
          const d = dropped.find((d) => d.root === a.root && d.file === a.file && d.line === a.line);
          if (!d) throw { code: "no-such-wait", message: `no root turn of ${a.root} starts at ${a.file}:${a.line}` };
          return { total: d.page.total, offset: a.offset, records: d.page.records.slice(a.offset, a.offset + Math.min(a.limit, 500)) };
        },
        cancel_load: () => null,
        transcript_page: (a) => askTranscript("transcript_page", a),
        transcript_part: (a) => askTranscript("transcript_part", a),
        transcript_locate: (a) => askTranscript("transcript_locate", a),
        transcript_find: (a) => askTranscript("transcript_find", a),
        settings: () => ({ recent: [], theme: "system", notice: null }),
        remember_opened: (a) => [{ paths: a.paths, openedAt: 0 }],
        set_theme: () => null,
        view_state: () => null,
        save_view_state: () => null,
        "plugin:event|listen": () => next++,
        "plugin:event|unlisten": () => null,
      };
      window.__TAURI_EVENT_PLUGIN_INTERNALS__ = { unregisterListener() {} };
      window.__TAURI_INTERNALS__ = {
        metadata: { currentWindow: { label: "main" }, currentWebview: { windowLabel: "main", label: "main" } },
        transformCallback(cb) {
          const id = next++;
          window[`_${id}`] = cb;
          return id;
        },
        unregisterCallback(id) {
          delete window[`_${id}`];
        },
        convertFileSrc: (p) => p,
        async invoke(cmd, args) {
          if (!cmd.startsWith("plugin:")) {
            const { onEvent, ...kept } = args ?? {};
            window.__ipcCalls.push([cmd, kept]);
          }
          if (Object.hasOwn(answers, cmd)) {
            const given = answers[cmd];
            // `{ pages: rows }`: a page of those rows, as the app's pages of rows answer.
            if (given && typeof given === "object" && Array.isArray(given.pages)) {
              const offset = Math.min(args.offset, given.pages.length);
              return { total: given.pages.length, offset, revision: 0, rows: structuredClone(given.pages.slice(offset, offset + args.limit)) };
            }
            const a = structuredClone(given);
            if (a && typeof a === "object" && "reject" in a) throw a.reject;
            return a;
          }
          // The app's other commands ask the open log's view: the view host answers them.
          if (!Object.hasOwn(commands, cmd)) return cmd.startsWith("plugin:") ? null : ask(cmd, args ?? {});
          return commands[cmd](args ?? {});
        },
      };
    },
    { files: files ?? {}, launch: launch ?? [], hits: hits ?? [], dropped: dropped ?? [], answers: answers ?? {} },
  );
}
