// The history's ranked search in a real browser (issue 52): words in any order find the session
// they come from first, in the order `sessionscope search` gives on the same folder; filters typed
// into the query keep some sessions; the sessions found can be listed newest first; and a snippet
// opens its session at its message, the words marked there.
import { before, after } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { basename } from "node:path";
import { test, withoutFolderHandles, ROOT, openApp, dropFolder, tree, engineSearch, servedForTests, waitForApp, indexed } from "./harness.mjs";

let server;
let browser;
servedForTests((site) => ({ server, browser } = site));
let home;

/**
 * Writes a Claude Code session `id` of project `project` on day `day` (2026-03-DD): `turns` are
 * `{ prompt, answer, tool }`, `tool` (optional) a Bash call whose output is its text.
 */
function writeSession(dir, id, project, day, turns) {
  mkdirSync(dir, { recursive: true });
  const lines = [];
  let parent = null;
  let second = 0;
  const line = (fields) => {
    const timestamp = new Date(Date.UTC(2026, 2, day, 9, 0, second++)).toISOString();
    const uuid = `${id}-${lines.length}`;
    lines.push(JSON.stringify({ sessionId: id, timestamp, cwd: `/home/dev/projects/${project}`, uuid, parentUuid: parent, ...fields }));
    parent = uuid;
  };
  const usage = { input_tokens: 10, output_tokens: 20 };
  turns.forEach(({ prompt, answer, tool }, turn) => {
    line({ type: "user", message: { role: "user", content: prompt } });
    if (tool) {
      const callId = `toolu_${id}_${turn}`;
      line({ type: "assistant", message: { id: `msg-${id}-${turn}-t`, role: "assistant", model: "claude-sonnet-4-5", content: [{ type: "tool_use", id: callId, name: "Bash", input: { command: "tail -n 20 service.log" } }], usage } });
      line({ type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: callId, content: tool }] } });
    }
    line({ type: "assistant", message: { id: `msg-${id}-${turn}`, role: "assistant", model: "claude-sonnet-4-5", content: [{ type: "text", text: answer }], usage } });
  });
  writeFileSync(join(dir, `${id}.jsonl`), lines.join("\n") + "\n");
}

/** Five sessions of two agents: one whose first prompt holds the words, others holding some of them elsewhere. */
function makeHistory() {
  const dir = mkdtempSync(join(tmpdir(), "sessionscope-ranked-"));
  const projects = join(dir, "projects");
  const kettle = join(projects, "-home-dev-projects-kettle");
  const garden = join(projects, "-home-dev-projects-garden");
  writeSession(kettle, "kettle-cold", "kettle", 3, [
    { prompt: "Why does the kettle stay cold in the morning?", answer: "The thermostat relay sticks while the kitchen is cold; the firmware reads it too early." },
    { prompt: "Then read the relay later.", answer: "The relay is now read after the warm-up delay." },
  ]);
  writeSession(kettle, "kettle-logs", "kettle", 9, [
    { prompt: "Tidy the logging module.", answer: "The logger writes one line per event now.", tool: "09:00 kettle cold start\n09:01 morning schedule ran\n09:02 kettle heating" },
  ]);
  writeSession(kettle, "kettle-rename", "kettle", 5, [
    { prompt: "Rename the boil module to heater.", answer: "Renamed; the kettle crate builds." },
  ]);
  writeSession(garden, "garden-water", "garden", 7, [
    { prompt: "Water the garden every morning at six.", answer: "The sprinkler schedule runs each morning now." },
  ]);
  // A Codex session (the project's own fixture): another agent, another project.
  const codex = join(dir, "sessions", "2025", "10", "02");
  mkdirSync(codex, { recursive: true });
  const rollout = "rollout-2025-10-02T10-11-12-0199a213-81c0-7800-8aa1-bbab2a035a53.jsonl";
  copyFileSync(join(ROOT, "crates/engine/tests/fixtures/formats", rollout), join(codex, rollout));
  return { dir };
}

before(() => {
  home = makeHistory();
});

after(() => {
  if (home) rmSync(home.dir, { recursive: true, force: true });
});

