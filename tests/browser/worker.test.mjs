// The page and its workers (the protocol of src/protocol.rs) in a real browser: search of a
// large session in the session's worker (a big one read from its file, not copied), a request the worker cannot read answered with an error that the
// page shows, and replies the page cannot read ignored.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test, ROOT, openApp, said, saidSoFar, dropFiles, dropGeneratedSession, tree, servedForTests } from "./harness.mjs";

const KETTLE = readFileSync(join(ROOT, "tests/fixtures/sessions/kettle-rename.jsonl"));
/** A session this big takes a while to search: its hits come in steps. */
const WORKER_THRESHOLD = 16 << 20;
let server;
let browser;
servedForTests((site) => ({ server, browser } = site));

/**
 * Waits until the load has ended and the worker the page starts ahead of time after it is ready
 * (no other starts by itself then), and answers how many workers have started.
 */
async function settledWorkers(page, workers) {
  const ended = await said(page, "load-ended", { timeout: 120_000 });
  await said(page, "spare-ready", { after: ended.index });
  return workers.length;
}

test("a large session is searched in a worker, whose hits arrive typed and lead to their rows", async () => {
  const app = await openApp(browser, server);
  const workers = [];
  app.page.on("worker", (worker) => workers.push(worker));
  const size = await dropGeneratedSession(app.page, { name: "large", messages: 9000, plantEvery: 500 });
  assert.ok(size > WORKER_THRESHOLD, `the session (${size} bytes) is large`);
  await app.page.getByRole("region", { name: "Load summary" }).waitFor({ timeout: 120_000 });
  const before = await settledWorkers(app.page, workers);

  const search = app.page.getByRole("search");
  const status = search.getByRole("status");
  const asked = await saidSoFar(app.page);
  await search.getByLabel("Search text").fill("ZANZIBAR");
  await status.filter({ hasText: /^18 matches$/ }).waitFor({ timeout: 60_000 });
  // The search took the worker started ahead, and another is started ahead in its place.
  await said(app.page, "spare-ready", { after: asked });
  assert.equal(workers.length, before + 1, "the search runs in a worker of its own, and one more waits for the next load");
  // The hits carry their context and where the match is in it.
  const results = app.page.getByRole("list", { name: "Search results" });
  assert.equal(await results.getByRole("listitem").count(), 18);
  assert.equal(await results.getByRole("listitem").first().locator("mark").innerText(), "zanzibar");
  assert.match(await results.getByRole("listitem").first().innerText(), /Answer 0: zanzibar-0 lorem/);
  await search.getByLabel("Search text").press("Enter");
  await status.filter({ hasText: /^1 of 18 matches$/ }).waitFor();
  await tree(app.page).locator("[role=treeitem][aria-selected=true]").filter({ hasText: "zanzibar-0" }).waitFor();

  // A regular expression, in the same worker: 1500, 2500, ... 8500.
  await search.getByLabel("Search text").fill("");
  await search.getByLabel("Regex").check();
  await search.getByLabel("Search text").fill("zanzibar-\\d500\\b");
  await status.filter({ hasText: /^8 matches$/ }).waitFor({ timeout: 60_000 });
  assert.equal(workers.length, before + 1, "the worker is reused for the next search");
  assert.match(await results.getByRole("listitem").last().innerText(), /zanzibar-8500/);
  assert.deepEqual(app.errors, []);
  await app.context.close();
});

