// Remembered folders in a real browser: a folder chosen with the browser's folder picker is kept
// (its handle and its cached index in IndexedDB); after a reload it reopens with one click from
// the cache, with the same list; a changed file and a new session are read again, the rest is
// not; a folder that is gone says so; "Forget" removes the folder and its cache.
//
// The folder lives in the origin-private file system, whose handles are the same
// FileSystemDirectoryHandle the picker gives: `showDirectoryPicker` is made to answer it.
import assert from "node:assert/strict";
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { test, withoutFolderHandles, ROOT, openApp, said, saidSoFar, waitForApp, dropFolder, writeFolder, pickerAnswers, chooseFolder, indexed, servedForTests } from "./harness.mjs";

const DAG = join(ROOT, "crates/engine/tests/fixtures/dag");
const SESSIONS = join(ROOT, "tests/fixtures/sessions");
let server;
let browser;
servedForTests((site) => ({ server, browser } = site));

/** Every file under `dir`, as { "<prefix>/<relative path>": text }. */
function filesOf(dir, prefix) {
  const out = {};
  const walk = (at) => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else out[`${prefix}/${relative(dir, path)}`] = readFileSync(path, "utf8");
    }
  };
  walk(dir);
  return out;
}

/** A `projects` folder of three projects, made from the project's own fixtures. */
function history() {
  return {
    ...filesOf(join(DAG, "agents"), "-home-dev-alpha"),
    ...filesOf(join(DAG, "rewind-compaction"), "-home-dev-alpha"),
    ...filesOf(join(DAG, "compaction-1.0"), "-home-dev-beta"),
    "-home-dev-gamma/kettle-rename.jsonl": readFileSync(join(SESSIONS, "kettle-rename.jsonl"), "utf8"),
    "-home-dev-gamma/coloured-test-run.jsonl": readFileSync(join(SESSIONS, "coloured-test-run.jsonl"), "utf8"),
  };
}

async function sessionTexts(region) {
  const options = region.getByRole("listbox", { name: "Sessions" }).getByRole("option");
  return (await options.allInnerTexts()).sort();
}

