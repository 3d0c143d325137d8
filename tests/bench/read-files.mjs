// How fast headless Chromium itself reads a folder of files in workers, with nothing parsed: the
// floor under the history index (issue 14), which must read every byte of every file. A page
// of its own (no app) is given the folder as a drop, as the app is. It first walks the folder
// through its handle as the app does (twice, timed), then N workers (default 2) each read
// their share, largest first, in one of these ways:
//   arrayBuffer  each file whole, or in 8 MiB slices (`slice().arrayBuffer()`), as the app does
//   sync         the same slices with FileReaderSync
//   byob         as the app's index: a file over 1 MiB as a byte stream into one 1 MiB buffer used
//                again ("bring your own buffer"), a smaller one whole (streams for every file
//                stalled this page in Chromium 156 after a few thousand files)
//   stream       the file's byte stream, each chunk a new buffer
// Each read is copied once, as the app copies into wasm memory. Prints the time, MB/s, and the
// CPU seconds (user and system) all of Chromium's processes spent, twice per way.
//   node tests/bench/read-files.mjs <folder> [--workers N] [arrayBuffer|sync|byob|stream ...]
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serveDist, launchBrowser, dropFolder } from "../browser/harness.mjs";

const args = process.argv.slice(2);
const folder = args[0];
if (!folder) {
  console.error("usage: node tests/bench/read-files.mjs <folder> [--workers N] [arrayBuffer|sync|byob|stream ...]");
  process.exit(2);
}
const workers = args.includes("--workers") ? Number(args[args.indexOf("--workers") + 1]) : 2;
const ways = args.slice(1).filter((a, i, all) => a !== "--workers" && all[i - 1] !== "--workers");
if (ways.length === 0) ways.push("arrayBuffer", "byob");

const PAGE = `<!doctype html><body style="height:100vh;margin:0"><script>
// The folder comes as a drop (as a person gives it to the app), walked to its files.
const walk = async (entry, out) => {
  if (entry.isFile) out.push(await new Promise((ok, fail) => entry.file(ok, fail)));
  else {
    const reader = entry.createReader();
    for (;;) {
      const batch = await new Promise((ok, fail) => reader.readEntries(ok, fail));
      if (batch.length === 0) break;
      for (const child of batch) await walk(child, out);
    }
  }
  return out;
};
addEventListener("dragover", (e) => e.preventDefault());
addEventListener("drop", (e) => {
  e.preventDefault();
  const entries = [...e.dataTransfer.items].map((item) => item.webkitGetAsEntry());
  window.handle = e.dataTransfer.items[0].getAsFileSystemHandle();
  window.dropped = Promise.all(entries.map((entry) => walk(entry, []))).then((lists) => lists.flat());
});
// The folder walked as the app walks it: through its handle, a level at a time, every folder of
// a level listed at once and every file of it asked for at once.
window.walkHandle = async () => {
  const started = performance.now();
  const files = [];
  for (let level = [await window.handle]; level.length > 0; ) {
    const folders = [];
    const fileHandles = [];
    await Promise.all(level.map(async (folder) => {
      for await (const child of folder.values()) (child.kind === "file" ? fileHandles : folders).push(child);
    }));
    files.push(...(await Promise.all(fileHandles.map((handle) => handle.getFile()))));
    level = folders;
  }
  return { ms: performance.now() - started, files: files.length };
};
window.readAll = async (way, workers) => {
  const files = [...(await window.dropped)].sort((a, b) => b.size - a.size);
  const shares = Array.from({ length: workers }, () => []);
  files.forEach((file, i) => shares[i % workers].push(file));
  const started = performance.now();
  const bytes = await Promise.all(shares.map((share) => new Promise((done, fail) => {
    const worker = new Worker("read.js");
    worker.onmessage = (e) => { worker.terminate(); done(e.data); };
    worker.onerror = (e) => fail(e.message);
    worker.postMessage({ way, files: share });
  })));
  return { ms: performance.now() - started, bytes: bytes.reduce((a, b) => a + b, 0), files: files.length };
};
</script>`;

