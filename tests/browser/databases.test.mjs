// Agents' SQLite databases opened in the browser: OpenCode's opencode.db and Cursor's
// state.vscdb, built here from the project's SQL fixtures with sqlite-wasm in Node. The page
// fetches SQLite (dist/sqlite/) only once a database is opened, makes the database its record
// stream (the bytes `sessionscope records` prints), and shows it as any log; a database that
// cannot be read says why, in the load and in the history, and the tab stays alive.
import { before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sqlite3InitModule from "@sqlite.org/sqlite-wasm";
import { test, DIST, ROOT, openApp, said, dropFiles, dropFolder, tree, engineSummary, engineIndex, engineOutput, databaseOf, servedForTests } from "./harness.mjs";

const FIXTURES = join(ROOT, "crates/engine/tests/fixtures");
let server;
let browser;
servedForTests((site) => ({ server, browser } = site));
let dir;
const db = {};

/**
 * A write-ahead log that turns the database `before` into `after` (both in WAL mode, pages of
 * `pageSize`): one transaction writing every page that differs, as SQLite writes one (little-endian
 * checksums, salts of our own).
 */
function walBetween(before, after, pageSize) {
  const frames = [];
  for (let page = 0; page * pageSize < after.length; page++) {
    const a = after.subarray(page * pageSize, (page + 1) * pageSize);
    const b = before.subarray(page * pageSize, (page + 1) * pageSize);
    if (!a.equals(b)) frames.push({ number: page + 1, bytes: a });
  }
  let s0 = 0;
  let s1 = 0;
  const sum = (bytes) => {
    for (let i = 0; i < bytes.length; i += 8) {
      s0 = (s0 + bytes.readUInt32LE(i) + s1) >>> 0;
      s1 = (s1 + bytes.readUInt32LE(i + 4) + s0) >>> 0;
    }
  };
  const header = Buffer.alloc(32);
  header.writeUInt32BE(0x377f0682, 0);
  header.writeUInt32BE(3007000, 4);
  header.writeUInt32BE(pageSize, 8);
  header.writeUInt32BE(0, 12);
  header.writeUInt32BE(0x1234abcd, 16);
  header.writeUInt32BE(0x0badf00d, 20);
  sum(header.subarray(0, 24));
  header.writeUInt32BE(s0, 24);
  header.writeUInt32BE(s1, 28);
  const out = [header];
  frames.forEach((frame, i) => {
    const head = Buffer.alloc(24);
    head.writeUInt32BE(frame.number, 0);
    head.writeUInt32BE(i === frames.length - 1 ? after.length / pageSize : 0, 4);
    head.writeUInt32BE(0x1234abcd, 8);
    head.writeUInt32BE(0x0badf00d, 12);
    sum(head.subarray(0, 8));
    sum(frame.bytes);
    head.writeUInt32BE(s0, 16);
    head.writeUInt32BE(s1, 20);
    out.push(head, frame.bytes);
  });
  return Buffer.concat(out);
}

/** Writes `bytes` at `path` under the test's folder; answers the full path. */
function put(path, bytes) {
  const full = join(dir, path);
  mkdirSync(join(full, ".."), { recursive: true });
  writeFileSync(full, bytes);
  return full;
}

/** `sessionscope records <path>`: the stream the command line makes of a database. */
function records(path) {
  return engineOutput("records", path);
}

const isSqlite = (url) => new URL(url).pathname.includes("/sqlite/");

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "sessionscope-databases-"));
  const sqlite3 = await sqlite3InitModule();
  const opencodeSql = readFileSync(join(FIXTURES, "opencode/opencode.sql"), "utf8");
  db.opencode = databaseOf(sqlite3, opencodeSql);
  db.cursor = databaseOf(sqlite3, readFileSync(join(FIXTURES, "cursor/state.sql"), "utf8"));
  db.other = databaseOf(sqlite3, "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('not a chat');");
  // Half a database: copied while it was written.
  db.cut = db.opencode.subarray(0, db.opencode.length / 2);
  // A database whose pages past the first are garbage, at its full length.
  db.damaged = Buffer.from(db.opencode);
  for (let i = 4096; i < db.damaged.length; i++) db.damaged[i] = (i * 7919) & 0xff;
  // In write-ahead-log mode (its header says so): the rows of its log are not in the file.
  const inWal = (bytes) => {
    const copy = Buffer.from(bytes);
    copy[18] = 2;
    copy[19] = 2;
    return copy;
  };
  db.walMode = inWal(db.opencode);
  const later = databaseOf(
    sqlite3,
    `${opencodeSql}
     INSERT INTO message VALUES ('msg_u9', 'ses_other', 1750001005000, 1750001005000,
       '{"role":"user","time":{"created":1750001005000},"agent":"build"}');
     INSERT INTO part VALUES ('prt_u9_01', 'msg_u9', 'ses_other', 1750001005000, 1750001005000,
       '{"type":"text","text":"Only in the write-ahead log: add a licence too"}');`,
  );
  db.wal = walBetween(db.walMode, inWal(later), db.opencode.readUInt16BE(16));
  db.opencodePath = put("drop/opencode.db", db.opencode);
  db.cursorPath = put("drop/state.vscdb", db.cursor);
});

