// Shared pieces of the browser tests: a static server for the built site, the browser of the
// engine this run drives (./engines.mjs: Chromium, Firefox or WebKit), tests named with their
// engine, recorders for requests and console errors, and drops of files and folders that work in
// every engine.
import { execFileSync } from "node:child_process";
import { test as nodeTest, before, after, afterEach } from "node:test";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, extname, join, normalize, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { serveFolder } from "../../scripts/static-server.mjs";
import { ENGINE, EMULATES_PER_CONTEXT, launchEngine, launchPersistent } from "./engines.mjs";

export { ENGINE };

/**
 * A test of this run's engine: node:test's `test`, its name followed by the engine in brackets
 * ("… [firefox]"), so that every line of the output says where it ran. Use it as node:test's.
 * A test that fails prints what its pages had said and showed by then ([`pageStates`]).
 */
export function test(name, ...rest) {
  const fn = rest.pop();
  if (typeof fn !== "function") return nodeTest(`${name} [${ENGINE}]`, ...rest, fn);
  return nodeTest(`${name} [${ENGINE}]`, ...rest, async (...args) => {
    const from = pagesOpened.length;
    try {
      return await fn(...args);
    } catch (error) {
      for (const state of await pageStates(from)) console.log(`# ${state.replaceAll("\n", "\n# ")}`);
      throw error;
    }
  });
}

/**
 * What the pages opened since the `from`-th said last and show, for a failed test's output: the
 * last things each said (`src/platform/probe.rs`), its last requests, and the start of its text.
 */
async function pageStates(from) {
  const states = [];
  for (const opened of pagesOpened.slice(from)) {
    const state = await Promise.race([
      opened.page.evaluate(() => ({ said: (window.__said || []).slice(-20).map((d) => d.name), text: document.body?.innerText.slice(0, 400) ?? "" })),
      new Promise((done) => setTimeout(() => done(null), 5000)),
    ]).catch(() => null);
    if (!state) continue;
    const logged = opened.console.slice(-12).join("\n") || "nothing";
    states.push(`a page of the failed test: said ${state.said.join(", ") || "nothing"}; last requests ${opened.requests.slice(-8).join(" ")}; its console's last messages:\n${logged}\nshows:\n${state.text}`);
  }
  return states;
}

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
export async function serveDist({ dir = DIST, prefix = "/", extra = {}, precompressed = false, hooks = launched?.serverHooks } = {}) {
  const server = await serveFolder({ dir, prefix, extra, precompressed, port: 0, hooks });
  servers.set(server.origin, server);
  servedOrigins.add(server.origin);
  const close = server.close;
  server.close = () => {
    servers.delete(server.origin);
    return close();
  };
  return server;
}

/** The servers of this run by their origin, for the helpers that serve a page files of disk. */
const servers = new Map();

/**
 * The browser of this run's engine, headless, kept off the network ([`./engines.mjs`]). WebKit's
 * sees the pages of the servers that run its `serverHooks`: the servers made after it get them.
 */
export async function launchBrowser() {
  launched = watchBrowser(await launchEngine(ENGINE));
  return launched;
}

/**
 * Every page the tests open, with the requests it made. None may go anywhere but a local test
 * server (the README says so): after each test, the pages opened meanwhile are checked, and the
 * test fails if one did ([`servedForTests`]).
 */
const pagesOpened = [];
/** The origins of every server of this run, closed or not. */
const servedOrigins = new Set();

/** `browser`, each of whose contexts' pages is recorded in [`pagesOpened`]. */
function watchBrowser(browser) {
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (...args) => watchContext(await newContext(...args));
  return browser;
}

/** `context`, each of whose pages (opened already, or later) is recorded in [`pagesOpened`]. */
function watchContext(context) {
  const newPage = context.newPage.bind(context);
  context.newPage = async (...args) => recordRequests(await newPage(...args));
  for (const page of context.pages?.() ?? []) recordRequests(page);
  return context;
}

function recordRequests(page) {
  const opened = { page, requests: [], console: [], checked: false };
  const listener = (request) => opened.requests.push(request.url());
  // WebKit's driver sees no request of a page opened from a file: this check takes what it sees.
  listener.ifSeen = true;
  page.on("request", listener);
  // The console of the page and of its workers, for a failed test's report: a worker's fault is
  // told there.
  const logged = (from) => (message) => opened.console.push(`${from}${message.type()}: ${message.text().slice(0, 300)}`);
  const onConsole = logged("");
  const onWorker = (worker) => worker.on("console", logged("worker "));
  const onError = (error) => opened.console.push(`uncaught: ${String(error).slice(0, 300)}`);
  onConsole.ifSeen = onWorker.ifSeen = onError.ifSeen = true;
  page.on("console", onConsole);
  page.on("worker", onWorker);
  page.on("pageerror", onError);
  pagesOpened.push(opened);
  return page;
}

