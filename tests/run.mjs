// Runs every test of the built site and the command line's MCP server: the build's own checks
// (tests/build/) and the MCP tests (tests/mcp/) once, then the browser tests (tests/browser/)
// once per engine: Chromium, Firefox and WebKit (./browser/engines.mjs). Prints each part's
// counts and time, and fails if any test failed.
//   node tests/run.mjs                      everything
//   SESSIONSCOPE_ENGINES=firefox node tests/run.mjs     the browser tests in Firefox only
//   node tests/run.mjs tests/browser/palette.test.mjs   one file, in every engine
import { spawn } from "node:child_process";
import { appendFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ENGINES } from "./browser/engines.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const engines = (process.env.SESSIONSCOPE_ENGINES || ENGINES.join(",")).split(",").filter(Boolean);
for (const engine of engines) {
  if (!ENGINES.includes(engine)) throw new Error(`SESSIONSCOPE_ENGINES names ${engine}: the engines are ${ENGINES.join(", ")}`);
}
const files = process.argv.slice(2);
const browserFiles = files.length ? files.filter((f) => f.includes("tests/browser/")) : ["tests/browser/"];
const otherFiles = files.length ? files.filter((f) => !f.includes("tests/browser/")) : ["tests/build/", "tests/mcp/"];

/** Runs node's test runner on `paths` with `env`, its output passed through; answers its counts. */
function run(name, paths, env = {}) {
  return new Promise((done) => {
    const started = Date.now();
    console.log(`\n## ${name}: node --test ${paths.join(" ")}\n`);
    const child = spawn(process.execPath, ["--test", "--test-concurrency=1", ...paths], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "inherit"],
    });
    const counts = { tests: 0, pass: 0, fail: 0, skipped: 0 };
    let tail = "";
    child.stdout.on("data", (chunk) => {
      process.stdout.write(chunk);
      const text = tail + chunk.toString();
      const lines = text.split("\n");
      tail = lines.pop();
      for (const line of lines) {
        const count = /^# (tests|pass|fail|skipped) (\d+)$/.exec(line);
        if (count) counts[count[1]] = Number(count[2]);
      }
    });
    child.on("close", (code) => done({ name, code, ...counts, seconds: (Date.now() - started) / 1000 }));
  });
}

const parts = [];
if (otherFiles.length) parts.push(await run("the build and MCP", otherFiles));
if (browserFiles.length) {
  for (const engine of engines) parts.push(await run(`browser tests in ${engine}`, browserFiles, { SESSIONSCOPE_ENGINE: engine }));
}
console.log("\n| part | tests | pass | fail | skipped | time |\n| --- | ---: | ---: | ---: | ---: | ---: |");
for (const p of parts) console.log(`| ${p.name} | ${p.tests} | ${p.pass} | ${p.fail} | ${p.skipped} | ${p.seconds.toFixed(0)} s |`);
// `make test` collects every part's time in one table (scripts/timed.sh).
if (process.env.SESSIONSCOPE_TIMES) {
  for (const p of parts) appendFileSync(process.env.SESSIONSCOPE_TIMES, `${p.name} (${p.pass}/${p.tests} passed)\t${Math.round(p.seconds)}\t${p.code}\n`);
}
process.exit(parts.some((p) => p.code !== 0 || p.fail > 0) ? 1 : 0);
