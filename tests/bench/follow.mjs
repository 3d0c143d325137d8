// A remembered and followed history in headless Chromium. Drops a folder of many projects (made
// by `gen-history`), which the page remembers with its cached index, and prints:
// - the first index, and reopening the unchanged history after a reload (full list);
// - the idle cost of following it: CPU of every Chromium process per second of wall time, and
//   the files asked for per second (from the page's follow log);
// - from a line appended to the open session's file (by this script, as an agent would) to
//   that line on screen, over several appends.
//   node tests/bench/follow.mjs <folder holding projects/> [--appends N] [--idle SECONDS] [--live-mb MB]
// `--live-mb` makes the session written to that big before the run (Follow is turned on, so the
// newest row stays in view), and prints what each read of it cost on the page. `--idle 0`
// skips the idle measure.
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { serveDist, launchBrowser, dropFolder, waitForApp } from "../browser/harness.mjs";
import { browserCpuSeconds } from "./processes.mjs";

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
const folder = args.find((a, i) => !a.startsWith("--") && !["--appends", "--idle", "--live-mb"].includes(args[i - 1]));
if (!folder) {
  console.error("usage: node tests/bench/follow.mjs <folder holding projects/> [--appends N] [--idle SECONDS]");
  process.exit(2);
}
const appends = option("--appends", 10);
const idleSeconds = option("--idle", 30);
const liveMb = option("--live-mb", 0);
const projects = join(folder, "projects");

// The session this script writes to, as a running agent would.
const live = join(projects, "-bench-live");
const liveFile = join(live, "b0b0b0b0-0000-4000-8000-000000000001.jsonl");
const line = (i, parent, text) =>
  JSON.stringify({
    type: i % 2 ? "assistant" : "user",
    uuid: `b0b0b0b0-0000-4000-8000-${String(i).padStart(12, "0")}`,
    parentUuid: parent,
    sessionId: "b0b0b0b0-0000-4000-8000-000000000001",
    cwd: "/home/dev/bench-live",
    timestamp: new Date(Date.now()).toISOString(),
    message:
      i % 2
        ? { role: "assistant", model: "claude-sonnet-4-5", content: [{ type: "text", text }], usage: { input_tokens: 10, output_tokens: 5 } }
        : { role: "user", content: text },
  }) + "\n";
rmSync(live, { recursive: true, force: true });
mkdirSync(live, { recursive: true });
writeFileSync(liveFile, line(0, null, "bench live session: follow me") + line(1, uuidOf(0), "Following."));
// A big live session: a chain of long lines before the ones the run appends.
let lastUuid = uuidOf(1);
if (liveMb > 0) {
  const filler = "the agent explains what it did at some length. ".repeat(40);
  const lines = [];
  let bytes = 0;
  for (let i = 1000; bytes < liveMb * 1024 * 1024; i++) {
    const text = line(i, lastUuid, `${i}: ${filler}`);
    lastUuid = uuidOf(i);
    lines.push(text);
    bytes += text.length;
    if (lines.length === 1000) appendFileSync(liveFile, lines.splice(0).join(""));
  }
  appendFileSync(liveFile, lines.join(""));
}
function uuidOf(i) {
  return `b0b0b0b0-0000-4000-8000-${String(i).padStart(12, "0")}`;
}

