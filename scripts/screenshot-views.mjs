// A screenshot of each view of the built site (dist/) on the bundled example, for the issue
// notes: the conversation with the panel, search, statistics, files touched, the share review,
// the raw view and the keyboard shortcuts; and a Codex rollout, to show other agents' logs.
//   node scripts/screenshot-views.mjs docs/views [--dark]
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, serveDist, launchBrowser, openApp, dropFiles, tree } from "../tests/browser/harness.mjs";

const args = process.argv.slice(2);
const dir = args.find((a) => !a.startsWith("--")) || "docs/views";
const dark = args.includes("--dark");
const suffix = dark ? "-dark" : "";
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
  const app = await openApp(browser, server, { colorScheme: dark ? "dark" : "light", viewport: { width: 1400, height: 900 } });
  const page = app.page;
  await page.getByRole("button", { name: "Open example" }).click();
  await tree(page).waitFor();
  await shot(page, "conversation");

  // Search: a regex, its hits counted, the first one revealed.
  await page.getByRole("checkbox", { name: "Regex" }).check();
  await page.keyboard.press("/");
  await page.getByLabel("Search text").fill("div_euclid|overflow");
  await page.getByLabel("Search text").press("Enter");
  await page.getByRole("list", { name: "Search results" }).waitFor();
  await shot(page, "search");
  await page.keyboard.press("Escape");

  // The raw lines behind the selected row.
  const prompt = tree(page).getByRole("treeitem").filter({ hasText: "and negation" }).first();
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
  await share.getByText(/\d+ findings: \d+ redacted/).waitFor({ timeout: 20_000 });
  await shot(page, "share");
  await share.getByRole("button", { name: "Close" }).click();

  await page.keyboard.press("?");
  await shot(page, "keys");
  await page.keyboard.press("Escape");

  // Another agent's log: a Codex CLI rollout.
  const codex = await openApp(browser, server, { colorScheme: dark ? "dark" : "light", viewport: { width: 1400, height: 900 } });
  const rollout = "rollout-2025-10-02T10-11-12-0199a213-81c0-7800-8aa1-bbab2a035a53.jsonl";
  await dropFiles(codex.page, [{ name: rollout, bytes: readFileSync(join(ROOT, "crates/engine/tests/fixtures/formats", rollout)) }]);
  await tree(codex.page).waitFor();
  await shot(codex.page, "codex-rollout");

  for (const a of [app, codex]) {
    if (a.foreignRequests().length) throw new Error(`foreign requests: ${a.foreignRequests()}`);
    if (a.errors.length) throw new Error(`errors: ${a.errors}`);
  }
} finally {
  await browser.close();
  await server.close();
}
