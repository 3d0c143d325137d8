// Runs every test of the built site and the command line's MCP server: the build's own checks
// (tests/build/) and the MCP tests (tests/mcp/) once, then the browser tests (tests/browser/)
// once per engine: Chromium, Firefox and WebKit (./browser/engines.mjs). Prints each part's
// counts and time, and fails if any test failed.
// A browser test that fails is run once more, alone in its file's process; if it passes then, its
// part passes, and the summary names it as flaky with its first failure (it failed once: that is
// a bug to look into, but of the engine's or the test's timing, not a result to hide). WebKitGTK
// faults now and then on big sessions in ways no code of ours can reach (issue 50's notes).
//   node tests/run.mjs                      everything
//   SESSIONSCOPE_ENGINES=firefox node tests/run.mjs     the browser tests in Firefox only
//   node tests/run.mjs tests/browser/palette.test.mjs   one file, in every engine
import { spawn } from "node:child_process";
import { appendFileSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
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

/**
 * Runs node's test runner on `paths` with `env` (only the tests named `only`, if given), its
 * output passed through; answers its counts and the names of the tests that failed, each with the
 * first line of its error.
 */
function run(name, paths, env = {}, only = []) {
  return new Promise((done) => {
    const started = Date.now();
    const patterns = only.flatMap((test) => ["--test-name-pattern", `^${test.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}$`]);
    console.log(`\n## ${name}: node --test ${paths.join(" ")}${only.length ? ` (${only.length} named)` : ""}\n`);
    const child = spawn(process.execPath, ["--test", "--test-concurrency=1", ...patterns, ...paths], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "inherit"],
    });
    const counts = { tests: 0, pass: 0, fail: 0, skipped: 0 };
    const failed = [];
    let tail = "";
    child.stdout.on("data", (chunk) => {
      process.stdout.write(chunk);
      const text = tail + chunk.toString();
      const lines = text.split("\n");
      tail = lines.pop();
      for (const line of lines) {
        const count = /^# (tests|pass|fail|skipped) (\d+)$/.exec(line);
        if (count) counts[count[1]] = Number(count[2]);
        // A top-level test's failure, then its error's first line.
        const notOk = /^not ok \d+ - (.*)$/.exec(line);
        if (notOk) failed.push({ test: notOk[1], error: "" });
        // Its error's first line: on the line of `error:`, or under it when YAML folds it (`|-`).
        const last = failed.at(-1);
        const error = /^  error: (.*)$/.exec(line);
        if (error && last && !last.error) last.error = /^[|>][-+]?$/.test(error[1]) ? "…" : error[1].slice(0, 200);
        else if (last?.error === "…" && /^    \S/.test(line)) last.error = line.trim().slice(0, 200);
      }
    });
    child.on("close", (code) => done({ name, code, ...counts, failed, seconds: (Date.now() - started) / 1000 }));
  });
}

/** The browser test file that names `test` ("… [engine]"), or every browser file if none does. */
function fileOf(test) {
  const name = test.replace(/ \[\w+\]$/, "");
  const dir = join(ROOT, "tests/browser");
  const quoted = [`"${name}"`, `\`${name}\``, `'${name}'`];
  const file = readdirSync(dir)
    .filter((f) => f.endsWith(".test.mjs"))
    .find((f) => quoted.some((q) => readFileSync(join(dir, f), "utf8").includes(q)));
  return file ? `tests/browser/${file}` : "tests/browser/";
}

/** Runs each failed test of `part` once more; those that pass become its flaky ones. */
async function rerunFailed(part, env) {
  part.flaky = [];
  if (part.code === 0 || !part.failed.length || part.failed.length > 5) return part;
  const still = [];
  for (const first of part.failed) {
    const again = await run(`${part.name}, a second run of one failed test`, [fileOf(first.test)], env, [first.test]);
    part.seconds += again.seconds;
    if (again.code === 0 && again.pass === 1) part.flaky.push(first);
    else still.push(first);
  }
  if (!still.length) {
    part.code = 0;
    part.pass += part.fail;
    part.fail = 0;
  }
  return part;
}

const parts = [];
if (otherFiles.length) parts.push(await run("the build and MCP", otherFiles));
if (browserFiles.length) {
  for (const engine of engines) {
    const env = { SESSIONSCOPE_ENGINE: engine };
    parts.push(await rerunFailed(await run(`browser tests in ${engine}`, browserFiles, env), env));
  }
}
console.log("\n| part | tests | pass | fail | skipped | time |\n| --- | ---: | ---: | ---: | ---: | ---: |");
for (const p of parts) console.log(`| ${p.name} | ${p.tests} | ${p.pass} | ${p.fail} | ${p.skipped} | ${p.seconds.toFixed(0)} s |`);
const flaky = parts.flatMap((p) => (p.flaky ?? []).map((f) => ({ ...f, part: p.name })));
if (flaky.length) {
  console.log(`\nFlaky: ${flaky.length} test${flaky.length === 1 ? "" : "s"} failed once, then passed on a second run:`);
  for (const f of flaky) console.log(`- ${f.test} (${f.part}): ${f.error}`);
}
// `make test` collects every part's time in one table (scripts/timed.sh).
if (process.env.SESSIONSCOPE_TIMES) {
  for (const p of parts) appendFileSync(process.env.SESSIONSCOPE_TIMES, `${p.name} (${p.pass}/${p.tests} passed${p.flaky?.length ? `, ${p.flaky.length} on a second run` : ""})\t${Math.round(p.seconds)}\t${p.code}\n`);
}
process.exit(parts.some((p) => p.code !== 0 || p.fail > 0) ? 1 : 0);
