// The side panel, search, graph filters and statistics in a real browser, checked against
// the engine's own figures (`sessionscope summary --json` on the same files).
import assert from "node:assert/strict";
import { join } from "node:path";
import { test, ROOT, openApp, dropFiles, dropFolder, realFixture, allTreeItems, tree, inView, engineSummary, servedForTests } from "./harness.mjs";

const EXAMPLE = join(ROOT, "assets/example");
const EXAMPLE_SESSION = "e3a1c0de-7b2f-4c59-9d41-5f0e8a6b2c17";
let server;
let browser;
servedForTests((site) => ({ server, browser } = site));

const summary = engineSummary;

const panel = (page) => page.getByRole("complementary", { name: "Tool operations" });
const digits = (text) => Number(text.replace(/[^0-9]/g, ""));

/** Every row of the operations list, scrolling it (it is virtualized). */
async function panelRows(page) {
  return page.evaluate(async () => {
    const scroller = document.querySelector(".panel-scroll");
    const rows = new Map();
    scroller.scrollTop = 0;
    for (let guard = 0; guard < 1000; guard++) {
      await new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)));
      for (const row of document.querySelectorAll(".panel-row")) {
        // Trimmed: WebKit's innerText begins with a line break where a block comes first.
        rows.set(parseFloat(row.style.top), { group: row.classList.contains("panel-group"), text: row.innerText.trim() });
      }
      if (scroller.scrollTop + scroller.clientHeight >= scroller.scrollHeight - 1) break;
      scroller.scrollTop += scroller.clientHeight * 0.8;
    }
    return [...rows.entries()].sort((a, b) => a[0] - b[0]).map(([, r]) => r);
  });
}

async function checkAgainstEngine(page, dir, sessionId) {
  const all = summary(dir);
  const engine = all.sessions.find((s) => s.session_id === sessionId);
  assert.ok(engine, `the engine knows session ${sessionId}`);
  // Operations: every call, and every result without a call.
  const operations = engine.tool_results + engine.unpaired_tool_uses;
  await panel(page).getByRole("status").filter({ hasText: `${operations} of ${operations} operations` }).waitFor();
  const rows = await panelRows(page);
  assert.equal(rows.filter((r) => !r.group).length, operations);
  // Statistics: the session's tokens and cost with its agents.
  await page.getByRole("tab", { name: "Statistics" }).click();
  const table = page.getByRole("table", { name: "Tokens per session" });
  const cells = await table.getByRole("row").nth(1).getByRole("cell").allInnerTexts();
  const u = engine.usage_with_agents;
  assert.deepEqual(cells.slice(0, 4).map(digits), [u.input_tokens, u.output_tokens, u.cache_creation_input_tokens, u.cache_read_input_tokens]);
  assert.equal(Number(cells[4].replace("$", "")).toFixed(4), engine.cost_with_agents_usd.toFixed(4));
  // Per agent: the engine's agents, each with its tokens.
  const agents = await page.getByRole("table", { name: "Tokens per agent" }).getByRole("row").allInnerTexts();
  // The heading, the main thread, and one row per agent.
  assert.equal(agents.length, 2 + engine.agents.length);
  for (const agent of engine.agents) {
    const row = agents.find((r) => r.includes(agent.agent_id));
    assert.ok(row, `agent ${agent.agent_id} is listed`);
    const numbers = row.split("\t").slice(1, 5).map(digits);
    assert.deepEqual(numbers, [agent.usage.input_tokens, agent.usage.output_tokens, agent.usage.cache_creation_input_tokens, agent.usage.cache_read_input_tokens]);
  }
  // Over everything loaded: the engine's rows per model and per tool, in its order.
  await page.getByRole("tab", { name: "Everything loaded" }).click();
  await page.getByRole("tab", { name: "Everything loaded", selected: true }).waitFor();
  const models = (await page.getByRole("table", { name: "Tokens per model" }).getByRole("row").allInnerTexts()).slice(1);
  assert.equal(models.length, all.per_model.length, `models: ${models.join(" | ")}`);
  for (const [i, model] of all.per_model.entries()) {
    const cells = models[i].split("\t");
    assert.equal(cells[0], `${model.model} (${model.responses} responses)`);
    const u = model.usage;
    assert.deepEqual(cells.slice(1, 5).map(digits), [u.input_tokens, u.output_tokens, u.cache_creation_input_tokens, u.cache_read_input_tokens]);
    assert.equal(cells[5], model.cost_usd === null ? "no price" : `$${model.cost_usd.toFixed(4)}`);
  }
  const tools = (await page.getByRole("table", { name: "Tool usage" }).getByRole("row").allInnerTexts()).slice(1);
  assert.equal(tools.length, all.per_tool.length, `tools: ${tools.join(" | ")}`);
  for (const [i, tool] of all.per_tool.entries()) {
    const cells = tools[i].split("\t");
    assert.deepEqual([cells[0], digits(cells[1]), digits(cells[2]), digits(cells[4])], [tool.tool, tool.calls, tool.errors, tool.interrupted]);
    const rate = tool.calls > 0 ? (tool.errors * 100) / tool.calls : 0;
    assert.ok(Math.abs(parseFloat(cells[3]) - rate) <= 0.05 + 1e-9, `${tool.tool}: error rate ${cells[3]}, engine ${rate}`);
    assert.equal(cells[5] === "-", tool.average_ms === null, `${tool.tool}: average ${cells[5]}`);
  }
  await page.getByRole("tab", { name: "This session" }).click();
}

