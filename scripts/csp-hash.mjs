// Trunk post-build hook: puts the SHA-256 of every inline <script> of the built index.html
// into its Content-Security-Policy, in place of __INLINE_SCRIPT_HASHES__.
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const dir = process.env.TRUNK_STAGING_DIR || process.argv[2];
if (!dir) {
  console.error("csp-hash: TRUNK_STAGING_DIR is not set");
  process.exit(1);
}
const file = join(dir, "index.html");
const html = readFileSync(file, "utf8");
const hashes = [];
for (const match of html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)) {
  hashes.push(`'sha256-${createHash("sha256").update(match[1], "utf8").digest("base64")}'`);
}
if (!html.includes("__INLINE_SCRIPT_HASHES__")) {
  console.error("csp-hash: no __INLINE_SCRIPT_HASHES__ placeholder in index.html");
  process.exit(1);
}
writeFileSync(file, html.replace("__INLINE_SCRIPT_HASHES__", hashes.join(" ")));
console.log(`csp-hash: ${hashes.length} inline script hash(es) written`);