/**
 * The `urls` that went anywhere but a local test server: data: and blob: URLs stay in the page,
 * and file: URLs on this machine (an exported page the test opened from disk).
 */
export function outsideRequests(urls) {
  const local = (url) => ["data:", "blob:", "file:"].some((scheme) => url.startsWith(scheme));
  return urls.filter((url) => !local(url) && ![...servedOrigins].some((origin) => url.startsWith(origin + "/")));
}

/** Checks the pages opened since the last check: answers how many, and throws if one asked the world for something. */
function checkPagesOpened() {
  const unchecked = pagesOpened.filter((opened) => !opened.checked);
  for (const opened of unchecked) opened.checked = true;
  const outside = unchecked.flatMap((opened) => outsideRequests(opened.requests));
  if (outside.length > 0) throw new Error(`a page asked for something outside the local test server: ${[...new Set(outside)].join(", ")}`);
  return unchecked.length;
}

/** The browser launched last, whose hooks [`serveDist`] gives the servers it makes. */
let launched;

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
  let checked = 0;
  afterEach(() => {
    checked += checkPagesOpened();
  });
  before(async () => {
    // WebKit's driver sees the page's console and downloads through the server
    // (`browser.serverHooks`, ./webkit.mjs): the browser comes first.
    const browser = await launchBrowser();
    site = { browser, server: await serveDist({ ...serve, hooks: browser.serverHooks }) };
    ready(site);
  });
  after(async () => {
    await site?.browser?.close();
    await site?.server?.close();
    console.log(`# ${checked} pages checked: none asked for anything outside the local test server`);
  });
}

/**
 * The browser with a profile of its own in `userDataDir`, as one context: unlike
 * `launchBrowser`'s contexts it is no incognito window (Chromium installs no app from one).
 */
export async function launchProfile(userDataDir) {
  return watchContext(await launchPersistent(userDataDir, ENGINE));
}

/**
 * Opens the app in a fresh context and records every request it makes and every console
 * error. `check()` fails if a request went anywhere but `origin` or an error was logged.
 * `setUp(context)`, if given, runs before the page is opened (to route requests, say);
 * `timezoneId` is the browser's time zone (the machine's without it).
 */
export async function openApp(browser, server, { url = server.url, colorScheme = "light", viewport, setUp, timezoneId } = {}) {
  // Where the driver cannot give a context a dark scheme or a zone of its own, a browser whose
  // system says them does (one per such wish, for the test file).
  if (!EMULATES_PER_CONTEXT && (colorScheme !== "light" || timezoneId)) browser = await systemBrowser({ colorScheme, timezoneId });
  const context = await browser.newContext({ colorScheme, viewport: viewport || { width: 1280, height: 860 }, timezoneId });
  await context.addInitScript(recordSaid);
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
    foreignRequests: () => outsideRequests(requests),
  };
}

/**
 * Records what the page says of itself (`sessionscope` events, `src/platform/probe.rs`) in
 * `window.__said`, from the page's first script on: an init script of every page [`openApp`]
 * opens.
 */
export function recordSaid() {
  window.__said = [];
  addEventListener("sessionscope", (event) => window.__said.push({ ...event.detail }));
}

/** The index of the last thing the page has said so far (-1: nothing yet), to wait for what it says after. */
export function saidSoFar(page) {
  return page.evaluate(() => (window.__said || []).length - 1);
}

/**
 * Waits until the page says `name` (`src/platform/probe.rs`), after its `after`-th event, with a
 * detail for which `where(detail)` holds, and answers that detail with its `index`. The tests wait
 * for these, never for a fixed time: "the follow looked while the tab was hidden", then "nothing
 * is shown".
 */
export async function said(page, name, { after = -1, where = () => true, timeout = 30_000 } = {}) {
  const until = Date.now() + timeout;
  let seen = after;
  for (;;) {
    const left = until - Date.now();
    if (left <= 0) throw new Error(`the page did not say "${name}" after its event ${after} within ${timeout} ms`);
    const found = await (
      await page.waitForFunction(
        ({ name, seen }) => {
          const all = window.__said || [];
          const found = [];
          for (let i = seen + 1; i < all.length; i++) if (all[i].name === name) found.push({ ...all[i], index: i });
          return found.length > 0 && found;
        },
        { name, seen },
        { timeout: left },
      )
    ).jsonValue();
    for (const detail of found) {
      if (where(detail)) return detail;
      seen = detail.index;
    }
  }
}

