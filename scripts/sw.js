// sessionscope's service worker: keeps a copy of the app's own files, so the viewer opens
// offline once it has been loaded. Network first: a new build is used as soon as it is served,
// and the copy only answers when the network does not. It never sees session logs: the page
// reads dropped files itself and share links live in the URL fragment, which is never fetched.
const CACHE = "sessionscope-app";

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET" || new URL(request.url).origin !== self.location.origin) return;
  event.respondWith(
    (async () => {
      const cache = await caches.open(CACHE);
      try {
        const response = await fetch(request);
        if (response.ok) {
          await cache.put(request, response.clone());
          if (request.mode === "navigate") await forgetOldBuilds(cache, response.clone());
        }
        return response;
      } catch (error) {
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