test("a big session's worker reads it from its file, a window at a time, not from a copy of the page's bytes; sharing it reads the file whole", async () => {
  const app = await openApp(browser, server);
  const said = [];
  // Workers' console messages reach the page's too, whenever the worker was started.
  app.page.on("console", (m) => said.push(m.text()));
  // Every label the load's progress shows.
  await app.page.evaluate(() => {
    window.__labels = new Set();
    new MutationObserver(() => {
      const label = document.querySelector("section[aria-label=Loading]")?.textContent;
      if (label) window.__labels.add(label);
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  // 120,000 messages, about 280 MB: over the 256 MB from which a session is big
  // (READ_AFTER_PARSE_FROM), built in the page as a file of its own.
  const size = await dropGeneratedSession(app.page, { name: "big", messages: 120000, plantEvery: 2500 });
  assert.ok(size > 256 * 1024 * 1024, `the session (${size} bytes) is big`);
  await app.page.getByRole("region", { name: "Load summary" }).waitFor({ timeout: 180_000 });
  // The page read the bytes once the worker was done, and said so.
  const labels = await app.page.evaluate(() => [...window.__labels]);
  assert.ok(labels.some((l) => /Taking the session into the page · \d+% · [\d.]+ (B|KB|MB) of 2\d\d MB/.test(l)), labels.join(" | "));

  const search = app.page.getByRole("search");
  const status = search.getByRole("status");
  await search.getByLabel("Search text").fill("ZANZIBAR");
  // Every 2,500th answer of 120,000 holds the word.
  await status.filter({ hasText: /^48 matches$/ }).waitFor({ timeout: 120_000 });
  const kept = said.find((text) => text.startsWith("sessionscope session: model of"));
  assert.match(kept ?? "", /\(1 of its files read from disk\)/, "the worker reads the session's file itself");
  const results = app.page.getByRole("list", { name: "Search results" });
  assert.match(await results.getByRole("listitem").first().innerText(), /Answer 0: zanzibar-0 lorem/);
  assert.match(await results.getByRole("listitem").last().innerText(), /zanzibar-117500/);
  await search.getByLabel("Search text").press("Enter");
  await tree(app.page).locator("[role=treeitem][aria-selected=true]").filter({ hasText: "zanzibar-0" }).waitFor();
  // A regular expression: 15000, 25000, ... 115000.
  await search.getByLabel("Search text").fill("");
  await search.getByLabel("Regex").check();
  await search.getByLabel("Search text").fill("zanzibar-\\d+5000\\b");
  await status.filter({ hasText: /^11 matches$/ }).waitFor({ timeout: 120_000 });

  // The share dialog's scan needs every byte and the graph: the worker reads the file whole and
  // builds the graph, then scans.
  await app.page.getByRole("button", { name: "Share…" }).click();
  const dialog = app.page.getByRole("dialog", { name: "Share, redacted" });
  await dialog.getByLabel("Your own patterns").fill("zanzibar-115000");
  await dialog.getByText(/\d+ findings?: \d+ redacted/).waitFor({ timeout: 180_000 });
  assert.deepEqual(app.errors, []);
  await app.context.close();
});

test("a request the worker cannot read is answered with an error", async () => {
  const app = await openApp(browser, server);
  const replies = await app.page.evaluate(async () => {
    const worker = new Worker("./worker_loader.js");
    const next = () => new Promise((ok) => worker.addEventListener("message", (event) => ok(event.data), { once: true }));
    const replies = [await next()];
    for (const request of [
      { message: "launch", files: [], buffers: [] },
      42,
      { message: { search: { id: "seven", query: "x", regex: false } }, files: [], buffers: [] },
      { message: { load: { paths: ["a.jsonl"], slice: 1, preview: false } }, files: [], buffers: [] },
      { message: { load: { paths: ["a.jsonl"], slice: 1, preview: false } }, files: ["not a file"], buffers: [] },
    ]) {
      const reply = next();
      worker.postMessage(request);
      replies.push(await reply);
    }
    worker.terminate();
    return replies;
  });
  assert.deepEqual(replies[0], { message: "ready", files: [], buffers: [] });
  for (const reply of replies.slice(1)) assert.ok(reply.message.error, JSON.stringify(reply));
  assert.match(replies[1].message.error.message, /launch/);
  assert.match(replies[4].message.error.message, /1 path\(s\) for 0 file\(s\)/);
  assert.match(replies[5].message.error.message, /not all files/);
  assert.deepEqual(app.errors, []);
  await app.context.close();
});

test("a load the worker cannot read says why, and replies the page cannot read are ignored", async () => {
  const app = await openApp(browser, server);
  // The page's load request, spoiled on its way to the worker.
  await app.page.evaluate(() => {
    const post = Worker.prototype.postMessage;
    Worker.prototype.postMessage = function (data, transfer) {
      if (data?.message?.load) data = { ...data, message: { load: { ...data.message.load, paths: 7 } } };
      return post.call(this, data, transfer);
    };
  });
  await dropFiles(app.page, [{ name: "kettle-rename.jsonl", bytes: KETTLE }]);
  await app.page.getByRole("alert").filter({ hasText: /^Could not open the files: a message could not be read/ }).waitFor();
  assert.equal(await tree(app.page).count(), 0);

  // Replies of no known kind, or malformed, slipped in among the worker's own: the load goes on.
  const app2 = await openApp(browser, server);
  await app2.page.evaluate(() => {
    const post = Worker.prototype.postMessage;
    Worker.prototype.postMessage = function (data, transfer) {
      if (data?.message?.load) {
        for (const junk of [{ message: "bogus", files: [], buffers: [] }, 17, { message: { progress: { done: "x" } } }, { message: "done" }]) {
          // Later, not from inside the page's handler that is posting this request.
          setTimeout(() => this.dispatchEvent(new MessageEvent("message", { data: junk })), 0);
        }
      }
      return post.call(this, data, transfer);
    };
  });
  await dropFiles(app2.page, [{ name: "kettle-rename.jsonl", bytes: KETTLE }]);
  await app2.page.getByRole("region", { name: "Load summary" }).getByText(/^1 session · /).first().waitFor();
  await tree(app2.page).getByRole("treeitem").first().waitFor();
  assert.equal(await app2.page.getByRole("alert").filter({ hasText: "Could not open" }).count(), 0);
  assert.deepEqual(app.errors, []);
  assert.deepEqual(app2.errors, []);
  await app.context.close();
  await app2.context.close();
});
