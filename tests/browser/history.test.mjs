// A whole history in a real browser: a folder of several projects is indexed first (the page
// holds rows, not logs), its projects and totals equal `sessionscope index --json`, a session
// opens on demand and back keeps the list as it was, a search of every session opens its hit,
// and a file that is not a log is listed with its reason while the rest is indexed.
import { before, after } from "node:test";
import { execFileSync } from "node:child_process";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, ROOT, openApp, dropFolder, tree, engineIndex, servedForTests, back, forward } from "./harness.mjs";

const DAG = join(ROOT, "crates/engine/tests/fixtures/dag");
let server;
let browser;
servedForTests((site) => ({ server, browser } = site));
let home;

/** Copies a fixture file or folder, with the project its messages name changed to `project`. */
function copyAs(from, to, project) {
  if (statSync(from).isDirectory()) {
    mkdirSync(to, { recursive: true });
    for (const name of readdirSync(from)) copyAs(join(from, name), join(to, name), project);
    return;
  }
  const text = readFileSync(from, "utf8").replaceAll("/home/dev/projects/lamp", `/home/dev/projects/${project}`);
  writeFileSync(to, text);
}

/** A history of three projects, made from the project's own fixtures, and one foreign file. */
function makeHistory() {
  const dir = mkdtempSync(join(tmpdir(), "sessionscope-history-"));
  const projects = join(dir, "projects");
  const alpha = join(projects, "-home-dev-alpha");
  const beta = join(projects, "-home-dev-beta");
  const gamma = join(projects, "-home-dev-gamma");
  for (const folder of [alpha, beta, gamma]) mkdirSync(folder, { recursive: true });
  copyAs(join(DAG, "agents"), alpha, "alpha");
  copyAs(join(DAG, "rewind-compaction"), alpha, "alpha");
  copyAs(join(DAG, "compaction-1.0"), beta, "beta");
  copyAs(join(DAG, "preserved-segment"), beta, "beta");
  copyAs(join(ROOT, "tests/fixtures/sessions/kettle-rename.jsonl"), join(gamma, "kettle-rename.jsonl"), "kettle");
  copyAs(join(ROOT, "tests/fixtures/sessions/coloured-test-run.jsonl"), join(gamma, "coloured-test-run.jsonl"), "kettle");
  // Its first prompt carries a pasted log of 2 MB: a file over 1 MiB is read by the index as a
  // byte stream, and every line after that prompt must still be read whole.
  const big = join(gamma, "coloured-test-run.jsonl");
  const prompt = "Run the kettle tests and fix the one that fails.";
  writeFileSync(big, readFileSync(big, "utf8").replace(prompt, `${prompt} ${"FAIL test_boil: kettle stays cold. ".repeat(60_000)}`));
  assert.ok(statSync(big).size > 2 << 20);
  writeFileSync(join(beta, "exported.jsonl"), "name,tokens\nalpha,12\nbeta,7\n");
  return { dir, projects };
}

before(async () => {
  home = makeHistory();
});

after(async () => {
  if (home) rmSync(home.dir, { recursive: true, force: true });
});

async function openHistory(page) {
  await dropFolder(page, home.projects);
  const history = page.getByRole("region", { name: "History" });
  await history.getByRole("status").filter({ hasText: /^Indexed / }).waitFor({ timeout: 60_000 });
  return history;
}

