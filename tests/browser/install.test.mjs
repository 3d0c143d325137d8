// The installable app (issue 38): the web app manifest with its icons and file handlers, served
// under a prefix with relative URLs; Chromium's installability check, with the service worker up;
// the manifest and icons kept by the service worker for offline use; a file the operating system
// opens with the installed app (`window.launchQueue`, faked here: a headless browser installs
// nothing) opens in the viewer; and a browser without `launchQueue` says nothing.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, ENGINE, launchProfile, openApp, tree, waitForApp, servedForTests } from "./harness.mjs";

let server;
let browser;
servedForTests((site) => ({ server, browser } = site), { prefix: "/some/prefix/" });

const PROMPT = "Why does the launched log open straight in the viewer?";
const ANSWER = "Because the installed app hands the file to the same path a picked file takes.";

/** A two-line Claude Code session: a prompt and its answer. */
function claudeSession() {
  const session = "5a1f0c1e-1a0c-4c5e-9d7e-0000000000aa";
  const line = (uuid, parent, minute, message) =>
    JSON.stringify({ type: message.role, uuid, parentUuid: parent, sessionId: session, cwd: "/work/app", timestamp: new Date(Date.UTC(2026, 2, 2, 9, minute)).toISOString(), message }) + "\n";
  return (
    line("u-1", null, 0, { role: "user", content: PROMPT }) +
    line("a-1", "u-1", 1, {
      role: "assistant",
      id: "msg-1",
      model: "claude-sonnet-4-5",
      content: [{ type: "text", text: ANSWER }],
      usage: { input_tokens: 12, output_tokens: 20 },
    })
  );
}

/** A PNG's width and height, read from its IHDR chunk; fails if `bytes` is no PNG. */
function pngSize(bytes, what) {
  assert.ok(bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), `${what} is a PNG`);
  assert.equal(bytes.subarray(12, 16).toString("latin1"), "IHDR", `${what} starts with its header`);
  return `${bytes.readUInt32BE(16)}x${bytes.readUInt32BE(20)}`;
}

test("the manifest is served, linked with a relative URL, and names its icons and file handlers", async () => {
  const app = await openApp(browser, server);
  const href = await app.page.evaluate(() => document.querySelector("link[rel=manifest]")?.getAttribute("href"));
  assert.ok(href && !href.startsWith("/") && !/^[a-z]+:/.test(href), `the manifest's link is relative: ${href}`);
  const iconHref = await app.page.evaluate(() => document.querySelector("link[rel=icon]")?.getAttribute("href"));
  assert.ok(iconHref && !iconHref.startsWith("data:"), `the page's icon is a file: ${iconHref}`);
  await app.context.close();

  const url = new URL(href, server.url);
  const response = await fetch(url);
  assert.equal(response.status, 200);
  assert.match(response.headers.get("content-type"), /^application\/manifest\+json/);
  const manifest = JSON.parse(await response.text());
  assert.equal(manifest.name, "sessionscope");
  assert.ok(manifest.short_name);
  assert.ok(manifest.description);
  assert.equal(manifest.start_url, "./");
  assert.equal(manifest.scope, "./");
  assert.equal(manifest.display, "standalone");
  assert.match(manifest.theme_color, /^#[0-9a-f]{6}$/i);
  assert.match(manifest.background_color, /^#[0-9a-f]{6}$/i);

  // Each icon is a PNG of the size it states, under the prefix.
  const sizes = [];
  for (const icon of manifest.icons) {
    assert.equal(icon.type, "image/png");
    assert.equal(icon.purpose, "any");
    const iconUrl = new URL(icon.src, url);
    assert.ok(iconUrl.pathname.startsWith("/some/prefix/"), `${icon.src} lies under the site's prefix`);
    const fetched = await fetch(iconUrl);
    assert.equal(fetched.status, 200, icon.src);
    assert.equal(pngSize(Buffer.from(await fetched.arrayBuffer()), icon.src), icon.sizes, `${icon.src} is ${icon.sizes}`);
    sizes.push(icon.sizes);
  }
  assert.deepEqual(sizes.sort(), ["192x192", "512x512"]);

  // Session logs open with the installed app.
  assert.equal(manifest.file_handlers.length, 1);
  const [handler] = manifest.file_handlers;
  assert.equal(new URL(handler.action, url).href, server.url);
  const extensions = Object.values(handler.accept).flat();
  assert.ok(extensions.includes(".jsonl"), "it opens .jsonl files");
  assert.ok(extensions.includes(".json"), "it opens .json files");
  assert.deepEqual(handler.accept["application/x-ndjson"], [".jsonl"]);
  assert.deepEqual(handler.accept["application/json"], [".json"]);
});

/** What the service worker keeps of the manifest and icons, by name. */
async function keptForInstall(page) {
  const kept = await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
    const cache = await caches.open("sessionscope-app");
    const names = ["manifest.webmanifest", "icon-192.png", "icon-512.png"];
    // The worker stores them as it installs: wait for the last of them.
    for (let tries = 0; tries < 200 && !(await cache.match(new URL(names[2], location.href).href)); tries++) {
      await new Promise((ok) => requestAnimationFrame(ok));
    }
    return Promise.all(names.map(async (name) => [name, Boolean(await cache.match(new URL(name, location.href).href))]));
  });
  return Object.fromEntries(kept);
}

