// Faults and sizes the page must survive, in headless Chromium: a panic of the page's own code
// ends in a dialog with a Reload button (never a half-drawn, silent page); a worker that fails in
// the middle of a load says so and the page still works; a single log over 2 GiB (made by the
// generator here) shows its first rows, then as much as the page holds, and says what it left
// out and what to do.
import { after, afterEach } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, readdirSync, statfsSync, statSync, truncateSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, withoutFolderHandles, ROOT, openApp, waitForApp, dropFolder, dropGeneratedSession, tree, chooseFolder, indexed, servedForTests } from "./harness.mjs";

let server;
let browser;
servedForTests((site) => ({ server, browser } = site));

/** Runs one of the project's generators (`gen-session`, `gen-history`), built for release. */
function synth(bin, args, stdio = "ignore") {
  execFileSync("cargo", ["run", "--quiet", "--release", "-p", "sessionscope-synth", "--bin", bin, "--", ...args], { cwd: ROOT, stdio });
}

test("a panic of the page's code shows what happened and a Reload button, which reloads", async () => {
  const app = await openApp(browser, server, { url: `${server.url}?debug=panic` });
  const dialog = app.page.getByRole("alertdialog", { name: "sessionscope stopped" });
  await dialog.waitFor({ timeout: 10_000 });
  assert.match(await dialog.innerText(), /remembered folders, marks and cached indexes are kept/);
  assert.match(await dialog.innerText(), /What happened: a panic asked for by the address \(debug=panic\)/);
  const reload = dialog.getByRole("button", { name: "Reload" });
  assert.equal(await reload.evaluate((b) => b === document.activeElement), true, "the Reload button has the focus");
  // The panic was reported on the console too (the harness records it as an error).
  assert.ok(app.errors.some((e) => e.includes("a panic asked for by the address")), app.errors.join("\n"));
  await Promise.all([app.page.waitForURL((url) => !url.search.includes("debug=panic")), app.page.keyboard.press("Enter")]);
  await app.page.getByRole("button", { name: "Open example" }).waitFor({ timeout: 30_000 });
  assert.equal(await dialog.count(), 0, "the reloaded page is whole");
  await app.context.close();
});