test("the panel lists the engine's tool operations and the statistics equal its figures (example)", async () => {
  // The example's own figures, counted from its files: 13 tool calls, each with its result (12
  // in the main file, the subagent's Grep); tokens summed over the 14 API responses of the main
  // file and the 2 of the subagent (lines of one response share its message id).
  const engine = summary(EXAMPLE).sessions.find((s) => s.session_id === EXAMPLE_SESSION);
  assert.equal(engine.tool_results + engine.unpaired_tool_uses, 13);
  const tokens = (u) => [u.input_tokens, u.output_tokens, u.cache_creation_input_tokens, u.cache_read_input_tokens];
  assert.deepEqual(tokens(engine.usage), [42, 7772, 29775, 214005]);
  assert.deepEqual(tokens(engine.usage_with_agents), [48, 8919, 34997, 224465]);
  assert.deepEqual(engine.agents.map((a) => [a.agent_id, ...tokens(a.usage)]), [["a7e5d21", 6, 1147, 5222, 10460]]);
  const app = await openApp(browser, server);
  await app.page.getByRole("button", { name: "Open example" }).click();
  await checkAgainstEngine(app.page, EXAMPLE, EXAMPLE_SESSION);
  // The statistics, whole: the costs are Opus 4.6 at $5 / $25 per million input / output
  // tokens, $10 for its one-hour cache writes and $0.50 for cache reads, and Haiku 4.5 (the
  // subagent) at $1 / $5, $2 and $0.10.
  assert.deepEqual(await app.page.getByRole("table", { name: "Tokens per session" }).getByRole("row").allInnerTexts(), [
    "Session\tInput\tOutput\tCache write\tCache read\tCost",
    "Fix integer division rounding in tinycalc\t48\t8,919\t34,997\t224,465\t$0.6165",
  ]);
  assert.deepEqual(await app.page.getByRole("table", { name: "Tokens per agent" }).getByRole("row").allInnerTexts(), [
    "Conversation\tInput\tOutput\tCache write\tCache read\tCost",
    "main thread\t42\t7,772\t29,775\t214,005\t$0.5993",
    "a7e5d21 (Explore)\t6\t1,147\t5,222\t10,460\t$0.0172",
  ]);
  // The chart of the session, as an image with a description: three prompts (the first, and
  // one on each branch of the rewind); the first turn's ten responses add up to 196,356
  // tokens, and it took 48 s (its turn_duration line).
  await app.page
    .getByRole("img", { name: "Tokens per turn (3 turns, at most 196,356 tokens) and turn durations (at most 48 s)", exact: true })
    .waitFor();
  assert.deepEqual(app.errors, []);
  await app.context.close();
});

test("the panel and statistics equal the engine's figures on a real project", async (t) => {
  const dir = realFixture(t, "compaction-2.1.39");
  if (!dir) return;
  const app = await openApp(browser, server);
  await dropFolder(app.page, dir);
  await panel(app.page).waitFor();
  await checkAgainstEngine(app.page, dir, "258c7280-ae70-4798-800f-63464d01a85d");
  assert.deepEqual(app.errors, []);
  await app.context.close();
});