/** Drops the history (the five sessions, or those of `dir`) and waits for its index; answers the search region. */
async function openHistory(page, dir = home.dir) {
  await dropFolder(page, dir);
  const history = page.getByRole("region", { name: "History" });
  await history.getByRole("status").filter({ hasText: /^Indexed / }).waitFor({ timeout: 60_000 });
  return history.getByRole("region", { name: "Search all sessions" });
}

/** Waits until the box's answer is to `query` (its completions' list says which query it answered). */
async function answeredFor(search, query) {
  const id = await search.getByLabel("Search every session").getAttribute("list");
  await search.page().waitForFunction(([id, query]) => document.getElementById(id)?.dataset.query === query, [id, query], { timeout: 30_000 });
}

/** Types `query` and waits for the answer to it; answers the session ids found, in order. */
async function ranked(search, query) {
  const box = search.getByLabel("Search every session");
  await box.fill(query);
  await search.getByRole("button", { name: "Search" }).click();
  await answeredFor(search, query);
  const status = search.getByRole("status").filter({ hasText: /^\d+ sessions? found of \d+/ });
  await status.waitFor({ timeout: 30_000 });
  // The answer is to this very query: the list and the box agree.
  const list = search.getByRole("list", { name: "Sessions found" });
  const count = Number((await status.innerText()).match(/^(\d+)/)[1]);
  if (count === 0) {
    assert.equal(await list.count(), 0);
    return [];
  }
  const sessions = list.locator(":scope > li");
  return sessions.evaluateAll((items) => items.map((item) => item.querySelector("button").dataset.session));
}

/** The session ids `sessionscope search` finds for `query`, in order. */
function engineOrder(query, ...options) {
  return engineSearch(query, home.dir, ...options).results.map((session) => session.session_id);
}

test("words in any order find the session they come from first, in the engine's order", async () => {
  const app = await openApp(browser, server);
  const search = await openHistory(app.page);
  // The first prompt's words, in another order: that session first, then those that hold the
  // words elsewhere (a tool's output), as the command line ranks them.
  const found = await ranked(search, "morning cold kettle");
  assert.equal(found[0], "kettle-cold");
  assert.deepEqual(found, engineOrder("morning cold kettle"));
  assert.ok(found.includes("kettle-logs"), `the tool output's session is found too: ${found}`);
  // Every session was counted from the word index its unit's worker made while indexing: none
  // was read again.
  const said = await search.getByRole("status").innerText();
  assert.match(said, new RegExp(`^${found.length} sessions found of 5 · \\d+ ms$`));
  // The snippets mark the words.
  const first = search.getByRole("list", { name: "Sessions found" }).locator(":scope > li").first();
  const marked = await first.locator("mark").allInnerTexts();
  assert.ok(marked.some((word) => /^(morning|cold|kettle)$/i.test(word)), `marked: ${marked}`);
  assert.match(await first.innerText(), /score \d+\.\d\d/);
  // OR, and a word left out.
  assert.deepEqual(await ranked(search, "sprinkler OR thermostat"), engineOrder("sprinkler OR thermostat"));
  assert.deepEqual(new Set(await ranked(search, "morning -kettle")), new Set(["garden-water"]));
  // Newest first, as the command line's --sort=time lists them.
  await search.getByLabel("Sort sessions found").selectOption("time");
  const newest = await ranked(search, "kettle");
  assert.deepEqual(newest, engineOrder("kettle", "--sort", "time"));
  assert.equal(newest[0], "kettle-logs");
  await search.getByLabel("Sort sessions found").selectOption("score");
  assert.deepEqual(app.errors, []);
  await app.context.close();
});