after(async () => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The bytes of SQLite the page fetches (raw and Brotli), from the built site. */
function sqliteWeight() {
  let raw = 0;
  let brotli = 0;
  for (const name of readdirSync(join(DIST, "sqlite"))) {
    if (/\.(br|gz)$/.test(name)) continue;
    raw += statSync(join(DIST, "sqlite", name)).size;
    brotli += statSync(join(DIST, "sqlite", `${name}.br`)).size;
  }
  return { raw, brotli };
}

const digits = (text) => Number(text.replace(/[^0-9]/g, ""));

const CASES = [
  {
    name: "opencode.db",
    path: () => db.opencodePath,
    label: "OpenCode database",
    title: "Fix the parser",
    prompt: "Fix the parser bug in src/parse.rs",
    tool: { name: "read", result: "fn parse() {}" },
  },
  {
    name: "state.vscdb",
    path: () => db.cursorPath,
    label: "Cursor IDE database",
    title: "Rename the flag",
    prompt: "Rename --verbose to --debug",
    tool: { name: "read_file", result: "--verbose" },
  },
];

for (const c of CASES) {
  test(`a dropped ${c.label} is read in the browser: its prompt, a tool call with its result, the panel and the statistics of sessionscope summary`, async () => {
    const engine = engineSummary(c.path());
    const session = engine.sessions.find((s) => s.title === c.title);
    assert.ok(session, `the engine reads ${c.title}`);
    const stream = records(c.path());

    // The browser's cache is the context's: a new context fetches SQLite again.
    const servedBefore = server.served.length;
    const app = await openApp(browser, server);
    const page = app.page;
    const read = [];
    page.on("console", (m) => {
      const said = m.text().match(/^sessionscope database: \S+ \(\d+ bytes\) read in (\d+) ms: (\d+) bytes of records/);
      if (said) read.push({ ms: Number(said[1]), bytes: Number(said[2]) });
    });
    // Once the start page has done what it does by itself (a worker started ahead, the example
    // fetched and parsed), still nothing of SQLite.
    await said(page, "spare-ready");
    await said(page, "example-prepared");
    assert.ok(!server.served.slice(servedBefore).some((u) => isSqlite(`http://x${u}`)), "nothing of SQLite is fetched before a database is opened");
    const dropped = Date.now();
    await dropFiles(page, [{ name: c.name, bytes: readFileSync(c.path()) }]);
    await tree(page).waitFor();
    const opened = Date.now() - dropped;
    const weight = sqliteWeight();
    console.log(
      `${c.name} (${readFileSync(c.path()).length} bytes): its record stream made in ${read[0]?.ms} ms (SQLite fetched and compiled included), shown ${opened} ms after the drop; SQLite fetched: ${(weight.raw / 1024).toFixed(0)} KB (${(weight.brotli / 1024).toFixed(0)} KB as Brotli)`,
    );
    const fetched = server.served.slice(servedBefore).filter((u) => isSqlite(`http://x${u}`)).map((u) => u.split("/").pop());
    assert.deepEqual(fetched.sort(), ["index.mjs", "records.mjs", "sqlite3.wasm"], "SQLite, from the site itself");

    // The load summary: read as the agent's database, every line of its record stream counted.
    const loadSummary = page.getByRole("region", { name: "Load summary" });
    await loadSummary.getByText(`Read as: ${c.label} (1 file)`).click();
    const cells = await loadSummary.getByRole("table", { name: "Files read" }).getByRole("row").nth(1).getByRole("cell").allInnerTexts();
    assert.deepEqual(cells.slice(0, 2), [c.name, c.label]);
    assert.equal(digits(cells[2]), engine.lines, "as many lines as the command line's record stream");
    assert.equal(engine.lines, stream.split("\n").length - 1);
    assert.equal(read[0]?.bytes, Buffer.byteLength(stream), "as many bytes as the command line's record stream");

    // The session, its first prompt, and the raw line behind it: the command line's, byte for byte.
    const sessions = page.getByRole("region", { name: "Sessions" });
    if ((await sessions.count()) > 0) await sessions.getByRole("button", { name: c.title }).first().click();
    const prompt = tree(page).getByRole("treeitem").filter({ hasText: c.prompt }).first();
    await prompt.waitFor();
    await prompt.click();
    await page.keyboard.press("r");
    const raw = prompt.getByRole("group", { name: "Raw lines" });
    await raw.waitFor();
    // The raw view names the line and its bytes, and shows it parsed: the command line's line,
    // at the same number, of the same length, with the same content.
    const rawText = await raw.innerText();
    const named = rawText.match(new RegExp(`^${c.name.replace(".", "\\.")}:(\\d+) · (\\d+) bytes\\n`));
    assert.ok(named, `named by the database, its line and bytes: ${rawText.slice(0, 80)}`);
    const line = stream.split("\n")[Number(named[1]) - 1];
    assert.equal(Buffer.byteLength(line), Number(named[2]), `the stream's line ${named[1]} as the command line writes it: ${line}`);
    assert.deepEqual(JSON.parse(rawText.slice(named[0].length)), JSON.parse(line));
    await page.keyboard.press("r");
    await raw.waitFor({ state: "detached" });

    // A tool call, opened: its result.
    const call = tree(page).getByRole("treeitem").filter({ has: page.locator(".tool-name", { hasText: new RegExp(`^${c.tool.name}$`) }) }).first();
    await call.waitFor();
    await call.locator(".twisty").click();
    await tree(page).getByText(c.tool.result).first().waitFor();

    // The side panel: every operation the engine paired.
    const operations = session.tool_results + session.unpaired_tool_uses;
    const panel = page.getByRole("complementary", { name: "Tool operations" });
    await panel.getByRole("status").filter({ hasText: `${operations} of ${operations} operations` }).waitFor();

    // Statistics: the session's tokens and cost as the command line counts them.
    await page.getByRole("tab", { name: "Statistics" }).click();
    const row = await page.getByRole("table", { name: "Tokens per session" }).getByRole("row").filter({ hasText: c.title }).first().getByRole("cell").allInnerTexts();
    const u = session.usage_with_agents;
    assert.ok(u.input_tokens + u.output_tokens > 0, "the fixture has token counts");
    assert.deepEqual(row.slice(0, 4).map(digits), [u.input_tokens, u.output_tokens, u.cache_creation_input_tokens, u.cache_read_input_tokens]);
    assert.ok(Math.abs(Number(row[4].replace("$", "")) - session.cost_with_agents_usd) <= 0.00005 + 1e-12, `${row[4]} for ${session.cost_with_agents_usd}`);

    assert.deepEqual(app.errors, []);
    assert.deepEqual(app.foreignRequests(), []);
    await app.context.close();
  });
}

test("a database cut short, a damaged one and one of another schema each say why; a good one dropped with them opens", async () => {
  const app = await openApp(browser, server);
  const page = app.page;
  const alert = page.getByRole("alert").filter({ hasText: "Could not open the files" });
  const cases = [
    { name: "opencode.db", bytes: db.cut, says: /opencode\.db: is cut short \(half-written, or copied while it was being written\): its header gives it \d+ bytes, the file holds \d+/ },
    { name: "opencode.db", bytes: db.damaged, says: /opencode\.db: is damaged: SQLite could not read/ },
    { name: "state.vscdb", bytes: db.other, says: /state\.vscdb: is an SQLite database of another schema: neither OpenCode's .* nor Cursor's .*; its tables: notes/ },
  ];
  for (const c of cases) {
    await dropFiles(page, [{ name: c.name, bytes: c.bytes }]);
    await alert.filter({ hasText: c.says }).waitFor();
  }
  // The command line says the same of the same files.
  const cutPath = put("bad/cut/opencode.db", db.cut);
  const otherPath = put("bad/other/state.vscdb", db.other);
  for (const [path, says] of [[cutPath, cases[0].says], [otherPath, cases[2].says]]) {
    let stderr = "";
    try {
      records(path);
    } catch (error) {
      stderr = error.stderr.toString();
    }
    const page_says = says.source.replace(/^opencode\\\.db: |^state\\\.vscdb: /, "");
    assert.match(stderr, new RegExp(page_says), `the command line: ${stderr}`);
  }

  // Dropped with a good one: the good one opens, the others are listed with their reasons.
  await dropFiles(page, [
    { name: "opencode.db", bytes: db.opencode },
    { name: "state.vscdb", bytes: db.other },
  ]);
  await tree(page).waitFor();
  const loadSummary = page.getByRole("region", { name: "Load summary" });
  await loadSummary.getByRole("alert").filter({ hasText: /state\.vscdb: is an SQLite database of another schema/ }).waitFor();
  const sessions = page.getByRole("region", { name: "Sessions" });
  await sessions.getByRole("button", { name: "Add a README" }).first().waitFor();

  // A database in write-ahead-log mode dropped without its log: read, and said.
  await dropFiles(page, [{ name: "opencode.db", bytes: db.walMode }]);
  await page.getByRole("dialog", { name: "Add or replace" }).getByRole("button", { name: "Replace" }).click();
  await sessions.getByRole("button", { name: "Add a README" }).first().waitFor();
  await loadSummary.getByText(/opencode\.db: is in write-ahead-log mode and came without its log \(opencode\.db-wal\)/).waitFor();
  assert.deepEqual(app.errors, []);
  assert.deepEqual(app.foreignRequests(), []);
  await app.context.close();
});

test("a database is known by its bytes and tables, not its name: a copy dropped as ledger-backup.db opens, and a folder's renamed copies are indexed as the command line indexes them", async () => {
  const app = await openApp(browser, server);
  const page = app.page;
  await dropFiles(page, [{ name: "ledger-backup.db", bytes: db.opencode }]);
  await tree(page).waitFor();
  const loadSummary = page.getByRole("region", { name: "Load summary" });
  await loadSummary.getByText("Read as: OpenCode database (1 file)").waitFor();
  const sessions = page.getByRole("region", { name: "Sessions" });
  if ((await sessions.count()) > 0) await sessions.getByRole("button", { name: "Fix the parser" }).first().click();
  await tree(page).getByRole("treeitem").filter({ hasText: "Fix the parser bug in src/parse.rs" }).first().waitFor();
  await app.context.close();

  const folder = join(dir, "renamed");
  put("renamed/backups/opencode.db.bak", db.opencode);
  put("renamed/cursor/state.vscdb.backup", db.cursor);
  put("renamed/notes.db", Buffer.from("plain words, no database"));
  const expected = engineIndex(folder);
  assert.ok(expected.sessions.some((row) => row.title === "Fix the parser"), "the command line indexes the renamed copy");
  const second = await openApp(browser, server);
  await dropFolder(second.page, folder);
  const history = second.page.getByRole("region", { name: "History" });
  await history.getByRole("status").filter({ hasText: /^Indexed / }).waitFor({ timeout: 60_000 });
  const listed = history.getByRole("listbox", { name: "Sessions" });
  assert.equal(await listed.getByRole("option").count(), expected.sessions.length, "every session the command line indexes");
  for (const title of ["Fix the parser", "Rename the flag"]) {
    await listed.getByRole("option").filter({ hasText: title }).first().waitFor();
  }
  const problems = history.getByRole("region", { name: "Files not indexed" });
  await problems.getByText(/files? holds? no session/).click();
  const notes = expected.problems.find((p) => p.path.endsWith("notes.db"));
  assert.ok(notes, "the command line lists notes.db");
  assert.ok((await problems.innerText()).includes(notes.reason), `notes.db: ${notes.reason}`);
  assert.deepEqual(second.errors, []);
  await second.context.close();
});

test("a folder of agents' databases is indexed: each database's sessions, its log read with it, the broken ones listed with their reasons", async () => {
  const folder = join(dir, "agents");
  put("agents/opencode/opencode.db", db.walMode);
  put("agents/opencode/opencode.db-wal", db.wal);
  put("agents/Cursor/User/globalStorage/state.vscdb", db.cursor);
  put("agents/broken/opencode.db", db.cut);
  put("agents/other/state.vscdb", db.other);
  const expected = engineIndex(folder);

  const app = await openApp(browser, server);
  const page = app.page;
  await dropFolder(page, folder);
  const history = page.getByRole("region", { name: "History" });
  await history.getByRole("status").filter({ hasText: /^Indexed / }).waitFor({ timeout: 60_000 });
  const sessions = history.getByRole("listbox", { name: "Sessions" });
  assert.equal(await sessions.getByRole("option").count(), expected.sessions.length, "every session the command line indexes");
  for (const row of expected.sessions) {
    const title = row.title || row.session_id;
    await sessions.getByRole("option").filter({ hasText: title }).first().waitFor();
  }
  // The broken and the foreign database, with the command line's reasons.
  const problems = history.getByRole("region", { name: "Files not indexed" });
  await problems.getByText(/files? holds? no session/).click();
  const listed = await problems.innerText();
  for (const problem of expected.problems) {
    assert.ok(listed.includes(problem.reason), `${problem.path}: ${problem.reason}\n${listed}`);
  }
  assert.ok(!listed.includes("opencode.db-wal"), "the log is read with its database, not listed");

  // A session opens on demand; the row that is only in the log is there.
  await sessions.getByRole("option").filter({ hasText: "Add a README" }).first().click();
  await tree(page).getByRole("treeitem").filter({ hasText: "Only in the write-ahead log" }).first().waitFor({ timeout: 30_000 });
  const loadSummary = page.getByRole("region", { name: "Load summary" });
  await loadSummary.getByText(/a write-ahead log beside it holds rows not yet in the file \(\d+ bytes\): they were read/).waitFor();
  assert.deepEqual(app.errors, []);
  assert.deepEqual(app.foreignRequests(), []);
  await app.context.close();
});
