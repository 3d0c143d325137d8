// Logs of other agents (Claude Agent SDK stream-json, Codex CLI rollouts, Codex SDK events,
// Ollama chat captures, Pi, Gemini CLI, Qwen Code and Copilot CLI sessions, Amp threads, Aider
// histories, Cline and Roo Code task folders, Cursor CLI transcript folders) dropped one at a time on the page: the load summary says what each was
// read as, and the graph, the side panel and the statistics show the engine's figures for it.
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, ROOT, openApp, nextFrame, dropFiles, dropFolder, allTreeItems, tree, engineSummary, engineIndex, servedForTests } from "./harness.mjs";

const FORMATS = join(ROOT, "crates/engine/tests/fixtures/formats");
let server;
let browser;
servedForTests((site) => ({ server, browser } = site));

const summary = engineSummary;

const digits = (text) => Number(text.replace(/[^0-9]/g, ""));

// For each fixture: what the summary calls it, a sentence the assistant says, and a line of its
// reasoning (shown as thinking), if it has any.
const CASES = [
  {
    file: "agent-sdk-stream.jsonl",
    label: "Claude Agent SDK stream-json",
    says: "an empty brew now parses instead of panicking",
    thinking: null,
    rawField: '"parent_tool_use_id"',
    touched: "src/parser.rs",
    agents: 1,
    agent: { call: "Find empty-brew handling", type: "Explore", says: "ingredients.first().unwrap()" },
  },
  {
    file: "rollout-2025-10-02T10-11-12-0199a213-81c0-7800-8aa1-bbab2a035a53.jsonl",
    label: "Codex CLI rollout",
    says: "now prints the average rating",
    thinking: "Locating the stats command",
    rawField: '"payload"',
    touched: "src/stats.rs",
    agents: 0,
  },
  {
    file: "codex-sdk-events.jsonl",
    label: "Codex SDK events",
    says: "to brewlog stats. One test fails",
    thinking: "Planning the flag",
    rawField: '"item.completed"',
    touched: "src/cli.rs",
    agents: 0,
  },
  {
    file: "ollama-chat.jsonl",
    label: "Ollama chat capture",
    says: "Oatmeal Stout",
    thinking: "The ratings are 4, 5 and 3",
    rawField: '"created_at"',
    agents: 0,
  },
  {
    file: "pi-session.jsonl",
    label: "Pi session",
    says: "prints the brews as a JSON array",
    thinking: "I should look at the list command first",
    rawField: '"parentId"',
    touched: "src/list.rs",
    agents: 0,
  },
  {
    file: "session-2025-11-03T09-15-7c2e9a41.json",
    label: "Gemini CLI session",
    prompt: "Add a --verbose flag to the CLI",
    says: "I'll read the entry point first.",
    thinking: "The argument parser is probably",
    rawField: '"thoughts"',
    touched: "src/main.py",
    agents: 0,
  },
  {
    // The newer JSON Lines form: a metadata line, one message per line, `$set` updates and a
    // rewind (`$rewindTo`).
    file: "session-2026-02-10T14-00-b41c7d2e.jsonl",
    label: "Gemini CLI session",
    prompt: "Why does make test fail?",
    says: "on a value with a trailing newline",
    thinking: "Run the failing target",
    rawField: '"gemini-3-flash-preview"',
    agents: 0,
    // The branch shown is the one after the rewind: the cancelled replace is not on it.
    operationsShown: 1,
  },
  {
    file: "qwen-session.jsonl",
    label: "Qwen Code session",
    prompt: "List the TODOs in src/ and fix the first one.",
    says: "I'll search the sources.",
    thinking: "Looking for TODO comments first.",
    rawField: '"parts"',
    touched: "src/fetch.py",
    agents: 0,
    // The panel follows the branch shown (the latest, after the rewind): the cancelled
    // run_shell_command of the rewound branch is not on it.
    operationsShown: 2,
  },
  {
    file: "copilot-events.jsonl",
    label: "GitHub Copilot CLI session",
    says: "I'll ask a subagent to find the tests",
    thinking: "Let me look at the list command first",
    rawField: '"toolRequests"',
    touched: "src/list.rs",
    agents: 1,
    agent: { call: "Find list tests", type: "explore", says: "One test: tests/list.rs" },
  },
  {
    file: "T-7b1e2c3d-4f5a-4b6c-8d7e-9f0a1b2c3d4e.json",
    label: "Amp thread",
    prompt: "Rename load_config to read_config",
    says: "Let me look at the file.",
    thinking: "Read the file first.",
    rawField: '"messageId"',
    touched: "src/config.rs",
    agents: 0,
  },
];

