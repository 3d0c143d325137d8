// The conversation graph in a real browser: folders with subagents, compaction markers,
// branches, keyboard, deep links, noise, themes, the load summary.
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { test, ENGINE, ROOT, openApp, waitForApp, dropFiles, dropFolder, realFixture, allTreeItems, tree, inView, dropGeneratedSession, servedForTests } from "./harness.mjs";

const ENGINE_FIXTURES = join(ROOT, "crates/engine/tests/fixtures");
const EXAMPLE = join(ROOT, "assets/example/e3a1c0de-7b2f-4c59-9d41-5f0e8a6b2c17.jsonl");
let server;
let browser;
servedForTests((site) => ({ server, browser } = site));

async function openExample(page) {
  await page.getByRole("button", { name: "Open example" }).click();
  await tree(page).waitFor();
}

function row(page, text) {
  return tree(page).getByRole("treeitem").filter({ hasText: text }).first();
}

async function level(locator) {
  return Number(await locator.getAttribute("aria-level"));
}

test("a dropped project folder nests each subagent under the tool call that spawned it", async () => {
  const app = await openApp(browser, server);
  await dropFolder(app.page, join(ENGINE_FIXTURES, "dag/agents"));
  // Two sessions (one is an orphan agent's): a history, opened all in one view.
  await app.page.getByRole("button", { name: "Open all in one view" }).click();
  await app.page.getByRole("region", { name: "Load summary" }).getByText("5 agent conversations linked, 1 unlinked").waitFor();
  // The session list holds both sessions, the orphan agent's included.
  const sessions = app.page.getByRole("region", { name: "Sessions" });
  await sessions.getByRole("button", { name: "Audit the lamp crate" }).click();
  const task = row(app.page, "Audit docs (doc-auditor)");
  await task.waitFor();
  assert.equal(await task.getAttribute("aria-expanded"), "false");
  await task.locator(".twisty").click();
  const agent = row(app.page, "Every public item has docs");
  const agentRow = tree(app.page).getByRole("treeitem").filter({ hasText: "doc-auditor" }).filter({ hasText: "messages" }).first();
  await agentRow.waitFor();
  assert.equal(await level(agentRow), (await level(task)) + 1, "the agent is a child of its Task call");
  assert.equal(await agentRow.getAttribute("aria-expanded"), "false", "agents start collapsed");
  await agentRow.locator(".twisty").click();
  await agent.waitFor();
  // Role reversal: inside the agent the spawning side speaks as the parent agent.
  await row(app.page, "Parent agent").waitFor();
  assert.equal(await level(row(app.page, "Parent agent")), (await level(agentRow)) + 1);
  // The nested agent sits under the docs agent's own Task call.
  const nestedCall = row(app.page, "Spell check (speller)");
  await nestedCall.locator(".twisty").click();
  const nested = tree(app.page).getByRole("treeitem").filter({ hasText: "speller" }).filter({ hasText: "messages" }).first();
  await nested.waitFor();
  assert.equal(await level(nested), (await level(nestedCall)) + 1);
  assert.deepEqual(app.errors, []);
  assert.deepEqual(app.foreignRequests(), []);
  await app.context.close();
});

test("a real project folder links its subagent files", async (t) => {
  const dir = realFixture(t, "session-share-2.1.14");
  if (!dir) return;
  const app = await openApp(browser, server);
  await dropFolder(app.page, dir);
  // Two sessions: a history, opened all in one view.
  await app.page.getByRole("button", { name: "Open all in one view" }).click();
  const summary = app.page.getByRole("region", { name: "Load summary" });
  await summary.getByText("6 agent conversations linked").waitFor();
  assert.deepEqual(app.errors, []);
  await app.context.close();
});

test("expanding a compaction marker shows the history it replaced", async () => {
  const app = await openApp(browser, server);
  await openExample(app.page);
  const before = await allTreeItems(app.page);
  // After the compaction: its marker, the summary, the branch switcher, the prompt, three
  // responses and their Edit and Bash calls.
  assert.equal(before.length, 9);
  const marker = row(app.page, "Conversation compacted");
  assert.equal(await marker.getAttribute("aria-expanded"), "false");
  assert.ok(!before.some((i) => i.text.includes("division_rounds_toward_zero test in tinycalc fails")));
  await marker.locator(".twisty").click();
  assert.equal(await marker.getAttribute("aria-expanded"), "true");
  const after = await allTreeItems(app.page);
  // The history it replaced: the first prompt, ten responses and their ten tool calls.
  assert.equal(after.length, before.length + 21, `${before.length} -> ${after.length}`);
  const first = after.find((i) => i.text.includes("division_rounds_toward_zero test in tinycalc fails"));
  assert.ok(first, "the first prompt, from before the compaction, is shown");
  assert.equal(first.level, after.find((i) => i.text.includes("Conversation compacted")).level + 1);
  await app.context.close();
});

