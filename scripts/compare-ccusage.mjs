// Compares sessionscope's token and cost totals with ccusage's (the reference), on the same
// session logs. ccusage is installed into target/peers from the npm registry; it is a peer to
// check against, never a dependency.
//
//   node scripts/compare-ccusage.mjs [folder-of-project-folders] [--write tests/reference/ccusage-real.json]
//
// ccusage groups by session file: `<id>.jsonl` with `<id>/subagents/*.jsonl` rolled in, and a
// top-level `agent-*.jsonl` as a session of its own. sessionscope's per-file usage (responses
// deduplicated across all files) is regrouped the same way, then compared exactly.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "..");
const args = process.argv.slice(2);
const writeAt = args.indexOf("--write");
const output = writeAt >= 0 ? args[writeAt + 1] : null;
const fixtures = resolve(args.find((a, i) => !a.startsWith("--") && i !== writeAt + 1) || join(ROOT, "../shared/fixtures/real"));
const VERSION = "20.0.24";

const peers = join(ROOT, "target/peers");
const ccusage = join(peers, "node_modules/.bin/ccusage");
if (!existsSync(ccusage)) {
  mkdirSync(peers, { recursive: true });
  execFileSync("npm", ["install", "--prefix", peers, "--no-audit", "--no-fund", "--loglevel=error", `ccusage@${VERSION}`, `@ccusage/ccusage-linux-x64@${VERSION}`], { stdio: "inherit" });
}

// A Claude config folder whose projects are the fixture folders.
const config = join(peers, "claude-config");
rmSync(config, { recursive: true, force: true });
mkdirSync(join(config, "projects"), { recursive: true });
const projects = readdirSync(fixtures, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
// Copies (ccusage does not follow symbolic links); target/ is not committed.
for (const name of projects) cpSync(join(fixtures, name), join(config, "projects", name), { recursive: true });

const theirs = JSON.parse(
  execFileSync(ccusage, ["claude", "session", "--json", "--offline"], {
    env: { ...process.env, CLAUDE_CONFIG_DIR: config, HOME: join(peers, "home"), NO_COLOR: "1" },
    maxBuffer: 1 << 28,
  }),
).sessions;

execFileSync("cargo", ["build", "--quiet", "--release", "-p", "sessionscope-engine", "--bin", "sessionscope"], { cwd: ROOT, stdio: "inherit" });
const ours = JSON.parse(
  execFileSync(join(ROOT, "target/release/sessionscope"), ["summary", "--json", ...projects.map((p) => join(fixtures, p))], { maxBuffer: 1 << 28 }),
);

// Regroup our per-file usage like ccusage: session file stem, subagents rolled in.
const groups = new Map();
for (const file of ours.per_file) {
  const parts = file.path.split("/");
  const project = parts[0];
  let session = parts.at(-1).replace(/\.jsonl$/, "");
  const sub = parts.indexOf("subagents");
  if (sub > 0) session = parts[sub - 1];
  if (!file.path.endsWith(".jsonl")) continue;
  const key = `${project}/${session}`;
  const g = groups.get(key) || { input: 0, output: 0, write: 0, read: 0, cost: 0 };
  g.input += file.usage.input_tokens;
  g.output += file.usage.output_tokens;
  g.write += file.usage.cache_creation_input_tokens;
  g.read += file.usage.cache_read_input_tokens;
  g.cost += file.cost_usd;
  groups.set(key, g);
}

let mismatches = 0;
const rows = [];
for (const s of theirs) {
  const key = `${s.projectPath}/${s.sessionId}`;
  const g = groups.get(key) || { input: 0, output: 0, write: 0, read: 0, cost: 0 };
  const same =
    g.input === s.inputTokens && g.output === s.outputTokens && g.write === s.cacheCreationTokens && g.read === s.cacheReadTokens;
  const costSame = Math.abs(g.cost - s.totalCost) < 1e-5;
  if (!same || !costSame) mismatches++;
  rows.push({ session: key, ccusage: [s.inputTokens, s.outputTokens, s.cacheCreationTokens, s.cacheReadTokens, +s.totalCost.toFixed(6)], sessionscope: [g.input, g.output, g.write, g.read, +g.cost.toFixed(6)], tokens: same ? "equal" : "DIFFERENT", cost: costSame ? "equal" : "DIFFERENT" });
}
console.table(rows.map((r) => ({ session: r.session, "ccusage in/out/write/read $": r.ccusage.join(" / "), "sessionscope in/out/write/read $": r.sessionscope.join(" / "), tokens: r.tokens, cost: r.cost })));
if (output) {
  writeFileSync(output, JSON.stringify({ ccusage: VERSION, note: "ccusage claude session --json --offline over ../shared/fixtures/real, one project per fixture folder", sessions: theirs.map((s) => ({ project: s.projectPath, session: s.sessionId, input: s.inputTokens, output: s.outputTokens, cache_creation: s.cacheCreationTokens, cache_read: s.cacheReadTokens, cost: s.totalCost })) }, null, 2) + "\n");
  console.log(`wrote ${output}`);
}
console.log(mismatches === 0 ? `all ${rows.length} sessions agree` : `${mismatches} of ${rows.length} sessions differ`);
process.exit(mismatches === 0 ? 0 : 1);
