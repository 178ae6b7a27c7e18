// ecoscore phone page: score a photo, correct cells, run a game room. No build step.
"use strict";
const TYPES = ["rabbit", "trout", "fox", "bear", "dragonfly", "bee", "eagle", "wolf", "deer", "stream", "meadow"];
const PAD = ["bear", "bee", "meadow", "trout", "eagle", "rabbit", "dragonfly", "fox", "deer", "stream", "wolf"];
const $ = (id) => document.getElementById(id);

async function api(method, url, body, headers = {}) {
  const init = { method, headers: { ...headers } };
  if (body instanceof FormData) init.body = body;
  else if (body !== undefined) { init.body = JSON.stringify(body); init.headers["Content-Type"] = "application/json"; }
  const res = await fetch(url, init);
  const data = await res.json().catch(() => ({}));
  if (!res.ok) {
    const detail = Array.isArray(data.detail) ? data.detail.map((d) => d.msg).join("; ") : data.detail;
    const err = new Error(detail || `${res.status} ${res.statusText}`);
    err.status = res.status;  // 409: someone wrote in between (see correctRoom)
    throw err;
  }
  return data;
}

function setStatus(el, text, isError = false) { el.textContent = text; el.classList.toggle("error", isError); }

// Points shown on each cell: a card's own, or its group's (Σ) on the group's first card.
function cellPoints(player) {
  const labels = {};
  for (const c of player.explanation.cards) labels[c.cell.join(",")] = String(c.points);
  for (const g of player.explanation.groups) { const k = g.cells[0].join(","); if (!(k in labels)) labels[k] = "Σ" + g.points; }
  return labels;
}

function renderPad(table, players) {
  const head = "<tr><th></th>" + players.map((p) => `<th>${escapeHtml(p.name)}</th>`).join("") + "</tr>";
  const rows = PAD.map((t) => `<tr><td>${t}</td>` + players.map((p) => `<td>${p.cards[t]}</td>`).join("") + "</tr>");
  const bio = "<tr><td>biodiversity</td>" + players.map((p) => `<td>${p.biodiversity ?? "–"}</td>`).join("") + "</tr>";
  const total = '<tr class="total"><td>total</td>' + players.map((p) => `<td>${p.total}</td>`).join("") + "</tr>";
  table.innerHTML = head + rows.join("") + bio + total;
}

function escapeHtml(s) { return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c])); }

// A 5 × 4 grid of buttons; onPick(row, col, type) is called after the user picks a type.
function renderGrid(container, player, doubtCells, onPick) {
  const labels = cellPoints(player);
  container.innerHTML = "";
  player.grid.forEach((row, r) => row.forEach((type, c) => {
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.row = r; b.dataset.col = c;
    b.className = (type ? "" : "empty") + (doubtCells.has(`${r},${c}`) ? " doubt" : "");
    b.innerHTML = `<span>${type || "empty"}</span><small>${labels[`${r},${c}`] ?? ""}</small>`;
    b.setAttribute("aria-label", `row ${r + 1}, column ${c + 1}: ${type || "empty"}`);
    b.addEventListener("click", () => pick(type).then((t) => t !== undefined && onPick(r, c, t)));
    container.appendChild(b);
  }));
}

function pick(current) {
  return new Promise((resolve) => {
    const dialog = $("picker"), choices = $("choices");
    choices.innerHTML = "";
    [...TYPES, null].forEach((t) => {
      const b = document.createElement("button");
      b.type = "button"; b.className = "button"; b.textContent = t || "empty";
      if (t === current) b.classList.add("primary");
      b.addEventListener("click", () => { dialog.close(); resolve(t); });
      choices.appendChild(b);
    });
    dialog.onclose = () => resolve(undefined);
    dialog.showModal();
  });
}

function doubtCellsOf(player) {
  const cells = new Set();
  (player.cells || []).forEach((row, r) => row.forEach((cell, c) => { if (cell.doubts && cell.doubts.length) cells.add(`${r},${c}`); }));
  return cells;
}

// ---------- one photo ----------
const solo = { player: null, doubts: new Set(), corrected: new Set() };

