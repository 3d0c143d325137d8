// What a whole history knows, in a real browser: a folder with known edits to one file across
// three sessions of two agents (two Claude Code sessions and a Pi session between them) and
// Claude Code's kept versions of it. The Files tab lists the file; its page shows the three
// changes in time order with their diffs, and a click opens the right session at the right
// line; two kept versions compare as a diff. The Failures tab's top group and count, and the
// Activity calendar's busiest hour (in the browser's time zone), equal `sessionscope failures`
// and `sessionscope activity`. Log text that looks like markup stays text; the tabs work from the
// keyboard; a reopened remembered folder draws them from its cache, reading no file; a followed
// session that grows adds its edit to the Files tab and its usage to the current 5-hour block.
import { before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { test, withoutFolderHandles, openApp, dropFolder, tree, engineOutput, servedForTests, back } from "./harness.mjs";

let server;
let browser;
servedForTests((site) => ({ server, browser } = site));
let home;

/** A Claude Code line of session `session` at `minute` minutes after 09:00 UTC on 2026-03-02. */
function claudeLine(session, uuid, parent, minute, message, extra = {}) {
  const time = new Date(Date.UTC(2026, 2, 2, 9, minute)).toISOString();
  const line = { type: message.role, uuid, parentUuid: parent, sessionId: session, cwd: "/work/app", timestamp: time, message, ...extra };
  if (message.role === "assistant") line.requestId = `req-${uuid}`;
  return JSON.stringify(line) + "\n";
}

function assistant(id, content, output) {
  return { role: "assistant", id, model: "claude-sonnet-4-5", content, usage: { input_tokens: 10, output_tokens: output, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } };
}

/**
 * A Claude Code session that reads and edits src/lib.rs (old → new), keeps its version first,
 * and whose `cat` fails on `missing`. With `odd`, it also writes a file whose name and a
 * failure whose message look like markup.
 */
function claudeSession(session, start, prompt, old, now, missing, odd = false) {
  const s = session;
  const call = (id, name, input) => [{ type: "tool_use", id, name, input }];
  const result = (id, text, error) => ({ role: "user", content: [{ type: "tool_result", tool_use_id: id, content: text, is_error: error }] });
  let lines = [
    claudeLine(s, `${s}-1`, null, start, { role: "user", content: prompt }),
    claudeLine(s, `${s}-2`, `${s}-1`, start + 1, assistant(`m-${s}-2`, call(`t-${s}-1`, "Read", { file_path: "/work/app/src/lib.rs" }), 5)),
    claudeLine(s, `${s}-3`, `${s}-2`, start + 2, result(`t-${s}-1`, old, false)),
    claudeLine(s, `${s}-4`, `${s}-3`, start + 3, assistant(`m-${s}-4`, call(`t-${s}-2`, "Edit", { file_path: "/work/app/src/lib.rs", old_string: old, new_string: now }), 7)),
    JSON.stringify({
      type: "file-history-snapshot",
      messageId: `${s}-4`,
      isSnapshotUpdate: true,
      snapshot: {
        messageId: `${s}-1`,
        timestamp: new Date(Date.UTC(2026, 2, 2, 9, start)).toISOString(),
        trackedFileBackups: {
          "/work/app/src/lib.rs": { backupFileName: "3f2a9c1d@v1", version: 1, backupTime: new Date(Date.UTC(2026, 2, 2, 9, start + 3)).toISOString() },
        },
      },
    }) + "\n",
    claudeLine(s, `${s}-5`, `${s}-4`, start + 4, result(`t-${s}-2`, "The file /work/app/src/lib.rs has been updated.", false)),
    claudeLine(s, `${s}-6`, `${s}-5`, start + 5, assistant(`m-${s}-6`, call(`t-${s}-3`, "Bash", { command: "cat missing.txt" }), 9)),
    claudeLine(s, `${s}-7`, `${s}-6`, start + 6, result(`t-${s}-3`, `cat: ${missing}: No such file or directory`, true)),
  ].join("");
  if (odd) {
    lines += [
      claudeLine(s, `${s}-8`, `${s}-7`, start + 7, assistant(`m-${s}-8`, call(`t-${s}-4`, "Write", { file_path: "/work/app/src/<img src=x onerror=window.__pwned=1>.rs", content: "<script>window.__pwned=2</script>\n" }), 3)),
      claudeLine(s, `${s}-9`, `${s}-8`, start + 8, result(`t-${s}-4`, "File created successfully", false)),
      claudeLine(s, `${s}-10`, `${s}-9`, start + 9, assistant(`m-${s}-10`, call(`t-${s}-5`, "Bash", { command: "make" }), 3)),
      claudeLine(s, `${s}-11`, `${s}-10`, start + 10, result(`t-${s}-5`, "<img src=x onerror=window.__pwned=3> failed", true)),
    ].join("");
  }
  return lines;
}

/** The history: two Claude Code sessions an hour apart, a Pi session between, kept versions. */
function makeHistory() {
  const dir = mkdtempSync(join(tmpdir(), "sessionscope-insights-"));
  const root = join(dir, "history");
  const app = join(root, "projects", "-work-app");
  const pi = join(root, "pi", "--work-app--");
  mkdirSync(app, { recursive: true });
  mkdirSync(pi, { recursive: true });
  writeFileSync(
    join(app, "aaa.jsonl"),
    claudeSession("aaa", 0, "Round the totals half to even", "fn total() {}", "fn total() -> u64 {\n    0\n}", "/tmp/a/missing.txt", true),
  );
  writeFileSync(
    join(app, "bbb.jsonl"),
    claudeSession("bbb", 60, "Count the refunds too", "fn sum() -> u64 {\n    0\n}", "fn sum() -> u64 {\n    refunds()\n}", "/home/b/missing.txt"),
  );
  const piLines = [
    { type: "session", version: 3, id: "pi-1", timestamp: "2026-03-02T09:30:00.000Z", cwd: "/work/app" },
    { type: "message", id: "p1", parentId: null, timestamp: "2026-03-02T09:30:00.000Z", message: { role: "user", content: [{ type: "text", text: "Rename total to sum" }] } },
    { type: "message", id: "p2", parentId: "p1", timestamp: "2026-03-02T09:31:00.000Z", message: { role: "assistant", model: "kimi-k2.5", content: [{ type: "toolCall", id: "c1", name: "edit", arguments: { path: "src/lib.rs", oldText: "fn total", newText: "fn sum" } }] } },
    { type: "message", id: "p3", parentId: "p2", timestamp: "2026-03-02T09:32:00.000Z", message: { role: "toolResult", toolCallId: "c1", toolName: "edit", content: [{ type: "text", text: "ok" }], isError: false } },
  ];
  writeFileSync(join(pi, "2026-03-02T09-30-00-000Z_pi-1.jsonl"), piLines.map((l) => JSON.stringify(l) + "\n").join(""));
  // The versions Claude Code kept of src/lib.rs before each session's edit.
  for (const [session, text] of [["aaa", "fn total() {}\n"], ["bbb", "fn sum() -> u64 {\n    0\n}\n"]]) {
    mkdirSync(join(root, "file-history", session), { recursive: true });
    writeFileSync(join(root, "file-history", session, "3f2a9c1d@v1"), text);
  }
  return { dir, root };
}

before(async () => {
  home = makeHistory();
});

after(async () => {
  if (home) rmSync(home.dir, { recursive: true, force: true });
});

async function openHistory(page) {
  await dropFolder(page, home.root);
  const history = page.getByRole("region", { name: "History" });
  await history.getByRole("status").filter({ hasText: /^Indexed / }).waitFor({ timeout: 60_000 });
  return history;
}

test("a file's changes across sessions and agents come in time order, each opening its session at the change", async () => {
  const app = await openApp(browser, server);
  const history = await openHistory(app.page);
  await history.getByRole("tab", { name: "Files" }).click();
  const files = history.getByRole("listbox", { name: "Files" });
  const lib = files.getByRole("option").filter({ hasText: /^src\/lib\.rs/ });
  await lib.waitFor({ timeout: 30_000 });
  assert.match(await lib.innerText(), /3 sessions · 3 changes/);
  // Markup in a path is text: no element was made of it, no script ran.
  const odd = files.getByRole("option").filter({ hasText: "<img src=x onerror=window.__pwned=1>.rs" });
  assert.equal(await odd.count(), 1);
  await lib.click();

  const page = history.getByRole("region", { name: "File src/lib.rs" });
  const changes = page.getByRole("list", { name: "Changes" }).getByRole("listitem");
  await changes.first().waitFor({ timeout: 30_000 });
  assert.equal(await changes.count(), 3);
  const heads = await changes.locator(".file-change-head").allInnerTexts();
  assert.deepEqual(
    heads.map((h) => h.replace(/\s+/g, " ").trim()),
    ["2026-03-02 09:03 edited Edit · +3 −1 Claude Code", "2026-03-02 09:31 edited edit · +1 −1 Pi", "2026-03-02 10:03 edited Edit · +1 −1 Claude Code"],
  );
  // Each diff as its unit is read again, the changed words marked.
  for (const at of [0, 1, 2]) {
    await changes.nth(at).getByRole("group", { name: /^Diff: / }).waitFor({ timeout: 30_000 });
  }
  assert.deepEqual(await changes.nth(1).locator(".diff-del .diff-text, .diff-add .diff-text").allInnerTexts(), ["fn total", "fn sum"]);
  assert.ok((await changes.nth(0).locator("ins.diff-word-add").count()) > 0, "the changed words of a line are marked");
  assert.match(await changes.nth(0).innerText(), /Prompt: Round the totals half to even/);

  // The two kept versions compare as a diff.
  const versions = page.getByRole("region", { name: "Kept versions" });
  await versions.getByRole("button", { name: "Compare" }).click();
  const compared = versions.getByRole("region", { name: "Versions compared" });
  await compared.getByRole("group", { name: /^Diff: / }).waitFor({ timeout: 30_000 });
  assert.match(await compared.innerText(), /fn sum\(\) -> u64/);

  // The Pi change opens its session at its call.
  await changes.nth(1).getByRole("button", { name: /at this change/ }).click();
  const selected = tree(app.page).locator("[role=treeitem][aria-selected=true]");
  await selected.waitFor({ timeout: 30_000 });
  // Pi's lines are known by their session and id.
  assert.match(app.page.url(), /[#&]s=pi-1&m=pi-1%3Ap2$/);
  assert.match(await selected.innerText(), /Assistant\s+kimi-k2\.5\s+09:31:00/);
  // Back returns to the file's page.
  await back(app.page);
  await page.getByRole("list", { name: "Changes" }).waitFor({ timeout: 30_000 });
  assert.equal(await app.page.evaluate(() => window.__pwned), undefined);
  assert.deepEqual(app.foreignRequests(), []);
});

test("the failures' top group and count equal the command line's, and markup in a message stays text", async () => {
  const expected = JSON.parse(engineOutput("failures", "--json", home.root));
  const app = await openApp(browser, server);
  const history = await openHistory(app.page);
  await history.getByRole("tab", { name: "Failures" }).click();
  const groups = history.getByRole("list", { name: "Failure groups" }).getByRole("listitem").filter({ has: app.page.locator(".failure-key") });
  await groups.first().waitFor({ timeout: 30_000 });
  const top = expected.groups[0];
  assert.equal(await groups.first().locator(".failure-key").innerText(), top.key);
  assert.equal(await groups.first().locator(".failure-count").innerText(), `${top.count} ×`);
  assert.equal(top.key, "cat: <path>: No such file or directory");
  assert.equal(await groups.count(), expected.groups.length);
  // Its occurrences open their sessions.
  await groups.first().locator("summary").click();
  const places = groups.first().getByRole("button", { name: /Round the totals|Count the refunds/ });
  assert.equal(await places.count(), 2);
  // The message that looks like markup is a group's text.
  const odd = groups.filter({ hasText: "<img src=x onerror=window.__pwned=3> failed" });
  assert.equal(await odd.count(), 1);
  const rates = history.getByRole("region", { name: "Failures by tool" });
  assert.match(await rates.getByRole("row", { name: /^Bash/ }).innerText(), /3\s+3\s+100\.0%/);
  assert.equal(await app.page.evaluate(() => window.__pwned), undefined);

  // The session list counts each session's failed calls.
  await history.getByRole("tab", { name: "Sessions" }).click();
  const aaa = history.getByRole("listbox", { name: "Sessions" }).getByRole("option").filter({ hasText: "Round the totals" });
  assert.match(await aaa.innerText(), /\(2 failed\)/);
});

test("the activity calendar's busiest hour, in the browser's time zone, is the command line's", async () => {
  const expected = JSON.parse(engineOutput("activity", "--json", "--utc-offset=+05:30", home.root));
  const app = await openApp(browser, server, { timezoneId: "Asia/Kolkata" });
  const history = await openHistory(app.page);
  await history.getByRole("tab", { name: "Activity" }).click();
  const calendar = history.getByRole("img", { name: /^Activity calendar by messages/ });
  await calendar.waitFor({ timeout: 30_000 });
  const busiest = calendar.locator("rect.busiest");
  const label = await busiest.getAttribute("data-label");
  const { day, hour, messages } = expected.busiest;
  assert.equal(label, `${day} ${String(hour).padStart(2, "0")}:00: ${messages} messages`);
  assert.equal(hour, 14, "09:00 UTC is 14:30 in Kolkata");
  assert.match(await history.getByText(/^Usage in the 5-hour windows/).innerText(), /Times in UTC\+05:30\.$/);

  // The keyboard moves through the hours and says each.
  await calendar.focus();
  const said = history.locator("#calendar-focus");
  await app.page.waitForFunction(() => document.querySelector("#calendar-focus")?.textContent !== "");
  assert.equal(await said.innerText(), label);
  await app.page.keyboard.press("ArrowDown");
  assert.match(await said.innerText(), new RegExp(`^${day} ${String(hour + 1).padStart(2, "0")}:00: `));

  // Blocks as ccusage counts them: one block of the history's responses.
  const blocks = history.getByRole("region", { name: "5-hour blocks" }).getByRole("row");
  const real = expected.blocks.filter((b) => !b.gap);
  assert.equal((await blocks.count()) - 1, real.length);

  // Coloured by cost, the calendar says so.
  await history.getByRole("radio", { name: "Cost" }).first().check();
  await history.getByRole("img", { name: /^Activity calendar by cost/ }).waitFor({ timeout: 30_000 });
});

test("the tabs are an ARIA tab list the arrow keys move through, and the files open from the keyboard", async () => {
  const app = await openApp(browser, server);
  const history = await openHistory(app.page);
  const tabs = history.getByRole("tablist", { name: "History views" });
  await tabs.getByRole("tab", { name: "Sessions" }).focus();
  await app.page.keyboard.press("ArrowRight");
  assert.equal(await tabs.getByRole("tab", { name: "Files" }).getAttribute("aria-selected"), "true");
  assert.match(app.page.url(), /#h=files$/);
  const files = history.getByRole("listbox", { name: "Files" });
  await files.getByRole("option").first().waitFor({ timeout: 30_000 });
  await history.getByLabel("Filter by path").fill("lib");
  await history.getByRole("status").filter({ hasText: /^1 file listed$/ }).waitFor({ timeout: 30_000 });
  await files.focus();
  await app.page.keyboard.press("ArrowDown");
  await app.page.keyboard.press("Enter");
  await history.getByRole("region", { name: "File src/lib.rs" }).waitFor({ timeout: 30_000 });
  assert.match(app.page.url(), /#h=files&p=%2Fwork%2Fapp&file=src%2Flib\.rs$/);
  await history.getByRole("button", { name: "← Files" }).click();
  await files.waitFor({ timeout: 30_000 });
  await tabs.getByRole("tab", { name: "Files" }).focus();
  await app.page.keyboard.press("End");
  assert.equal(await tabs.getByRole("tab", { name: "Activity" }).getAttribute("aria-selected"), "true");
  await history.getByRole("region", { name: "Activity" }).waitFor();
});

test("an empty history's tabs say so rather than draw an empty frame", async () => {
  const dir = mkdtempSync(join(tmpdir(), "sessionscope-quiet-"));
  try {
    const folder = join(dir, "quiet");
    mkdirSync(folder);
    // Two sessions with no tool call and no time: nothing to list, fail or draw.
    for (const id of ["q1", "q2"]) {
      const lines = [
        { type: "user", uuid: `${id}-u`, parentUuid: null, sessionId: id, message: { role: "user", content: "Hello" } },
        { type: "assistant", uuid: `${id}-a`, parentUuid: `${id}-u`, sessionId: id, message: { role: "assistant", content: [{ type: "text", text: "Hi" }] } },
      ];
      writeFileSync(join(folder, `${id}.jsonl`), lines.map((l) => JSON.stringify(l) + "\n").join(""));
    }
    const app = await openApp(browser, server);
    await dropFolder(app.page, folder);
    const history = app.page.getByRole("region", { name: "History" });
    await history.getByRole("status").filter({ hasText: /^Indexed / }).waitFor({ timeout: 60_000 });
    for (const [tab, said] of [
      ["Files", /No tool call of the 2 sessions of this history read or changed a file/],
      ["Failures", /No tool call, interrupted turn or API error in the 2 sessions of this history/],
      ["Activity", /No message of the 2 sessions of this history has a time/],
    ]) {
      await history.getByRole("tab", { name: tab }).click();
      await history.getByText(said).waitFor({ timeout: 30_000 });
      assert.equal(await history.locator("svg.calendar").count(), 0);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Every file under `dir`, as { "<relative path>": text }. */
function filesOf(dir) {
  const out = {};
  const walk = (at) => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else out[relative(dir, path)] = readFileSync(path, "utf8");
    }
  };
  walk(dir);
  return out;
}

test("a remembered folder reopens with its figures from the cache, reading no file", async () => {
  if (await withoutFolderHandles(browser, server)) return;
  const app = await openApp(browser, server);
  const { page } = app;
  // The folder in the origin-private file system, which the folder picker is made to answer.
  await page.evaluate(async (files) => {
    const root = await navigator.storage.getDirectory();
    await root.removeEntry("history", { recursive: true }).catch(() => {});
    const dir = await root.getDirectoryHandle("history", { create: true });
    for (const [path, text] of Object.entries(files)) {
      const parts = path.split("/");
      let at = dir;
      for (const part of parts.slice(0, -1)) at = await at.getDirectoryHandle(part, { create: true });
      const writable = await (await at.getFileHandle(parts.at(-1), { create: true })).createWritable();
      await writable.write(text);
      await writable.close();
    }
    window.showDirectoryPicker = async () => (await navigator.storage.getDirectory()).getDirectoryHandle("history");
  }, filesOf(home.root));
  // The insights are kept once the pass ends: listened for before the pass starts, since the
  // message can come before the status is seen.
  const insightsKept = page.waitForEvent("console", {
    predicate: (m) => /sessionscope history: insights \d+ KB/.test(m.text()),
    timeout: 90_000,
  });
  await page.getByRole("button", { name: "Choose a folder…" }).click();
  const history = page.getByRole("region", { name: "History" });
  await history.getByRole("status").filter({ hasText: /^Indexed / }).waitFor({ timeout: 60_000 });
  await insightsKept;

  await page.reload();
  await page.getByRole("button", { name: "Reopen history" }).click();
  const status = history.getByRole("status").filter({ hasText: /^Indexed / });
  await status.waitFor({ timeout: 60_000 });
  assert.match(await status.innerText(), /^Indexed \d+ of \d+ files \(0 B of 0 B\).* unchanged session file sets from the cache/);
  await history.getByRole("tab", { name: "Files" }).click();
  const lib = history.getByRole("listbox", { name: "Files" }).getByRole("option").filter({ hasText: /^src\/lib\.rs/ });
  await lib.waitFor({ timeout: 30_000 });
  assert.match(await lib.innerText(), /3 sessions · 3 changes/);
  await history.getByRole("tab", { name: "Failures" }).click();
  const expected = JSON.parse(engineOutput("failures", "--json", home.root));
  const top = history.getByRole("list", { name: "Failure groups" }).locator(".failure-count").first();
  await top.waitFor({ timeout: 30_000 });
  assert.equal(await top.innerText(), `${expected.groups[0].count} ×`);
  assert.deepEqual(app.errors, []);
  await app.context.close();
});

test("a followed session that grows: its new edit joins the Files tab and its usage makes the current 5-hour block, with its burn rate", async () => {
  if (await withoutFolderHandles(browser, server)) return;
  const app = await openApp(browser, server);
  const { page } = app;
  // The history in the origin-private file system, picked as a folder, so it is followed.
  const write = (files, append) =>
    page.evaluate(
      async ({ files, append }) => {
        const root = await navigator.storage.getDirectory();
        const dir = await root.getDirectoryHandle("growing", { create: true });
        for (const [path, text] of Object.entries(files)) {
          const parts = path.split("/");
          let at = dir;
          for (const part of parts.slice(0, -1)) at = await at.getDirectoryHandle(part, { create: true });
          const handle = await at.getFileHandle(parts.at(-1), { create: true });
          const size = append ? (await handle.getFile()).size : 0;
          const writable = await handle.createWritable({ keepExistingData: append });
          await writable.write({ type: "write", position: size, data: text });
          await writable.close();
        }
      },
      { files, append },
    );
  await page.evaluate(async () => {
    const root = await navigator.storage.getDirectory();
    await root.removeEntry("growing", { recursive: true }).catch(() => {});
    window.showDirectoryPicker = async () => (await navigator.storage.getDirectory()).getDirectoryHandle("growing");
  });
  await write(filesOf(home.root), false);
  await page.getByRole("button", { name: "Choose a folder…" }).click();
  const history = page.getByRole("region", { name: "History" });
  await history.getByRole("status").filter({ hasText: /^Indexed / }).waitFor({ timeout: 60_000 });
  await history.getByText("Changes are followed").waitFor({ timeout: 30_000 });
  await history.getByRole("tab", { name: "Files" }).click();
  const files = history.getByRole("listbox", { name: "Files" });
  await files.getByRole("option").filter({ hasText: /^src\/lib\.rs/ }).waitFor({ timeout: 30_000 });
  assert.equal(await files.getByRole("option").filter({ hasText: /^src\/grown\.rs/ }).count(), 0);

  // The agent goes on in session bbb, now: two responses a minute apart, the second an edit.
  const at = (ago) => new Date(Date.now() - ago).toISOString();
  const line = (uuid, parent, ago, message) =>
    JSON.stringify({ type: message.role, uuid, parentUuid: parent, sessionId: "bbb", cwd: "/work/app", timestamp: at(ago), message, ...(message.role === "assistant" ? { requestId: `req-${uuid}` } : {}) }) + "\n";
  const grown = [
    line("bbb-8", "bbb-7", 120_000, { role: "user", content: "Add a grown module" }),
    line("bbb-9", "bbb-8", 60_000, assistant("m-bbb-9", [{ type: "text", text: "Writing it." }], 400)),
    line("bbb-10", "bbb-9", 1_000, assistant("m-bbb-10", [{ type: "tool_use", id: "t-bbb-9", name: "Write", input: { file_path: "/work/app/src/grown.rs", content: "pub fn grown() {}\n" } }], 600)),
  ].join("");
  await write({ "projects/-work-app/bbb.jsonl": grown }, true);
  const added = files.getByRole("option").filter({ hasText: /^src\/grown\.rs/ });
  await added.waitFor({ timeout: 30_000 });
  assert.match(await added.innerText(), /1 session · 1 change/);

  // Its usage is the current block's: since the hour it began, with a burn rate.
  await history.getByRole("tab", { name: "Activity" }).click();
  const burn = history.getByRole("status").filter({ hasText: /^Current block, since / });
  await burn.waitFor({ timeout: 30_000 });
  assert.match(await burn.innerText(), /: 1,020 tokens, \$[\d.]+; burning [\d,]+ tokens a minute/);
  assert.deepEqual(app.errors, []);
  await app.context.close();
});
