// A static server for the built site (dist/): the browser tests serve it with this, and
// `make serve` (scripts/serve.mjs) does too. Only files under the folder are served, each with
// its type; nothing else is answered.

import { createServer } from "node:http";
import { existsSync, readFileSync, statSync } from "node:fs";
import { extname, join, normalize } from "node:path";

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

/**
 * Serves `dir` on `host` (127.0.0.1) and `port` (0: a free one) under `prefix` (e.g.
 * "/some/prefix/"). Every request is recorded in `served`. With `precompressed`, a file's `.br`
 * or `.gz` copy the build wrote is served to a browser that accepts it, as a static host does.
 */
export async function serveFolder({ dir, prefix = "/", extra = {}, precompressed = false, port = 0, host = "127.0.0.1" }) {
  if (!existsSync(join(dir, "index.html"))) {
    throw new Error(`${dir}/index.html is missing: build the site first (make dist)`);
  }
  const served = [];
  const server = createServer((req, res) => {
    served.push(req.url);
    const url = new URL(req.url, "http://localhost");
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
    close: () => new Promise((ok) => server.close(ok)),
  };
}
