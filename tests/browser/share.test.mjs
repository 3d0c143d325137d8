// Sharing with no upload: a session with planted secrets is redacted, shared as a link (plain
// and with a passphrase), exported as a self-contained HTML file and as Markdown, and opened
// elsewhere. Every request of every page is recorded; none may leave the local server, and no
// planted secret may appear in any output.
import assert from "node:assert/strict";
import { readFileSync, mkdtempSync, writeFileSync, chmodSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { inflateRawSync } from "node:zlib";
import { test, ENGINE, allowClipboard, copiedText, downloaded, ROOT, serveDist, openApp, dropFiles, allTreeItems, tree, servedForTests } from "./harness.mjs";

const PLANTED = join(ROOT, "crates/engine/tests/fixtures/redact/planted.jsonl");
const EXPECT = join(ROOT, "crates/engine/tests/fixtures/redact/planted.expect");
const SESSION_FILE = "3beb80b1-66fd-44f1-9d70-8c7e34a0a341.jsonl";
const FIRST_PROMPT = "The deploy to staging fails since yesterday";

let server;
let browser;
servedForTests((site) => ({ server, browser } = site));

/** The planted secrets, as `[kind, text]`, and the forms they must not appear in. */
function plantedSecrets() {
  return readFileSync(EXPECT, "utf8")
    .split("\n")
    .filter((l) => l && !l.startsWith("#") && !l.startsWith("decoy\t"))
    .map((l) => {
      const tab = l.indexOf("\t");
      return [l.slice(0, tab), l.slice(tab + 1).replaceAll("\\n", "\n")];
    });
}

/** Fails if any planted secret is in `text` (raw, JSON-escaped, or, for user names, as a word). */
function assertNoSecret(text, where) {
  for (const [kind, secret] of plantedSecrets()) {
    if (kind === "home-user" || kind === "user-name") {
      assert.doesNotMatch(text, new RegExp(`\\b${secret}\\b`), `${where}: user name ${secret} (${kind})`);
      continue;
    }
    for (const part of secret.split("\n").filter((p) => p.trim().length >= 12)) {
      for (const form of [part, JSON.stringify(part).slice(1, -1)]) {
        assert.ok(!text.includes(form), `${where}: ${kind} secret ${part.slice(0, 12)}… is in the output`);
      }
    }
  }
}

/** The payload of a share (the `#share=` text), unpacked like the app does. */
function unpackShare(text) {
  const bytes = Buffer.from(text, "base64url");
  assert.equal(bytes[0], 1, "envelope format version");
  assert.equal(bytes[1], 1, "deflate codec");
  assert.equal(bytes[2], 0, "not encrypted");
  const payload = inflateRawSync(bytes.subarray(3)).toString("utf8");
  const newline = payload.indexOf("\n");
  return { header: JSON.parse(payload.slice(0, newline)), body: payload.slice(newline + 1) };
}

/**
 * Opens an exported file from disk in a context with the network off, every request but the
 * file's own refused and recorded, and the page's errors recorded; waits for the shared view and
 * its first prompt. `requests()` answers what the page asked for. WebKit's driver can neither
 * take a context off the network nor see a file page's requests and console: there the page's
 * own record of what it fetched is read (resource timing), and its scripts are seen to run by
 * the view they draw.
 */
async function openOffline(path) {
  const errors = [];
  if (ENGINE === "webkit") {
    const offline = await browser.newContext();
    const page = await offline.newPage();
    await page.goto(pathToFileURL(path).href);
    await page.getByText("Shared view, redacted").first().waitFor({ timeout: 30_000 });
    await tree(page).getByRole("treeitem").filter({ hasText: FIRST_PROMPT }).first().waitFor({ timeout: 30_000 });
    const requests = () => page.evaluate(() => [location.href, ...performance.getEntriesByType("resource").map((e) => e.name)]);
    return { offline, page, requests, errors };
  }
  const offline = await browser.newContext({ offline: true });
  const seen = [];
  await offline.route("**/*", (route) => {
    seen.push(route.request().url());
    return route.request().url().startsWith("file:") ? route.continue() : route.abort();
  });
  const requests = async () => seen;
  const page = await offline.newPage();
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  await page.goto(pathToFileURL(path).href);
  await page.getByText("Shared view, redacted").first().waitFor({ timeout: 30_000 });
  await tree(page).getByRole("treeitem").filter({ hasText: FIRST_PROMPT }).first().waitFor({ timeout: 30_000 });
  return { offline, page, requests, errors };
}

async function loadPlanted(app) {
  await dropFiles(app.page, [{ name: SESSION_FILE, bytes: readFileSync(PLANTED) }]);
  await tree(app.page).getByRole("treeitem").filter({ hasText: FIRST_PROMPT }).first().waitFor();
}

/** Opens the share dialog, adds the user's own pattern, and waits for the scan. */
async function openShareDialog(page, { pattern = "Project Bluebird" } = {}) {
  await page.getByRole("button", { name: "Share…" }).click();
  const dialog = page.getByRole("dialog", { name: "Share, redacted" });
  await dialog.waitFor();
  if (pattern) {
    await dialog.getByLabel("Your own patterns").fill(pattern);
  }
  await dialog.getByText(/\d+ findings?: \d+ redacted/).waitFor({ timeout: 20_000 });
  return dialog;
}

async function createLink(dialog, passphrase) {
  if (passphrase) await dialog.getByLabel("Passphrase").fill(passphrase);
  await dialog.getByRole("button", { name: "Create link" }).click();
  const box = dialog.getByRole("textbox", { name: "Share link" });
  await box.waitFor({ timeout: 30_000 });
  // It comes into the window, focused, its text selected to copy.
  await dialog.page().waitForFunction(() => {
    const area = document.activeElement;
    const bottom = area?.getBoundingClientRect().bottom;
    return area?.getAttribute("aria-label") === "Share link" && bottom <= innerHeight && area.selectionEnd === area.value.length && area.value.length > 0;
  });
  return box.inputValue();
}

function assertLocalOnly(app, what) {
  assert.deepEqual(app.foreignRequests(), [], `${what}: requests left the local server`);
}

test("the review lists findings by kind with placeholders, and each can be kept", async () => {
  const app = await openApp(browser, server);
  await loadPlanted(app);
  const dialog = await openShareDialog(app.page);
  const review = dialog.getByRole("region", { name: "Findings" });
  for (const label of ["GitHub token", "Email address", "IP address"]) {
    await review.getByText(new RegExp(`^${label}`, "i")).first().waitFor();
  }
  const redact = review.getByRole("checkbox", { name: "Redact [REDACTED:github-token#1]" });
  assert.equal(await redact.isChecked(), true, "findings are redacted unless kept");
  await redact.uncheck();
  await review.getByText(/\(\d+ redacted\)/).first().waitFor();
  const status = await dialog.getByText(/\d+ findings?: \d+ redacted, 1 kept/).textContent();
  assert.match(status, /1 kept/);
  // Values are masked until asked for.
  const secret = plantedSecrets().find(([k]) => k === "github-token")[1];
  assert.ok(!(await review.innerText()).includes(secret), "values are masked by default");
  await dialog.getByLabel("Show values").check();
  await review.getByText(secret).first().waitFor();
  assert.deepEqual(app.errors, []);
  assertLocalOnly(app, "review");
  await app.context.close();
});

test("a share link opens in a fresh browser with the same messages, redacted, and leaves no trace in the address bar", async () => {
  const app = await openApp(browser, server);
  await loadPlanted(app);
  const dialog = await openShareDialog(app.page);
  const link = await createLink(dialog);
  assert.ok(link.startsWith(server.url), link.slice(0, 60));
  const fragment = link.slice(link.indexOf("#share=") + "#share=".length);
  const { header, body } = unpackShare(fragment);
  assertNoSecret(body, "share link");
  assertNoSecret(JSON.stringify(header), "share header");
  assert.match(body, /\[REDACTED:github-token#1\]/);
  assert.match(body, /\[REDACTED:user-pattern#1\]/, "the user's own pattern is applied");
  assert.match(body, /\/home\/\[user\]/);
  assert.equal(header.files.length, 1);
  assert.equal(header.files[0].path, SESSION_FILE);
  await dialog.getByText(/of the 1\.5 MB a link may hold/).waitFor();
  assertLocalOnly(app, "making the link");

  const recipient = await browser.newContext();
  const page = await recipient.newPage();
  const requests = [];
  page.on("request", (r) => requests.push(r.url()));
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(link);
  await page.getByRole("region", { name: "Shared view" }).getByText("Shared view, redacted").waitFor({ timeout: 30_000 });
  await tree(page).getByRole("treeitem").filter({ hasText: FIRST_PROMPT }).first().waitFor();
  assert.ok(!page.url().includes("share="), `the fragment is cleared: ${page.url()}`);
  const shown = await page.locator("main").innerText();
  assertNoSecret(shown, "shared view");
  assert.deepEqual(
    requests.filter((u) => !u.startsWith(server.origin + "/") && !u.startsWith("data:") && !u.startsWith("blob:")),
    [],
  );
  assert.ok(
    requests.every((u) => !u.includes("share=") || u === link),
    "the share payload is never sent in a request",
  );
  assert.deepEqual(errors, []);
  await recipient.close();
  await app.context.close();
});

test("a passphrase link refuses a wrong passphrase and opens with the right one", async () => {
  const app = await openApp(browser, server);
  await loadPlanted(app);
  const dialog = await openShareDialog(app.page);
  const link = await createLink(dialog, "correct horse battery staple");
  await dialog.getByText("Share link (encrypted: send the passphrase separately)").waitFor();
  const fragment = link.slice(link.indexOf("#share=") + 7);
  const bytes = Buffer.from(fragment, "base64url");
  assert.equal(bytes[2], 1, "the envelope says it is encrypted");
  assertNoSecret(bytes.toString("latin1"), "encrypted link");
  assert.ok(!bytes.toString("latin1").includes("Bluebird"), "the body is not readable without the passphrase");

  const recipient = await browser.newContext();
  const page = await recipient.newPage();
  const requests = [];
  page.on("request", (r) => requests.push(r.url()));
  await page.goto(link);
  const prompt = page.getByRole("region", { name: "Protected share" });
  await prompt.waitFor({ timeout: 30_000 });
  assert.ok(!page.url().includes("share="), "the fragment is cleared before the passphrase is asked");
  await prompt.getByLabel("Passphrase").fill("wrong horse");
  await prompt.getByRole("button", { name: "Open" }).click();
  const alert = prompt.getByRole("alert");
  await alert.waitFor({ timeout: 30_000 });
  assert.match(await alert.innerText(), /wrong passphrase/i);
  await prompt.getByLabel("Passphrase").fill("correct horse battery staple");
  await prompt.getByRole("button", { name: "Open" }).click();
  await tree(page).getByRole("treeitem").filter({ hasText: FIRST_PROMPT }).first().waitFor({ timeout: 30_000 });
  await page.getByText("Shared view, redacted").first().waitFor();
  assertNoSecret(await page.locator("main").innerText(), "decrypted view");
  assert.deepEqual(requests.filter((u) => !u.startsWith(server.origin + "/") && !u.startsWith("data:")), []);
  await recipient.close();
  await app.context.close();
});

test("the HTML export opens from disk with the network blocked, and Markdown holds no secret", async () => {
  const app = await openApp(browser, server);
  await loadPlanted(app);
  const dialog = await openShareDialog(app.page);
  const dir = mkdtempSync(join(tmpdir(), "sessionscope-export-"));

  const htmlDownload = await downloaded(app.page, () => dialog.getByRole("button", { name: "Download HTML" }).click());
  const htmlPath = join(dir, htmlDownload.name);
  writeFileSync(htmlPath, htmlDownload.bytes);
  assert.match(htmlDownload.name, /\.sessionscope\.html$/);
  const html = readFileSync(htmlPath, "utf8");
  assert.match(html, /connect-src 'none'/, "the export's CSP allows no connection");
  assert.doesNotMatch(html, /<(link|script)[^>]+(src|href)="(https?:)?\/\//, "nothing is loaded from elsewhere");
  const data = html.match(/<script type="application\/octet-stream" id="sessionscope-share">([^<]*)<\/script>/)[1];
  // The figures the closing note reports.
  console.log(`HTML export: ${html.length} bytes, of which share data ${data.length}`);
  assertNoSecret(unpackShare(data).body, "HTML export data");
  assertNoSecret(html, "HTML export");

  const mdDownload = await downloaded(app.page, () => dialog.getByRole("button", { name: "Download Markdown" }).click());
  const mdPath = join(dir, mdDownload.name);
  writeFileSync(mdPath, mdDownload.bytes);
  const markdown = readFileSync(mdPath, "utf8");
  assert.match(markdown, /### User/);
  assert.ok(markdown.includes(FIRST_PROMPT), "the Markdown has the conversation");
  assertNoSecret(markdown, "Markdown export");
  assertLocalOnly(app, "exporting");

  const { offline, page, requests, errors } = await openOffline(htmlPath);
  assertNoSecret(await page.locator("main").innerText(), "exported view");
  // Markdown is rendered by the Markdown module the file carries, started as it opened.
  await tree(page).locator(".markdown p", { hasText: FIRST_PROMPT }).first().waitFor();
  // The page holds no parser: the exported file carries its loading worker, started from a
  // blob: URL, and reads other files with it too (here the original, unredacted session).
  await dropFiles(page, [{ name: SESSION_FILE, bytes: readFileSync(PLANTED) }]);
  await page.getByRole("dialog", { name: "Add or replace" }).getByRole("button", { name: "Replace" }).click();
  await page.getByText("Shared view, redacted").first().waitFor({ state: "detached", timeout: 30_000 });
  await tree(page).getByRole("treeitem").filter({ hasText: FIRST_PROMPT }).first().waitFor({ timeout: 30_000 });
  // Shown as it is: the user's name the share had replaced by a placeholder is there.
  await tree(page).getByRole("treeitem").filter({ hasText: "I'm on alice's laptop" }).first().waitFor();
  assert.deepEqual((await requests()).filter((u) => !u.startsWith("file:") && !u.startsWith("blob:")), [], "the export asked for nothing");
  assert.deepEqual(errors, []);
  await offline.close();
  await app.context.close();
});

test("`sessionscope open` writes the same file from the command line and starts the browser with it", async () => {
  const dir = mkdtempSync(join(tmpdir(), "sessionscope-open-"));
  // A stand-in browser: it notes the file it was given.
  const given = join(dir, "browser-was-given");
  const browserScript = join(dir, "browser.sh");
  writeFileSync(browserScript, `#!/bin/sh\nprintf '%s' "$1" > '${given}'\n`);
  chmodSync(browserScript, 0o755);
  const printed = execFileSync(
    "cargo",
    [
      ...["run", "--quiet", "-p", "sessionscope-engine", "--bin", "sessionscope", "--", "open", PLANTED],
      ...["--site", join(ROOT, "dist"), "--redact", "Project Bluebird"],
    ],
    { cwd: ROOT, env: { ...process.env, BROWSER: browserScript, TMPDIR: dir }, maxBuffer: 1 << 26 },
  )
    .toString()
    .trim();
  assert.match(printed, /\.sessionscope\.html$/, "the file's path is printed");
  assert.ok(printed.startsWith(dir), `written to the temporary folder: ${printed}`);
  assert.equal(readFileSync(given, "utf8"), printed, "the browser was started with the file");
  const html = readFileSync(printed, "utf8");
  assert.match(html, /connect-src 'none'/);
  assert.doesNotMatch(html, /<(link|script)[^>]+(src|href)="(https?:)?\/\//, "nothing is loaded from elsewhere");
  const data = html.match(/<script type="application\/octet-stream" id="sessionscope-share">([^<]*)<\/script>/)[1];
  const body = unpackShare(data).body;
  assert.ok(body.includes(FIRST_PROMPT), "the share holds the session");
  assert.match(body, /\[REDACTED:user-pattern#1\]/, "the pattern given with --redact is applied");
  assertNoSecret(body, "sessionscope open's share");
  assertNoSecret(html, "sessionscope open");

  const { offline, page, requests, errors } = await openOffline(printed);
  await tree(page).locator(".markdown p", { hasText: FIRST_PROMPT }).first().waitFor();
  assertNoSecret(await page.locator("main").innerText(), "the opened view");
  assert.deepEqual((await requests()).filter((u) => !u.startsWith("file:") && !u.startsWith("blob:")), [], "the file asked for nothing");
  assert.deepEqual(errors, [], "its policy let every inline script and style run");
  await offline.close();
});

test("a link too long for a URL is refused with advice", async () => {
  // A session whose redacted form is far over 1.5 MB even compressed: random text.
  const lines = [];
  let parent = null;
  for (let i = 0; i < 400; i++) {
    const uuid = `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;
    const noise = Array.from({ length: 6000 }, () => Math.floor(Math.random() * 36).toString(36)).join("");
    lines.push(
      JSON.stringify({
        parentUuid: parent,
        type: "user",
        uuid,
        sessionId: "big",
        timestamp: "2026-01-01T00:00:00Z",
        message: { role: "user", content: `chunk ${i} ${noise.replace(/(.{80})/g, "$1 ")}` },
      }),
    );
    parent = uuid;
  }
  const app = await openApp(browser, server);
  await dropFiles(app.page, [{ name: "big.jsonl", bytes: lines.join("\n") + "\n" }]);
  await tree(app.page).getByRole("treeitem").first().waitFor();
  const dialog = await openShareDialog(app.page, { pattern: "" });
  await dialog.getByLabel("Other random-looking strings (high entropy)").uncheck();
  await dialog.getByText(/\d+ findings?: \d+ redacted/).waitFor({ timeout: 20_000 });
  await dialog.getByRole("button", { name: "Create link" }).click();
  const alert = dialog.getByRole("alert");
  await alert.waitFor({ timeout: 60_000 });
  assert.match(await alert.innerText(), /links over 1\.5 MB are refused.*HTML/s);
  await app.context.close();
});

test("a view-state link restores the selection and branch for someone with the same files, and says so when the files differ", async () => {
  const app = await openApp(browser, server);
  await allowClipboard(app, server.origin);
  await app.page.getByRole("button", { name: "Open example" }).click();
  const row = tree(app.page).getByRole("treeitem").filter({ hasText: "Bash" }).first();
  await row.click();
  const selectedText = await row.innerText();
  await app.page.getByRole("button", { name: "Share…" }).click();
  const dialog = app.page.getByRole("dialog", { name: "Share, redacted" });
  await dialog.getByRole("button", { name: "Copy view link" }).click();
  await dialog.getByText(/View link copied/).waitFor();
  const url = await copiedText(app.page);
  assert.match(url, /#v=1&fp=[0-9a-f]{16}&s=/);
  // The first Bash row of the example is its last Bash call (line 50), named by its id.
  assert.match(await row.innerText(), /^▸\nBash\ncargo test -q\n/);
  assert.ok(url.includes("&m=o%3Atoolu_01aoERcpYXdI90wsdfBa6wGE"), `a tool call is named by its id: ${url}`);

  // The recipient has the same files (the example) and opens the link.
  const other = await openApp(browser, server, { url });
  await other.page.getByRole("button", { name: "Open example" }).click();
  const selected = tree(other.page).locator("[role=treeitem][aria-selected=true]");
  await selected.waitFor();
  assert.equal(await selected.innerText(), selectedText);
  assert.equal(await other.page.getByRole("status").filter({ hasText: "other files" }).count(), 0);
  await other.context.close();

  // Another recipient opens it over different files: the mismatch is said.
  const third = await openApp(browser, server, { url });
  await dropFiles(third.page, [{ name: SESSION_FILE, bytes: readFileSync(PLANTED) }]);
  await third.page.getByRole("status").filter({ hasText: "made on other files" }).waitFor();
  await third.context.close();
  assertLocalOnly(app, "view link");
  await app.context.close();
});

test("once loaded, the app opens again with the server gone (service worker)", async () => {
  const own = await serveDist({ prefix: "/some/prefix/" });
  const app = await openApp(browser, own);
  await app.page.evaluate(async () => {
    await navigator.serviceWorker.ready;
  });
  // A controlled load fills the cache with everything the page uses.
  await app.page.reload();
  await app.page.getByRole("button", { name: "Open example" }).waitFor();
  await app.page.waitForFunction(() => navigator.serviceWorker.controller !== null);
  await own.close();
  await app.page.reload();
  await app.page.getByRole("button", { name: "Open example" }).click({ timeout: 30_000 });
  await tree(app.page).getByRole("treeitem").first().waitFor();
  // The example whole: the nine rows after its compaction.
  assert.equal((await allTreeItems(app.page)).length, 9);
  await app.context.close();
});
