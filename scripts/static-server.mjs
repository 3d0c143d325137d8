// A static server for the built site (dist/): the browser tests serve it with this, and
// `make serve` (scripts/serve.mjs) does too. Only files under the folder are served, each with
// its type; nothing else is answered.

import { createServer } from "node:http";
import { createReadStream, existsSync, readFileSync, statSync } from "node:fs";
import { extname, join, normalize, resolve } from "node:path";

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".wasm": "application/wasm",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".webmanifest": "application/manifest+json",
};

/** Where folders of disk that a test mounts are served (`mount`). */
const MOUNTS = "/__mount/";

/**
 * Serves `dir` on `host` (127.0.0.1) and `port` (0: a free one) under `prefix` (e.g.
 * "/some/prefix/"). Every request is recorded in `served`. With `precompressed`, a file's `.br`
 * or `.gz` copy the build wrote is served to a browser that accepts it, as a static host does.
 * For tests: `mount(folder)` serves a folder of disk (a dropped folder's files, fetched by the
 * page) and answers its URL; `rewrite(name, change)` serves the files whose path ends with `name`
 * changed by `change(text)` until the function it answers is called (a fault put into the
 * workers' loader, in every engine); `hooks` (a browser driver's, ./tests/browser/webkit.mjs) may answer
 * a request first (`beforeRequest(req, res)`, true if it did) and rewrite each HTML page
 * (`transformHtml(req, html)`).
 */
export async function serveFolder({ dir, prefix = "/", extra = {}, precompressed = false, port = 0, host = "127.0.0.1", hooks }) {
  if (!existsSync(join(dir, "index.html"))) {
    throw new Error(`${dir}/index.html is missing: build the site first (make dist)`);
  }
  const served = [];
  const mounted = [];
  const rewrites = new Map();
  const server = createServer((req, res) => {
    served.push(req.url);
    if (hooks?.beforeRequest?.(req, res)) return;
    const url = new URL(req.url, "http://localhost");
    if (url.pathname.startsWith(MOUNTS)) {
      const [index, ...rest] = url.pathname.slice(MOUNTS.length).split("/");
      const root = mounted[Number(index)];
      const file = root && normalize(join(root, ...rest.map(decodeURIComponent)));
      if (!file || !file.startsWith(root) || !existsSync(file) || !statSync(file).isFile()) {
        res.writeHead(404).end("not found");
        return;
      }
      res.writeHead(200, { "content-type": "application/octet-stream", "content-length": statSync(file).size, "cache-control": "no-store" });
      createReadStream(file).pipe(res);
      return;
    }
    if (extra[url.pathname]) {
      // Extra files for benchmarks (a generated session), served from anywhere.
      res.writeHead(200, { "content-type": "application/octet-stream" });
      res.end(readFileSync(extra[url.pathname]));
      return;
    }
    if (!url.pathname.startsWith(prefix)) {
      res.writeHead(404).end("not found");
      return;
    }
    let path = decodeURIComponent(url.pathname.slice(prefix.length)) || "index.html";
    if (path.endsWith("/")) path += "index.html";
    const file = normalize(join(dir, path));
    if (!file.startsWith(dir) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end("not found");
      return;
    }
    const type = TYPES[extname(file)] || "application/octet-stream";
    const rewrite = [...rewrites].find(([name]) => url.pathname.endsWith(name))?.[1];
    if (rewrite) {
      res.writeHead(200, { "content-type": type, "cache-control": "no-store" });
      res.end(rewrite(readFileSync(file, "utf8")));
      return;
    }
    // A driver's rewrite of a page (WebKit's: its instrumentation script first).
    if (hooks?.transformHtml && type.startsWith("text/html")) {
      res.writeHead(200, { "content-type": type, "cache-control": "no-store" });
      res.end(hooks.transformHtml(req, readFileSync(file, "utf8")));
      return;
    }
    // With `precompressed`, the build's .br or .gz copy is served, as a static host that serves
    // precompressed files does.
    const accepted = String(req.headers["accept-encoding"] || "");
    for (const [encoding, suffix] of [["br", ".br"], ["gzip", ".gz"]]) {
      if (precompressed && accepted.includes(encoding) && existsSync(file + suffix)) {
        res.writeHead(200, { "content-type": type, "content-encoding": encoding, vary: "accept-encoding" });
        res.end(readFileSync(file + suffix));
        return;
      }
    }
    res.writeHead(200, { "content-type": type });
    res.end(readFileSync(file));
  });
  await new Promise((ok, failed) => {
    server.once("error", failed);
    server.listen(port, host, ok);
  });
  const origin = `http://${host}:${server.address().port}`;
  return {
    origin,
    url: `${origin}${prefix}`,
    served,
    /** Serves the files named `name` changed by `change`; answers the function that stops it. */
    rewrite: (name, change) => {
      rewrites.set(name, change);
      return () => rewrites.delete(name);
    },
    /** Serves the folder `folder` of disk, and answers the URL its files are under. */
    mount: (folder) => {
      mounted.push(resolve(folder));
      return `${origin}${MOUNTS}${mounted.length - 1}/`;
    },
    close: () => new Promise((ok) => server.close(ok)),
  };
}
