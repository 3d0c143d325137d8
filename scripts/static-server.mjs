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
 * workers' loader, in every engine); `refuse(name)` answers 404 and `hold(name)` holds them until
 * released (a module that fails or comes late); `hooks` (a browser driver's, ./tests/browser/webkit.mjs) may answer
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
  /** Paths refused (404), and paths held until released: by the end of their path. */
  const refused = new Set();
  const held = new Map();
  const server = createServer(async (req, res) => {
    // The driver's own requests (WebKit's blank page and instrumentation) are not the page's.
    if (hooks?.beforeRequest?.(req, res)) return;
    served.push(req.url);
    const url = new URL(req.url, "http://localhost");
    if ([...refused].some((name) => url.pathname.endsWith(name))) {
      res.writeHead(404).end("refused for a test");
      return;
    }
    const hold = [...held].find(([name]) => url.pathname.endsWith(name))?.[1];
    if (hold) await hold;
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
    // A browser driver's instrumentation (WebKit's): first in each page, and in a worker's script.
    const page = hooks?.transformHtml && type.startsWith("text/html");
    const prelude = type.startsWith("text/javascript") ? hooks?.scriptPrelude?.(req) : "";
    if (rewrite || page || prelude) {
      let text = readFileSync(file, "utf8");
      if (rewrite) text = rewrite(text);
      if (page) text = hooks.transformHtml(req, text);
      if (prelude) text = prelude + text;
      res.writeHead(200, { "content-type": type, "cache-control": "no-store" });
      res.end(text);
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
    /** Answers 404 for the files named `name`; answers the function that stops it. */
    refuse: (name) => {
      refused.add(name);
      return () => refused.delete(name);
    },
    /** Holds the requests for the files named `name` until the function it answers is called. */
    hold: (name) => {
      let release;
      held.set(name, new Promise((ok) => (release = ok)));
      return () => {
        held.delete(name);
        release();
      };
    },
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