test("switching a real branch shows the other alternative", async () => {
  const app = await openApp(browser, server);
  await openExample(app.page);
  const branch = row(app.page, "Branch 2 of 2");
  await branch.waitFor();
  const latest = tree(app.page).locator(".message-body p", { hasText: "return a CalcError::Overflow instead" });
  await latest.waitFor();
  await branch.locator(".branch-label").click();
  await app.page.keyboard.press("[");
  await row(app.page, "Branch 1 of 2").waitFor();
  await latest.waitFor({ state: "detached" });
  const items = await allTreeItems(app.page);
  assert.ok(items.some((i) => i.text.includes("Now make eval return an error instead of panicking")), "the first alternative shows");
  // The marker, the summary, the switcher, and the first alternative: its prompt and its answer.
  assert.equal(items.length, 5);
  // And back with the button.
  await row(app.page, "Branch 1 of 2").getByRole("button", { name: "Next branch" }).click();
  await row(app.page, "Branch 2 of 2").waitFor();
  await app.context.close();
});

test("rows collapse and expand with the keyboard", async () => {
  const app = await openApp(browser, server);
  await openExample(app.page);
  const t = tree(app.page);
  await t.focus();
  await app.page.keyboard.press("g");
  const selected = () => t.locator("[role=treeitem][aria-selected=true]");
  assert.match(await selected().innerText(), /Conversation compacted/);
  // Walk down to the first assistant row that has tool calls under it.
  let text = "";
  for (let i = 0; i < 20 && !(text.includes("Assistant") && (await selected().getAttribute("aria-expanded")) === "true"); i++) {
    await app.page.keyboard.press("j");
    text = await selected().innerText();
  }
  const assistant = selected();
  // The first response after the compaction, with its one Edit call.
  assert.match(text, /^▾\nAssistant\nclaude-opus-4-6\n13\.7k in · 247 out\n/);
  const id = await assistant.getAttribute("id");
  const count = async () => (await allTreeItems(app.page)).length;
  const open = await count();
  assert.equal(open, 9, "the rows after the compaction");
  await app.page.keyboard.press("ArrowLeft");
  assert.equal(await t.locator(`#${id}`).getAttribute("aria-expanded"), "false");
  assert.equal(await count(), open - 1, "its tool call is hidden");
  await app.page.keyboard.press("ArrowRight");
  assert.equal(await t.locator(`#${id}`).getAttribute("aria-expanded"), "true");
  assert.equal(await count(), open);
  await app.page.keyboard.press("Enter");
  assert.equal(await t.locator(`#${id}`).getAttribute("aria-expanded"), "false");
  // The tree names its active row for assistive technology.
  assert.equal(await t.getAttribute("aria-activedescendant"), id);
  await app.page.keyboard.press("G");
  const last = (await allTreeItems(app.page)).at(-1);
  assert.equal(await t.getAttribute("aria-activedescendant"), last.id);
  await app.context.close();
});

test("a deep link opens the message it names, expanding what hides it", async () => {
  const first = JSON.parse(readFileSync(EXAMPLE, "utf8").split("\n").find((l) => l.includes('"type":"user"') && l.includes("division_rounds_toward_zero")));
  const app = await openApp(browser, server, { url: `${server.url}#s=${first.sessionId}&m=${first.uuid}` });
  await openExample(app.page);
  const target = tree(app.page).locator("[role=treeitem][aria-selected=true]");
  await target.waitFor();
  // Its Markdown drawn (the render module may come after the rows: WebKit fetches it later).
  await target.locator(".markdown code", { hasText: "division_rounds_toward_zero" }).waitFor();
  assert.match(await target.innerText(), /division_rounds_toward_zero test in tinycalc fails/);
  assert.equal(await row(app.page, "Conversation compacted").getAttribute("aria-expanded"), "true");
  assert.equal(await target.count(), 1);
  assert.ok(await inView(target), "the target is scrolled into the tree's view");
  // Selecting another message puts its link in the address bar.
  await tree(app.page).focus();
  await app.page.keyboard.press("G");
  await app.page.waitForFunction((uuid) => location.hash.includes("&m=") && !location.hash.includes(uuid), first.uuid);
  await app.context.close();
});

