// Search on a big session in headless Chromium: generates a session (default 100 MB), drops
// it, then times plain and regex searches from the keystroke to the last hit.
//   node tests/bench/search.mjs [size, default 100MB]
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, serveDist, launchBrowser } from "../browser/harness.mjs";

const size = process.argv[2] || "100MB";
const dir = mkdtempSync(join(tmpdir(), "sessionscope-search-"));
execFileSync("cargo", ["run", "--quiet", "--release", "-p", "sessionscope-synth", "--bin", "gen-session", "--", "--out", dir, "--size", size, "--seed", "7", "--agents", "0"], { cwd: ROOT, stdio: "inherit" });
const main = readdirSync(dir).find((f) => f.endsWith(".jsonl"));
const path = join(dir, main);

const server = await serveDist({ extra: { "/bench/session.jsonl": path } });
const browser = await launchBrowser();
try {
  const page = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
  await page.goto(server.url);
  await page.getByRole("button", { name: "Open example" }).waitFor();
  await page.evaluate(async (name) => {
    const blob = await (await fetch("/bench/session.jsonl")).blob();
    const data = new DataTransfer();
    data.items.add(new File([blob], name));
    document.querySelector("main").dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true }));
  }, main);
  await page.getByRole("region", { name: "Load summary" }).waitFor({ timeout: 60000 });
  for (const [label, query, regex] of [
    ["plain", "cargo test", false],
    ["regex", "src/\\w+\\.rs:\\d+", true],
    ["plain, rare", "lone surrogate", false],
  ]) {
    const box = page.getByRole("search").getByLabel("Search text");
    const toggle = page.getByRole("search").getByLabel("Regex");
    // Empty the box first, so switching regex on or off starts no search of its own.
    await box.fill("");
    await page.waitForTimeout(400);
    if ((await toggle.isChecked()) !== regex) await toggle.setChecked(regex);
    await page.waitForFunction(() => document.querySelector("[role=search]").getAttribute("aria-busy") === "false");
    await box.fill(query);
    const status = page.getByRole("search").getByRole("status");
    // From the start of the search (after the 250 ms typing pause) to its end, timed in the page.
    const timing = await page.evaluate(async () => {
      const region = document.querySelector("[role=search]");
      const busy = () => region.getAttribute("aria-busy") === "true";
      const frame = () => new Promise((ok) => requestAnimationFrame(ok));
      while (!busy()) await frame();
      const start = performance.now();
      let first = null;
      while (busy()) {
        if (first === null && /\d+ match/.test(region.querySelector(".search-status").textContent)) first = performance.now() - start;
        await frame();
      }
      return { first, total: performance.now() - start };
    });
    const first = timing.first === null ? "-" : `${timing.first.toFixed(0)} ms`;
    console.log(`${label} "${query}": ${(await status.innerText()).trim()} · first hits after ${first} · all done after ${timing.total.toFixed(0)} ms`);
  }
} finally {
  await browser.close();
  await server.close();
}
