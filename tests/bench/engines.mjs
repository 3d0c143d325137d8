// The page in each browser engine (Chromium, Firefox, WebKit: tests/browser/engines.mjs), measured
// the same way in all three, with nothing but what every driver has: start-up (navigation to the
// app's "Open example" on screen, cold, served precompressed), a 100 MB session's first rows and
// its whole load, a 1 GB history's first listed session and its whole index, and the browser's
// memory (every process of its tree, from /proc) at the empty page and at the index's peak.
// Files are given as a Firefox or Safari user gives them: picked with "Choose files…" (a
// history's 1,000-odd files too, which the page indexes as a history), so they are the files of
// disk in every engine; times run on the page's clock from the input's `change` event.
//   node tests/bench/engines.mjs [--engines chromium,firefox,webkit] [--runs 3] [--work DIR]
// The generated session and history are kept in --work (default /tmp/sessionscope-engines) and
// made once. Engines are taken in a rotated order each run (builds are not compared here: the
// same build in every engine).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { ROOT, serveDist } from "../browser/harness.mjs";
import { ENGINES, launchEngine } from "../browser/engines.mjs";
import { browserMemory } from "./processes.mjs";

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const engines = option("--engines", ENGINES.join(",")).split(",");
const runs = Number(option("--runs", "3"));
const work = option("--work", "/tmp/sessionscope-engines");

/** Runs one of the project's generators, built for release, into `out` unless it is there. */
function generated(bin, out, extra) {
  if (!existsSync(out)) {
    mkdirSync(out, { recursive: true });
    execFileSync("cargo", ["run", "--quiet", "--release", "-p", "sessionscope-synth", "--bin", bin, "--", "--out", out, ...extra], { cwd: ROOT, stdio: "inherit" });
  }
  return out;
}

/** Every file under `dir`. */
function filesUnder(dir) {
  return readdirSync(dir, { recursive: true })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile());
}

const sessionDir = generated("gen-session", join(work, "session-100mb"), ["--size", "100MB", "--seed", "3", "--agents", "0"]);
const session = filesUnder(sessionDir).find((f) => f.endsWith(".jsonl"));
const historyDir = generated("gen-history", join(work, "history-1gb"), ["--size", "1GB", "--seed", "8"]);
const historyFiles = filesUnder(join(historyDir, "projects"));
const gb = (bytes) => (bytes / 1e9).toFixed(2);
console.log(`session: ${(statSync(session).size / 1e6).toFixed(0)} MB; history: ${historyFiles.length} files, ${gb(historyFiles.reduce((s, f) => s + statSync(f).size, 0))} GB`);

/**
 * The page's marks on its own clock: when the app's "Open example" button is in the document, when
 * a file input changed, when the first tree row and the first history row are in, when a load
 * summary's status says the load is done, when the history says "Indexed".
 */
function marks() {
  const marked = (name, test) =>
    new MutationObserver((_, observer) => {
      if (window[name] === undefined && test()) {
        window[name] = performance.now();
        observer.disconnect();
      }
    }).observe(document, { childList: true, subtree: true, characterData: true });
  marked("__readyAt", () => [...document.querySelectorAll("button")].some((b) => b.textContent.trim() === "Open example"));
  addEventListener("change", () => {
    window.__pickedAt = performance.now();
    marked("__rowsAt", () => document.querySelector("[role=treeitem]"));
    marked("__loadedAt", () => [...document.querySelectorAll("[aria-label='Load summary'] [role=status]")].some((s) => /^\d+ sessions? · /.test(s.textContent.trim())));
    marked("__listedAt", () => document.querySelector("[aria-label='Sessions'] [role=option]"));
    marked("__indexedAt", () => [...document.querySelectorAll("[aria-label='History'] [role=status]")].some((s) => s.textContent.trim().startsWith("Indexed ")));
  }, true);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
/** The median of `xs` and their range, with `digits` decimals: "812 (790–845)". */
const range = (xs, digits = 0) => `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;

async function waitMark(page, name, timeout = 600_000) {
  await page.waitForFunction((name) => window[name] !== undefined, name, { timeout, polling: 100 });
  return page.evaluate((name) => window[name] - window.__pickedAt, name);
}

/** One engine, one run: the four figures. */
async function measure(engine) {
  const browser = await launchEngine(engine);
  const server = await serveDist({ precompressed: true, hooks: browser.serverHooks });
  try {
    const open = async () => {
      const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
      await context.addInitScript(marks);
      const page = await context.newPage();
      await page.goto(server.url);
      await page.waitForFunction(() => window.__readyAt !== undefined, null, { polling: 50, timeout: 60_000 });
      return { context, page, readyMs: await page.evaluate(() => window.__readyAt) };
    };
    const startup = [];
    for (let i = 0; i < 3; i++) {
      const { context, readyMs } = await open();
      startup.push(readyMs);
      await context.close();
    }

    let { context, page } = await open();
    await page.getByLabel("Choose session log files").setInputFiles([session]);
    const firstRows = await waitMark(page, "__rowsAt");
    const loaded = await waitMark(page, "__loadedAt");
    await context.close();

    ({ context, page } = await open());
    // The empty page, settled: its idle work (the example fetched ahead, the workers warmed) done.
    await page.waitForFunction(() => new Promise((ok) => setTimeout(() => requestAnimationFrame(() => ok(true)), 2000)), null, { timeout: 30_000 });
    const empty = browserMemory();
    let peak = empty;
    const sampler = setInterval(() => (peak = Math.max(peak, browserMemory())), 100);
    await page.getByLabel("Choose session log files").setInputFiles(historyFiles);
    const listed = await waitMark(page, "__listedAt");
    const indexed = await waitMark(page, "__indexedAt");
    clearInterval(sampler);
    const status = await page.evaluate(() => [...document.querySelectorAll("[aria-label='History'] [role=status]")].map((s) => s.textContent.trim()).find((t) => t.startsWith("Indexed ")));
    await context.close();
    return { engine, version: browser.version(), startup: median(startup), firstRows, loaded, listed, indexed, empty, above: peak - empty, status };
  } finally {
    await browser.close();
    await server.close();
  }
}

const results = Object.fromEntries(engines.map((e) => [e, []]));
for (let run = 0; run < runs; run++) {
  const order = engines.map((_, i) => engines[(i + run) % engines.length]);
  for (const engine of order) {
    const r = await measure(engine);
    results[engine].push(r);
    console.log(`run ${run + 1} ${engine} ${r.version}: ready ${Math.round(r.startup)} ms; 100 MB first rows ${Math.round(r.firstRows)} ms, loaded ${Math.round(r.loaded)} ms; 1 GB first listed ${Math.round(r.listed)} ms, indexed ${(r.indexed / 1000).toFixed(1)} s (${r.status}); memory ${(r.empty / 1e6).toFixed(0)} MB empty, +${(r.above / 1e6).toFixed(0)} MB at the peak`);
  }
}
console.log(`\n| engine | start-up: app ready | 100 MB session: first rows | 100 MB: loaded | 1 GB history: first listed | 1 GB: indexed | memory: empty page | memory: index's peak above it |`);
console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
for (const engine of engines) {
  const rs = results[engine];
  const of = (key, scale = 1, digits = 0) => range(rs.map((r) => r[key] / scale), digits);
  console.log(
    `| ${engine} ${rs[0].version} | ${of("startup")} ms | ${of("firstRows")} ms | ${of("loaded")} ms | ${of("listed")} ms | ${of("indexed", 1000, 1)} s | ${of("empty", 1e6)} MB | +${of("above", 1e6)} MB |`,
  );
}