test("a deep link to a message these files do not hold says so, and shows its session", async () => {
  const first = JSON.parse(readFileSync(EXAMPLE, "utf8").split("\n").find((l) => l.includes('"type":"user"')));
  const app = await openApp(browser, server, { url: `${server.url}#s=${first.sessionId}&m=0000dead-beef-4000-8000-000000000000` });
  await openExample(app.page);
  await tree(app.page).getByRole("treeitem").first().waitFor();
  const notice = app.page.getByRole("status").filter({ hasText: "The link's message 0000dead-beef is not in these files: its session is shown." });
  await notice.waitFor();
  await notice.getByRole("button", { name: "Dismiss" }).click();
  await notice.waitFor({ state: "detached" });
  // A session none of the files holds: the largest is shown instead, and that is said too.
  const app2 = await openApp(browser, server, { url: `${server.url}#s=no-such-session` });
  await openExample(app2.page);
  await tree(app2.page).getByRole("treeitem").first().waitFor();
  await app2.page.getByRole("status").filter({ hasText: "The link's session no-such-sessi is not in these files: the largest session is shown." }).waitFor();
  assert.deepEqual(app.errors, []);
  assert.deepEqual(app2.errors, []);
  await app.context.close();
  await app2.context.close();
});

test("hidden lines are folded by default and revealed in place", async () => {
  const app = await openApp(browser, server);
  await openExample(app.page);
  const before = await allTreeItems(app.page);
  assert.ok(!before.some((i) => i.text.includes("turn_duration")));
  await app.page.getByLabel(/Show hidden lines/).check();
  const after = await allTreeItems(app.page);
  const noise = after.find((i) => i.text.includes("system · turn_duration"));
  assert.ok(noise, "the turn_duration line shows");
  assert.equal(after.length, before.length + 1, "in place, beside the messages");
  // Inside the folded history too, once it is opened.
  await row(app.page, "Conversation compacted").locator(".twisty").click();
  const history = await allTreeItems(app.page);
  // The 21 rows of the history, and its 8 hidden lines: 3 hook_progress (SessionStart,
  // PreToolUse:Bash, PostToolUse:Edit), 4 agent_progress of the subagent, 1 turn_duration.
  assert.equal(history.length, after.length + 21 + 8);
  assert.deepEqual(
    history.filter((i) => i.text.includes("progress · hook_progress")).map((i) => i.text.split("\n")[1]),
    ["SessionStart:startup", "PreToolUse:Bash", "PostToolUse:Edit"],
  );
  assert.equal(history.filter((i) => i.text.includes("progress · agent_progress")).length, 4);
  assert.equal(history.filter((i) => i.text.includes("system · turn_duration")).length, 2);
  await app.context.close();
});

test("light and dark themes follow the system, and the toggle", async () => {
  const app = await openApp(browser, server, { colorScheme: "dark" });
  const background = () => app.page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  assert.equal(await background(), "rgb(13, 17, 23)");
  const toggle = app.page.getByRole("button", { name: "Switch between light and dark" });
  await toggle.click();
  assert.equal(await app.page.evaluate(() => document.documentElement.dataset.theme), "light");
  assert.equal(await background(), "rgb(255, 255, 255)");
  assert.equal(await toggle.innerText(), "Theme: light");
  // The next click shows the dark theme again by following the system, as before the first.
  await toggle.click();
  assert.equal(await toggle.innerText(), "Theme: system");
  assert.equal(await background(), "rgb(13, 17, 23)");
  // Which the page remembers as such: the system turning light turns the page light.
  await app.page.reload();
  await app.page.getByRole("button", { name: "Open example" }).waitFor();
  if (ENGINE === "chromium") {
    await app.page.emulateMedia({ colorScheme: "light" });
    await app.page.waitForFunction(() => getComputedStyle(document.body).backgroundColor === "rgb(255, 255, 255)");
  } else {
    // Firefox's and WebKit's drivers cannot turn the system light while the page is open: the
    // page is seen to keep no theme of its own, so that its style follows the system's.
    assert.equal(await app.page.evaluate(() => document.documentElement.dataset.theme), undefined);
    assert.equal(await app.page.evaluate(() => localStorage.getItem("sessionscope.theme")), null);
    assert.equal(await background(), "rgb(13, 17, 23)", "still the system's dark");
  }
  assert.equal(await toggle.innerText(), "Theme: system");
  await app.context.close();
});