for (const c of CASES) {
  test(`a dropped ${c.label} file shows its messages, tool operations and token figures`, async () => {
    const path = join(FORMATS, c.file);
    const engine = summary(path);
    assert.equal(engine.sessions.length, 1, "one session per fixture");
    const session = engine.sessions[0];

    const app = await openApp(browser, server);
    const page = app.page;
    await dropFiles(page, [{ name: c.file, bytes: readFileSync(path) }]);
    await tree(page).waitFor();

    // The load summary says what the file was read as, and accounts for its lines.
    const loadSummary = page.getByRole("region", { name: "Load summary" });
    await loadSummary.getByText(`Read as: ${c.label} (1 file)`).click();
    const fileRow = loadSummary.getByRole("table", { name: "Files read" }).getByRole("row").nth(1);
    const cells = await fileRow.getByRole("cell").allInnerTexts();
    assert.deepEqual(cells.slice(0, 2), [c.file, c.label]);
    assert.equal(digits(cells[2]), engine.lines, "every line of the file is counted");
    // Lines that cannot be read are counted as skipped, as the engine counts them (the Pi
    // fixture has a cut line).
    assert.equal(digits(cells[4]), engine.per_file[0].skipped, "skipped lines as the engine counts them");

    // The graph: the prompt, the answer, and the reasoning shown as thinking.
    // (Inline code in the prompt is rendered as code, without its backticks.)
    // (The title may be the agent's own summary, not the prompt: the prompt shows all the same.)
    const prompt = c.prompt ?? session.title.replace(/`/g, "");
    await tree(page).getByRole("treeitem").filter({ hasText: prompt }).first().waitFor();
    const items = await allTreeItems(page);
    assert.ok(items.some((i) => i.text.includes(c.says)), `the assistant's words show: ${c.says}`);
    if (c.thinking) {
      const thinking = items.find((i) => i.text.includes("Thinking ·"));
      assert.ok(thinking, "reasoning shows as thinking");
      const details = tree(page).getByRole("treeitem").filter({ hasText: "Thinking ·" }).first().locator("details.thinking").first();
      await details.locator("summary").click();
      assert.ok(
        (await tree(page).getByRole("treeitem").filter({ hasText: c.thinking }).count()) > 0,
        `the reasoning opens: ${c.thinking}`,
      );
    }
    // The raw view keeps every format-specific field reachable: R on the selected row.
    const said = tree(page).getByRole("treeitem").filter({ hasText: c.says }).first();
    await said.click();
    await page.keyboard.press("r");
    const raw = said.getByRole("group", { name: "Raw lines" });
    await raw.waitFor();
    const rawText = await raw.innerText();
    assert.match(rawText, new RegExp(`${c.file.replace(/[.]/g, "\\.")}:\\d+`), "the raw view names the file and line");
    assert.ok(rawText.includes(c.rawField), `the raw line shows ${c.rawField}`);
    await page.keyboard.press("r");
    await raw.waitFor({ state: "detached" });

    // Subagents (the Agent SDK's parent_tool_use_id) nest under their Task call.
    assert.equal(session.agents.length, c.agents);
    if (c.agent) {
      const items = tree(page).getByRole("treeitem");
      const task = items.filter({ hasText: c.agent.call }).first();
      await task.locator(".twisty").click();
      const agentRow = items.filter({ hasText: c.agent.type }).filter({ hasText: "messages" }).first();
      await agentRow.waitFor();
      const level = async (l) => Number(await l.getAttribute("aria-level"));
      assert.equal(await level(agentRow), (await level(task)) + 1, "the agent is a child of its Task call");
      await agentRow.locator(".twisty").click();
      await items.filter({ hasText: c.agent.says }).first().waitFor();
    }

    // The side panel: every tool operation the engine paired up.
    const operations = c.operationsShown ?? session.tool_results + session.unpaired_tool_uses;
    assert.ok(operations > 0, "the fixture has tool calls");
    const panel = page.getByRole("complementary", { name: "Tool operations" });
    await panel.getByRole("status").filter({ hasText: new RegExp(`^${operations} of ${operations} operations?$`) }).waitFor();
    // Files touched: the agent's own edit tools count (Codex apply_patch, file_change).
    if (c.touched) {
      await panel.getByRole("tab", { name: /Files touched/ }).click();
      await panel.getByText(c.touched, { exact: true }).first().waitFor();
      await panel.getByRole("tab", { name: /Operations/ }).click();
    }

    // Statistics: tokens and cost as the engine counts them.
    await page.getByRole("tab", { name: "Statistics" }).click();
    const row = await page.getByRole("table", { name: "Tokens per session" }).getByRole("row").nth(1).getByRole("cell").allInnerTexts();
    const u = session.usage_with_agents;
    assert.ok(u.input_tokens + u.output_tokens > 0, "the fixture has token counts");
    assert.deepEqual(row.slice(0, 4).map(digits), [u.input_tokens, u.output_tokens, u.cache_creation_input_tokens, u.cache_read_input_tokens]);
    // The page shows four decimals (rounded half up, where toFixed works on the binary value).
    const shown = Number(row[4].replace("$", ""));
    assert.ok(Math.abs(shown - session.cost_with_agents_usd) <= 0.00005 + 1e-12, `${row[4]} for ${session.cost_with_agents_usd}`);

    assert.deepEqual(app.errors, []);
    assert.deepEqual(app.foreignRequests(), []);
    await app.context.close();
  });
}

test("logs of several agents dropped together are indexed as a history: each session with its agent and the engine's figures, an unknown or empty file listed with its reason", async () => {
  // More sessions than one view shows: the files open as a history, as a folder of them would.
  const dir = mkdtempSync(join(tmpdir(), "sessionscope-formats-"));
  try {
    for (const c of CASES) writeFileSync(join(dir, c.file), readFileSync(join(FORMATS, c.file)));
    writeFileSync(join(dir, "metrics.jsonl"), '{"cpu":0.42,"mem":1024}\n{"cpu":0.40,"mem":1030}\n');
    writeFileSync(join(dir, "empty.jsonl"), "");
    const expected = engineIndex(dir);
    assert.ok(expected.sessions.length > 4, `more sessions than one view shows: ${expected.sessions.length}`);
    const app = await openApp(browser, server);
    const page = app.page;
    await dropFiles(page, readdirSync(dir).map((name) => ({ name, bytes: readFileSync(join(dir, name)) })));
    const history = page.getByRole("region", { name: "History" });
    await history.getByRole("status").filter({ hasText: /^Indexed / }).waitFor({ timeout: 60_000 });
    const options = await history.getByRole("listbox", { name: "Sessions" }).getByRole("option").allInnerTexts();
    assert.equal(options.length, expected.sessions.length, options.join("\n"));
    // Each session with its agent, its title, and the engine's cost.
    // (Two agents' fixtures share a title: a row is known by its title and its agent.)
    for (const row of expected.sessions) {
      const title = row.title || row.session_id;
      const shown = options.find((o) => o.startsWith(title.split("\n")[0].slice(0, 40)) && o.includes(`\n${row.agent} `));
      assert.ok(shown, `${row.agent}: ${title} is listed:\n${options.join("\n")}`);
      assert.ok(shown.includes(`$${row.cost_usd.toFixed(2)}`), `${title}: $${row.cost_usd.toFixed(2)}: ${shown}`);
    }
    // The files that hold no session, in one summary, each with the engine's reason.
    const problems = history.getByRole("region", { name: "Files not indexed" });
    await problems.getByText(/^2 files hold no session: 1 \S.*; 1 \S/).click();
    for (const name of ["metrics.jsonl", "empty.jsonl"]) {
      const reason = expected.problems.find((p) => p.path.endsWith(name))?.reason;
      assert.ok(reason, `the engine says why ${name} holds no session`);
      const item = problems.getByRole("listitem").filter({ hasText: name });
      assert.ok((await item.innerText()).includes(reason), `${name}: ${reason}`);
    }
    assert.deepEqual(app.errors, []);
    await app.context.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a dropped Aider chat history shows each run as a session, its edits as operations on the files they touch", async () => {
  const file = "demo.aider.chat.history.md";
  const path = join(FORMATS, file);
  const engine = summary(path);
  assert.equal(engine.sessions.length, 3, "three runs, three sessions");
  const session = engine.sessions.find((s) => s.title.startsWith("Add a --json flag"));

  const app = await openApp(browser, server);
  const page = app.page;
  await dropFiles(page, [{ name: file, bytes: readFileSync(path) }]);
  await tree(page).waitFor();
  const loadSummary = page.getByRole("region", { name: "Load summary" });
  await loadSummary.getByText("Read as: Aider chat history (1 file)").click();
  const cells = await loadSummary.getByRole("table", { name: "Files read" }).getByRole("row").nth(1).getByRole("cell").allInnerTexts();
  assert.deepEqual(cells.slice(0, 2), [file, "Aider chat history"]);
  assert.equal(digits(cells[2]), engine.lines, "every line of the file is counted");

  // One row per run in the sessions table; the run with the edits opens.
  const sessions = page.getByRole("region", { name: "Sessions" });
  assert.equal(await sessions.locator("tbody tr.session-row").count(), 3);
  await sessions.getByRole("button", { name: session.title }).click();
  await tree(page).getByRole("treeitem").filter({ hasText: "I'll add the flag and document it." }).first().waitFor();

  // SEARCH/REPLACE blocks are edits, answered by "Applied edit to".
  const operations = session.tool_results + session.unpaired_tool_uses;
  const panel = page.getByRole("complementary", { name: "Tool operations" });
  await panel.getByRole("status").filter({ hasText: `${operations} of ${operations} operations` }).waitFor();
  await panel.getByRole("tab", { name: /Files touched/ }).click();
  await panel.getByText("src/cli.py", { exact: true }).first().waitFor();
  await panel.getByText("README.md", { exact: true }).first().waitFor();

  assert.deepEqual(app.errors, []);
  await app.context.close();
});

// A Cline or Roo Code task is a folder of three JSON documents: dropped, it is one session.
const TASKS = [
  { dir: "saoudrizwan.claude-dev/tasks/1731400000000", label: "Cline task file", says: "src/main.rs" },
  { dir: "rooveterinaryinc.roo-cline/tasks/3f6d2a10-8c4b-4e7a-9d21-5b0c7e9f1a42", label: "Roo Code task file", says: "date" },
];

for (const task of TASKS) {
  test(`a dropped ${task.label.replace(" file", "")} folder is one session with its operations and the tokens of its UI messages`, async () => {
    const dir = join(ROOT, "crates/engine/tests/fixtures/tasks", task.dir);
    const engine = summary(dir);
    assert.equal(engine.sessions.length, 1, "the three files make one session");
    const session = engine.sessions[0];

    const app = await openApp(browser, server);
    const page = app.page;
    await dropFolder(page, dir);
    await tree(page).waitFor();
    const loadSummary = page.getByRole("region", { name: "Load summary" });
    await loadSummary.getByText(`Read as: ${task.label} (3 files)`).click();
    const rows = loadSummary.getByRole("table", { name: "Files read" }).getByRole("row");
    assert.equal(await rows.count(), 1 + 3, "a row per file of the task");

    await tree(page).getByRole("treeitem").filter({ hasText: session.title }).first().waitFor();
    // The editor's state appended to prompts is folded, not shown as headings.
    const environment = tree(page).locator("details.folded > summary", { hasText: "Environment details" });
    await environment.first().waitFor();
    assert.equal(await tree(page).getByRole("heading", { name: "VSCode Visible Files" }).count(), 0);
    const operations = session.tool_results + session.unpaired_tool_uses;
    const panel = page.getByRole("complementary", { name: "Tool operations" });
    await panel.getByRole("status").filter({ hasText: `${operations} of ${operations} operations` }).waitFor();

    await page.getByRole("tab", { name: "Statistics" }).click();
    const row = await page.getByRole("table", { name: "Tokens per session" }).getByRole("row").nth(1).getByRole("cell").allInnerTexts();
    const u = session.usage_with_agents;
    assert.deepEqual(row.slice(0, 4).map(digits), [u.input_tokens, u.output_tokens, u.cache_creation_input_tokens, u.cache_read_input_tokens]);
    assert.ok(Math.abs(Number(row[4].replace("$", "")) - session.cost_with_agents_usd) <= 0.00005 + 1e-12, row[4]);

    assert.deepEqual(app.errors, []);
    await app.context.close();
  });
}

// A Cursor CLI transcript is a folder: the main transcript and its subagents' in `subagents/`.
// Cursor records neither times, tokens nor (mostly) tool results: no call is flagged for that.
test("a dropped Cursor CLI transcript folder is one session, its subagents nested under the Task calls that name or prompt them", async () => {
  const transcripts = join(ROOT, "crates/engine/tests/fixtures/cursor/projects/home-dev-brewlog/agent-transcripts");
  const dir = join(transcripts, "5d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d");
  const engine = summary(dir);
  assert.equal(engine.sessions.length, 1, "the transcript and its subagents make one session");
  const session = engine.sessions[0];
  assert.equal(session.agents.length, 3);

  const app = await openApp(browser, server);
  const page = app.page;
  await dropFolder(page, dir);
  await tree(page).waitFor();
  const loadSummary = page.getByRole("region", { name: "Load summary" });
  await loadSummary.getByText("Read as: Cursor CLI agent transcript (4 files)").click();

  // The prompt shows without Cursor's <user_query> tags.
  const items = tree(page).getByRole("treeitem");
  await items.filter({ hasText: session.title }).first().waitFor();
  assert.equal(await items.filter({ hasText: "<user_query>" }).count(), 0, "the tags are not shown");

  // Both linked subagents are children of their Task calls.
  const level = async (l) => Number(await l.getAttribute("aria-level"));
  for (const agent of session.agents.filter((a) => a.spawn_tool_use_id)) {
    const task = items.filter({ hasText: agent.description }).first();
    await task.locator(".twisty").click();
    const agentRow = items.filter({ hasText: agent.agent_type }).filter({ hasText: new RegExp(`(?<!\\d)${agent.entries} message`) }).first();
    await agentRow.waitFor();
    assert.equal(await level(agentRow), (await level(task)) + 1, `${agent.description}: a child of its Task call`);
  }

  // Every operation the engine paired is in the panel; calls without results are not problems.
  const operations = session.tool_results + session.unpaired_tool_uses;
  const panel = page.getByRole("complementary", { name: "Tool operations" });
  await panel.getByRole("status").filter({ hasText: `${operations} of ${operations} operations` }).waitFor();
  assert.ok(!engine.validation.some((p) => p.rule === "call-has-result"), "no call is flagged for lacking a result");

  assert.deepEqual(app.errors, []);
  assert.deepEqual(app.foreignRequests(), []);
  await app.context.close();
});

// A Cline or Roo Code subtask is a task folder of its own. Dropped with the tasks folder that holds
// the task that spawned it (newer Roo Code names the parent in the subtask's history_item.json),
// it is one session: each subtask nested under the new_task call that spawned it, one level deeper.
test("a dropped Roo Code tasks folder is one session, each subtask a child of the new_task call that spawned it", async () => {
  const dir = join(ROOT, "crates/engine/tests/fixtures/tasks/subtasks/roo-delegation/rooveterinaryinc.roo-cline/tasks");
  const engine = summary(dir);
  assert.equal(engine.sessions.length, 1, "the parent and its subtasks make one session");
  const session = engine.sessions[0];
  assert.equal(session.agents.length, 3);
  const agent = (id) => session.agents.find((a) => a.agent_id === id);
  const child = agent("5e1f2a3b-4c5d-4e6f-9a0b-1c2d3e4f5a6b");
  const grandchild = agent("7a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d");
  assert.equal(child.spawn_tool_use_id, "call_nt1");
  assert.equal(grandchild.spawn_tool_use_id, "call_nt2");

  const app = await openApp(browser, server);
  const page = app.page;
  await dropFolder(page, dir);
  await tree(page).waitFor();
  const loadSummary = page.getByRole("region", { name: "Load summary" });
  await loadSummary.getByText("Read as: Roo Code task file (12 files)").click();

  const items = tree(page).getByRole("treeitem");
  await items.filter({ hasText: session.title }).first().waitFor();
  const level = async (l) => Number(await l.getAttribute("aria-level"));
  const open = async (row) => {
    await row.waitFor();
    if ((await row.getAttribute("aria-expanded")) === "false") await row.locator(".twisty").click();
  };
  // The parent's new_task call, and under it, one level deeper, the subtask's conversation.
  const call = items.filter({ hasText: `${child.description} (code)` }).first();
  await open(call);
  const childRow = items.filter({ hasText: child.description }).filter({ hasText: new RegExp(`(?<!\\d)${child.entries} message`) }).first();
  await childRow.waitFor();
  assert.equal(await level(childRow), (await level(call)) + 1, "the subtask is a child of its new_task call");
  // Inside it, its own new_task call, and under that its own subtask, one level deeper again.
  await open(childRow);
  const innerCall = items.filter({ hasText: `${grandchild.description} (code)` }).first();
  await open(innerCall);
  assert.ok((await level(innerCall)) > (await level(childRow)), "the subtask's call is inside the subtask");
  const grandchildRow = items
    .filter({ hasText: grandchild.description })
    .filter({ hasText: new RegExp(`(?<!\\d)${grandchild.entries} message`) })
    .first();
  await grandchildRow.waitFor();
  assert.equal(await level(grandchildRow), (await level(innerCall)) + 1, "a subtask of a subtask, under its call");
  // The subtask no call names is shown on its own, never dropped.
  const all = await allTreeItems(page);
  assert.equal(all.filter((row) => row.text.includes("not linked to a spawning call")).length, 1);

  // Every subtask's tokens are in the session's statistics.
  await page.getByRole("tab", { name: "Statistics" }).click();
  const row = await page.getByRole("table", { name: "Tokens per session" }).getByRole("row").nth(1).getByRole("cell").allInnerTexts();
  const u = session.usage_with_agents;
  assert.deepEqual(row.slice(0, 4).map(digits), [u.input_tokens, u.output_tokens, u.cache_creation_input_tokens, u.cache_read_input_tokens]);

  assert.deepEqual(app.errors, []);
  assert.deepEqual(app.foreignRequests(), []);
  await app.context.close();
});

test("sharing a Pi session without its thinking keeps its file; an Ollama capture's is left out whole, and the note is gone when nothing is left out", async () => {
  for (const { file, note } of [
    { file: "pi-session.jsonl", note: null },
    { file: "ollama-chat.jsonl", note: "Files read as Ollama chat capture are left out whole" },
  ]) {
    const app = await openApp(browser, server);
    const page = app.page;
    await dropFiles(page, [{ name: file, bytes: readFileSync(join(FORMATS, file)) }]);
    await tree(page).waitFor();
    await page.getByRole("button", { name: "Share…" }).click();
    const dialog = page.getByRole("dialog", { name: "Share, redacted" });
    await dialog.waitFor();
    const notes = dialog.getByRole("note").filter({ hasText: "left out whole" });
    assert.equal(await notes.count(), 0, `${file}: nothing is left out yet`);
    await dialog.getByRole("checkbox", { name: "Thinking" }).check();
    if (note) {
      await notes.filter({ hasText: note }).waitFor();
    } else {
      // Pi's thinking is taken out of its lines: the file is shared, no note says otherwise (the
      // note follows the box in the same update, on screen by the next frame).
      await nextFrame(page);
      assert.equal(await notes.count(), 0, `${file}: its thinking can be taken out`);
    }
    await dialog.getByRole("checkbox", { name: "Thinking" }).uncheck();
    await notes.first().waitFor({ state: "detached" });
    assert.deepEqual(app.errors, []);
    await app.context.close();
  }
});
