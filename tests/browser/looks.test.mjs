// How the page writes what it counts and what it does not know, in a real browser: a count is
// written as people write it ("1 session", "3 files", "1 line skipped"), never "session(s)" nor
// "1 sessions", over the example (its graph, statistics and load summary), a history folder (its
// Sessions, Files, Failures and Activity tabs and a search of it) and the load summary of a file
// with a broken line; and an Aider run, which has one time (its start), shows "—" for its
// duration, never "0 ms". Form controls take the theme's colours in the dark theme.
import { before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, openApp, dropFiles, dropFolder, tree, servedForTests } from "./harness.mjs";

let server;
let browser;
servedForTests((site) => ({ server, browser } = site));
let dir;

/** A count of one with its thing in the plural, as the page must never write it. */
const ONE_PLURAL =
  /\b1 (sessions|files|lines|messages|msgs|tools|tool calls|matches|hits|compactions|agents|projects|conversations|agent conversations|tokens|errors|API errors|calls|changes|reads|entries|turns|responses|operations|rows|diagnostics|values|findings|places|words|bytes|days|blocks|versions|occurrences|summaries|branches|metadata lines|interrupted turns)\b/;

/** Fails if the page's visible text writes a count as "thing(s)" or "1 things". */
async function assertCountsReadWell(page, where) {
  // Folded parts (the load summary's file list and diagnostics) are opened, so their text counts.
  await page.evaluate(() => {
    for (const details of document.querySelectorAll("details")) details.open = true;
  });
  const text = await page.evaluate(() => document.body.innerText);
  const parenthesised = text.match(/.{0,40}\(s\).{0,20}/);
  assert.equal(parenthesised, null, `${where}: a count written "(s)": ${parenthesised?.[0]}`);
  const wrong = text.match(new RegExp(`.{0,40}${ONE_PLURAL.source}.{0,20}`));
  assert.equal(wrong, null, `${where}: one thing written in the plural: ${wrong?.[0]}`);
  return text;
}

/** A Claude Code line of `session` in `cwd`, `minute` minutes after 09:00 UTC on 2026-04-07. */
function claudeLine(session, cwd, uuid, parent, minute, message) {
  const timestamp = new Date(Date.UTC(2026, 3, 7, 9, minute)).toISOString();
  const line = { type: message.role, uuid, parentUuid: parent, sessionId: session, cwd, timestamp, message };
  if (message.role === "assistant") line.requestId = `req-${uuid}`;
  return JSON.stringify(line) + "\n";
}

/**
 * A Claude Code session: a prompt, an edit of `file` and its result, and a Bash call that fails
 * when `fails`, one response of usage each.
 */
function claudeSession(session, cwd, start, prompt, file, fails) {
  const s = session;
  const usage = (output) => ({ input_tokens: 12, output_tokens: output, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });
  const assistant = (id, content, output) => ({ role: "assistant", id, model: "claude-sonnet-4-5", content, usage: usage(output) });
  const call = (id, name, input) => [{ type: "tool_use", id, name, input }];
  const result = (id, text, error) => ({ role: "user", content: [{ type: "tool_result", tool_use_id: id, content: text, is_error: error }] });
  return [
    claudeLine(s, cwd, `${s}-1`, null, start, { role: "user", content: prompt }),
    claudeLine(s, cwd, `${s}-2`, `${s}-1`, start + 1, assistant(`m-${s}-2`, call(`t-${s}-1`, "Edit", { file_path: file, old_string: "a", new_string: "b" }), 7)),
    claudeLine(s, cwd, `${s}-3`, `${s}-2`, start + 2, result(`t-${s}-1`, `The file ${file} has been updated.`, false)),
    claudeLine(s, cwd, `${s}-4`, `${s}-3`, start + 3, assistant(`m-${s}-4`, call(`t-${s}-2`, "Bash", { command: "make check" }), 5)),
    claudeLine(s, cwd, `${s}-5`, `${s}-4`, start + 4, result(`t-${s}-2`, fails ? "make: *** [check] Error 2" : "ok", fails)),
    claudeLine(s, cwd, `${s}-6`, `${s}-5`, start + 5, assistant(`m-${s}-6`, [{ type: "text", text: `Done with ${prompt.toLowerCase()}` }], 3)),
  ].join("");
}

/** Two projects: kiln with two sessions, one failing its check, and quill with one alone. */
function makeHistory() {
  const root = join(dir, "history");
  const kiln = join(root, "projects", "-work-kiln");
  const quill = join(root, "projects", "-work-quill");
  mkdirSync(kiln, { recursive: true });
  mkdirSync(quill, { recursive: true });
  writeFileSync(join(kiln, "k1.jsonl"), claudeSession("k1", "/work/kiln", 0, "Raise the firing temperature", "/work/kiln/src/fire.rs", true));
  writeFileSync(join(kiln, "k2.jsonl"), claudeSession("k2", "/work/kiln", 30, "Log each firing", "/work/kiln/src/log.rs", false));
  writeFileSync(join(quill, "q1.jsonl"), claudeSession("q1", "/work/quill", 90, "Sharpen the nib module", "/work/quill/src/nib.rs", false));
  return root;
}

