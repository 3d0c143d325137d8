// Tool results and edits as rendered: terminal output with its colours (the 16, the 256-colour
// palette, true colour, bold) and the changed words of an edit, in the light and the dark theme,
// with nothing requested from anywhere but the local server.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test, ROOT, openApp, dropFiles, tree, servedForTests } from "./harness.mjs";

const FIXTURE = join(ROOT, "tests/fixtures/sessions/coloured-test-run.jsonl");
let server;
let browser;
servedForTests((site) => ({ server, browser } = site));

/** The Bash call's stdout as the fixture has it, and as plain text (SGR sequences removed). */
function bashOutput() {
  const line = readFileSync(FIXTURE, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l))
    .find((d) => d.toolUseResult?.stdout);
  const raw = line.toolUseResult.stdout;
  return { raw, plain: raw.replace(/\x1b\[[0-9;]*m/g, "") };
}

/** Selects the row of a call of tool `name` whose summary has `summary` (a string or a pattern), and
 * opens it with the keyboard. */
async function openToolCall(page, name, summary = /./) {
  const row = tree(page)
    .getByRole("treeitem")
    .filter({ has: page.locator(".tool-name", { hasText: name }) })
    .filter({ has: page.locator(".tool-summary", { hasText: summary }) })
    .first();
  await row.click();
  await page.keyboard.press("Enter");
  assert.equal(await row.getAttribute("aria-expanded"), "true");
  return row;
}

/** A CSS colour as sRGB [r, g, b], as the page paints it (through a canvas, so that any notation works). */
async function painted(page, cssColor) {
  return page.evaluate((color) => {
    const canvas = document.createElement("canvas");
    canvas.width = canvas.height = 1;
    const context = canvas.getContext("2d");
    context.fillStyle = color;
    context.fillRect(0, 0, 1, 1);
    return [...context.getImageData(0, 0, 1, 1).data.slice(0, 3)];
  }, cssColor);
}

/** The WCAG contrast ratio of two sRGB colours. */
function contrast(a, b) {
  const luminance = ([r, g, bl]) => {
    const linear = (c) => {
      const v = c / 255;
      return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(bl);
  };
  const [high, low] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (high + 0.05) / (low + 0.05);
}

/** What a span of the output shows: its classes, custom colour property, colour, weight, and the output's background. */
async function spanLook(page, output, text) {
  const span = output.locator("span", { hasText: text }).first();
  const look = await span.evaluate((el) => {
    const style = getComputedStyle(el);
    return {
      classes: el.className,
      property: el.style.getPropertyValue("--ansi-fg"),
      color: style.color,
      weight: style.fontWeight,
      background: getComputedStyle(el.closest("pre")).backgroundColor,
    };
  });
  return { ...look, rgb: await painted(page, look.color), backgroundRgb: await painted(page, look.background) };
}

async function checkColours(page, theme) {
  const output = page.getByLabel("Standard output");
  const expected = {
    light: { red: "rgb(207, 34, 46)", green: "rgb(17, 99, 41)", brightGreen: "rgb(26, 127, 55)" },
    dark: { red: "rgb(255, 123, 114)", green: "rgb(63, 185, 80)", brightGreen: "rgb(86, 211, 100)" },
  }[theme];

  const failed = await spanLook(page, output, "FAILED");
  assert.match(failed.classes, /\bansi-bold\b/);
  assert.match(failed.classes, /\bansi-fg-1\b/);
  assert.equal(failed.color, expected.red, `${theme}: red comes from the theme's palette`);
  assert.equal(failed.weight, "700", `${theme}: bold is bold`);
  const ok = await spanLook(page, output, "ok");
  assert.match(ok.classes, /\bansi-fg-2\b/);
  assert.equal(ok.color, expected.green);
  const compiling = await spanLook(page, output, "Compiling");
  assert.equal(compiling.color, expected.brightGreen);

  // The 256-colour orange and the true-colour blue come as numbers, kept readable on the theme.
  const orange = await spanLook(page, output, "warning");
  assert.match(orange.classes, /\bansi-fg-rgb\b/);
  assert.equal(orange.property, "#ff8700");
  const blue = await spanLook(page, output, "note");
  assert.equal(blue.property, "#0087ff");
  for (const [name, look] of [["red", failed], ["green", ok], ["orange", orange], ["blue", blue]]) {
    const ratio = contrast(look.rgb, look.backgroundRgb);
    assert.ok(ratio >= 4.5, `${theme}: ${name} ${look.color} reads on ${look.background} (contrast ${ratio.toFixed(2)})`);
  }
  if (theme === "dark") {
    assert.deepEqual(orange.rgb, [255, 135, 0], "a colour light enough for the dark theme is shown as it is");
  }
}

async function checkWordDiff(page, theme) {
  // The edit that the log gives a structured patch for.
  const diff = page.getByRole("group", { name: "Diff: 1 added, 1 removed" });
  const deleted = diff.getByRole("deletion");
  const inserted = diff.getByRole("insertion");
  assert.deepEqual(await deleted.allInnerTexts(), ["boil"]);
  assert.deepEqual(await inserted.allInnerTexts(), ["simmer"]);
  // The edit diffed in the page from its old and new strings: the added line with no counterpart is
  // not cut into words.
  const computed = page.getByRole("group", { name: "Diff: 2 added, 1 removed" });
  assert.deepEqual(await computed.getByRole("deletion").allInnerTexts(), ["Boil"]);
  assert.deepEqual(await computed.getByRole("insertion").allInnerTexts(), ["Simmer"]);
  await computed.locator(".diff-add", { hasText: "Wait three minutes." }).waitFor();
  assert.match(await deleted.getAttribute("class"), /\bdiff-word-del\b/);
  assert.match(await inserted.getAttribute("class"), /\bdiff-word-add\b/);
  // The rest of each changed line is there, unmarked.
  await diff.locator(".diff-del", { hasText: "kettle.boil(water);" }).waitFor();
  await diff.locator(".diff-add", { hasText: "kettle.simmer(water);" }).waitFor();
  const backgrounds = async (locator) =>
    locator.evaluate((el) => [getComputedStyle(el).backgroundColor, getComputedStyle(el.closest(".diff-line")).backgroundColor]);
  for (const [name, locator] of [["deleted", deleted], ["inserted", inserted]]) {
    const [word, line] = await backgrounds(locator);
    assert.notEqual(word, line, `${theme}: the ${name} word stands out from its line`);
    assert.notEqual(word, "rgba(0, 0, 0, 0)");
  }
}

test("coloured Bash output and a one-word edit, in the light and the dark theme", async () => {
  const app = await openApp(browser, server, { colorScheme: "light" });
  const { page } = app;
  await dropFiles(page, [{ name: "coloured-test-run.jsonl", bytes: readFileSync(FIXTURE) }]);
  await tree(page).getByText("Run the kettle tests and fix the one that fails.").waitFor();

  await openToolCall(page, "Bash");
  const output = page.getByLabel("Standard output");
  await output.waitFor();
  const { raw, plain } = bashOutput();
  assert.ok(raw.includes("\x1b["), "the fixture's output is coloured");
  assert.equal(await output.evaluate((el) => el.textContent), plain, "the text is the output without its escape sequences");
  await openToolCall(page, "Edit", "brew.rs");
  await page.getByRole("group", { name: "Diff: 1 added, 1 removed" }).waitFor();
  await openToolCall(page, "Edit", "README.md");
  await page.getByRole("group", { name: "Diff: 2 added, 1 removed" }).waitFor();

  assert.equal(await page.evaluate(() => matchMedia("(prefers-color-scheme: dark)").matches), false);
  await checkColours(page, "light");
  await checkWordDiff(page, "light");

  await page.getByRole("button", { name: "Switch between light and dark" }).click();
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), "dark");
  await checkColours(page, "dark");
  await checkWordDiff(page, "dark");

  assert.deepEqual(app.errors, []);
  assert.deepEqual(app.foreignRequests(), []);
  await app.context.close();
});

