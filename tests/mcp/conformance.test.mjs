// The MCP conformance suite (`@modelcontextprotocol/conformance`) run against `sessionscope mcp`.
// The suite speaks only Streamable HTTP, so the server is reached through `http-bridge.mjs`,
// which passes every JSON-RPC message through unchanged. The suite needs Node 22 or later; it
// and a Node 22 are installed from npm into `.cache/mcp-conformance/` on first use.
//
// Its server scenarios are written for the SDKs' reference server: most call tools, prompts and
// resources only that server has (`test_simple_text`, `test://static-text`, …), or use
// capabilities sessionscope does not declare (prompts, logging, completions, subscriptions). So:
// every scenario that applies to any server must pass, and each other scenario must fail only by
// being told that its tool or resource does not exist or its method is not served, as the
// protocol asks (no crash, no malformed answer).

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const BINARY = join(ROOT, "target/debug/sessionscope");
const SUITE = join(ROOT, ".cache/mcp-conformance");
const BIN = join(SUITE, "node_modules/.bin");
/** The scenarios that apply to any server with tools and resources. */
const APPLY = ["server-initialize", "ping", "tools-list", "resources-list", "server-sse-multiple-streams", "dns-rebinding-protection"];
/** What a scenario written for the reference server may be told by another server. */
const NOT_HERE = /MCP error -32601|MCP error -32602: tool not found|MCP error -32002: no such resource/;

let bridge;
let url;
let work;

before(async () => {
  execFileSync("cargo", ["build", "--quiet", "-p", "sessionscope-engine", "--bin", "sessionscope"], { cwd: ROOT, stdio: "inherit" });
  if (!existsSync(join(BIN, "conformance")) || !existsSync(join(BIN, "node"))) {
    execFileSync(
      "npm",
      ["install", "--prefix", SUITE, "--no-audit", "--no-fund", "--no-save", "node@22", "@modelcontextprotocol/conformance@0.1.16"],
      { cwd: ROOT, stdio: "inherit" },
    );
  }
  work = mkdtempSync(join(tmpdir(), "sessionscope-conformance-"));
  const env = { ...process.env, SESSIONSCOPE_CACHE_DIR: join(work, "cache") };
  bridge = spawn(process.execPath, [join(ROOT, "tests/mcp/http-bridge.mjs"), "0", BINARY, join(ROOT, "assets/example")], {
    env,
    stdio: ["ignore", "pipe", "inherit"],
  });
  url = await new Promise((found, failed) => {
    bridge.stdout.on("data", (chunk) => {
      const match = String(chunk).match(/listening on (\S+)/);
      if (match) found(match[1]);
    });
    bridge.on("exit", (code) => failed(new Error(`the bridge ended with ${code}`)));
  });
});

after(() => {
  bridge?.kill();
  if (work) rmSync(work, { recursive: true, force: true });
});

test("the MCP conformance suite: every scenario that applies passes, and the others fail only as not served", () => {
  const out = join(work, "results");
  // The suite ends with a failing status when any scenario fails, as the reference ones do here.
  try {
    execFileSync(join(BIN, "conformance"), ["server", "--url", url, "-o", out], {
      env: { ...process.env, PATH: `${BIN}:${process.env.PATH}` },
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 300_000,
    });
  } catch (error) {
    if (!existsSync(out)) throw error;
  }
  const results = new Map();
  for (const folder of readdirSync(out)) {
    const scenario = folder.replace(/^server-/, "").replace(/-\d{4}-\d\d-\d\dT.*$/, "");
    results.set(scenario, JSON.parse(readFileSync(join(out, folder, "checks.json"), "utf8")));
  }
  const lines = [];
  for (const [scenario, checks] of [...results].sort()) {
    const failed = checks.filter((c) => c.status === "FAILURE");
    lines.push(`${failed.length ? "✗" : "✓"} ${scenario}: ${checks.length - failed.length} passed, ${failed.length} failed`);
    if (APPLY.includes(scenario)) {
      assert.deepEqual(failed.map((c) => `${c.id}: ${c.errorMessage}`), [], `${scenario} applies to any server and must pass`);
      continue;
    }
    for (const check of failed) {
      assert.match(check.errorMessage ?? "", NOT_HERE, `${scenario}: ${check.id} failed otherwise than "not served"`);
    }
  }
  for (const scenario of APPLY) assert.ok(results.has(scenario), `${scenario} was run`);
  console.log(lines.join("\n"));
});