/** Two Aider runs of my own: a time each (their start) and no other, so no duration is known. */
const AIDER = [
  "# aider chat started at 2025-09-14 08:02:11",
  "",
  "> Aider v0.86.1  ",
  "> Main model: anthropic/claude-sonnet-4-5 with diff edit format  ",
  "> Git repo: .git with 4 files  ",
  "",
  "#### Make the greeting say hello to the given name.  ",
  "",
  "I'll change the greeting.",
  "",
  "greet.py",
  "```python",
  "<<<<<<< SEARCH",
  "def greet():",
  '    return "hi"',
  "=======",
  "def greet(name):",
  '    return f"hello, {name}"',
  ">>>>>>> REPLACE",
  "```",
  "",
  "> Tokens: 2.1k sent, 85 received. Cost: $0.0076 message, $0.0076 session.  ",
  "> Applied edit to greet.py  ",
  "",
  "# aider chat started at 2025-09-14 09:40:03",
  "",
  "> Aider v0.86.1  ",
  "> Main model: anthropic/claude-sonnet-4-5 with diff edit format  ",
  "",
  "#### What does greet return for an empty name?  ",
  "",
  'It returns `"hello, "`: the name is put in as it is.',
  "",
  "> Tokens: 1.8k sent, 30 received. Cost: $0.0059 message, $0.0135 session.  ",
  "",
].join("\n");

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "sessionscope-looks-"));
});

