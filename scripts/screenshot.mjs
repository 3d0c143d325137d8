// Takes a screenshot of the built site (dist/) for the README and the issue notes.
//   node scripts/screenshot.mjs docs/screenshot.png [--dark] [--file path.jsonl ...] [--wait-for TEXT] [--keys "j j Enter"]
// Without --file it opens the bundled example.
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { serveDist, launchBrowser, openApp, dropFiles } from "../tests/browser/harness.mjs";

const args = process.argv.slice(2);
const out = args.find((a) => !a.startsWith("--")) || "docs/screenshot.png";
const dark = args.includes("--dark");
const files = [];
let waitFor = null;
let keys = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--file") files.push(args[++i]);
  if (args[i] === "--wait-for") waitFor = args[++i];
  if (args[i] === "--keys") keys = args[++i].split(" ");
}

const server = await serveDist();
const browser = await launchBrowser();
try {
  const app = await openApp(browser, server, { colorScheme: dark ? "dark" : "light", viewport: { width: 1400, height: 900 } });
  if (files.length) {
    await dropFiles(app.page, files.map((f) => ({ name: basename(f), bytes: readFileSync(f) })));
  } else {
    await app.page.getByRole("button", { name: "Open example" }).click();
  }
  if (waitFor) await app.page.getByText(waitFor).first().waitFor();
  await app.page.waitForTimeout(500);
  for (const key of keys) await app.page.keyboard.press(key);
  await app.page.screenshot({ path: out });
  console.log(`wrote ${out}`);
  if (app.foreignRequests().length) throw new Error(`foreign requests: ${app.foreignRequests()}`);
} finally {
  await browser.close();
  await server.close();
}
