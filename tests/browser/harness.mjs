// Shared pieces of the browser tests: a static server for the built site, headless Chromium
// (Debian's, driven by playwright-core), and recorders for requests and console errors.
import { execFileSync } from "node:child_process";
import { before, after } from "node:test";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, extname, join, normalize, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { serveFolder } from "../../scripts/static-server.mjs";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
// SESSIONSCOPE_DIST serves another build (to compare two builds in one sitting, say).
export const DIST = process.env.SESSIONSCOPE_DIST || join(ROOT, "dist");
/** Real session logs shared by the team; other people's data, read in place, never copied. */
const REAL_FIXTURES = process.env.SESSIONSCOPE_REAL_FIXTURES || resolve(ROOT, "../shared/fixtures/real");
/** Set by `.ci/run`: missing real fixtures then fail the tests that read them instead of skipping them. */
const REQUIRE_REAL_FIXTURES = "SESSIONSCOPE_REQUIRE_REAL_FIXTURES";

/**
 * Serves `dir` on 127.0.0.1 under `prefix` (e.g. "/some/prefix/"), on a free port. Every request
 * is recorded ([`scripts/static-server.mjs`]).
 */
export async function serveDist({ dir = DIST, prefix = "/", extra = {}, precompressed = false } = {}) {
  return serveFolder({ dir, prefix, extra, precompressed, port: 0 });
}

/** The flags that keep Chromium off the network (see wasm-toolchain.md). */
const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-default-apps",
  "--disable-extensions",
  "--enable-precise-memory-info",
  // Extra flags for experiments, e.g. CHROMIUM_FLAGS="--js-flags=--no-wasm-lazy-compilation".
  ...(process.env.CHROMIUM_FLAGS ? process.env.CHROMIUM_FLAGS.split(" ") : []),
];
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";

/** Headless Chromium with the flags that keep it off the network. */
export async function launchBrowser() {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

/**
 * The built site served and a browser launched for one test file: before its tests, closed after
 * them. `ready({ server, browser })` is given both once they are up:
 *   let server;
 *   let browser;
 *   servedForTests((site) => ({ server, browser } = site));
 * `serve` is `serveDist`'s options (a `prefix`, say).
 */
export function servedForTests(ready, serve) {
  let site;
  before(async () => {
    site = { server: await serveDist(serve), browser: await launchBrowser() };
    ready(site);
  });
  after(async () => {
    await site?.browser?.close();
    await site?.server?.close();
  });
}

/**
 * Headless Chromium with a profile of its own in `userDataDir`, as one context: unlike
 * `launchBrowser`'s contexts it is no incognito window (Chromium installs no app from one).
 */
export async function launchProfile(userDataDir) {
  return chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 860 },
    colorScheme: "light",
  });
}

/**
 * Opens the app in a fresh context and records every request it makes and every console
 * error. `check()` fails if a request went anywhere but `origin` or an error was logged.
 * `setUp(context)`, if given, runs before the page is opened (to route requests, say);
 * `timezoneId` is the browser's time zone (the machine's without it).
 */
export async function openApp(browser, server, { url = server.url, colorScheme = "light", viewport, setUp, timezoneId } = {}) {
  const context = await browser.newContext({ colorScheme, viewport: viewport || { width: 1280, height: 860 }, timezoneId });
  await setUp?.(context);
  const page = await context.newPage();
  const requests = [];
  const errors = [];
  page.on("request", (r) => requests.push(r.url()));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("worker", (worker) => {
    worker.on("console", (m) => {
      if (m.type() === "error") errors.push(`worker: ${m.text()}`);
    });
  });
  await page.goto(url);
  await waitForApp(page);
  return {
    page,
    context,
    requests,
    errors,
    /** Requests that went anywhere but the local server (data: and blob: URLs stay in the page). */
    foreignRequests: () =>
      requests.filter((u) => !u.startsWith(server.origin + "/") && !u.startsWith("data:") && !u.startsWith("blob:")),
  };
}

/** Waits until the wasm app has replaced the static skeleton. */
export async function waitForApp(page) {
  await page.getByRole("button", { name: "Open example" }).waitFor({ timeout: 30_000 });
}

/**
 * Drops files on the drop zone with a real `drop` event carrying a `DataTransfer`.
 * `files`: [{ name, bytes: Buffer|string }].
 */