after(async () => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("the example's graph, statistics and load summary write their counts as people do", async () => {
  const app = await openApp(browser, server);
  const page = app.page;
  await page.getByRole("button", { name: "Open example" }).click();
  await tree(page).getByRole("treeitem").first().waitFor({ timeout: 30_000 });
  const summary = page.getByRole("region", { name: "Load summary" });
  await summary.getByRole("status").waitFor();
  let text = await assertCountsReadWell(page, "the example's graph");
  assert.match(text, /\b1 session · /, "the load summary counts the example's one session");
  await page.getByRole("tab", { name: "Statistics" }).click();
  await page.getByRole("region", { name: "Statistics" }).waitFor();
  text = await assertCountsReadWell(page, "the example's statistics");
  assert.match(text, /Tokens per turn \(3 turns, at most [\d,]+ tokens\)/);
  assert.deepEqual(app.errors, []);
  await app.context.close();
});

test("a history's tabs and search write their counts as people do, one session alone in its project", async () => {
  const root = makeHistory();
  const app = await openApp(browser, server);
  const page = app.page;
  await dropFolder(page, root);
  const history = page.getByRole("region", { name: "History" });
  await history.getByRole("status").filter({ hasText: /^Indexed / }).waitFor({ timeout: 60_000 });
  const sessions = history.getByRole("listbox", { name: "Sessions" });
  await sessions.getByRole("option").nth(2).waitFor({ timeout: 30_000 });
  let text = await assertCountsReadWell(page, "the Sessions tab");
  assert.match(text, /^3 sessions in 2 projects · /m, "the history's totals");
  const quill = history.getByRole("listbox", { name: "Projects" }).getByRole("option").filter({ hasText: "quill" });
  assert.match(await quill.innerText(), /\b1 session · /, "a project of one session says so");
  const row = sessions.getByRole("option").filter({ hasText: "Sharpen the nib module" });
  assert.match(await row.innerText(), /· 6 messages · 2 tool calls · /, "a session's row");

  await history.getByRole("tab", { name: "Files" }).click();
  await history.getByRole("status").filter({ hasText: /^3 files listed$/ }).waitFor({ timeout: 30_000 });
  const nib = history.getByRole("listbox", { name: "Files" }).getByRole("option").filter({ hasText: "nib.rs" });
  await nib.waitFor({ timeout: 30_000 });
  assert.match(await nib.innerText(), /\b1 session · 1 change\b/, "a file changed once in one session");
  await assertCountsReadWell(page, "the Files tab");

  await history.getByRole("tab", { name: "Failures" }).click();
  await history.getByRole("list", { name: "Failure groups" }).locator(".failure-key").first().waitFor({ timeout: 30_000 });
  text = await assertCountsReadWell(page, "the Failures tab");
  assert.match(text, /\b1 of 6 tool calls failed\b/);

  await history.getByRole("tab", { name: "Activity" }).click();
  await history.getByRole("img", { name: /^Activity calendar by messages/ }).waitFor({ timeout: 30_000 });
  await assertCountsReadWell(page, "the Activity tab");

  // A word said once, in one session: one match, one hit.
  await history.getByRole("tab", { name: "Sessions" }).click();
  const search = history.getByRole("region", { name: "Search all sessions" });
  await search.getByLabel("Exact").check();
  await search.getByLabel("Search every session").fill("nib");
  await search.getByRole("button", { name: "Search" }).click();
  const status = search.getByRole("status").filter({ hasText: / · [\d.]+ s/ });
  await status.waitFor({ timeout: 30_000 });
  text = await assertCountsReadWell(page, "a search of the history");
  assert.match(await status.innerText(), /^\d+ match(es)? in 1 session · /);
  assert.match(text, / · \d+ hits?\b/);
  assert.deepEqual(app.errors, []);
  await app.context.close();
});

test("the load summary of a file with a broken line counts one line, one session and one file", async () => {
  const app = await openApp(browser, server);
  const page = app.page;
  const lines = claudeSession("b1", "/work/kiln", 0, "Glaze the pots", "/work/kiln/src/glaze.rs", false).split("\n");
  lines.splice(2, 0, '{"type": "user", "uuid": "cut sh');
  await dropFiles(page, [{ name: "broken.jsonl", bytes: lines.join("\n") }]);
  await tree(page).getByRole("treeitem").first().waitFor({ timeout: 30_000 });
  const summary = page.getByRole("region", { name: "Load summary" });
  const headline = await summary.getByRole("status").innerText();
  assert.match(headline, /^1 session · 1 file · \d+ lines · 0 agent conversations linked · 1 line skipped$/, headline);
  const text = await assertCountsReadWell(page, "the load summary");
  assert.match(text, /Diagnostics \(1 line with a problem, 0 files with a problem, 0 files left out by name\)/);
  assert.match(text, /Read as: Claude Code session \(1 file\)/);
  assert.deepEqual(app.errors, []);
  await app.context.close();
});

test("an Aider run's duration is unknown: a dash labelled so, never 0 ms", async () => {
  const app = await openApp(browser, server);
  const page = app.page;
  await dropFiles(page, [{ name: ".aider.chat.history.md", bytes: AIDER }]);
  await tree(page).getByRole("treeitem").first().waitFor({ timeout: 30_000 });
  // Both runs are listed, each with an unknown duration.
  const sessions = page.getByRole("region", { name: "Sessions" });
  await sessions.locator("tbody tr.session-row").nth(1).waitFor();
  const unknown = sessions.getByRole("img", { name: "unknown duration" });
  assert.equal(await unknown.count(), 2, "each run's duration is unknown");
  assert.equal(await unknown.first().innerText(), "—");
  // The open run's header gives its start and no duration.
  const facts = await page.locator(".session-facts").first().innerText();
  assert.match(facts, /2025-09-14 \d\d:\d\d:\d\d UTC · — · /, facts);
  let text = await assertCountsReadWell(page, "an Aider history");
  assert.doesNotMatch(text, /\b0 ms\b/, "no duration is shown as 0 ms");
  await page.getByRole("tab", { name: "Statistics" }).click();
  await page.getByRole("region", { name: "Statistics" }).waitFor();
  text = await assertCountsReadWell(page, "an Aider run's statistics");
  assert.doesNotMatch(text, /\b0 ms\b/, "no duration in the statistics is shown as 0 ms");
  assert.match(text, /turn durations \(unknown\)/);
  assert.deepEqual(app.errors, []);
  await app.context.close();
});

test("form controls take the dark theme's colours and the accent", async () => {
  const root = makeHistory();
  const app = await openApp(browser, server, { colorScheme: "dark" });
  const page = app.page;
  await dropFolder(page, root);
  const history = page.getByRole("region", { name: "History" });
  await history.getByRole("status").filter({ hasText: /^Indexed / }).waitFor({ timeout: 60_000 });
  const look = (locator) =>
    locator.evaluate((element) => {
      const style = getComputedStyle(element);
      const body = getComputedStyle(document.body);
      return {
        scheme: style.colorScheme,
        background: style.backgroundColor,
        color: style.color,
        page: body.backgroundColor,
        text: body.color,
        accent: style.accentColor,
        theme: getComputedStyle(document.documentElement).getPropertyValue("--accent").trim(),
      };
    });
  const agent = await look(history.getByRole("combobox", { name: "Agent" }));
  assert.equal(agent.scheme, "dark", "a select's native list follows the dark theme");
  assert.equal(agent.background, agent.page, "a select on the page's background");
  assert.equal(agent.color, agent.text, "a select in the page's text colour");
  await history.getByRole("tab", { name: "Files" }).click();
  const changed = await look(history.getByRole("checkbox", { name: "Changed only" }));
  assert.equal(changed.scheme, "dark");
  assert.notEqual(changed.accent, "auto", `a checkbox takes the theme's accent (${changed.theme})`);
  const path = await look(history.getByRole("searchbox", { name: "Filter by path" }));
  assert.equal(path.background, path.page, "a search box on the page's background");
  assert.deepEqual(app.errors, []);
  await app.context.close();
});
