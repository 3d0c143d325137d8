// What a page kept open all day remembers: what is new since the person last looked at a
// remembered history (the list's unread marks and counts, the "new since" divider, "Mark all
// seen", a followed session growing while the tab is hidden), and the stars, notes and tags
// that survive reloads and re-indexing, filter the list, and go out and come back as one file
// the CLI reads too.

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, withoutFolderHandles, openHistoryFolder, downloaded, ROOT, openApp, said, saidSoFar, waitForApp, writeFolder, chooseFolder, indexed, tree, engineOutput, servedForTests } from "./harness.mjs";

const SESSIONS = join(ROOT, "tests/fixtures/sessions");
const KETTLE = "5e550000-0000-4000-8000-00000000beef";
const KETTLE_FILE = "-home-dev-kettle/kettle-rename.jsonl";
let server;
let browser;
servedForTests((site) => ({ server, browser } = site));

/** A `projects` folder of two projects, three sessions. */
function folder() {
  const kettle = readFileSync(join(SESSIONS, "kettle-rename.jsonl"), "utf8");
  return {
    [KETTLE_FILE]: kettle,
    "-home-dev-kettle/coloured-test-run.jsonl": readFileSync(join(SESSIONS, "coloured-test-run.jsonl"), "utf8"),
    "-home-dev-pot/kettle-copy.jsonl": kettle.replaceAll("5e550000", "5e552222").replaceAll("/kettle", "/pot"),
  };
}

/** A prompt appended to the kettle session, at `time`. */
function prompt(uuid, parent, text, time) {
  return (
    JSON.stringify({
      isSidechain: false,
      userType: "external",
      cwd: "/home/dev/projects/kettle",
      sessionId: KETTLE,
      version: "2.1.41",
      parentUuid: parent,
      type: "user",
      message: { role: "user", content: text },
      uuid,
      timestamp: time,
    }) + "\n"
  );
}

async function reopen(page, name) {
  await page.reload();
  await waitForApp(page);
  await page.getByRole("region", { name: "Remembered folders" }).getByRole("button", { name: `Reopen ${name}` }).click();
  return (await indexed(page)).region;
}

/** What was seen, as the page keeps it in its storage (`null` before it is kept). */
function keptSeen(page) {
  return page.evaluate(
    () =>
      new Promise((ok) => {
        const open = indexedDB.open("sessionscope");
        open.onerror = () => ok(null);
        open.onsuccess = () => {
          const keys = open.result.transaction("indexes").objectStore("indexes").getAllKeys();
          keys.onsuccess = () => {
            const key = keys.result.find((k) => String(k).endsWith("#seen"));
            if (!key) return ok(null);
            const read = open.result.transaction("indexes").objectStore("indexes").get(key);
            read.onsuccess = () => ok(JSON.parse(read.result));
          };
        };
      }),
  );
}

/**
 * Waits until what was seen is kept in the page's storage and `holds` it (it is kept a moment
 * after it changes): read again each time the page says it kept it.
 */
async function seenKept(page, holds) {
  for (;;) {
    const after = await saidSoFar(page);
    const seen = await keptSeen(page);
    if (seen && holds(seen)) return seen;
    await said(page, "seen-kept", { after }).catch(() => assert.fail(`what was seen is not kept as expected: ${JSON.stringify(seen)}`));
  }
}

function sessions(region) {
  return region.getByRole("listbox", { name: "Sessions" }).getByRole("option");
}