const server = await serveDist();
const browser = await launchBrowser();
try {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  let followLog = "";
  const reads = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
    if (m.text().startsWith("sessionscope follow: walk")) followLog = m.text();
    if (m.text().startsWith("sessionscope follow: read")) reads.push(m.text());
    if (m.type() === "debug" && process.env.VERBOSE) console.log(m.text());
  });
  await page.goto(server.url);
  await waitForApp(page);
  const history = page.getByRole("region", { name: "History" });
  const indexed = history.getByRole("status").filter({ hasText: /^Indexed / });

  let started = Date.now();
  await dropFolder(page, projects);
  await indexed.waitFor({ timeout: 600_000 });
  const firstIndex = (Date.now() - started) / 1000;
  const facts = await history.locator(".session-facts").innerText();
  console.log(`first index (drop, remembered): ${firstIndex.toFixed(1)} s · ${facts}`);
  // The cache is written after the index: give it a moment.
  await page.waitForTimeout(3000);

  // Reopen after a reload: the whole list from the cache.
  await page.reload();
  await waitForApp(page);
  const reopen = page.getByRole("button", { name: "Reopen projects" });
  await reopen.waitFor();
  started = Date.now();
  await reopen.click();
  await history.getByRole("listbox", { name: "Sessions" }).getByRole("option").first().waitFor({ timeout: 600_000 });
  const firstRows = (Date.now() - started) / 1000;
  // Every session listed: the totals line says what the first index said.
  await page.waitForFunction((facts) => document.querySelector(".history .session-facts")?.textContent === facts, facts, {
    timeout: 600_000,
    polling: 20,
  });
  const allListed = (Date.now() - started) / 1000;
  await indexed.waitFor({ timeout: 600_000 });
  const checked = (Date.now() - started) / 1000;
  const status = await indexed.innerText();
  console.log(
    `reopen unchanged: first rows ${firstRows.toFixed(2)} s, every session listed ${allListed.toFixed(2)} s, files checked ${checked.toFixed(2)} s · ${status}`,
  );
  console.log(`  ${await history.locator(".session-facts").innerText()}`);

  // Idle cost of following everything, with no session open.
  if (idleSeconds > 0) {
  await page.waitForTimeout(3000);
  const cpu0 = browserCpuSeconds();
  const wall0 = Date.now();
  const log0 = followLog;
  await page.waitForTimeout(idleSeconds * 1000);
  const cpu = (browserCpuSeconds() - cpu0) / ((Date.now() - wall0) / 1000);
  console.log(`idle follow over ${idleSeconds} s: ${(cpu * 100).toFixed(1)}% of one core (all Chromium processes)`);
  console.log(`  follow log before: ${log0 || "(none)"}`);
  console.log(`  follow log after:  ${followLog || "(none)"}`);
  const asked = (text) => Number(/(\d+) files asked/.exec(text)?.[1] ?? 0);
  const looks = (text) => Number(/(\d+) walks/.exec(text)?.[1] ?? 0);
  if (followLog && log0) {
    const seconds = ((looks(followLog) - looks(log0)) * 10) || idleSeconds;
    console.log(`  files asked per second: ${((asked(followLog) - asked(log0)) / seconds).toFixed(0)}`);
  }
  }

  // Open the live session and append to it, as the agent writes.
  await history.getByLabel("Filter by title").fill("bench live session");
  await history.getByRole("listbox", { name: "Sessions" }).getByRole("option").first().click();
  const tree = page.getByRole("tree");
  await tree.getByText("follow me").waitFor({ timeout: 60_000 });
  // The whole session loaded (not its preview), then Follow on: the newest row in view.
  await page.getByRole("status").filter({ hasText: /session\(s\) · \d+ file\(s\)/ }).waitFor({ timeout: 60_000 });
  if (liveMb > 0) await page.getByRole("button", { name: "Follow" }).click();
  const latencies = [];
  let parent = lastUuid;
  for (let i = 2; i < 2 + appends; i++) {
    const text = `appended line ${i}`;
    const written = Date.now();
    appendFileSync(liveFile, line(i, parent, text));
    parent = uuidOf(i);
    await tree.getByText(text, { exact: true }).waitFor({ timeout: 30_000 });
    latencies.push((Date.now() - written) / 1000);
    await page.waitForTimeout(300 + Math.random() * 700);
  }
  latencies.sort((a, b) => a - b);
  console.log(
    `append → row on screen over ${latencies.length} appends: median ${latencies[Math.floor(latencies.length / 2)].toFixed(2)} s, max ${latencies.at(-1).toFixed(2)} s, min ${latencies[0].toFixed(2)} s`,
  );
  const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const grown = reads.filter((r) => !r.includes("(whole)"));
  console.log(`reads of the session: ${reads.length} (${reads.length - grown.length} whole)`);
  if (reads.length) console.log(`  first: ${reads[0]}`);
  if (grown.length) {
    const readMs = grown.map((r) => Number(/ in (\d+) ms, model/.exec(r)[1]));
    const modelMs = grown.map((r) => Number(/model in (\d+) ms/.exec(r)[1]));
    console.log(
      `  reads of what was appended: read+parse median ${median(readMs)} ms; model (snapshot + graph) median ${median(modelMs)} ms, max ${Math.max(...modelMs)} ms`,
    );
  }
  if (errors.length) console.log(`page errors: ${errors.join(" | ")}`);
  await context.close();
} finally {
  await browser.close();
  await server.close();
  rmSync(live, { recursive: true, force: true });
}