async function scorePhoto(file) {
  if (!file) return;
  setStatus($("status"), "Reading the photo…");
  const form = new FormData();
  form.append("photo", file);
  try {
    const doc = await api("POST", "/api/photo", form);
    solo.player = doc.players[0];
    solo.doubts = doubtCellsOf(solo.player);
    solo.corrected = new Set();
    $("overlay").src = solo.player.overlay_url;
    showSolo(doc);
    setStatus($("status"), doc.players.length > 1 ? `${doc.players.length} tableaux found; showing the first.` : "");
  } catch (err) {
    setStatus($("status"), err.message, true);
  }
}

function showSolo(doc) {
  const p = doc.players[0];
  $("result").hidden = false;
  $("total").textContent = p.total;
  $("provisional").textContent = doc.provisional_majorities ? "(stream and wolf majorities provisional: alone at the table)" : "";
  const doubts = (solo.player.doubts || []).filter((d) => ![...solo.corrected].some((k) => d.startsWith(`row ${+k.split(",")[0] + 1}, col ${+k.split(",")[1] + 1}:`)));
  $("doubts").innerHTML = doubts.map((d) => `<li>${escapeHtml(d)}</li>`).join("") + (p.deck_issues || []).map((d) => `<li>${escapeHtml(d)}</li>`).join("");
  renderGrid($("grid"), p, new Set([...solo.doubts].filter((k) => !solo.corrected.has(k))), correctSolo);
  renderPad($("pad"), [p]);
  $("explain").innerHTML = p.explanation.cards.map((c) => `<li>${c.type} (row ${c.cell[0] + 1}, col ${c.cell[1] + 1}): ${c.points} — ${escapeHtml(c.reason)}</li>`).join("")
    + p.explanation.groups.map((g) => `<li>${g.type}: ${g.points} — ${escapeHtml(g.reason)}</li>`).join("");
}

async function correctSolo(r, c, type) {
  solo.player.grid[r][c] = type;
  solo.corrected.add(`${r},${c}`);
  try {
    const doc = await api("POST", "/api/grid", { players: [{ name: solo.player.name, grid: solo.player.grid }] });
    showSolo(doc);
    setStatus($("status"), "Score updated with your correction.");
  } catch (err) { setStatus($("status"), err.message, true); }
}

// ---------- game rooms ----------
const room = { id: null, version: -1, doc: null };
const tokenKey = (name) => `ecoscore:${room.id}:${name}`;
const ownerKey = (id) => `ecoscore-owner:${id}`;  // the room creator's token (room-wide settings)
const ownerHeaders = () => ({ "X-Room-Token": localStorage.getItem(ownerKey(room.id)) || "" });

async function loadRoom(force = false) {
  try {
    const doc = await api("GET", `/api/rooms/${room.id}`);
    if (force || doc.version !== room.version) { room.version = doc.version; room.doc = doc; showRoom(doc); }
  } catch (err) { setStatus($("room-status"), err.message, true); }
}

function showRoom(doc) {
  $("room-code").textContent = doc.id;
  const link = doc.link || location.origin + doc.url;
  $("room-link").href = link; $("room-link").textContent = link;
  $("qr").src = doc.qr_url;
  $("neutral-box").hidden = doc.mode !== "two-player";
  $("bot-box").hidden = doc.mode !== "solo";
  if (doc.neutral && document.activeElement.type !== "number") { $("neutral-streams").value = doc.neutral[0]; $("neutral-wolves").value = doc.neutral[1]; }
  const game = doc.game;
  if (!game) { $("room-pad").innerHTML = ""; $("room-winners").textContent = "No tableau yet."; $("mine").innerHTML = ""; return; }
  renderPad($("room-pad"), game.players);
  $("room-winners").textContent = `Winner${game.winners.length > 1 ? "s" : ""}: ${game.winners.join(", ")}`
    + (game.solo ? ` — beat the bot by ${game.solo.margin}: ${game.solo.outcome}` : "")
    + (game.provisional_majorities ? " (majorities provisional until more players join)" : "");
  const mine = $("mine");
  mine.innerHTML = "";
  for (const p of game.players) {
    if (p.bot || !localStorage.getItem(tokenKey(p.name))) continue;
    const box = document.createElement("div");
    box.innerHTML = `<h3>${escapeHtml(p.name)}: ${p.total} points <small>(your tableau: tap to correct)</small></h3>`
      + (p.overlay_url ? `<img class="mine-overlay" src="${p.overlay_url}" alt="your photo as read" style="width:100%">` : "")
      + `<ul class="doubts">${(p.doubts || []).map((d) => `<li>${escapeHtml(d)}</li>`).join("")}</ul>`;
    const grid = document.createElement("div");
    grid.className = "grid";
    renderGrid(grid, p, doubtCellsOf(p), (r, c, t) => correctRoom(p, r, c, t));
    box.appendChild(grid);
    mine.appendChild(box);
  }
}