test("a session that grew while the page was closed is marked with its new messages; it opens at a divider above the first new one; what was read stays read; Mark all seen", async () => {
  if (await withoutFolderHandles(browser, server)) return;
  const app = await openApp(browser, server);
  const { page } = app;
  await page.evaluate(async () => (await navigator.storage.getDirectory()).removeEntry("seen", { recursive: true }).catch(() => {}));
  let { region } = await chooseFolder(page, "seen", folder());
  // The first visit takes everything as seen: nothing is marked.
  assert.equal(await sessions(region).count(), 3);
  assert.equal(await region.locator(".unread-badge").count(), 0);
  await seenKept(page, (seen) => Object.keys(seen.sessions).length === 3);

  // The agent writes two prompts while the page is closed.
  const grown =
    prompt("f1000000-0000-4000-8000-000000000001", "aaaa0005-0000-4000-8000-000000000005", "Now rename `pour` to `serve`.", "2026-04-02T10:00:00.000Z") +
    prompt("f1000000-0000-4000-8000-000000000002", "f1000000-0000-4000-8000-000000000001", "And update the changelog.", "2026-04-02T10:01:00.000Z");
  await writeFolder(page, "seen", { [KETTLE_FILE]: grown }, { append: true });
  region = await reopen(page, "seen");
  const kettle = sessions(region).filter({ hasText: "rename the `brew` function" }).filter({ hasText: "kettle ·" });
  await kettle.getByText("2 new", { exact: true }).waitFor();
  assert.equal(await region.locator(".unread-badge").count(), 1, "only the session that grew is marked");
  // Listed alone when asked for what is new.
  await region.getByRole("checkbox", { name: "New since seen" }).check();
  assert.equal(await sessions(region).count(), 1);
  await region.getByRole("checkbox", { name: "New since seen" }).uncheck();

  // Opened: the divider stands above the first new prompt, which is selected and in view.
  await kettle.click();
  const divider = tree(page).getByRole("separator", { name: /^New since / });
  await divider.waitFor();
  const first = tree(page).getByRole("treeitem", { selected: true });
  assert.match(await first.innerText(), /New since [\s\S]*Now rename pour to serve/);
  assert.equal(await tree(page).getByRole("separator").count(), 1);

  // Seen on screen: back in the history, the mark is gone, and stays gone after a reload.
  await seenKept(page, (seen) => seen.sessions[KETTLE].messages === 7);
  await page.getByRole("button", { name: "← History" }).click();
  await region.getByRole("listbox", { name: "Sessions" }).waitFor();
  assert.equal(await region.locator(".unread-badge").count(), 0);
  region = await reopen(page, "seen");
  assert.equal(await region.locator(".unread-badge").count(), 0);

  // It grows again, and another session appears: Mark all seen clears both marks.
  await writeFolder(page, "seen", { [KETTLE_FILE]: prompt("f1000000-0000-4000-8000-000000000003", "f1000000-0000-4000-8000-000000000002", "One more.", "2026-04-02T11:00:00.000Z") }, { append: true });
  await writeFolder(page, "seen", { "-home-dev-pot/new.jsonl": readFileSync(join(SESSIONS, "kettle-rename.jsonl"), "utf8").replaceAll("5e550000", "5e553333") });
  region = await reopen(page, "seen");
  await kettle.getByText("1 new", { exact: true }).waitFor();
  await sessions(region).filter({ hasText: "new session" }).waitFor();
  await region.getByRole("button", { name: "Mark all seen (2 sessions)" }).click();
  assert.equal(await region.locator(".unread-badge").count(), 0);
  await region.getByRole("button", { name: "All seen" }).waitFor();
  await seenKept(page, (seen) => Object.keys(seen.sessions).length === 4 && seen.sessions[KETTLE].messages === 8);
  region = await reopen(page, "seen");
  assert.equal(await region.locator(".unread-badge").count(), 0);
  assert.deepEqual(app.errors, []);
  await app.context.close();
});

