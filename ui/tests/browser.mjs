// The UI in headless Chromium with Tauri's IPC mocked: a Vite dev server over ui/ and a page whose
// window.__TAURI_INTERNALS__ answers the app's commands from a report given by the test. Shared by
// the browser tests (tests/*.browser.mjs) and scripts/timeline-bench.mjs.
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { createServer } from "vite";

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

/** Starts the dev server on a free port; `load(path)` imports a UI module in Node (fixtures). */
export async function startUi() {
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

export async function launch() {
  return chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", args: CHROMIUM_ARGS, headless: true });
}

/**
 * Installs the IPC mock in a page before the app's scripts run. `report` is a report object or
 * the source of a function that builds one in the page (for reports too large to pass in).
 */
export async function mockIpc(page, { report, build }) {
  await page.addInitScript(
    ({ report, build }) => {
      let next = 1;
      const answer = () => report ?? (report = new Function(`return (${build})()`)());
      const commands = {
        engine_info: () => ({ version: "test", formats: [] }),
        launch_paths: () => [],
        found_logs: () => [],
        open_sample: answer,
        open_paths: answer,
        raw_line: (a) => JSON.stringify({ line: a.line }),
        search: () => [],
        cancel_load: () => null,
        "plugin:store|load": () => 1,
        "plugin:store|get": () => [null, false],
        "plugin:store|set": () => null,
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
          const f = commands[cmd];
          return f ? f(args ?? {}) : null;
        },
      };
    },
    { report: report ?? null, build: build ?? null },
  );
}