test("the load summary lists skipped lines with their numbers and reasons", async () => {
  const app = await openApp(browser, server);
  await dropFiles(app.page, [
    { name: "broken-lines.jsonl", bytes: readFileSync(join(ENGINE_FIXTURES, "broken-lines.jsonl")) },
    { name: "page.html", bytes: "<!doctype html><html><body>not a log</body></html>\n" },
  ]);
  const summary = app.page.getByRole("region", { name: "Load summary" });
  // Four broken lines, and the one line of the HTML file.
  await summary.getByText("5 lines skipped").waitFor();
  await summary.getByRole("alert").filter({ hasText: "page.html" }).filter({ hasText: "HTML" }).waitFor();
  await summary.getByText(/^Diagnostics/).click();
  const rows = summary.getByRole("row");
  const texts = await rows.allInnerTexts();
  for (const [line, kind] of [
    [2, "invalid-json"],
    [3, "not-an-object"],
    [5, "missing-uuid"],
    [6, "duplicate-uuid"],
    [11, "invalid-utf8"],
  ]) {
    assert.ok(texts.some((t) => t.includes(`\t${line}\t${kind}`)), `line ${line} ${kind}: ${texts.join(" | ")}`);
  }
  assert.deepEqual(app.errors, []);
  await app.context.close();
});

test("the page's JSON reader finds every escape and control character wherever it falls in a string", async () => {
  // The wasm build's serde_json scans strings 16 bytes at a time (vendor/serde_json/PATCHED.md).
  // Each family below puts the byte under test after k plain bytes, k = 0..33, so it falls at
  // every place of a string's first two blocks and the third's first: in a message's text (read
  // and kept) and in a `toolUseResult` (skipped as a raw value).
  const places = [...Array(34).keys()];
  const lines = [];
  const valid = [];
  const invalid = [];
  const add = (ok, content, toolUseResult) => {
    const n = lines.length;
    const line = {
      type: "user",
      uuid: `scan-${n}`,
      parentUuid: valid.length ? `scan-${valid.at(-1) - 1}` : null,
      sessionId: "scan",
      timestamp: "2026-01-01T00:00:00.000Z",
      message: { role: "user", content: "CONTENT" },
      ...(toolUseResult ? { toolUseResult: { stdout: "RESULT" } } : {}),
    };
    // The strings are spliced in as JSON source, so raw control bytes stay raw.
    lines.push(JSON.stringify(line).replace('"CONTENT"', `"${content}"`).replace('"RESULT"', `"${toolUseResult}"`));
    (ok ? valid : invalid).push(n + 1);
  };
  for (const k of places) {
    const plain = "p".repeat(k);
    add(true, `${plain}\\n${"q".repeat(17)} escaped at ${k}`);
    add(true, `${plain}\\"${"q".repeat(17)} quoted at ${k}`);
    add(true, `${plain}é😀\u007f${"q".repeat(17)} multibyte at ${k}`);
    add(false, `${plain}\u0001${"q".repeat(17)}`);
    add(false, `${plain}\u001f${"q".repeat(17)}`);
    add(true, `result at ${k}`, `${plain}\\t${"q".repeat(17)}`);
    add(false, `raw control in result at ${k}`, `${plain}\u0002${"q".repeat(17)}`);
  }
  const app = await openApp(browser, server);
  await dropFiles(app.page, [{ name: "scan.jsonl", bytes: lines.join("\n") + "\n" }]);
  const summary = app.page.getByRole("region", { name: "Load summary" });
  await summary.getByText(`${invalid.length} lines skipped`).waitFor();
  await summary.getByText(/^Diagnostics/).click();
  const texts = (await summary.getByRole("row").allInnerTexts()).join("\n");
  for (const line of invalid) {
    assert.ok(texts.includes(`\t${line}\tinvalid-json`), `line ${line} is refused: ${texts}`);
  }
  for (const line of valid) {
    assert.ok(!texts.includes(`\t${line}\t`), `line ${line} is read: ${texts}`);
  }
  // Every valid line is a message, its text decoded (a row shows it on one line, white space
  // folded).
  const folded = (text) => text.replace(/\s+/g, " ").trim();
  const rows = (await allTreeItems(app.page)).map((row) => folded(row.text));
  for (const k of places) {
    const plain = "p".repeat(k);
    for (const text of [`${plain}\n${"q".repeat(17)} escaped at ${k}`, `${plain}"${"q".repeat(17)} quoted at ${k}`, `result at ${k}`]) {
      assert.ok(rows.some((row) => row.endsWith(folded(text))), `a row shows ${JSON.stringify(text)}`);
    }
  }
  assert.equal(rows.length, valid.length, "one row per line read");
  assert.deepEqual(app.errors, []);
  await app.context.close();
});