/**
 * Waits for the page's next painted frame: what a key press or a click set in motion on the page
 * (its handlers and the updates they made) is on screen by then.
 */
export function nextFrame(page) {
  return page.evaluate(() => new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0))));
}

/**
 * The browser's Back, as the page's own history entries make it (they change the address's
 * fragment only): the drivers' `goBack` waits for a load that such an entry never has in Firefox.
 * The caller waits for what Back shows.
 */
export async function back(page) {
  await page.evaluate(() => history.back());
}

/** The browser's Forward ([`back`]). */
export async function forward(page) {
  await page.evaluate(() => history.forward());
}

/**
 * Lets the page of `app` copy to the clipboard, and a test read what it copied
 * ([`copiedText`]). Chromium's clipboard is granted and read back for real. Firefox's and
 * WebKit's drivers can grant no clipboard permission, and reading it needs a person's paste: the
 * page's `navigator.clipboard.writeText` is recorded there instead (the page's call is what is
 * tested; the browser's clipboard is not).
 */
export async function allowClipboard(app, origin) {
  if (ENGINE === "chromium") return app.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin });
  await app.page.evaluate(() => {
    navigator.clipboard.writeText = async (text) => {
      window.__copied = String(text);
    };
  });
}

/** What the page last copied ([`allowClipboard`]). */
export async function copiedText(page) {
  if (ENGINE === "chromium") return page.evaluate(() => navigator.clipboard.readText());
  return page.evaluate(() => window.__copied ?? "");
}

/**
 * Clicks (`click()`, a promise) something that makes the page download a file it made (an
 * `<a download>` of a Blob, as every download of the page is), and answers the file: `{ name,
 * bytes }`. Chromium's driver sees the download itself; Firefox's (WebDriver BiDi in ESR 153)
 * and WebKit's (classic WebDriver) cannot, so there the anchor's click is caught in the page and
 * the Blob read.
 */
export async function downloaded(page, click, { timeout = 60_000 } = {}) {
  if (ENGINE === "chromium") {
    const [download] = await Promise.all([page.waitForEvent("download", { timeout }), click()]);
    return { name: download.suggestedFilename(), bytes: readFileSync(await download.path()) };
  }
  await page.evaluate(() => {
    window.__downloads = [];
    // The page revokes a Blob's URL as soon as the click returns, before a fetch of it would
    // run: the Blobs are kept by their URLs as they are made.
    const blobs = new Map();
    const createObjectURL = URL.createObjectURL;
    URL.createObjectURL = (blob) => {
      const url = createObjectURL.call(URL, blob);
      blobs.set(url, blob);
      return url;
    };
    const click = HTMLAnchorElement.prototype.click;
    HTMLAnchorElement.prototype.click = function () {
      const blob = blobs.get(this.href);
      if (!this.hasAttribute("download") || !blob) return click.call(this);
      const name = this.getAttribute("download");
      window.__downloads.push(
        blob.arrayBuffer().then((b) => {
          const bytes = new Uint8Array(b);
          let text = "";
          for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
          return { name, b64: btoa(text) };
        }),
      );
    };
  });
  await click();
  await page.waitForFunction(() => window.__downloads.length > 0, null, { timeout });
  const { name, b64 } = await page.evaluate(() => window.__downloads[0]);
  return { name, bytes: Buffer.from(b64, "base64") };
}

/** Browsers launched for a colour scheme or a time zone ([`openApp`]), closed after the file. */
const systemBrowsers = new Map();
async function systemBrowser(system) {
  const key = JSON.stringify(system);
  if (!systemBrowsers.has(key)) systemBrowsers.set(key, launchEngine(ENGINE, system).then(watchBrowser));
  return systemBrowsers.get(key);
}
after(async () => {
  for (const browser of systemBrowsers.values()) await (await browser).close();
  systemBrowsers.clear();
});

/** Waits until the wasm app has replaced the static skeleton. */
export async function waitForApp(page) {
  await page.getByRole("button", { name: "Open example" }).waitFor({ timeout: 30_000 });
}

/**
 * Drops files on the drop zone (anywhere in the page once something is loaded) with real
 * `dragenter`, `dragover` and `drop` events carrying a `DataTransfer` of `File`s made in the page:
 * the same in every engine. `files`: [{ name, bytes: Buffer|string }].
 */
