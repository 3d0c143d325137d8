// sessionscope's service worker: keeps a copy of the app's own files, so the viewer opens
// offline once it has been loaded. Network first: a new build is used as soon as it is served,
// and the copy only answers when the network does not. It never sees session logs: the page
// reads dropped files itself and share links live in the URL fragment, which is never fetched.
const CACHE = "sessionscope-app";

// The bundled example session's files (written here by scripts/post-build.mjs). The page fetches
// them when the example is opened; they are kept at install, so the example opens offline too.
const EXAMPLE_FILES = __EXAMPLE_FILES__;
// The loading worker's files (fixed names): the page parses no logs itself, so even the example
// needs them, and the page may not have started a worker before the network goes.
const WORKER_FILES = ["worker_loader.js", "worker.js", "worker_bg.wasm"];
// The render module (Markdown, diffs), which the page fetches once it is idle.
const RENDER_FILES = ["render_loader.js", "render.js", "render_bg.wasm"];
// The web app manifest and its icons (fixed names): the page's scripts never fetch them, the
// browser does when it pleases, so they are kept at install for an installed app started offline.
const INSTALL_FILES = ["manifest.webmanifest", "icon-192.png", "icon-512.png"];

self.addEventListener("install", (event) => {
  self.skipWaiting();
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll([...EXAMPLE_FILES, ...WORKER_FILES, ...RENDER_FILES, ...INSTALL_FILES].map((path) => new URL(path, self.location).href)))
      .catch(() => {}),
  );
});
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

// The app's own files: the page, its scripts, wasm, styles and icons. Anything else on the same
// origin (a log someone serves next to the app, say) passes through untouched and uncached.
// SQLite (sqlite/*.mjs and its wasm) is among them, kept once a database was opened.
const APP_FILE = /(\/|\.html|\.m?js|\.wasm|\.css|\.svg|\.png|\.ico|\.webmanifest)$/;
// The bundled example session, fetched when it is opened: part of the app, kept for offline use.
const EXAMPLE = /\/example\/[^?#]*\.jsonl?$/;

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  if (request.mode !== "navigate" && !APP_FILE.test(url.pathname) && !EXAMPLE.test(url.pathname)) return;
  event.respondWith(
    (async () => {
      try {
        const response = await fetch(request);
        if (response.ok) {
          // Stored in the background: the page gets the response as it streams in.
          const copy = response.clone();
          const page = request.mode === "navigate" ? response.clone() : null;
          event.waitUntil(
            (async () => {
              const cache = await caches.open(CACHE);
              await cache.put(request, copy);
              if (page) await forgetOldBuilds(cache, page);
            })(),
          );
        }
        return response;
      } catch (error) {
        const cache = await caches.open(CACHE);
        const cached = await cache.match(request, { ignoreSearch: true });
        if (cached) return cached;
        throw error;
      }
    })(),
  );
});

// Builds have hashed file names: once a page is fetched, copies of files it no longer names
// are dropped, so the cache holds one build.
async function forgetOldBuilds(cache, page) {
  const html = await page.text();
  for (const request of await cache.keys()) {
    const name = new URL(request.url).pathname.split("/").pop();
    if (/-[0-9a-f]{16}(_bg)?\.(js|wasm|css)$/.test(name) && !html.includes(name)) {
      await cache.delete(request);
    }
  }
}
