// The engine's parse throughput as wasm in headless Chromium, on a generated session.
//   node tests/bench/parse-wasm.mjs [size, default 100MB]
// Prints MB/s for reading+parsing (8 MiB slices) and for the graph build, best of 5 runs.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, serveDist, launchBrowser, openApp } from "../browser/harness.mjs";

const size = process.argv[2] || "100MB";
const dir = mkdtempSync(join(tmpdir(), "sessionscope-bench-"));
execFileSync("cargo", ["run", "--quiet", "--release", "-p", "sessionscope-synth", "--bin", "gen-session", "--", "--out", dir, "--size", size, "--seed", "7", "--agents", "0"], { cwd: ROOT, stdio: "inherit" });
const main = readdirSync(dir).find((f) => f.endsWith(".jsonl"));
const path = join(dir, main);
const bytes = statSync(path).size;

const server = await serveDist({ extra: { "/bench/session.jsonl": path } });
const browser = await launchBrowser();
try {
  const app = await openApp(browser, server);
  // The parser is in the loading worker's wasm (the page holds none): the runs are made in a
  // worker of that wasm, started here with the benchmark's hook as its message handler.
  const runs = await app.page.evaluate(async () => {
    const code = `importScripts("${location.origin}/worker.js");
      self.onmessage = async (event) => {
        await wasm_bindgen({ module_or_path: "${location.origin}/worker_bg.wasm" });
        const buffer = new Uint8Array(await (await fetch("${location.origin}/bench/session.jsonl")).arrayBuffer());
        const out = [];
        for (let i = 0; i < 5; i++) {
          const t0 = performance.now();
          const result = JSON.parse(wasm_bindgen.benchmarkParse(buffer, 8 << 20));
          result.total_ms = performance.now() - t0;
          out.push(result);
        }
        postMessage(out);
      };`;
    const worker = new Worker(URL.createObjectURL(new Blob([code], { type: "text/javascript" })));
    const done = new Promise((resolve, reject) => {
      worker.onmessage = (event) => Array.isArray(event.data) && resolve(event.data);
      worker.onerror = (event) => reject(new Error(event.message));
    });
    worker.postMessage("run");
    return await done;
  });
  const best = (key) => Math.min(...runs.map((r) => r[key]));
  const mb = bytes / 1e6;
  const r = runs[0];
  console.log("runs (parse ms):", runs.map((r) => r.parse_ms.toFixed(0)).join(", "));
  console.log(`file: ${mb.toFixed(1)} MB, ${r.lines} lines, ${r.entries} entries, ${r.conversations} conversations`);
  console.log(`wasm read+parse (8 MiB slices): best ${best("parse_ms").toFixed(1)} ms = ${(mb / (best("parse_ms") / 1000)).toFixed(0)} MB/s`);
  console.log(`wasm graph build: best ${best("graph_ms").toFixed(1)} ms = ${(mb / (best("graph_ms") / 1000)).toFixed(0)} MB/s`);
  console.log(`including the copy of the bytes into wasm memory: best ${best("total_ms").toFixed(1)} ms`);
  console.log(`model memory: ${(r.model_bytes / 1e6).toFixed(1)} MB = ${((100 * r.model_bytes) / bytes).toFixed(1)}% of the file`);
  if (app.foreignRequests().length) throw new Error(`foreign requests: ${app.foreignRequests()}`);
} finally {
  await browser.close();
  await server.close();
}
