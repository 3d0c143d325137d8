// `sessionscope mcp` spoken to by a real MCP client: the official TypeScript SDK's `Client` over
// its stdio transport, as Claude Code, Codex or Cursor would start it. A folder of the project's
// own sessions (one of them with a planted AWS key) is served; the tools are listed and each is
// called, and the answers are checked against `sessionscope index --json` and `search --json` on
// the same folder; the key leaves the server only with `--no-redact`.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const SESSIONS = join(ROOT, "tests/fixtures/sessions");
const BINARY = join(ROOT, "target/debug/sessionscope");
const KEY = "AKIAZ7Q4XW2RT6LMVBN3";
const SECRET_SESSION = "5e55e5e5-0000-4000-8000-00000000beef";
let folder;
/** The environment of every run: what they remember is kept in the test's folder. */
let env;

/** `sessionscope <args…>` as JSON, from the binary the server runs. */
function cli(...args) {
  return JSON.parse(execFileSync(BINARY, args, { maxBuffer: 1 << 26, env }).toString());
}

before(() => {
  execFileSync("cargo", ["build", "--quiet", "-p", "sessionscope-engine", "--bin", "sessionscope"], { cwd: ROOT, stdio: "inherit" });
  folder = mkdtempSync(join(tmpdir(), "sessionscope-mcp-client-"));
  env = { ...process.env, SESSIONSCOPE_CACHE_DIR: `${folder}.cache` };
  const kettle = readFileSync(join(SESSIONS, "kettle-rename.jsonl"), "utf8");
  mkdirSync(join(folder, "-home-dev-kettle"));
  writeFileSync(join(folder, "-home-dev-kettle/kettle-rename.jsonl"), kettle);
  writeFileSync(join(folder, "-home-dev-kettle/coloured-test-run.jsonl"), readFileSync(join(SESSIONS, "coloured-test-run.jsonl"), "utf8"));
  mkdirSync(join(folder, "-home-dev-vault"));
  const secret = kettle
    .replaceAll("5e550000-0000-4000-8000-00000000beef", SECRET_SESSION)
    .replace("Please rename the `brew` function to `steep` in kettle.", `Deploy with the key ${KEY}, then rename brew.`);
  writeFileSync(join(folder, "-home-dev-vault/vault.jsonl"), secret);
});

after(() => {
  rmSync(folder, { recursive: true, force: true });
  rmSync(`${folder}.cache`, { recursive: true, force: true });
});

async function connect(...flags) {
  const client = new Client({ name: "sessionscope-test", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: BINARY, args: ["mcp", ...flags, folder], env, stderr: "ignore" }));
  return client;
}

/** A tool's answer: its text, and that text read as JSON where it is JSON. */
async function call(client, name, args = {}) {
  const result = await client.callTool({ name, arguments: args });
  assert.ok(!result.isError, `${name} answered an error: ${JSON.stringify(result.content)}`);
  const text = result.content.map((c) => c.text ?? "").join("\n");
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {}
  return { text, json };
}

test("the official client lists the tools and each answers as the command line does, with the key redacted", async () => {
  const client = await connect();
  try {
    assert.equal(client.getServerVersion()?.name.includes("sessionscope"), true, JSON.stringify(client.getServerVersion()));
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ["list_projects", "list_sessions", "read_session", "search", "usage"]);
    for (const tool of tools) {
      assert.ok(tool.description && tool.description.length > 20, `${tool.name} says what it does`);
      assert.equal(tool.inputSchema.type, "object", `${tool.name} has a JSON schema`);
    }
    const answers = [];

    const index = cli("index", "--json", folder);
    const sessions = await call(client, "list_sessions");
    answers.push(sessions.text);
    assert.equal(sessions.json.total, index.sessions.length);
    assert.deepEqual(sessions.json.sessions.map((s) => s.session_id).sort(), index.sessions.map((s) => s.session_id).sort());

    const projects = await call(client, "list_projects");
    answers.push(projects.text);
    assert.equal(projects.json.total, new Set(index.sessions.map((s) => s.project)).size);

    // Ranked: the sessions, ranks and scores of `search --json`.
    const search = await call(client, "search", { query: "steep brew" });
    answers.push(search.text);
    const expected = cli("search", "--json", "steep brew", folder);
    assert.ok(expected.total > 0);
    assert.equal(search.json.total, expected.total);
    const ranked = (found) => found.results.map((r) => [r.session_id, r.rank, r.score]);
    assert.deepEqual(ranked(search.json), ranked(expected));
    // Every match of an exact text: the hits of `search --json --exact`.
    const exact = await call(client, "search", { query: "steep", exact: true });
    answers.push(exact.text);
    const hits = cli("search", "--json", "--exact", "steep", folder);
    assert.equal(exact.json.total, hits.total);
    assert.deepEqual([...new Set(exact.json.hits.map((h) => h.session_id))].sort(), [...new Set(hits.hits.map((h) => h.session_id))].sort());

    const read = await call(client, "read_session", { session_id: "5e550000-0000-4000-8000-00000000beef" });
    answers.push(read.text);
    assert.match(read.text, /Please rename the `brew` function to `steep` in kettle\./);

    const secret = await call(client, "read_session", { session_id: SECRET_SESSION });
    answers.push(secret.text);
    assert.match(secret.text, /Deploy with the key /);
    answers.push((await call(client, "search", { query: "Deploy with the key" })).text);
    answers.push((await call(client, "search", { query: "Deploy with the key", exact: true })).text);
    answers.push((await call(client, "usage")).text);

    const { resourceTemplates } = await client.listResourceTemplates();
    assert.ok(resourceTemplates.some((t) => t.uriTemplate.startsWith("sessionscope://session/")));
    const resource = await client.readResource({ uri: `sessionscope://session/${SECRET_SESSION}` });
    answers.push(resource.contents.map((c) => c.text).join("\n"));

    for (const answer of answers) assert.ok(!answer.includes(KEY), `the key left the server: ${answer.slice(0, 200)}`);
  } finally {
    await client.close();
  }
});

test("with --no-redact the same client gets the key", async () => {
  const client = await connect("--no-redact");
  try {
    const secret = await call(client, "read_session", { session_id: SECRET_SESSION });
    assert.ok(secret.text.includes(KEY));
  } finally {
    await client.close();
  }
});