test("clicking an operation shows it in the graph, inside its subagent", async () => {
  const app = await openApp(browser, server);
  await app.page.getByRole("button", { name: "Open example" }).click();
  // The subagent's Grep, nested under the Task call in the panel.
  const op = panel(app.page).getByRole("button", { name: /^Grep div_euclid\|rem_euclid/ });
  await op.click();
  const selected = tree(app.page).locator("[role=treeitem][aria-selected=true]");
  await selected.waitFor();
  assert.equal(await selected.count(), 1);
  assert.match(await selected.innerText(), /^▸\nGrep\ndiv_euclid\|rem_euclid\|checked_div\|\[\^\/\]\/\[\^\/\]\|% in src\nok\n/);
  // Scrolled into the tree's view, not only drawn.
  assert.ok(await inView(selected), "the selected row is inside the tree's visible area");
  // Its ancestors opened: the compaction marker (1), the assistant message (2), the Task call
  // (3), the agent (4) and the agent's message (5) that made the Grep call (6).
  assert.equal(Number(await selected.getAttribute("aria-level")), 6);
  // Selecting a row in the graph highlights its operations in the panel: the Grep call's one
  // operation, the one clicked.
  const highlighted = panel(app.page).locator(".panel-op.highlighted, .panel-op.selected");
  assert.equal(await highlighted.count(), 1);
  assert.match((await highlighted.innerText()).trim(), /^Grep\ndiv_euclid\|rem_euclid/);
  await app.context.close();
});

test("filters narrow the panel, with counts per filter", async () => {
  const app = await openApp(browser, server);
  await app.page.getByRole("button", { name: "Open example" }).click();
  const p = panel(app.page);
  await p.getByRole("status").filter({ hasText: "13 of 13 operations" }).waitFor();
  await p.getByRole("button", { name: /^edit 3$/ }).click();
  await p.getByRole("status").filter({ hasText: "3 of 13 operations" }).waitFor();
  const rows = (await panelRows(app.page)).filter((r) => !r.group);
  assert.deepEqual(rows.map((r) => r.text.split(/\s+/)[0]).sort(), ["Edit", "Edit", "Write"]);
  await p.getByRole("button", { name: "Clear filters" }).click();
  await p.getByLabel("Status").selectOption("error");
  await p.getByRole("status").filter({ hasText: "1 of 13 operations" }).waitFor();
  // The files the operations listed touched.
  await p.getByLabel("Status").selectOption("");
  await p.getByRole("tab", { name: /Files touched/ }).click();
  await p.getByRole("list", { name: "Files touched" }).getByText("src/eval.rs", { exact: true }).waitFor();
  await app.context.close();
});

test("a regex search finds a hit inside a collapsed subagent and reveals it", async () => {
  const app = await openApp(browser, server);
  await app.page.getByRole("button", { name: "Open example" }).click();
  await tree(app.page).waitFor();
  // The agent starts collapsed: its Grep is not in the graph.
  assert.ok(!(await allTreeItems(app.page)).some((i) => i.text.includes("rem_euclid|checked_div")));
  await app.page.keyboard.press("/");
  const box = app.page.getByRole("search").getByLabel("Search text");
  assert.equal(await app.page.evaluate(() => document.activeElement.getAttribute("aria-label")), "Search text");
  await app.page.getByRole("search").getByLabel("Regex").check();
  await box.fill("rem_euclid\\|checked_[a-z]+");
  // One match: the subagent's Grep pattern is the only text with "rem_euclid|checked_".
  await app.page.getByRole("search").getByRole("status").filter({ hasText: /^1 match$/ }).waitFor();
  const results = app.page.getByRole("list", { name: "Search results" });
  assert.equal(await results.getByRole("listitem").count(), 1);
  assert.match((await results.getByRole("listitem").innerText()).trim(), /^tool input · agent Explore · line 2\n/);
  await box.press("Enter");
  const selected = tree(app.page).locator("[role=treeitem][aria-selected=true]");
  await selected.filter({ hasText: "rem_euclid" }).waitFor();
  assert.equal(await app.page.getByRole("search").getByRole("status").innerText(), "1 of 1 match");
  // The match is highlighted in the selected row (the session's worker finds it there). A row
  // drawn again meanwhile is highlighted again (its old ranges collapse), so the wait is for a
  // range over the match.
  await app.page.waitForFunction(() => [...(CSS.highlights.get("search-hit") ?? [])].some((r) => r.toString().startsWith("rem_euclid|checked_")));
  const highlighted = await app.page.evaluate(() => [...CSS.highlights.get("search-hit")].map((r) => r.toString()));
  assert.ok(highlighted.some((text) => text.startsWith("rem_euclid|checked_")), JSON.stringify(highlighted));
  // A pattern that is not a regular expression says why, and finds nothing.
  await box.fill("checked_(div");
  await app.page.getByRole("search").getByRole("status").filter({ hasText: /^not a valid regular expression/ }).waitFor();
  assert.equal(await results.getByRole("listitem").count(), 0);
  // Made valid again, it searches again.
  await box.fill("checked_(div)");
  await app.page.getByRole("search").getByRole("status").filter({ hasText: /\d+ match/ }).waitFor();
  assert.deepEqual(app.errors, []);
  await app.context.close();
});

