// Trunk post-build hook, on the staged site:
// 1. puts the SHA-256 of every inline <script> of the built index.html into its
//    Content-Security-Policy, in place of __INLINE_SCRIPT_HASHES__;
// 2. writes a Brotli (`.br`) and a gzip (`.gz`) copy beside every file a browser fetches, for
//    static hosts that serve precompressed files (see the README's hosting section);
// 3. lists the bundled example's files in the service worker (`__EXAMPLE_FILES__`);
// 4. copies SQLite for the browser (npm's @sqlite.org/sqlite-wasm: its module and its wasm, no
//    more) into sqlite/, beside the glue Trunk copied there (scripts/sqlite/). The worker fetches
//    them only when an agent's database is opened (src/database.rs).
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

const dir = process.env.TRUNK_STAGING_DIR || process.argv[2];
if (!dir) {
  console.error("post-build: TRUNK_STAGING_DIR is not set");
  process.exit(1);
}

const file = join(dir, "index.html");
const html = readFileSync(file, "utf8");
const hashes = [];
for (const match of html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)) {
  hashes.push(`'sha256-${createHash("sha256").update(match[1], "utf8").digest("base64")}'`);
}
if (!html.includes("__INLINE_SCRIPT_HASHES__")) {
  console.error("post-build: no __INLINE_SCRIPT_HASHES__ placeholder in index.html");
  process.exit(1);
}
writeFileSync(file, html.replace("__INLINE_SCRIPT_HASHES__", hashes.join(" ")));
console.log(`post-build: ${hashes.length} inline script hash(es) written`);

/** The files under `folder` of the site (`""`: all of it), as paths from the site's root. */
const filesUnder = (folder) =>
  readdirSync(join(dir, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = folder ? `${folder}/${entry.name}` : entry.name;
    return entry.isDirectory() ? filesUnder(path) : [path];
  });

// 3. lists the bundled example's files in the service worker, which keeps them at install.
const examples = filesUnder("example");
const sw = join(dir, "sw.js");
const worker = readFileSync(sw, "utf8");
if (!worker.includes("__EXAMPLE_FILES__") || examples.length === 0) {
  console.error("post-build: no __EXAMPLE_FILES__ placeholder in sw.js, or no example files in dist/example");
  process.exit(1);
}
writeFileSync(sw, worker.replace("__EXAMPLE_FILES__", JSON.stringify(examples.sort())));
console.log(`post-build: ${examples.length} example files listed in sw.js`);

// 4. SQLite, from the npm package scripts/setup.sh installs (package.json pins its version).
const sqlitePackage = join(dirname(fileURLToPath(import.meta.url)), "..", "node_modules", "@sqlite.org", "sqlite-wasm");
const sqliteDir = join(dir, "sqlite");
if (!existsSync(join(sqliteDir, "records.mjs"))) {
  console.error("post-build: no sqlite/records.mjs in the site (index.html copies scripts/sqlite)");
  process.exit(1);
}
for (const name of ["index.mjs", "sqlite3.wasm"]) {
  const from = join(sqlitePackage, "dist", name);
  if (!existsSync(from)) {
    console.error(`post-build: ${from} is missing: run scripts/setup.sh build (it installs the npm packages)`);
    process.exit(1);
  }
  copyFileSync(from, join(sqliteDir, name));
}
const sqliteVersion = JSON.parse(readFileSync(join(sqlitePackage, "package.json"), "utf8")).version;
console.log(`post-build: sqlite-wasm ${sqliteVersion} copied into sqlite/`);

// 2. The precompressed copies, of the site's files and of those in its folders.
// The example session (`.jsonl`) is fetched by every start page that is left idle.
const compressible = /\.(wasm|m?js|css|html|json|jsonl|svg|webmanifest)$/;
const served = filesUnder("").filter((path) => compressible.test(path) && statSync(join(dir, path)).isFile());
let raw = 0;
let brotli = 0;
for (const name of served) {
  const bytes = readFileSync(join(dir, name));
  const br = brotliCompressSync(bytes, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
      [constants.BROTLI_PARAM_LGWIN]: constants.BROTLI_MAX_WINDOW_BITS,
      [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
    },
  });
  writeFileSync(join(dir, `${name}.br`), br);
  writeFileSync(join(dir, `${name}.gz`), gzipSync(bytes, { level: 9 }));
  raw += bytes.length;
  brotli += br.length;
}
console.log(`post-build: precompressed ${(raw / 1e6).toFixed(2)} MB into ${(brotli / 1e6).toFixed(2)} MB of Brotli`);
