// The foundation: the built site loads under its CSP with no console error, the example and
// dropped or picked files show their messages, and nothing is requested from anywhere else.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test, ROOT, DIST, serveDist, openApp, said, dropFiles, realFixture, allTreeItems, tree, servedForTests } from "./harness.mjs";

const KETTLE = join(ROOT, "tests/fixtures/sessions/kettle-rename.jsonl");
let server;
let browser;
servedForTests((site) => ({ server, browser } = site));

/** The lines of a JSONL file, parsed by node's own JSON parser. */
function lines(path) {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
}

/** What the graph should show of a simple session (no fork, no compaction, no agent), counted
 * independently of the engine: each prompt, each API response (lines sharing message.id), each
 * tool call. */
function expectedRows(path) {
  let rows = 0;
  const responses = new Set();
  for (const d of lines(path)) {
    const content = d.message?.content;
    if (d.type === "user" && !d.isMeta) {
      const onlyResults = Array.isArray(content) && content.every((b) => b.type === "tool_result");
      if (!onlyResults) rows++;
    }
    if (d.type === "assistant") {
      if (!responses.has(d.message.id)) rows++;
      responses.add(d.message.id);
      rows += (content || []).filter((b) => b.type === "tool_use").length;
    }
  }
  return rows;
}

/** Prompts typed by the user: user lines that are neither tool results nor meta. */
function prompts(path) {
  return lines(path).filter((d) => {
    const content = d.message?.content;
    const onlyResults = Array.isArray(content) && content.length > 0 && content.every((b) => b.type === "tool_result");
    return d.type === "user" && !d.isMeta && !d.isCompactSummary && !onlyResults && !d.isSidechain;
  }).length;
}

