// Every agent's logs, each where its agent keeps them under one home folder, dropped on the
// page at once: the history indexes them in one pass, names each session's agent, and lists
// the sessions, messages, tool calls and costs `sessionscope index --json` lists for the same
// folder. The two databases (OpenCode's, Cursor's) are built here from the project's SQL
// fixtures with sqlite-wasm in Node; the rest are the project's own format fixtures.
import { before, after } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import sqlite3InitModule from "@sqlite.org/sqlite-wasm";
import { test, ROOT, openApp, dropFolder, tree, engineIndex, databaseOf, servedForTests } from "./harness.mjs";

const FIXTURES = join(ROOT, "crates/engine/tests/fixtures");
let server;
let browser;
servedForTests((site) => ({ server, browser } = site));
let dir;
let home;

/** Copies a fixture file or folder to `to`, making the folders on the way. */
function place(fixture, to) {
  cpSync(join(FIXTURES, fixture), to, { recursive: true });
}

/** The layout of `every_agent_s_logs_in_their_own_folders_index_in_one_pass` (crates/engine/tests/history.rs). */
async function makeHome(root) {
  const at = (fixture, where) => place(fixture, join(root, where));
  at("every-line-type.jsonl", ".claude/projects/-home-dev-brewlog/every-line-type.jsonl");
  const rollout = "rollout-2025-10-02T10-11-12-0199a213-81c0-7800-8aa1-bbab2a035a53.jsonl";
  at(`formats/${rollout}`, `.codex/sessions/2025/10/02/${rollout}`);
  at("formats/codex-sdk-events.jsonl", "scripts/codex-sdk-events.jsonl");
  at("formats/agent-sdk-stream.jsonl", "scripts/agent-sdk-stream.jsonl");
  at("formats/ollama-chat.jsonl", "scripts/ollama-chat.jsonl");
  at("formats/pi-session.jsonl", ".pi/agent/sessions/--home-dev-brewlog--/pi-session.jsonl");
  const gemini = ".gemini/tmp/9d8c7b6a5f4e3d2c1b0a99887766554433221100ffeeddccbbaa998877665544/chats";
  at("formats/session-2025-11-03T09-15-7c2e9a41.json", `${gemini}/session-2025-11-03T09-15-7c2e9a41.json`);
  at("formats/session-2026-02-10T14-00-b41c7d2e.jsonl", `${gemini}/session-2026-02-10T14-00-b41c7d2e.jsonl`);
  at("formats/qwen-session.jsonl", ".qwen/projects/-home-dev-fetcher/chats/qwen-session.jsonl");
  at("formats/copilot-events.jsonl", ".copilot/session-state/0f3c2b1a/events.jsonl");
  const amp = "T-7b1e2c3d-4f5a-4b6c-8d7e-9f0a1b2c3d4e.json";
  at(`formats/${amp}`, `.local/share/amp/threads/${amp}`);
  at("formats/demo.aider.chat.history.md", "code/brewlog/.aider.chat.history.md");
  const storage = ".config/Code/User/globalStorage";
  at("tasks/saoudrizwan.claude-dev", `${storage}/saoudrizwan.claude-dev`);
  at("tasks/rooveterinaryinc.roo-cline", `${storage}/rooveterinaryinc.roo-cline`);
  at("cursor/projects", ".cursor/projects");
  const sqlite3 = await sqlite3InitModule();
  for (const [sql, where] of [
    ["opencode/opencode.sql", ".local/share/opencode/opencode.db"],
    ["cursor/state.sql", ".config/Cursor/User/globalStorage/state.vscdb"],
  ]) {
    mkdirSync(dirname(join(root, where)), { recursive: true });
    writeFileSync(join(root, where), databaseOf(sqlite3, readFileSync(join(FIXTURES, sql), "utf8")));
  }
}

/** What a session's row says of it, as the engine's figures: messages, tool calls, cost. */
const facts = (messages, tools, failed, cost) => `${messages} msgs · ${tools} tools (${failed} failed) · $${cost}`;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "sessionscope-agents-"));
  home = join(dir, "home");
  await makeHome(home);
});

after(async () => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("every agent's folders under one home are indexed in one pass, each session with its agent and the command line's figures", async () => {
  const expected = engineIndex(home);
  assert.deepEqual(expected.problems, [], "the command line reads every file");
  const byAgent = new Map();
  for (const row of expected.sessions) {
    const rows = byAgent.get(row.agent) ?? [];
    rows.push(facts(row.messages, row.tool_calls, row.failed_tool_calls, row.cost_usd.toFixed(2)));
    byAgent.set(row.agent, rows);
  }
  assert.equal(byAgent.size, 15, `every agent: ${[...byAgent.keys()].join(", ")}`);

  const app = await openApp(browser, server);
  const page = app.page;
  await dropFolder(page, home);
  const history = page.getByRole("region", { name: "History" });
  await history.getByRole("status").filter({ hasText: /^Indexed / }).waitFor({ timeout: 60_000 });
  const sessions = history.getByRole("listbox", { name: "Sessions" });
  assert.equal(await sessions.getByRole("option").count(), expected.sessions.length, "every session the command line indexes");

  // The agent filter names every agent, and each lists the sessions the engine gives it.
  const agentFilter = history.getByRole("combobox", { name: "Agent" });
  const offered = (await agentFilter.getByRole("option").allInnerTexts()).filter((a) => a !== "Every agent");
  assert.deepEqual(offered.sort(), [...byAgent.keys()].sort());
  for (const [agent, rows] of byAgent) {
    await agentFilter.selectOption(agent);
    await page.waitForFunction(
      ([n]) => document.querySelectorAll('[role="listbox"][aria-label="Sessions"] [role="option"]').length === n,
      [rows.length],
    );
    const shown = [];
    for (const text of await sessions.getByRole("option").allInnerTexts()) {
      assert.ok(text.includes(agent), `${agent}'s row names it: ${text}`);
      const m = text.match(/(\d+) messages? · (\d+) tool calls?(?: \((\d+) failed\))? · .* tokens? · \$([\d.]+)/);
      assert.ok(m, `a row's figures: ${text}`);
      shown.push(facts(m[1], m[2], m[3] ?? 0, m[4]));
    }
    assert.deepEqual(shown.sort(), [...rows].sort(), `${agent}: messages, tool calls, failed calls and cost of each session`);
  }
  const problems = await history.getByRole("region", { name: "Files not indexed" }).count();
  assert.equal(problems, 0, "no file is listed as holding no session");

  // A session of a database opens on demand from the same history.
  await agentFilter.selectOption("OpenCode");
  await sessions.getByRole("option").first().click();
  await tree(page).getByRole("treeitem").first().waitFor({ timeout: 30_000 });
  assert.deepEqual(app.errors, []);
  assert.deepEqual(app.foreignRequests(), []);
  await app.context.close();
});