test("output without escape sequences stays one text node", async () => {
  const app = await openApp(browser, server);
  await app.page.getByRole("button", { name: "Open example" }).click();
  const row = await openToolCall(app.page, "Bash", /^cargo test -q$/);
  const output = row.getByLabel("Standard output");
  await output.waitFor();
  // Comments are the renderer's invisible place markers.
  const nodes = await output.evaluate((el) => [...el.childNodes].map((n) => n.nodeType).filter((t) => t !== Node.COMMENT_NODE));
  assert.deepEqual(nodes, [3], "one text node, no span");
  assert.deepEqual(app.foreignRequests(), []);
  await app.context.close();
});

test("without the render module, an edit shows its old lines removed and its new lines added, whole", async () => {
  const served = server.refuse("/render_bg.wasm");
  const app = await openApp(browser, server);
  const { page } = app;
  await dropFiles(page, [{ name: "coloured-test-run.jsonl", bytes: readFileSync(FIXTURE) }]);
  await tree(page).getByText("Run the kettle tests and fix the one that fails.").waitFor();
  await page.waitForFunction(() => self.sessionscopeRender === null, null, { timeout: 10_000 });
  // Diffed on the page from its old and new strings: every line, nothing hidden.
  await openToolCall(page, "Edit", "README.md");
  const whole = page.getByRole("group", { name: "Diff: 3 added, 2 removed" });
  await whole.waitFor();
  assert.deepEqual(await whole.locator(".diff-del .diff-text").allInnerTexts(), ["Boil the water first.", "Then add the leaves."]);
  assert.deepEqual(await whole.locator(".diff-add .diff-text").allInnerTexts(), [
    "Simmer the water first.",
    "Then add the leaves.",
    "Wait three minutes.",
  ]);
  // The log's own patch, its lines as they are, no word marked.
  await openToolCall(page, "Edit", "brew.rs");
  const patch = page.getByRole("group", { name: "Diff: 1 added, 1 removed" });
  await patch.waitFor();
  assert.equal(await patch.getByRole("deletion").count(), 0);
  assert.equal(await patch.getByRole("insertion").count(), 0);
  assert.ok(app.errors.every((e) => /render_bg\.wasm|Failed to load resource|ERR_FAILED|404/.test(e)), app.errors.join("\n"));
  served();
  await app.context.close();
});
