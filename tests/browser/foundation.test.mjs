// The foundation: the built site loads under its CSP with no console error, the example and
// dropped or picked files show their messages, and nothing is requested from anywhere else.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, DIST, serveDist, launchBrowser, openApp, dropFiles, realFixture } from "./harness.mjs";

const KETTLE = join(ROOT, "tests/fixtures/sessions/kettle-rename.jsonl");
let server;
let browser;

before(async () => {
  server = await serveDist();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/** user/assistant/system lines of a JSONL file, counted with node's own JSON parser. */
function conversationLines(path) {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l))
    .filter((d) => ["user", "assistant", "system"].includes(d.type) && d.uuid).length;
}

test("the static skeleton paints before the wasm arrives, under a strict CSP", () => {
  const html = readFileSync(join(DIST, "index.html"), "utf8");
  assert.match(html, /Drop Claude Code session logs/);
  const csp = html.match(/http-equiv="Content-Security-Policy"\s+content="([^"]+)"/)[1];
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /connect-src 'self'/);
  assert.doesNotMatch(csp, /https?:/, "the policy names no other origin");
  assert.doesNotMatch(csp, /__INLINE_SCRIPT_HASHES__/, "the inline script hash was filled in");
  assert.doesNotMatch(html, /(src|href)="(https?:)?\/\//, "no asset comes from another origin");
  assert.doesNotMatch(html, /(src|href)="\/[^/]/, "asset URLs are relative, so any sub-path works");
});

test("the page loads with no console error and no foreign request", async () => {
  const app = await openApp(browser, server);
  assert.deepEqual(app.errors, []);
  assert.deepEqual(app.foreignRequests(), []);
  assert.ok(app.requests.some((u) => u.endsWith(".wasm")), "the wasm came from the local server");
  await app.context.close();
});

test("Open example shows the example's messages", async () => {
  const app = await openApp(browser, server);
  await app.page.getByRole("button", { name: "Open example" }).click();
  const messages = app.page.getByRole("region", { name: "Messages" });
  await messages.waitFor();
  const rows = await messages.getByRole("listitem").count();
  assert.ok(rows >= 2, `the example shows its messages (${rows})`);
  assert.deepEqual(app.errors, []);
  assert.deepEqual(app.foreignRequests(), []);
  await app.context.close();
});

test("a .jsonl dropped on the drop zone shows its messages", async () => {
  const app = await openApp(browser, server);
  await dropFiles(app.page, [{ name: "kettle-rename.jsonl", bytes: readFileSync(KETTLE) }]);
  const messages = app.page.getByRole("region", { name: "Messages" });
  await messages.getByText("Please rename the `brew` function").waitFor();
  assert.equal(await messages.getByRole("listitem").count(), conversationLines(KETTLE));
  await messages.getByText("Found one definition in `src/lib.rs`").waitFor();
  assert.deepEqual(app.errors, []);
  assert.deepEqual(app.foreignRequests(), []);
  await app.context.close();
});

test("a file chosen through the file input shows its messages", async () => {
  const app = await openApp(browser, server);
  await app.page.getByLabel("Choose session log files").setInputFiles(KETTLE);
  const messages = app.page.getByRole("region", { name: "Messages" });
  await messages.getByText("Please rename the `brew` function").waitFor();
  assert.equal(await messages.getByRole("listitem").count(), conversationLines(KETTLE));
  assert.deepEqual(app.foreignRequests(), []);
  await app.context.close();
});

test("a dropped real log shows all its messages", async (t) => {
  const path = realFixture("session-share-2.1.14/0ccf1a04-1b4c-43b6-8aa5-79e41db43a68.jsonl");
  if (!path) {
    t.skip("../shared/fixtures/real is not here");
    return;
  }
  const app = await openApp(browser, server);
  await dropFiles(app.page, [{ name: "real.jsonl", bytes: readFileSync(path) }]);
  const messages = app.page.getByRole("region", { name: "Messages" });
  await messages.waitFor();
  await app.page.waitForFunction(
    (n) => document.querySelectorAll("[aria-label=Messages] li").length === n,
    conversationLines(path),
  );
  assert.deepEqual(app.errors, []);
  assert.deepEqual(app.foreignRequests(), []);
  await app.context.close();
});

test("the built site works from a sub-path of a static host", async () => {
  const prefixed = await serveDist({ prefix: "/some/prefix/" });
  try {
    const app = await openApp(browser, prefixed);
    await app.page.getByRole("button", { name: "Open example" }).click();
    await app.page.getByRole("region", { name: "Messages" }).waitFor();
    assert.deepEqual(app.errors, []);
    assert.deepEqual(app.foreignRequests(), []);
    assert.ok(
      prefixed.served.filter((u) => u !== "/some/prefix/").every((u) => u.startsWith("/some/prefix/")),
      `every asset was asked for under the prefix: ${prefixed.served}`,
    );
    await app.context.close();
  } finally {
    await prefixed.close();
  }
});