test("a plain search is case-insensitive and steps with Enter and Shift+Enter", async () => {
  const app = await openApp(browser, server);
  await app.page.getByRole("button", { name: "Open example" }).click();
  const box = app.page.getByRole("search").getByLabel("Search text");
  await box.fill("DIV_EUCLID");
  const status = app.page.getByRole("search").getByRole("status");
  await status.filter({ hasText: /\d+ matches$/ }).waitFor();
  const total = Number((await status.innerText()).match(/(\d+) matches/)[1]);
  // "div_euclid" in any case, counted in the example: 17 in the main file (1 in the first
  // prompt, 1 in a thinking block, 4 in the Grep, Task, WebFetch and Edit inputs, 6 in the Grep,
  // Read, Task and WebFetch results, 3 in two answers, 2 in the compaction summary) and 4 in the
  // subagent's (its prompt, its Grep's input and result, its answer).
  assert.equal(total, 21);
  await box.press("Enter");
  await status.filter({ hasText: `1 of ${total}` }).waitFor();
  await box.press("Enter");
  await status.filter({ hasText: `2 of ${total}` }).waitFor();
  await box.press("Shift+Enter");
  await status.filter({ hasText: `1 of ${total}` }).waitFor();
  await box.press("Shift+Enter");
  await status.filter({ hasText: `${total} of ${total}` }).waitFor();
  await app.context.close();
});

test("Enter pressed right after typing goes to the first hit of what was typed", async () => {
  const app = await openApp(browser, server);
  await app.page.getByRole("button", { name: "Open example" }).click();
  await tree(app.page).waitFor();
  const status = app.page.getByRole("search").getByRole("status");
  const selected = tree(app.page).locator("[role=treeitem][aria-selected=true]");
  // Typed as a person types, Enter at once: before the pause after which a search runs by itself.
  await app.page.keyboard.press("/");
  await app.page.keyboard.type("checked_mul", { delay: 20 });
  await app.page.keyboard.press("Enter");
  await status.filter({ hasText: /^1 of \d+ match/ }).waitFor();
  assert.equal(await selected.count(), 1, "the first hit's row is selected");
  // A new query over one whose hits are shown: Enter goes to the new query's first hit, not
  // to the old query's second.
  const box = app.page.getByRole("search").getByLabel("Search text");
  await box.fill("");
  await box.pressSequentially("rem_euclid", { delay: 20 });
  await box.press("Enter");
  await status.filter({ hasText: /^1 of \d+ match/ }).waitFor();
  // The list of hits closed so as not to cover the row gone to; a click in the box opens it.
  const results = app.page.getByRole("list", { name: "Search results" });
  await results.waitFor({ state: "detached" });
  await box.click();
  await results.getByRole("listitem").first().filter({ hasText: /rem_euclid/ }).waitFor();
  assert.equal(await results.getByRole("listitem").filter({ hasText: /checked_mul/ }).count(), 0, "no hit of the old query is left");
  assert.equal(await selected.count(), 1);
  assert.deepEqual(app.errors, []);
  await app.context.close();
});