test("a folder of projects is indexed into projects and sessions that equal the engine's index", async () => {
  const expected = engineIndex(home.projects);
  const app = await openApp(browser, server);
  const history = await openHistory(app.page);
  const sessions = history.getByRole("listbox", { name: "Sessions" });
  assert.equal(await sessions.getByRole("option").count(), expected.sessions.length);

  // Each project: its sessions, tokens and cost as the engine counts them.
  const byProject = new Map();
  for (const row of expected.sessions) {
    const p = byProject.get(row.project) ?? { sessions: 0, cost: 0 };
    p.sessions += 1;
    p.cost += row.cost_usd;
    byProject.set(row.project, p);
  }
  const projects = history.getByRole("listbox", { name: "Projects" });
  assert.equal(await projects.getByRole("option").count(), byProject.size + 1, "every project, and All projects");
  for (const [project, totals] of byProject) {
    const short = project.split("/").filter(Boolean).slice(-2).join("/");
    const option = projects.getByRole("option").filter({ hasText: short }).first();
    const text = await option.innerText();
    assert.match(text, new RegExp(`^${totals.sessions} sessions? · .* · \\$${totals.cost.toFixed(2)} · last`, "m"), `${project}: ${text}`);
  }

  // The foreign file is listed with its reason; everything else was indexed.
  const problems = history.getByRole("region", { name: "Files not indexed" });
  await problems.getByText("1 file holds no session").click();
  await problems.getByText("exported.jsonl").waitFor();
  const reason = expected.problems.find((p) => p.path.endsWith("exported.jsonl")).reason;
  assert.ok((await problems.innerText()).includes(reason), `the reason the engine gives: ${reason}`);

  // Choosing a project lists its sessions only, and the link names it.
  await projects.getByRole("option").filter({ hasText: "projects/beta" }).click();
  assert.equal(await sessions.getByRole("option").count(), byProject.get("/home/dev/projects/beta").sessions);
  assert.match(await app.page.evaluate(() => location.hash), /^#p=/);
  // A project chosen is an entry of the browser's history: Back lists every project's sessions
  // again, Forward the project's; the arrow keys move through the projects without new entries.
  const entries = await app.page.evaluate(() => history.length);
  await back(app.page);
  await app.page.waitForFunction(() => location.hash === "");
  await sessions.getByRole("option").nth(expected.sessions.length - 1).waitFor();
  assert.equal(await sessions.getByRole("option").count(), expected.sessions.length);
  assert.equal(await projects.getByRole("option", { selected: true }).innerText().then((t) => t.split("\n")[0]), "All projects");
  await forward(app.page);
  await app.page.waitForFunction(() => location.hash.startsWith("#p="));
  await projects.getByRole("option", { selected: true }).filter({ hasText: "projects/beta" }).waitFor();
  assert.equal(await sessions.getByRole("option").count(), byProject.get("/home/dev/projects/beta").sessions);
  await projects.focus();
  await app.page.keyboard.press("Home");
  await projects.getByRole("option", { name: /^All projects/, selected: true }).waitFor();
  await app.page.keyboard.press("ArrowDown");
  assert.equal(await app.page.evaluate(() => history.length), entries, "the arrow keys add no entries");
  assert.deepEqual(app.errors, []);
  assert.deepEqual(app.foreignRequests(), []);
  await app.context.close();
});

test("a history's files picked together with Choose files… are indexed as a history, each subagent with its session by their ids, and what holds no session said once", async () => {
  // The files of a generated history (subagents in `<session>/subagents/`, with their meta files),
  // picked one by one as a Firefox or Safari user picks them: no folder is kept.
  const dir = mkdtempSync(join(tmpdir(), "sessionscope-picked-"));
  try {
    execFileSync("cargo", ["run", "--quiet", "--release", "-p", "sessionscope-synth", "--bin", "gen-history", "--", "--out", dir, "--size", "20MB", "--projects", "4", "--seed", "11"], { cwd: ROOT, stdio: "ignore" });
    const projects = join(dir, "projects");
    const files = readdirSync(projects, { recursive: true }).map((f) => join(projects, f)).filter((f) => statSync(f).isFile());
    const agents = files.filter((f) => /\/subagents\/agent-[^/]+\.jsonl$/.test(f));
    assert.ok(agents.length > 10 && files.length > 40, `a history with subagents: ${files.length} files, ${agents.length} subagents`);
    const notes = join(dir, "notes.txt");
    writeFileSync(notes, "Remember to rotate the staging keys.\n");
    const expected = engineIndex(projects);

    const app = await openApp(browser, server);
    await app.page.getByLabel("Choose session log files").setInputFiles([...files, notes]);
    const history = app.page.getByRole("region", { name: "History" });
    await history.getByRole("status").filter({ hasText: /^Indexed / }).waitFor({ timeout: 60_000 });
    const options = await history.getByRole("listbox", { name: "Sessions" }).getByRole("option").allInnerTexts();
    assert.equal(options.length, expected.sessions.length, "every session once");
    // Each session with its subagents, linked without their folders, and the engine's cost:
    // the engine's rows and the page's, as sets of title, cost and agents (titles repeat).
    const facts = (title, cost, agents) => `${title.trim().slice(0, 40)} | $${cost} | ${agents} agents`;
    const shown = options.map((o) => facts(o.split("\n")[0], /\$(\d+\.\d\d)/.exec(o)?.[1], Number(/ · (\d+) agents?/.exec(o)?.[1] ?? 0)));
    const engine = expected.sessions.map((r) => facts(r.title, r.cost_usd.toFixed(2), r.agents));
    assert.deepEqual(shown.sort(), engine.sort());
    assert.ok(expected.sessions.reduce((n, r) => n + r.agents, 0) >= agents.length / 2, "the subagents are linked");
    // Its projects, from the sessions' working folders, as the folder's index has them.
    const projectsList = history.getByRole("listbox", { name: "Projects" });
    assert.equal(await projectsList.getByRole("option").count(), new Set(expected.sessions.map((r) => r.project)).size + 1);
    // The file that holds no session: one summary, not a notice per file.
    const problems = history.getByRole("region", { name: "Files not indexed" });
    // Its line says why, whatever the count ("1 file holds no session: 1 not a session log…").
    await problems.getByText(/^1 file holds no session: 1 \S/).click();
    assert.match(await problems.getByRole("listitem").innerText(), /notes\.txt/);
    assert.equal(await app.page.getByRole("region", { name: "Load summary" }).count(), 0, "no view of every file at once");
    assert.deepEqual(app.errors, []);
    await app.context.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a session opens on demand with only its files, and back finds the list as it was left", async () => {
  const app = await openApp(browser, server);
  const history = await openHistory(app.page);
  const sessions = history.getByRole("listbox", { name: "Sessions" });
  await history.getByRole("button", { name: "Sort by Messages" }).click();
  await history.getByLabel("Filter by title").fill("rename");
  assert.equal(await sessions.getByRole("option").count(), 1);
  await sessions.getByRole("option").first().click();

  await tree(app.page).getByRole("treeitem").first().waitFor({ timeout: 30_000 });
  const summary = app.page.getByRole("region", { name: "Load summary" });
  assert.match(await summary.innerText(), /\b1 file\b/, "only the session's own file was read");
  assert.match(await app.page.evaluate(() => location.hash), /^#p=.*&s=5e550000/);

  await app.page.keyboard.press("Alt+ArrowLeft");
  await sessions.waitFor();
  assert.equal(await history.getByLabel("Filter by title").inputValue(), "rename");
  assert.equal(await history.getByRole("button", { name: "Sort by Messages" }).getAttribute("aria-pressed"), "true");
  assert.equal(await tree(app.page).count(), 0, "the session is let go");
  assert.doesNotMatch(await app.page.evaluate(() => location.hash), /s=/, "the address no longer names the session");

  // The keyboard reaches every row: focus the list, move, open.
  await history.getByLabel("Filter by title").fill("");
  const all = await sessions.getByRole("option").count();
  // A filter nothing matches says so, and offers to clear the filters (the sort stays).
  await history.getByLabel("Model").selectOption({ index: 1 });
  await history.getByLabel("Filter by title").fill("no-such-title-zz");
  const empty = history.getByRole("status").filter({ hasText: "No session of this list matches the filters." });
  await empty.waitFor();
  await empty.getByRole("button", { name: "Clear filters" }).click();
  await empty.waitFor({ state: "detached" });
  assert.equal(await history.getByLabel("Filter by title").inputValue(), "");
  assert.equal(await history.getByLabel("Model").inputValue(), "");
  assert.equal(await sessions.getByRole("option").count(), all);
  assert.equal(await history.getByRole("button", { name: "Sort by Messages" }).getAttribute("aria-pressed"), "true");
  await sessions.focus();
  await app.page.keyboard.press("End");
  await app.page.keyboard.press("Home");
  await app.page.keyboard.press("ArrowDown");
  const active = await sessions.getAttribute("aria-activedescendant");
  assert.ok(active, "a row is active");
  await app.page.keyboard.press("Enter");
  await tree(app.page).getByRole("treeitem").first().waitFor({ timeout: 30_000 });
  // The focus, lost with the list, is on the tree.
  await app.page.waitForFunction(() => document.activeElement?.getAttribute("role") === "tree");
  const opened = await app.page.evaluate(() => location.hash);
  assert.match(opened, /&s=/);
  await app.page.getByRole("button", { name: "← History" }).click();
  await sessions.waitFor();
  await tree(app.page).waitFor({ state: "detached" });

  // The browser's Back and Forward: a session opened from the list is an entry of the browser's
  // history; Back shows the list again (the app is not left), Forward opens the session again.
  await sessions.getByRole("option").first().click();
  await tree(app.page).getByRole("treeitem").first().waitFor({ timeout: 30_000 });
  await back(app.page);
  await sessions.waitFor();
  await tree(app.page).waitFor({ state: "detached" });
  assert.doesNotMatch(await app.page.evaluate(() => location.hash), /s=/);
  await forward(app.page);
  await tree(app.page).getByRole("treeitem").first().waitFor({ timeout: 30_000 });
  assert.match(await app.page.evaluate(() => location.hash), /&s=/);
  // "← History" goes back in the browser's history too: Back from the list would leave the page.
  await app.page.getByRole("button", { name: "← History" }).click();
  await sessions.waitFor();
  assert.doesNotMatch(await app.page.evaluate(() => location.hash), /s=/);
  assert.deepEqual(app.errors, []);
  await app.context.close();
});

test("a search of every session finds its hits by project and session, and a hit opens its session there", async () => {
  const app = await openApp(browser, server);
  const history = await openHistory(app.page);
  const search = history.getByRole("region", { name: "Search all sessions" });
  // "Exact" lists every match of the text as written (not ranked sessions).
  await search.getByLabel("Exact").check();
  await search.getByLabel("Search every session").fill("definition");
  await search.getByRole("button", { name: "Search" }).click();
  // The sessions whose index rules the word out are not read.
  const status = search.getByRole("status").filter({ hasText: /match(?:es)? in 1 session · / });
  await status.waitFor({ timeout: 30_000 });
  const sessions = (await engineIndex(home.projects)).sessions.length;
  const notRead = Number((await status.innerText()).match(/ · (\d+) sessions not read: the index rules them out$/)?.[1]);
  assert.ok(notRead > 0 && notRead < sessions, `${notRead} of ${sessions} sessions not read`);
  const found = (await status.innerText()).match(/^\d+ match(?:es)?/)[0];
  // Whatever its case.
  await search.getByLabel("Search every session").fill("DEFINITION");
  await search.getByRole("button", { name: "Search" }).click();
  await search.getByRole("status").filter({ hasText: new RegExp(`^${found} in 1 session · .* · ${notRead} sessions not read`) }).waitFor({ timeout: 30_000 });
  const hit = search.getByRole("button").filter({ hasText: "definition" }).first();
  assert.equal(await hit.locator("mark").first().innerText(), "definition");
  await hit.click();
  const selected = tree(app.page).locator("[role=treeitem][aria-selected=true]");
  await selected.waitFor({ timeout: 30_000 });
  assert.match((await selected.innerText()).toLowerCase(), /definition/);
  // The match itself is shown: the session is searched for the word, the hit's message gone to
  // (a tool call's input or result unfolded) and the match highlighted.
  // (A row drawn again is highlighted again: the wait is for a range over the word.)
  await app.page.waitForFunction(() => [...(globalThis.CSS?.highlights?.get("search-hit") ?? [])].some((range) => range.toString().toLowerCase() === "definition"), null, { timeout: 30_000 });
  const marked = await app.page.evaluate(() => [...CSS.highlights.get("search-hit")].map((range) => range.toString().toLowerCase()));
  assert.ok(marked.includes("definition"), `highlighted: ${marked.join(", ")}`);
  await app.page.getByRole("search").getByRole("status").filter({ hasText: /^\d+ of \d+ match/ }).waitFor();

  await app.page.keyboard.press("Alt+ArrowLeft");
  await search.getByLabel("Search every session").fill("xylophone-quartz");
  await search.getByRole("button", { name: "Search" }).click();
  // A word in no session: nothing found, and the index rules out every session.
  await search.getByRole("status").filter({ hasText: new RegExp(`^0 matches in 0 sessions · .* · ${sessions} sessions not read`) }).waitFor({ timeout: 30_000 });
  // A regular expression is not ruled out by the index: every session is read.
  await search.getByLabel("Regex").check();
  await search.getByLabel("Search every session").fill("xylophone-qu[a]rtz");
  await search.getByRole("button", { name: "Search" }).click();
  await search.getByRole("status").filter({ hasText: /^0 matches in 0 sessions · [\d.]+ s$/ }).waitFor({ timeout: 30_000 });
  // A broken regular expression says so; an empty box (spaces only) then clears it, and the
  // search, rather than searching for spaces.
  await search.getByLabel("Search every session").fill("(unclosed");
  await search.getByRole("button", { name: "Search" }).click();
  const invalid = search.getByText(/regular expression/);
  await invalid.waitFor();
  await search.getByLabel("Regex").uncheck();
  await search.getByLabel("Search every session").fill("   ");
  await search.getByRole("button", { name: "Search" }).click();
  await invalid.waitFor({ state: "detached" });
  assert.doesNotMatch(await search.innerText(), /\d+ matches/);
  assert.deepEqual(app.errors, []);
  await app.context.close();
});

/** Writes a session of `messages` question/answer pairs (about 2.5 KB each) as `<dir>/<id>.jsonl`. */
function writeSession(dir, id, messages, project) {
  mkdirSync(dir, { recursive: true });
  const pad = "lorem ipsum dolor sit amet ".repeat(36);
  const lines = [];
  let parent = null;
  for (let i = 0; i < messages; i++) {
    const time = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
    const base = { sessionId: id, timestamp: time, cwd: `/home/dev/projects/${project}` };
    lines.push(JSON.stringify({ ...base, type: "user", uuid: `${id}-u${i}`, parentUuid: parent, message: { role: "user", content: `Question ${i}: ${pad}` } }));
    parent = `${id}-a${i}`;
    lines.push(
      JSON.stringify({
        ...base,
        type: "assistant",
        uuid: parent,
        parentUuid: `${id}-u${i}`,
        message: { id: `msg-${id}-${i}`, role: "assistant", model: "claude-sonnet-4-5", content: [{ type: "text", text: `Answer ${i}: ${pad}` }], usage: { input_tokens: 10, output_tokens: 20 } },
      }),
    );
  }
  writeFileSync(join(dir, `${id}.jsonl`), lines.join("\n") + "\n");
}

test("the page holds rows, not logs, and opening one session after another does not add up", async () => {
  const dir = mkdtempSync(join(tmpdir(), "sessionscope-memory-"));
  try {
    const projects = join(dir, "projects");
    writeSession(join(projects, "-home-dev-big"), "big-session", 14000, "big");
    writeSession(join(projects, "-home-dev-small"), "small-one", 200, "small");
    writeSession(join(projects, "-home-dev-small"), "small-two", 300, "small");
    const bigBytes = statSync(join(projects, "-home-dev-big", "big-session.jsonl")).size;
    const app = await openApp(browser, server);
    // The memory's size says how high the heap has been (it never shrinks); the heap's live
    // bytes say what the page holds now. Whether a session is let go is asked of the live bytes:
    // the high-water mark also depends on when the worker's replies arrive (the first rows'
    // view and the whole session can be alive together for a moment), which differs by engine.
    const memory = () => app.page.evaluate(() => window.wasmBindings.pageMemoryBytes());
    const heap = () => app.page.evaluate(() => window.wasmBindings.pageHeapBytes());
    const empty = await memory();
    await dropFolder(app.page, projects);
    const history = app.page.getByRole("region", { name: "History" });
    await history.getByRole("status").filter({ hasText: /^Indexed 3 of 3 files/ }).waitFor({ timeout: 60_000 });
    const indexed = await memory();
    assert.ok(indexed - empty < bigBytes / 4, `indexing ${bigBytes} bytes grew the page by ${indexed - empty} bytes: the logs stay in their files`);
    const indexedHeap = await heap();

    const sessions = history.getByRole("listbox", { name: "Sessions" });
    /** Opens the first session whose title holds `title`, then goes back: the live heap while it is open and after. */
    const open = async (title) => {
      await history.getByLabel("Filter by title").fill(title);
      await sessions.getByRole("option").first().click();
      await tree(app.page).getByRole("treeitem").first().waitFor({ timeout: 60_000 });
      // The whole session, not its first part (sharing waits for the whole): each open is
      // measured at the same point.
      await app.page.getByRole("button", { name: "Share…" }).and(app.page.locator(":enabled")).waitFor({ timeout: 60_000 });
      const held = await heap();
      await app.page.getByRole("button", { name: "← History" }).click();
      await sessions.waitFor();
      return { held, after: await heap() };
    };
    const project = (name) => history.getByRole("listbox", { name: "Projects" }).getByRole("option").filter({ hasText: name }).click();
    await project("projects/big");
    const big = await open("Question 0");
    await project("projects/small");
    const small = await open("Question 0");
    await project("projects/big");
    const bigAgain = await open("Question 0");
    const peak = await memory();
    console.log(`# memory: empty ${empty}, indexed ${indexed}, peak ${peak}; live heap: indexed ${indexedHeap}, big open ${big.held}, back ${big.after}, small open ${small.held}, back ${small.after}, big again ${bigAgain.held}, back ${bigAgain.after}`);
    assert.ok(big.held >= bigBytes, `the open session's ${bigBytes} bytes were in the page while it was open (it held ${big.held})`);
    assert.ok(small.held < big.held / 4, `the small session was held alone, not beside the big one (${small.held} bytes, the big one ${big.held})`);
    for (const [name, { after }] of [["big", big], ["small", small], ["big again", bigAgain]]) {
      assert.ok(after - indexedHeap < bigBytes / 20, `back at the history after the ${name} session, the page let it go (it holds ${after} bytes, ${indexedHeap} when indexed)`);
    }
    assert.ok(bigAgain.held <= big.held * 1.05, `the second time the big session was opened the page held what it held the first time: ${big.held} then ${bigAgain.held} bytes`);
    assert.deepEqual(app.errors, []);
    await app.context.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