test("files in a dropped folder that are not logs are listed, not read", async () => {
  const app = await openApp(browser, server);
  const dir = join(ROOT, "tests/fixtures/folder-with-extras");
  assert.ok(readdirSync(dir).includes("notes.txt"));
  await dropFolder(app.page, dir);
  const summary = app.page.getByRole("region", { name: "Load summary" });
  await summary.getByText(/^1 session · /).waitFor();
  await summary.getByText(/2 files left out by name/).waitFor();
  await app.context.close();
});

test("a big file shows progress while it loads, and Cancel stops it", async () => {
  const app = await openApp(browser, server);
  // 200 MB built in the page: many small progress lines of one session.
  await app.page.evaluate(() => {
    const parts = [];
    const line = (i) =>
      `{"type":"progress","uuid":"big-${i}","parentUuid":${i ? `"big-${i - 1}"` : "null"},"sessionId":"big","timestamp":"2026-01-01T00:00:00.000Z","data":{"type":"bash_progress","output":"${"x".repeat(900)}"}}\n`;
    for (let i = 0; i < 210000; i++) parts.push(line(i));
    const file = new File(parts, "big.jsonl");
    const data = new DataTransfer();
    data.items.add(file);
    document.querySelector("main").dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true }));
  });
  const bar = app.page.getByRole("progressbar", { name: "Loading progress" });
  await bar.waitFor();
  await app.page.getByRole("status").filter({ hasText: /Reading big\.jsonl · \d+% · .* MB\/s/ }).waitFor();
  await app.page.getByRole("button", { name: "Cancel" }).click();
  await bar.waitFor({ state: "detached" });
  await app.page.getByRole("button", { name: "Open example" }).waitFor();
  assert.deepEqual(app.errors, []);
  await app.context.close();
});

/**
 * Waits in the page for the first rows of a big load to show while it still loads, and
 * answers what the page looked like at that moment. `act`, done at that very moment (the
 * page's CSP allows no code from strings): "select-third" clicks the third row, "title"
 * reads the session title.
 */
async function catchPreview(page, act = "") {
  return page.evaluate(
    (act) =>
      new Promise((ok, fail) => {
        const started = performance.now();
        let sawLoading = false;
        const check = () => {
          try {
            look();
          } catch (error) {
            fail(error);
          }
        };
        const look = () => {
          const rows = document.querySelectorAll("[role=treeitem]");
          const note = document.querySelector(".progress-preview");
          if (rows.length && note) {
            const share = [...document.querySelectorAll("button")].find((b) => b.textContent.trim() === "Share…");
            const seen = {
              ms: performance.now() - started,
              rows: rows.length,
              note: note.textContent,
              loading: !!document.querySelector("[role=progressbar]"),
              summary: !!document.querySelector("[aria-label='Load summary']"),
              shareDisabled: share?.disabled ?? null,
            };
            if (act === "select-third") {
              rows[2].click();
              seen.acted = { id: rows[2].id, text: rows[2].innerText };
            } else if (act === "title-cancel") {
              seen.acted = document.querySelector(".session-title")?.innerText;
            }
            // Cancel in the frame the preview shows in: a click sent from the test arrives
            // later, after the load may have ended on a busy machine.
            if (act === "cancel" || act === "title-cancel") {
              const cancel = [...document.querySelectorAll("button")].find((b) => b.textContent.trim() === "Cancel");
              if (!cancel) return fail(new Error("no Cancel button beside the preview"));
              cancel.click();
            }
            return ok(seen);
          }
          const loading = !!document.querySelector("[role=progressbar]");
          sawLoading ||= loading;
          if (sawLoading && !loading) return fail(new Error("loaded before any preview was seen"));
          if (performance.now() - started > 60_000) return fail(new Error("no preview within 60 s"));
          requestAnimationFrame(check);
        };
        check();
      }),
    act,
  );
}

