// OpenCode's older JSON storage dropped on the page: the storage folder
// (crates/engine/tests/fixtures/opencode/storage, laid out as ~/.local/share/opencode/storage)
// is a history of its sessions, one row each with its child session inside; the root session
// opens with its prompt, its tool calls and their results, its subagent under the task call, the
// files a step changed as a note, the panel's count and the statistics of `sessionscope summary
// --json` of the same folder. A folder of the older layout (0.5.x) holding one session opens
// in the viewer at once.
import assert from "node:assert/strict";
import { join } from "node:path";
import { test, ROOT, openApp, dropFolder, tree, engineSummary, engineIndex, servedForTests } from "./harness.mjs";

const OPENCODE = join(ROOT, "crates/engine/tests/fixtures/opencode");
const STORAGE = join(OPENCODE, "storage");
const LEGACY = join(OPENCODE, "project");
let server;
let browser;
servedForTests((site) => ({ server, browser } = site));

const digits = (text) => Number(text.replace(/[^0-9]/g, ""));

/** The statistics tab's row of the session shown: tokens and cost as the engine counts them. */
async function assertStatistics(page, session) {
  await page.getByRole("tab", { name: "Statistics" }).click();
  const row = await page.getByRole("table", { name: "Tokens per session" }).getByRole("row").nth(1).getByRole("cell").allInnerTexts();
  const u = session.usage_with_agents;
  assert.ok(u.input_tokens + u.output_tokens > 0, "the fixture has token counts");
  assert.deepEqual(row.slice(0, 4).map(digits), [u.input_tokens, u.output_tokens, u.cache_creation_input_tokens, u.cache_read_input_tokens]);
  const shown = Number(row[4].replace("$", ""));
  assert.ok(Math.abs(shown - session.cost_with_agents_usd) <= 0.00005 + 1e-12, `${row[4]} for ${session.cost_with_agents_usd}`);
}

test("a dropped OpenCode storage folder lists each session once, and its root session opens with its tools, subagent, notes and the engine's figures", async () => {
  const engine = engineSummary(STORAGE);
  const index = engineIndex(STORAGE);
  assert.equal(index.sessions.length, 2, "the child session is no row of its own");
  const session = engine.sessions.find((s) => s.session_id === "ses_root");
  const row = index.sessions.find((s) => s.session_id === "ses_root");

  const app = await openApp(browser, server);
  const page = app.page;
  await dropFolder(page, STORAGE);
  const history = page.getByRole("region", { name: "History" });
  await history.getByRole("status").filter({ hasText: /^Indexed / }).waitFor({ timeout: 60_000 });
  const sessions = history.getByRole("listbox", { name: "Sessions" });
  assert.equal(await sessions.getByRole("option").count(), index.sessions.length);
  // The project file holds no session, and says so; the cut part is its session's problem.
  const problems = history.getByRole("region", { name: "Files not indexed" });
  await problems.getByText("1 file holds no session").click();
  await problems.getByText("storage/project/prj_1.json").waitFor();

  await sessions.getByRole("option").filter({ hasText: "Fix the parser" }).first().click();
  const items = tree(page).getByRole("treeitem");
  await items.filter({ hasText: "Fix the parser bug in src/parse.rs" }).first().waitFor({ timeout: 30_000 });

  // Only the session's files were read: its storage files, and the records made of them.
  const loadSummary = page.getByRole("region", { name: "Load summary" });
  await loadSummary.getByText(`Read as: OpenCode storage file (${row.files.length} files), OpenCode storage, as records (1 file)`).click();
  const cut = loadSummary.getByRole("table", { name: "Files read" }).getByRole("row").filter({ hasText: "prt_a1_11.json" });
  assert.equal(digits((await cut.getByRole("cell").allInnerTexts())[4]), 6, "the cut part's lines are skipped");

  // A tool call with its result, and the failed one with its error.
  const call = (name) => items.filter({ has: page.locator(".tool-name", { hasText: new RegExp(`^${name}$`) }) }).first();
  await call("read").locator(".twisty").click();
  await call("read").filter({ hasText: "fn parse() {}" }).waitFor();
  await call("bash").locator(".twisty").click();
  await call("bash").filter({ hasText: "Command failed: exit status 101" }).waitFor();

  // The child session, nested under the task call that spawned it.
  const agent = session.agents[0];
  const task = items.filter({ hasText: agent.description }).first();
  await task.locator(".twisty").click();
  const agentRow = items.filter({ hasText: agent.agent_type }).filter({ hasText: `${agent.entries} messages` }).first();
  await agentRow.waitFor();
  const level = async (l) => Number(await l.getAttribute("aria-level"));
  assert.equal(await level(agentRow), (await level(task)) + 1, "the subagent is a child of its task call");
  await agentRow.locator(".twisty").click();
  await items.filter({ hasText: "parse is called from src/main.rs" }).first().waitFor();

  // The patch and the snapshot: notes in the conversation.
  await items.filter({ hasText: "1 file changed by this step" }).filter({ hasText: "/home/u/app/src/parse.rs" }).first().waitFor();
  await items.filter({ hasText: "Checkpoint" }).filter({ hasText: "4b825dc" }).first().waitFor();

  // The raw lines behind the answer: its message's record, which names its file.
  const answer = items.filter({ hasText: "Fixed: the last line is kept now." }).first();
  await answer.click();
  await page.keyboard.press("r");
  const raw = answer.getByRole("group", { name: "Raw lines" });
  await raw.waitFor();
  const rawText = await raw.innerText();
  assert.match(rawText, /opencode-storage\.jsonl:\d+/, "the raw view names the records and the line");
  assert.ok(rawText.includes("message/ses_root/msg_a1.json"), "the record names its storage file");
  await page.keyboard.press("r");

  // The side panel: every operation the engine paired, notes not among them.
  const operations = session.tool_results + session.unpaired_tool_uses;
  assert.equal(operations, 4);
  const panel = page.getByRole("complementary", { name: "Tool operations" });
  await panel.getByRole("status").filter({ hasText: `${operations} of ${operations} operations` }).waitFor();

  await assertStatistics(page, session);
  assert.deepEqual(app.errors, []);
  assert.deepEqual(app.foreignRequests(), []);
  await app.context.close();
});

test("a dropped folder of OpenCode's 0.5.x layout holding one session opens it at once", async () => {
  const engine = engineSummary(LEGACY);
  assert.equal(engine.sessions.length, 1);
  const session = engine.sessions[0];

  const app = await openApp(browser, server);
  const page = app.page;
  await dropFolder(page, LEGACY);
  const items = tree(page).getByRole("treeitem");
  await items.filter({ hasText: "List the TODO comments in src/" }).first().waitFor({ timeout: 30_000 });
  await items.filter({ hasText: "One TODO: src/lib.rs line 12" }).first().waitFor();
  const operations = session.tool_results + session.unpaired_tool_uses;
  const panel = page.getByRole("complementary", { name: "Tool operations" });
  await panel.getByRole("status").filter({ hasText: new RegExp(`^${operations} of ${operations} operations?$`) }).waitFor();
  await assertStatistics(page, session);
  assert.deepEqual(app.errors, []);
  await app.context.close();
});