test("a worker that fails in the middle of a load says so in words, what was shown stays, and the page still works", async () => {
  // The spare worker, started ahead, takes the load: once it has posted the preview, it throws,
  // as a worker out of memory does.
  const faults = watchWorkers("preview", { always: true });
  const app = await openApp(browser, server, { setUp: faults.setUp });
  await app.page.waitForFunction(() => window.__faults.started > 0);
  await dropGeneratedSession(app.page, { name: "doomed", messages: 20000 });
  // Said in words, with the browser and what to do: not the browser's "Uncaught Error: …".
  const alert = app.page.getByRole("alert").filter({ hasText: /^Could not open the files: the loading worker stopped on a fault in (Chrome|Firefox|Safari)\b[^:]*: reload the page and try again; the browser's console holds its report\. The first [\d.]+ MB of [\d.]+ MB, read before, stay on screen$/ });
  await alert.waitFor({ timeout: 30_000 });
  assert.doesNotMatch(await alert.innerText(), /injected fault|Uncaught|Error\b/);
  assert.ok((await tree(app.page).getByRole("treeitem").count()) > 0, "the rows shown stay");
  assert.match(await tree(app.page).getByRole("treeitem").first().innerText(), /Question 0/);
  // The page still answers: a new drop loads, in a new worker.
  await dropGeneratedSession(app.page, { name: "after", messages: 5 });
  // What stayed on screen is loaded: the page asks whether to add to it.
  await app.page.getByRole("dialog", { name: "Add or replace" }).getByRole("button", { name: "Replace" }).click();
  await app.page.getByRole("region", { name: "Load summary" }).getByText(/^1 session · 1 file · 10 lines/).waitFor({ timeout: 30_000 });
  assert.equal(await alert.count(), 0, "the message goes with the next load");
  assert.deepEqual(app.errors, []);
  faults.stop();
  await app.context.close();
});

test("a worker whose wasm code traps inside a promise's callback (a rejection nobody hears) says so too, and does not leave the load waiting", async () => {
  const faults = watchWorkers("preview", { always: true, error: "RangeError", rejected: true });
  const app = await openApp(browser, server, { setUp: faults.setUp });
  await app.page.waitForFunction(() => window.__faults.started > 0);
  await dropGeneratedSession(app.page, { name: "rejected", messages: 20000 });
  const alert = app.page.getByRole("alert").filter({ hasText: /^Could not open the files: the loading worker ran out of memory in (Chrome|Firefox|Safari)\b/ });
  await alert.waitFor({ timeout: 30_000 });
  assert.doesNotMatch(await alert.innerText(), /RangeError|injected fault/);
  faults.stop();
  await app.context.close();
});

test("a worker stopped by something the browser lacks says so, names the browser, and says which browsers to use", async () => {
  const faults = watchWorkers("preview", { always: true, error: "TypeError" });
  const app = await openApp(browser, server, { setUp: faults.setUp });
  await app.page.waitForFunction(() => window.__faults.started > 0);
  await dropGeneratedSession(app.page, { name: "unsupported", messages: 20000 });
  const alert = app.page.getByRole("alert").filter({ hasText: /^Could not open the files: the loading worker stopped on something (Chrome|Firefox|Safari)\b[^:]* does not support: this browser lacks something the page needs here; open the files in a current Chrome, Edge, Firefox or Safari, and please report which browser this was\./ });
  await alert.waitFor({ timeout: 30_000 });
  assert.doesNotMatch(await alert.innerText(), /TypeError|injected fault/);
  faults.stop();
  await app.context.close();
});

/** Free bytes where the test writes its big file. */
function freeBytes(dir) {
  const stats = statfsSync(dir);
  return stats.bavail * stats.bsize;
}

/**
 * Runs `body` with a fresh folder in the system's temporary folder, removed afterwards; skips
 * the test `t` when that disk has less than `needs` bytes free for `what`.
 */
async function inBigFolder(t, { needs, what, prefix }, body) {
  if (freeBytes(tmpdir()) < needs) {
    t.skip(`needs ${needs / 1e9} GB free in ${tmpdir()} for ${what}`);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), prefix));
  try {
    await body(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("a single log over 2 GiB shows its first rows, then what the page holds, says what it left out, and shows its next part", async (t) => {
  await inBigFolder(t, { needs: 6e9, what: "a 2.4 GB log", prefix: "sessionscope-2g-" }, async (dir) => {
    synth("gen-session", ["--out", dir, "--size", "2300MB", "--seed", "9", "--agents", "0"], "inherit");
    const name = readdirSync(dir).find((f) => f.endsWith(".jsonl"));
    const size = statSync(join(dir, name)).size;
    assert.ok(size > 2 ** 31, `the log is over 2 GiB (${size} bytes)`);
    const app = await openApp(browser, server);
    const started = Date.now();
    await dropFolder(app.page, join(dir, name));
    await tree(app.page).getByRole("treeitem").first().waitFor({ timeout: 60_000 });
    const firstRows = Date.now() - started;
    const summary = app.page.getByRole("region", { name: "Load summary" });
    const leftOut = summary.getByRole("alert").filter({ hasText: `Only the first part of ${name} is shown` });
    await leftOut.waitFor({ timeout: 300_000 });
    const words = await leftOut.innerText();
    assert.match(words, /lines [\d,]+–[\d,]+ \([\d.]+ [MG]B of the file's 2\.4 GB\) were not read: this page holds up to 1\.6 GB of log files at once; `sessionscope open <file>` \(the command line\) opens the whole file\./);
    assert.match(await summary.getByRole("status").first().innerText(), /^1 session · 1 file · [\d,]+ lines · .* · [\d,]+ lines left out$/);
    assert.ok((await tree(app.page).getByRole("treeitem").count()) > 0, "the rows read are shown");
    assert.equal(await app.page.getByRole("alertdialog").count(), 0, "no panic");
    assert.deepEqual(app.errors, []);
    console.log(`# 2.4 GB log: first rows after ${firstRows} ms, whole load after ${Date.now() - started} ms`);

    // The rest is a part of its own: the buttons say which lines, in the summary and below the
    // conversation's last row, where a person scrolling gets to.
    const parts = summary.getByRole("group", { name: `Parts of ${name}`, exact: true });
    const atEnd = app.page.getByRole("group", { name: `Parts of ${name}, after the last row` });
    assert.equal(await atEnd.count(), 1, "the conversation ends with the buttons too");
    const firstPart = await parts.innerText();
    const [, lastShown, lines] = firstPart.match(/Lines 1–([\d,]+) of ([\d,]+) of .* are shown \(1\.6 GB of 2\.4 GB\)\./) ?? [];
    assert.ok(lastShown, firstPart);
    const number = (text) => Number(text.replaceAll(",", ""));
    const next = number(lastShown) + 1;
    const nextButton = atEnd.getByRole("button", { name: `Next part, from line ${next.toLocaleString("en-US")}` });
    await nextButton.scrollIntoViewIfNeeded();
    // The keyboard path: the button takes the focus and Enter presses it.
    await nextButton.focus();
    const asked = Date.now();
    await app.page.keyboard.press("Enter");
    const later = summary.getByRole("alert").filter({ hasText: `Only part of ${name} is shown` });
    await later.waitFor({ timeout: 300_000 });
    console.log(`# 2.4 GB log: its second part shown ${Date.now() - asked} ms after the button`);
    assert.match(await later.innerText(), new RegExp(`lines 1–${(next - 1)} \\([\\d.]+ GB of the file's 2\\.4 GB, before the part shown\\) were not read`));
    const secondPart = await parts.innerText();
    assert.match(secondPart, new RegExp(`Lines ${next.toLocaleString("en-US")}–${lines} of ${lines} of .* are shown \\([\\d.]+ [MG]B of 2\\.4 GB\\)\\.`));
    assert.equal(await parts.getByRole("button", { name: "First part" }).count(), 0, "the part before is the first: one button goes back");
    assert.equal(await parts.getByRole("button", { name: /^Next part/ }).count(), 0, "the last part has no next");
    assert.equal(await atEnd.count(), 0, "nothing more after the last row");
    // Every line of the file is still counted, and the part's rows are the file's, not bytes of
    // another part.
    assert.match(await summary.getByRole("status").first().innerText(), new RegExp(`· ${number(lines)} lines · .* · ${next - 1} lines left out$`));
    const rows = await tree(app.page).getByRole("treeitem").allInnerTexts();
    assert.ok(rows.length > 0, "the part's rows are shown");
    for (const row of rows) assert.doesNotMatch(row, /"(uuid|parentUuid|sessionId)":/, "a row reads its own line");
    // The search reads the part's bytes from the file where the part starts.
    const search = app.page.getByRole("search");
    await search.getByLabel("Search text").fill("round_half_even");
    await search.getByRole("status").filter({ hasText: /^[\d,]+ match(es)?$/ }).waitFor({ timeout: 120_000 });
    const hits = await app.page.getByRole("list", { name: "Search results" }).getByRole("listitem").allInnerTexts();
    assert.ok(hits.length > 0);
    for (const hit of hits.slice(0, 20)) assert.match(hit, /round_half_even/, "each hit shows the word found");
    await search.getByLabel("Search text").fill("");
    // A message of this part, selected: the address bar's link names the part, so that it opens
    // here, not in the first part (where the message is not).
    const picked = tree(app.page).getByRole("treeitem").filter({ hasText: /^▾\s*Assistant/ }).first();
    // Clicked on its header: the middle of a tall row may be its thinking's toggle, which opens
    // the thinking there and not in the page opened from the link.
    await picked.locator(".row-main").click({ position: { x: 4, y: 4 } });
    await app.page.waitForFunction(() => /&at=\d+\.\d+$/.test(location.hash));
    const link = await app.page.evaluate(() => location.hash);
    assert.match(link, new RegExp(`&m=[^&]+&at=\\d+\\.${next}$`), "the part starts at the line after the first part's last");
    const pickedText = await tree(app.page).locator('[role="treeitem"][aria-selected="true"]').innerText();
    // Back, from the command palette: the first part again, as it was.
    assert.equal(await parts.getByRole("button", { name: "Earlier part" }).count(), 1);
    await app.page.keyboard.press("Control+k");
    const palette = app.page.getByRole("dialog", { name: "Command palette" });
    await palette.getByRole("combobox").waitFor();
    await app.page.keyboard.type("earlier part");
    const option = palette.getByRole("option").first();
    assert.match((await option.innerText()).replace(/\s+/g, " "), new RegExp(`^Show the earlier part of ${name} Part · lines ${next}–${number(lines)} of ${number(lines)} are shown`));
    await app.page.keyboard.press("Enter");
    await leftOut.waitFor({ timeout: 300_000 });
    assert.match(await parts.innerText(), new RegExp(`Lines 1–${lastShown} of ${lines}`));
    assert.equal(await atEnd.count(), 1);
    // The link no longer names the message of the other part, and nothing says it is missing.
    assert.doesNotMatch(await app.page.evaluate(() => location.hash), /[&#](m|at)=/);
    assert.equal(await app.page.getByText(/is not in these files/).count(), 0);
    assert.equal(await app.page.getByRole("alertdialog").count(), 0, "no panic");
    assert.deepEqual(app.errors, []);
    await app.context.close();

    // The link, opened with the same file: the part that holds its message is read straight
    // away (not the first part before it), and the message selected there.
    const again = await openApp(browser, server, {
      url: `${server.url}${link}`,
      setUp: (context) => context.addInitScript(recordLoadTotals),
    });
    const dropped = Date.now();
    await dropFolder(again.page, join(dir, name));
    const againSummary = again.page.getByRole("region", { name: "Load summary" });
    await againSummary.getByRole("alert").filter({ hasText: `Only part of ${name} is shown` }).waitFor({ timeout: 300_000 });
    const selected = tree(again.page).locator('[role="treeitem"][aria-selected="true"]');
    await selected.waitFor({ timeout: 60_000 });
    console.log(`# 2.4 GB log: a link into its second part, its message selected ${Date.now() - dropped} ms after the drop`);
    assert.equal(await selected.innerText(), pickedText, "the link's message is selected");
    // What was read: the part, from where it starts to the file's end; never the whole file.
    const partBytes = size - Number(link.match(/&at=(\d+)\./)[1]);
    assert.deepEqual(await again.page.evaluate(() => window.__loadTotals), [humanBytes(partBytes)]);
    assert.equal(await againSummary.getByRole("button", { name: "Earlier part" }).count(), 1, "the first part is one button away");
    assert.equal(await again.page.evaluate(() => location.hash), link, "the link stays as it was");
    assert.equal(await again.page.getByText(/is not in these files/).count(), 0);
    assert.deepEqual(again.errors, []);
    await again.context.close();
  });
});

/** Bytes as the page writes them (`units::human_bytes`): 1000 to a unit, a tenth below 100. */
function humanBytes(n) {
  if (n < 1000) return `${n} B`;
  let divisor = 1;
  for (const unit of ["KB", "MB", "GB", "TB"]) {
    divisor *= 1000;
    const tenths = Math.floor((n * 10 + divisor / 2) / divisor);
    if (tenths < 1000) return `${Math.floor(tenths / 10)}.${tenths % 10} ${unit}`;
    const whole = Math.floor((n + divisor / 2) / divisor);
    if (whole < 1000) return `${whole} ${unit}`;
  }
  return `${n} B`;
}

/**
 * Runs in the page before its scripts: `window.__loadTotals` gets every total the Loading region's
 * status named while reading ("Reading <file> · 3% · 40 MB of 802 MB · …").
 */
function recordLoadTotals() {
  window.__loadTotals = [];
  const look = () => {
    for (const status of document.querySelectorAll('section[aria-label="Loading"] [role="status"]')) {
      const total = status.textContent.match(/^Reading .* · [\d.]+ [KMG]?B of ([\d.]+ [KMG]?B) · /)?.[1];
      if (total && !window.__loadTotals.includes(total)) window.__loadTotals.push(total);
    }
  };
  new MutationObserver(look).observe(document, { subtree: true, childList: true, characterData: true });
}

/** A small history: three sessions of the project's own fixtures, in two projects. */
function smallHistory() {
  const sessions = join(ROOT, "tests/fixtures/sessions");
  return {
    "-home-dev-gamma/kettle-rename.jsonl": readFileSync(join(sessions, "kettle-rename.jsonl"), "utf8"),
    "-home-dev-gamma/coloured-test-run.jsonl": readFileSync(join(sessions, "coloured-test-run.jsonl"), "utf8"),
    "-home-dev-delta/kettle-copy.jsonl": readFileSync(join(sessions, "kettle-rename.jsonl"), "utf8").replaceAll("5e550000", "5e552222"),
  };
}

async function listed(region) {
  return (await region.getByRole("listbox", { name: "Sessions" }).getByRole("option").allInnerTexts()).sort();
}

test("a corrupted cache entry on reopen is read again from the files, and the list is the same", async () => {
  if (await withoutFolderHandles(browser, server)) return;
  const app = await openApp(browser, server);
  const { page } = app;
  await page.evaluate(async () => (await navigator.storage.getDirectory()).removeEntry("spoiled", { recursive: true }).catch(() => {}));
  let { region } = await chooseFolder(page, "spoiled", smallHistory());
  const first = await listed(region);
  assert.equal(first.length, 3);
  await region.getByText("next time it reopens from its cached index").waitFor();
  // Every cached index is damaged: its bytes cut in half, then scrambled.
  const spoiled = await page.evaluate(
    () =>
      new Promise((ok, fail) => {
        const open = indexedDB.open("sessionscope");
        open.onerror = () => fail(open.error);
        open.onsuccess = () => {
          const t = open.result.transaction("indexes", "readwrite");
          const store = t.objectStore("indexes");
          let count = 0;
          store.openCursor().onsuccess = (event) => {
            const cursor = event.target.result;
            if (!cursor) return;
            const value = cursor.value;
            const bytes = value instanceof ArrayBuffer ? new Uint8Array(value) : value instanceof Uint8Array ? value : new TextEncoder().encode(JSON.stringify(value));
            const damaged = bytes.slice(0, Math.floor(bytes.length / 2)).map((b, i) => (i % 7 === 3 ? b ^ 0x5a : b));
            cursor.update(value instanceof ArrayBuffer || value instanceof Uint8Array ? damaged : { damaged });
            count++;
            cursor.continue();
          };
          t.oncomplete = () => ok(count);
          t.onerror = () => fail(t.error);
        };
      }),
  );
  assert.ok(spoiled > 0, "a cached index was there to spoil");
  await page.reload();
  await waitForApp(page);
  await page.getByRole("region", { name: "Remembered folders" }).getByRole("button", { name: "Reopen spoiled" }).click();
  let status;
  ({ region, status } = await indexed(page));
  assert.doesNotMatch(status, /from the cache/, `the damaged cache is not used: ${status}`);
  assert.match(status, /^Indexed 3 of 3 files \((?!0 B)/, `the files are read again: ${status}`);
  assert.deepEqual(await listed(region), first);
  assert.deepEqual(app.errors, []);
  await app.context.close();
});

test("IndexedDB refused (a private window) or full: the folder is still indexed and listed, and the page says what is not kept", async () => {
  if (await withoutFolderHandles(browser, server)) return;
  for (const fault of ["refused", "full"]) {
    const app = await openApp(browser, server, {
      setUp: (context) =>
        context.addInitScript((fault) => {
          if (fault === "refused") {
            IDBFactory.prototype.open = function () {
              throw new DOMException("A mutation operation was attempted on a database that did not allow mutations.", "InvalidStateError");
            };
          } else {
            // The folder is remembered; its index, the big write, is over the quota.
            const put = IDBObjectStore.prototype.put;
            IDBObjectStore.prototype.put = function (...args) {
              if (this.name === "indexes") throw new DOMException("The quota has been exceeded.", "QuotaExceededError");
              return put.apply(this, args);
            };
          }
        }, fault),
    });
    const { page } = app;
    const root = `private-${fault}`;
    await page.evaluate(async (root) => (await navigator.storage.getDirectory()).removeEntry(root, { recursive: true }).catch(() => {}), root);
    const { region } = await chooseFolder(page, root, smallHistory());
    assert.equal((await listed(region)).length, 3, `${fault}: every session is listed`);
    const expected = fault === "refused" ? /is open, but it could not be remembered: .*Next time it is chosen and read again/ : /remembered in this browser, but its index could not be kept \(.+\): next time it is read again\./;
    // The index is kept after the pass: wait for what the page says of it (the assertion below
    // shows the page's words if it never says it).
    await page.getByText(expected).first().waitFor({ timeout: 30_000 }).catch(() => {});
    const said = await page.locator("body").innerText();
    assert.match(said, expected, `${fault}: the page says what is not kept:\n${said.slice(0, 1500)}`);
    assert.doesNotMatch(said, /next time it reopens from its cached index/, `${fault}: it does not promise a cache`);
    await app.context.close();
  }
});

/** A generated history of the big-files shape on disk (made once), and its `projects` folder. */
let generated;
function generatedHistory() {
  if (generated) return generated;
  const dir = mkdtempSync(join(tmpdir(), "sessionscope-faults-"));
  synth("gen-history", ["--out", dir, "--size", "200MB", "--projects", "6", "--shape", "big-files", "--seed", "5"]);
  generated = { dir, projects: join(dir, "projects") };
  return generated;
}

after(() => {
  if (generated) rmSync(generated.dir, { recursive: true, force: true });
});

/** The loader's rewrites of the test under way: each test's end serves the loader as it is again. */
const rewritten = new Set();
afterEach(() => {
  for (const stop of rewritten) stop();
  rewritten.clear();
});

/**
 * Puts a fault into every worker started from now on, in every engine: the workers' loader is
 * served with a hook before its own code (`server.rewrite`, so that no worker answers before
 * it). Each worker watches its replies that hold `key` (`preview`, `indexed`, `hits`) and tells
 * the page on the BroadcastChannel "sessionscope-faults" that it started and each time it
 * answered; the page counts them in `window.__faults` (`setUp`, its init script, listens from the
 * start). `always`: each worker throws (an `error`, `Error` by default) once it has posted such a
 * reply, as a worker out of memory stops (`rejected`: a promise is rejected with it, unheard). `busy()`
 * makes only the workers that have answered one already throw after their next: those of the
 * pass under way, not the fresh ones that replace them. A worker that throws posts nothing after
 * the reply but its crash. `stop()` serves the loader as it is again.
 */
function watchWorkers(key, { always = false, error = "Error", rejected = false } = {}) {
  const hook = ({ key, always, error, rejected }) => {
    const channel = new BroadcastChannel("sessionscope-faults");
    const has = (o, k, d = 0) => o !== null && typeof o === "object" && d < 3 && (k in o || Object.values(o).some((v) => has(v, k, d + 1)));
    const post = self.postMessage.bind(self);
    let answered = 0;
    let breakNext = false;
    let broken = false;
    channel.onmessage = (event) => {
      if (event.data === "break busy" && answered > 0) breakNext = true;
    };
    channel.postMessage("started");
    self.postMessage = (data, transfer) => {
      // A broken worker says nothing more but its crash: the error is thrown on the next task,
      // and where the worker's work goes on without giving a task its turn (Safari's engine runs
      // the rest of a load as promise jobs), what it would still post never reaches the page.
      if (broken && !(data && typeof data === "object" && "sessionscopeCrash" in data)) return;
      post(data, transfer);
      if (!has(data?.message, key)) return;
      answered++;
      channel.postMessage("answered");
      if ((always || breakNext) && !broken) {
        broken = true;
        setTimeout(() => {
          // A rejection nobody hears is how the wasm code's trap inside a promise's callback ends.
          if (rejected) Promise.reject(new self[error]("injected fault"));
          else throw new self[error]("injected fault");
        }, 0);
      }
    };
  };
  const stop = server.rewrite("/worker_loader.js", (text) => `(${hook})(${JSON.stringify({ key, always, error, rejected })});\n${text}`);
  rewritten.add(stop);
  const listen = () => {
    window.__faults = { started: 0, answered: 0 };
    window.__faultsChannel = new BroadcastChannel("sessionscope-faults");
    window.__faultsChannel.onmessage = (event) => {
      if (event.data in window.__faults) window.__faults[event.data]++;
    };
  };
  return {
    setUp: (context) => context.addInitScript(listen),
    stop,
    async busy(page) {
      await page.waitForFunction(() => window.__faults.answered > 0, null, { timeout: 60_000 });
      await page.evaluate(() => window.__faultsChannel.postMessage("break busy"));
    },
  };
}

/** The number in "N sessions in M projects" of the history's headline. */
async function sessionCount(region) {
  const headline = await region.getByText(/^\d+ sessions? in \d+ projects?/).first().innerText();
  return Number(/^(\d+)/.exec(headline)[1]);
}

test("a worker that stops during an index pass: its units are read again; a unit whose third worker stops too is said aloud", async () => {
  const history = generatedHistory();
  // Once: the workers of the pass stop after their next answer; fresh ones read again what they held.
  let faults = watchWorkers("indexed");
  let app = await openApp(browser, server, { setUp: faults.setUp });
  // The page's own account of the pass (walk, units, retries), said if the count is short.
  const said = [];
  app.page.on("console", (m) => {
    if (/^sessionscope/.test(m.text())) said.push(`${m.type()}: ${m.text()}`);
  });
  await dropFolder(app.page, history.projects);
  await faults.busy(app.page);
  let { region, status } = await indexed(app.page);
  const all = await sessionCount(region);
  const problems = await region.getByRole("region", { name: "Files not indexed" }).innerText().catch(() => "none");
  assert.ok(all >= 30, `the history's sessions: ${all}; ${status}; files not indexed: ${problems}\n${said.join("\n")}`);
  assert.deepEqual(await region.getByRole("alert").allInnerTexts(), [], `nothing is lost: ${status}`);
  faults.stop();
  await app.context.close();

  // Without a fault, the same count.
  app = await openApp(browser, server);
  await dropFolder(app.page, history.projects);
  ({ region } = await indexed(app.page));
  assert.equal(await sessionCount(region), all, "the same sessions as a pass without a fault");
  await app.context.close();

  // Every worker, fresh ones too, stops after its first answer: some units fail three times.
  faults = watchWorkers("indexed", { always: true });
  app = await openApp(browser, server, { setUp: faults.setUp });
  await dropFolder(app.page, history.projects);
  ({ region } = await indexed(app.page));
  faults.stop();
  const alert = region.getByRole("alert").filter({ hasText: /^\d+ session file sets? could not be indexed \(projects\/.+\): the worker reading it stopped on a fault in (Chrome|Firefox|Safari)\b[^.]*\. Their sessions are not listed; reopen the folder to try them again\.$/ });
  await alert.waitFor();
  const failed = Number(/^(\d+)/.exec(await alert.innerText())[1]);
  assert.ok(failed > 0 && (await sessionCount(region)) <= all - failed, "the sessions of the failed units are not listed, and said so");
  assert.doesNotMatch(await region.innerText(), /files? holds? no session/, "they are not called files that hold no session");
  await app.context.close();
});

test("a worker that stops during a search: its units are searched again, and those that keep failing are said with the counts", async () => {
  const history = generatedHistory();
  const search = async (app, word) => {
    await dropFolder(app.page, history.projects);
    const { region } = await indexed(app.page);
    const box = region.getByRole("region", { name: "Search all sessions" });
    await box.getByLabel("Exact").check();
    await box.getByLabel("Search every session").fill(word);
    await box.getByRole("button", { name: "Search" }).click();
    const done = box.getByRole("status").filter({ hasText: /^\d+\+? match(es)? in \d+ sessions? · / });
    await done.waitFor({ timeout: 60_000 });
    return { search: box, said: await done.innerText() };
  };
  const plain = await openApp(browser, server);
  const clean = (await search(plain, "Keep the")).said;
  await plain.context.close();
  // Every worker of this page stops after its first hits (the index's answers hold none).
  const faults = watchWorkers("hits", { always: true });
  const app = await openApp(browser, server, { setUp: faults.setUp });
  const alert = (await search(app, "Keep the")).search.getByRole("alert").filter({ hasText: /^\d+ session file sets? could not be searched \(projects\/.+\): the worker reading it stopped on a fault in (Chrome|Firefox|Safari)\b[^.]*\. The counts are without (it|them); search again to try (it|them)\.$/ });
  await alert.waitFor({ timeout: 30_000 });
  faults.stop();
  assert.match(clean, /^\d+ matches in \d+ sessions/);
  await app.context.close();
});

test("a session search whose worker stops on a fault is asked again of a new worker, once, and then said", async () => {
  // Every worker stops on a fault after its first hits: the search's first worker, and the one it
  // is asked again of.
  const faults = watchWorkers("hits", { always: true });
  const app = await openApp(browser, server, { setUp: faults.setUp });
  await dropGeneratedSession(app.page, { name: "large", messages: 9000, plantEvery: 500 });
  await app.page.getByRole("region", { name: "Load summary" }).waitFor({ timeout: 120_000 });
  const search = app.page.getByRole("search");
  await search.getByLabel("Search text").fill("ZANZIBAR");
  await search.getByText(/the worker stopped on a fault in (Chrome|Firefox|Safari)\b/).waitFor({ timeout: 60_000 });
  faults.stop();
  // Two workers answered with hits before they stopped: the search was asked twice, not more.
  assert.equal(await app.page.evaluate(() => window.__faults.answered), 2);
  await app.context.close();
});

test("the tab hidden, then shown, during an index pass: the pass ends with every session", async () => {
  const history = generatedHistory();
  const app = await openApp(browser, server);
  const { page } = app;
  await dropFolder(page, history.projects);
  await page.getByRole("region", { name: "History" }).getByText(/^Indexing/).first().waitFor({ timeout: 30_000 });
  const visibility = (hidden) =>
    page.evaluate((hidden) => {
      Object.defineProperty(document, "hidden", { configurable: true, get: () => hidden });
      Object.defineProperty(document, "visibilityState", { configurable: true, get: () => (hidden ? "hidden" : "visible") });
      document.dispatchEvent(new Event("visibilitychange"));
    }, hidden);
  // Hidden, the pass goes on: its progress moves (or it ends) before the tab is shown again.
  const progress = () => page.evaluate(() => document.querySelector('[aria-label="History"] .history-progress')?.textContent ?? "");
  const before = await progress();
  await visibility(true);
  await page.waitForFunction((before) => (document.querySelector('[aria-label="History"] .history-progress')?.textContent ?? "") !== before, before, { timeout: 60_000 });
  await visibility(false);
  const { region, status } = await indexed(page);
  const files = Number(/^Indexed (\d+) of (\d+) files/.exec(status)?.[2]);
  assert.match(status, new RegExp(`^Indexed ${files} of ${files} files`), status);
  const shown = await sessionCount(region);
  // The same count as a pass left alone.
  const other = await openApp(browser, server);
  await dropFolder(other.page, history.projects);
  const alone = await indexed(other.page);
  assert.equal(shown, await sessionCount(alone.region));
  assert.equal(await region.getByRole("alert").count(), 0);
  assert.deepEqual(app.errors, []);
  await other.context.close();
  await app.context.close();
});

test("a log truncated, or deleted, while it is read: the page says so, and what was shown stays", async () => {
  for (const fault of ["truncated", "deleted"]) {
    const dir = mkdtempSync(join(tmpdir(), `sessionscope-${fault}-`));
    try {
      synth("gen-session", ["--out", dir, "--size", "400MB", "--seed", "4", "--agents", "0"]);
      const name = readdirSync(dir).find((f) => f.endsWith(".jsonl"));
      const path = join(dir, name);
      const app = await openApp(browser, server);
      await dropFolder(app.page, path);
      await tree(app.page).getByRole("treeitem").first().waitFor({ timeout: 60_000 });
      if (fault === "truncated") truncateSync(path, 1_000_000);
      else unlinkSync(path);
      const alert = app.page.getByRole("alert").filter({ hasText: new RegExp(`^Could not open the files: .*${name.replace(".", "\\.")}.*could not be read.*\\. The first [\\d.]+ MB of [\\d.]+ MB, read before, stay on screen$`) });
      await alert.waitFor({ timeout: 60_000 });
      assert.ok((await tree(app.page).getByRole("treeitem").count()) > 0, `${fault}: the rows shown stay`);
      await app.context.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
});

test("a history that holds a session bigger than the page holds lists it, saying it was partly read, and a link into its second part opens there", async (t) => {
  await inBigFolder(t, { needs: 5e9, what: "a 1.8 GB log", prefix: "sessionscope-partly-" }, async (dir) => {
    const project = join(dir, "projects", "-home-dev-projects-big");
    synth("gen-session", ["--out", project, "--size", "1750MB", "--seed", "6", "--agents", "0"]);
    writeFileSync(join(project, "kettle-rename.jsonl"), readFileSync(join(ROOT, "tests/fixtures/sessions/kettle-rename.jsonl")));
    const app = await openApp(browser, server);
    await dropFolder(app.page, join(dir, "projects"));
    const { region } = await indexed(app.page);
    const rows = await region.getByRole("listbox", { name: "Sessions" }).getByRole("option").allInnerTexts();
    assert.equal(rows.length, 2, rows.join("\n"));
    const partly = rows.filter((r) => /· partly read: \d+ lines left out/.test(r));
    assert.equal(partly.length, 1, `the big session says it was partly read:\n${rows.join("\n")}`);
    assert.doesNotMatch(await region.innerText(), /holds? no session/, "it is not among the files that hold no session");

    // Opened, then its second part: a message selected there is linked with the part.
    const name = readdirSync(project).find((f) => f !== "kettle-rename.jsonl");
    const size = statSync(join(project, name)).size;
    await region.getByRole("listbox", { name: "Sessions" }).getByRole("option").filter({ hasText: /partly read/ }).click();
    const summary = app.page.getByRole("region", { name: "Load summary" });
    await summary.getByRole("alert").filter({ hasText: new RegExp(`Only the first part of \\S*${name} is shown`) }).waitFor({ timeout: 120_000 });
    await summary.getByRole("button", { name: /^Next part, from line / }).click();
    await summary.getByRole("alert").filter({ hasText: new RegExp(`Only part of \\S*${name} is shown`) }).waitFor({ timeout: 120_000 });
    await tree(app.page).getByRole("treeitem").filter({ hasText: /^▾\s*Assistant/ }).first().locator(".row-main").click({ position: { x: 4, y: 4 } });
    await app.page.waitForFunction(() => /^#p=[^&]+&s=[^&]+&m=[^&]+&at=\d+\.\d+$/.test(location.hash));
    const link = await app.page.evaluate(() => location.hash);
    const pickedText = await tree(app.page).locator('[role="treeitem"][aria-selected="true"]').innerText();
    assert.deepEqual(app.errors, []);
    await app.context.close();

    // The link, opened with the history dropped again: once the session's row is in, its part
    // is read straight away (not the 1.6 GB before it), and the message selected there.
    const again = await openApp(browser, server, {
      url: `${server.url}${link}`,
      setUp: (context) => context.addInitScript(recordLoadTotals),
    });
    await dropFolder(again.page, join(dir, "projects"));
    const selected = tree(again.page).locator('[role="treeitem"][aria-selected="true"]');
    await selected.waitFor({ timeout: 120_000 });
    assert.equal(await selected.innerText(), pickedText, "the link's message is selected");
    const againSummary = again.page.getByRole("region", { name: "Load summary" });
    assert.equal(await againSummary.getByRole("alert").filter({ hasText: new RegExp(`Only part of \\S*${name} is shown`) }).count(), 1);
    const partBytes = size - Number(link.match(/&at=(\d+)\./)[1]);
    assert.deepEqual(await again.page.evaluate(() => window.__loadTotals), [humanBytes(partBytes)]);
    assert.equal(await again.page.evaluate(() => location.hash), link, "the link stays as it was");
    assert.deepEqual(again.errors, []);
    await again.context.close();
  });
});