test("the browser finds the app installable, and the service worker keeps the manifest and icons", async () => {
  if (ENGINE !== "chromium") {
    // Installability is Chromium's check (CDP); Firefox and Safari install no web app from a
    // manifest here. What every engine does: the service worker keeps what an install needs.
    const app = await openApp(browser, server);
    assert.deepEqual(await keptForInstall(app.page), { "manifest.webmanifest": true, "icon-192.png": true, "icon-512.png": true });
    assert.deepEqual(app.errors, []);
    await app.context.close();
    return;
  }
  // A profile of its own: Chromium finds nothing installable in an incognito window, which every
  // context of a launched browser is.
  const profile = mkdtempSync(join(tmpdir(), "sessionscope-install-"));
  const context = await launchProfile(profile);
  try {
    const page = context.pages()[0] || (await context.newPage());
    const errors = [];
    page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(server.url);
    await waitForApp(page);
    // The service worker is registered a few seconds after the app starts.
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
    });
    const cdp = await context.newCDPSession(page);
    const { installabilityErrors } = await cdp.send("Page.getInstallabilityErrors");
    console.log(`installability errors: ${JSON.stringify(installabilityErrors)}`);
    assert.deepEqual(installabilityErrors, []);
    const manifest = await cdp.send("Page.getAppManifest");
    assert.equal(manifest.url, `${server.url}manifest.webmanifest`);
    assert.deepEqual(manifest.errors, [], "the manifest parses without complaint");
    // Chromium's parsed manifest, as this CDP reports it (it leaves out the short name and the
    // file handlers, whatever they are: the first test reads those from the manifest itself).
    assert.equal(manifest.manifest?.startUrl, server.url);
    assert.equal(manifest.manifest?.display, "kStandalone");
    assert.deepEqual(manifest.manifest?.icons.map((i) => i.sizes), ["192x192", "512x512"]);
    await cdp.detach();
    assert.deepEqual(await keptForInstall(page), { "manifest.webmanifest": true, "icon-192.png": true, "icon-512.png": true });
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
});

test("a file the operating system opens with the installed app opens in the viewer", async () => {
  // The launch queue is faked with a handle of the origin-private file system, which WebKit's
  // MiniBrowser lacks (as it lacks the File Handling API): there the next test, a page without
  // a launch queue, is what an engine does.
  const probe = await openApp(browser, server);
  const handles = await probe.page.evaluate(() => typeof navigator.storage?.getDirectory === "function");
  await probe.context.close();
  if (!handles) return;
  // The launch queue as an installed app has it, before the page's scripts run: it keeps the
  // consumer the page sets, for the test to call as the browser would.
  const setUp = (context) =>
    context.addInitScript(() => {
      Object.defineProperty(window, "launchQueue", {
        configurable: true,
        value: {
          setConsumer(consumer) {
            window.__launchConsumers = (window.__launchConsumers || 0) + 1;
            window.__launchConsumer = consumer;
          },
        },
      });
    });
  const app = await openApp(browser, server, { setUp });
  assert.equal(await app.page.evaluate(() => window.__launchConsumers), 1, "the page set one consumer");
  // The app started on its own (no files): nothing happens.
  await app.page.evaluate(() => window.__launchConsumer({ files: [] }));
  await app.page.evaluate(async (text) => {
    const root = await navigator.storage.getDirectory();
    const handle = await root.getFileHandle("launched.jsonl", { create: true });
    const writable = await handle.createWritable();
    await writable.write(text);
    await writable.close();
    window.__launchConsumer({ files: [handle] });
  }, claudeSession());
  await tree(app.page).getByRole("treeitem").filter({ hasText: PROMPT }).first().waitFor({ timeout: 30_000 });
  await tree(app.page).getByRole("treeitem").filter({ hasText: ANSWER }).first().waitFor();
  assert.deepEqual(app.errors, []);
  assert.deepEqual(app.foreignRequests(), []);
  await app.context.close();
});

test("without launchQueue nothing breaks and nothing is said", async () => {
  // Whatever this Chromium has, the page here has no launch queue.
  const setUp = (context) =>
    context.addInitScript(() => {
      delete Window.prototype.launchQueue;
      delete window.launchQueue;
    });
  const app = await openApp(browser, server, { setUp });
  assert.equal(await app.page.evaluate(() => "launchQueue" in window), false);
  await app.page.getByRole("button", { name: "Open example" }).click();
  await tree(app.page).getByRole("treeitem").first().waitFor({ timeout: 30_000 });
  assert.deepEqual(app.errors, []);
  await app.context.close();
});