test("the static skeleton paints before the wasm arrives, under a strict CSP", () => {
  const html = readFileSync(join(DIST, "index.html"), "utf8");
  assert.match(html, /Drop coding-agent session logs/);
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

test("Open example shows the example's conversation", async () => {
  const app = await openApp(browser, server);
  await app.page.getByRole("button", { name: "Open example" }).click();
  await tree(app.page).waitFor();
  await tree(app.page).locator(".message-body p", { hasText: "instead of panicking on overflow" }).waitFor();
  const items = await allTreeItems(app.page);
  // After the compaction: its marker, the summary, the branch switcher, the prompt, three
  // responses and their Edit and Bash calls.
  assert.equal(items.length, 9);
  const marker = items.find((i) => i.text.includes("Conversation compacted"));
  assert.equal(marker?.expanded, "false", "the compaction marker starts folded");
  assert.equal(items.filter((i) => i.text.includes("Branch 2 of 2")).length, 1, "the rewind shows a branch switcher");
  const calls = items.filter((i) => /^▸\n(Edit|Bash)\n/.test(i.text)).map((i) => i.text.split("\n").slice(1, 3).join(" "));
  assert.deepEqual(calls, ["Edit src/eval.rs +22 -20", "Bash cargo test -q"], "tool calls show");
  assert.deepEqual(app.errors, []);
  assert.deepEqual(app.foreignRequests(), []);
  await app.context.close();
});

test("the example is fetched while the start page waits, so Open example fetches nothing", async () => {
  const app = await openApp(browser, server);
  const exampleRequests = () => app.requests.filter((u) => new URL(u).pathname.includes("/example/"));
  // Once the page is idle it asks for the example's three files, with no click.
  const fetched = await said(app.page, "example-fetched");
  assert.equal(exampleRequests().length, 3, "the example's main file, its subagent and the subagent's meta file");
  await app.page.getByRole("button", { name: "Open example" }).click();
  await tree(app.page).getByText("Conversation compacted").waitFor();
  assert.equal(exampleRequests().length, 3, "opening it asked for nothing more");
  // Opened again (after the prepared one was used) it is fetched anew and shows the same rows.
  const before = (await allTreeItems(app.page)).length;
  await app.page.getByRole("banner").getByRole("button", { name: "Example", exact: true }).click();
  await said(app.page, "example-fetched", { after: fetched.index });
  assert.equal(exampleRequests().length, 6);
  await tree(app.page).getByText("Conversation compacted").waitFor();
  assert.equal((await allTreeItems(app.page)).length, before);
  assert.deepEqual(app.errors, []);
  await app.context.close();
});

test("in a narrow window every top-bar action stays on screen, with no sideways scrolling", async () => {
  for (const width of [1024, 800]) {
    const app = await openApp(browser, server, { viewport: { width, height: 700 } });
    await app.page.getByRole("button", { name: "Open example" }).click();
    await tree(app.page).waitFor();
    const overflow = await app.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.equal(overflow, 0, `the page scrolls sideways at ${width} px`);
    const bar = app.page.getByRole("banner");
    const actions = [
      ...["Share…", "Example", "Keyboard shortcuts", "Switch between light and dark"].map((name) => [name, bar.getByRole("button", { name, exact: true })]),
      // The file pickers are labels around hidden inputs.
      ...["Choose files…", "Choose a folder…"].map((name) => [name, bar.getByText(name, { exact: true })]),
    ];
    for (const [name, action] of actions) {
      const box = await action.boundingBox();
      assert.ok(box && box.x >= 0 && box.x + box.width <= width, `${name} is within the ${width} px window`);
    }
    assert.deepEqual(app.errors, []);
    await app.context.close();
  }
});

test("a .jsonl dropped on the drop zone shows its messages and tool calls", async () => {
  const app = await openApp(browser, server);
  await dropFiles(app.page, [{ name: "kettle-rename.jsonl", bytes: readFileSync(KETTLE) }]);
  await tree(app.page).getByText("Please rename the brew function").waitFor();
  const items = await allTreeItems(app.page);
  assert.equal(items.length, expectedRows(KETTLE));
  assert.ok(items.some((i) => i.text.includes("Grep") && i.text.includes("fn brew in src")));
  await tree(app.page).getByText("Found one definition in").waitFor();
  assert.deepEqual(app.errors, []);
  assert.deepEqual(app.foreignRequests(), []);
  await app.context.close();
});

test("a file chosen through the file input shows its messages", async () => {
  const app = await openApp(browser, server);
  await app.page.getByLabel("Choose session log files").setInputFiles(KETTLE);
  await tree(app.page).getByText("Please rename the brew function").waitFor();
  assert.equal((await allTreeItems(app.page)).length, expectedRows(KETTLE));
  assert.deepEqual(app.foreignRequests(), []);
  await app.context.close();
});

test("a dropped real log shows every prompt", async (t) => {
  const path = realFixture(t, "session-share-2.1.14/0ccf1a04-1b4c-43b6-8aa5-79e41db43a68.jsonl");
  if (!path) return;
  const app = await openApp(browser, server);
  await dropFiles(app.page, [{ name: "0ccf1a04-1b4c-43b6-8aa5-79e41db43a68.jsonl", bytes: readFileSync(path) }]);
  await tree(app.page).waitFor();
  await app.page.waitForFunction(() => document.querySelectorAll("[role=treeitem]").length > 0);
  const items = await allTreeItems(app.page);
  const users = items.filter((i) => /^User\b/.test(i.text.trim()));
  assert.equal(users.length, prompts(path));
  assert.deepEqual(app.errors, []);
  assert.deepEqual(app.foreignRequests(), []);
  await app.context.close();
});

test("the built site works from a sub-path of a static host", async () => {
  const prefixed = await serveDist({ prefix: "/some/prefix/" });
  try {
    const app = await openApp(browser, prefixed);
    await app.page.getByRole("button", { name: "Open example" }).click();
    await tree(app.page).waitFor();
    // The example whole: the nine rows after its compaction.
    assert.equal((await allTreeItems(app.page)).length, 9);
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
