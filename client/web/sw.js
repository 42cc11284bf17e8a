// The service worker: keeps the page's shell (the page itself, its scripts, style sheet, icons
// and /api/games), so that the page opens at once, and opens with the server out of reach
// (showing "offline: reconnecting" until the websocket is back). It answers those from its cache
// and leaves everything else to the network: the websocket, the rules pages, /healthz, and
// anything of a race (which travels on the websocket only).
//
// server/web.py serves this file at /sw.js with BUILD filled in: the version (a hash of every
// file it serves) and the paths to keep. A change of any file changes the version, so the
// browser installs the new worker, which fetches everything again into a new cache, takes over,
// and drops the old cache.

const BUILD = null; // {version, files}: filled in by server/web.py
const CACHE = `arena-${BUILD ? BUILD.version : "dev"}`;
const FILES = new Set(BUILD ? BUILD.files : []);
const SHELL = "/"; // the page, for every page route
const PAGE_ROUTE = /^\/(?:(?:r|w|t)\/[A-Za-z0-9]{1,16}|me)?\/?$/;

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    await cache.addAll([...FILES].map((path) => new Request(path, { cache: "reload" })));
    await self.skipWaiting();
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const key of await caches.keys()) if (key.startsWith("arena-") && key !== CACHE) await caches.delete(key);
    await self.clients.claim();
  })());
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET" || !BUILD) return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  const key = PAGE_ROUTE.test(url.pathname) ? SHELL : FILES.has(url.pathname) ? url.pathname : null;
  if (key === null) return; // the network's
  event.respondWith(kept(key, request));
});

/** The kept answer for `key`, else the network's (kept for next time when it is a good one). */
async function kept(key, request) {
  const cache = await caches.open(CACHE);
  const hit = await cache.match(key);
  if (hit) return hit;
  const response = await fetch(request);
  if (response.ok && request.mode !== "navigate") await cache.put(key, response.clone());
  return response;
}