const WORKER = `const SLICE = 8 << 20;
const STREAM_BUFFER = 1 << 20;
const copy = new Uint8Array(SLICE);
onmessage = async ({ data: { way, files } }) => {
  let bytes = 0;
  const took = (view) => { copy.set(view.subarray(0, SLICE)); bytes += view.byteLength; };
  let spare = new ArrayBuffer(STREAM_BUFFER);
  const sync = new FileReaderSync();
  for (const file of files) {
    if (way === "arrayBuffer") {
      const read = (at) => (file.size <= SLICE ? file : file.slice(at, at + SLICE)).arrayBuffer();
      let next = read(0);
      for (let at = 0; next; ) {
        const buffer = await next;
        at += buffer.byteLength;
        next = at < file.size ? read(at) : null;
        took(new Uint8Array(buffer));
      }
    } else if (way === "sync") {
      for (let at = 0; at < file.size; at += SLICE) {
        took(new Uint8Array(sync.readAsArrayBuffer(file.size <= SLICE ? file : file.slice(at, at + SLICE))));
      }
    } else if (way === "byob" && file.size <= STREAM_BUFFER) {
      took(new Uint8Array(await file.arrayBuffer()));
    } else if (way === "byob") {
      const reader = file.stream().getReader({ mode: "byob" });
      for (;;) {
        const { value, done } = await reader.read(new Uint8Array(spare, 0, STREAM_BUFFER));
        spare = value.buffer;
        if (done) break;
        took(value);
      }
    } else {
      const reader = file.stream().getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        took(value);
      }
    }
  }
  postMessage(bytes);
};`;

/** Files under `dir`. */
function filesUnder(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) filesUnder(path, out);
    else out.push(path);
  }
  return out;
}

/** CPU seconds (user, system) of every Chromium process so far. */
function chromiumCpu() {
  let user = 0;
  let system = 0;
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      if (!stat.includes("(chrom")) continue;
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      user += Number(fields[11]);
      system += Number(fields[12]);
    } catch {}
  }
  return { user: user / 100, system: system / 100 };
}

const site = mkdtempSync(join(tmpdir(), "sessionscope-read-"));
writeFileSync(join(site, "index.html"), PAGE);
writeFileSync(join(site, "read.js"), WORKER);
const server = await serveDist({ dir: site });
const browser = await launchBrowser();
try {
  const page = await browser.newPage();
  await page.goto(server.url);
  await dropFolder(page, folder);
  const walked = await page.evaluate(async () => (await window.dropped).length);
  console.log(`${walked} files dropped (${filesUnder(folder).length} on disk)`);
  for (let run = 0; run < 2; run++) {
    const before = chromiumCpu();
    const walk = await page.evaluate(() => window.walkHandle());
    const after = chromiumCpu();
    console.log(
      `walk through the folder's handle (as the app walks a drop): ${(walk.ms / 1000).toFixed(1)} s for ${walk.files} files; ` +
        `Chromium CPU ${(after.user - before.user).toFixed(1)} s user, ${(after.system - before.system).toFixed(1)} s system`,
    );
  }
  for (const way of ways) {
    for (let run = 0; run < 2; run++) {
      const before = chromiumCpu();
      const read = await page.evaluate(([way, workers]) => window.readAll(way, workers), [way, workers]);
      const after = chromiumCpu();
      console.log(
        `${way}: ${(read.ms / 1000).toFixed(1)} s for ${(read.bytes / 1e9).toFixed(2)} GB in ${read.files} files ` +
          `(${workers} workers) = ${(read.bytes / 1e6 / (read.ms / 1000)).toFixed(0)} MB/s; ` +
          `Chromium CPU ${(after.user - before.user).toFixed(1)} s user, ${(after.system - before.system).toFixed(1)} s system`,
      );
    }
  }
} finally {
  await browser.close();
  await server.close();
  rmSync(site, { recursive: true, force: true });
}
