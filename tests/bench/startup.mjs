// How fast the app appears, in headless Chromium with a cold cache: the bytes transferred
// (compressed, as the server sends them) until the start page is ready, the time from navigation
// to a ready start page, locally and with the network throttled, and Open example → first rows,
// clicked as soon as the button shows and clicked a second after (as a person would: the page
// does its idle work, such as fetching the example ahead, in that second).
//   node tests/bench/startup.mjs [--runs N] [--plain]
// The site is served as a static host that serves the build's precompressed .br/.gz copies does;
// with --plain, uncompressed. "Ready" is the moment the app (not the static skeleton) shows its
// "Open example" button.
import assert from "node:assert/strict";
import { serveDist, launchBrowser } from "../browser/harness.mjs";

const args = process.argv.slice(2);
const runs = args.includes("--runs") ? Number(args[args.indexOf("--runs") + 1]) : 5;
const precompressed = !args.includes("--plain");

const conditions = [
  { name: "local", throttle: null },
  { name: "20 Mbit/s, 40 ms", throttle: { latency: 40, downloadThroughput: 20e6 / 8, uploadThroughput: 20e6 / 8 } },
];

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const kb = (bytes) => (bytes / 1024).toFixed(0);

async function once(browser, server, throttle, withExample, clickAfterMs = 0) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
  if (throttle) await cdp.send("Network.emulateNetworkConditions", { offline: false, ...throttle });
  const urls = new Map();
  const finished = [];
  // When each file finished, on the wall clock: its request's wall time plus the time from the
  // request to the end of its loading (CDP's monotonic timestamps).
  cdp.on("Network.requestWillBeSent", (e) => urls.set(e.requestId, { url: e.request.url, wall: e.wallTime * 1000, at: e.timestamp }));
  cdp.on("Network.loadingFinished", (e) => {
    const request = urls.get(e.requestId);
    if (request) finished.push({ url: request.url, bytes: e.encodedDataLength, at: request.wall + (e.timestamp - request.at) * 1000 });
  });
  // The page notes, on its own clock (from navigation start), when the app's button is on
  // screen, and when the example's first rows are after a click: the first frame after they are
  // in the document (a task queued from the frame's animation callback runs after its paint).
  // The harness waits by reading these marks, not by querying the page's accessibility tree over
  // and over, which took the page's main thread from it while it started.
  await page.addInitScript(() => {
    const painted = (mark) => requestAnimationFrame(() => setTimeout(() => mark(performance.now())));
    new MutationObserver((_, observer) => {
      const ready = [...document.querySelectorAll("button")].some((b) => b.textContent.trim() === "Open example");
      if (ready) {
        window.__readyWall = Date.now();
        window.__readyInDocumentAt = performance.now();
        painted((at) => (window.__readyAt = at));
        observer.disconnect();
      }
    }).observe(document, { childList: true, subtree: true });
    addEventListener("click", () => {
      window.__clickAt = performance.now();
      new MutationObserver((_, observer) => {
        if (document.querySelector("[role=treeitem]")) {
          painted((at) => (window.__rowsAt = at));
          observer.disconnect();
        }
      }).observe(document, { childList: true, subtree: true });
    }, { capture: true, once: true });
  });
  await page.goto(server.url);
  await page.waitForFunction(() => window.__readyAt !== undefined, null, { polling: 50 });
  // What was fetched before the button showed, on the page's wall clock: the page goes on
  // fetching at idle (the example, the worker's code) while the harness notices the button.
  const { readyMs, readyInDocumentMs, readyAtWall } = await page.evaluate(() => ({
    readyMs: window.__readyAt,
    readyInDocumentMs: window.__readyInDocumentAt,
    readyAtWall: window.__readyWall,
  }));
  const bytesBeforeReady = finished.filter((f) => f.at <= readyAtWall).reduce((sum, f) => sum + f.bytes, 0);
  const files = finished.filter((f) => f.at <= readyAtWall).map((f) => `${f.url.split("/").pop() || "index.html"} ${kb(f.bytes)} KB`);
  let exampleMs = null;
  if (withExample) {
    if (clickAfterMs) await page.waitForTimeout(clickAfterMs);
    await page.getByRole("button", { name: "Open example" }).click();
    await page.waitForFunction(() => window.__rowsAt !== undefined, null, { polling: 50 });
    exampleMs = Math.round(await page.evaluate(() => window.__rowsAt - window.__clickAt));
    assert.ok((await page.getByRole("treeitem").count()) > 0, "the example's rows are in the tree");
  }
  await context.close();
  return { readyMs, readyInDocumentMs, bytesBeforeReady, files, exampleMs };
}

const server = await serveDist({ precompressed });
const browser = await launchBrowser();
try {
  console.log(`startup: ${runs} runs per condition, cold cache, ${precompressed ? "precompressed (.br/.gz)" : "uncompressed"} files`);
  for (const { name, throttle } of conditions) {
    const results = [];
    for (let i = 0; i < runs; i++) results.push(await once(browser, server, throttle, !throttle));
    const ready = results.map((r) => r.readyMs);
    const inDocument = results.map((r) => r.readyInDocumentMs);
    console.log(
      `${name}: ready (painted) ${median(ready).toFixed(0)} ms median (${Math.min(...ready).toFixed(0)}–${Math.max(...ready).toFixed(0)}), ` +
        `in the document ${median(inDocument).toFixed(0)} ms, ` +
        `${kb(median(results.map((r) => r.bytesBeforeReady)))} KB transferred before ready`,
    );
    if (!throttle) {
      const example = results.map((r) => r.exampleMs);
      console.log(`${name}: Open example at once → first rows ${median(example)} ms median (${Math.min(...example)}–${Math.max(...example)})`);
      const later = [];
      for (let i = 0; i < runs; i++) later.push((await once(browser, server, throttle, true, 1000)).exampleMs);
      console.log(`${name}: Open example 1 s after ready → first rows ${median(later)} ms median (${Math.min(...later)}–${Math.max(...later)})`);
      console.log(`  fetched before ready: ${results[0].files.join(", ")}`);
    }
  }
} finally {
  await browser.close();
  await server.close();
}
