// What a whole history knows, in headless Chromium: drops a folder of many projects (made by
// `gen-history`), waits for the index, then prints how long the Files, Failures and Activity
// tabs take to show (from the click to the drawing painted, each opened three times), how long
// the page of the file with the most changes takes to its first diff, and what the history's
// insights cost in memory: the page's wasm memory and the insights worker's, and the browser's
// RSS above the empty page.
//   node tests/bench/insights.mjs <folder>
// <folder> holds `projects/`, e.g. one written by
//   cargo run --release -p sessionscope-synth --bin gen-history -- --out /tmp/h1g --size 1GB
// Run it on another build with SESSIONSCOPE_DIST=<its dist folder>.
import { join } from "node:path";
import { serveDist, launchBrowser, dropFolder } from "../browser/harness.mjs";
import { browserMemory } from "./processes.mjs";

const folder = process.argv[2];
if (!folder) {
  console.error("usage: node tests/bench/insights.mjs <folder holding projects/>");
  process.exit(2);
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const mb = (bytes) => (bytes / 1e6).toFixed(1);
const server = await serveDist();
const browser = await launchBrowser();
try {
  const page = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
  const logs = [];
  page.on("console", (m) => logs.push(m.text()));
  page.on("worker", (worker) => worker.on("console", (m) => logs.push(`worker: ${m.text()}`)));
  page.on("pageerror", (e) => console.log(`page error: ${e}`));
  await page.goto(server.url);
  await page.getByRole("button", { name: "Open example" }).waitFor();
  await page.waitForTimeout(1500);
  const empty = browserMemory();
  const started = Date.now();
  await dropFolder(page, join(folder, "projects"));
  const history = page.getByRole("region", { name: "History" });
  await history.getByRole("status").filter({ hasText: /^Indexed / }).waitFor({ timeout: 900_000 });
  console.log(`index: ${await history.getByRole("status").filter({ hasText: /^Indexed / }).innerText()} (${Date.now() - started} ms)`);
  await page.waitForTimeout(3000);
  console.log(logs.filter((l) => /indexed \d+ sessions|insights \d+ KB/.test(l)).join("\n"));
  const indexedMemory = await page.evaluate(() => window.wasmBindings.pageMemoryBytes());
  console.log(`memory once indexed: the page's wasm ${mb(indexedMemory)} MB; browser RSS ${mb(browserMemory() - empty)} MB above the empty page`);
  if (process.env.INDEX_ONLY) process.exit(0);

  /** Clicks a tab and answers ms from the click until `ready` is visible. */
  const open = async (tab, ready) => {
    await history.getByRole("tab", { name: "Sessions" }).click();
    await history.getByRole("listbox", { name: "Sessions" }).waitFor();
    const at = Date.now();
    await history.getByRole("tab", { name: tab }).click();
    await ready().waitFor({ timeout: 60_000 });
    return Date.now() - at;
  };
  const tabs = {
    Files: () => history.getByRole("listbox", { name: "Files" }).getByRole("option").first(),
    Failures: () => history.getByRole("list", { name: "Failure groups" }).getByRole("listitem").first(),
    Activity: () => history.getByRole("img", { name: /^Activity calendar/ }),
  };
  for (const [tab, ready] of Object.entries(tabs)) {
    const times = [];
    for (let i = 0; i < 3; i++) times.push(await open(tab, ready));
    const drawn = logs.filter((l) => l.includes(`sessionscope ${tab.toLowerCase()}:`)).slice(-3);
    console.log(`${tab}: shown ${times.join(", ")} ms after the click (median ${median(times)}); the page's log: ${drawn.join(" | ")}`);
  }

  // The files with the most changes: the Files tab sorted by changes, its first three rows.
  await history.getByRole("tab", { name: "Files" }).click();
  await history.getByLabel("Sort files by").selectOption("changes");
  await page.waitForTimeout(500);
  for (let row = 0; row < 3; row++) {
    const option = history.getByRole("listbox", { name: "Files" }).getByRole("option").nth(row);
    await option.waitFor();
    const facts = (await option.innerText()).replace(/\s+/g, " ");
    const at = Date.now();
    await option.click();
    const changes = page.getByRole("list", { name: "Changes" }).getByRole("listitem");
    await changes.first().waitFor({ timeout: 60_000 });
    const listed = Date.now() - at;
    await changes.first().getByRole("group", { name: /^Diff: / }).waitFor({ timeout: 60_000 });
    const firstDiff = Date.now() - at;
    await page.waitForTimeout(4000);
    const diffs = await page.getByRole("list", { name: "Changes" }).getByRole("group", { name: /^Diff: / }).count();
    console.log(
      `file page of ${facts}: changes listed ${listed} ms, first diff ${firstDiff} ms after the click; ${diffs} diffs drawn 4 s later; ` +
        logs.filter((l) => /first diffs in/.test(l)).slice(-1).join(""),
    );
    await history.getByRole("button", { name: "← Files" }).click();
    await history.getByRole("listbox", { name: "Files" }).getByRole("option").first().waitFor();
    await history.getByLabel("Sort files by").selectOption("changes");
    await page.waitForTimeout(500);
  }

  const pageMemory = await page.evaluate(() => window.wasmBindings.pageMemoryBytes());
  const worker = logs.filter((l) => /insights worker: .* its memory/.test(l)).slice(-1)[0] ?? "no insights worker message";
  console.log(`memory: the page's wasm ${mb(pageMemory)} MB; ${worker}; browser RSS ${mb(browserMemory() - empty)} MB above the empty page`);
} finally {
  await browser.close();
  await server.close();
}
