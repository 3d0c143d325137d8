// A screenshot of each view of the built site (dist/) on the bundled example, for the issue
// notes: the conversation with the panel, search, statistics, files touched, the share review,
// the raw view, the keyboard shortcuts, the prompt outline and the command palette; a Codex
// rollout, to show other agents' logs; and, given a history folder, the history home's Files
// tab, a file's page, Failures and Activity; and a remembered folder of the project's fixtures
// where sessions grew since they were seen (their unread marks, a star and tags, the "new since"
// divider). `--width 800` takes them in a narrow window (their names end in `-800`).
//   node scripts/screenshot-views.mjs docs/views [--dark] [--width 800] [--history <folder>]
// (a history to show: cargo run --release -p sessionscope-synth --bin gen-history -- --out /tmp/h20 --size 20MB)
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, serveDist, launchBrowser, openApp, dropFiles, dropFolder, tree, writeFolder, chooseFolder, indexed, waitForApp } from "../tests/browser/harness.mjs";

const args = process.argv.slice(2);
const historyAt = args.indexOf("--history");
const historyFolder = historyAt >= 0 ? args[historyAt + 1] : null;
const widthAt = args.indexOf("--width");
const width = widthAt >= 0 ? Number(args[widthAt + 1]) : 1400;
const dir = args.find((a, i) => !a.startsWith("--") && i !== historyAt + 1 && i !== widthAt + 1) || "docs/views";
const dark = args.includes("--dark");
const suffix = `${width === 1400 ? "" : `-${width}`}${dark ? "-dark" : ""}`;
const viewport = { width, height: 900 };
mkdirSync(dir, { recursive: true });