test("a followed session that grows while the tab is hidden shows the divider above what came meanwhile", async () => {
  if (await withoutFolderHandles(browser, server)) return;
  const app = await openApp(browser, server);
  const { page } = app;
  await page.evaluate(async () => (await navigator.storage.getDirectory()).removeEntry("hidden", { recursive: true }).catch(() => {}));
  const { region } = await chooseFolder(page, "hidden", folder());
  await sessions(region).filter({ hasText: "kettle ·" }).filter({ hasText: "rename the `brew` function" }).click();
  await tree(page).getByRole("treeitem").first().waitFor();
  assert.equal(await tree(page).getByRole("separator").count(), 0, "nothing is new when it opens");
  // The tab goes to the background; the agent writes.
  await page.evaluate(() => {
    Object.defineProperty(document, "hidden", { configurable: true, get: () => true });
    Object.defineProperty(document, "visibilityState", { configurable: true, get: () => "hidden" });
    document.dispatchEvent(new Event("visibilitychange"));
  });
  await writeFolder(page, "hidden", { [KETTLE_FILE]: prompt("f2000000-0000-4000-8000-000000000001", "aaaa0005-0000-4000-8000-000000000005", "Written while you were away.", "2026-04-02T10:00:00.000Z") }, { append: true });
  // A hidden tab looks at nothing (a look comes and is skipped); shown again, it reads what was
  // written meanwhile.
  await said(page, "follow-skipped", { after: await saidSoFar(page), where: (d) => d.hidden });
  const away = tree(page).getByRole("treeitem").filter({ hasText: "Written while you were away." });
  assert.equal(await away.count(), 0, "nothing is read while the tab is hidden");
  const shown = await saidSoFar(page);
  await page.evaluate(() => {
    delete document.hidden;
    delete document.visibilityState;
    document.dispatchEvent(new Event("visibilitychange"));
  });
  await away.waitFor({ timeout: 10_000 });
  await away.getByRole("separator", { name: /^New since \d\d:\d\d UTC$/ }).waitFor();
  // A line written while the person watches (once the moments after the tab came back are over)
  // gets no divider; the one there stays.
  await said(page, "away-over", { after: shown });
  await writeFolder(page, "hidden", { [KETTLE_FILE]: prompt("f2000000-0000-4000-8000-000000000002", "f2000000-0000-4000-8000-000000000001", "Written while you watch.", "2026-04-02T10:05:00.000Z") }, { append: true });
  await tree(page).getByRole("treeitem").filter({ hasText: "Written while you watch." }).waitFor({ timeout: 10_000 });
  assert.equal(await tree(page).getByRole("separator").count(), 1);
  await away.getByRole("separator").waitFor();
  assert.deepEqual(app.errors, []);
  await app.context.close();
});

