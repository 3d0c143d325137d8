// How fast the app appears, in headless Chromium with a cold cache: the bytes transferred
// (compressed, as the server sends them) until the start page is ready, the time from navigation
// to a ready start page, locally and with the network throttled, and Open example → first rows.
//   node tests/bench/startup.mjs [--runs N] [--plain]
// The site is served as a static host that serves the build's precompressed .br/.gz copies does;
// with --plain, uncompressed. "Ready" is the moment the app (not the static skeleton) shows its
// "Open example" button.
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

async function once(browser, server, throttle, withExample) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
  if (throttle) await cdp.send("Network.emulateNetworkConditions", { offline: false, ...throttle });
  const urls = new Map();
  const finished = [];
  cdp.on("Network.requestWillBeSent", (e) => urls.set(e.requestId, e.request.url));
  cdp.on("Network.loadingFinished", (e) =>
    finished.push({ url: urls.get(e.requestId), bytes: e.encodedDataLength, at: Date.now() }),
  );
  // The page notes, on its own clock (from navigation start), when the app's button shows.
  await page.addInitScript(() => {
    new MutationObserver((_, observer) => {
      const ready = [...document.querySelectorAll("button")].some((b) => b.textContent.trim() === "Open example");
      if (ready) {
        window.__readyAt = performance.now();
        observer.disconnect();
      }
    }).observe(document, { childList: true, subtree: true });
  });
  await page.goto(server.url);
  await page.getByRole("button", { name: "Open example" }).waitFor();
  const readyAtWall = Date.now();
  const readyMs = await page.evaluate(() => window.__readyAt);
  const bytesBeforeReady = finished.filter((f) => f.at <= readyAtWall).reduce((sum, f) => sum + f.bytes, 0);
  const files = finished.filter((f) => f.at <= readyAtWall).map((f) => `${f.url.split("/").pop() || "index.html"} ${kb(f.bytes)} KB`);
  let exampleMs = null;
  if (withExample) {
    const t0 = Date.now();
    await page.getByRole("button", { name: "Open example" }).click();
    await page.getByRole("treeitem").first().waitFor();
    exampleMs = Date.now() - t0;
  }
  await context.close();
  return { readyMs, bytesBeforeReady, files, exampleMs };
}

const server = await serveDist({ precompressed });
const browser = await launchBrowser();
try {
  console.log(`startup: ${runs} runs per condition, cold cache, ${precompressed ? "precompressed (.br/.gz)" : "uncompressed"} files`);
  for (const { name, throttle } of conditions) {
    const results = [];
    for (let i = 0; i < runs; i++) results.push(await once(browser, server, throttle, !throttle));
    const ready = results.map((r) => r.readyMs);
    console.log(
      `${name}: ready ${median(ready).toFixed(0)} ms median (${Math.min(...ready).toFixed(0)}–${Math.max(...ready).toFixed(0)}), ` +
        `${kb(median(results.map((r) => r.bytesBeforeReady)))} KB transferred before ready`,
    );
    if (!throttle) {
      const example = results.map((r) => r.exampleMs);
      console.log(`${name}: Open example → first rows ${median(example)} ms median (${Math.min(...example)}–${Math.max(...example)})`);
      console.log(`  fetched before ready: ${results[0].files.join(", ")}`);
    }
  }
} finally {
  await browser.close();
  await server.close();
}
