// A whole history in headless Chromium: drops a folder of many projects (made by the project's
// generator, `gen-history`), and prints the time until the first sessions are listed and until
// the index is done, the browser's peak memory above the empty page while indexing (RSS and PSS of
// every Chromium process: page, workers, GPU, browser), the time to the first rows of a typical
// and of the largest session, and a search of every session for a rare and a common word (first
// hit, done).
//   node tests/bench/history.mjs <folder> [--rare WORD] [--common WORD] [--index-only] [--ranked-only] [--no-open]
// With --index-only it stops after the index's figures (for builds alternated in one run); with
// --ranked-only after the ranked search's (50 queries, as tests/bench/ranked-search.py asks them);
// with --no-open no session is opened before it (its memory is then the search's own).
// <folder> holds `projects/`, e.g. one written by
//   cargo run --release -p sessionscope-synth --bin gen-history -- --out /tmp/h1g --size 1GB
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { ROOT, serveDist, launchBrowser, dropFolder, engineIndex } from "../browser/harness.mjs";
import { browserMemory, browserCpuSeconds } from "./processes.mjs";

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const folder = args.find((a, i) => !a.startsWith("--") && !["--rare", "--common"].includes(args[i - 1]));
if (!folder) {
  console.error("usage: node tests/bench/history.mjs <folder holding projects/> [--rare WORD] [--common WORD]");
  process.exit(2);
}
const projects = join(folder, "projects");
const rare = option("--rare", "zanzibar");
const common = option("--common", "function");
const indexOnly = args.includes("--index-only");