test("a big file shows its first rows while the rest loads, and what was done with them stays", async () => {
  const app = await openApp(browser, server);
  const messages = 24000; // about 55 MB
  await dropGeneratedSession(app.page, { name: "preview-big", messages });
  // The moment the first rows show: select the third of them.
  const seen = await catchPreview(app.page, "select-third");
  assert.ok(seen.loading, "the load is still going");
  assert.ok(!seen.summary, "no load summary for a part of the files");
  assert.match(seen.note, /^Showing the first [\d.]+ MB of [\d.]+ MB while the rest loads$/);
  assert.equal(seen.shareDisabled, true, "sharing waits for the whole");
  assert.match(seen.acted.text, /Answer 0:|Question 1:/);
  // Then everything: the summary, every line, sharing, and the same row still selected.
  const summary = app.page.getByRole("region", { name: "Load summary" });
  await summary.waitFor({ timeout: 120_000 });
  await summary.getByText(`${2 * messages} lines`, { exact: false }).first().waitFor();
  assert.equal(await app.page.locator(".progress-preview").count(), 0);
  assert.equal(await app.page.getByRole("button", { name: "Share…" }).isDisabled(), false);
  await app.page.getByText(`${2 * messages} entries`, { exact: false }).first().waitFor();
  const selected = tree(app.page).locator("[role=treeitem][aria-selected=true]");
  assert.equal(await selected.count(), 1);
  assert.equal(await selected.getAttribute("id"), seen.acted.id, "the row selected in the preview stays selected");
  // The end of the session is there now: End goes to the last answer.
  await tree(app.page).focus();
  await app.page.keyboard.press("End");
  await tree(app.page).locator("[role=treeitem][aria-selected=true]").filter({ hasText: `Answer ${messages - 1}:` }).waitFor();
  assert.deepEqual(app.errors, []);
  await app.context.close();
});

test("Cancel while the first rows of a big file show gives back what was shown before", async () => {
  const app = await openApp(browser, server);
  // Nothing before: back to the start page.
  await dropGeneratedSession(app.page, { name: "preview-big", messages: 24000 });
  await catchPreview(app.page, "cancel");
  await app.page.getByRole("region", { name: "Open session logs" }).waitFor();
  assert.equal(await tree(app.page).count(), 0);
  // The example before: the example again, whole.
  await openExample(app.page);
  const exampleTitle = await app.page.locator(".session-title").innerText();
  await dropGeneratedSession(app.page, { name: "preview-big", messages: 24000 });
  await app.page.getByRole("dialog", { name: "Add or replace" }).getByRole("button", { name: "Replace" }).click();
  const seen = await catchPreview(app.page, "title-cancel");
  assert.notEqual(seen.acted, exampleTitle, "the preview replaced the example on screen");
  await app.page.getByRole("heading", { name: exampleTitle }).waitFor();
  await app.page.getByRole("region", { name: "Load summary" }).waitFor();
  assert.equal(await app.page.getByRole("progressbar").count(), 0);
  assert.deepEqual(app.errors, []);
  await app.context.close();
});

test("a second drop asks whether to add the files or replace what is loaded", async () => {
  const app = await openApp(browser, server);
  await openExample(app.page);
  const kettle = readFileSync(join(ROOT, "tests/fixtures/sessions/kettle-rename.jsonl"));
  await dropFiles(app.page, [{ name: "kettle-rename.jsonl", bytes: kettle }]);
  const dialog = app.page.getByRole("dialog", { name: "Add or replace" });
  await dialog.getByRole("button", { name: "Add" }).click();
  const summary = app.page.getByRole("region", { name: "Load summary" });
  await summary.getByText(/^2 sessions · 4 files · /).waitFor();
  // Escape closes the question and keeps what is loaded, as Cancel does.
  await dropFiles(app.page, [{ name: "kettle-rename.jsonl", bytes: kettle }]);
  await dialog.waitFor();
  await app.page.keyboard.press("Escape");
  await dialog.waitFor({ state: "detached" });
  await summary.getByText(/^2 sessions · 4 files · /).waitFor();
  await dropFiles(app.page, [{ name: "kettle-rename.jsonl", bytes: kettle }]);
  await dialog.getByRole("button", { name: "Replace" }).click();
  await summary.getByText(/^1 session · 1 file · /).waitFor();
  assert.deepEqual(app.errors, []);
  await app.context.close();
});