test("a picked folder is remembered, reopens after a reload from its cached index (once the browser's permission is given), re-reads what changed, and is forgotten", async () => {
  if (await withoutFolderHandles(browser, server)) return;
  const app = await openApp(browser, server);
  const { page } = app;
  await page.evaluate(async () => (await navigator.storage.getDirectory()).removeEntry("projects", { recursive: true }).catch(() => {}));
  const files = history();
  let { region, status } = await chooseFolder(page, "projects", files);
  assert.doesNotMatch(status, /from the cache/, "the first visit reads every file");
  const first = await sessionTexts(region);
  assert.ok(first.length >= 5, `sessions listed: ${first.length}`);
  // The page says when the index is kept: a reload before would read the folder again.
  await region.getByText("next time it reopens from its cached index").waitFor();

  // The next visit: one click reopens it, every session from the cache, the same list.
  await page.reload();
  await waitForApp(page);
  const remembered = page.getByRole("region", { name: "Remembered folders" });
  // The user refuses the browser's permission prompt: the page says how to go on.
  await page.evaluate(() => {
    window.realRequestPermission = FileSystemHandle.prototype.requestPermission;
    FileSystemHandle.prototype.requestPermission = async () => "denied";
  });
  await remembered.getByRole("button", { name: "Reopen projects" }).click();
  const refused = page.getByRole("alert").filter({ hasText: "permission to read projects was not given" });
  await refused.waitFor();
  assert.match(await refused.innerText(), /reopen it and allow reading, or choose it again/);
  await page.evaluate(() => {
    if (window.realRequestPermission) FileSystemHandle.prototype.requestPermission = window.realRequestPermission;
    else delete FileSystemHandle.prototype.requestPermission;
  });
  await remembered.getByRole("button", { name: "Reopen projects" }).click();
  ({ region, status } = await indexed(page));
  const units = Number(/(\d+) unchanged session file sets? from the cache/.exec(status)?.[1]);
  assert.ok(units >= 5, `every unit from the cache: ${status}`);
  assert.match(status, /^Indexed \d+ of \d+ files \(0 B of 0 B\)/, `no byte was read: ${status}`);
  assert.deepEqual(await sessionTexts(region), first);
  // The units' trigram sets came back with the index: a search reads no session that cannot
  // hold its word.
  const search = region.getByRole("region", { name: "Search all sessions" });
  await search.getByLabel("Exact").check();
  await search.getByLabel("Search every session").fill("xylophone-quartz");
  await search.getByRole("button", { name: "Search" }).click();
  const notRead = new RegExp(`^0 matches in 0 sessions · .* · ${first.length} sessions not read: the index rules them out$`);
  await search.getByRole("status").filter({ hasText: notRead }).waitFor({ timeout: 30_000 });

  // A session grows and a new one appears: those two are read, the rest comes from the cache.
  const kettle = files["-home-dev-gamma/kettle-rename.jsonl"];
  const lastLine = kettle.trimEnd().split("\n").at(-1);
  const grown = JSON.parse(lastLine);
  grown.uuid = "f0110000-0000-4000-8000-000000000001";
  grown.parentUuid = JSON.parse(lastLine).uuid;
  await writeFolder(page, "projects", { "-home-dev-gamma/kettle-rename.jsonl": JSON.stringify(grown) + "\n" }, { append: true });
  await writeFolder(page, "projects", { "-home-dev-gamma/kettle-again.jsonl": kettle.replaceAll("5e550000", "5e551111") });
  await page.reload();
  await waitForApp(page);
  await page.getByRole("button", { name: "Reopen projects" }).click();
  ({ region, status } = await indexed(page));
  assert.match(status, new RegExp(`${units - 1} unchanged session file sets from the cache`), status);
  assert.match(status, /^Indexed \d+ of \d+ files \((?!0 B)/, `the changed and the new file were read: ${status}`);
  const again = await sessionTexts(region);
  assert.equal(again.length, first.length + 1, "the new session is listed");

  // Forget: the folder and its cache leave this browser.
  await region.getByRole("button", { name: "Forget this folder" }).click();
  await region.getByText("remembered in this browser").waitFor({ state: "detached" });
  const stored = await page.evaluate(
    () =>
      new Promise((ok, fail) => {
        const open = indexedDB.open("sessionscope");
        open.onerror = () => fail(open.error);
        open.onsuccess = () => {
          const db = open.result;
          const t = db.transaction(["folders", "indexes"]);
          const folders = t.objectStore("folders").count();
          const indexes = t.objectStore("indexes").count();
          t.oncomplete = () => ok({ folders: folders.result, indexes: indexes.result });
        };
      }),
  );
  assert.deepEqual(stored, { folders: 0, indexes: 0 });
  await page.reload();
  await waitForApp(page);
  assert.equal(await page.getByRole("region", { name: "Remembered folders" }).count(), 0);
  assert.deepEqual(app.errors, []);
  await app.context.close();
});

test("a remembered folder that is gone says so on the page, and nothing else is lost", async () => {
  if (await withoutFolderHandles(browser, server)) return;
  const app = await openApp(browser, server);
  const { page } = app;
  await chooseFolder(page, "moving", history());
  await page.evaluate(async () => (await navigator.storage.getDirectory()).removeEntry("moving", { recursive: true }));
  await page.reload();
  await waitForApp(page);
  await page.getByRole("button", { name: "Reopen moving" }).click();
  const alert = page.getByRole("alert");
  await alert.waitFor();
  assert.match(await alert.innerText(), /moving could not be read: the folder or file is no longer there/);
  // The start page stays, with the folder still offered (it may come back) and forgettable.
  await page.getByRole("button", { name: "Forget moving" }).click();
  await page.getByRole("button", { name: "Reopen moving" }).waitFor({ state: "detached" });
  assert.deepEqual(app.errors, []);
  await app.context.close();
});

/**
 * Appends `files` to the folder `root` of the page's storage, as an agent writes: answers the
 * index of what the page had said by then (`said`) and the page's clock (`at`) once written.
 */
async function writeFolderAt(page, root, files) {
  await writeFolder(page, root, files, { append: true });
  return { said: await saidSoFar(page), at: await page.evaluate(() => performance.now()) };
}

/**
 * Waits until the follow reads again what was `written` ([`writeFolderAt`]), and asserts that
 * the first look that started after the write read it: no look missed it.
 */
async function readByTheNextLook(page, written) {
  const read = await said(page, "follow-looked", { after: written.said, where: (d) => d.startedMs >= written.at && d.unitsRead > 0 });
  const missed = await page.evaluate(
    ({ after, at, until }) => (window.__said || []).slice(after + 1).filter((d) => d.name === "follow-looked" && !d.walk && d.startedMs >= at && d.startedMs < until && d.unitsRead === 0),
    { after: written.said, at: written.at, until: read.startedMs },
  );
  assert.deepEqual(missed, [], "the first look after the write read the session again");
}

/** A user message answering `parent`, of the kettle session, as one JSONL line. */
function kettleLine(uuid, parent, text) {
  return (
    JSON.stringify({
      isSidechain: false,
      userType: "external",
      cwd: "/home/dev/projects/kettle",
      sessionId: "5e550000-0000-4000-8000-00000000beef",
      version: "2.1.41",
      parentUuid: parent,
      type: "user",
      message: { role: "user", content: text },
      uuid,
      timestamp: "2026-04-02T09:30:00.000Z",
    }) + "\n"
  );
}

test("a followed folder: an appended line shows in the open session and keeps the selection, a half-written line waits, a new session appears, a rewritten file is read again", async () => {
  if (await withoutFolderHandles(browser, server)) return;
  const app = await openApp(browser, server);
  const { page } = app;
  const files = history();
  const { region } = await chooseFolder(page, "live", files);
  await region.getByText("Changes are followed").waitFor();
  const before = (await sessionTexts(region)).length;
  await region.getByLabel("Filter by title").fill("rename");
  await region.getByRole("listbox", { name: "Sessions" }).getByRole("option").first().click();
  const tree = page.getByRole("tree");
  const first = tree.getByRole("treeitem").first();
  await first.click();
  const selected = await tree.locator('[role="treeitem"][aria-selected="true"]').innerText();

  // The agent writes a line: it shows without a reload, marked new, the selection unchanged,
  // and the totals count it.
  const kettle = files["-home-dev-gamma/kettle-rename.jsonl"];
  const last = JSON.parse(kettle.trimEnd().split("\n").at(-1)).uuid;
  const totals = page.getByRole("status").filter({ hasText: /sessions? · \d+ files? · / });
  const linesNow = async () => Number(/(\d+) lines/.exec(await totals.innerText())[1]);
  const linesBefore = await linesNow();
  const appended = Date.now();
  const written = await writeFolderAt(page, "live", { "-home-dev-gamma/kettle-rename.jsonl": kettleLine("f0110000-0000-4000-8000-000000000002", last, "Also rename the kettle tests") });
  await tree.getByText("Also rename the kettle tests").waitFor({ timeout: 15_000 });
  await readByTheNextLook(page, written);
  console.log(`# a followed session: an appended line shown ${(Date.now() - appended) / 1000} s after it was written`);
  assert.equal(await tree.locator('[role="treeitem"][aria-selected="true"]').innerText(), selected, "the selection stays");
  assert.match(await tree.locator('[role="treeitem"][aria-description="new"]').first().innerText(), /Also rename the kettle tests/);
  assert.equal(await linesNow(), linesBefore + 1, "the totals count the new line");

  // While the tab is hidden nothing is looked at (a look comes and is skipped); once it shows
  // again, the line comes.
  await page.evaluate(() => Object.defineProperty(document, "hidden", { configurable: true, get: () => true }));
  await writeFolder(page, "live", { "-home-dev-gamma/kettle-rename.jsonl": kettleLine("f0110000-0000-4000-8000-000000000007", "f0110000-0000-4000-8000-000000000002", "Written while hidden") }, { append: true });
  await said(page, "follow-skipped", { after: await saidSoFar(page), where: (d) => d.hidden });
  assert.equal(await tree.getByText("Written while hidden").count(), 0, "a hidden tab does not follow");
  await page.evaluate(() => delete document.hidden);
  await tree.getByText("Written while hidden").waitFor({ timeout: 5_000 });

  // Follow keeps the newest row in view and selected.
  await page.getByRole("button", { name: "Follow" }).click();
  assert.equal(await page.getByRole("button", { name: "Follow" }).getAttribute("aria-pressed"), "true");
  await writeFolder(page, "live", { "-home-dev-gamma/kettle-rename.jsonl": kettleLine("f0110000-0000-4000-8000-000000000003", "f0110000-0000-4000-8000-000000000007", "And the docs") }, { append: true });
  await tree.locator('[role="treeitem"][aria-selected="true"]').filter({ hasText: "And the docs" }).waitFor({ timeout: 5_000 });

  // The agent has written half a line: it waits for the rest (no row, no diagnostic), then
  // shows once its newline is in. Only what the file grew by is read.
  const reads = [];
  page.on("console", (m) => m.text().startsWith("sessionscope follow: read") && reads.push(m.text()));
  const third = kettleLine("f0110000-0000-4000-8000-000000000004", "f0110000-0000-4000-8000-000000000003", "Half now, half later");
  const half = Math.floor(third.length / 2);
  const halfWritten = await writeFolderAt(page, "live", { "-home-dev-gamma/kettle-rename.jsonl": third.slice(0, half) });
  // The session is read again (the file grew), and shows no more than before.
  await said(page, "session-read-again", { after: halfWritten.said, where: (d) => d.startedMs >= halfWritten.at });
  assert.equal(await tree.getByText("Half now, half later").count(), 0, "half a line is no row");
  assert.equal(await page.locator("details.diagnostics").count(), 0, "half a line is no diagnostic");
  await writeFolder(page, "live", { "-home-dev-gamma/kettle-rename.jsonl": third.slice(half) }, { append: true });
  await tree.getByText("Half now, half later").waitFor({ timeout: 5_000 });
  assert.equal(await page.locator("details.diagnostics").count(), 0, "the line, whole, is read as one");
  const grown = reads.filter((r) => !r.includes("(whole)"));
  assert.ok(grown.length >= 1, `the session was read on from where it stood: ${reads.join(" | ")}`);
  assert.ok(grown.every((r) => Number(r.match(/read (\d+) of/)[1]) < third.length + 10), `only the new bytes were read: ${grown.join(" | ")}`);

  // A file rewritten shorter is read again whole, and the page says so.
  const firstTwo = kettle.split("\n").slice(0, 2).join("\n") + "\n";
  await writeFolder(page, "live", { "-home-dev-gamma/kettle-rename.jsonl": firstTwo });
  await page.getByRole("status").filter({ hasText: "kettle-rename.jsonl was rewritten since it was read" }).waitFor({ timeout: 15_000 });
  await tree.getByText("Also rename the kettle tests").waitFor({ state: "detached", timeout: 15_000 });

  // A new session appears in the history without a reload.
  await writeFolder(page, "live", { "-home-dev-gamma/kettle-again.jsonl": kettle.replaceAll("5e550000", "5e552222") });
  await page.keyboard.press("Alt+ArrowLeft");
  await region.getByLabel("Filter by title").fill("");
  await page.waitForFunction(
    (count) => document.querySelectorAll('[aria-label="Sessions"] [role="option"]').length === count,
    before + 1,
    { timeout: 20_000 },
  );
  // The ranked search counts the rewritten session and the new one from the word indexes their
  // refreshes made: the status names no session read for want of one.
  const search = region.getByRole("region", { name: "Search all sessions" });
  await search.getByLabel("Search every session").fill("kettle");
  const found = search.getByRole("status").filter({ hasText: /^\d+ sessions? found of \d+/ });
  await found.waitFor({ timeout: 30_000 });
  assert.match(await found.innerText(), /^\d+ sessions? found of \d+ · \d+ ms$/);
  assert.deepEqual(app.errors, []);
  await app.context.close();
});

test("a picked folder that holds one session opens it, and follows it: an appended line is read by the next look", async () => {
  if (await withoutFolderHandles(browser, server)) return;
  const app = await openApp(browser, server);
  const { page } = app;
  const kettle = readFileSync(join(SESSIONS, "kettle-rename.jsonl"), "utf8");
  await writeFolder(page, "single", { "-home-dev-gamma/kettle-rename.jsonl": kettle });
  await pickerAnswers(page, "single");
  await page.getByRole("button", { name: "Choose a folder…" }).click();
  // The one session opens by itself, as a single session always did.
  await page.getByRole("tree").getByText("Please rename the").first().waitFor({ timeout: 60_000 });
  const last = JSON.parse(kettle.trimEnd().split("\n").at(-1)).uuid;
  const appended = Date.now();
  const written = await writeFolderAt(page, "single", { "-home-dev-gamma/kettle-rename.jsonl": kettleLine("f0110000-0000-4000-8000-000000000009", last, "One session, followed too") });
  await page.getByRole("tree").getByText("One session, followed too").waitFor({ timeout: 15_000 });
  await readByTheNextLook(page, written);
  console.log(`# a followed single session: an appended line shown ${(Date.now() - appended) / 1000} s after it was written`);
  assert.deepEqual(app.errors, []);
  await app.context.close();
});

test("a followed folder that goes away while a session is open: the session page says it is no longer followed, and what is shown stays", async () => {
  if (await withoutFolderHandles(browser, server)) return;
  const app = await openApp(browser, server);
  const { page } = app;
  const { region } = await chooseFolder(page, "leaving", history());
  await region.getByText("Changes are followed").waitFor();
  await region.getByLabel("Filter by title").fill("rename");
  await region.getByRole("listbox", { name: "Sessions" }).getByRole("option").first().click();
  const tree = page.getByRole("tree");
  await tree.getByRole("treeitem").first().waitFor();
  const rows = await tree.getByRole("treeitem").count();
  await page.getByRole("button", { name: "Follow" }).waitFor();

  await page.evaluate(async () => (await navigator.storage.getDirectory()).removeEntry("leaving", { recursive: true }));
  const notice = page.getByRole("status").filter({ hasText: "leaving is no longer followed" });
  await notice.waitFor({ timeout: 25_000 });
  assert.match(await notice.innerText(), /What was read stays/);
  assert.equal(await tree.getByRole("treeitem").count(), rows, "the session on screen stays");
  await page.getByRole("button", { name: "Follow" }).waitFor({ state: "detached" });
  // Back in the history, the list stays and says the same.
  await page.keyboard.press("Alt+ArrowLeft");
  await region.getByRole("alert").filter({ hasText: "leaving is no longer followed" }).waitFor();
  assert.ok((await sessionTexts(region)).length > 0);
  assert.deepEqual(app.errors, []);
  await app.context.close();
});

test("a dropped folder is remembered too: it reopens from the cache, and a line an agent appends on disk shows in the open session, also when the file changes while it is read or opened", async () => {
  if (await withoutFolderHandles(browser, server)) return;
  const dir = mkdtempSync(join(tmpdir(), "sessionscope-dropped-"));
  const projects = join(dir, "projects");
  const files = history();
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(projects, path)), { recursive: true });
    writeFileSync(join(projects, path), text);
  }
  try {
    const app = await openApp(browser, server);
    const { page } = app;
    await dropFolder(page, projects);
    let { region, status } = await indexed(page);
    assert.doesNotMatch(status, /from the cache/);
    await region.getByText("remembered in this browser").waitFor();
    const first = await sessionTexts(region);

    // The agent writes to the session's file on disk; the open session shows it (the dropped
    // folder's files have no handles of their own: they are found from the folder's).
    await region.getByLabel("Filter by title").fill("rename");
    await region.getByRole("listbox", { name: "Sessions" }).getByRole("option").first().click();
    const tree = page.getByRole("tree");
    await tree.getByRole("treeitem").first().waitFor();
    const kettle = files["-home-dev-gamma/kettle-rename.jsonl"];
    const last = JSON.parse(kettle.trimEnd().split("\n").at(-1)).uuid;
    appendFileSync(join(projects, "-home-dev-gamma/kettle-rename.jsonl"), kettleLine("f0110000-0000-4000-8000-000000000009", last, "Written on disk by the agent"));
    await tree.getByText("Written on disk by the agent").waitFor({ timeout: 5_000 });

    // The file changes on disk after the page was given it (its File is stale and can no
    // longer be read, though its size is the new one): that read fails, nothing shown is lost,
    // and the file asked for again is read.
    const failures = [];
    page.on("console", (m) => /read again failed|changed while it was read/.test(m.text()) && failures.push(m.text()));
    const kettlePath = join(projects, "-home-dev-gamma/kettle-rename.jsonl");
    await page.exposeFunction("agentWrites", (which) =>
      appendFileSync(
        kettlePath,
        which === 1
          ? kettleLine("f0110000-0000-4000-8000-000000000010", "f0110000-0000-4000-8000-000000000009", "Written before the read")
          : kettleLine("f0110000-0000-4000-8000-000000000011", "f0110000-0000-4000-8000-000000000010", "Written during the read"),
      ),
    );
    await page.evaluate(() => {
      const getFile = FileSystemFileHandle.prototype.getFile;
      let armed = true;
      FileSystemFileHandle.prototype.getFile = async function () {
        if (!armed || this.name !== "kettle-rename.jsonl") return getFile.call(this);
        armed = false;
        await window.agentWrites(1);
        const file = await getFile.call(this);
        // Files on disk have a modification time apart from their size: a later write must be
        // seen as one.
        await new Promise((r) => setTimeout(r, 20));
        await window.agentWrites(2);
        return file;
      };
    });
    await tree.getByText("Written during the read").waitFor({ timeout: 8_000 });
    await tree.getByText("Written before the read").waitFor();
    assert.equal(await tree.getByText("Written on disk by the agent").count(), 1, "what was shown stays");
    assert.ok(failures.length >= 1, "the stale file could not be read, and was asked for again");
    assert.match(failures[0], /could not be read|changed while it was read/);
    await page.keyboard.press("Alt+ArrowLeft");

    // A session is opened while its agent writes to it: the file changes after the page took
    // it, so the load fails to read it, and is tried again with the file as it is now.
    const coloured = files["-home-dev-gamma/coloured-test-run.jsonl"];
    const colouredLast = JSON.parse(coloured.trimEnd().split("\n").at(-1)).uuid;
    const loadFailures = [];
    page.on("console", (m) => m.text().startsWith("sessionscope load: failed") && loadFailures.push(m.text()));
    await page.exposeFunction("agentWritesColoured", () =>
      appendFileSync(join(projects, "-home-dev-gamma/coloured-test-run.jsonl"), kettleLine("f0110000-0000-4000-8000-000000000012", colouredLast, "Written as it was opened").replace("5e550000-0000-4000-8000-00000000beef", "c0101e55-0000-4000-8000-00000000c010")),
    );
    await page.evaluate(() => {
      const getFile = FileSystemFileHandle.prototype.getFile;
      let armed = true;
      FileSystemFileHandle.prototype.getFile = async function () {
        if (!armed || this.name !== "coloured-test-run.jsonl") return getFile.call(this);
        armed = false;
        const file = await getFile.call(this);
        await new Promise((r) => setTimeout(r, 20));
        await window.agentWritesColoured();
        return file;
      };
    });
    await region.getByLabel("Filter by title").fill("kettle tests and fix");
    await region.getByRole("listbox", { name: "Sessions" }).getByRole("option").first().click();
    await tree.getByText("Written as it was opened").waitFor({ timeout: 8_000 });
    assert.equal(await page.getByRole("alert").count(), 0, "no error is shown");
    assert.equal(loadFailures.length, 1, `the first read failed and the second did not: ${loadFailures.join(" | ")}`);
    await page.keyboard.press("Alt+ArrowLeft");
    await region.getByLabel("Filter by title").fill("");

    await page.reload();
    await waitForApp(page);
    await page.getByRole("button", { name: "Reopen projects" }).click();
    ({ region, status } = await indexed(page));
    assert.match(status, /\d+ unchanged session file sets? from the cache/, status);
    assert.equal((await sessionTexts(region)).length, first.length);

    assert.deepEqual(app.errors, []);
    await app.context.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a browser without the File System Access API keeps the plain folder picker and says what it lacks", async () => {
  const context = await browser.newContext();
  await context.addInitScript(() => {
    delete Window.prototype.showDirectoryPicker;
    delete window.showDirectoryPicker;
  });
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(server.url);
  await waitForApp(page);
  const start = page.getByRole("region", { name: "Open session logs" });
  await start.getByText("This browser cannot keep a folder between visits or follow running sessions").waitFor();
  // The folder input is there, as before; there is nothing remembered to offer.
  assert.equal(await start.getByLabel("Choose a project folder").count(), 1);
  assert.equal(await page.getByRole("region", { name: "Remembered folders" }).count(), 0);
  assert.deepEqual(errors, []);
  await context.close();
});
