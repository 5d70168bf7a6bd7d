// A tiny W3C WebDriver client (plain fetch, no dependencies) for WebKitWebDriver, which launches
// the real app binary and attaches to its webview. Shared by the end-to-end tests
// (tests/e2e/webdriver.mjs) and the app's load benchmark (bench/app-load.mjs).
import { execFileSync, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";

export const ELEMENT = "element-6066-11e4-a52e-4f735466cecf";

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** One WebDriver HTTP call; throws with the driver's message on an error answer. */
export async function wd(base, method, path, body, timeoutMs = 60_000) {
  const res = await fetch(base + path, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const json = await res.json().catch(() => ({}));
  if (!res.ok) {
    const v = json.value ?? {};
    throw new Error(`${method} ${path}: ${res.status} ${v.error ?? ""} ${v.message ?? ""}`);
  }
  return json.value;
}

/** Polls `probe` until it returns a truthy value; fails with `what` after `ms`. */
export async function waitFor(what, probe, ms = 30_000) {
  const end = Date.now() + ms;
  let last;
  for (;;) {
    try {
      const v = await probe();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last ? `: ${last.message}` : ""}`);
    await sleep(250);
  }
}

export class Session {
  constructor(base, id, out) {
    this.base = base;
    this.id = id;
    this.out = out;
  }
  /** Starts the app binary `app` with `args` through the driver at `base`; screenshots go to `out`. */
  static async start(base, app, args, out) {
    const value = await wd(base, "POST", "/session", {
      capabilities: {
        alwaysMatch: { "webkitgtk:browserOptions": { binary: app, args } },
      },
    });
    return new Session(base, value.sessionId, out);
  }
  /** Runs `script` (a function body; `arguments` are `args`) in the page and returns its value. */
  run(script, ...args) {
    return this.call("POST", "/execute/sync", { script, args });
  }
  /** Runs `script` in the page until it calls its last argument (`arguments[arguments.length - 1]`). */
  runAsync(script, ...args) {
    return this.call("POST", "/execute/async", { script, args });
  }
  call(method, path, body) {
    return wd(this.base, method, `/session/${this.id}${path}`, body);
  }
  /** The page's visible text (what a user reads). */
  text() {
    return this.call("POST", "/execute/sync", {
      script: "return document.body ? document.body.innerText : ''",
      args: [],
    });
  }
  async waitForText(needles, ms) {
    let seen = "";
    try {
      await waitFor(
        `text ${JSON.stringify(needles)}`,
        async () => {
          seen = await this.text();
          return needles.every((n) => seen.includes(n));
        },
        ms,
      );
    } catch (e) {
      throw new Error(`${e.message}\n--- page text ---\n${seen.slice(0, 2000)}`);
    }
    return seen;
  }
  /** The values of `attribute` on every element matching `css`, in document order. */
  attributes(css, attribute) {
    return this.call("POST", "/execute/sync", {
      script: "return [...document.querySelectorAll(arguments[0])].map((e) => e.getAttribute(arguments[1]));",
      args: [css, attribute],
    });
  }
  async type(css, text) {
    const found = await waitFor(`an element ${css}`, () => this.call("POST", "/element", { using: "css selector", value: css }), 10_000);
    await this.call("POST", `/element/${found[ELEMENT]}/value`, { text });
  }
  /** With no log given and sessions in its places, the app's home is the Library: close it. */
  async closeLibrary() {
    await this.click('[data-testid="library-close"]');
    await waitFor("the Library closed", async () => {
      const open = await this.call("POST", "/execute/sync", { script: "return !!document.querySelector('[data-testid=library]');", args: [] });
      return open ? null : true;
    });
  }
  async click(css) {
    const found = await waitFor(`an element ${css}`, () => this.call("POST", "/element", { using: "css selector", value: css }), 10_000);
    await this.call("POST", `/element/${found[ELEMENT]}/click`, {});
  }
  /**
   * Saves the whole virtual screen, as a user sees it; with ARBOR_E2E_WEBVIEW_SHOTS=1 also the
   * webview's own capture. WebKitWebDriver's capture waits for a paint, and a page that does not
   * change paints nothing when WebKit draws without compositing (as the app asks it to on a
   * machine without a GPU): the capture then never came back and held the session.
   */
  async screenshot(name) {
    const screen = join(this.out, `${name}.png`);
    // Let WebKit paint the last DOM change to the X window before the screen is captured.
    await this.call("POST", "/execute/async", {
      script: "const done = arguments[0]; requestAnimationFrame(() => requestAnimationFrame(() => done(true)));",
      args: [],
    });
    await sleep(500);
    execFileSync("import", ["-window", "root", screen], { timeout: 20_000 });
    if (process.env.ARBOR_E2E_WEBVIEW_SHOTS === "1") {
      const png = await this.call("GET", "/screenshot");
      writeFileSync(join(this.out, `${name}-webview.png`), Buffer.from(png, "base64"));
    }
    console.log(`  screenshot: ${screen}`);
  }
  async stop() {
    await wd(this.base, "DELETE", `/session/${this.id}`, undefined, 10_000).catch((e) =>
      console.error(`  (closing the session: ${e.message})`),
    );
  }
}

/**
 * Starts WebKitWebDriver on a free port and waits until it listens. Resolves to `{ base, driver }`;
 * `driver` is the child process (kill it with SIGTERM when done).
 */
export async function startDriver() {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const driver = spawn("WebKitWebDriver", [`--port=${port}`], { stdio: ["ignore", "inherit", "inherit"] });
  try {
    await waitFor("WebKitWebDriver to listen", () => wd(base, "GET", "/status", undefined, 2_000), 20_000);
  } catch (e) {
    driver.kill("SIGTERM");
    throw e;
  }
  return { base, driver };
}