test("a modal dialog keeps the keyboard inside it: Tab and Shift+Tab go round its controls", async () => {
  const app = await openApp(browser, server);
  await openExample(app.page);
  const inside = (dialog) => dialog.evaluate((d) => d.contains(document.activeElement));
  for (const [open, name] of [["?", "Keyboard shortcuts"], ["Shift+S", "Share, redacted"]]) {
    await tree(app.page).focus();
    await app.page.keyboard.press(open);
    const dialog = app.page.getByRole("dialog", { name });
    await dialog.waitFor();
    const controls = await dialog.evaluate(
      (d) => d.querySelectorAll("button:not([disabled]), [href], input:not([disabled]), select:not([disabled]), textarea:not([disabled]), summary").length,
    );
    // Round the dialog once and a bit, each way: the focus never reaches the page behind.
    for (let i = 0; i < controls + 2; i++) {
      await app.page.keyboard.press("Tab");
      assert.ok(await inside(dialog), `${name}: Tab ${i + 1} stays in the dialog`);
    }
    for (let i = 0; i < controls + 2; i++) {
      await app.page.keyboard.press("Shift+Tab");
      assert.ok(await inside(dialog), `${name}: Shift+Tab ${i + 1} stays in the dialog`);
    }
    await app.page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
  }
  assert.deepEqual(app.errors, []);
  await app.context.close();
});

test("Open example pressed with the keyboard leaves the focus on the tree, not on the page", async () => {
  const app = await openApp(browser, server);
  await app.page.getByRole("button", { name: "Open example" }).focus();
  await app.page.keyboard.press("Enter");
  await tree(app.page).getByRole("treeitem").first().waitFor();
  await app.page.waitForFunction(() => document.activeElement?.getAttribute("role") === "tree");
  // So the arrows move in it at once.
  await app.page.keyboard.press("End");
  const last = tree(app.page).getByRole("treeitem").last();
  assert.equal(await last.getAttribute("aria-selected"), "true");
  await app.context.close();
});

test("in a short or narrow window the conversation is not cut off, and the keys keep its header in sight", async () => {
  for (const viewport of [{ width: 800, height: 700 }, { width: 1280, height: 600 }]) {
    const app = await openApp(browser, server, { viewport });
    await openExample(app.page);
    const section = app.page.getByRole("region", { name: "Conversation view" });
    const clipped = () =>
      section.evaluate((s) => {
        const box = s.getBoundingClientRect();
        // The tree's scrolling box: the rows scroll inside it.
        const tree = s.querySelector("[role=tree]").closest(".tree-scroll").getBoundingClientRect();
        return { tree: Math.round(tree.height), shown: Math.round(Math.min(box.bottom, tree.bottom) - Math.max(box.top, tree.top)) };
      });
    const before = await clipped();
    assert.ok(before.tree >= 300, `${viewport.width}×${viewport.height}: the tree is ${before.tree} px tall`);
    assert.equal(before.shown, before.tree, `${viewport.width}×${viewport.height}: all of the tree is inside its section`);
    // End and Home move in the tree; the header and the tabs stay where they are.
    const tabs = section.getByRole("tablist", { name: "Views" });
    const top = async () => (await tabs.boundingBox()).y - (await section.boundingBox()).y;
    const tabsAt = await top();
    await tree(app.page).focus();
    await app.page.keyboard.press("End");
    await app.page.keyboard.press("Home");
    assert.equal(await section.evaluate((s) => s.scrollTop), 0, "the section itself never scrolls");
    assert.equal(await top(), tabsAt, "the tabs stay under the header");
    assert.deepEqual(app.errors, []);
    await app.context.close();
  }
});