async function correctRoom(player, r, c, type) {
  // Each write carries the version it was made on (If-Match). If the tableau moved on meanwhile
  // (409), take the latest and apply this one cell to it again: the corrections merge.
  try {
    for (let attempt = 0; ; attempt++) {
      const latest = room.doc.game.players.find((p) => p.name === player.name) || player;
      const grid = latest.grid.map((row) => row.slice());
      grid[r][c] = type;
      try {
        await api("PUT", `/api/rooms/${room.id}/players/${encodeURIComponent(player.name)}/grid`, { grid },
          { "X-Player-Token": localStorage.getItem(tokenKey(player.name)),
            "If-Match": `"${room.doc.versions[player.name]}"` });
        break;
      } catch (err) {
        if (err.status !== 409 || attempt >= 2) throw err;
        await loadRoom(true);
      }
    }
    setStatus($("room-status"), "Correction saved.");
    await loadRoom(true);
  } catch (err) { setStatus($("room-status"), err.message, true); }
}

async function joinRoom(file) {
  const name = $("player-name").value.trim();
  if (!name) { setStatus($("room-status"), "Type your name first.", true); $("player-name").focus(); return; }
  if (!file) return;
  setStatus($("room-status"), "Reading your photo…");
  const form = new FormData();
  form.append("photo", file); form.append("name", name);
  const token = localStorage.getItem(tokenKey(name));
  const version = room.doc && room.doc.versions && room.doc.versions[name];
  try {
    const res = await api("POST", `/api/rooms/${room.id}/photo`, form,
      token ? { "X-Player-Token": token, ...(version ? { "If-Match": `"${version}"` } : {}) } : {});
    localStorage.setItem(tokenKey(res.name), res.token);  // the name as stored (trimmed, normalised)
    setStatus($("room-status"), `Added ${name}'s tableau.`);
    room.version = -1;
    await loadRoom(true);
  } catch (err) { setStatus($("room-status"), err.message, true); }
  $("room-photo").value = "";
}

function start() {
  const match = location.pathname.match(/^\/r\/([a-z0-9]+)$/);
  if (match) {
    room.id = match[1];
    $("solo-view").hidden = true; $("room-view").hidden = false;
    $("room-photo").addEventListener("change", (e) => joinRoom(e.target.files[0]));
    $("join").addEventListener("submit", (e) => e.preventDefault());
    $("save-neutral").addEventListener("click", () => api("PUT", `/api/rooms/${room.id}/neutral`,
      { streams: +$("neutral-streams").value, wolves: +$("neutral-wolves").value }, ownerHeaders()).then(() => loadRoom(true), (e) => setStatus($("room-status"), e.message, true)));
    $("save-bot").addEventListener("click", () => api("PUT", `/api/rooms/${room.id}/bot`, { grid: $("bot-grid").value }, ownerHeaders())
      .then(() => loadRoom(true), (e) => setStatus($("room-status"), e.message, true)));
    loadRoom(true);
    setInterval(loadRoom, 2000);  // live: new tableaux show up within two seconds
    return;
  }
  $("camera").addEventListener("change", (e) => scorePhoto(e.target.files[0]));
  $("file").addEventListener("change", (e) => scorePhoto(e.target.files[0]));
  $("new-room").addEventListener("click", async () => {
    try {
      const doc = await api("POST", "/api/rooms", { mode: $("mode").value });
      localStorage.setItem(ownerKey(doc.id), doc.owner_token);  // only this phone may change the room's settings
      location.href = doc.url;
    } catch (err) { setStatus($("status"), err.message, true); }
  });
}
start();