test("graph filters: errors only shows the failing call, even inside the folded history", async () => {
  const app = await openApp(browser, server);
  await app.page.getByRole("button", { name: "Open example" }).click();
  await app.page.getByText("Filter the graph").click();
  await app.page.getByRole("group", { name: "Graph filters" }).getByLabel("Errors only").check();
  await app.page.getByRole("group", { name: "Graph filters" }).getByText("1 row matches").waitFor();
  const items = await allTreeItems(app.page);
  const calls = items.filter((i) => /Bash|Edit|Read|Grep/.test(i.text) && i.text.includes("ms"));
  assert.equal(calls.length, 1);
  assert.match(calls[0].text, /cargo test division_rounds_toward_zero/);
  assert.match(calls[0].text, /error/);
  await app.context.close();
});

test("a file with no session (only a summary line) says so, and its statistics are empty, not a crash", async () => {
  const app = await openApp(browser, server);
  const line = JSON.stringify({ type: "summary", summary: "Fixing the parser", leafUuid: "0b9c2d1e-0000-4000-8000-000000000001" });
  await dropFiles(app.page, [{ name: "summary-only.jsonl", bytes: Buffer.from(line + "\n") }]);
  const note = app.page.getByRole("status").filter({ hasText: "No conversation in these files" });
  await note.waitFor();
  assert.match(await note.innerText(), /1 metadata line and no message/);
  assert.deepEqual(await note.getByRole("listitem").allInnerTexts(), ["summary: Fixing the parser"]);
  // The Statistics tab used to index the missing session and stop the app.
  await app.page.getByRole("tab", { name: "Statistics" }).click();
  const sessions = app.page.getByRole("table").first();
  await sessions.waitFor();
  assert.equal(await sessions.getByRole("row").count(), 1, "only the header row: no session to count");
  await app.page.getByText("Tokens: 0 input · 0 output · 0 cache write · 0 cache read · cost $0.0000").waitFor();
  assert.deepEqual(app.errors, []);
  assert.deepEqual(app.foreignRequests(), []);
  await app.context.close();
});

test("the operations list is one Tab stop, and the arrow keys, Home and End move through it", async () => {
  const app = await openApp(browser, server, { viewport: { width: 1280, height: 600 } });
  await app.page.getByRole("button", { name: "Open example" }).click();
  const list = panel(app.page).getByRole("list", { name: "Operations by turn" });
  await list.getByRole("button").first().waitFor();
  const stops = () => list.locator("button[tabindex='0']").count();
  const focusedRow = () => app.page.evaluate(() => Number(document.activeElement?.closest("[data-row]")?.dataset.row));
  // The focus moves once the row is drawn, in the next frame.
  const focusOn = (row) =>
    app.page.waitForFunction((row) => document.activeElement?.closest("[data-row]")?.dataset.row === String(row), row);
  assert.equal(await stops(), 1, "one button of the list takes the Tab");
  await list.locator("button[tabindex='0']").focus();
  assert.equal(await focusedRow(), 0);
  await app.page.keyboard.press("ArrowDown");
  await focusOn(1);
  await app.page.keyboard.press("ArrowDown");
  await focusOn(2);
  await app.page.keyboard.press("ArrowUp");
  await focusOn(1);
  // End goes to the last row, scrolled into view and drawn; the Tab stop follows the focus.
  const rows = await app.page.evaluate(() => Math.round(document.querySelector(".panel-canvas").getBoundingClientRect().height / 28));
  assert.ok(rows > 10, `${rows} rows`);
  await app.page.keyboard.press("End");
  await focusOn(rows - 1);
  const shown = await app.page.evaluate(() => {
    const view = document.querySelector(".panel-scroll").getBoundingClientRect();
    const box = document.activeElement.getBoundingClientRect();
    return box.height > 0 && box.top >= view.top && box.bottom <= view.bottom;
  });
  assert.ok(shown, "it is in the list's view");
  assert.equal(await stops(), 1);
  assert.equal(await app.page.evaluate(() => document.activeElement.getAttribute("tabindex")), "0");
  // Enter on an operation shows it in the graph, as a click does (a turn's header has no label).
  await app.page.keyboard.press("Home");
  await focusOn(0);
  let label = null;
  for (let row = 1; row < 6 && !label; row++) {
    await app.page.keyboard.press("ArrowDown");
    await focusOn(row);
    label = await app.page.evaluate(() => document.activeElement.getAttribute("aria-label"));
  }
  assert.ok(label, "an operation's button has the focus");
  await app.page.keyboard.press("Enter");
  await tree(app.page).locator("[role=treeitem][aria-selected=true]").waitFor();
  assert.deepEqual(app.errors, []);
  await app.context.close();
});