const server = await serveDist();
const browser = await launchBrowser();
const shot = async (page, name) => {
  await page.waitForTimeout(400);
  const path = join(dir, `${name}${suffix}.png`);
  await page.screenshot({ path });
  console.log(`wrote ${path}`);
};
try {
  const app = await openApp(browser, server, { colorScheme: dark ? "dark" : "light", viewport });
  const page = app.page;
  await page.getByRole("button", { name: "Open example" }).click();
  await tree(page).waitFor();
  await shot(page, "conversation");

  // Search: a regex, its hits counted, the first one revealed.
  await page.getByRole("checkbox", { name: "Regex" }).check();
  await page.keyboard.press("/");
  await page.getByLabel("Search text").fill("div_euclid|overflow");
  await page.getByLabel("Search text").press("Enter");
  // Enter goes to the first hit and closes the list; a click on the box opens it again.
  await page.getByText(/^1 of \d+ matches$/).waitFor();
  await page.getByLabel("Search text").click();
  await page.getByRole("list", { name: "Search results" }).waitFor();
  await shot(page, "search");
  await page.keyboard.press("Escape");

  // The raw lines behind the selected row.
  const prompt = tree(page).getByRole("treeitem").filter({ hasText: /test in tinycalc fails/ }).first();
  await prompt.click();
  await page.keyboard.press("r");
  await prompt.getByRole("group", { name: "Raw lines" }).evaluate((e) => e.scrollIntoView({ block: "end" }));
  await shot(page, "raw");
  await page.keyboard.press("r");

  const panel = page.getByRole("complementary", { name: "Tool operations" });
  await panel.getByRole("tab", { name: /Files touched/ }).click();
  await shot(page, "files-touched");
  await panel.getByRole("tab", { name: /Operations/ }).click();

  await page.getByRole("tab", { name: "Statistics" }).click();
  await shot(page, "statistics");
  await page.getByRole("tab", { name: "Conversation" }).click();

  await page.getByRole("button", { name: "Share…" }).click();
  const share = page.getByRole("dialog", { name: "Share, redacted" });
  await share.getByText(/\d+ findings?: \d+ redacted/).waitFor({ timeout: 20_000 });
  await shot(page, "share");
  await share.getByRole("button", { name: "Close" }).click();

  await page.keyboard.press("?");
  await shot(page, "keys");
  await page.keyboard.press("Escape");

  // The side panel's prompt outline, and the command palette.
  await panel.getByRole("tab", { name: /Prompts/ }).click();
  await shot(page, "prompts");
  await panel.getByRole("tab", { name: /Operations/ }).click();
  await page.keyboard.press("Control+k");
  await page.keyboard.type("pr");
  await page.getByRole("dialog", { name: "Command palette" }).waitFor();
  await shot(page, "palette");
  await page.keyboard.press("Escape");

  // Another agent's log: a Codex CLI rollout.
  const codex = await openApp(browser, server, { colorScheme: dark ? "dark" : "light", viewport });
  const rollout = "rollout-2025-10-02T10-11-12-0199a213-81c0-7800-8aa1-bbab2a035a53.jsonl";
  await dropFiles(codex.page, [{ name: rollout, bytes: readFileSync(join(ROOT, "crates/engine/tests/fixtures/formats", rollout)) }]);
  await tree(codex.page).waitFor();
  await shot(codex.page, "codex-rollout");

  // A remembered folder where sessions grew since they were last seen, one starred and tagged.
  const seen = await openApp(browser, server, { colorScheme: dark ? "dark" : "light", viewport });
  {
    const { page } = seen;
    const sessions = join(ROOT, "tests/fixtures/sessions");
    const kettle = readFileSync(join(sessions, "kettle-rename.jsonl"), "utf8");
    const line = (uuid, parent, text, timestamp) =>
      JSON.stringify({ isSidechain: false, userType: "external", cwd: "/home/dev/projects/kettle", sessionId: "5e550000-0000-4000-8000-00000000beef", version: "2.1.41", parentUuid: parent, type: "user", message: { role: "user", content: text }, uuid, timestamp }) + "\n";
    await page.evaluate(async () => (await navigator.storage.getDirectory()).removeEntry("projects", { recursive: true }).catch(() => {}));
    let region = (await chooseFolder(page, "projects", {
      "-home-dev-kettle/kettle-rename.jsonl": kettle,
      "-home-dev-kettle/coloured-test-run.jsonl": readFileSync(join(sessions, "coloured-test-run.jsonl"), "utf8"),
      "-home-dev-pot/kettle-copy.jsonl": kettle.replaceAll("5e550000", "5e552222").replaceAll("/kettle", "/pot"),
    })).region;
    await page.waitForTimeout(300);
    await writeFolder(page, "projects", { "-home-dev-kettle/kettle-rename.jsonl": line("f1000000-0000-4000-8000-000000000001", "aaaa0005-0000-4000-8000-000000000005", "Now rename `pour` to `serve` as well.", "2026-04-02T10:00:00.000Z") + line("f1000000-0000-4000-8000-000000000002", "f1000000-0000-4000-8000-000000000001", "And say so in the changelog.", "2026-04-02T10:01:00.000Z") }, { append: true });
    await writeFolder(page, "projects", { "-home-dev-pot/new.jsonl": kettle.replaceAll("5e550000", "5e553333").replaceAll("/kettle", "/pot") });
    await page.reload();
    await waitForApp(page);
    await page.getByRole("button", { name: "Reopen projects" }).click();
    region = (await indexed(page)).region;
    const coloured = region.getByRole("option").filter({ hasText: "Run the kettle tests" });
    await coloured.click();
    await page.getByRole("button", { name: "Star this session" }).click();
    await page.getByRole("button", { name: "Note & tags…" }).click();
    const dialog = page.getByRole("dialog", { name: "Note and tags on this session" });
    await dialog.getByLabel("Note").fill("The flaky test: fixed by pinning the clock.");
    await dialog.getByLabel(/^Tags/).fill("tests, flaky");
    await shot(page, "marks-dialog");
    await dialog.getByRole("button", { name: "Save" }).click();
    await page.getByRole("button", { name: "← History" }).click();
    await region.getByText("2 new", { exact: true }).waitFor();
    await shot(page, "history-unread");
    await region.getByRole("option").filter({ hasText: "2 new" }).click();
    await tree(page).getByRole("separator", { name: /^New since / }).waitFor();
    await shot(page, "new-since");
  }

  const apps = [app, codex, seen];
  if (historyFolder) {
    const home = await openApp(browser, server, { colorScheme: dark ? "dark" : "light", viewport });
    apps.push(home);
    await dropFolder(home.page, historyFolder);
    const history = home.page.getByRole("region", { name: "History" });
    await history.getByRole("status").filter({ hasText: /^Indexed / }).waitFor({ timeout: 120_000 });
    await history.getByRole("tab", { name: "Files" }).click();
    const files = history.getByRole("listbox", { name: "Files" });
    await files.getByRole("option").first().waitFor({ timeout: 30_000 });
    await shot(home.page, "history-files");
    // The file changed most often: its changes, each diff read from its session.
    await history.getByLabel("Sort files by").selectOption("changes");
    await files.getByRole("option").first().click();
    const changes = history.getByRole("list", { name: "Changes" });
    await changes.getByRole("group", { name: /^Diff: / }).first().waitFor({ timeout: 30_000 });
    await shot(home.page, "history-file");
    await history.getByRole("tab", { name: "Failures" }).click();
    await history.getByRole("list", { name: "Failure groups" }).getByRole("listitem").first().waitFor({ timeout: 30_000 });
    await shot(home.page, "history-failures");
    await history.getByRole("tab", { name: "Activity" }).click();
    await history.getByRole("img", { name: /^Activity calendar/ }).waitFor({ timeout: 30_000 });
    await shot(home.page, "history-activity");
  }

  for (const a of apps) {
    if (a.foreignRequests().length) throw new Error(`foreign requests: ${a.foreignRequests()}`);
    if (a.errors.length) throw new Error(`errors: ${a.errors}`);
  }
} finally {
  await browser.close();
  await server.close();
}