export async function dropFiles(page, files) {
  const payload = files.map((f) => ({ name: f.name, b64: Buffer.from(f.bytes).toString("base64") }));
  await page.evaluate((items) => {
    const data = new DataTransfer();
    for (const item of items) {
      const binary = atob(item.b64);
      const bytes = new Uint8Array(binary.length);
      for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
      data.items.add(new File([bytes], item.name, { type: "application/json" }));
    }
    const target = document.querySelector("[aria-label='Open session logs']") || document.querySelector("main");
    for (const type of ["dragenter", "dragover", "drop"]) {
      target.dispatchEvent(new DragEvent(type, { dataTransfer: data, bubbles: true, cancelable: true }));
    }
  }, payload);
}

/**
 * Drops a folder (or a file) from disk on the page. In Chromium, through its own drag and drop
 * (CDP), as a user would: the page gets the folder's directory entry and its handle. Elsewhere no
 * driver can drag from the desktop: a file is picked with "Choose files…" instead, which gives
 * the page the same `File` of disk (its reads see the file change or go); a folder's drop carries
 * directory entries made in the page ([`dropEntries`]), with the API Firefox and Safari give a
 * dropped folder (`webkitGetAsEntry`, `createReader().readEntries`, `file()`), each file's bytes
 * fetched from the test's server when the page asks for it.
 */
export async function dropFolder(page, dir) {
  if (ENGINE !== "chromium" && statSync(dir).isFile()) return page.getByLabel("Choose session log files").setInputFiles([dir]);
  if (ENGINE !== "chromium") return dropEntries(page, dir);
  const cdp = await page.context().newCDPSession(page);
  const box = await page.locator("body").boundingBox();
  const point = { x: box.x + box.width / 2, y: box.y + 200 };
  const data = { items: [], files: [dir], dragOperationsMask: 1 };
  for (const type of ["dragEnter", "dragOver", "drop"]) {
    await cdp.send("Input.dispatchDragEvent", { type, ...point, data });
  }
}

/** The files and folders under `dir` as a tree: { name, folder, size, modified, children }. */
function treeOf(dir) {
  const stat = statSync(dir);
  const node = { name: basename(dir), folder: stat.isDirectory(), size: stat.size, modified: stat.mtimeMs };
  if (node.folder) node.children = readdirSync(dir).sort().map((name) => treeOf(join(dir, name)));
  return node;
}

/**
 * Drops the folder `dir` as directory entries made in the page ([`dropFolder`] outside
 * Chromium). The page's server must be this run's (`servedForTests`): it serves the folder's files
 * under a path of their own (`server.mount`). A folder answers `readEntries` 100 entries at a
 * time, as Chromium's do; a file's `file()` fetches its bytes then (a file deleted meanwhile
 * fails with `NotFoundError`).
 */