test("past the best 20, Show more lists the next ones in the engine's order, and the first of them takes the focus", async () => {
  const dir = mkdtempSync(join(tmpdir(), "sessionscope-ranked-many-"));
  const project = join(dir, "projects", "-home-dev-projects-teapot");
  for (let n = 0; n < 23; n++) {
    // Each answer says "teapot" a different number of times, so the sessions rank apart.
    const answer = `${Array(1 + (n % 6)).fill("teapot").join(" ")} glazed.`;
    writeSession(project, `teapot-${String(n).padStart(2, "0")}`, "teapot", 1 + n, [{ prompt: `Glaze the teapot number ${n}.`, answer }]);
  }
  const app = await openApp(browser, server);
  try {
    const search = await openHistory(app.page, dir);
    const best = await ranked(search, "teapot glaze");
    assert.equal(best.length, 20);
    assert.match(await search.getByRole("status").innerText(), /^23 sessions found of 23 \(the best 20 shown\) · \d+ ms$/);
    // By the keyboard: the button (enabled: it is not while a question is out), then Enter.
    const more = search.getByRole("button", { name: "Show 3 more", disabled: false });
    await more.waitFor();
    await more.focus();
    await app.page.keyboard.press("Enter");
    await app.page.waitForFunction(() => document.activeElement?.closest("[data-rank]")?.dataset.rank === "21", null, { timeout: 30_000 });
    const sessions = search.getByRole("list", { name: "Sessions found" }).locator(":scope > li");
    const all = await sessions.evaluateAll((items) => items.map((item) => item.querySelector("button").dataset.session));
    assert.equal(all.length, 23);
    assert.deepEqual(all.slice(0, 20), best, "the first 20 stay as they were");
    assert.deepEqual(all, engineSearch("teapot glaze", dir, "--limit", "0").results.map((session) => session.session_id));
    assert.match(await search.getByRole("status").innerText(), /^23 sessions found of 23 · \d+ ms$/);
    assert.equal(await search.getByRole("button", { name: /^Show \d+ more$/ }).count(), 0);
    // A new query lists its best 20 again.
    assert.equal((await ranked(search, "teapot")).length, 20);
    await search.getByRole("button", { name: "Show 3 more" }).waitFor();
    assert.deepEqual(app.errors, []);
  } finally {
    await app.context.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("filters typed into the query keep some sessions: agent, project, role, and what is not a query says why", async () => {
  const app = await openApp(browser, server);
  const search = await openHistory(app.page);
  assert.deepEqual(await ranked(search, "agent:codex stats"), ["0199a213-81c0-7800-8aa1-bbab2a035a53"]);
  assert.deepEqual(await ranked(search, "agent:claude stats"), []);
  assert.deepEqual(await ranked(search, "project:garden morning"), ["garden-water"]);
  assert.deepEqual(new Set(await ranked(search, "morning role:user")), new Set(engineOrder("morning role:user")));
  assert.ok(!(await ranked(search, "morning role:user")).includes("kettle-logs"), "a tool's output is not the person's words");
  // A filter given a value it cannot take is said, with nothing listed.
  await search.getByLabel("Search every session").fill("role:robot kettle");
  await search.getByRole("button", { name: "Search" }).click();
  await search.getByRole("alert").filter({ hasText: /^Not a query the search reads: `role:robot` is no role/ }).waitFor({ timeout: 30_000 });
  assert.equal(await search.getByRole("list", { name: "Sessions found" }).count(), 0);
  assert.deepEqual(app.errors, []);
  await app.context.close();
});

test("results update as the person types, and a snippet opens its session at its message with the words marked", async () => {
  const app = await openApp(browser, server);
  const search = await openHistory(app.page);
  const box = search.getByLabel("Search every session");
  // Typed key by key, without pressing Search: the list answers the last query typed.
  await box.pressSequentially("relay firmware");
  await answeredFor(search, "relay firmware");
  const results = search.getByRole("list", { name: "Sessions found" });
  await search.getByRole("status").filter({ hasText: /^1 session found of \d+/ }).waitFor({ timeout: 30_000 });
  assert.equal(await results.locator(":scope > li").count(), 1);
  const snippet = results.getByRole("list", { name: "Where the words are" }).getByRole("button").first();
  const word = (await snippet.locator("mark").innerText()).toLowerCase();
  assert.ok(["relay", "firmware"].includes(word), word);
  await snippet.click();
  const selected = tree(app.page).locator("[role=treeitem][aria-selected=true]");
  await selected.waitFor({ timeout: 30_000 });
  assert.match((await selected.innerText()).toLowerCase(), new RegExp(word));
  // The session is searched for the words, and they are highlighted in the row gone to.
  await app.page.getByRole("search").getByRole("status").filter({ hasText: /^\d+ of \d+ match/ }).waitFor({ timeout: 30_000 });
  await app.page.waitForFunction((word) => [...(globalThis.CSS?.highlights?.get("search-hit") ?? [])].some((range) => range.toString().toLowerCase() === word), word, { timeout: 30_000 });
  const marked = await app.page.evaluate(() => [...CSS.highlights.get("search-hit")].map((range) => range.toString().toLowerCase()));
  assert.ok(marked.includes(word), `highlighted: ${marked.join(", ")}`);
  // Back at the history, the search is as it was.
  await app.page.getByRole("button", { name: "← History" }).click();
  await search.getByRole("status").filter({ hasText: /^1 session found of \d+/ }).waitFor();
  assert.equal(await search.getByLabel("Search every session").inputValue(), "relay firmware");
  assert.deepEqual(app.errors, []);
  await app.context.close();
});

test("a remembered folder reopened from its cache ranks from the word indexes it kept, reading no session", async () => {
  if (await withoutFolderHandles(browser, server)) return;
  const app = await openApp(browser, server);
  const { page } = app;
  await openHistory(page);
  // The page says the folder is kept once its index is, and the units' insights, trigram sets
  // and word indexes beside it: a reload then reads nothing again.
  await page.getByText("next time it reopens from its cached index").waitFor({ timeout: 30_000 });
  await page.reload();
  await waitForApp(page);
  await page.getByRole("region", { name: "Remembered folders" }).getByRole("button", { name: `Reopen ${basename(home.dir)}` }).click();
  const { region, status } = await indexed(page);
  assert.match(status, /from the cache/, status);
  const search = region.getByRole("region", { name: "Search all sessions" });
  const found = await ranked(search, "morning cold kettle");
  assert.deepEqual(found, engineOrder("morning cold kettle"));
  assert.match(await search.getByRole("status").innerText(), new RegExp(`^${found.length} sessions found of 5 · \\d+ ms$`));
  assert.deepEqual(app.errors, []);
  await app.context.close();
});

test("the box completes filter keys and the values the history knows, and its help lists the language", async () => {
  const app = await openApp(browser, server);
  const search = await openHistory(app.page);
  const box = search.getByLabel("Search every session");
  /** The completions the box offers for `text` (its list, once the answer to `text` came). */
  const offered = async (text) => {
    await box.fill(text);
    await answeredFor(search, text);
    return app.page.locator(`datalist#${await box.getAttribute("list")}`).locator("option").evaluateAll((options) => options.map((o) => o.value));
  };
  // A key, from its first letters; the values of a key, from those the history's sessions have.
  assert.ok((await offered("kettle ag")).includes("kettle agent:"));
  assert.deepEqual(await offered("cold agent:"), ["cold agent:claude", "cold agent:codex"]);
  // A key typed last waits for its value: no alert meanwhile, and the words before it rank.
  const cold = await ranked(search, "cold");
  assert.ok(cold.length > 0);
  assert.deepEqual(await ranked(search, "cold agent:"), cold);
  assert.equal(await search.getByRole("alert").count(), 0);
  assert.deepEqual(await offered("project:ga"), ["project:garden"]);
  // A tool the sessions called (the index keeps its name lowercased; `tool:` matches any case).
  assert.ok((await offered("tool:b")).includes("tool:bash"));
  assert.ok((await offered("model:gpt")).includes("model:gpt-5-codex"));
  assert.deepEqual(await offered("role:a"), ["role:assistant"]);
  // A completion taken is a query like any other.
  assert.deepEqual(await ranked(search, "cold agent:codex"), []);
  assert.deepEqual(await ranked(search, "stats agent:codex"), ["0199a213-81c0-7800-8aa1-bbab2a035a53"]);
  // The help lists the language.
  const help = search.getByRole("term").filter({ hasText: "-staging" });
  assert.equal(await help.isVisible(), false);
  await search.getByText("Help", { exact: true }).click();
  await help.waitFor();
  assert.match(await search.getByRole("definition").filter({ hasText: "without the word" }).innerText(), /without the word/);
  assert.deepEqual(app.errors, []);
  await app.context.close();
});