export async function dropFiles(page, files) {
  const payload = files.map((f) => ({
    name: f.name,
    b64: Buffer.from(f.bytes).toString("base64"),
  }));
  const dataTransfer = await page.evaluateHandle((items) => {
    const dt = new DataTransfer();
    for (const item of items) {
      const binary = atob(item.b64);
      const bytes = new Uint8Array(binary.length);
      for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
      dt.items.add(new File([bytes], item.name, { type: "application/json" }));
    }
    return dt;
  }, payload);
  // The drop zone on the start page; anywhere in the page once something is loaded.
  const zone = page.getByRole("region", { name: "Open session logs" });
  const target = (await zone.count()) > 0 ? zone : page.locator("main");
  await target.dispatchEvent("dragover", { dataTransfer });
  await target.dispatchEvent("drop", { dataTransfer });
}

/** Drops a folder from disk through Chromium's own drag and drop, as a user would. */
export async function dropFolder(page, dir) {
  const cdp = await page.context().newCDPSession(page);
  const box = await page.locator("body").boundingBox();
  const point = { x: box.x + box.width / 2, y: box.y + 200 };
  const data = { items: [], files: [dir], dragOperationsMask: 1 };
  for (const type of ["dragEnter", "dragOver", "drop"]) {
    await cdp.send("Input.dispatchDragEvent", { type, ...point, data });
  }
}

/**
 * The real fixture at `relative` for the test `t`, or null after marking `t` skipped (the test
 * then returns) when the real fixtures are not there. With SESSIONSCOPE_REQUIRE_REAL_FIXTURES
 * set (as `.ci/run` does), they must be: the test fails instead. A fixture folder that is there
 * but lacks `relative` always fails.
 */
export function realFixture(t, relative) {
  const path = join(REAL_FIXTURES, relative);
  if (existsSync(path)) return path;
  if (existsSync(REAL_FIXTURES)) throw new Error(`the real fixtures at ${REAL_FIXTURES} lack ${relative}`);
  const required = ![undefined, "", "0"].includes(process.env[REQUIRE_REAL_FIXTURES]);
  if (required) {
    throw new Error(
      `the real fixture is not at ${path}, and ${REQUIRE_REAL_FIXTURES} is set: CI requires it. ` +
        "Put the team's fixtures at ../shared/fixtures/real beside the repository or set SESSIONSCOPE_REAL_FIXTURES to their folder",
    );
  }
  t.skip(`the real fixtures are not at ${REAL_FIXTURES} (set SESSIONSCOPE_REAL_FIXTURES to look elsewhere)`);
  return null;
}

/**
 * Every row of the conversation tree, scrolling the virtualized list from top to bottom:
 * [{ id, level, expanded, selected, text }] in order.
 */
export async function allTreeItems(page) {
  return page.evaluate(async () => {
    const scroller = document.querySelector(".tree-scroll");
    const seen = new Map();
    const frame = () => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)));
    scroller.scrollTop = 0;
    await frame();
    for (let guard = 0; guard < 10000; guard++) {
      for (const item of document.querySelectorAll("[role=treeitem]")) {
        if (!seen.has(item.id)) {
          seen.set(item.id, {
            id: item.id,
            level: Number(item.getAttribute("aria-level")),
            expanded: item.getAttribute("aria-expanded"),
            selected: item.getAttribute("aria-selected") === "true",
            text: item.innerText,
            top: item.getBoundingClientRect().top + scroller.scrollTop,
          });
        }
      }
      if (scroller.scrollTop + scroller.clientHeight >= scroller.scrollHeight - 1) break;
      scroller.scrollTop += scroller.clientHeight * 0.8;
      await frame();
    }
    return [...seen.values()].sort((a, b) => a.top - b.top);
  });
}

/** Whether the row `locator` lies inside the visible area of the tree's scroller. */
export async function inView(locator) {
  return locator.evaluate((row) => {
    const view = row.closest(".tree-scroll").getBoundingClientRect();
    const box = row.getBoundingClientRect();
    return box.height > 0 && box.top >= view.top && box.bottom <= view.bottom;
  });
}

/** The tree, found by its role and name. */
export function tree(page) {
  return page.getByRole("tree", { name: "Conversation" });
}

/** What `sessionscope <args...>` prints: the engine's view, to check the page against. */
export function engineOutput(...args) {
  return execFileSync("cargo", ["run", "--quiet", "-p", "sessionscope-engine", "--bin", "sessionscope", "--", ...args], {
    cwd: ROOT,
    maxBuffer: 1 << 26,
  }).toString();
}

