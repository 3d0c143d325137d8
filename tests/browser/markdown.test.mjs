// Markdown in messages, as the page draws it: rendered by the render module (a wasm module of
// its own, with the diffs, fetched once the page is idle, not part of the first download), with
// raw HTML and unsafe links kept as text; and as plain text when that module cannot be loaded.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test, ROOT, openApp, dropFiles, tree, servedForTests } from "./harness.mjs";

const FIXTURE = join(ROOT, "tests/fixtures/sessions/markdown-reply.jsonl");
const PROMPT = "Plan a simmer mode for the kettle, in Markdown please.";
let server;
let browser;
servedForTests((site) => ({ server, browser } = site));

/** The assistant's reply, once the session is open. */
async function openReply(page) {
  await dropFiles(page, [{ name: "markdown-reply.jsonl", bytes: readFileSync(FIXTURE) }]);
  await tree(page).getByText(PROMPT).waitFor();
  return tree(page)
    .getByRole("treeitem")
    .filter({ has: page.locator(".speaker", { hasText: "Assistant" }) });
}

/** What the fixture's injection attempts would have set, had any run. */
const pwned = (page) => page.evaluate(() => window.__pwned);

test("the render module is fetched once the start page is ready, not before", async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  // When the start page's button is in the document (as tests/bench/startup.mjs sees it).
  await page.addInitScript(() => {
    new MutationObserver((_, observer) => {
      if ([...document.querySelectorAll("button")].some((b) => b.textContent.trim() === "Open example")) {
        window.__readyAt = performance.now();
        observer.disconnect();
      }
    }).observe(document, { childList: true, subtree: true });
  });
  await page.goto(server.url);
  await page.waitForFunction(() => typeof self.sessionscopeRender === "function", null, { timeout: 10_000 });
  const { readyAt, fetched } = await page.evaluate(() => ({
    readyAt: window.__readyAt,
    fetched: performance
      .getEntriesByType("resource")
      .filter((e) => /\/render(_loader\.js|\.js|_bg\.wasm)$/.test(e.name))
      .map((e) => [e.name.split("/").pop(), e.startTime]),
  }));
  assert.equal(fetched.length, 3, JSON.stringify(fetched));
  for (const [name, at] of fetched) {
    assert.ok(at >= readyAt, `${name} was fetched at ${at.toFixed(0)} ms, the start page was ready at ${readyAt.toFixed(0)} ms`);
  }
  await context.close();
});

test("Markdown is drawn by the render module, with raw HTML and unsafe links kept as text", async () => {
  const app = await openApp(browser, server);
  const { page } = app;
  // It comes once the page is idle, before any session is opened.
  await page.waitForFunction(() => typeof self.sessionscopeRender === "function", null, { timeout: 10_000 });
  assert.ok(app.requests.some((u) => u.endsWith("/render_bg.wasm")));

  const reply = await openReply(page);
  await reply.getByRole("heading", { level: 2, name: "Plan for simmer" }).waitFor();
  assert.equal(await reply.locator("strong", { hasText: "kettle" }).count(), 1);
  assert.equal(await reply.locator("del", { hasText: "boil" }).count(), 1, "strikethrough");
  const table = reply.getByRole("table");
  assert.deepEqual(await table.getByRole("columnheader").allInnerTexts(), ["Step", "File"]);
  assert.deepEqual(await table.getByRole("cell").allInnerTexts(), ["add the mode", "brew.rs"]);
  assert.equal((await reply.locator(".code-block code").innerText()).trim(), "fn simmer() {}");
  assert.deepEqual(
    await reply.getByRole("checkbox").evaluateAll((boxes) => boxes.map((b) => b.checked)),
    [true, false],
    "the task list's boxes",
  );
  const docs = reply.getByRole("link", { name: "the brewing docs" });
  assert.equal(await docs.getAttribute("href"), "https://example.com/docs");
  assert.equal(await docs.getAttribute("target"), "_blank");
  assert.match(await docs.getAttribute("rel"), /\bnoopener\b/);
  // A javascript: link is no link, and raw HTML is its text.
  assert.equal(await reply.getByRole("link", { name: "a trap" }).count(), 0);
  assert.equal(await reply.locator("a[href^='javascript']").count(), 0);
  const text = await reply.innerText();
  assert.ok(text.includes(`<img src=x onerror="window.__pwned=1">`), text);
  assert.ok(text.includes("<script>window.__pwned=2</script>"), text);
  assert.equal(await tree(page).locator(".markdown img, .markdown script").count(), 0);
  // The thinking block is Markdown too.
  await reply.locator("summary", { hasText: "Thinking" }).click();
  await reply.locator(".thinking strong", { hasText: "Markdown" }).waitFor();
  // The prompt as well, and nothing was left as plain text.
  await tree(page).locator(".markdown p", { hasText: PROMPT }).waitFor();
  assert.equal(await tree(page).locator(".markdown-text").count(), 0);

  assert.equal(await pwned(page), undefined, "no injected code ran");
  assert.deepEqual(app.errors, []);
  assert.deepEqual(app.foreignRequests(), []);
  await app.context.close();
});

test("without the render module, Markdown shows as its text, still never as HTML", async () => {
  const served = server.refuse("/render_bg.wasm");
  const app = await openApp(browser, server);
  const { page } = app;
  const reply = await openReply(page);
  const plain = reply.locator(".markdown-text").last();
  await plain.waitFor();
  await page.waitForFunction(() => self.sessionscopeRender === null, null, { timeout: 10_000 });
  const text = await plain.innerText();
  assert.ok(text.startsWith("## Plan for simmer\n\nThe **kettle**"), text);
  assert.ok(text.includes("<script>window.__pwned=2</script>"), text);
  assert.equal(await reply.getByRole("heading").count(), 0);
  assert.equal(await reply.getByRole("link").count(), 0);
  assert.equal(await tree(page).locator(".markdown img, .markdown script").count(), 0);
  assert.equal(await pwned(page), undefined, "no injected code ran");
  // The refused fetch is the only error.
  assert.ok(app.errors.every((e) => /render_bg\.wasm|Failed to load resource|ERR_FAILED|404/.test(e)), app.errors.join("\n"));
  served();
  await app.context.close();
});

test("Markdown drawn as text before its module arrives is drawn again when it does", async () => {
  const release = server.hold("/render_bg.wasm");
  const app = await openApp(browser, server);
  const { page } = app;
  const reply = await openReply(page);
  await reply.locator(".markdown-text", { hasText: "## Plan for simmer" }).waitFor();
  assert.equal(await reply.getByRole("heading").count(), 0);
  release();
  await reply.getByRole("heading", { level: 2, name: "Plan for simmer" }).waitFor();
  await tree(page).locator(".markdown p", { hasText: PROMPT }).waitFor();
  assert.equal(await tree(page).locator(".markdown-text").count(), 0, "nothing is left as text");
  assert.deepEqual(app.errors, []);
  await app.context.close();
});
