// The command palette, keyboard only: Ctrl+K opens it over a history, a fuzzy title ("renm brw
// steep") opens that session, and typing "share" runs Share with its key shown beside it; in the
// session, an action's key is listed and "next prompt" goes to the prompt; Escape closes it and
// gives the focus back.
import assert from "node:assert/strict";
import { join } from "node:path";
import { test, ROOT, openApp, dropFolder, tree, servedForTests } from "./harness.mjs";

let server;
let browser;
servedForTests((site) => ({ server, browser } = site));

test("Ctrl+K opens a session by a fuzzy title and runs Share by its name, from the keyboard alone", async () => {
  const app = await openApp(browser, server);
  const { page } = app;
  await dropFolder(page, join(ROOT, "tests/fixtures/sessions"));
  const history = page.getByRole("region", { name: "History" });
  await history.getByRole("status").filter({ hasText: /^Indexed / }).waitFor({ timeout: 30_000 });

  await page.keyboard.press("Control+k");
  const palette = page.getByRole("dialog", { name: "Command palette" });
  const input = palette.getByRole("combobox", { name: "Command, session or project" });
  await input.waitFor();
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("role")), "combobox", "the palette takes the focus");
  // Every session and the project are offered, with the actions.
  const options = palette.getByRole("listbox", { name: "Matches" }).getByRole("option");
  assert.ok((await options.filter({ hasText: "Session · Claude Code" }).count()) === 3);
  assert.equal(await options.filter({ hasText: "Project · 3 sessions" }).count(), 1);

  await page.keyboard.type("renm brw steep");
  const first = options.first();
  assert.match(await first.innerText(), /Please rename the `brew` function to `steep` in kettle\./);
  assert.equal(await first.getAttribute("aria-selected"), "true");
  assert.equal(await input.getAttribute("aria-activedescendant"), await first.getAttribute("id"));
  await page.keyboard.press("Enter");
  await palette.waitFor({ state: "detached" });
  await tree(page).getByText(/Please rename the/).first().waitFor({ timeout: 30_000 });

  // Share, by name: its key is shown beside it.
  await page.keyboard.press("Control+k");
  await page.keyboard.type("share");
  assert.match((await options.first().innerText()).replace(/\s+/g, " ").trim(), /^Share… Action Shift\+S$/);
  await page.keyboard.press("Enter");
  await page.getByRole("dialog", { name: "Share, redacted" }).waitFor();
  await page.keyboard.press("Escape");

  // Arrows choose among the matches; "next prompt" goes to the session's prompt.
  await tree(page).focus();
  await page.keyboard.press("Control+k");
  await page.keyboard.type("prompt");
  const labels = await options.locator(".palette-label").allInnerTexts();
  assert.deepEqual(labels.slice(0, 2), ["Next prompt", "Previous prompt"]);
  await page.keyboard.press("ArrowDown");
  assert.equal(await options.nth(1).getAttribute("aria-selected"), "true");
  await page.keyboard.press("ArrowUp");
  await page.keyboard.press("Enter");
  await tree(page).locator('[role="treeitem"][aria-selected="true"]').filter({ hasText: "Please rename" }).waitFor();

  // Escape closes it and gives the focus back; nothing typed that matches says so.
  await page.keyboard.press("Control+k");
  await page.keyboard.type("zzqqxx");
  await palette.getByRole("status").filter({ hasText: "Nothing matches." }).waitFor();
  await page.keyboard.press("Escape");
  await palette.waitFor({ state: "detached" });
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("role")), "tree");
  assert.deepEqual(app.errors, []);
  await app.context.close();
});