test("? lists the keyboard shortcuts, and every action in it works from the keyboard", async () => {
  const app = await openApp(browser, server);
  await openExample(app.page);
  await tree(app.page).focus();
  await app.page.keyboard.press("?");
  const dialog = app.page.getByRole("dialog", { name: "Keyboard shortcuts" });
  await dialog.waitFor();
  const conversation = await dialog.getByRole("table", { name: "Conversation" }).innerText();
  for (const key of ["j", "k", "[ , ]", "r"]) assert.ok(conversation.includes(key), `lists ${key}`);
  assert.match(await dialog.getByRole("table", { name: "Operations list" }).innerText(), /next, previous operation/);
  assert.equal(await app.page.evaluate(() => document.activeElement?.textContent), "Close", "the dialog takes the focus");
  await app.page.keyboard.press("Escape");
  await dialog.waitFor({ state: "detached" });
  assert.equal(await app.page.evaluate(() => document.activeElement?.getAttribute("role")), "tree", "and gives it back");
  // The header button opens it too.
  await app.page.getByRole("button", { name: "Keyboard shortcuts" }).click();
  await dialog.waitFor();
  await dialog.getByRole("button", { name: "Close" }).click();
  await dialog.waitFor({ state: "detached" });
  // Shift+S opens the share dialog with the focus inside it; Escape closes it and gives the
  // focus back to the tree.
  await tree(app.page).focus();
  await app.page.keyboard.press("Shift+S");
  const share = app.page.getByRole("dialog", { name: "Share, redacted" });
  await share.waitFor();
  assert.ok(await share.evaluate((d) => d.contains(document.activeElement)), "the share dialog takes the focus");
  await app.page.keyboard.press("Escape");
  await share.waitFor({ state: "detached" });
  assert.equal(await app.page.evaluate(() => document.activeElement?.getAttribute("role")), "tree");
  // r on the selected row shows the line as the file has it, and hides it again.
  await tree(app.page).focus();
  await app.page.keyboard.press("Home");
  const first = tree(app.page).getByRole("treeitem").first();
  await app.page.keyboard.press("r");
  const raw = first.getByRole("group", { name: "Raw lines" });
  await raw.waitFor();
  // The first row is the compaction marker: line 39 of the example's main file, 504 bytes.
  assert.match(await raw.innerText(), /^example\/e3a1c0de-7b2f-4c59-9d41-5f0e8a6b2c17\.jsonl:39 · 504 bytes\n[\s\S]*"sessionId"/);
  assert.equal(await first.getByRole("button", { name: "Raw" }).getAttribute("aria-pressed"), "true");
  await app.page.keyboard.press("r");
  await raw.waitFor({ state: "detached" });
  assert.deepEqual(app.errors, []);
  await app.context.close();
});

test("switching to Statistics and back leaves no resize observer of an unmounted tree behind", async () => {
  const app = await openApp(browser, server);
  // Counts the resize observers that observe something and have not been disconnected.
  await app.page.addInitScript(() => {
    const Native = window.ResizeObserver;
    window.connectedObservers = 0;
    window.ResizeObserver = class extends Native {
      observe(...args) {
        if (!this.counted) {
          this.counted = true;
          window.connectedObservers += 1;
        }
        return super.observe(...args);
      }
      disconnect() {
        if (this.counted) {
          this.counted = false;
          window.connectedObservers -= 1;
        }
        return super.disconnect();
      }
    };
  });
  await app.page.reload();
  await waitForApp(app.page);
  await openExample(app.page);
  const connected = () =>
    app.page.evaluate(
      () => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(() => ok(window.connectedObservers)))),
    );
  assert.equal(await connected(), 1, "the tree observes its rows with one observer");
  // After each switch: none while Statistics shows, one again with the tree back.
  const counts = [];
  for (let i = 0; i < 4; i++) {
    await app.page.getByRole("tab", { name: "Statistics" }).click();
    await tree(app.page).waitFor({ state: "detached" });
    counts.push(await connected());
    await app.page.getByRole("tab", { name: "Conversation" }).click();
    await tree(app.page).waitFor();
    counts.push(await connected());
  }
  assert.deepEqual(counts, [0, 1, 0, 1, 0, 1, 0, 1], "each unmount of the tree disconnects its observer");
  assert.deepEqual(app.errors, []);
  await app.context.close();
});