/** `sessionscope <args...>`'s JSON output, parsed. */
function engineJson(...args) {
  return JSON.parse(engineOutput(...args));
}

/** The engine's summary of files on disk (`sessionscope summary --json`), to check the page against. */
export function engineSummary(...paths) {
  return engineJson("summary", "--json", ...paths);
}

/** The engine's index of a folder on disk (`sessionscope index --json`), to check the history against. */
export function engineIndex(path) {
  return engineJson("index", "--json", path);
}

/** The bytes of a SQLite database made by running `sql`, with `sqlite3` (sqlite-wasm in Node, in memory). */
export function databaseOf(sqlite3, sql) {
  const made = new sqlite3.oo1.DB(":memory:");
  made.exec(sql);
  const bytes = sqlite3.capi.sqlite3_js_db_export(made.pointer);
  made.close();
  return Buffer.from(bytes);
}

/**
 * Builds a session in the page and drops it: one chain of `messages` question/answer pairs of
 * about 2.5 KB each, in `<name>.jsonl` with session id `name`; with `plantEvery`, every such
 * answer also holds `zanzibar-<i>` (a word to search for). Answers the file's size in bytes.
 */
export async function dropGeneratedSession(page, { name, messages, plantEvery = 0 }) {
  return page.evaluate(
    ({ name, messages, plantEvery }) => {
      const pad = "lorem ipsum dolor sit amet ".repeat(36);
      const parts = [];
      let parent = null;
      for (let i = 0; i < messages; i++) {
        const time = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
        const user = `u-${i}`;
        parts.push(
          JSON.stringify({ type: "user", uuid: user, parentUuid: parent, sessionId: name, timestamp: time, cwd: "/work", message: { role: "user", content: `Question ${i}: ${pad}` } }) + "\n",
        );
        parent = `a-${i}`;
        const planted = plantEvery > 0 && i % plantEvery === 0 ? ` zanzibar-${i}` : "";
        parts.push(
          JSON.stringify({
            type: "assistant", uuid: parent, parentUuid: user, sessionId: name, timestamp: time,
            message: { id: `msg-${i}`, type: "message", role: "assistant", model: "claude-sonnet-4-5", content: [{ type: "text", text: `Answer ${i}:${planted} ${pad}` }], usage: { input_tokens: 10, output_tokens: 20 } },
          }) + "\n",
        );
      }
      const file = new File(parts, `${name}.jsonl`);
      const data = new DataTransfer();
      data.items.add(file);
      document.querySelector("main").dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true }));
      return file.size;
    },
    { name, messages, plantEvery },
  );
}

/** Writes files into `root` of the page's origin-private file system; `append` adds to them. */
export async function writeFolder(page, root, files, { append = false } = {}) {
  await page.evaluate(
    async ({ root, files, append }) => {
      let dir = await (await navigator.storage.getDirectory()).getDirectoryHandle(root, { create: true });
      for (const [path, text] of Object.entries(files)) {
        const parts = path.split("/");
        let at = dir;
        for (const part of parts.slice(0, -1)) at = await at.getDirectoryHandle(part, { create: true });
        const file = await at.getFileHandle(parts.at(-1), { create: true });
        const size = (await file.getFile()).size;
        const writable = await file.createWritable({ keepExistingData: append });
        if (append) await writable.seek(size);
        await writable.write(text);
        await writable.close();
      }
    },
    { root, files, append },
  );
}

/** Makes the browser's folder picker answer the origin-private folder `root`. */
export async function pickerAnswers(page, root) {
  await page.evaluate((root) => {
    window.showDirectoryPicker = async () => (await navigator.storage.getDirectory()).getDirectoryHandle(root);
  }, root);
}

/** Writes `files` into the origin-private folder `root` and picks it, as a user would. */
export async function chooseFolder(page, root, files) {
  await writeFolder(page, root, files);
  await pickerAnswers(page, root);
  await page.getByRole("button", { name: "Choose a folder…" }).click();
  return indexed(page);
}

/** Waits until the history is indexed: its region and its status line. */
export async function indexed(page) {
  const region = page.getByRole("region", { name: "History" });
  const status = region.getByRole("status").filter({ hasText: /^Indexed / });
  await status.waitFor({ timeout: 60_000 });
  return { region, status: await status.innerText() };
}