const mb = (bytes) => (bytes / 1e6).toFixed(0);
const server = await serveDist();
const browser = await launchBrowser();
try {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  // The time of the drop, for VERBOSE's timeline of the page's and workers' debug messages.
  let t0 = 0;
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
    if (m.type() === "debug" && process.env.VERBOSE) console.log(`${t0 ? Date.now() - t0 : "-"} ms: ${m.text()}`);
  });
  page.on("worker", (worker) => {
    if (process.env.VERBOSE) worker.on("console", (m) => console.log(`${t0 ? Date.now() - t0 : "-"} ms: worker: ${m.text()}`));
  });
  // The page notes when the drop event reaches it and when the first session is listed, on its
  // own clock: the harness's drag (a CDP session, three drag events) takes time of its own.
  await page.addInitScript(() => {
    addEventListener("drop", () => (window.__droppedAt ??= performance.now()), true);
    new MutationObserver((_, observer) => {
      if (window.__droppedAt !== undefined && document.querySelector('[aria-label="Sessions"] [role="option"]')) {
        window.__listedAt = performance.now();
        observer.disconnect();
      }
    }).observe(document, { childList: true, subtree: true });
  });
  // WORKERS=N runs N index and search workers (the page's `?workers=N`) instead of one per core.
  await page.goto(process.env.WORKERS ? `${server.url}?workers=${process.env.WORKERS}` : server.url);
  await page.getByRole("button", { name: "Open example" }).waitFor();
  await page.waitForTimeout(1500);
  const empty = browserMemory();
  const emptyPss = browserMemory({ pss: true });
  let peak = empty;
  let peakPss = emptyPss;
  // RSS every 100 ms, PSS every 2 s: sampling PSS every 100 ms took a core's worth of the
  // kernel's time and made the index 1.5 times slower (45.0 s against 29.7 s, 2026-11-26).
  const sampler = setInterval(() => (peak = Math.max(peak, browserMemory())), 100);
  const pssSampler = setInterval(() => (peakPss = Math.max(peakPss, browserMemory({ pss: true }))), 2000);

  const history = page.getByRole("region", { name: "History" });
  const sessions = history.getByRole("listbox", { name: "Sessions" });
  t0 = Date.now();
  const cpuBefore = browserCpuSeconds();
  await dropFolder(page, projects);
  await sessions.getByRole("option").first().waitFor({ timeout: 600_000 });
  const firstListed = Date.now() - t0;
  const sinceDropEvent = await page.evaluate(() => window.__listedAt - window.__droppedAt);
  const status = history.getByRole("status").first();
  await status.filter({ hasText: /^Indexed / }).waitFor({ timeout: 600_000 });
  const indexed = Date.now() - t0;
  const cpu = browserCpuSeconds() - cpuBefore;
  clearInterval(sampler);
  clearInterval(pssSampler);
  const statusText = await status.innerText();
  const facts = await history.locator(".history-header .session-facts").innerText();
  console.log(`history: ${facts}`);
  console.log(`index: ${statusText}`);
  console.log(
    `first sessions listed ${firstListed} ms after the drag began (${sinceDropEvent.toFixed(0)} ms after the page got the drop event); index done after ${indexed} ms`,
  );
  // Every Chromium process, user and system, from the drag to "Indexed": against the read
  // floor's (read-files.mjs), what the index adds; against the wall time, how busy the cores were.
  console.log(`browser CPU: ${cpu.toFixed(1)} s from the drag to the end of the index (${(cpu / (indexed / 1000)).toFixed(2)} cores busy on average)`);
  console.log(
    `browser memory: RSS ${mb(empty)} MB empty page, peak ${mb(peak)} MB while indexing (+${mb(peak - empty)} MB); ` +
      `PSS every 2 s ${mb(emptyPss)} MB empty, peak ${mb(peakPss)} MB (+${mb(peakPss - emptyPss)} MB)`,
  );

  if (indexOnly) {
    if (errors.length) throw new Error(`errors on the page: ${errors.join("; ")}`);
    await browser.close();
    await server.close();
    process.exit(0);
  }

  /** Opens the session whose option `pick` chooses, and answers ms to its first rows. */
  const openSession = async (pick) => {
    const option = await pick();
    const name = (await option.innerText()).split("\n")[0];
    const started = Date.now();
    await option.click();
    await page.getByRole("tree", { name: "Conversation" }).getByRole("treeitem").first().waitFor({ timeout: 120_000 });
    const firstRows = Date.now() - started;
    await page.getByRole("region", { name: "Load summary" }).waitFor({ timeout: 120_000 });
    const whole = Date.now() - started;
    await page.getByRole("button", { name: "← History" }).click();
    await sessions.waitFor();
    return { name, firstRows, whole };
  };
  // --no-open measures the ranked search's memory without a session opened first (a worker's
  // WebAssembly memory keeps the size the largest session grew it to).
  if (!args.includes("--no-open")) {
    await history.getByRole("button", { name: "Sort by Tokens" }).click();
    const largest = await openSession(async () => sessions.getByRole("option").first());
    const typical = await openSession(async () => {
      await page.evaluate(() => {
        const scroller = document.querySelector(".history-scroll");
        scroller.scrollTop = scroller.scrollHeight / 2;
      });
      await page.waitForTimeout(300);
      const options = sessions.getByRole("option");
      return options.nth(Math.floor((await options.count()) / 2));
    });
    console.log(`open the largest session (${largest.name}): first rows ${largest.firstRows} ms, loaded ${largest.whole} ms`);
    console.log(`open a typical session (${typical.name}): first rows ${typical.firstRows} ms, loaded ${typical.whole} ms`);
  }

  const search = history.getByRole("region", { name: "Search all sessions" });
  // The ranked search (issue 52): 50 queries of 1 to 4 words, each taken in a random order from
  // a random session's first prompt (as tests/bench/ranked-search.py takes them for the command
  // line), timed in the page from the input event to the results drawn.
  // The release build's index when there is one (a debug build reads 4 GB slowly).
  const release = join(ROOT, "target/release/sessionscope");
  const rows = (existsSync(release) ? JSON.parse(execFileSync(release, ["index", "--json", projects], { maxBuffer: 1 << 28 }).toString()) : engineIndex(projects)).sessions;
  let seed = Number(process.env.SEED ?? 11);
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const pick = (items, n) => {
    const left = [...items];
    return Array.from({ length: Math.min(n, left.length) }, () => left.splice(Math.floor(random() * left.length), 1)[0]);
  };
  const queries = [];
  for (const row of pick(rows, 50)) {
    const words = row.first_prompt.match(/[A-Za-z][A-Za-z_]{3,}/g) ?? [];
    if (words.length) queries.push({ query: pick(words, 1 + Math.floor(random() * Math.min(4, words.length))).join(" "), prompt: row.first_prompt });
  }
  const prompts = new Map(rows.map((row) => [row.session_id, row.first_prompt]));
  const beforeRanked = browserMemory();
  const beforeRankedPss = browserMemory({ pss: true });
  const times = [];
  let first = 0;
  let top3 = 0;
  for (const { query, prompt } of queries) {
    const { ms, found, said } = await page.evaluate(async (query) => {
      const box = document.querySelector('[aria-label="Search every session"]');
      const region = box.closest("section");
      const status = () => region.querySelector("[role=status]")?.textContent ?? "";
      const answered = (test) =>
        new Promise((done) => {
          if (test()) return done();
          const observer = new MutationObserver(() => test() && (observer.disconnect(), done()));
          observer.observe(region, { childList: true, subtree: true, characterData: true });
        });
      box.value = "";
      box.dispatchEvent(new Event("input", { bubbles: true }));
      await answered(() => !/found of/.test(status()));
      const started = performance.now();
      box.value = query;
      box.dispatchEvent(new Event("input", { bubbles: true }));
      await answered(() => /found of/.test(status()));
      const ms = performance.now() - started;
      const found = [...region.querySelectorAll(".ranked-session > button")].slice(0, 3).map((b) => b.dataset.session);
      return { ms, found, said: status() };
    }, query);
    times.push(ms);
    if (process.env.VERBOSE || ms > 300) console.log(`  "${query}": ${ms.toFixed(0)} ms: ${said}`);
    const foundPrompts = found.map((id) => prompts.get(id));
    first += foundPrompts[0] === prompt ? 1 : 0;
    top3 += foundPrompts.includes(prompt) ? 1 : 0;
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)];
  const p95 = times[Math.max(0, Math.floor(times.length * 0.95) - 1)];
  console.log(
    `ranked search, ${times.length} queries of 1-4 words: median ${median.toFixed(0)} ms, p95 ${p95.toFixed(0)} ms, max ${times.at(-1).toFixed(0)} ms ` +
      `from the input event to the results drawn; a session of that first prompt first ${first}, in the top 3 ${top3}; ` +
      `browser memory RSS ${mb(beforeRanked)} MB before (+${mb(beforeRanked - empty)} MB above the empty page), ${mb(browserMemory())} MB after (+${mb(browserMemory() - empty)} MB); ` +
      `PSS ${mb(beforeRankedPss)} MB before (+${mb(beforeRankedPss - emptyPss)} MB), ${mb(browserMemory({ pss: true }))} MB after (+${mb(browserMemory({ pss: true }) - emptyPss)} MB)`,
  );
  if (args.includes("--ranked-only")) {
    if (errors.length) throw new Error(`errors on the page: ${errors.join("; ")}`);
    process.exit(0);
  }

  // "Exact" lists every match of the text as written.
  await search.getByLabel("Exact").check();
  for (const word of [rare, common]) {
    await search.getByLabel("Search every session").fill(word);
    const started = Date.now();
    await search.getByRole("button", { name: "Search" }).click();
    let firstHit = null;
    const searchStatus = search.getByRole("status");
    for (;;) {
      const text = await searchStatus.innerText().catch(() => "");
      if (firstHit === null && (await search.locator(".search-hit").count()) > 0) firstHit = Date.now() - started;
      if (/^\d+\+? match(?:es)? in \d+ sessions? · /.test(text)) {
        console.log(`search "${word}": first hit ${firstHit ?? "none"} ms, done ${Date.now() - started} ms: ${text}`);
        break;
      }
      if (Date.now() - started > 600_000) throw new Error(`the search for ${word} did not end`);
      await page.waitForTimeout(50);
    }
  }
  if (errors.length) console.log("errors:", errors);
} finally {
  await browser.close();
  await server.close();
}
