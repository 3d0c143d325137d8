// Compares sessionscope's 5-hour blocks (`sessionscope activity --json`) with ccusage's
// (`ccusage blocks --json --offline`, the reference) on the same Claude Code history: every block
// and gap, its start, end and last response, its responses, its tokens by kind and its models.
// ccusage is installed into target/peers from the npm registry; it is a peer to check against,
// never a dependency.
//
//   node scripts/compare-ccusage-blocks.mjs [claude-config-folder] [--write tests/reference/ccusage-blocks-real.json]
//
// The folder holds `projects/` (a `~/.claude`, or one written by `gen-history`). Without one, the
// Claude Code folders of ../shared/fixtures/real are copied into target/peers/claude-config-blocks.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "..");
const args = process.argv.slice(2);
const writeAt = args.indexOf("--write");
const output = writeAt >= 0 ? args[writeAt + 1] : null;
const VERSION = "20.0.24";
// The real fixtures' Claude Code folders (the others are other agents' logs).
const CLAUDE_FOLDERS = ["compaction-2.1.39", "early-1.0.17", "legacy-inline-sidechains-1.0.98", "session-share-2.1.14", "thinking-2.0.24"];

const peers = join(ROOT, "target/peers");
const ccusage = join(peers, "node_modules/.bin/ccusage");
if (!existsSync(ccusage)) {
  mkdirSync(peers, { recursive: true });
  execFileSync("npm", ["install", "--prefix", peers, "--no-audit", "--no-fund", "--loglevel=error", `ccusage@${VERSION}`, `@ccusage/ccusage-linux-x64@${VERSION}`], { stdio: "inherit" });
}

let config = args.find((a, i) => !a.startsWith("--") && (writeAt < 0 || i !== writeAt + 1));
if (!config) {
  const fixtures = resolve(ROOT, "../shared/fixtures/real");
  config = join(peers, "claude-config-blocks");
  rmSync(config, { recursive: true, force: true });
  mkdirSync(join(config, "projects"), { recursive: true });
  // Copies (ccusage does not follow symbolic links); target/ is not committed.
  for (const name of CLAUDE_FOLDERS) cpSync(join(fixtures, name), join(config, "projects", name), { recursive: true });
}
config = resolve(config);
const home = join(peers, "home");
mkdirSync(home, { recursive: true });

const theirs = JSON.parse(
  execFileSync(ccusage, ["blocks", "--json", "--offline"], {
    env: { ...process.env, CLAUDE_CONFIG_DIR: config, HOME: home, NO_COLOR: "1" },
    maxBuffer: 1 << 28,
  }),
).blocks;

execFileSync("cargo", ["build", "--quiet", "--release", "-p", "sessionscope-engine", "--bin", "sessionscope"], { cwd: ROOT, stdio: "inherit" });
const ours = JSON.parse(
  execFileSync(join(ROOT, "target/release/sessionscope"), ["activity", "--json", join(config, "projects")], { maxBuffer: 1 << 28 }),
).blocks;

const iso = (ms) => (ms == null ? null : new Date(ms).toISOString());
const theirsShape = theirs.map((b) => ({
  start: b.startTime,
  end: b.endTime,
  last: b.actualEndTime ?? null,
  gap: b.isGap,
  responses: b.entries,
  tokens: [b.tokenCounts.inputTokens, b.tokenCounts.outputTokens, b.tokenCounts.cacheCreationInputTokens, b.tokenCounts.cacheReadInputTokens],
  models: b.models,
}));
const oursShape = ours.map((b) => ({
  start: iso(b.start_ms),
  end: iso(b.end_ms),
  last: iso(b.actual_end_ms),
  gap: b.gap,
  responses: b.responses,
  tokens: [b.tokens.input_tokens, b.tokens.output_tokens, b.tokens.cache_creation_input_tokens, b.tokens.cache_read_input_tokens],
  models: b.models,
}));

let mismatches = Math.abs(theirsShape.length - oursShape.length);
for (let i = 0; i < Math.min(theirsShape.length, oursShape.length); i++) {
  if (JSON.stringify(theirsShape[i]) !== JSON.stringify(oursShape[i])) {
    mismatches++;
    if (mismatches <= 5) console.log({ block: i, ccusage: theirsShape[i], sessionscope: oursShape[i] });
  }
}
const total = (shape) => shape.reduce((sum, b) => sum + b.tokens.reduce((a, t) => a + t, 0), 0);
console.log(`ccusage: ${theirsShape.length} blocks, ${total(theirsShape)} tokens; sessionscope: ${oursShape.length} blocks, ${total(oursShape)} tokens`);
if (output) {
  writeFileSync(output, JSON.stringify({ ccusage: VERSION, note: "ccusage blocks --json --offline over the Claude Code folders of ../shared/fixtures/real, one project per folder", blocks: theirsShape }, null, 2) + "\n");
  console.log(`wrote ${output}`);
}
console.log(mismatches === 0 ? `all ${theirsShape.length} blocks agree` : `${mismatches} blocks differ`);
process.exit(mismatches === 0 ? 0 : 1);
