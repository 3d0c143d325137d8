// What opening one big session costs the browser in memory (issue 40: at most 1.5 times the
// file). Drops the file on the page in headless Chromium and prints the resident memory of all of
// Chromium's processes above the empty page: its peak while loading, once the session is shown
// and settled, and once the session has been searched (which starts the session's worker, with
// its own copy), and the page's own wasm memory. PSS (proportional set size) is given beside RSS: it counts shared pages once.
// With --share it then opens the share dialog and waits for its scan of the whole session (the
// session's worker reads a big session's files whole for it), and prints that peak too.
//   node tests/bench/open-memory.mjs <session.jsonl> [--word WORD] [--share]
// A session of the size:
//   cargo run --release -p sessionscope-synth --bin gen-session -- --out DIR --size 1500MB --seed 7 --agents 0
import { statSync } from "node:fs";
import { serveDist, launchBrowser, dropFolder } from "../browser/harness.mjs";
import { browserMemory } from "./processes.mjs";

const args = process.argv.slice(2);
const file = args.find((a, i) => !a.startsWith("--") && args[i - 1] !== "--word");
if (!file) {
  console.error("usage: node tests/bench/open-memory.mjs <session.jsonl> [--word WORD] [--share]");
  process.exit(2);
}
const word = args.includes("--word") ? args[args.indexOf("--word") + 1] : "zanzibar";
const bytes = statSync(file).size;
const mb = (n) => (n / 1e6).toFixed(0);
const times = (n) => (n / bytes).toFixed(2);

const server = await serveDist();
const browser = await launchBrowser();
try {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  if (process.env.VERBOSE) page.on("worker", (worker) => worker.on("console", (m) => console.log(`worker: ${m.text()}`)));
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
    if (m.type() === "debug" && process.env.VERBOSE) console.log(m.text());
  });
  await page.goto(server.url);
  await page.getByRole("button", { name: "Open example" }).waitFor();
  await page.waitForTimeout(1500);
  const empty = { rss: browserMemory(), pss: browserMemory({ pss: true }) };
  let peak = empty.rss;
  let peakPss = empty.pss;
  const sample = setInterval(() => (peak = Math.max(peak, browserMemory())), 100);
  const samplePss = setInterval(() => (peakPss = Math.max(peakPss, browserMemory({ pss: true }))), 1000);
  /** Memory now, above the empty page, after a pause for the garbage collectors. */
  const settled = async () => {
    await page.waitForTimeout(3000);
    return { rss: browserMemory() - empty.rss, pss: browserMemory({ pss: true }) - empty.pss };
  };
  const line = (what, m) =>
    `${what}: RSS +${mb(m.rss)} MB (${times(m.rss)}× the file), PSS +${mb(m.pss)} MB (${times(m.pss)}×)`;

  const started = Date.now();
  await dropFolder(page, file);
  await page.getByRole("tree", { name: "Conversation" }).getByRole("treeitem").first().waitFor({ timeout: 120_000 });
  const firstRows = Date.now() - started;
  await page.getByRole("region", { name: "Load summary" }).waitFor({ timeout: 600_000 });
  const loaded = Date.now() - started;
  const shown = await settled();
  const loadPeak = { rss: peak - empty.rss, pss: peakPss - empty.pss };
  const pageWasm = await page.evaluate(() => window.wasmBindings.pageMemoryBytes());

  const box = page.getByLabel("Search text");
  await box.focus();
  await box.fill(word);
  await box.press("Enter");
  const searchStarted = Date.now();
  const searchBox = page.getByRole("search", { name: "Search the loaded sessions" });
  await searchBox.getByRole("status").filter({ hasText: /match(es)?$/ }).waitFor({ timeout: 600_000 });
  const searched = Date.now() - searchStarted;
  const afterSearch = await settled();
  const searchPeak = { rss: peak - empty.rss, pss: peakPss - empty.pss };

  // The share dialog's scan of the whole session, in the session's worker.
  let shared;
  if (args.includes("--share")) {
    [peak, peakPss] = [empty.rss, empty.pss];
    const shareStarted = Date.now();
    await page.getByRole("button", { name: "Share…" }).click();
    const dialog = page.getByRole("dialog", { name: "Share, redacted" });
    await dialog.getByText(/\d+ findings?: \d+ redacted/).waitFor({ timeout: 900_000 });
    const took = Date.now() - shareStarted;
    shared = { took, peak: { rss: peak - empty.rss, pss: peakPss - empty.pss }, settled: await settled() };
  }
  clearInterval(sample);
  clearInterval(samplePss);

  console.log(`file: ${mb(bytes)} MB; first rows ${firstRows} ms, loaded ${loaded} ms; search for "${word}" ${searched} ms`);
  console.log(`empty page: RSS ${mb(empty.rss)} MB, PSS ${mb(empty.pss)} MB`);
  console.log(line("peak while loading", loadPeak));
  console.log(line("the session shown, settled", shown) + `; the page's wasm memory ${mb(pageWasm)} MB`);
  console.log(line("peak until searched", searchPeak));
  console.log(line("searched, settled", afterSearch));
  if (shared) {
    console.log(`share dialog: its scan of the session done ${shared.took} ms after the click`);
    console.log(line("peak until the share's scan is done", shared.peak));
    console.log(line("the share's scan done, settled", shared.settled));
  }
  if (errors.length) throw new Error(`errors on the page: ${errors.join("; ")}`);
} finally {
  await browser.close();
  await server.close();
}
