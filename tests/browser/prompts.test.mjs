// Prompt to prompt: in the example session, `}` and `{` select each prompt in reading order
// (the first one is folded away under the compaction, and is opened to be shown), `e` goes to
// the failed tool call; the `?` list names the keys; the side panel's Prompts outline lists each
// prompt's first line, time and cost, and a click goes to it.
import assert from "node:assert/strict";
import { test, openApp, nextFrame, tree, servedForTests } from "./harness.mjs";

let server;
let browser;
servedForTests((site) => ({ server, browser } = site));

const selected = (page) => tree(page).locator('[role="treeitem"][aria-selected="true"]');

test("} and { land on each prompt in order, e on the failed call, and the ? list names them", async () => {
  const app = await openApp(browser, server);
  const { page } = app;
  await page.getByRole("button", { name: "Open example" }).click();
  // The example's rows, not only the tree, are there before the keys, and the whole load is done
  // (its summary shows), so that nothing redraws the tree under the focus.
  await tree(page).getByText("Conversation compacted").waitFor();
  await page.getByRole("region", { name: "Load summary" }).waitFor();
  await tree(page).focus();
  await page.waitForFunction(() => document.activeElement?.closest("[role=tree]") != null);

  await page.keyboard.press("}");
  await selected(page).filter({ hasText: "test in tinycalc fails since I switched" }).waitFor();
  // It was folded under the compaction: its row is shown now, at level 2.
  assert.equal(await selected(page).getAttribute("aria-level"), "2");
  await page.keyboard.press("}");
  await selected(page).filter({ hasText: "Now make eval return" }).waitFor();
  // There is no later prompt: the selection stays (the key's handling is on screen by the next
  // frame).
  await page.keyboard.press("}");
  await nextFrame(page);
  assert.match(await selected(page).innerText(), /Now make eval return/);
  await page.keyboard.press("{");
  await selected(page).filter({ hasText: "test in tinycalc fails since I switched" }).waitFor();

  // The failing test run.
  await page.keyboard.press("e");
  await selected(page).filter({ hasText: "cargo test division_rounds_toward_zero" }).waitFor();
  assert.match(await selected(page).innerText(), /Bash/);

  await page.keyboard.press("?");
  const keys = page.getByRole("dialog", { name: "Keyboard shortcuts" }).getByRole("table", { name: "Conversation" });
  assert.match(await keys.innerText(), /\} , \{\s+next, previous prompt/);
  assert.match(await keys.innerText(), /e, E\s+next, previous failed tool call/);
  await page.keyboard.press("Escape");
  assert.deepEqual(app.errors, []);
  await app.context.close();
});

test("the Prompts outline lists each prompt with its time and cost, and goes to it", async () => {
  const app = await openApp(browser, server);
  const { page } = app;
  await page.getByRole("button", { name: "Open example" }).click();
  await tree(page).waitFor();
  const panel = page.getByRole("complementary", { name: "Tool operations" });
  await panel.getByRole("tab", { name: "Prompts (2)" }).click();
  const items = panel.getByRole("list", { name: "Prompts" }).getByRole("button");
  assert.equal(await items.count(), 2);
  const first = (await items.nth(0).innerText()).replace(/\s+/g, " ").trim();
  assert.match(first, /^\d\d:\d\d(:\d\d)? The `division_rounds_toward_zero` test in tinycalc .* \$\d+\.\d\d$/);
  await items.nth(1).click();
  await selected(page).filter({ hasText: "Now make eval return" }).waitFor();
  assert.equal(await items.nth(1).getAttribute("aria-current"), "true");
  assert.deepEqual(app.errors, []);
  await app.context.close();
});
