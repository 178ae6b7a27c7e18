// ecoscore's service worker: the page's shell opens without the network; the API never comes
// from a cache (a score must be today's), and the page says plainly when the server is out of reach.
"use strict";
const CACHE = "ecoscore-shell-v1";
const SHELL = [
  "/", "/static/style.css", "/static/i18n.js", "/static/app.js", "/manifest.webmanifest",
  "/static/icon.svg", "/static/icon-192.png", "/static/icon-512.png",
  "/static/i18n/en.json", "/static/i18n/cs.json", "/static/i18n/ru.json", "/static/i18n/it.json",
];

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

self.addEventListener("fetch", (event) => {
  const req = event.request;
  const url = new URL(req.url);
  if (req.method !== "GET" || url.origin !== location.origin) return;
  if (url.pathname.startsWith("/api/") || url.pathname === "/health") return;  // always the network
  if (req.mode === "navigate") {
    // the page (/, /r/ROOM): the network first, so an update shows; the cached shell without it
    event.respondWith(fetch(req).catch(() => caches.match("/")));
    return;
  }
  // the shell's files: the network when it answers (and keep the copy fresh), the cache otherwise
  event.respondWith(fetch(req).then((res) => {
    if (res.ok && SHELL.includes(url.pathname)) {
      const copy = res.clone();
      caches.open(CACHE).then((cache) => cache.put(req, copy));
    }
    return res;
  }).catch(() => caches.match(req)));
});
