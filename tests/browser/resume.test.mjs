// Resume: the open session offers the line that takes it up again in the agent that wrote it, in
// its working directory, and one click copies it (the clipboard is read back here). The line is
// the command line's (`sessionscope resume <id> <file>`) for a Claude Code, a Codex and a Gemini
// CLI session; an id that looks like shell code is quoted; an agent with no such command says why.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, allowClipboard, copiedText, ROOT, openApp, dropFiles, tree, engineOutput, servedForTests } from "./harness.mjs";

let server;
let browser;
servedForTests((site) => ({ server, browser } = site));

const FORMATS = join(ROOT, "crates/engine/tests/fixtures/formats");

/** Opens `file` (on disk) in a page that may use the clipboard, and answers the page. */
async function openWithClipboard(path, name = path.split("/").at(-1)) {
  const app = await openApp(browser, server);
  await allowClipboard(app, server.origin);
  await dropFiles(app.page, [{ name, bytes: readFileSync(path) }]);
  await tree(app.page).waitFor({ timeout: 30_000 });
  return app;
}

/** Clicks the header's Copy and answers what the clipboard then holds. */
async function copied(page, agent) {
  const resume = page.getByRole("group", { name: "Resume" });
  await resume.getByRole("button", { name: `Copy the command that resumes this session in ${agent}` }).click();
  await resume.getByRole("status").filter({ hasText: "Copied." }).waitFor();
  return copiedText(page);
}

for (const [agent, file, id, expected] of [
  ["Claude Code", join(ROOT, "tests/fixtures/sessions/kettle-rename.jsonl"), "5e550000-0000-4000-8000-00000000beef", "cd /home/dev/projects/kettle && claude --resume 5e550000-0000-4000-8000-00000000beef"],
  ["Codex", join(FORMATS, "rollout-2025-10-02T10-11-12-0199a213-81c0-7800-8aa1-bbab2a035a53.jsonl"), "0199a213-81c0-7800-8aa1-bbab2a035a53", "cd /home/dev/projects/brewlog && codex resume 0199a213-81c0-7800-8aa1-bbab2a035a53"],
  ["Gemini CLI", join(FORMATS, "session-2026-02-10T14-00-b41c7d2e.jsonl"), "b41c7d2e-9f03-4a6b-8e15-6c2d0a9f3e71", "gemini --resume b41c7d2e-9f03-4a6b-8e15-6c2d0a9f3e71"],
]) {
  test(`a ${agent} session's resume line is copied as the command line prints it`, async () => {
    const app = await openWithClipboard(file);
    const line = await copied(app.page, agent);
    assert.equal(line, expected);
    assert.equal(engineOutput("resume", id, file).trim(), expected);
    assert.equal(await app.page.getByRole("group", { name: "Resume" }).locator("code").innerText(), expected);
    assert.deepEqual(app.errors, []);
    await app.context.close();
  });
}

test("a session id and folder that look like shell code are quoted, and an agent without a resume command says why", async () => {
  const dir = mkdtempSync(join(tmpdir(), "sessionscope-resume-"));
  try {
    const id = "x'; touch /tmp/pwned #";
    const lines = [
      { type: "user", uuid: "u1", parentUuid: null, sessionId: id, cwd: "/home/o'brien/my app", timestamp: "2026-03-02T09:00:00.000Z", message: { role: "user", content: "Tidy the readme" } },
      { type: "assistant", uuid: "a1", parentUuid: "u1", sessionId: id, cwd: "/home/o'brien/my app", timestamp: "2026-03-02T09:00:05.000Z", requestId: "r1", message: { role: "assistant", id: "m1", model: "claude-sonnet-4-5", content: [{ type: "text", text: "Done." }], usage: { input_tokens: 3, output_tokens: 2 } } },
    ];
    const path = join(dir, "odd.jsonl");
    writeFileSync(path, lines.map((l) => JSON.stringify(l) + "\n").join(""));
    const app = await openWithClipboard(path);
    assert.equal(await copied(app.page, "Claude Code"), `cd '/home/o'\\''brien/my app' && claude --resume 'x'\\''; touch /tmp/pwned #'`);
    await app.context.close();

    const aider = await openWithClipboard(join(FORMATS, "demo.aider.chat.history.md"), ".aider.chat.history.md");
    const note = aider.page.getByRole("note", { name: "Resume" });
    assert.match(await note.innerText(), /Aider has no command to resume a given session: `aider --restore-chat-history`/);
    assert.equal(await aider.page.getByRole("button", { name: /^Copy the command/ }).count(), 0);
    await aider.context.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