test("a star, a note and tags on a session and on a message survive a reload and a re-index, filter the list, and go out and back in as one file the CLI reads", async () => {
  const app = await openApp(browser, server);
  const { page } = app;
  const marked = await openHistoryFolder(page, "marked", folder());
  let region = marked.region;
  await sessions(region).filter({ hasText: "kettle ·" }).filter({ hasText: "rename the `brew` function" }).click();

  // The session: starred, with a note and two tags.
  await page.getByRole("button", { name: "Star this session" }).click();
  assert.equal(await page.getByRole("button", { name: "Star this session" }).getAttribute("aria-pressed"), "true");
  await page.getByRole("button", { name: "Note & tags…" }).click();
  let dialog = page.getByRole("dialog", { name: "Note and tags on this session" });
  await dialog.getByLabel("Note").fill("The rename that broke the docs.");
  await dialog.getByLabel(/^Tags/).fill("refactor, #Docs refactor");
  await dialog.getByRole("button", { name: "Save" }).click();
  await dialog.waitFor({ state: "detached" });
  const bar = page.getByRole("group", { name: "Bookmark" });
  assert.match(await bar.innerText(), /The rename that broke the docs\.\s*#refactor\s*#Docs/);

  // A message: the second row starred with m, noted with n, by keyboard alone.
  await tree(page).focus();
  await page.keyboard.press("j");
  await page.keyboard.press("j");
  const message = tree(page).getByRole("treeitem", { selected: true });
  await page.keyboard.press("m");
  await message.getByRole("img", { name: "Starred" }).waitFor();
  await page.keyboard.press("n");
  dialog = page.getByRole("dialog", { name: "Note and tags on this message" });
  await dialog.getByLabel("Note").fill("Here it decides to touch the docs.");
  await page.keyboard.press("Control+Enter");
  await dialog.waitFor({ state: "detached" });
  await message.getByText("Here it decides to touch the docs.").waitFor();

  // The list: the star and tags on its row; filtered by star and by tag.
  await page.getByRole("button", { name: "← History" }).click();
  const starred = async () => {
    await region.getByRole("checkbox", { name: "Starred" }).check();
    const texts = await sessions(region).allInnerTexts();
    await region.getByRole("checkbox", { name: "Starred" }).uncheck();
    return texts;
  };
  let listed = await starred();
  assert.equal(listed.length, 1);
  assert.match(listed[0], /^★ .*rename the `brew` function.*#refactor\s*#Docs/s);
  await region.getByRole("combobox", { name: "Tag" }).selectOption({ label: "#Docs (1)" });
  assert.equal(await sessions(region).count(), 1);
  await region.getByRole("combobox", { name: "Tag" }).selectOption({ label: "Every tag" });
  assert.equal(await sessions(region).count(), 3);

  // The session is re-indexed (it grew) after a reload: its marks are where they were.
  await marked.append({ [KETTLE_FILE]: prompt("f3000000-0000-4000-8000-000000000001", "aaaa0005-0000-4000-8000-000000000005", "Later.", "2026-04-02T12:00:00.000Z") });
  region = await marked.reopen();
  listed = await starred();
  assert.equal(listed.length, 1);
  assert.match(listed[0], /#refactor/);
  await sessions(region).filter({ hasText: "kettle ·" }).filter({ hasText: "rename the `brew` function" }).click();
  await tree(page).getByText("Here it decides to touch the docs.").waitFor();
  assert.equal(await page.getByRole("button", { name: "Star this session" }).getAttribute("aria-pressed"), "true");
  await page.getByRole("button", { name: "← History" }).click();

  // Exported as one file…
  const exported = (await downloaded(page, () => region.getByRole("button", { name: "Export marks" }).click())).bytes.toString("utf8");
  const file = JSON.parse(exported);
  assert.equal(file.sessionscope, "marks");
  const marks = file.sessions[KETTLE];
  assert.equal(marks.starred, true);
  assert.deepEqual(marks.tags, ["refactor", "Docs"]);
  const entries = Object.entries(marks.entries);
  assert.equal(entries.length, 1);
  assert.equal(entries[0][1].note, "Here it decides to touch the docs.");
  assert.equal(entries[0][1].starred, true);

  // …that the CLI gives with the session's row…
  const dir = mkdtempSync(join(tmpdir(), "sessionscope-marks-"));
  try {
    for (const [path, text] of Object.entries(folder())) {
      mkdirSync(join(dir, path, ".."), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    writeFileSync(join(dir, "marks.json"), exported);
    const rows = JSON.parse(engineOutput("index", "--json", `--marks=${join(dir, "marks.json")}`, join(dir, "-home-dev-kettle"), join(dir, "-home-dev-pot")));
    const row = rows.sessions ? rows.sessions.find((r) => r.session_id === KETTLE) : rows.find((r) => r.session_id === KETTLE);
    assert.equal(row.marks.note, "The rename that broke the docs.");
    const others = (rows.sessions ?? rows).filter((r) => r.session_id !== KETTLE);
    assert.ok(others.length >= 2 && others.every((r) => r.marks === undefined));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  // …and that another browser imports.
  const other = await openApp(browser, server);
  const importPath = join(mkdtempSync(join(tmpdir(), "sessionscope-import-")), "marks.json");
  writeFileSync(importPath, exported);
  const fresh = (await openHistoryFolder(other.page, "fresh", folder())).region;
  await fresh.getByLabel("Import marks").setInputFiles(importPath);
  await fresh.getByRole("status").filter({ hasText: "Marks imported: 2 added, 0 updated, 0 kept as they were." }).waitFor();
  await fresh.getByRole("checkbox", { name: "Starred" }).check();
  assert.equal(await sessions(fresh).count(), 1);
  // A file that is not marks says so.
  writeFileSync(importPath, JSON.stringify({ hello: "world" }));
  await fresh.getByLabel("Import marks").setInputFiles(importPath);
  await fresh.getByRole("status").filter({ hasText: "The marks could not be imported: this JSON file holds no sessionscope marks" }).waitFor();
  assert.deepEqual(other.errors, []);
  await other.context.close();
  assert.deepEqual(app.errors, []);
  await app.context.close();
});