export async function dropEntries(page, dir) {
  const server = servers.get(new URL(page.url()).origin);
  if (!server) throw new Error(`dropEntries: the page at ${page.url()} is not served by a server of this run`);
  const base = server.mount(dir);
  await page.evaluate(
    ({ tree, base }) => {
      const entry = (node, path) => {
        const common = { name: node.name, fullPath: `/${path}`, isFile: !node.folder, isDirectory: node.folder };
        if (!node.folder) {
          const url = base + path.split("/").slice(1).map(encodeURIComponent).join("/");
          return {
            ...common,
            file(ok, failed) {
              fetch(url)
                .then((r) => (r.ok ? r.blob() : Promise.reject(new DOMException(`${path} is gone`, "NotFoundError"))))
                .then((blob) => ok(new File([blob], node.name, { lastModified: node.modified })), (e) => failed?.(e));
            },
          };
        }
        return {
          ...common,
          createReader() {
            let at = 0;
            return {
              readEntries(ok) {
                const batch = node.children.slice(at, at + 100).map((child) => entry(child, `${path}/${child.name}`));
                at += batch.length;
                setTimeout(() => ok(batch));
              },
            };
          },
        };
      };
      const top = entry(tree, tree.name);
      const item = { kind: "file", type: "", webkitGetAsEntry: () => top, getAsFile: () => null };
      const data = { items: [item], files: [], types: ["Files"], dropEffect: "copy", effectAllowed: "all" };
      const target = document.querySelector("[aria-label='Open session logs']") || document.querySelector("main");
      for (const type of ["dragenter", "dragover", "drop"]) {
        const event = new DragEvent(type, { bubbles: true, cancelable: true });
        Object.defineProperty(event, "dataTransfer", { value: data });
        target.dispatchEvent(event);
      }
    },
    { tree: treeOf(dir), base },
  );
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

/** The engine's ranked search of a folder on disk (`sessionscope search --json`), to check the page's order against. */
export function engineSearch(query, path, ...options) {
  return engineJson("search", "--json", "--no-cache", ...options, "--", query, path);
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

/**
 * Whether this run's engine gives the page folder handles it may keep and read again (Chromium's
 * File System Access API: `showDirectoryPicker`). Firefox and Safari have none: a folder is read
 * once, as its files ([`expectFolderFallback`]).
 */
export const KEEPS_FOLDERS = ENGINE === "chromium";

/**
 * What the page offers where the browser gives no folder handles: the start page says that a
 * folder is not kept between visits nor followed, and "Choose a folder…" is a folder input, not
 * the picker's button. A test of remembered or followed folders checks this in such an engine
 * instead, then returns.
 */
export async function expectFolderFallback(page) {
  const zone = page.getByRole("region", { name: "Open session logs" });
  await zone.getByText(/^This browser cannot keep a folder between visits or follow running sessions/).waitFor();
  if ((await zone.getByRole("button", { name: "Choose a folder…" }).count()) !== 0) {
    throw new Error("a browser without folder handles offers the folder picker's button");
  }
  const input = page.getByLabel("Choose a project folder");
  if ((await input.getAttribute("webkitdirectory")) === null || (await input.getAttribute("type")) !== "file") {
    throw new Error("Choose a folder… is no folder input");
  }
  if ((await page.getByRole("region", { name: "Remembered folders" }).count()) !== 0) {
    throw new Error("a browser without folder handles lists remembered folders");
  }
}

/**
 * The start of a test of remembered or followed folders: in an engine without folder handles
 * (Firefox, Safari) it checks, on a fresh page, what the page offers instead
 * ([`expectFolderFallback`]) and answers true, and the test returns; in Chromium it answers false.
 */
export async function withoutFolderHandles(browser, server) {
  if (KEEPS_FOLDERS) return false;
  const app = await openApp(browser, server);
  await expectFolderFallback(app.page);
  if (app.errors.length) throw new Error(`the page logged errors: ${app.errors.join("\n")}`);
  await app.context.close();
  return true;
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

/**
 * A folder of logs (`files`: path → text) opened as a history the way this engine's users open
 * one: in Chromium, picked with "Choose a folder…" (the origin-private folder `root` answers the
 * picker) and reopened from the remembered folders after a reload; in Firefox and WebKit, which
 * keep no folder, written to a folder of disk and dropped, and dropped again after a reload.
 * Answers `{ region, append(files), reopen() }`: `append` adds text to files (an agent writing
 * on), `reopen` reloads the page and opens the folder again; both answer the history's region.
 */
export async function openHistoryFolder(page, root, files) {
  if (KEEPS_FOLDERS) {
    await page.evaluate(async (root) => (await navigator.storage.getDirectory()).removeEntry(root, { recursive: true }).catch(() => {}), root);
    const { region } = await chooseFolder(page, root, files);
    return {
      region,
      append: (more) => writeFolder(page, root, more, { append: true }),
      async reopen() {
        await page.reload();
        await waitForApp(page);
        await page.getByRole("region", { name: "Remembered folders" }).getByRole("button", { name: `Reopen ${root}` }).click();
        return (await indexed(page)).region;
      },
    };
  }
  const disk = join(mkdtempSync(join(tmpdir(), "sessionscope-folder-")), root);
  foldersOnDisk.push(dirname(disk));
  const write = (more, append) => {
    for (const [path, text] of Object.entries(more)) {
      mkdirSync(dirname(join(disk, path)), { recursive: true });
      (append ? appendFileSync : writeFileSync)(join(disk, path), text);
    }
  };
  write(files, false);
  await dropFolder(page, disk);
  return {
    region: (await indexed(page)).region,
    append: async (more) => write(more, true),
    async reopen() {
      await page.reload();
      await waitForApp(page);
      await dropFolder(page, disk);
      return (await indexed(page)).region;
    },
  };
}

/** The folders of disk [`openHistoryFolder`] wrote, removed after the test file. */
const foldersOnDisk = [];
after(() => {
  for (const dir of foldersOnDisk.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Waits until the history is indexed: its region and its status line. */
export async function indexed(page) {
  const region = page.getByRole("region", { name: "History" });
  const status = region.getByRole("status").filter({ hasText: /^Indexed / });
  await status.waitFor({ timeout: 60_000 });
  return { region, status: await status.innerText() };
}
