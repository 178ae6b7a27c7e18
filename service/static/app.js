// ecoscore phone page: score a photo, correct cells, run a game room. No build step.
"use strict";
const { t } = I18N;
const TYPES = ["rabbit", "trout", "fox", "bear", "dragonfly", "bee", "eagle", "wolf", "deer", "stream", "meadow"];
const PAD = ["bear", "bee", "meadow", "trout", "eagle", "rabbit", "dragonfly", "fox", "deer", "stream", "wolf"];
const GROUP_TYPES = new Set(["meadow", "deer", "stream", "wolf"]);
// A photo is sent at most this large (long side, px): measured with the real reader, the read
// holds at this size (see the README), and a 12 MP original would take 8 times as long to send.
const SEND_LONG_SIDE = 2048, SEND_QUALITY = 0.9;
// With this many doubtful cells of 20 the read is no score to show: the player is asked to retake.
const UNREADABLE = 7;
const $ = (id) => document.getElementById(id);

// ---------- talking to the service ----------
// The page asks for English and translates with I18N.message, so a change of language needs no
// new request (the service speaks the player's language to other clients: Accept-Language).
const API_HEADERS = { "Accept-Language": "en" };
// ... and in the query too, which the service reads first: a proxy that rewrites the header
// would otherwise have the doubts come back translated, and a corrected cell's doubt, matched
// by its English wording, would stay listed.
const inEnglish = (url) => `${url}${url.includes("?") ? "&" : "?"}lang=en`;

// Back online, a status that only said the server could not be reached goes (it stayed, red,
// under a page that worked again: a walk).
function showOffline(off) {
  $("offline").hidden = !off;
  if (!off) document.querySelectorAll(".status").forEach((el) => { if (el.offline) setStatus(el, ""); });
}

// What a correction's write (or score) answers when it could not be made: the view takes the
// change back (``TableauView.unsaved``), rather than show a card the room or the score never got;
// RESET: the view shows what is saved already (a room's tableau as the room has it), the
// change's step is dropped.
const UNSAVED = Symbol("unsaved"), RESET = Symbol("reset");

// ``answer``: given, gets the answer's ETag (a room's poll sends it back as If-None-Match).
async function api(method, url, body, headers = {}, answer = null) {
  const init = { method, headers: { ...API_HEADERS, ...headers } };
  if (body instanceof FormData) init.body = body;
  else if (body !== undefined) { init.body = JSON.stringify(body); init.headers["Content-Type"] = "application/json"; }
  let res;
  // (not "the photo was not sent": a room's poll, a correction or a listing is no photo: a walk)
  try { res = await fetch(inEnglish(url), init); } catch { showOffline(true); throw saying(() => t("ui.network_error_api"), { offline: true }); }
  showOffline(false);
  if (answer) answer.etag = res.headers.get("ETag");
  if (res.status === 304) return null;  // asked with If-None-Match: nothing new
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw saying(() => errorText(data, res), refusalOf(res.status, data));  // 409: written in between
  return data;
}

// A message of the service in the player's words (I18N.message), "5 × 4" kept on one line: it
// broke as "5 ×" | "4" at a line's end (a walk). The service's English writes it with plain spaces
// (the English catalogue's api.* entries must match it): the page puts no-break spaces there, in
// every language.
function translated(text) {
  const said = I18N.message(text);
  return typeof said === "string" ? said.replace(/(\d) × (\d)/g, "$1\u00a0×\u00a0$2") : said;
}

// An error that can say itself again (``say``) in the language chosen since (setStatus).
function saying(say, more = {}) { return Object.assign(new Error(say()), { say }, more); }

// What the page acts on in a refusal: its status and its code (service/refusal.py), never its
// words (a reworded message silently stopped the page offering to name a deck's cards).
const refusalOf = (status, data) => ({ status, detail: data.detail, code: data.code || "", clashes: data.clashes || [],
  strays: data.strays || [], lumped: data.lumped || [] });

function errorText(data, res) {
  // a 422's errors each in the player's words (service/invalid.py), not as one text to split
  if (Array.isArray(data.detail)) return data.detail.slice(0, 3).map((d) => translated(String(d.msg || ""))).join("; ")
    || `${res.status} ${res.statusText}`;
  const detail = data.detail;
  if (!detail) return `${res.status} ${res.statusText}`;
  const name = photoName(String(detail));
  if (name) { if (PHOTO_NAMES.size >= 20) PHOTO_NAMES.clear(); PHOTO_NAMES.add(name); }
  return translated(detail);
}

// A refusal of the one photo sent, without the photo's name before it: on a phone that is
// "IMG_20261129_…" or "image" (a walk: "p1: No tableau read: …"), where the pad says "This photo".
function unnamedRefusal(err) {
  const head = refusalHead(typeof err.detail === "string" ? err.detail : "");
  if (head && head.found.key === "api.named") return translated([head.found.params.error, ...head.rest].join("; "));
  return err.say ? err.say() : err.message;
}

// The photo's name a refusal starts with ("api.named": "{name}: {error}"), if it does.
function photoName(detail) {
  const head = refusalHead(detail);
  return head && head.found.key === "api.named" ? head.found.params.name : null;
}

// A refusal's head: the longest run of its first "; "-joined clauses that is a message, as I18N
// reads it ({found, rest}: the clauses after it), or null.
function refusalHead(detail) {
  const parts = detail.split("; ");
  for (let cut = Math.min(parts.length, 6); cut > 0; cut--) {
    const found = I18N.match(parts.slice(0, cut).join("; "));
    if (found) return { found, rest: parts.slice(cut) };
  }
  return null;
}

// An upload with progress that can be cancelled: {promise, abort}. Only one at a time per
// purpose: starting another aborts the one before, so an older photo never replaces a newer one.
function upload(url, form, headers, onProgress) {
  const xhr = new XMLHttpRequest();
  const promise = new Promise((resolve, reject) => {
    xhr.open("POST", inEnglish(url));
    for (const [k, v] of Object.entries({ ...API_HEADERS, ...headers })) xhr.setRequestHeader(k, v);
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded, e.total);
    xhr.upload.onload = () => onProgress(1, 1, true);
    xhr.onload = () => {
      showOffline(false);
      let data = {};
      try { data = JSON.parse(xhr.responseText); } catch { /* not JSON */ }
      if (xhr.status >= 200 && xhr.status < 300) resolve(data);
      else reject(saying(() => errorText(data, { status: xhr.status, statusText: xhr.statusText }), refusalOf(xhr.status, data)));
    };
    xhr.onerror = () => { showOffline(true); reject(saying(() => t("ui.network_error"), { offline: true })); };
    xhr.onabort = () => reject(Object.assign(new Error(t("ui.cancelled")), { cancelled: true }));
    xhr.send(form);
  });
  return { promise, abort: () => xhr.abort() };
}

// Shrink a photo on the phone before it is sent: upright (EXIF orientation applied by the
// browser's decoder), long side at most SEND_LONG_SIDE, JPEG. What the browser cannot decode
// (HEIC in most browsers) is sent as it is: the service decodes it.
async function shrink(file) {
  if (!window.createImageBitmap) return file;
  let bitmap;
  try { bitmap = await createImageBitmap(file, { imageOrientation: "from-image" }); } catch { return file; }
  const long = Math.max(bitmap.width, bitmap.height);
  if (long <= SEND_LONG_SIDE && file.size < 1.5e6) { bitmap.close(); return file; }
  const f = Math.min(1, SEND_LONG_SIDE / long);
  const canvas = document.createElement("canvas");
  canvas.width = Math.round(bitmap.width * f); canvas.height = Math.round(bitmap.height * f);
  const ctx = canvas.getContext("2d");
  ctx.imageSmoothingQuality = "high";
  ctx.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  bitmap.close();
  const blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", SEND_QUALITY));
  if (!blob || blob.size >= file.size) return file;
  return new File([blob], (file.name || "photo").replace(/\.\w+$/, "") + ".jpg", { type: "image/jpeg" });
}

// In the page's language ("214 кБ", "1,2 MB": the unit and the decimal comma were English: a walk).
const sizeText = (bytes) => new Intl.NumberFormat(I18N.lang, { style: "unit", unit: bytes >= 1e6 ? "megabyte" : "kilobyte",
  maximumFractionDigits: bytes >= 1e6 ? 1 : 0 }).format(bytes >= 1e6 ? bytes / 1e6 : Math.max(1, Math.round(bytes / 1e3)));

// Send a photo with a progress bar and a Cancel button; resolves to the answer, or null when
// the player cancelled or a newer photo replaced this one.
function sender(box, bar, cancelButton, statusEl) {
  let current = null, seq = 0;
  cancelButton.addEventListener("click", () => current && current.abort());
  // Resolves to the answer, to null when the player cancelled, or to undefined when a newer
  // upload took its place (the newer one shows its own result).
  return async function send(url, file, fields = {}, headers = {}) {
    if (current) current.abort();
    const mine = ++seq;
    // The status line, a live region a screen reader speaks, says the upload once, as it starts,
    // and the caller its result once (it said each quarter of the upload, and "reading", after
    // "preparing": six times for one photo, a walk). How far it has come is beside the bar, said
    // unasked to no one.
    setStatus(statusEl, () => t("ui.sending"));
    const small = await shrink(file);
    if (mine !== seq) return undefined;
    const form = new FormData();
    form.append("photo", small, small.name || "photo.jpg");
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    const howFar = box.querySelector(".upload-text");
    box.hidden = false; bar.value = 0; howFar.textContent = "";
    const job = upload(url, form, headers, (loaded, total, done) => {
      if (mine !== seq) return;
      bar.value = loaded / total;
      setText(howFar, done ? t("ui.reading") : t("ui.uploading", { pct: Math.floor(100 * loaded / total), size: sizeText(total) }));
    });
    current = job;
    try {
      const data = await job.promise;
      return mine === seq ? data : undefined;
    } catch (err) {
      if (mine !== seq) return undefined;
      if (err.cancelled) {
        setStatus(statusEl, () => t("ui.cancelled"));
        // the Cancel button goes with the bar: the focus to what starts an upload again, not the page (an audit)
        if (document.activeElement === cancelButton || document.activeElement === document.body) {
          box.hidden = true;
          const shown = [...box.parentElement.querySelectorAll("button:not(:disabled)")].filter((b) => !b.closest("[hidden]"));
          const again = shown.find((b) => b.closest(".actions, .join")) || shown[0];  // (the bot's box has neither: a review)
          if (again) again.focus();
        }
        return null;
      }
      throw err;
    } finally {
      if (mine === seq) { box.hidden = true; current = null; }
    }
  };
}

// A status is given as a function (or an API error) where it can be said again: a change of
// language says it anew (resay), and so does the catalogue arriving after it was first shown.
// A refusal with its retake advice is clauses the API joins with "; " (each translated on its
// own): shown so, it was one red run-on of eight lines, lower case, no stops (a walk, in
// Italian). An error says each clause as a sentence of its own, and so an error of one clause
// ("il file è vuoto", "la stanza «x» non esiste" were shown lower case, with no full stop, beside
// longer ones written as sentences: an Italian walk): a capital first, a full stop last unless it
// ends in one, "!", "?" or ":". A refusal of a photo starts with its name ("blurred-enrol: no
// tableau read: ...", the API's "api.named"): the name is kept as it was given, and what follows
// it starts the sentence ("Blurred-enrol" read as a word). So is a player's name a message starts
// with ("anna's tableau is no longer in the room ..."): a name is written as its player wrote it.
const PHOTO_NAMES = new Set();  // names the API put before a refusal (errorText), at most a few
const capital = (c) => c.charAt(0).toUpperCase() + c.slice(1);
const clause = (c, k) => {
  const names = k === 0 ? [...PHOTO_NAMES, ...(room.seen || [])] : [];
  const name = names.filter((n) => c.startsWith(n) && !/[\p{L}\p{N}]/u.test(c.charAt(n.length)))
    .sort((a, b) => b.length - a.length)[0];
  const said = !name ? capital(c) : c.startsWith(`${name}: `) ? `${name}: ${capital(c.slice(name.length + 2))}` : c;
  return said + (/[.!?:]$/.test(c) ? "" : ".");
};
const clauses = (text) => (text.trim() ? text.trim().split("; ").map(clause).join(" ") : "");
function setStatus(el, text, isError = false) {
  // What a status is, where the page takes it back by itself (rememberCards' "unsure"): a
  // message's own mark, if it carries one, else none.
  el.mark = (typeof text === "function" && text.mark) || undefined;
  el.at = Date.now();  // (a room's news of this phone's own change goes stale: loadRoom)
  el.offline = Boolean(isError && text && text.offline);
  const say = typeof text === "function" ? text : text instanceof Error ? text.say || (() => text.message) : null;
  el.say = say && isError ? () => clauses(say()) : say;
  el.textContent = el.say ? el.say() : isError ? clauses(String(text)) : text;
  el.classList.toggle("error", isError);
}
// A change's word said ``near`` where it was made (Undo's, beside it), else on the page's status
// line. Done beside it, the line's news of an earlier change is done with (Undo's word replaced it);
// failed, what the line says stands (an earlier change's failure too).
// A failure said beside the tableau is brought into view if it is not (a card tapped low on the grid).
function sayNear(near, line, text, isError = false) {
  setStatus(near || line, text, isError);
  if (near && !isError) setStatus(line, "");
  if (near && isError) {
    const box = near.getBoundingClientRect();
    if (box.top < 0 || box.bottom > innerHeight) near.scrollIntoView({ block: "nearest" });
  }
}
function resay() { document.querySelectorAll(".status").forEach((el) => { if (el.say) el.textContent = el.say(); }); }
// A live region's text set only when it changes: each render set it again, and a screen reader
// said the same explanation three or four times after one Undo (a walk).
function setText(el, text) { if (el.textContent !== text) el.textContent = text; }
function escapeHtml(s) { return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c])); }
const key = (r, c) => `${r},${c}`;
// A tableau that fills less than FRAME_FILL of its photo, or less than FRAME_ACROSS of its width, is
// shown cut to it, with FRAME_MARGIN of its width and height round it (``TableauView.framed``). (A
// phone shows a photo as wide as its screen: a landscape photo's tableau across half its width, the
// table above and below it, was shown whole at 320 px with cards 21 px wide: a walk.)
const FRAME_FILL = 0.4, FRAME_ACROSS = 0.65, FRAME_MARGIN = 0.12;
// The box round ``points`` ([x, y] each), ``margin`` of its width and height wider each side, kept
// within 0..w, 0..h: [x0, y0, x1, y1]. (A card's crop in the picker, a tableau's part of its photo.)
function boxAround(points, margin, w, h) {
  const xs = points.map((p) => p[0]), ys = points.map((p) => p[1]);
  const x0 = Math.min(...xs), x1 = Math.max(...xs), y0 = Math.min(...ys), y1 = Math.max(...ys);
  const mx = (x1 - x0) * margin, my = (y1 - y0) * margin;
  return [Math.max(0, x0 - mx), Math.max(0, y0 - my), Math.min(w, x1 + mx), Math.min(h, y1 + my)];
}
// Whether (x, y) lies inside the convex quad (its corners in order, either way round).
function insideQuad(quad, x, y) {
  const sides = quad.map((p, i) => {
    const q = quad[(i + 1) % quad.length];
    return Math.sign((q[0] - p[0]) * (y - p[1]) - (q[1] - p[1]) * (x - p[0]));
  });
  return !sides.includes(1) || !sides.includes(-1);
}

// How wide a quad is along the level line at height ``y`` (through its middle): the room a label has.
function across(quad, y) {
  const xs = [];
  quad.forEach((p, i) => {
    const q = quad[(i + 1) % quad.length];
    if ((p[1] - y) * (q[1] - y) <= 0 && p[1] !== q[1]) xs.push(p[0] + ((y - p[1]) / (q[1] - p[1])) * (q[0] - p[0]));
  });
  return xs.length ? Math.max(...xs) - Math.min(...xs) : Math.hypot(quad[1][0] - quad[0][0], quad[1][1] - quad[0][1]);
}
// A negative number as the page writes it: with the minus sign (U+2212), as the biodiversity's
// explanation had it ("−5") beside the pad's "-5" (a walk, in Russian). The API's are numbers.
const minus = (n) => (typeof n === "number" && n < 0 ? `\u2212${-n}` : n);
const pts = (n) => t("ui.points", { n: minus(n) });
// A majority's place as the language writes the number before its word: "1st place" in English
// (as the command line says it; the page said "place 1"), the bare number where the catalogue
// writes it round ("1. místo", "1-е место", "1° posto").
const ENGLISH_ORDINAL = { one: "st", two: "nd", few: "rd", other: "th" };
const placeText = (n) => (I18N.lang === "en" ? `${n}${ENGLISH_ORDINAL[new Intl.PluralRules("en", { type: "ordinal" }).select(n)]}` : String(n));

// ---------- the score pad ----------
// One column per player, the names fixed on top and the card names fixed on the left while it
// scrolls sideways. onName(name): a player's name was tapped; bioTarget shows biodiversity.
// unsure(p): how many of a player's cards are still in doubt (their total is then marked).
// reasons(p): what else keeps a player's total from being final (``readReasons``: a doubt of the
// photo or the grid), each said in its title (the total is marked too).
// ``waiting``: what the game still waits for, said on every total (a room's neutral pile or bot's grid).
function renderPad(table, players, { onName, bioTarget, unsure = unsureCells, reasons = () => [], waiting = "" } = {}) {
  table.innerHTML = "";
  const head = table.createTHead().insertRow();
  // The corner named for a screen reader, not shown (an empty header: an audit).
  const corner = head.appendChild(Object.assign(document.createElement("th"), { scope: "col" }));
  const cornerName = corner.appendChild(Object.assign(document.createElement("span"), { className: "sr-only", textContent: t("ui.pad_card_column") }));
  cornerName.dataset.i18n = "ui.pad_card_column";  // said anew when the language changes (I18N.apply)
  for (const p of players) {
    const th = document.createElement("th");
    th.scope = "col";
    const name = padName(p);
    th.title = name;  // whole, where the column cuts a long one short (style.css)
    if (onName && !p.bot) {
      const b = Object.assign(document.createElement("button"), { type: "button", className: "link", textContent: name });
      b.setAttribute("aria-label", t("ui.view_read", { name: p.name }));
      b.addEventListener("click", () => onName(p.name));
      th.appendChild(b);
    } else th.textContent = name;
    head.appendChild(th);
  }
  const body = table.createTBody();
  const row = (label, values, cls) => {
    const tr = body.insertRow();
    if (cls) tr.className = cls;
    const th = document.createElement("th");
    th.scope = "row";
    if (label instanceof Node) th.appendChild(label); else th.textContent = label;
    tr.appendChild(th);
    values.forEach((v) => { tr.insertCell().textContent = v; });
  };
  for (const type of PAD) row(I18N.card(type), players.map((p) => minus(p.cards[type])));
  const bio = Object.assign(document.createElement("button"), { type: "button", className: "link", textContent: t("ui.biodiversity") });
  // Each named as its column is: the bot's was "bot: Бот не получает…", English (a Russian walk).
  // A line each (style.css): several players' ran together in one block (an Italian walk).
  const bioSaid = () => players.map((p) => (players.length > 1 ? `${padName(p)}: ` : "") + bioText(p)).join("\n") + "\n" + t("ui.bio_scale");
  bio.addEventListener("click", () => { bioTarget.hidden = false; bioTarget.textContent = bioSaid(); });
  // Shown already: said again with the pad (it kept the score before a correction, a player
  // joining, or the language switched: a walk).
  if (bioTarget && !bioTarget.hidden) setText(bioTarget, bioSaid());
  row(bioTarget ? bio : t("ui.biodiversity"), players.map((p) => minus(p.biodiversity) ?? "–"), "bio");
  // A total with cards still in doubt is marked, never shown as plainly as a sure one.
  // So is every total of a game still waiting for its neutral pile or its bot (shown as plainly as a
  // final one, the winner line alone saying it: a walk, in Russian).
  // And so is one whose read has a doubt of the photo or the grid, however many cards are checked
  // ("1 card in line with the grid but outside its 5 × 4 was left out": the service said the game
  // was not final, the pad showed plain totals and a winner, a walk in Italian).
  const doubts = players.map(unsure), why = players.map(reasons);
  const marked = (i) => !!doubts[i] || why[i].length > 0 || !!waiting;
  row(t("ui.total_row"), players.map((p, i) => (marked(i) ? `${minus(p.total)}?` : minus(p.total))), "total");
  [...body.rows[body.rows.length - 1].cells].slice(1).forEach((td, i) => {  // after the row's label
    td.classList.toggle("unsure", marked(i));
    const said = [doubts[i] ? t("ui.pad_unsure", { n: doubts[i], name: players[i].name }) : "",
      why[i].length ? reasonsText(players[i].name, why[i]) : ""].filter(Boolean).join(" ");
    if (said || waiting) td.title = said || waiting;
  });
}

// A player as the pad heads their column. The solo bot's seat is named "bot" by the service: in
// the page's language, and "bot (bot)" said it twice (a walk, in Czech).
const padName = (p) => (p.bot ? (p.name.toLowerCase() === "bot" ? t("ui.bot") : `${p.name} (${t("ui.bot")})`) : p.name);

// A total's doubts of the photo or the grid, said: whose, and each as the read words it.
const reasonsText = (name, reasons) => [t("ui.pad_read_unsure", { n: 1, names: name }),
  ...deckIssuesSaid(reasons).map(sentence)].join(" ");  // (a deck's counts of several types in one)

// A doubt of one cell ("row 2, col 3: ...", api.cell_at): counted with its cell, not as the read's.
const cellDoubt = (doubt) => (I18N.match(doubt) || {}).key === "api.cell_at";
// A doubt no check of the grid at the table settles: "the same 20 cards in the same places as
// X's tableau: one tableau photographed twice?" (api.same_tableau) is of two players' photos, not
// of this grid's cards. The room keeps it after "The grid is right"; the page hid it (the list and
// the button gone, "grid checked", and the total still "?" with no reason: a Russian walk).
const checkSettles = (doubt) => (I18N.match(doubt) || {}).key !== "api.same_tableau";
// "N cards in line with the grid but outside its 5 × 4 were left out" (api.off_grid): a doubt of
// no cell, whose cards the read gives the corners of (``left_out``), outlined on the photo.
const offGrid = (doubt) => (I18N.match(doubt) || {}).key === "api.off_grid";

// Cells of a player's read still in doubt, as the service has them (a room's correction, and a
// card kept as read, drop their cell's doubts there).
function unsureCells(p) {
  return (p.cells || []).flat().filter((cell) => cell && cell.doubts && cell.doubts.length).length;
}

function bioText(p) {
  if (p.biodiversity === null || p.biodiversity === undefined) return t("ui.bio_bot");
  const gaps = p.gaps.map((g) => I18N.card(g)).join(", ") || t("ui.bio_none");
  const points = (p.biodiversity > 0 ? "+" : "") + minus(p.biodiversity);
  return t("ui.bio_explain", { n: p.gaps.length, gaps, points });
}

// ---------- one tableau: photo, marks, grid, doubts, corrections, explanations ----------
// Labels are drawn here from the current score, never baked into the photo, so a correction or
// the room's majorities show at once on the photo as on the pad.
const SVG = "http://www.w3.org/2000/svg";
let tableauViews = 0;  // views made on this page (each one's own ids)

class TableauView {
  constructor(slot, { editable, onChange, title, unsure, onKept, onSettled, onTakenBack, checkable, onChecked, majorityNote }) {
    this.root = $("tableau-tpl").content.firstElementChild.cloneNode(true);
    slot.appendChild(this.root);
    this.q = (sel) => this.root.querySelector(sel);
    this.editable = editable;
    this.onChange = onChange;
    this.title = title;
    this.unsure = unsure;  // where to say the total is not final while cells are doubtful (solo)
    // Told when a doubtful card is kept as read: the grid is unchanged, so no score comes back to
    // redraw the pad with (its total's mark counts this view's doubtful cards); a room sends it.
    this.onKept = onKept;
    this.onTakenBack = onTakenBack;  // a change taken back (``unsaved``): kept as it now is
    // A room's own tableau: its player can say the whole grid is right, compared with the table
    // (the photo's own doubts, a card beside the grid, a second tableau, belong to no cell: no
    // correction or card kept settled them, and the game stayed not final until a new photo).
    // The one-photo page's tableau too (``onChecked``): no room to tell, so settled on the page
    // (its "35?" stayed not final for a card beside the grid until the photo was taken again).
    this.checkable = !!checkable || !!onChecked;
    this.onChecked = onChecked;  // told once the grid is said right there (nothing is sent)
    // What else a stream's or a wolf's place depends on, said after it (``roomMajorityNote``: a duel's
    // neutral pile, given or not yet; players still to come): "2nd place" was said with no one shown
    // 1st, and "1st place, 8 points" before the pile that took it was given (a game night's walk).
    this.majorityNote = majorityNote || (() => "");
    // The photo's labels are sized for the photo as shown (``renderMarks``): drawn again when its
    // width changes (a phone turned, the page zoomed, the photo shown after it was drawn hidden).
    this.marksDrawn = null;  // {labels, causes, sel, width (CSS px)} of the last drawing
    if (window.ResizeObserver) {
      this.resizing = new ResizeObserver(() => {
        const drawn = this.marksDrawn, width = this.q(".marks").getBoundingClientRect().width;
        if (drawn && width && Math.abs(width - drawn.width) >= 1) this.renderMarks(drawn.labels, drawn.causes, drawn.sel);
      });
      this.resizing.observe(this.q(".marks"));
    }
    this.gridChecked = false;  // said so, for the room (the service's ``checked``), or on this page
    // Told on each render with no doubtful card left (the solo page takes back its "check the
    // doubtful cards first"): the view reached into the page for it.
    this.onSettled = onSettled || (() => {});
    this.seq = 0;
    this.loads = 0;  // reads loaded: a picker or Review begun on one never writes into the next
    I18N.apply(this.root);
    this.q(".photo-hint").hidden = !editable;
    this.q(".tools").hidden = !editable;
    this.q(".undo").addEventListener("click", () => this.undo());
    this.q(".revert").addEventListener("click", () => this.revert());
    this.q(".grid-right").addEventListener("click", () => this.checkWhole());
    // What it tells the room, said with the button (a hint of each tableau's own: ids are unique);
    // the one-photo page's tells no room, but what it does there.
    if (onChecked) {
      this.q(".grid-right-hint").dataset.i18n = "ui.grid_right_hint_here";  // (a language switched to says it too)
      this.q(".grid-right-hint").textContent = t("ui.grid_right_hint_here");
    }
    this.q(".grid-right-hint").id = `grid-right-hint-${++tableauViews}`;
    this.q(".grid-right").setAttribute("aria-describedby", this.q(".grid-right-hint").id);
    this.q(".review").addEventListener("click", () => this.review());
    this.q(".change").addEventListener("click", () => this.selected && this.pickAndCorrect(...this.selected));
    this.q(".change").hidden = !editable;
    // The grid is one stop of the Tab key, walked with the arrows (Home, End: the row's ends):
    // a keyboard had to Tab through all 20 cells to leave it (a walk).
    this.cursor = [0, 0];
    this.q(".grid").addEventListener("keydown", (event) => {
      const step = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0] }[event.key];
      const [r, c] = this.cursor, cols = this.grid[0].length, last = this.grid.length - 1;
      const to = step ? [Math.min(last, Math.max(0, r + step[0])), Math.min(cols - 1, Math.max(0, c + step[1]))]
        : event.key === "Home" ? [r, 0] : event.key === "End" ? [r, cols - 1] : null;
      if (!to || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
      event.preventDefault();  // (not the page's scroll)
      this.q(`.grid button[data-row="${to[0]}"][data-col="${to[1]}"]`).focus();  // (scrolled into view)
    });
    this.q(".grid").addEventListener("focusin", (event) => {
      const b = event.target.closest("button");
      if (b) this.rove(+b.dataset.row, +b.dataset.col);
    });
    // A photo the service no longer keeps (a read restored on reload, long after): no broken image.
    // (Its doubts' list no longer points at outlines on it: drawn again.)
    this.q(".photo-img").addEventListener("error", () => { this.q(".photo").hidden = true; if (this.player) this.render(); });
  }

  // A new read (a photo): its cells, doubts and the grid as read.
  load(player) {
    this.cursor = [0, 0];  // a new photo's grid is entered at its first card
    this.seq += 1;  // a correction's answer for what was shown before never lands on this read
    this.loads += 1;
    this.read = {
      grid: (player.read_grid || player.grid).map((r) => r.slice()), cells: player.cells || null,
      doubts: player.doubts || [], photo: player.photo_url || null, size: player.photo_size || null,
      leftOut: player.left_out || null,  // the cards its doubt says were left out (none from an older room)
    };
    this.grid = player.grid.map((r) => r.slice());
    this.corrected = new Set((player.corrected || []).map(([r, c]) => key(r, c)));
    this.checked = new Set((player.kept || []).map(([r, c]) => key(r, c)));  // a room keeps them
    this.gridChecked = !!player.checked;
    this.history = [];
    setStatus(this.q(".tool-status"), "");  // what Undo said of the last read
    this.unscored = [];  // commits not yet scored: {seq, prior} (``commit``)
    this.selected = null;
    this.player = player;
    const img = this.q(".photo-img");
    this.q(".photo").hidden = !this.read.photo;
    if (this.read.photo && img.getAttribute("src") !== this.read.photo) img.src = this.read.photo;
    this.render();
  }

  // A new score of the same read (a correction, the room's majorities changing). ``mine``: a
  // write of this view is still pending, so its grid and cards kept are the page's, not the answer's.
  update(player, mine = false) {
    this.player = player;
    if (!mine) {
      this.grid = player.grid.map((r) => r.slice());
      if (player.corrected) this.corrected = new Set(player.corrected.map(([r, c]) => key(r, c)));
      if (player.kept) this.checked = new Set(player.kept.map(([r, c]) => key(r, c)));
      this.gridChecked = !!player.checked;
      // A room's cells as it has them: a Revert after a reload must show the doubts it brings back.
      if (player.cells && player.kept) {
        this.read.cells = player.cells; this.read.doubts = player.doubts || [];
        if ("left_out" in player) this.read.leftOut = player.left_out || null;
      }
    }
    this.render();
  }

  // The cell as the reader read it, while the player has neither corrected nor checked it (what
  // the reader said of it then no longer stands), nor said the whole grid is right; null otherwise.
  untouchedCell(r, c) {
    const cell = this.read.cells && this.read.cells[r] && this.read.cells[r][c], k = key(r, c);
    return cell && !this.gridChecked && !this.corrected.has(k) && !this.checked.has(k) ? cell : null;
  }

  doubtsOf(r, c) {
    const cell = this.untouchedCell(r, c);
    return cell && cell.doubts && cell.doubts.length ? cell.doubts : [];
  }

  doubtfulCells() {
    const out = [];
    this.grid.forEach((row, r) => row.forEach((_, c) => { if (this.doubtsOf(r, c).length) out.push([r, c]); }));
    return out;
  }

  // A photo's cells laid out to be named (/api/layout: a deck taught from a photo), not a read.
  laidOut() {
    return !!this.read.cells && this.read.cells.some((row) => row.some((cell) => cell && "card" in cell));
  }

  // Such a grid while any cell is still to name: no score is shown for it (a blank grid scored
  // "-5?" before a card was named: a walk), and a cell not named yet says so, not "empty".
  // A bare place (no card found there) is no card to name: it reads as empty, in doubt, until
  // checked, and holds up neither the score nor "remember" (a walk: it was "to name" like a card).
  naming() { return this.laidOut() && this.doubtfulCells().some(([r, c]) => this.unnamed(r, c)); }
  unnamed(r, c) {
    const cell = this.read.cells && this.read.cells[r] && this.read.cells[r][c];
    return this.laidOut() && !!(cell && cell.card) && !this.grid[r][c] && this.doubtsOf(r, c).length > 0;
  }
  toName() { return this.doubtfulCells().filter(([r, c]) => this.unnamed(r, c)).length; }

  // A card the deck being taught named (/api/layout's guess), as it named it: marked, and the
  // player's to confirm before it is remembered (a deck half built names some cards surely wrong).
  guessAt(r, c) {
    const cell = this.untouchedCell(r, c);
    return !!(cell && cell.guess && this.grid[r][c] === cell.guess);
  }

  guessedCells() {
    const out = [];
    this.grid.forEach((row, r) => row.forEach((_, c) => { if (this.guessAt(r, c)) out.push([r, c]); }));
    return out;
  }

  // The player said the guesses are right: kept as read, no longer marked.
  confirmGuesses(cells) {
    cells.forEach(([r, c]) => this.checked.add(key(r, c)));
    this.render();
  }

  // What the read says of the photo or the grid, not of one cell, as listed below the tableau (a
  // card left out beside the grid, a photo of several tableaux), and a deck's count of a type
  // exceeded: no correction takes these back, so a total with any is not final however many cards
  // are checked (the service's "final" says so of such a read too). None of a photo laid out to
  // name: its advice is how to retake it, and every card is the player's own to name; but for
  // its cells the frame cut, while any is not named: nothing is known there (with its other cards
  // named, "Total: 36" stood final-looking for a tableau of 43, 4 cells cut: a Russian walk).
  readDoubts() {
    if (this.laidOut()) {
      const unread = this.grid.some((row, r) => row.some((_, c) => this.unknownAt(r, c)));
      return unread ? this.read.doubts.filter((d) => (I18N.match(d) || {}).key === "api.cut_by_frame") : [];
    }
    if (this.gridChecked) return [...this.unsettled(), ...(this.player.deck_issues || [])];  // (its player's check settles no deck's count)
    return [...standingDoubts(this.read.doubts, new Set([...this.corrected, ...this.checked]), false),
      ...(this.player.deck_issues || [])];
  }

  // The doubts of the photo and the grid its player's check settled, as the room has them (before
  // its answer, and on the one-photo page, the read's own): said as settled, no longer as doubts.
  // None unless checked.
  settledDoubts() {
    if (!this.gridChecked || this.laidOut()) return [];
    return this.player.checked ? this.player.settled || [] : this.read.doubts.filter((d) => !cellDoubt(d) && checkSettles(d));
  }

  // The doubts of the photo or the grid a check of the whole grid left (``checkSettles``): as the
  // room's answer has them once it says checked (its player's ``doubts``), before it (and on the
  // one-photo page) the read's that no check settles. Still doubts: listed as such, and the total
  // stays not final.
  unsettled() {
    if (!this.gridChecked || this.laidOut()) return [];
    return this.player.checked ? (this.player.doubts || []).filter((d) => !cellDoubt(d))
      : standingDoubts(this.read.doubts, null, true);
  }

  // A doubt of the photo or the grid, which no card's correction settles (a card left beside the
  // grid, a second tableau in the photo), once every card in doubt (or guessed) has been looked at,
  // corrected or kept, one by one: the player's word on the whole grid is no way past looking at
  // those (one tap kept them all, unlooked at, and the total said final). A deck's count of a type
  // exceeded is no doubt of this grid's, nor is one tableau photographed twice (``checkSettles``):
  // offered for those alone, the button settled nothing, and the page said the grid was checked.
  checkWanted() {
    if (this.gridChecked || this.laidOut() || !this.read.cells) return false;
    if (this.doubtfulCells().length || this.guessedCells().length) return false;
    const done = new Set([...this.corrected, ...this.checked]);
    return this.read.doubts.some((d) => !cellDoubt(d) && !emptyCellsChecked(d, done) && checkSettles(d));
  }

  // The corners of the cards the read says were left out beside the grid, while that doubt stands:
  // outlined on the photo (the doubt named no cell: the player could not see which card it meant).
  // None once the grid is said right at the table (that settles it), nor of a read without them
  // (an older room's).
  leftOut() {
    if (this.gridChecked || this.laidOut() || !this.read.leftOut || !this.read.size) return [];
    return this.read.doubts.some(offGrid) ? this.read.leftOut : [];
  }

  // How many cells the reader doubted, whatever has been corrected since.
  readDoubtCount() {
    return (this.read.cells || []).flat().filter((cell) => cell.doubts && cell.doubts.length).length;
  }

  labels() {
    const labels = {}, group = {}, cause = {};
    for (const c of this.player.explanation.cards) {
      labels[key(...c.cell)] = c.points; cause[key(...c.cell)] = c;
    }
    for (const g of this.player.explanation.groups) {
      g.cells.forEach((cell, i) => { group[key(...cell)] = g; if (i === 0 && !(key(...cell) in labels)) labels[key(...cell)] = g.points; });
    }
    return { labels, group, cause };
  }

  // The cells of (r, c)'s type joined to it side by side (a stream's group, as the rules count it).
  connected(r, c) {
    const type = this.grid[r][c], seen = new Set([key(r, c)]), todo = [[r, c]];
    while (todo.length) {
      const [y, x] = todo.pop();
      for (const [dy, dx] of [[1, 0], [-1, 0], [0, 1], [0, -1]]) {
        const ny = y + dy, nx = x + dx;
        if (this.grid[ny] && this.grid[ny][nx] === type && !seen.has(key(ny, nx))) { seen.add(key(ny, nx)); todo.push([ny, nx]); }
      }
    }
    return [...seen];
  }

  // the cells to highlight for the selected one: those that earned its points
  causes() {
    if (!this.selected) return new Set();
    const [r, c] = this.selected, { group, cause } = this.labels();
    const k = key(r, c);
    if (cause[k]) return new Set(cause[k].because_of.map((x) => key(...x)));
    if (group[k]) return new Set(group[k].cells.map((x) => key(...x)));
    // A stream apart from the one scored (smaller, or its twin): its own cards lit, the stream its
    // explanation speaks of (none was: a walk).
    if (this.grid[r][c] === "stream") {
      const own = this.connected(r, c);
      if (own.length > 1) return new Set(own);
    }
    return new Set();
  }

  render() {
    const naming = this.naming();
    const { labels, group } = naming ? { labels: {}, group: {} } : this.labels();  // no points while cells are still to name
    const causes = this.causes();
    const sel = this.selected ? key(...this.selected) : null;
    const pending = this.doubtfulCells().length;
    if (!pending) this.onSettled();
    const title = this.q(".tableau-title");
    title.hidden = !this.title;
    // A tableau without its own title (the one-photo page) sits under the page's h2, the total:
    // its sections are h3 there, not h4 after no h3 (an audit: heading-order); h2 while its cards
    // are named, the total not shown.
    if (!this.title) this.root.querySelectorAll("h4").forEach((h) => h.setAttribute("aria-level", naming ? "2" : "3"));
    if (this.title) title.textContent = this.title(this.player, pending);
    // the doubtful cells and what the reader said about the tableau
    const done = new Set([...this.corrected, ...this.checked]);
    // Checked whole: what the check left (``unsettled``) is still to check, and said so.
    const doubts = this.gridChecked ? this.unsettled() : this.read.doubts.filter((d) => !cellDoubtChecked(d, done) && !emptyCellsChecked(d, done));
    // Each a sentence, as the rest of the page writes them (a walk: lower case, no full stop).
    // The cards left out beside the grid: where they are, said with their doubt (outlined on the photo).
    // A deck's counts of several types in one (``deckIssuesSaid``), as the room's pad says them.
    const outlined = this.q(".photo").hidden ? 0 : this.leftOut().length;
    const issues = [...doubts.map((d) => `${escapeHtml(sentence(translated(d)))}${
      outlined && offGrid(d) ? ` <span class="where">${escapeHtml(t("ui.left_out_shown", { n: outlined }))}</span>` : ""}`),
    ...deckIssuesSaid(this.player.deck_issues || []).map((d) => escapeHtml(sentence(d)))];
    this.q(".doubts").innerHTML = issues.map((item) => `<li>${item}</li>`).join("");
    this.q(".doubts-title").hidden = !issues.length;
    // A grid its player checked at the table: what that settled, said once, calmly (not as doubts).
    const settled = this.q(".settled");
    settled.hidden = !this.gridChecked;
    // (The one-photo page's is said with no player's name: it calls its player "This photo".)
    if (this.gridChecked) setText(settled, settledText(this.onChecked ? null : this.player.name, this.settledDoubts()));
    const offer = this.editable && this.checkable && this.checkWanted();
    this.q(".grid-right").hidden = !offer;
    this.q(".grid-right-hint").hidden = !offer;
    this.q(".check-whole").hidden = !offer;
    // The walk takes a deck's guesses too: each was to find and tap on its own (a walk).
    const walk = pending + this.guessedCells().length;
    const review = this.q(".review");
    review.hidden = !this.editable || !walk;
    // A photo being named: its cells are named (or checked), not reviewed; the grid's hint says so.
    review.textContent = t(naming ? "ui.review_naming" : "ui.review", { n: walk });
    // A photo laid out to name stays the cards the player names once every one has a name (it
    // became "The cards as read": nothing had been read, a Russian walk).
    const laid = this.laidOut();
    // Corrected, the grid is no longer the cards "as read" alone (a walk, in Italian).
    // (The player's own: another player's tableau, shown read-only, is not "your corrections".)
    const mine = this.editable && this.corrected.size;
    this.q(".grid-title").textContent = t(laid ? "ui.grid_title_naming" : mine ? "ui.grid_title_corrected" : "ui.grid_title");
    this.q(".grid-hint").textContent = t(naming ? "ui.grid_hint_naming" : "ui.grid_hint");
    this.q(".photo-hint").textContent = t(naming ? "ui.photo_hint_naming" : "ui.photo_hint");
    this.q(".revert").textContent = t(laid ? "ui.revert_naming" : "ui.revert");
    if (this.unsure) {  // the headline total is never shown as final while a card is in doubt (or a guess)
      const unsure = pending + this.guessedCells().length, read = this.readDoubts().length > 0;
      this.unsure.hidden = !unsure && !read;
      this.unsure.textContent = naming ? t("ui.naming_left", { n: this.toName() })
        : [unsure ? t("ui.total_unsure", { n: unsure }) : "", read ? t(unsure ? "ui.read_unsure_too" : "ui.read_unsure") : ""].filter(Boolean).join(" ");
    }
    this.q(".undo").disabled = !this.history.length;
    // "Back to what was read" while there is something to go back from: a card changed or kept, or
    // the grid said right. Once back, it stayed enabled, with nothing left to take back (a walk).
    this.q(".revert").disabled = sameGrid(this.grid, this.read.grid) && !this.corrected.size && !this.checked.size && !this.gridChecked;
    // the grid of buttons
    const grid = this.q(".grid");
    // The cell a keyboard was on keeps the focus when the grid is drawn again (a room's poll, a
    // selection): it fell back to the top of the page (a walk, keyboard only).
    const focused = grid.contains(document.activeElement) ? [+document.activeElement.dataset.row, +document.activeElement.dataset.col] : null;
    if (this.cursor[0] >= this.grid.length || this.cursor[1] >= this.grid[0].length) this.cursor = [0, 0];
    grid.innerHTML = "";
    this.grid.forEach((row, r) => row.forEach((type, c) => {
      const b = document.createElement("button");
      b.type = "button";
      b.dataset.row = r; b.dataset.col = c; b.dataset.type = type || "";
      const k = key(r, c), d = this.doubtsOf(r, c), guess = this.guessAt(r, c);
      // A card the player changed is marked as on the photo (it looked like every other: an Italian walk).
      b.className = [type ? "" : "empty", d.length ? "doubt" : "", guess ? "guess" : "", this.unnamed(r, c) ? "unnamed" : "",
        this.corrected.has(k) && !this.laidOut() ? "corrected" : "", k === sel ? "selected" : "", causes.has(k) ? "cause" : ""]
        .join(" ").replace(/\s+/g, " ").trim();
      // A group's points are shown on its first card: the others are said to be in it (a screen
      // reader said "wolf, 0 points" of a card in a 12-point group: a walk).
      // (Every card of a group alike: its first said the group's points as its own.) While the
      // photo's cards are still to name there are no points yet, not 0 of them.
      // A card alone is no group to be part of ("meadow, in a group worth 0 points": a walk, in Italian).
      // The group's first card shows its points: said first, as shown ("deer 8" was named "deer, in
      // a group worth 8 points": an audit, label-content-name-mismatch).
      const shows = group[k] && key(...group[k].cells[0]) === k && labels[k] === group[k].points;
      const points = naming ? t("ui.no_points_yet")
        : group[k] && group[k].cells.length > 1 ? t(shows ? "ui.group_first" : "ui.group_part", { points: pts(group[k].points) })
          : labels[k] !== undefined ? pts(labels[k]) : "";
      const name = this.cellName(r, c), spoken = this.cellName(r, c, true);
      b.innerHTML = `<span>${escapeHtml(name)}</span> <small>${minus(labels[k]) ?? ""}</small>`;
      // A doubt whose own words say it is one ("low confidence: ...") is said without "doubtful:"
      // before it: "incerta: lettura incerta: ape 61%" said it twice (an Italian walk).
      b.setAttribute("aria-label", d.length
        ? t(saysItsDoubt(d[0]) ? "ui.cell_label_own_doubt" : "ui.cell_label_doubt",
          { row: r + 1, col: c + 1, card: spoken, points: points || pts(0), doubt: d.map(ownDoubt).join("; ") })
        : t("ui.cell_label", { row: r + 1, col: c + 1, card: spoken, points: points || pts(0) }));
      b.setAttribute("aria-pressed", k === sel ? "true" : "false");
      b.tabIndex = r === this.cursor[0] && c === this.cursor[1] ? 0 : -1;
      b.addEventListener("click", (event) => {
        // A card to name: its picker at once, as a tap on the photo opens it (it took two taps).
        if (this.editable && (this.unnamed(r, c) || this.guessAt(r, c))) { this.pickAndCorrect(r, c); return; }
        this.select(r, c, true);
        // By keyboard (a click of no pointer: detail 0), on to "Change this card", which came
        // after all 20 cells in the tab order.
        const change = this.q(".change");
        if (event.detail === 0 && this.selected && change.offsetParent) change.focus(); else this.focusCell(r, c);
      });
      grid.appendChild(b);
    }));
    if (focused) this.focusCell(...focused);
    fitNames(grid);
    this.renderMarks(labels, causes, sel);
    this.renderExplain();
    this.q(".details details").hidden = naming;  // "why every point": no points yet
  }

  // What a cell is called on the photo and the grid: its card, a guess marked "?", "to name", or
  // "unknown" where the reader could not tell (outside the photo, or a card of none of the deck's
  // types): shown as "empty" it read as a sure empty cell (a newcomer's walk, a cut-off neighbour).
  // ``spoken``: as a screen reader says it, a guess in words (a bare "?" was read out as nothing).
  cellName(r, c, spoken = false) {
    if (this.unnamed(r, c)) return t("ui.to_name");
    if (this.unknownAt(r, c)) return t("ui.unknown_cell");
    const card = I18N.card(this.grid[r][c]);
    if (!this.guessAt(r, c)) return card;
    return spoken ? t("ui.card_guess", { card }) : card + "?";
  }

  unknownAt(r, c) {
    const cell = this.untouchedCell(r, c);
    // A photo laid out to name gives a cell out of view no doubt and no card (/api/layout: nothing
    // to name or check there): unread, as a read says of it, not a sure "empty" (an Italian walk).
    const outOfView = !!cell && this.laidOut() && !cell.card && !cell.guess && !(cell.doubts || []).length;
    return !!(cell && (cell.unknown || outOfView) && !this.grid[r][c]);
  }

  // The part of the photo shown: the tableau and a margin round it, where it fills little of the
  // photo. A whole game's photo showed each tableau's 20 cells 12 px wide at 360 px, their labels
  // unreadable and too small to tap (a walk); a neighbour's cards at the margin say which it is.
  framed() {
    const [w, h] = this.read.size;
    const points = [...this.read.cells.flat().map((cell) => cell.quad), ...this.leftOut()].flat();
    const [x0, y0, x1, y1] = boxAround(points, FRAME_MARGIN, w, h);
    if ((x1 - x0) * (y1 - y0) > FRAME_FILL * w * h && x1 - x0 > FRAME_ACROSS * w) return [0, 0, w, h];
    return [x0, y0, x1 - x0, y1 - y0];
  }

  // The photo cut to the part shown (``framed``; null: the whole photo), as the marks' viewBox is:
  // the box takes that part's shape, the image is drawn larger and moved under it.
  frameImage(part) {
    const box = this.q(".photo-box"), img = this.q(".photo-img");
    const [w, h] = this.read.size || [0, 0], [x0, y0, cw, ch] = part || [0, 0, w, h];
    const zoomed = cw < w || ch < h;
    box.classList.toggle("zoomed", zoomed);
    box.style.aspectRatio = zoomed ? `${cw} / ${ch}` : "";
    box.style.setProperty("--frame-ratio", zoomed ? String(cw / ch) : "");
    Object.assign(img.style, zoomed
      ? { width: `${(100 * w) / cw}%`, height: `${(100 * h) / ch}%`, left: `${(-100 * x0) / cw}%`, top: `${(-100 * y0) / ch}%` }
      : { width: "", height: "", left: "", top: "" });
    this.showWhere(zoomed);
  }

  // Cut to its tableau, the photo no longer says which of its tableaux this is (margins of bare
  // table, "Tableau 2 of 4" in no order the photo shows: a walk): the whole photo, small, the
  // tableau outlined on it by its corner cells' outer corners.
  showWhere(shown) {
    const where = this.q(".where");
    where.hidden = !shown || !this.read.photo;
    if (where.hidden) return;
    const [w, h] = this.read.size, cells = this.read.cells, svg = this.q(".overview");
    const corner = (r, c, k) => cells[r][c].quad[k];
    const last = cells.length - 1, end = cells[0].length - 1;
    svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
    const image = svg.querySelector("image");
    if (image.getAttribute("href") !== this.read.photo) image.setAttribute("href", this.read.photo);
    image.setAttribute("width", w); image.setAttribute("height", h);
    svg.querySelector("polygon").setAttribute("points",
      [corner(0, 0, 0), corner(0, end, 1), corner(last, end, 2), corner(last, 0, 3)].map((p) => p.join(",")).join(" "));
  }

  // Each card's label on the photo: {label, size (in the photo's px), named (its label in full)} by
  // cell key. ``scale``: the CSS px a photo px is shown at (0: not known, the labels as they fit).
  photoLabels(labels, scale) {
    const cards = [];
    const wide = (text) => (measurer.measureText(text).width / 100) * LABEL_MIN_PX;  // CSS px at the least size
    this.read.cells.forEach((row, r) => row.forEach((cell, c) => {
      const k = key(r, c), cy = cell.quad.reduce((s, p) => s + p[1], 0) / 4;
      // The room a level label has: the card's width along the line across its middle (a card seen
      // turned is wider there than its own width: labels on a whole game's turned tableaux were
      // 5 px at 360 px, a walk), and across the line's height, where a turned card narrows ("zajíc 1"
      // ran into its neighbour there: a walk).
      const width = across(cell.quad, cy);
      const points = labels[k] !== undefined ? minus(labels[k]) : "";
      const name = this.cellName(r, c), named = `${name}${points !== "" ? " " + points : ""}`;
      // A long label kept within its cell (a bold glyph is ~0.6 of the font size wide): "da nominare"
      // at a sixth of the cell ran into its neighbours' at 390 px (a walk, in Italian).
      const usual = (text, room) => Math.max(10, Math.min(width * 0.17, (room * 0.85) / (0.6 * text.length)));
      const band = 0.4 * (scale ? Math.max(usual(named, width), LABEL_MIN_PX / scale) : usual(named, width));
      const inner = Math.min(width, across(cell.quad, cy - band), across(cell.quad, cy + band));
      // Drawn at least LABEL_MIN_PX high on the screen: the labels were 4-7 CSS px on a 320 px phone
      // (an audit). ``small``: its name and points do not fit the card at that size.
      const plain = usual(named, inner), small = !!scale && plain * scale < LABEL_MIN_PX && wide(named) > 0.85 * inner * scale;
      cards.push({ k, name, named, points, width, inner, plain, small, doubt: !!this.doubtsOf(r, c).length });
    }));
    // A name too long for one of its cards is said in one form on the whole photo (its points after it
    // where they fit): the name alone, else its first letters ("medv.": two letters saved at least, "?"
    // kept after a guess), the form its narrowest card takes ("rusce." beside "ruscel.", and "pot."
    // beside "potok", read as other words: walks). A card too narrow for three letters draws none
    // ("?" on a card in doubt), and does not blank its type's other cards (it did: a walk).
    // "To name" is no card's name: cut, it read as a broken word ("назва.": a walk, in Russian); a "?" instead.
    const forms = new Map(), toName = t("ui.to_name");
    for (const { name, inner, small } of cards) {
      if (!small) continue;
      const guess = name.endsWith("?") ? "?" : "", bare = guess ? name.slice(0, -1) : name;
      const cuts = name === toName ? ["?"]
        : [...Array(Math.max(0, bare.length - 4)).keys()].map((i) => `${bare.slice(0, bare.length - 2 - i).trimEnd()}.${guess}`);
      const form = [name, ...cuts].find((text) => wide(text) <= 0.85 * inner * scale) ?? "";
      const kept = forms.get(name);
      if (form && (kept === undefined || form.length < kept.length)) forms.set(name, form);
    }
    const drawn = new Map();
    for (const { k, name, named, points, width, inner, plain, doubt } of cards) {
      const form = forms.get(name) ?? name;
      const room = 0.85 * inner * scale;
      const fits = (text) => !scale || wide(text) <= room;
      const full = form === name ? named : points !== "" && fits(`${form} ${points}`) ? `${form} ${points}` : form;
      const label = fits(full) ? full : fits(form) ? form : doubt ? "?" : "";
      // (as large as the usual rule allows, and never past the card: 100 px of font measure the label
      // measurer.measureText(label).width wide)
      const size = !scale ? plain : label ? Math.max(LABEL_MIN_PX / scale, Math.min(width * 0.17, (85 * inner) / measurer.measureText(label).width))
        : LABEL_MIN_PX / scale;
      drawn.set(k, { label, size, named });
    }
    return drawn;
  }

  renderMarks(labels, causes, sel) {
    const svg = this.q(".marks");
    svg.innerHTML = "";
    if (!this.read.cells || !this.read.size) { svg.hidden = true; this.frameImage(null); return; }
    svg.hidden = false;
    const [w, h] = this.read.size;
    const [x0, y0, cw, ch] = this.framed();
    svg.setAttribute("viewBox", `${x0} ${y0} ${cw} ${ch}`);
    this.frameImage([x0, y0, cw, ch]);
    // CSS px a photo px is drawn at (0: not laid out yet, drawn again once it is).
    const shownWidth = svg.getBoundingClientRect().width, scale = shownWidth / cw;
    this.marksDrawn = { labels, causes, sel, width: shownWidth };
    svg.setAttribute("aria-label", t("ui.photo_alt"));
    this.q(".photo-img").alt = t("ui.photo_alt");
    // Labels measured as drawn (style.css: bold, the page's font), whether the photo is in view yet or not.
    measurer.font = `700 100px ${getComputedStyle(svg).fontFamily}`;
    const within = (v, lo, hi) => Math.min(Math.max(v, lo), Math.max(lo, hi));  // a label kept on the photo
    const drawn = this.photoLabels(labels, scale);
    this.read.cells.forEach((row, r) => row.forEach((cell, c) => {
      const k = key(r, c), type = this.grid[r][c];
      const g = document.createElementNS(SVG, "g");
      const cls = ["cell", type ? "" : "empty", this.doubtsOf(r, c).length ? "doubt" : "", this.guessAt(r, c) ? "guess" : "",
        this.corrected.has(k) ? "corrected" : "", k === sel ? "selected" : "", causes.has(k) ? "cause" : ""];
      g.setAttribute("class", cls.join(" ").replace(/\s+/g, " ").trim());
      g.dataset.row = r; g.dataset.col = c;
      const poly = document.createElementNS(SVG, "polygon");
      poly.setAttribute("points", cell.quad.map((p) => p.join(",")).join(" "));
      g.appendChild(poly);
      const cx = cell.quad.reduce((s, p) => s + p[0], 0) / 4, cy = cell.quad.reduce((s, p) => s + p[1], 0) / 4;
      const text = document.createElementNS(SVG, "text");
      // The labels are for the eye: a screen reader read them as "prá. váž. pot. lou. 0" (an
      // audit); the grid below names each card in full.
      text.setAttribute("aria-hidden", "true");
      const { label, size, named } = drawn.get(k);
      g.dataset.label = named;  // (what the label says in full)
      const stroke = Math.max(2, size * 0.3);
      text.setAttribute("font-size", size);
      text.setAttribute("stroke-width", stroke);
      // About its cell's middle, but whole on the photo: a card at its edge (cut by the frame) had
      // half its label drawn off it, clipped (a walk). Its stroke counted too; above and below the
      // middle, a bold line's ascent and descent.
      const half = (measurer.measureText(label).width / 100) * size / 2 + stroke / 2;
      const x = within(cx, half, w - half), y = within(cy, 0.75 * size + stroke / 2, h - 0.6 * size - stroke / 2);
      text.setAttribute("x", x);
      text.setAttribute("y", y);
      // Kept on the photo only while it stays on its own card: a cell off the photo had its label
      // pushed onto its neighbour's ("volpe 6vuota": a fox worth 6, a walk); it is read in the grid.
      text.textContent = insideQuad(cell.quad, x, y) ? label : "";
      g.appendChild(text);
      g.addEventListener("click", () => (this.editable ? this.pickAndCorrect(r, c) : this.select(r, c, true)));
      svg.appendChild(g);
    }));
    // The cards left out beside the grid, while that doubt stands: dashed, in the doubt's colour,
    // marked "?", over the cells; no card of the grid, so nothing to tap (style.css).
    for (const quad of this.leftOut()) {
      const g = document.createElementNS(SVG, "g");
      g.setAttribute("class", "left-out");
      g.setAttribute("role", "img");
      g.setAttribute("aria-label", t("ui.left_out_mark"));
      const poly = document.createElementNS(SVG, "polygon");
      poly.setAttribute("points", quad.map((p) => p.join(",")).join(" "));
      const width = Math.hypot(quad[1][0] - quad[0][0], quad[1][1] - quad[0][1]);
      const dash = Math.max(4, width * 0.08);  // in the photo's pixels: dashes as long on a big photo as on a small one
      poly.setAttribute("stroke-dasharray", `${dash} ${dash * 0.6}`);
      g.appendChild(poly);
      const size = Math.max(12, width * 0.3), stroke = Math.max(2, size * 0.2);
      const cx = quad.reduce((s, p) => s + p[0], 0) / 4, cy = quad.reduce((s, p) => s + p[1], 0) / 4;
      const text = document.createElementNS(SVG, "text");
      text.setAttribute("aria-hidden", "true");
      text.setAttribute("font-size", size);
      text.setAttribute("stroke-width", stroke);
      text.setAttribute("x", within(cx, size / 2, w - size / 2));
      text.setAttribute("y", within(cy, 0.75 * size + stroke / 2, h - 0.6 * size - stroke / 2));
      text.textContent = "?";
      g.appendChild(text);
      svg.appendChild(g);
    }
  }

  // A view taken off the page: its photo no longer watched for a width to redraw at.
  close() { if (this.resizing) this.resizing.disconnect(); }

  // ``shown``: tapped (on the photo or the grid), its explanation (under the grid) brought into view:
  // on a 320 px phone it lay a screen below the photo, or just below the grid, and the tap seemed to
  // do nothing (walks).
  select(r, c, shown = false) {
    const same = this.selected && this.selected[0] === r && this.selected[1] === c;
    // A double tap opened a card's explanation and closed it at once: nothing seemed to happen
    // (a walk). A second tap on the same card closes it only once the first has been seen.
    if (same && performance.now() - this.selectedAt < PICK_GUARD_MS) return;
    this.selected = same ? null : [r, c];
    this.selectedAt = performance.now();
    this.render();
    const box = this.q(".card-explain");
    if (shown && this.selected && !box.hidden) box.scrollIntoView({ block: "nearest" });
  }

  renderExplain() {
    const box = this.q(".card-explain");
    const all = this.q(".explain");
    const { cause, group } = this.labels();
    all.innerHTML = [...this.player.explanation.cards.map((c) => this.cardText(c.cell[0], c.cell[1], cause, group)),
      ...this.player.explanation.groups.map((g) => this.cardText(g.cells[0][0], g.cells[0][1], cause, group))]
      .map((s) => `<li>${escapeHtml(s)}</li>`).join("") + (this.player.biodiversity !== undefined ? `<li>${escapeHtml(bioText(this.player))}</li>` : "");
    box.hidden = !this.selected;
    if (!this.selected) return;
    const [r, c] = this.selected;
    setText(this.q(".card-explain-text"), this.cardText(r, c, cause, group, true));
  }

  cardText(r, c, cause, group, withCause = false) {
    const k = key(r, c), type = this.grid[r][c];
    // A cell the reader could not tell (outside the photo, a card of none of the deck's types) is
    // not said to be empty: it is counted so (a walk: "unknown" on the photo, "is empty" here).
    // A card found and not named yet (a deck being taught) is no empty cell (a walk: "is empty").
    const unread = this.unnamed(r, c) ? "ui.explain_unnamed" : this.unknownAt(r, c) ? "ui.explain_unknown" : "ui.explain_empty";
    // A bare place of a photo being named: what its doubt says (no card found: one to name if it lies there).
    const bare = !type && this.laidOut() && !this.unnamed(r, c) ? this.doubtsOf(r, c) : [];
    if (bare.length) return sentence(translated(bare[0]));
    if (!type) return t(unread, { row: r + 1, col: c + 1 });
    const cp = cause[k];
    if (cp || !GROUP_TYPES.has(type)) {
      const points = cp ? cp.points : 0;
      const n = cp ? cp.because_of.length : 0;
      return t("ui.explain_card", { card: I18N.card(type), row: r + 1, col: c + 1, points: pts(points), rule: t(`rule.${type}`) })
        // the highlighted cards earned its points, or (none earned) are what keeps it from scoring
        + (withCause && n ? " " + t(points ? "ui.explain_cause" : "ui.explain_cause_none", { n }) : "");
    }
    const g = group[k];
    const m = this.player.majorities || {};
    let text;
    // A stream apart from the scorer's one stream group, the one placed: smaller than it, or as large
    // and said to be its twin (a rules check: the largest stream's place was said on any stream card).
    const apart = type === "stream" && !g ? this.connected(r, c).length : null;
    if (type === "meadow") text = t("group.meadow", { n: g ? g.cells.length : 1, points: pts(g ? g.points : 0) });
    else if (type === "deer") text = t("group.deer", { points: pts(g ? g.points : 0) });
    else if (apart !== null && apart < ((m.stream || {}).value ?? 0)) text = t("group.stream_smaller", { n: apart });
    // As large as the largest, and not the one scored (the scorer's one stream group): it said "the
    // largest stream, 2 cards: 1st place, 8 points", its partner not lit, as if both scored (a walk).
    else if (apart !== null && apart === ((m.stream || {}).value ?? 0) && apart > 0) text = t("group.stream_tied", { n: apart });
    else {
      const maj = m[type] || {};
      const said = { n: maj.value ?? (g ? g.cells.length : 0), points: pts(maj.points ?? (g ? g.points : 0)) };
      // (No place: a read not scored as a game yet; "place no place" was said.)
      text = maj.place ? t(`group.${type}`, { ...said, place: placeText(maj.place) }) : t(`group.${type}_unplaced`, said);
      const note = this.majorityNote(type);
      if (note) text += " " + note;
    }
    // "score together" only where there is a group: a lone meadow has no other card lit
    return t(g && g.cells.length > 1 ? "ui.explain_group" : "ui.explain_alone", { card: I18N.card(type), row: r + 1, col: c + 1, text });
  }

  // ``scroll``: brought into view (a focus moved from far off: Undo's disabled button).
  focusCell(r, c, scroll = false) {
    const b = this.q(`.grid button[data-row="${r}"][data-col="${c}"]`);
    if (b) b.focus({ preventScroll: !scroll });
  }

  // The cell the Tab key comes back to: the one last focused.
  rove(r, c) {
    this.cursor = [r, c];
    this.q(".grid").querySelectorAll("button").forEach((b) => { b.tabIndex = +b.dataset.row === r && +b.dataset.col === c ? 0 : -1; });
  }

  // ---- correcting ----
  async pickAndCorrect(r, c, review = null) {
    const loads = this.loads;
    const choice = await pick(this, r, c, review);
    if (choice === undefined || loads !== this.loads) return undefined;  // (closed: the dialog gives the focus back)
    if (choice === "keep") this.keep(r, c); else await this.correct(r, c, choice);
    // Back on the cell just named (the picker's close left the focus at the top of the page, its
    // opener redrawn meanwhile: a walk, keyboard only); a review's next card takes it on.
    if (!review) this.focusCell(r, c);
    return choice;
  }

  async correct(r, c, type) {
    if (this.grid[r][c] === type) { this.keep(r, c); return; }
    this.saveUndo({ correctedCell: [r, c] });
    this.grid[r][c] = type;
    // Set back to the card read, from the picker's "(as read)": no longer a correction (the grid
    // said "with your corrections (blue)" over the grid as read, the cell blue: a walk), and kept
    // as read, as "Keep" keeps it: a doubt of it is settled by that choice. (Whether it had one
    // is the room's to say: its cells come back with a corrected cell's doubts dropped; it keeps
    // only cells it had doubts of.)
    const k = key(r, c);
    if (!this.laidOut() && type === this.read.grid[r][c]) {
      this.corrected.delete(k);
      this.checked.add(k);
    } else this.corrected.add(k);
    await this.commit();
  }

  // What Undo goes back to: the grid and which cells were corrected or kept, before an action.
  // (A new step: what Undo or Revert said beside them is done with.) ``step``: what the action
  // was, where Undo names it (``undoneText``).
  saveUndo(step = {}) {
    setStatus(this.q(".tool-status"), "");
    this.history.push({ ...this.state(), ...step });
  }

  keep(r, c) {
    if (this.checked.has(key(r, c))) return;
    // an action of its own: Undo takes back the last one only (it took back the cards reviewed
    // since the last correction too: a player's walk-through)
    this.saveUndo({ kept: [r, c] });
    this.checked.add(key(r, c));
    this.render();
    if (this.onKept) this.onKept(r, c);
  }

  async undo() {
    const last = this.history.pop();
    if (!last) return;
    const before = this.state();
    this.restore(last);
    // (it said "Score updated with your correction": a walk). Not saved: the step is undone
    // again, not a second one taken back (a review).
    // Said beside Undo, where the player is: the page's status line is at its top, off a phone's
    // screen by then (a walk at 360 × 740). What it took back is named (``undoneText``).
    await this.commit(() => undoneText(last), { state: before, history: [...this.history, last] }, this.q(".tool-status"));
  }

  // What a change just made (its step the last in the history) goes back to, if it cannot be scored.
  stepBack() {
    const n = this.history.length;
    return n ? { state: this.history[n - 1], history: this.history.slice(0, n - 1) } : null;
  }

  state() {
    return { grid: this.grid.map((row) => row.slice()), corrected: new Set(this.corrected), checked: new Set(this.checked), gridChecked: this.gridChecked };
  }
  restore(state) { this.grid = state.grid; this.corrected = state.corrected; this.checked = state.checked; this.gridChecked = !!state.gridChecked; }

  // A photo laid out to name was read as nothing: going back clears the names given (it said "back
  // to the grid as it was read", a Russian walk: nothing had been read).
  async revert() {
    const naming = this.laidOut();
    this.saveUndo({ undoes: naming ? "revert_naming" : "revert" });
    this.grid = this.read.grid.map((row) => row.slice());
    this.corrected = new Set(); this.checked = new Set(); this.gridChecked = false;
    await this.commit(() => t(naming ? "ui.reverted_naming" : "ui.reverted"), undefined, this.q(".tool-status"));
  }

  // "The grid is right": the player compared every card with the table. Sent as a correction is
  // (the room's answer says what it settled); Undo takes it back as it takes back a card kept.
  // The one-photo page has no room to send it to: settled there, as a card kept is (the grid
  // unchanged, no score to ask for), and said beside the button.
  async checkWhole() {
    if (this.gridChecked || !this.checkable) return;
    const button = this.q(".grid-right");
    this.saveUndo({ undoes: "checked" });
    this.gridChecked = true;
    let saved = null;
    if (this.onChecked) {
      this.render();
      setStatus(this.q(".tool-status"), () => t("ui.grid_checked"));
      this.onChecked();
    } else saved = this.commit(() => t("ui.grid_checked_saved"), undefined, this.q(".tool-status"));
    // The button pressed is gone: the focus on to Undo, beside it (it fell to the page's top).
    if (document.activeElement === button || document.activeElement === document.body) this.q(".undo").focus({ preventScroll: true });
    await saved;
  }

  // ``prior``: the view before this change ({state, history}, and ``player``, its score, once an
  // answer overtaken by this change has brought it), put back if it cannot be saved; null:
  // nothing to go back to (a restored grid scored again). ``near``: where the change's word (or
  // its failure) is said, if not on the page's status line (Undo's and Revert's, beside them).
  async commit(message, prior = this.stepBack(), near = null) {
    const mine = ++this.seq;
    // Changes not yet scored: the last of them failing takes them all back, to the view whose
    // score is shown. Two quick corrections offline took back only the second; the first stayed,
    // named, beside the old points (and an Undo or a keep between them fared no better: a review).
    this.unscored.push({ seq: mine, prior });
    // Undo's (or Back's) last step disables the button pressed: the focus fell to the page's
    // top (a walk, keyboard only). On to the grid instead.
    const pressed = document.activeElement;
    this.render();
    // In view: a focus ring off the screen showed a keyboard player nothing (a walk).
    if (pressed && pressed.disabled && this.root.contains(pressed)) this.focusCell(...this.cursor, true);
    // A change that fails is said beside the tableau, whatever it was (a correction's failure was
    // said on the page's status line, off the screen of a phone at the tableau: an Italian walk).
    const player = await this.onChange(this.grid.map((row) => row.slice()), message, near, this.q(".tool-status"));
    const back = this.unscored.find((u) => u.prior)?.prior;  // the view whose score is shown (or came back: ``player``)
    if (player === UNSAVED && mine === this.seq) {
      this.unscored = [];
      this.unsaved(() => {
        if (!back) return;
        this.restore(back.state); this.history = back.history;
        if (back.player) this.player = back.player;
      });
    } else if (player === RESET) {
      // The view shows the room's tableau already: the steps' history goes back, its state stays.
      this.unscored = [];
      this.unsaved(() => { if (back) this.history = back.history; });
    } else if (player !== UNSAVED && (player !== null || mine === this.seq)) {
      // Scored (its grid holds the earlier changes too), or the latest answered: those before it
      // are done with. A superseded answer the view did not show (null) leaves them.
      this.unscored = this.unscored.filter((u) => u.seq > mine);
      if (player && mine === this.seq) { this.player = player; this.render(); }
      // Scored after the next change was made: not shown, but the view the next one goes back to
      // if it fails, with this score (it went back to before this change, its score thrown away:
      // a review).
      const next = player && mine !== this.seq && this.unscored.find((u) => u.prior);
      if (next && sameGrid(next.prior.state.grid, player.grid)) next.prior = { ...next.prior, player };
    }
  }

  // The last change could not be saved or scored (offline, a refusal): taken back, and a review
  // under way stops there (it went on, "all doubtful cards checked" over the error, and the card
  // showed the new name with the old card's points: a walk, offline).
  unsaved(takeBack) {
    if (takeBack) takeBack();
    this.failed = true;
    this.render();
    if (this.onTakenBack) this.onTakenBack();
  }

  // "Review the 3 doubtful cards": one at a time, in reading order.
  async review() {
    const cells = [...this.doubtfulCells(), ...this.guessedCells()].sort(([a, b], [c, d]) => a - c || b - d), loads = this.loads;
    const naming = this.naming();
    this.failed = false;
    for (let k = 0; k < cells.length; k++) {
      // Another tableau (or photo) shown while a choice was scored: the walk was of the one left.
      if (loads !== this.loads) return;
      const choice = await this.pickAndCorrect(cells[k][0], cells[k][1], { k: k + 1, n: cells.length });
      if (choice === undefined || this.failed) return;
    }
    // Naming a photo's cards, nothing was doubtful: "all doubtful cards checked" said otherwise (a walk).
    // The photo's own doubts still standing (the total still "?"): said what is left (a walk:
    // "All doubtful cards checked" beside "46?", a glare's note left).
    const left = !naming && this.editable && this.checkable && this.checkWanted();
    // Places not read (outside the photo, no card found there) are in no walk: said, not "All cards
    // named" beside two cells reading "unknown" (a walk, in Russian: a bear the frame cut).
    const unread = naming ? this.grid.flatMap((row, r) => row.map((_, c) => this.unknownAt(r, c))).filter(Boolean).length : 0;
    const done = naming ? (unread ? "ui.naming_done_unread" : "ui.naming_done") : left ? "ui.review_done_photo" : "ui.review_done";
    this.onChange(null, Object.assign(() => t(done, { n: unread }), { mark: "review_done" }));
    // The Review button is gone: on the last card checked, in view (a keyboard walk's focus lay
    // off the screen).
    if (cells.length) this.focusCell(...cells[cells.length - 1], true);
  }
}

// Each card name's longest word, in ems of its own font: style.css shrinks a name whose word would
// not fit its cell (a 320 px phone: "медвед|ь", "libellul|a") rather than break it inside.
const measurer = document.createElement("canvas").getContext("2d");
function fitNames(grid) {
  const spans = grid.querySelectorAll("button span");
  if (!spans.length) return;
  // One font for every name (read once: each style set below would make the next read recompute styles)
  const style = getComputedStyle(spans[0]);
  measurer.font = `${style.fontStyle} ${style.fontWeight} 100px ${style.fontFamily}`;
  for (const span of spans) {
    const ems = Math.max(...span.textContent.split(/\s+/).map((word) => measurer.measureText(word).width / 100));
    span.style.setProperty("--word-ems", ems.toFixed(3));
  }
}

// A tableau's doubt of one cell ("row 2, col 3: low confidence ...", api.cell_at) once the
// player has checked (kept or corrected) that cell. Known by the message's template, as the
// page translates it, not by its English words (a review).
function cellDoubtChecked(doubt, done) {
  const found = I18N.match(doubt);
  return !!found && found.key === "api.cell_at" && done.has(`${found.params.row - 1},${found.params.col - 1}`);
}

// What Undo says it took back: the step by its name, a card by its place ("Last change undone."
// said of every step but a keep, of a "The grid is right" too, left the player to guess which).
function undoneText(step) {
  const at = (rc) => ({ row: rc[0] + 1, col: rc[1] + 1 });
  if (step.kept) return t("ui.undone_keep", at(step.kept));
  if (step.correctedCell) return t("ui.undone_correction", at(step.correctedCell));
  if (step.undoes === "checked") return t("ui.undone_checked");
  if (step.undoes === "revert") return t("ui.undone_revert");
  if (step.undoes === "revert_naming") return t("ui.undone_revert_naming");
  return t("ui.undone");
}

// What a player's check of the whole grid at the table settled (the doubts of the photo and the
// grid, each a sentence), or that it was made, if nothing but cards was in doubt. ``name`` null:
// the one-photo page's, whose player has no name there ("This photo's grid checked" read wrong).
// Said as a confirmation, the doubts set aside listed in its parentheses, lower case, "; " between
// them ("…сверена со столом: На этом фото…" read as two sentences: a Russian walk). How to retake
// the photo is left out: once the grid is checked it is moot, and the room's line told every
// phone to "move closer" (an Italian walk: "Griglia di Chiara verificata al tavolo: … avvicinati").
const notAdvice = (doubts) => (doubts || []).filter((d) => !isAdvice(d));
// A doubt as settled: "this photo holds 3 tableaux: the one with the most cards was taken as yours
// (photograph yours alone to be sure)" said on every phone that Bob's grid was checked read as the
// viewer's own, its advice moot and in parentheses inside the note's (a game night's walk).
function settledDoubt(doubt) {
  const found = I18N.match(doubt);
  return found && found.key === "api.multi_in_room" ? t("ui.settled_several", { n: Number(found.params.n) }) : translated(doubt);
}
function settledText(name, settled) {
  const kept = notAdvice(settled);
  const doubts = kept.map((d) => settledDoubt(d).replace(/[.]$/, "")).join("; ");
  if (name == null) return kept.length ? t("ui.settled_here", { doubts }) : t("ui.checked_here");
  return kept.length ? t("ui.settled_by", { name, doubts }) : t("ui.checked_by", { name });
}

// A cell's doubt as said of that cell: without its "row 1, col 2: " (api.cell_at), which the
// cell's label says already (a screen reader heard the row and column twice: a walk).
function ownDoubt(doubt) {
  const found = I18N.match(doubt);
  return translated(found && found.key === "api.cell_at" ? found.params.doubt : doubt);
}

// A cell's doubt that says in its own words that the card is in doubt: "low confidence: ..." (in
// Italian "lettura incerta: ..."), "most cells of this photo are in doubt: ...". Said after
// "doubtful:", the cell's label said it twice ("incerta: lettura incerta": an Italian walk).
const OWN_DOUBT = new Set(["api.low_confidence", "api.among_doubts"]);
function saysItsDoubt(doubt) {
  const found = I18N.match(doubt);
  const own = found && found.key === "api.cell_at" ? I18N.match(found.params.doubt) : found;
  return !!own && OWN_DOUBT.has(own.key);
}

// The tableau's "2 empty cells (row 1 col 2, row 4 col 4): ..." (api.empty_cells) once the player
// has checked every cell it names: it stayed after "All doubtful cards checked" (a walk).
function emptyCellsChecked(doubt, done) {
  const found = I18N.match(doubt);
  if (!found || found.key !== "api.empty_cells") return false;
  const cells = [...found.params.where.matchAll(/row (\d+) col (\d+)/g)].map(([, r, c]) => `${r - 1},${c - 1}`);
  return cells.length > 0 && cells.every((k) => done.has(k));
}

// The picker: the cell's own crop from the photo, the reader's runner-up first.
const RUNNER_OFFERED = 0.05;
// The smallest a card's label on the photo is drawn, in CSS px: a label that does not fit its card at
// that size is shortened (``renderMarks``), never drawn smaller.
const LABEL_MIN_PX = 9;
const PICK_GUARD_MS = 400;  // a tap this soon after the picker opens is the last one's (a double tap)
let pickerOpenings = 0;  // (a guard's end belongs to the opening that set it)
function pick(view, r, c, review) {
  return new Promise((resolve) => {
    const dialog = $("picker"), choices = $("choices");
    const cell = view.read.cells && view.read.cells[r] ? view.read.cells[r][c] : null;
    const current = view.grid[r][c];
    // Not "read as empty" for a card nothing read.
    const unnamed = !!(cell && cell.card && !current);  // a layout's card (a deck being taught): read by nothing
    // A card changed since it was read: what it is now and what it was read as (it said "read as"
    // the wrong type a player had given it, "Keep as read" kept that: a walk, after a clash).
    // A card of a photo laid out to name, named since, was read as nothing: it is named, not
    // changed ("changed to fox (read as empty)" offered "empty" first, to un-name it: a review).
    const asRead = view.read.grid[r][c];
    const named = view.laidOut() && asRead == null && !!(cell && cell.card);
    const changed = view.corrected.has(key(r, c)) && asRead !== current && !named;
    $("picker-cell").textContent = unnamed ? t("ui.picker_unnamed", { row: r + 1, col: c + 1 })
      : named ? t("ui.picker_named", { row: r + 1, col: c + 1, card: I18N.card(current) })
      : changed ? t("ui.picker_corrected", { row: r + 1, col: c + 1, card: I18N.card(current), read: I18N.card(asRead) })
      : view.guessAt(r, c) ? t("ui.picker_guess", { row: r + 1, col: c + 1, card: I18N.card(current), name: deckTitle(cell.deck) })
      : view.unknownAt(r, c) ? t("ui.picker_unknown", { row: r + 1, col: c + 1 })
      : t("ui.picker_cell", { row: r + 1, col: c + 1, card: I18N.card(current) });
    // Both describe the dialog (index.html): a screen reader heard "This card is…" and not which
    // card, nor how far the review had come (a walk). Emptied when not reviewing: a hidden
    // element referenced so is still read.
    $("review-step").hidden = !review;
    $("review-step").textContent = review ? t(view.naming() ? "ui.review_step_naming" : "ui.review_step", review) : "";
    drawCrop(view, cell);
    // The runner-up first, if it is a choice: "empty", or a type; a deck's "not ours" is no card
    // to choose (it was offered, untranslated, and refused by the server: a walk-through).
    // Offered so only where it is a real second choice, or the card is in doubt: "meadow (second
    // choice)" outlined on every card, at 0.01 %, hinted at a doubt the read did not have (a walk).
    const likely = cell && (cell.runner_up_confidence >= RUNNER_OFFERED || (cell.doubts && cell.doubts.length));
    const runnerUp = likely && cell.runner_up;
    const runner = runnerUp === "empty" ? null : TYPES.includes(runnerUp) ? runnerUp : undefined;
    const order = [...TYPES, null];
    const first = changed ? [asRead] : runner !== undefined && runner !== current ? [runner] : [];
    const list = [...first, ...order.filter((x) => !first.includes(x))];
    choices.innerHTML = "";
    let done = false;

    // the close event comes later: by then the next card's picker may be open (the review walk)
    const finish = (value) => { if (done) return; done = true; dialog.onclose = null; if (dialog.open) dialog.close(); resolve(value); };
    list.forEach((type, i) => {
      const b = document.createElement("button");
      b.type = "button"; b.className = "button"; b.dataset.type = type || "";
      b.textContent = I18N.card(type);
      if (i === 0 && first.length) {
        b.classList.add("runner");
        b.appendChild(Object.assign(document.createElement("small"), { textContent: ` (${t(changed ? "ui.picker_as_read" : "ui.picker_runner")})` }));
      }
      // An unknown cell (the photo did not show it) is no empty one: nothing marked as what it is
      // ("empty" outlined beside the cell's "unknown" read as its value: an Italian walk).
      if (type === current && !unnamed && !view.unknownAt(r, c)) { b.classList.add("current"); b.setAttribute("aria-current", "true"); }
      b.addEventListener("click", () => finish(type));
      choices.appendChild(b);
    });
    $("keep").onclick = () => finish("keep");
    // The arrows move between the cards offered (it took up to 12 Tabs to reach one: a walk).
    choices.onkeydown = (event) => {
      const step = { ArrowDown: 1, ArrowRight: 1, ArrowUp: -1, ArrowLeft: -1 }[event.key];
      const all = [...choices.querySelectorAll("button")], at = all.indexOf(document.activeElement);
      if (!step || at < 0 || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
      event.preventDefault();
      all[(at + step + all.length) % all.length].focus();
    };
    // A card found and not named: "keep as read" would keep it empty, silently (a walk); its
    // name, or "empty" for a box on a bare gap, is to be chosen.
    // A cell nothing read (outside the photo, a card of none of the deck's types) neither: kept
    // "as read" it counted as empty, and the total (29 for 31) lost its "?" (a walk).
    $("keep").hidden = unnamed || changed || view.unknownAt(r, c);  // (a changed card is kept as it is by closing)
    $("picker-cancel").textContent = review ? t("ui.stop") : t("ui.cancel");
    dialog.onclose = () => { if (!dialog.open) finish(undefined); };  // not a close of the card before
    openDialog(dialog);
    // A tap that lands as the picker opens was meant for the one before: in Review the next card's
    // picker opened under a double tap's second tap, which named that card, unseen, and marked it
    // checked (a walk). Its choices take no tap for a moment (style.css: .settling); keys at once.
    dialog.classList.add("settling");
    const opened = ++pickerOpenings;
    setTimeout(() => { if (pickerOpenings === opened) dialog.classList.remove("settling"); }, PICK_GUARD_MS);
    // "Keep as read" first where it is offered: an Enter at once keeps the card, never changes it
    // to the second guess (a walk, keyboard only).
    // Focused without scrolling to it, the dialog at its top: scrolled to "Keep as read" at its
    // foot, a short screen hid the card's picture and the question (an audit: 13 % of the
    // picture in view on a phone held sideways).
    ($("keep").hidden ? choices.firstElementChild : $("keep")).focus({ preventScroll: true });
    dialog.scrollTop = 0;
  });
}

function drawCrop(view, cell) {
  const canvas = $("crop"), ctx = canvas.getContext("2d");
  const img = view.q(".photo-img");
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  canvas.hidden = !(cell && cell.quad && img.complete && img.naturalWidth && view.read.size);
  if (canvas.hidden) return;
  const k = img.naturalWidth / view.read.size[0];
  const [x0, y0, x1, y1] = boxAround(cell.quad.map(([x, y]) => [x * k, y * k]), 0.08, img.naturalWidth, img.naturalHeight);
  const f = Math.min(200 / (x1 - x0), 200 / (y1 - y0));
  canvas.width = Math.round((x1 - x0) * f); canvas.height = Math.round((y1 - y0) * f);
  ctx.drawImage(img, x0, y0, x1 - x0, y1 - y0, 0, 0, canvas.width, canvas.height);
}

// A phone's Back with a dialog open closes the dialog (as Cancel: the picker's card unchanged, a
// question's safe answer), as the phone's own dialogs do: it left the page, the card half
// corrected (a walk). An entry of this page's own is pushed as a dialog opens and taken back
// when the last one closes. Review opens the next card's picker as the last one closes, or once
// the card named is scored: a picker opened while the entry is being taken back gets it again,
// never closed by that step back (it closed Review's next card, a test found).
const DIALOG_ENTRY = "ecoscoreDialog";
const onDialogEntry = () => !!(history.state && history.state[DIALOG_ENTRY]);
let dialogEntryLeaving = false;  // the page's own step back from its entry, on its way
// Going back to the page's entry must not scroll it back where it was as the dialog opened: a
// correction's failure said beside the tableau, scrolled into view meanwhile, was scrolled away
// (a test found). So that entry restores no scroll while the dialog's is above it.
function openDialog(dialog) {
  if (!onDialogEntry() && !dialogEntryLeaving) {
    history.scrollRestoration = "manual";  // (the entry below: the one pushed takes it too)
    history.pushState({ [DIALOG_ENTRY]: true }, "");
  }
  dialog.showModal();
}
function dialogClosed() {
  setTimeout(() => {
    if (document.querySelector("dialog[open]") || !onDialogEntry() || dialogEntryLeaving) return;
    dialogEntryLeaving = true;
    history.back();
  }, 0);
}
addEventListener("popstate", () => {
  if (!onDialogEntry()) history.scrollRestoration = "auto";  // a reload restores it as before
  if (dialogEntryLeaving) {
    dialogEntryLeaving = false;
    if (document.querySelector("dialog[open]")) history.pushState({ [DIALOG_ENTRY]: true }, "");  // opened meanwhile
    return;
  }
  document.querySelectorAll("dialog[open]").forEach((d) => d.close());  // the player's Back
});
for (const id of ["picker", "confirm", "ask"]) $(id).addEventListener("close", dialogClosed);

function confirmDialog(text, yes = t("ui.yes_replace"), no = t("ui.no")) {
  return new Promise((resolve) => {
    const dialog = $("confirm");
    $("confirm-text").textContent = text;
    $("confirm-yes").textContent = yes;
    $("confirm-no").textContent = no;
    dialog.onclose = () => resolve(dialog.returnValue === "yes");
    dialog.returnValue = "";
    openDialog(dialog);
    // Every question here asks to do something that cannot be seen undone at once (replace,
    // remove, teach a deck a picture): the safe answer is the one an Enter or a hasty tap gives
    // (a walk: "Remember anyway" had the focus, and the colour).
    $("confirm-no").focus();
  });
}

// A name asked for (null when the player cancels). Enter saves: the save button is the form's first.
// ``error``: why the name given last was refused, said in the dialog, the name to mend in its box
// (said at the page's top, a refused rename was out of view: the name seemed to stay, unexplained).
function askDialog(text, value = "", error = null) {
  return new Promise((resolve) => {
    const dialog = $("ask"), input = $("ask-value");
    $("ask-text").textContent = text;
    setStatus($("ask-status"), error || "", !!error);
    input.value = value;
    dialog.onclose = () => resolve(dialog.returnValue === "ok" ? input.value : null);
    dialog.returnValue = "";
    openDialog(dialog);
    input.focus();
    input.select();
  });
}

// ---------- decks: this phone reads with one deck, remembered; the service knows which exist ----------
const DECK_KEY = "ecoscore-deck";
const deckChosen = () => localStorage.getItem(DECK_KEY) || "";
// What each deck is called where the page names it: the name its player typed ("Náš stůl"), not
// its key ("nas-stul": the menu showed the key, a walk). Known once the decks are listed.
// The built-in deck has no name its player typed: its key ("standin") says nothing at the table,
// so it is called what it is, in the page's language (a walk: "standin (встроенная)").
// goneDeck: the chosen deck that can no longer read, said until another is chosen ({name, note}).
let deckTitles = new Map(), builtinDeck = "", goneDeck = null;
const deckTitle = (name) => (name && name === builtinDeck ? t("ui.deck_sample") : deckTitles.get(name) || name);

async function loadDecks(select) {
  try {
    // The service lists a deck started on a phone only to whoever names it: this phone's own,
    // the one it reads with (a room's), the one it is building.
    const named = new Set([deckChosen(), localStorage.getItem(BUILDING_KEY) || ""]);
    for (let k = 0; k < localStorage.length; k++) {
      const stored = localStorage.key(k);
      if (stored && stored.startsWith(deckTokenKey(""))) named.add(stored.slice(deckTokenKey("").length));
    }
    named.delete("");
    const query = [...named].slice(0, 32).map((name) => `named=${encodeURIComponent(name)}`).join("&");
    const doc = await api("GET", `/api/decks${query ? `?${query}` : ""}`);
    const chosen = deckChosen() || doc.default;
    // Their names as typed, while still known (a gone deck is not listed)
    const before = deckTitle(deckChosen()), buildingBefore = deckTitle(localStorage.getItem(BUILDING_KEY) || "");
    deckTitles = new Map(doc.decks.map((d) => [d.name, d.title || d.name]));
    builtinDeck = doc.decks.find((d) => d.builtin)?.name || "";
    // Another phone's deck is not offered: on a shared server strangers' decks filled every menu,
    // and one chosen reads this table's photos with their cards (a walk).
    const ours = (d) => !d.started_on_a_phone || d.name === chosen || !!localStorage.getItem(deckTokenKey(d.name));
    select.replaceChildren(...doc.decks.filter((d) => d.complete && ours(d)).map((d) =>
      Object.assign(document.createElement("option"), { value: d.name, textContent: d.builtin ? `${deckTitle(d.name)} (${t("ui.deck_builtin")})` : deckTitle(d.name) })));
    select.value = doc.decks.some((d) => d.name === chosen) ? chosen : doc.default;
    // The deck this phone reads with, now lacking a type (its name taken by another's deck being
    // taught, or its completing photo taken back): it reads no photo (an attack found every photo
    // refused). This phone's own is being built again; another's is forgotten, and said.
    const chosenNow = doc.decks.find((d) => d.name === deckChosen());
    if (named.has(deckChosen()) && chosenNow && !chosenNow.complete) {
      if (localStorage.getItem(deckTokenKey(chosenNow.name))) localStorage.setItem(BUILDING_KEY, chosenNow.name);
      else goneDeck = { name: before, note: "ui.deck_unready_note" };
      localStorage.removeItem(DECK_KEY);
      select.value = doc.default;
    }
    // A deck this phone is building, said on coming back: it is not in the menu until it has
    // every type, and nothing said what it still needed (a walk-through).
    const buildingName = localStorage.getItem(BUILDING_KEY);
    const building = doc.decks.find((d) => d.name === buildingName && !d.complete);
    // Forgotten only when this listing was asked about it (whole now, or gone): a deck begun
    // while the listing was on its way is not in it, and is still being built.
    if (!building && named.has(buildingName)) {
      localStorage.removeItem(BUILDING_KEY);
      // Not whole now, but gone (removed on the server): said, as a chosen deck gone is (it was
      // forgotten without a word: a walk).
      if (!doc.decks.some((d) => d.name === buildingName)) goneDeck = { name: buildingBefore, note: "ui.deck_gone_note" };
    }
    // The deck this phone reads with, gone from the server (removed since it was chosen): every
    // photo was refused "no deck ...; enrol one with `ecoscore deck add`". Forgotten, and said
    // until another deck is chosen (goneDeck: a second listing, the language's, no longer names
    // it). Judged only by a listing asked about it: one on its way before the deck was chosen (a
    // deck completed by a photo meanwhile) does not list it.
    if (named.has(deckChosen()) && !doc.decks.some((d) => d.name === deckChosen())) {
      goneDeck = { name: before, note: "ui.deck_gone_note" };
      localStorage.removeItem(DECK_KEY);
    }
    const gone = goneDeck;
    setStatus($("deck-note"), gone ? () => t(gone.note, { name: gone.name })
      : building ? () => t("ui.deck_building", { name: deckTitle(building.name), missing: building.missing.map((c) => I18N.card(c)).join(", ") }) : "", !!gone);
  } catch (err) {
    // Offline, the banner says so and the last choice is still sent. Anything else (the
    // service refusing, or a mistake here) is said, not swallowed as "offline".
    if (err.offline) return;
    console.error(err);
    setStatus($("deck-note"), err, true);
  }
}

// "Remember these cards": the photo again with its grid as corrected, so each cell becomes a
// reference of its deck (a new deck is named here; the built-in deck cannot learn). One tableau
// seldom shows all 11 types: the deck is built a photo at a time (BUILDING_KEY names it) and
// this phone reads with it once it has every type.
const BUILDING_KEY = "ecoscore-deck-building";
const deckTokenKey = (name) => `ecoscore-deck-token:${name}`;  // the phone that started a deck holds its token
// A deck's name as the service takes it (its key): "Moje kuchyň" -> "moje-kuchyn"; the name as
// typed is sent beside it, and is what the page calls the deck.
// Cyrillic is spelt in Latin letters ("Мой лес" -> "moj-les": a Russian name was refused).
const CYRILLIC = { а: "a", б: "b", в: "v", г: "g", д: "d", е: "e", ё: "e", ж: "zh", з: "z", и: "i", й: "j", к: "k", л: "l",
  м: "m", н: "n", о: "o", п: "p", р: "r", с: "s", т: "t", у: "u", ф: "f", х: "h", ц: "c", ч: "ch", ш: "sh", щ: "sch",
  ъ: "", ы: "y", ь: "", э: "e", ю: "yu", я: "ya" };
const deckSlug = (text) => text.toLowerCase().replace(/[а-яё]/g, (ch) => CYRILLIC[ch])
  .normalize("NFKD").replace(/[\u0300-\u036f]/g, "")
  .replace(/[^a-z0-9_-]+/g, "-").replace(/^[-_]+|-+$/g, "").slice(0, 40);

// The deck's own cards show cards of this photo otherwise than its grid names them: each said,
// with what the deck sees there (the player checks those cells, not "these cards").
const clashText = (clashes) => [...clashes.map((c) => t("ui.clash_cell", { row: c.cell[0] + 1, col: c.cell[1] + 1,
  named: I18N.card(c.named), seen: I18N.card(c.seen), pct: Math.round(100 * c.belief) })), t("ui.clash_ask", { n: clashes.length })].join(" ");
// Cards named one type that do not look like the others so named (a new deck has no cards of its
// own to judge them by): the first few said, the rest counted.
// A type named for cards that look like several cards (every card named fox) is said as a whole.
const UNLIKE_SAID = 3;
const unlikeText = (strays, lumped) => [...lumped.map((l) => t("ui.unlike_type", { n: l.cells.length,
  named: I18N.card(l.named) })), ...strays.slice(0, UNLIKE_SAID).map((c) => t("ui.unlike_cell", { row: c.cell[0] + 1,
  col: c.cell[1] + 1, named: I18N.card(c.named), like: I18N.card(c.like) })),
  ...(strays.length > UNLIKE_SAID ? [t("ui.unlike_more", { n: strays.length - UNLIKE_SAID })] : []),
  t("ui.unlike_ask", { n: strays.length + lumped.reduce((n, l) => n + l.cells.length, 0) })].join(" ");
// What a refusal the player may overrule asks ("remember anyway?"), and the cells it is about:
// the deck's own cards seeing some otherwise, cards named one type unlike each other, or both
// (one answer covers both: "remember anyway" is asked once, of everything it would overrule).
const askedAnyway = (err) => {
  if (err.code !== "deck_clash" && err.code !== "grid_unlike") return null;
  const clashes = err.clashes || [], strays = err.strays || [], lumped = err.lumped || [];
  const text = [...(clashes.length ? [clashText(clashes)] : []),
    ...(strays.length || lumped.length ? [unlikeText(strays, lumped)] : [])].join(" ");
  return [text, [...clashes, ...strays, ...lumped.flatMap((l) => l.cells.map((cell) => ({ cell })))]];
};

async function rememberCards() {
  if (!solo.view) return;
  const said = $("remember-status");
  // A read restored on reload whose photo the tab could not keep (storage full): said, not a dead button.
  if (!solo.file) { setStatus(said, () => t("ui.remember_retake"), true); return; }
  // Remembered already, and not changed since: sent again it added nothing, and that empty add
  // became the deck's last, so Forget could no longer take the photo's cards back (a walk).
  if (solo.remembered && solo.remembered.grid === JSON.stringify(solo.view.grid)) {
    setStatus(said, () => t("ui.remembered_already", { name: solo.remembered.title }));
    return;
  }
  // Cards found and not named yet (nor kept as they are, nor set to empty: a box on a bare gap
  // is the finder's mistake): the service would refuse the photo. Said before anything is sent,
  // counted as the Review button counts them.
  // Bare places (no card found) need no name here: a card the finder missed teaches the deck
  // nothing (its picture is left out), so naming them first only held the player up (a walk).
  const unnamed = solo.teaching ? solo.view.toName() : 0;
  if (unnamed) { setStatus(said, () => t("ui.teach_unnamed", { n: unnamed }), true); return; }
  // Cards of a read still in doubt (neither corrected nor kept as read): remembered as read, a
  // misread card would be a wrong picture of its type, read with on every later photo (a walk:
  // 4 doubtful cards remembered without a word). Checked first, as the Review button counts them.
  const unsure = solo.teaching ? 0 : solo.view.doubtfulCells().length;
  if (unsure) { setStatus(said, () => t("ui.remember_unsure", { n: unsure }), true); said.mark = "unsure"; return; }
  // The read checked here is the one remembered: a photo read while a question below is open (the
  // page goes on under it) would be remembered unchecked (a review). Asked again on that one.
  const view = solo.view, changedMeanwhile = () => solo.view !== view;
  // Cards the deck being taught named itself: never remembered before the player says they are right.
  const guesses = solo.teaching ? solo.view.guessedCells() : [];
  if (guesses.length) {
    const [r, c] = guesses[0], by = deckTitle(solo.view.read.cells[r][c].deck);
    if (!(await confirmDialog(t("ui.confirm_guesses", { n: guesses.length, name: by }), t("ui.guesses_right"), t("ui.check_first")))) {
      setStatus(said, () => t("ui.check_guesses", { n: guesses.length }));
      return;
    }
    if (changedMeanwhile()) return;
    solo.view.confirmGuesses(guesses);
    saveSolo();
  }
  // A deck this phone did not start (the built-in one, a friend's, one enrolled on the server)
  // cannot learn from it: the cards go to a deck of its own, named here.
  // Said so where a deck other than the built-in one is chosen: the player, who chose it, took
  // the question for a new name of it, and the deck's own name was refused as taken (a walk).
  let name = teachingDeck(), title = "";
  const chosen = deckChosen(), ask = chosen && chosen !== (builtinDeck || "standin")  // (the deck list not loaded)
    ? t("ui.remember_prompt_elsewhere", { name: deckTitle(chosen) }) : t("ui.remember_prompt");
  for (let answer = "", error = null; !name;) {
    answer = await askDialog(ask, answer, error);
    if (answer === null || changedMeanwhile()) return;
    name = deckSlug(answer);
    title = answer.trim();
    error = () => t("ui.deck_name_empty");  // (asked again, why said there: it closed, said below the button)
  }
  // The tableau shown now, taken before the photo is shrunk (a switch meanwhile would send one
  // tableau's grid at the other's place: the deck taught the wrong pictures).
  const grid = solo.view.grid.map((row) => row.map((type) => type || ".").join(" ")).join("\n");
  // Of several tableaux in the photo, the one shown: its middle (the photo's pixels).
  const corners = solo.view.read.cells.flat().flatMap((cell) => cell.quad);
  const at = [0, 1].map((k) => (corners.reduce((sum, p) => sum + p[k], 0) / corners.length).toFixed(1)).join(",");
  const button = $("remember"), file = solo.file;
  button.disabled = true;
  setStatus(said, () => t("ui.reading"));  // said beside the button: the page's status line is out of view
  try {
    const form = new FormData();
    form.append("photo", await shrink(file), "photo.jpg");
    form.append("grid", grid);
    form.append("as_read", "true");  // the grid of this photo's read (or layout), corrected
    // The deck that read it: the read placed a window that was a guess by what its cells show,
    // and the grid lies on those cells (a layout's cells are placed by no deck).
    if (!solo.teaching && solo.view.player.deck) form.append("read_with", solo.view.player.deck);
    form.append("at", at);
    if (title) form.append("title", title);  // kept for a new deck: what the page calls it
    // The deck's token: this phone started the deck, and only it adds to it.
    const tokenOf = deckTokenKey(name), held = localStorage.getItem(tokenOf);
    const send = () => api("POST", `/api/decks/${encodeURIComponent(name)}/photo`, form, held ? { "X-Deck-Token": held } : {});
    let deck;
    try { deck = await send(); } catch (err) {
      // The deck's own cards show some of these cards otherwise (a card corrected to the wrong
      // type would be taught as named): the player is asked, and says whether to remember anyway.
      if (err.code === "no_such_deck") await deckGone(err, solo.view.player.deck);  // the deck that read the photo, removed since
      const asked = askedAnyway(err);
      if (!asked) throw err;
      const [text, cells] = asked;
      if (!(await confirmDialog(text, t("ui.remember_anyway"), t("ui.check_first")))) {
        setStatus(said, () => askedAnyway(err)[0], true);
        said.mark = "clash";  // taken back by the next correction (correctSolo)
        // The first cell to check chosen on the grid, in view (the message sat far below it, and
        // the focus fell to the top of the page: a walk).
        const [r, c] = cells[0].cell;
        if (!solo.view.selected || solo.view.selected[0] !== r || solo.view.selected[1] !== c) solo.view.select(r, c);
        solo.view.q(`.grid button[data-row="${r}"][data-col="${c}"]`).focus();
        return;
      }
      form.append("force", "true");
      deck = await send();
    }
    localStorage.setItem(tokenOf, deck.token);
    const missing = deck.missing || [];
    if (missing.length) {
      localStorage.setItem(BUILDING_KEY, deck.name);
    } else {
      localStorage.removeItem(BUILDING_KEY);
      localStorage.setItem(DECK_KEY, deck.name);
    }
    // A card named wrong can be taken back: the cards this photo added (none: nothing to take back,
    // and forgetting would say so).
    const called = deck.title || deck.name;
    // ``only``: these are all the deck's cards (forgetting them forgets the deck: asked first).
    const references = Object.values(deck.references || {}).reduce((a, b) => a + b, 0);
    solo.remembered = deck.added ? { name: deck.name, title: called, grid: JSON.stringify(solo.view.grid),
      only: references <= deck.added } : null;
    $("forget").hidden = !deck.added;
    showRememberHint();
    saveSolo();
    await loadDecks($("deck"));
    // "All doubtful cards checked." and "Score updated with your correction." are done with once
    // the cards are remembered (they stayed above, the news far below: walks).
    if (["review_done", "updated"].includes($("status").mark)) setStatus($("status"), "");
    // Cells the corrected grid names a card in where none was found are left out, and said.
    const n = Object.values(deck.references).reduce((a, b) => a + b, 0);
    setStatus(said, () => [missing.length
      ? t("ui.remembered_partial", { n, name: called, missing: missing.map((c) => I18N.card(c)).join(", ") })
      : t("ui.remembered", { n, name: called }), ...(deck.doubts || []).map((d) => sentence(translated(d)))].join(" "));
  } catch (err) {
    // Said as a sentence, without the name the page gave its own upload ("photo.jpg: the grid ...": a walk).
    const text = () => sentence((err.say ? err.say() : err.message).replace(/^photo\.jpg: /, ""));
    setStatus(said, text, true);
  } finally {
    button.disabled = false;
    // Disabled while it was sent, the button let the focus fall to the page's top (a walk, keyboard only).
    if (!document.activeElement || document.activeElement === document.body) button.focus();
  }
}

// "Forget these cards": the deck's last add taken back (a card named wrong and remembered
// taught the deck a wrong picture, and nothing could take it back: a walk-through).
async function forgetCards() {
  if (!solo.remembered) return;
  const { name, title: called, only } = solo.remembered, said = $("remember-status");
  // The deck's only cards: forgetting them forgot the deck at once, unasked (a walk).
  if (only && !(await confirmDialog(t("ui.confirm_forget_deck", { name: called }), t("ui.yes_forget_deck")))) return;
  const tokenOf = deckTokenKey(name);
  try {
    const out = await api("DELETE", `/api/decks/${encodeURIComponent(name)}/last`, undefined, { "X-Deck-Token": localStorage.getItem(tokenOf) || "" });
    $("forget").hidden = true; solo.remembered = null;
    showRememberHint();
    saveSolo();
    if (!out.deck) {  // the deck was only these cards: it is gone
      localStorage.removeItem(tokenOf);
      if (localStorage.getItem(BUILDING_KEY) === name) localStorage.removeItem(BUILDING_KEY);
      if (deckChosen() === name) localStorage.removeItem(DECK_KEY);
    } else if (!out.deck.complete) {  // these cards completed it: it is built again, not read with
      localStorage.setItem(BUILDING_KEY, name);
      if (deckChosen() === name) localStorage.removeItem(DECK_KEY);
    }
    await loadDecks($("deck"));
    setStatus(said, () => t(out.deck ? "ui.forgotten" : "ui.forgotten_deck", { name: called }));
  } catch (err) { setStatus(said, err, true); }
}

// ---------- one photo ----------
const solo = { doc: null, view: null, older: false, showAnyway: false, file: null, photoData: null, teachFile: null, teaching: false,
  // remembered: {name, title, grid, only} of the deck this read's cards were last added to (Forget takes them back)
  index: 0, remembered: null, pending: 0, work: {}, game: null };

// A tableau's doubts of the photo or the grid still standing, from its read and the work kept of it
// while another tableau of the photo is shown: as its view says them (``TableauView.readDoubts``),
// its deck's counts as its corrected grid scored them.
function readDoubtsOf(player, work) {
  const done = new Set(work ? [...work.corrected, ...work.checked] : []);
  return [...standingDoubts(player.doubts || [], done, !!(work && work.gridChecked)),
    ...(((work && work.player) || player).deck_issues || [])];
}

// Of a read's doubts, those of the photo or the grid still standing: with the whole grid said
// right, those no check settles (``checkSettles``); else all but a doubt of empty cells each one
// of which was corrected or kept (``done``).
function standingDoubts(doubts, done, gridChecked) {
  return doubts.filter((d) => !cellDoubt(d) && (gridChecked ? !checkSettles(d) : !emptyCellsChecked(d, done)));
}

// What a player did on one tableau of the photo (its score, grid, cards corrected or kept, Undo's
// steps), as plain data: kept while another tableau of the photo is shown, and through a reload
// (switching to the neighbour's tableau and back lost every correction: an old walk's finding).
// The whole grid said right at the table (``gridChecked``) is kept with them, and each step's.
function workOf(view) {
  // (A step's sets as lists; its other fields, what Undo names, as they are.)
  const steps = view.history.map((h) => ({ ...h, corrected: [...h.corrected], checked: [...h.checked], gridChecked: !!h.gridChecked }));
  return { player: view.player, grid: view.grid, corrected: [...view.corrected], checked: [...view.checked], gridChecked: view.gridChecked,
    history: steps };
}

const sameGrid = (a, b) => JSON.stringify(a) === JSON.stringify(b);

function applyWork(view, work) {
  view.player = work.player;
  view.grid = work.grid.map((row) => row.slice());
  view.corrected = new Set(work.corrected); view.checked = new Set(work.checked); view.gridChecked = !!work.gridChecked;
  view.history = (work.history || []).map((h) => ({ ...h, corrected: new Set(h.corrected), checked: new Set(h.checked),
    gridChecked: !!h.gridChecked }));
  view.render();
  // Its score is not its grid's: a correction's answer was lost to a reload, or failed while
  // the other tableau was shown (a walk: a total that matched no grid, for good). Scored again.
  const scored = work.player && work.player.grid;
  if (scored && !sameGrid(scored, view.grid)) view.commit(null, null);  // not "Score updated" over what the page says; kept if not scored
}
let sendSolo;

// A photo on its way: while it is, the last read is not shown again (a language switch, a
// correction's late answer), and a mark in the tab's storage says so: a reload (the phone's
// camera taking the page down, a thumb) drops the upload, and the page came back with the read
// before as if it were the new photo's (a phone walk). The mark stays until the new read is
// saved or refused (``settled``), and while the page is leaving: a browser may fail the dropped
// upload as an error before the page goes.
const SENDING_KEY = "ecoscore:sending";
let leaving = false;
addEventListener("beforeunload", () => { leaving = true; });
addEventListener("pagehide", () => { leaving = true; });
// A leave that did not happen (a link that downloads, a leave cancelled) fired beforeunload and
// left the page alive, its later failures unsaid until a reload: a player using the page again
// is not leaving. (Not a timer: a reload on a slow network keeps the old page seconds longer.)
for (const used of ["pointerdown", "keydown", "change"]) addEventListener(used, () => { if (leaving) stayed(); }, true);
// Back from another page (a room) through the browser's back-forward cache: not leaving after
// all (an upload's error was kept silent, and the mark stayed to say a read photo was not).
addEventListener("pageshow", () => { stayed(); settled(); });
// A room write that failed while the page seemed to leave is written again (``resumeRoomWrites``).
function stayed() {
  leaving = false;
  if (room.id && room.doc) resumeRoomWrites();
}
async function sending(answer) {
  solo.pending += 1;
  try { sessionStorage.setItem(SENDING_KEY, "1"); } catch { /* storage off: nothing to say after a reload */ }
  try { return await answer; } finally { solo.pending -= 1; }
}

function settled() {
  if (solo.pending || leaving) return;
  try { sessionStorage.removeItem(SENDING_KEY); } catch { /* storage off */ }
}

// Read once as the start page's script starts, before any photo of this load is sent (a room's
// page sends none, and leaves the mark for the start page to say).
const INTERRUPTED = !/^\/r\//.test(location.pathname) && (() => {
  try { const mark = sessionStorage.getItem(SENDING_KEY); sessionStorage.removeItem(SENDING_KEY); return !!mark; } catch { return false; }
})();

// The same for a room's photo, as its page sends it: which room, whose seat, and whether it was
// to replace their tableau. A reload at 13 % left the room's page saying nothing (the old tableau
// shown, as if the new photo had counted: a Russian walk). Read once as a room's script starts.
const ROOM_SENDING_KEY = "ecoscore:room-sending";
const ROOM_INTERRUPTED = /^\/r\//.test(location.pathname) && (() => {
  try { const mark = sessionStorage.getItem(ROOM_SENDING_KEY); sessionStorage.removeItem(ROOM_SENDING_KEY); return mark ? JSON.parse(mark) : null; } catch { return null; }
})();
let roomSending = 0;

// The last photo's read, every card named or kept since, and the photo itself (to remember its
// cards), kept for this tab: a phone that drops the page while the camera is open, or a reload,
// lost the read and the 20 cards a player had just named to teach a deck.
const SOLO_KEY = "ecoscore:solo";

// ``player``: the score shown (a correction's comes back before the view takes it).
function saveSolo(player) {
  if (!solo.doc || !solo.view) return;
  const v = solo.view;
  const state = { doc: solo.doc, index: solo.index, teaching: solo.teaching, showAnyway: solo.showAnyway,
    remembered: solo.remembered, read: v.read, ...workOf(v), player: player || v.player,
    work: solo.work, photo: solo.photoData };
  for (const kept of [state, { ...state, photo: null }]) {  // storage full: the read without its photo
    try { sessionStorage.setItem(SOLO_KEY, packed(kept)); return; } catch { /* try smaller */ }
  }
  forgetSolo();  // never an older read left to come back in its place
}

// Photos a read came with inline (the service's database down: data: URLs), and the photo as
// sent, kept once each in the tab's storage however many tableaux and views name them (a photo
// of 2048 px named by each of N tableaux was N + 2 copies, past the storage's 5 MB: a review).
// The mark holds a NUL, which no name or text of a read can (names refuse control characters).
const INLINE_MARK = "\u0000inline\u0000";

function packed(state) {
  const inline = [];
  const text = JSON.stringify(state, (_, v) => {
    if (typeof v !== "string" || !v.startsWith("data:")) return v;
    let i = inline.indexOf(v);
    if (i < 0) i = inline.push(v) - 1;
    return INLINE_MARK + i;
  });
  return `{"inline":${JSON.stringify(inline)},"state":${text}}`;
}

function unpacked(text) {
  const kept = JSON.parse(text || "null");
  if (!kept || !Array.isArray(kept.inline) || !("state" in kept)) return kept;  // (kept before it was packed)
  const back = (v) => (typeof v === "string" && v.startsWith(INLINE_MARK) ? kept.inline[Number(v.slice(INLINE_MARK.length))]
    : Array.isArray(v) ? v.map(back)
    : v && typeof v === "object" ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, back(x)])) : v);
  return back(kept.state);
}

function forgetSolo() {
  try { sessionStorage.removeItem(SOLO_KEY); } catch { /* storage off: nothing kept anyway */ }
}

// The photo as sent (shrunk), as text for the tab's storage.
async function photoData(file) {
  const small = await shrink(file);
  return new Promise((resolve) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result);
    reader.onerror = () => resolve(null);
    reader.readAsDataURL(small);
  });
}

async function keepPhoto(file) {
  const data = await photoData(file);
  // A newer photo came meanwhile: this one must never be kept beside its read (remembered
  // after a reload, the newer grid would teach the deck this photo's cells).
  if (solo.file !== file || !solo.doc) return;
  solo.photoData = data;
  saveSolo();
}

function photoFile(dataUrl) {
  const bytes = atob(dataUrl.slice(dataUrl.indexOf(",") + 1));
  const buffer = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) buffer[i] = bytes.charCodeAt(i);
  // As kept: a photo small enough is sent as it came (a PNG, a HEIC), not re-encoded.
  const type = (dataUrl.match(/^data:([\w/+.-]+)[;,]/) || [])[1] || "image/jpeg";
  return new File([buffer], `photo.${(type.split("/")[1] || "jpg").replace("jpeg", "jpg")}`, { type });
}

// A photo refused because no deck here reads its cards, and the offer to name them: kept for the
// tab, as the last read is (a reload, or the phone dropping the page, lost the offer and the
// photo with it: a walk). Gone once another photo is sent or this one laid out to name.
const TEACH_KEY = "ecoscore:teach";
async function keepTeach(file, err) {
  const data = await photoData(file);
  if (solo.teachFile !== file || !data) return;  // another photo since
  try { sessionStorage.setItem(TEACH_KEY, JSON.stringify({ photo: data, status: err.status, detail: err.detail, code: err.code })); } catch { /* storage full or off */ }
}
function forgetTeach() { try { sessionStorage.removeItem(TEACH_KEY); } catch { /* storage off */ } }
function restoreTeach() {
  let kept = null;
  try { kept = JSON.parse(sessionStorage.getItem(TEACH_KEY) || "null"); } catch { /* damaged: nothing to offer */ }
  if (!kept || typeof kept.photo !== "string" || kept.code !== "not_this_deck") { forgetTeach(); return; }
  solo.teachFile = photoFile(kept.photo);
  $("teach").hidden = false;
  const err = saying(() => errorText({ detail: kept.detail }, { status: kept.status, statusText: "" }), refusalOf(kept.status, kept));
  if (solo.doc && solo.view) markOlder(true);
  setStatus($("status"), () => [notThisDeck(err), ...(solo.doc ? [t("ui.upload_interrupted_older")] : [])].join("; "), true);
}

// A refusal of a photo as not of the deck chosen, in the player's words: a deck enrolled elsewhere
// (no token for it on this phone) learns nothing from it: the refusal's "teach the deck this
// photo's cards too" led to naming 20 cards for a new deck the player had not asked for (a newcomer's run).
function notThisDeck(err) {
  const chosen = deckChosen(), elsewhere = err.code === "not_this_deck" && chosen && chosen !== builtinDeck && !teachingDeck();
  return elsewhere ? t("ui.not_this_deck_elsewhere", { name: deckTitle(chosen) }) : unnamedRefusal(err);
}

function restoreSolo() {
  if (solo.sent) return;  // a photo chosen before the page was ready is on its way: it is the one to show
  try { showRestored(); } catch { solo.doc = null; solo.work = {}; forgetSolo(); }  // a damaged state: the page as new, never a broken one
  if (!INTERRUPTED) restoreTeach();
  if (INTERRUPTED) {
    const older = !!solo.doc;
    setStatus($("status"), () => [t("ui.upload_interrupted"), ...(older ? [t("ui.upload_interrupted_older")] : [])].join(" "), true);
  }
}

function showRestored() {
  let state = null;
  try { state = unpacked(sessionStorage.getItem(SOLO_KEY)); } catch { /* damaged: nothing to restore */ }
  if (!state || !state.doc || !state.read || !state.player) return;
  Object.assign(solo, { doc: state.doc, index: state.index || 0, teaching: !!state.teaching, showAnyway: !!state.showAnyway,
    remembered: state.remembered && state.remembered.name ? state.remembered : null, photoData: state.photo || null, file: state.photo ? photoFile(state.photo) : null,
    work: state.work || {} });
  const view = soloView();
  const { grid, cells, doubts, photo, size, leftOut } = state.read;
  view.load({ ...state.player, read_grid: grid, cells, doubts, photo_url: photo, photo_size: size, left_out: leftOut || state.player.left_out });
  applyWork(view, state);
  $("forget").hidden = !solo.remembered;
  showSolo(state.player);
}

function soloView() {
  solo.view = solo.view || new TableauView($("solo-tableau"), { editable: true, onChange: correctSolo, unsure: $("unsure"), majorityNote: gameMajorityNote,
    // A change taken back: the pad too, to the score of the view gone back to (a change's score
    // that came back after the next was made: ``TableauView.commit``).
    // The total said again to a screen reader: it kept "Total: 52? Not final" once the total shown
    // was final (a newcomer's walk).
    onKept: () => { soloPad(solo.view.player); saveSolo(); refreshGameDoubts(); if (!solo.teaching) announceTotal(); },
    onTakenBack: () => showSolo(solo.view.player),
    // "The grid is right": no room to tell; the total and the pad final at once, kept through a reload.
    // Its "tap The grid is right" done with (it stayed once tapped: a Czech walk).
    onChecked: () => {
      soloPad(solo.view.player); saveSolo(); refreshGameDoubts(); announceTotal();
      if ($("status").mark === "review_done") setStatus($("status"), "");
    },
    // "Check the 3 doubtful cards first" goes once they are (it stayed under the button: a walk).
    onSettled: () => { if ($("remember-status").mark === "unsure") setStatus($("remember-status"), ""); } });
  return solo.view;
}

// A photo of the whole game: its tableaux scored as one game's players, the majorities compared
// across them (each tableau is shown alone, as if its player sat alone: the neighbour's at the edge
// of a player's photo is no rival; a walk, in Czech: "Total: 31" for a tableau worth 28 in the game
// the photo showed, and no way to score it so). Each tableau as it stands, its corrections too; a
// total is marked "?" while its tableau has cards in doubt or not shown.
// A stream's or a wolf's place in the photo's game, once its tableaux are scored as one game and
// while that pad stands (``TableauView.majorityNote``): the tableau's explanation gave its places
// scored alone below a pad giving the game's ("1st place, 12 points" beside the game's 8: a walk).
function gameMajorityNote(type) {
  const game = solo.game;
  if (!game || game.doc !== solo.doc || game.index !== solo.index || $("game").hidden) return "";
  const maj = ((game.players[game.index] || {}).majorities || {})[type];
  return maj && maj.place ? t("ui.explain_as_game", { place: placeText(maj.place), points: pts(maj.points) }) : "";
}

// Each tableau of the photo shown, as the game scores it: its grid as it stands, its cells still
// in doubt (a card corrected or kept as read is no longer in doubt; a cell not shown, unknown,
// stays so until it is named) and its photo's doubts still standing.
function gameTableaux(shown) {
  return shown.players.map((p, i) => {
    const work = i === solo.index ? workOf(solo.view) : solo.work[i];
    const settled = new Set([...(work ? work.corrected : []), ...(work ? work.checked : [])]);
    const open = (p.cells || []).flatMap((row, r) => row.map((cell, c) => [cell, r, c]))
      .filter(([cell, r, c]) => cell && ((cell.doubts && cell.doubts.length) || cell.unknown) && !settled.has(key(r, c)));
    // Named by number, as "Tableau 2 of 3 shown" numbers them: "Tableau 1" cut three columns
    // short to "Ekosysté…" on a 360 px phone, the third off the screen.
    // Its doubts of the photo or the grid still standing, as its own pad says them (a tableau
    // "45?" for an empty cell was a plain 45 here: an Italian walk).
    const readDoubts = i === solo.index ? solo.view.readDoubts() : readDoubtsOf(p, work);
    return { name: String(i + 1), grid: work ? work.grid : p.grid, open: open.length, readDoubts };
  });
}

// The game's pad, shown, told of a card kept or the grid said right (no grid changed, so no
// score either): its "41?" stayed beside the tableau's final 44 until the game was asked again
// (a Czech walk). A correction scores the game again (``showSolo``).
function refreshGameDoubts() {
  const game = solo.game;
  if (!game || game.doc !== solo.doc || $("game").hidden) return;
  const now = gameTableaux(solo.doc);
  game.players = game.players.map((q, i) => ({ ...q, open: now[i].open, readDoubts: now[i].readDoubts }));
  renderGame(game.players);
}

// ``again``: the pad shown scored anew after a correction, an Undo or another tableau shown (it
// was hidden, with the button still offered as if nothing were shown: a walk), where the player
// is, unsaid (the tableau's own total is said).
async function scoreAsOneGame(again = false) {
  const shown = solo.doc, button = $("as-game");
  if (!shown || shown.players.length < 3) return;
  const tableaux = gameTableaux(shown), asked = (solo.gameAsked = (solo.gameAsked || 0) + 1);
  button.disabled = true;
  try {
    const doc = await api("POST", "/api/grid", { players: tableaux.map(({ name, grid }) => ({ name, grid })) });
    if (solo.doc !== shown || asked !== solo.gameAsked) return;  // a newer photo, or a newer ask, came meanwhile
    const scored = doc.players.map((q, i) => ({ ...q, open: tableaux[i].open, readDoubts: tableaux[i].readDoubts }));
    renderGame(scored);
    solo.game = { doc: shown, index: solo.index, players: scored };
    solo.view.renderExplain();  // a card's explanation open: its place in the game said
    if (again) return;
    // Said in a line, not the pad read out cell by cell (the section was a live region: an audit).
    const marked = [...$("game-pad").querySelectorAll("tr.total td")].map((td) => td.textContent);
    say(`${t("ui.game_title")}: ${scored.map((q, i) => `${q.name}: ${marked[i]}`).join(", ")}.`);
    $("game").scrollIntoView({ block: "nearest" });
    // the button gone with the pad shown: the focus on the pad, not fallen to the page's top (an audit)
    if (!document.activeElement || document.activeElement === document.body || document.activeElement === button) {
      $("game").querySelector(".pad-wrap").focus({ preventScroll: true });
    }
  } catch (err) {
    setStatus($("status"), err, true);
    if (again) showGame(false);  // a pad of the grids as they were is not left standing
  } finally {
    button.disabled = false;
  }
}

function renderGame(scored) {
  renderPad($("game-pad"), scored, { unsure: (p) => p.open, reasons: (p) => p.readDoubts });
  markShownColumn($("game-pad"), solo.index);
  showGame(true);
}

// The photo as one game shown or not; the tableau's own total below it then says it is scored
// alone ("Total: 59" under the game's 56 was read as the player's score: a walk, in Russian).
const totalLabel = () => document.querySelector("#result .total [data-i18n]");
function showGame(shown) {
  $("game").hidden = !shown;
  if (shown) $("as-game").hidden = true;  // asked: scored again by itself while shown
  else if (solo.doc && !$("which").hidden) $("as-game").hidden = solo.doc.players.length < 3;
  const label = totalLabel();
  label.dataset.i18n = shown ? "ui.total_alone" : "ui.total";
  label.textContent = t(label.dataset.i18n);
  // ... and drawn smaller than the game's: "Celkem, počítáno samostatně: 59" in big type under the
  // game's 56 still read as the player's score (a Czech walk)
  label.closest("h2").classList.toggle("alone", shown);
}

// The game's column of the tableau shown below it, marked: its total there (the majorities compared)
// and "Total" below (scored as if alone) read as two totals of one tableau, with nothing to say
// which column it was (a walk).
function markShownColumn(table, index) {
  for (const tr of table.rows) {
    [...tr.cells].forEach((cell, i) => cell.classList.toggle("shown", i === index + 1));
  }
  const th = table.tHead && table.tHead.rows[0].cells[index + 1];
  if (th) { th.setAttribute("aria-current", "true"); th.title = t("ui.showing_tableau", { k: index + 1, n: table.tHead.rows[0].cells.length - 1 }); }
}

// The last read kept under a refusal is marked as the previous photo's, on the result itself and
// dimmed: a clause at the end of the refusal's paragraph was all that said so, and "Total: 47"
// with the old photo below read as the new photo's score (a walk, in Czech).
// Its pad's column says so too ("This photo" headed the old photo's score), and the note is a
// label, not the refusal's sentence again (said twice, one under the other: an Italian walk).
function markOlder(older) {
  solo.older = older;
  $("older").hidden = !older;
  $("result").classList.toggle("older", older);
  const head = $("pad").querySelector("thead th:nth-child(2)");
  if (head) head.textContent = head.title = t(older ? "ui.previous_photo" : "ui.this_photo");
}

async function scorePhoto(file) {
  if (!file) return;
  solo.sent = true;
  // a new photo: nothing of the last one may look like its result
  $("result").hidden = true; $("retake").hidden = true; $("teach").hidden = true; $("which").hidden = true;
  setStatus($("remember-status"), ""); $("forget").hidden = true; showGame(false);
  markOlder(false);
  solo.teachFile = null; forgetTeach();
  try {
    const doc = await sending(sendSolo("/api/photo", file, { deck: deckChosen() }));
    // cancelled: the last photo's result comes back (a player's walk-through: it was gone)
    if (doc === null && solo.doc && solo.view) { showSolo(solo.view.player); $("forget").hidden = !solo.remembered; }
    if (!doc) return;
    solo.doc = doc; solo.showAnyway = false; solo.file = file; solo.photoData = null; solo.teaching = false;
    solo.remembered = null; solo.work = {};
    solo.index = 0;  // the tableau with the most cards comes first (the player's own, most often)
    const p = await scoredAlone(doc.players[0], doc);
    soloView().load({ ...p, read_grid: p.grid });
    showSolo(p);
    keepPhoto(file);
    // "Showing the one with the most cards" of four tableaux of 20 each said a choice that was none (a walk).
    const cards = (q) => q.grid.flat().filter(Boolean).length;
    const found = doc.players.length > 1 && cards(doc.players[0]) === cards(doc.players[1]) ? "ui.several_found_alike" : "ui.several_found";
    setStatus($("status"), () => doc.players.length > 1 ? t(found, { n: doc.players.length }) : "");
    announceTotal();
  } catch (err) {
    if (leaving) return;  // the upload dropped by a reload: the next page load says so
    if (err.code === "no_such_deck" || err.code === "deck_incomplete") await deckGone(err);
    // The player's own deck, read against one that is not theirs (the stand-in, at first):
    // every card is "not of this deck" and there is no read to correct. Offer its cells to name.
    if (err.code === "not_this_deck") {
      solo.teachFile = file;
      // A deck this phone is building: its next photo is one to name, so it goes there at once
      // (a walk: each photo after the first met a red refusal before the offer to name it). Not
      // laid out (cancelled, refused): the refusal and its offer, the last read kept, as below.
      // A newer photo taken while this one was laid out shows its own result: this one says nothing
      // more (its refusal and offer were shown over the newer read: a review).
      if (localStorage.getItem(BUILDING_KEY) && teachingDeck() && await teachPhoto() !== false) return;
      $("teach").hidden = false;
      keepTeach(file, err);
    }
    // A photo that cannot be read loses nothing: the last read, and every card corrected or named
    // on it, comes back under the refusal (a walk: a photo of the wall wiped a corrected score
    // out), its teach offer, if any, beside it.
    // ... unless it gave no score itself ("Couldn't read this photo"): shown again under "the
    // score below is from the previous photo", its box said so of no score, and was announced
    // again as if of the new photo (an audit).
    const kept = solo.doc && solo.view && (solo.view.readDoubtCount() < UNREADABLE || solo.showAnyway);
    if (kept) { showSolo(solo.view.player); $("forget").hidden = !solo.remembered; markOlder(true); }
    const refused = () => notThisDeck(err);
    // A clause of its own, so the refusal's last one ends with its stop ("... in even light The score below ...").
    // Marked offline as the error is: the network back, it goes (it stayed, under the banner's
    // "can be scored again", as if the photo had been refused: a walk, in Russian).
    setStatus($("status"), Object.assign(() => [refused(), ...(kept ? [t("ui.upload_interrupted_older")] : [])].join("; "),
      { offline: !!err.offline }), true);
    if (!kept) { solo.doc = null; solo.file = null; solo.photoData = null; forgetSolo(); }
  } finally { settled(); }
}

// The deck a photo was sent with (``deck``) is gone from the server: the menu is listed again
// (which forgets it if it was chosen, and says so), and the refusal says what to do on the page,
// not on the server. Named as it was sent: the menu may have been changed since (a review).
async function deckGone(err, deck = deckChosen()) {
  const name = deckTitle(deck), unready = err.code === "deck_incomplete";
  await loadDecks($("deck"));
  err.say = () => t(unready ? "ui.deck_unready" : room.id ? "ui.deck_gone_room" : "ui.deck_gone", { name });
}

// ---------- a deck of the player's own, started from a photo no deck reads ----------

// The deck a photo's cards are remembered for without asking: the one this phone is building, or
// the one chosen if this phone started it (it holds its token); "": a new deck, named when remembered.
function teachingDeck() {
  const name = localStorage.getItem(BUILDING_KEY) || deckChosen();
  return name && name !== "standin" && localStorage.getItem(deckTokenKey(name)) ? name : "";
}

// Resolves to whether the photo's cells were laid out to name (false: cancelled, or refused;
// undefined: a newer photo took its place, and shows its own result).
async function teachPhoto() {
  const file = solo.teachFile;
  if (!file) return false;
  $("teach").hidden = true;
  // A deck half built reads no photo yet, so its second photo came back with all 20 cells to name
  // again (a walk): the cells it names surely come named, its guesses, each for the player to check.
  const deck = teachingDeck();
  try {
    const layout = await sending(sendSolo("/api/layout", file, deck ? { deck } : {}));
    if (layout === undefined) return undefined;
    if (!layout) { $("teach").hidden = solo.teachFile !== file; return false; }  // cancelled: still offered
    forgetTeach();  // laid out: kept as a read is (saveSolo)
    for (const cell of layout.cells.flat()) if (cell.guess) cell.deck = deck;  // whose guess (the picker says)
    // The grid as guessed (blank where nothing guessed) scored as it is: each card named since is
    // scored as a correction is.
    const guessed = layout.cells.map((row) => row.map((cell) => cell.guess || null));
    const doc = await api("POST", "/api/grid", { players: [{ name: "photo", grid: guessed }] });
    const p = { ...doc.players[0], cells: layout.cells, doubts: layout.doubts, photo_url: layout.photo_url, photo_size: layout.photo_size };
    solo.doc = doc; solo.file = file; solo.photoData = null; solo.showAnyway = true; solo.teaching = true;  // every cell doubtful: no "retake" here
    solo.remembered = null; solo.work = {};
    soloView().load({ ...p, read_grid: guessed });
    markOlder(false);
    showSolo(p);
    keepPhoto(file);
    const n = guessed.flat().filter(Boolean).length;
    setStatus($("status"), () => (n ? t("ui.teach_guessed", { n, name: deckTitle(deck) }) : t("ui.teach_started")));
    // The button pressed is gone with its box: the focus fell to the top of the page (a walk,
    // keyboard only). On to naming the cards one by one.
    if (!document.activeElement || document.activeElement === document.body) soloView().q(".review").focus();
    return true;
  } catch (err) {
    if (!leaving) { setStatus($("status"), err, true); $("teach").hidden = solo.teachFile !== file; }  // offered again
    return false;
  } finally { settled(); }
}

// What a read advises for the photo (shown in the retake box). The wrong deck chosen is among
// them: "your deck may know these cards from too few pictures" sent a player to teach their
// deck the built-in deck's cards (a walk-through). A grid found only on a small copy of the
// photo says to photograph from higher up: behind "show anyway" a player never saw it.
const ADVICE = new Set(["api.too_steep", "api.too_far", "api.cut_by_frame", "api.too_dark", "api.no_colour", "api.glare", "api.blurred", "api.wrong_deck", "api.deck_shown",
  "api.small_canvas"]);
const isAdvice = (doubt) => ADVICE.has((I18N.match(doubt) || {}).key);
const adviceOf = (doubts) => (doubts || []).filter(isAdvice);
// A doubt is a clause ("taken at a low angle (...): hold the phone higher"); several written in
// one line ran together with nothing between them (a walk at 320 px, in Russian).
const stopped = (text) => text + (/[.!?]$/.test(text) ? "" : ".");
const sentence = (text) => stopped(text.charAt(0).toUpperCase() + text.slice(1));

// A photo of several tableaux (the neighbour's at the edge): one is shown, the others a tap away
// (only the first could be seen: a player's walk-through).
// What was corrected on the one left is kept, and shown again on coming back to it.
async function otherTableau() {
  const shown = solo.doc, players = shown.players, button = $("other-tableau");
  const index = (solo.index + 1) % players.length;
  button.disabled = true;  // one switch at a time: each scores the next tableau first
  try {
    const kept = solo.work[index];
    const p = kept ? kept.player : await scoredAlone(players[index], shown);
    if (solo.doc !== shown || solo.pending) return;  // a newer photo came meanwhile
    // A card's picker opened meanwhile (or Review's walk) names a card of the tableau left:
    // closed (Review stops), never a choice written into the other one.
    if ($("picker").open) $("picker").close();
    solo.work[solo.index] = workOf(solo.view);
    delete solo.work[index];  // shown now: the view holds it
    solo.index = index;
    const read = players[index];
    solo.view.load({ ...p, read_grid: read.grid, cells: read.cells, doubts: read.doubts,
      photo_url: read.photo_url, photo_size: read.photo_size, left_out: read.left_out });
    setStatus($("status"), "");  // the last tableau's news ("Score updated...") is not this one's
    if (kept) applyWork(solo.view, kept);
    showSolo(solo.view.player);
    announceTotal();  // the new tableau's total (the last one's stayed said, silent: an audit)
  } catch (err) { if (solo.doc === shown && !solo.pending) setStatus($("status"), err, true); } finally {
    button.disabled = false;
    if (!document.activeElement || document.activeElement === document.body) button.focus();  // (as above)
  }
}

// The service scores the tableaux of one photo as players of one game; here each is shown as
// one player's own, scored alone as a correction then scores it (the neighbour's tableau was
// counted as a rival for the majorities until the first correction: a walk).
async function scoredAlone(p, photo) {
  if (photo.players.length < 2) return p;
  const doc = await api("POST", "/api/grid", { players: [{ name: p.name, grid: p.grid }] });
  photo.provisional_majorities = doc.provisional_majorities;
  const { cards, biodiversity, gaps, total, majorities, explanation, deck_issues } = doc.players[0];
  return { ...p, cards, biodiversity, gaps, total, majorities, explanation, deck_issues };
}

// "Correct the grid first: every card then becomes a reference": not while the cards are being
// named (no grid to correct yet), nor over the grid just remembered (a newcomer's walk).
function showRememberHint() {
  const remembered = solo.remembered && solo.view && solo.remembered.grid === JSON.stringify(solo.view.grid);
  $("remember-hint").hidden = !!solo.teaching || !!remembered;
}

function showSolo(player) {
  showRememberHint();
  const several = !solo.teaching && solo.doc.players.length > 1;
  $("which").hidden = !several;
  if (several) {
    // Which one is shown, said (only the next was named: a walk).
    $("which-shown").textContent = t("ui.showing_tableau", { k: solo.index + 1, n: solo.doc.players.length });
    $("other-tableau").textContent = t("ui.other_tableau", { k: (solo.index + 1) % solo.doc.players.length + 1, n: solo.doc.players.length });
    $("as-game").textContent = t("ui.as_one_game", { n: solo.doc.players.length });
  }
  // Three tableaux or more: a game of two has a neutral pile (or is a solo game and its bot), which
  // a photo does not show: a room asks for it.
  // The game's pad shown stays, scored again with the grids as they are now.
  const gameShown = several && solo.game && solo.game.doc === solo.doc && !$("game").hidden;
  $("as-game").hidden = !several || solo.doc.players.length < 3 || gameShown;
  if (gameShown) scoreAsOneGame(true); else showGame(false);
  const unreadable = solo.view.readDoubtCount() >= UNREADABLE && !solo.showAnyway;
  $("retake").hidden = !unreadable;
  $("result").hidden = unreadable;
  // Of a photo of several tableaux, the one shown is what could not be read: a neighbour's at the
  // edge, say, while the player's own read well (a walk: "Couldn't read this photo", retake it).
  const heading = $("retake").querySelector("h2");
  heading.dataset.i18n = several ? "ui.unreadable_tableau_title" : "ui.unreadable_title";  // kept on a language switch
  setText(heading, t(heading.dataset.i18n));
  setText($("retake-text"), [t("ui.unreadable_text", { n: solo.view.readDoubtCount() }),
    ...(several ? [t("ui.unreadable_several", { n: solo.doc.players.length })] : [])].join(" "));
  // What this photo's read says to do (too steep, cut by the frame ...), not only the general
  // tips: it was to be seen only after "Show anyway" (a player's walk-through). Read with a
  // deck of the player's own, doubts with no such cause may be the deck's: few references yet.
  const advice = adviceOf(player.doubts).map((d) => translated(d));
  const ownDeck = player.deck && player.deck !== "standin" && !advice.length && localStorage.getItem(deckTokenKey(player.deck));
  const retakeAdvice = [...advice, ...(ownDeck ? [t("ui.retake_deck", { name: deckTitle(player.deck) })] : [])];
  const said = retakeAdvice.map(sentence);  // (the alert box said again only when it changes)
  if ([...$("retake-advice").children].map((li) => li.textContent).join("\n") !== said.join("\n")) {
    $("retake-advice").replaceChildren(...said.map((text) => Object.assign(document.createElement("li"), { textContent: text })));
  }
  $("retake-advice").hidden = !retakeAdvice.length;  // an empty list's margins are a gap
  $("total").textContent = minus(player.total);
  $("provisional").textContent = solo.doc.provisional_majorities ? t("ui.provisional") : "";
  soloPad(player);
  saveSolo(player);
}

// The total as the page shows it ("Total: 28?" and why not final), told to a screen reader once a
// photo is read or a correction scored: the status line was emptied and the focus stayed on the
// file button, and nothing said the score had come (an audit).
function announceTotal() {
  const shown = !$("result").hidden && !document.querySelector("#result .total").hidden;
  const unsure = !$("total-unsure").hidden;
  const text = shown ? [`${t(totalLabel().dataset.i18n)}: ${$("total").textContent}${unsure ? "?" : "."}`,
    unsure ? $("total-unsure").dataset.said : ""].filter(Boolean).join(" ") : "";
  say(text);
}

// A change a screen reader hears: said in #said, or, while a dialog is open (the review's
// picker: the page behind a modal is out of the accessibility tree), in the dialog's own live
// region too (corrected in a review, the total went unsaid until it ended: an audit).
function say(text) {
  for (const el of [$("said"), ...document.querySelectorAll("dialog .live")]) el.textContent = "";
  // (the dialog open at the next frame: a review's next card opens its picker as the last one's
  // total is said)
  requestAnimationFrame(() => {
    $("said").textContent = text;
    const open = document.querySelector("dialog[open] .live");
    if (open) open.textContent = text;
  });
}

// Who a room waits for: two in a game of 3-6, a third (not "a game of one"); one in a duel, the
// other player (it said "the other players'": a walk, in Czech); else the others.
function waitingFor(game) {
  if (game.players.length > 1) return "ui.waiting_third";
  return room.doc && room.doc.mode === "two-player" ? "ui.waiting_second" : "ui.waiting_players";
}

function soloPad(player) {
  // A grid still being named has no score yet: the count of cards to name is said instead (#unsure).
  const naming = solo.view.naming();
  document.querySelector("#result .total").hidden = naming;
  document.querySelector("#result .pad-wrap").hidden = naming;
  $("provisional").hidden = naming;  // "majorities are provisional": of a score not shown
  if (naming) $("bio-explain").hidden = true;
  // A deck's guesses not yet confirmed are as unsure as doubtful cards (a walk: "Total: 41",
  // final-looking, over 19 cards marked "?").
  const pending = solo.view.doubtfulCells().length + solo.view.guessedCells().length;
  // Headed "This photo", not with the photo's file name ("IMG_20261128_..." on a phone).
  // A read with a doubt of the photo or the grid is no final score either, its cards checked or not.
  const reasons = solo.view.readDoubts();
  renderPad($("pad"), [{ ...player, name: t(solo.older ? "ui.previous_photo" : "ui.this_photo") }], { bioTarget: $("bio-explain"), unsure: () => pending, reasons: () => reasons });
  // The biggest number on the page is marked as the pad's is while a card is in doubt (a walk:
  // "Total: 35" above a pad saying "35?").
  $("total-unsure").hidden = !pending && !reasons.length;
  $("total-unsure").title = [pending ? t("ui.total_unsure", { n: pending }) : "",
    reasons.length ? reasonsText(t("ui.this_photo"), reasons) : ""].filter(Boolean).join(" ");
  // What a screen reader hears with the total: why it is not final in a sentence or two, not each
  // doubt again (the blurred photo's advice after every correction, 308 characters: an audit).
  $("total-unsure").dataset.said = [pending ? t("ui.total_unsure", { n: pending }) : "",
    reasons.length ? t(pending ? "ui.read_unsure_too" : "ui.read_unsure") : ""].filter(Boolean).join(" ");
}

// ``failNear``: where its failure is said (beside the tableau), if it fails.
async function correctSolo(grid, message, near = null, failNear = near) {
  // "name every card first: 19" goes stale as cards are named; a clash, once a card is changed
  if (solo.teaching || $("remember-status").mark === "clash") setStatus($("remember-status"), "");
  if (!grid) { setStatus($("status"), message || ""); return null; }
  const shown = solo.doc, index = solo.index, before = solo.view.player, said = $("status").say;
  // The corrected grid kept before its score comes: a reload meanwhile dropped the correction
  // without a word (a walk); restored, a grid its score is not of is scored again (applyWork).
  saveSolo(before);
  try {
    const doc = await api("POST", "/api/grid", { players: [{ name: before.name, grid }] });
    // A newer photo came: this read is no longer the one shown, and must not come back over it
    // (a walk: the old result reappeared under the upload's progress bar).
    if (solo.doc !== shown) return null;
    const player = { ...before, ...doc.players[0] };
    // The score is the grid's it was asked for: kept where that grid still is (the tableau shown,
    // or the one left for the neighbour's), never beside a grid changed since (a later
    // correction's answer scores that one; answers may come in any order).
    if (solo.index !== index) {
      const work = solo.work[index];
      if (work && sameGrid(work.grid, grid)) { work.player = player; saveSolo(); }
      return null;
    }
    // Changed since: scored, not shown (the view keeps it to go back to, if the change made since fails).
    if (!sameGrid(solo.view.grid, grid)) return player;
    solo.view.player = player; solo.view.render();
    // A photo on its way: shown if it is cancelled, not under its progress bar now.
    if (solo.pending) { saveSolo(player); return null; }
    showSolo(player);
    // A photo refused meanwhile keeps its word: the player must still see that it was not read.
    const refusedSince = $("status").say !== said && $("status").classList.contains("error");
    // (naming a deck's cards, no score is shown: "Score updated" said nothing true)
    const done = Object.assign(solo.teaching ? () => t("ui.card_named") : () => t("ui.updated"), { mark: "updated" });
    if (message !== null && !refusedSince) sayNear(near, $("status"), message || done);  // null: a re-score
    if (message !== null && !solo.teaching) announceTotal();
    return player;
  } catch (err) {
    if (solo.doc !== shown || solo.index !== index || solo.pending) return null;
    // Failed as the page goes (a reload, the phone's camera taking it down: a browser may fail its
    // requests before it leaves): the correction stays, as kept in the tab's storage above, and is
    // scored again when the page is back (applyWork). Taken back, the grid before it was saved in
    // its place, and the reload showed it (a full run: 50, not the corrected 48). As a photo's upload.
    if (leaving) return null;
    sayNear(failNear || near, $("status"), err, true);
    // Not saved either way; where a later change is on its way, the view takes this one back with
    // it if that one fails too (``TableauView.commit``).
    return UNSAVED;
  }
}

// ---------- game rooms ----------
// ``ready``: the room's first load (to join, whether a name is taken and its version are needed:
// taps before it wait for it; a page can be tapped before its scripts have loaded the room).
let roomLoaded;
const room = { id: null, ready: new Promise((resolve) => { roomLoaded = resolve; }), version: -1, doc: null, views: new Map(), other: null, otherName: null,
  seen: new Set() };  // every player's name this page has seen in the room (``showRoom``)
const tokenKey = (name) => `ecoscore:${room.id}:${name}`;
const ownerKey = (id) => `ecoscore-owner:${id}`;  // the room creator's token (room-wide settings)
// Room-wide writes: the creator's token and the version they were made on (If-Match).
const ownerHeaders = () => ({ "X-Room-Token": localStorage.getItem(ownerKey(room.id)) || "", "If-Match": `"${room.doc ? room.doc.version : 0}"` });
let sendRoom, sendBot;

async function loadRoom(force = false) {
  try {
    // A poll names the answer it has (its ETag): the service says "nothing new" from the room's
    // version and deck alone (each answer loaded and scored the whole game, every two seconds,
    // for every phone: a review).
    const answer = {};
    const doc = await api("GET", `/api/rooms/${room.id}`, undefined, force || !room.etag ? {} : { "If-None-Match": room.etag }, answer);
    if (!doc) return;
    // Only a newer room: a poll sent before a write and answered after it would put the old back.
    // The same version with another ETag is the room's deck changed (removed, made again): taken.
    const moved = doc.version > room.version || (doc.version === room.version && answer.etag !== room.etag);
    const before = room.doc;
    if (force || moved) { room.version = doc.version; room.doc = doc; room.etag = answer.etag; showRoom(doc); }
    if (force) keepRecentRoom(room.id, true, doc.players); else if (moved) nameRecentRoom(room.id, doc.players);
    // The room changed on another phone: this phone's own news no longer stands once read ("Luca's
    // tableau was removed" stayed above a pad showing Luca's new photo: an Italian walk), then or
    // when it is 15 s old (the next polls may bring nothing new). A failure stays until the player
    // acts; a photo on its way keeps its "Sending…".
    const said = $("room-status");
    if (!force && moved && !said.classList.contains("error")) {
      const at = said.at;
      setTimeout(() => { if (said.at === at && !roomSending && !said.classList.contains("error")) setStatus(said, ""); },
        Math.max(0, (at || 0) + STALE_NEWS_MS - Date.now()));
    }
    if (!force && moved) sayMajoritiesMoved(before, doc);
  } catch (err) {
    if (err.status === 404) { keepRecentRoom(room.id, false); roomGone(err); return; }
    // A poll lost to the network: the banner says so, and the next poll tries again. Said here,
    // it stood over what the room had said (a photo's "added, but 8 cards in doubt") for good (a walk).
    if (err.offline) return;
    setStatus($("room-status"), err, true);
  }
}

const STALE_NEWS_MS = 15000;  // a room's news of this phone's change, kept this long at least

// Other phones' changes (a tableau added, corrected, replaced or removed) that moved the stream
// and wolf majorities, and with them the totals of players whose tableaux did not change (Jana's
// 36 became 33 when Оля corrected a card, without a word: a game night's walk): "The stream and
// wolf majorities moved (Оля): Jana 36 → 33." Nothing where the only change was this phone's
// own, where no unchanged player's total moved, or on a room's first look. So are the room
// creator's neutral pile and bot's grid, given on the creator's phone (a duel's totals moved
// 45 → 38 on the other phone without a word: a walk).
function majoritiesMoved(before, after) {
  const totals = (doc) => new Map(((doc.game && doc.game.players) || []).filter((p) => !p.bot).map((p) => [p.name, p.total]));
  const was = totals(before), now = totals(after), versionWas = before.versions || {}, versionNow = after.versions || {};
  const changed = [...after.players.filter((name) => versionNow[name] !== versionWas[name]),
    ...before.players.filter((name) => !after.players.includes(name))];
  const here = new Set(seatsHere(after.players));
  const others = changed.filter((name) => !here.has(name));
  const moved = [...now].filter(([name, total]) => !changed.includes(name) && was.has(name) && was.get(name) !== total);
  if (!moved.length) return null;
  const scores = () => nameList(moved.map(([name, total]) => `${name} ${was.get(name)} → ${total}`));
  if (others.length) return () => t("ui.room_majorities_moved", { who: nameList(others), scores: scores() });
  const setting = creatorsChange(before, after);
  return setting ? () => t(setting, { scores: scores() }) : null;
}

// The catalogue key saying that the room's creator changed its neutral pile or its bot's grid, on
// a phone not the creator's (whose own Save said so); else null.
function creatorsChange(before, after) {
  if (localStorage.getItem(ownerKey(after.id))) return null;
  const same = (key) => JSON.stringify(before[key] ?? null) === JSON.stringify(after[key] ?? null);
  if (!same("neutral") || !same("neutral_given")) return "ui.room_pile_moved";
  if (!same("bot")) return "ui.room_bot_moved";
  return null;
}

// Said on the room's line, after what this phone's own news says there while it is fresh (it
// replaced "added, 3 cards in doubt" two seconds on: a review). Called wherever a newer room
// replaces the one shown: a poll, or the answer to this phone's own write (which may bring
// another phone's change with it).
// An earlier such news on the line is replaced, not added to: a correction and its Undo on
// another phone left both sentences, "44 → 40" then "40 → 44" (a walk); this phone's own news
// before it stays while fresh.
function sayMajoritiesMoved(before, after) {
  const news = before && after && majoritiesMoved(before, after), said = $("room-status");
  if (!news || roomSending || said.classList.contains("error")) return;
  const fresh = said.say && said.textContent && Date.now() - (said.at || 0) < STALE_NEWS_MS;
  const own = !fresh ? null : said.mark === "moved" ? said.say.own : said.say;
  const line = own ? () => `${own()} ${news()}` : news;
  setStatus(said, Object.assign(line, { mark: "moved", own }));
}

// The rooms this phone was in lately, newest first (the start page links back to them), each with
// its players' names as last seen: bare codes ("k3x9q2, m7p4w8") told a player nothing of which
// game was which (a game night's walk). An entry kept by an older page is its code alone.
const RECENT_ROOMS = "ecoscore:recent-rooms", RECENT_MAX = 3, RECENT_NAMES = 4;
function recentRooms() {
  try {
    const kept = JSON.parse(localStorage.getItem(RECENT_ROOMS) || "[]");
    if (!Array.isArray(kept)) return [];
    return kept.map((entry) => (typeof entry === "string" ? { id: entry, names: [] } : entry))
      .filter((entry) => entry && typeof entry.id === "string" && /^[a-z0-9]+$/.test(entry.id)).slice(0, RECENT_MAX)
      .map(({ id, names }) => ({ id, names: Array.isArray(names) ? names.filter((n) => typeof n === "string") : [] }));
  } catch { return []; }  // damaged: none
}
function storeRecentRooms(entries) {
  try { localStorage.setItem(RECENT_ROOMS, JSON.stringify(entries.slice(0, RECENT_MAX))); } catch { /* storage full or off */ }
}
// ``names``: the room's players now (null: as kept).
function keepRecentRoom(id, keep = true, names = null) {
  const entries = recentRooms(), old = entries.find((entry) => entry.id === id);
  const entry = { id, names: names ?? (old ? old.names : []) };
  storeRecentRooms([...(keep ? [entry] : []), ...entries.filter((x) => x.id !== id)]);
}
// Its players named anew as a poll brings them, its place in the list kept.
function nameRecentRoom(id, names) {
  const entries = recentRooms(), entry = entries.find((x) => x.id === id);
  if (entry && !sameGrid(entry.names, names)) { entry.names = names; storeRecentRooms(entries); }
}
function showRecentRooms() {
  const entries = recentRooms();
  const said = ({ id, names }) => (names.length ? t("ui.recent_room", { id, names: nameList(names.length > RECENT_NAMES
    ? [...names.slice(0, RECENT_NAMES - 1), t("ui.recent_more", { n: names.length - RECENT_NAMES + 1 })] : names) }) : id);
  $("recent-links").replaceChildren(...entries.flatMap((entry, i) => [...(i ? [", "] : []),
    Object.assign(document.createElement("a"), { href: `/r/${entry.id}`, textContent: said(entry) })]));
  $("recent-rooms").hidden = !entries.length;
}

// A room link to no room (mistyped, or deleted when it idled): say so, offer the start page,
// and stop asking the service every two seconds (a player's walk-through: a half-working page).
function roomGone(err) {
  clearInterval(room.poll);
  for (const el of [document.querySelector("#room-view .share"), $("join"), $("neutral-box"), $("bot-box")]) el.hidden = true;
  setStatus($("room-status"), err, true);
  $("room-home").hidden = false;
}

// Players' names as the language lists them: "Giulia e Chiara", not "Giulia, Chiara" (an Italian walk).
const nameList = (names) => new Intl.ListFormat(I18N.lang, { type: "conjunction" }).format(names);

// ``unsure``: a card of the game is still in doubt: who leads is said, not who won (a walk:
// "Winner: Bob." above two totals marked "?").
function winnersText(game, unsure = false) {
  // A solo room before the bot's grid: "Winner: Giulia. Majorities are provisional until more
  // players join" (a walk): no one else joins a solo game, and no one has won yet.
  const waiting = room.doc && room.doc.waiting_for;
  // Asked of the room's creator; told to the others (their boxes are read-only: a review).
  const creator = room.doc && !!localStorage.getItem(ownerKey(room.doc.id));
  // One player so far in a duel or a game: no one has won a game of one (a newcomer's walk: "Winner:
  // Anna" in a two-player room before Bob's photo); two in a game of 3-6: its third is awaited.
  // A duel waiting for its second player whose pile is not given yet says so too (it said only the
  // player: a game night's walk).
  const pileToo = room.doc && room.doc.mode === "two-player" && !pileGiven(room.doc);
  if (waiting === "players") return t(waitingFor(game)) + (pileToo ? " " + t(creator ? "ui.neutral_needed" : "ui.neutral_needed_guest") : "");
  if (waiting === "bot" || (!game.solo && room.doc && room.doc.mode === "solo")) {
    return t(creator ? "ui.solo_needs_bot" : "ui.solo_needs_bot_guest");
  }
  // A duel before its neutral pile is given: the pile may take a majority (the service says it is
  // not final: a winner was named on half the game, an attack).
  if (waiting === "neutral") {
    return `${t("ui.leading", { n: game.winners.length, names: nameList(game.winners) })} ${t(creator ? "ui.neutral_needed" : "ui.neutral_needed_guest")}`;
  }
  if (game.solo) {
    const human = game.players.find((p) => !p.bot), bot = game.players.find((p) => p.bot);
    if (!bot) return "";
    const margin = game.solo.margin;
    // "You" on the phone that holds the player's seat only: a guest's read "You beat the bot" of
    // Chiara's game (an Italian walk). A result while the total is in doubt is said as for now: "You
    // beat the bot by 52 points: a remarkable win" stood over a pad showing "52?" (the same walk),
    // and so did a loss or a tie ("Il bot è avanti di 12 punti" over "41?": an Italian walk).
    const you = !!localStorage.getItem(tokenKey(human.name)), name = human.name;
    const by = you ? "" : "_by", now = game.final === false || unsure ? "_now" : "";
    // In points: "ahead by 20" said no unit (a walk, in Russian).
    const said = game.solo.outcome !== "lost"
      ? t(`ui.solo_win${by}${now}`, { name, margin: pts(margin), outcome: t(`ui.outcome.${game.solo.outcome}`) })
      : human.total === bot.total ? t(`ui.solo_tied${by}${now}`, { name })  // "beat the bot by 0" (a walk)
        : human.total > bot.total ? t(`ui.solo_lost${by}${now}`, { name, margin: pts(margin) }) : t(`ui.solo_lost_behind${now}`, { margin: pts(-margin) });
    // Not final: said once, by the note on whose read is in doubt that follows (roomPad); "(Not
    // final: ...)" here said it twice (a walk, in Italian).
    return said;
  }
  return t(unsure ? "ui.leading" : "ui.winner", { n: game.winners.length, names: nameList(game.winners) })
    + (game.provisional_majorities ? " " + t("ui.room_provisional") : "");
}

// A two-player room's neutral pile as given by its creator ([streams, wolves]), else null (not
// given yet, or not a duel). A room from an older service has no ``neutral_given``: its
// ``waiting_for`` says it, as it did.
const pileGiven = (doc) => !!doc && doc.mode === "two-player" && !!doc.neutral
  && (doc.neutral_given ?? doc.waiting_for !== "neutral");
const roomPile = () => (pileGiven(room.doc) ? room.doc.neutral : null);
// What a stream's or a wolf's place in a room depends on besides its players' tableaux
// (``TableauView.majorityNote``): the duel's pile, or that it is not given yet; players to come.
function roomMajorityNote(type) {
  const doc = room.doc;
  if (!doc) return "";
  const pile = roomPile(), players = doc.waiting_for === "players", duel = doc.mode === "two-player";
  const n = pile ? pile[type === "stream" ? 0 : 1] : 0;  // (a pile of none of them takes no place: nothing to say)
  const given = n ? t("ui.explain_pile", { what: t(type === "stream" ? "ui.streams" : "ui.wolves"), n }) : "";
  // One "Not final" (a duel of one player and no pile said it twice: a review)
  const waiting = duel && !pile ? (players ? "ui.explain_both_waiting" : "ui.explain_pile_waiting") : players ? "ui.explain_players_waiting" : "";
  return [given, waiting ? t(waiting) : ""].filter(Boolean).join(" ");
}

// The deck a room's photos are read with: the room's own, else this phone's.
const roomDeck = () => (room.doc && room.doc.deck) || deckChosen();

// The player this phone holds the token of whose name is the one typed, as the room writes it
// ("boris" for "Boris"): after a reload the box was empty, and "boris" typed to retake a photo was
// refused, after the whole upload, as too like Boris, the player's own seat (a walk).
const foldName = (s) => s.normalize("NFKC").toLowerCase().split(/\s+/).filter(Boolean).join(" ");
const seatsHere = (names) => names.filter((p) => localStorage.getItem(tokenKey(p)));  // this phone holds their tokens
function ownName(typed) {
  const mine = seatsHere((room.doc && room.doc.players) || []);
  return mine.find((p) => p === typed) || mine.find((p) => foldName(p) === foldName(typed)) || typed;
}

// "Add my tableau" says "Replace" where the name typed is a seat this phone holds: a second phone,
// its tableau added, still offered "Add my tableau" with its name filled in (an Italian walk).
function addPhotoLabel() {
  const typed = $("player-name").value.trim();
  const held = !!typed && seatsHere((room.doc && room.doc.players) || []).includes(ownName(typed));
  const button = $("add-photo");
  button.dataset.i18n = held ? "ui.replace_tableau" : "ui.add_tableau";
  setText(button, t(button.dataset.i18n));
}

function showRoom(doc) {
  nameRecentRoom(doc.id, doc.players);  // (this phone's own writes show the room without a poll)
  $("room-code").textContent = doc.id;
  // The tab and history entry named by the room, as its heading is (an audit: every room's page
  // had the start page's title); shown again in the language switched to.
  document.title = `${t("ui.room")} ${doc.id} — ecoscore`;
  showNotMine();  // (its seat gone since: no longer offered)
  // The room's players' names, kept as written where a message starts with one (``clause``),
  // those gone since too (a message of one renamed or removed on another phone).
  if (room.seen.size > 200) room.seen.clear();
  doc.players.forEach((name) => room.seen.add(name));
  // This phone's one seat in the room, named in the box for its next photo (it was empty after a reload).
  const seats = seatsHere(doc.players);
  if (seats.length === 1 && !$("player-name").value.trim() && document.activeElement !== $("player-name")) $("player-name").value = seats[0];
  addPhotoLabel();
  // A full room opened by a phone that holds no seat in it: said at once, and no name box or "Add
  // my tableau" offered (a ninth phone was told "the room is full" only once it had tapped: a
  // Russian walk). A phone holding a seat still retakes its photo; a seat freed, the box is back.
  // Said once as it fills (each poll said it again, over the creator's "Saved." for the neutral pile).
  const full = !!doc.seats && doc.players.length >= doc.seats && !seats.length;
  $("join").hidden = full;
  if (full && !room.fullSaid) {
    setStatus($("room-status"), Object.assign(() => t(FULL[doc.mode] || "api.room_full", { n: doc.seats }), { mark: "full" }), true);
  } else if (!full && $("room-status").mark === "full") setStatus($("room-status"), "");
  room.fullSaid = full;
  $("room-deck").hidden = !doc.deck;
  $("room-deck").textContent = doc.deck ? t("ui.room_deck", { name: doc.deck_title || doc.deck }) : "";
  // A friend's phone reads the room with its deck, and nothing else: the deck offered for this
  // phone's own photos too (a walk: the start page then knew only the sample deck).
  $("room-use-deck").hidden = !doc.deck || deckChosen() === doc.deck;
  $("room-use-deck").textContent = doc.deck ? t("ui.use_room_deck", { name: doc.deck_title || doc.deck }) : "";
  const link = doc.link || location.origin + doc.url;
  $("room-link").href = link; $("room-link").textContent = link;
  if ($("qr").getAttribute("src") !== doc.qr_url) $("qr").src = doc.qr_url;
  // A solo room invites no one: no one else joins a game against the bot (its Share said "Add your
  // Ecosystem tableau to our game": an Italian walk). Its code and link stay while its one seat is
  // free, said for what they do there (the room set up on a computer, the tableau photographed
  // with a phone); once the seat is taken, they go. So do any room's once its every seat is taken:
  // a full game room still showed its QR code and Share, on every phone, its name box gone. A seat
  // freed, they are back (each poll draws the room again).
  const alone = doc.mode === "solo";
  const seated = doc.seats ? doc.players.length >= doc.seats : alone && doc.players.length > 0;
  document.querySelector("#room-view .share").hidden = seated;
  // said, or the code and Share going on every phone looked like a fault (a walk, in Russian)
  // (a phone with no seat is told the room is full in its status line)
  $("room-seated").hidden = !seated || alone || !seatsHere(doc.players).length;
  $("share").hidden = alone; $("share-solo").hidden = !alone;
  $("neutral-box").hidden = doc.mode !== "two-player";
  $("bot-box").hidden = doc.mode !== "solo";
  // Only the room's creator sets the neutral pile and the bot: the others see them, unchangeable
  // (a player's walk-through: every phone offered them, and saving answered 403).
  const owner = !!localStorage.getItem(ownerKey(room.id));
  for (const id of ["neutral-streams", "neutral-wolves", "bot-grid"]) $(id).readOnly = !owner;
  for (const id of ["save-neutral", "save-bot", "bot-photo"]) $(id).hidden = !owner;
  // A guest is told who gives the pile: "How many stream cards … the pile holds" read as theirs to fill (a walk).
  const hint = $("neutral-hint");
  hint.dataset.i18n = owner ? "ui.neutral_hint" : "ui.neutral_hint_guest";
  setText(hint, t(hint.dataset.i18n));
  // The boxes before the creator gave the pile: empty ("—"), not 0 and 0 beside "the room's
  // creator still has to give them" (a Russian walk), the creator's too, who types them (an
  // Italian walk: 0 and 0 looked given). The room's answer says it waits for them (``waiting_for``),
  // before anyone has joined too, and while it waits for the second player (``neutral_given``: it
  // says "players" first, and the boxes showed 0 and 0). Filled when the room's pile changes only:
  // a poll set back what the creator had typed, once the focus left the box for Save.
  const unknown = !!doc.neutral && !pileGiven(doc);
  for (const id of ["neutral-streams", "neutral-wolves"]) $(id).placeholder = unknown ? "—" : "";
  const pile = JSON.stringify([doc.neutral, unknown]);
  if (doc.neutral && document.activeElement.type !== "number" && room.neutralShown !== pile) {
    $("neutral-streams").value = unknown ? "" : doc.neutral[0]; $("neutral-wolves").value = unknown ? "" : doc.neutral[1];
    room.neutralShown = pile;
  }
  // Filled in the page's language, and again in another once chosen, unless the player has typed
  // in it since (it stayed in the language it was first filled in: a walk).
  const box = $("bot-grid");
  if (doc.bot && document.activeElement !== box && (!box.value || box.value === room.botText)) {
    setBotText(gridText(doc.bot));
  }
  // A tableau of this phone's the room no longer holds, its token still here: renamed or removed
  // on another phone (a walk: it vanished without a word). Said, and its token forgotten.
  for (const name of room.views.keys()) {
    if (doc.players.includes(name) || !localStorage.getItem(tokenKey(name))) continue;
    localStorage.removeItem(tokenKey(name));
    setStatus($("room-status"), () => t("ui.removed_elsewhere", { name }), true);
  }
  const game = doc.game;
  if (!game) {
    $("room-pad").innerHTML = ""; $("room-winners").textContent = t("ui.no_tableau_yet");
    $("mine").innerHTML = ""; room.views.clear(); return;
  }
  const mineNow = new Set();
  for (const p of game.players) {
    if (p.bot || !localStorage.getItem(tokenKey(p.name))) continue;
    mineNow.add(p.name);
    let entry = room.views.get(p.name);
    if (!entry) {
      const slot = document.createElement("div");
      $("mine").appendChild(slot);
      entry = { slot, view: new TableauView(slot, { editable: true, checkable: true, onChange: (grid, msg, near, failNear) => correctRoom(p.name, grid, msg, near, failNear), title: yourTitle, majorityNote: roomMajorityNote,
        // A card kept as read is sent as a correction is, so every phone's pad (and the room's
        // "final") stops counting its doubt; this phone's pad at once.
        // A card read with no doubt has none to drop: no write (each write moves the tableau's
        // version on, and the player's other phone would meet a 409 for nothing).
        onKept: (r, c) => {
          roomPad(room.doc.game);
          const cell = entry.view.read.cells && entry.view.read.cells[r] && entry.view.read.cells[r][c];
          if (cell && cell.doubts && cell.doubts.length) {
            correctRoom(p.name, entry.view.grid.map((row) => row.slice()), () => t("ui.kept_saved"), null, entry.view.q(".tool-status"))
              .then((saved) => { if (saved === RESET) { entry.view.unsaved(() => entry.view.history.pop()); roomPad(room.doc.game); } });
          }
        } }), photo: null };
      room.views.set(p.name, entry);
    }
    if (entry.photo !== p.photo_url || !entry.view.read) { entry.photo = p.photo_url; entry.view.load(readOf(p)); } else entry.view.update(p, writing(p.name));
  }
  for (const [name, entry] of room.views) if (!mineNow.has(name)) { entry.view.close(); entry.slot.remove(); room.views.delete(name); }
  roomPad(game);
  showPlayers(game.players);
  if (room.otherName) showOther(room.otherName, true);
}

// What keeps a room player's total from being final besides their cards in doubt, as the service
// has it (game.final false): their read's doubts of the photo or the grid ("this photo holds 3
// tableaux: the one with the most cards was taken as yours"), which stay until the tableau is sent again (or
// its player says the grid is right: the service then settles them), and a deck's count of a type exceeded.
// The game's own count past the deck's ("the game has 9 eagle cards ...") is every total's, whoever
// else is in doubt: said only while no player had doubts of their own, totals turned plain and "?"
// again as others retook their photos (a Russian walk). Not final, and no player's read says why:
// every total. A game the service calls final has none.
function readReasons(p, game) {
  if (game.final !== false) return [];
  const own = (q) => [...(q.doubts || []).filter((d) => !cellDoubt(d)), ...(q.deck_issues || [])];
  const mine = own(p), ours = gameDeckIssues(game).filter((d) => !mine.includes(d));
  if (mine.length || ours.length) return [...mine, ...ours];
  const said = (room.doc && room.doc.waiting_for) || game.players.some((q) => unsureCells(q) || own(q).length);
  return said ? [] : game.deck_issues.length ? game.deck_issues : [t("ui.game_unsure")];
}

// The game's own counts of a type past a deck's (api.deck_issue_game), of its ``deck_issues``,
// which lists each player's too (api.deck_issue_player).
const gameDeckIssues = (game) => (game.deck_issues || []).filter((d) => (I18N.match(d) || {}).key === "api.deck_issue_game");

// Deck issues in the player's words, the game's counts of several types said in one sentence: "the
// game has 11 rabbit cards (a deck holds 8) and 21 stream cards (a deck holds 20): a misread card
// or a second deck". Said a type at a time, the cause came once a type (an Italian walk). So are one
// player's ("Giulia has ..."): their "What to check" said it once a type too. One type is said as
// the service says it; any other issue, as it is, where it was.
function deckIssuesSaid(issues) {
  const whose = (found) => (!found ? null : found.key === "api.deck_issue_game" ? "" : found.key === "api.deck_issue_player" ? found.params.name : null);
  const found = issues.map((d) => I18N.match(d)), counts = new Map();  // "": the game's
  found.forEach((f) => { const w = whose(f); if (w !== null) counts.set(w, [...(counts.get(w) || []), f.params]); });
  return issues.flatMap((d, i) => {
    const w = whose(found[i]), several = w !== null && counts.get(w).length > 1;
    if (!several) return [translated(d)];
    if (counts.get(w)[0] !== found[i].params) return [];  // said with the first
    const list = nameList(counts.get(w).map(({ n, card, deck }) => t("ui.deck_over_entry", { n, card: I18N.card(card), deck })));
    return [w ? t("ui.deck_over_player", { name: w, list }) : t("ui.deck_over_game", { list })];
  });
}

// A pad wider than the phone scrolls sideways, and nothing said so: a player who joined last
// found their column cut off at the edge (a walk at 320 px). Said, and this phone's own column
// brought into view once. Again when the phone turns: the hint stayed as the pad was first drawn,
// hidden over a pad that now scrolled, shown over one that fitted (a walk, in Russian).
function fitRoomPad(players) {
  const wrap = $("room-pad").parentElement;
  wrap.style.paddingRight = "";  // (room left after a wider pad's last column: measured without it)
  const cut = wrap.scrollWidth > wrap.clientWidth + 1;
  $("room-pad-scrolls").hidden = !cut;
  const mine = players.findIndex((p) => localStorage.getItem(tokenKey(p.name)));
  const pad = $("room-pad"), heads = [...pad.querySelectorAll("thead th")].slice(1);
  // Columns in the table's own coordinates (offsetLeft counts from the page, and a sticky cell's
  // from where it sticks).
  const left = (th) => th.getBoundingClientRect().left - pad.getBoundingClientRect().left;
  const right = (th) => left(th) + th.getBoundingClientRect().width;
  const labels = heads.length ? left(heads[0]) : 0, inView = wrap.clientWidth - labels;
  // A column scrolled half under the card names showed a part of its number ("0" of a total of
  // 40: a walk at 360 px, in Russian): the pad stops on whole columns (scroll-snap, past the
  // labels), its end too (room after the last column, so that a column starts at the labels).
  wrap.style.scrollPaddingLeft = `${labels}px`;
  const firstWith = (th) => heads.find((h) => right(th) - left(h) <= inView);  // the first column from which th is whole
  const last = cut && heads.length ? firstWith(heads[heads.length - 1]) : null;
  if (last) wrap.style.paddingRight = `${Math.max(0, left(last) - labels - (wrap.scrollWidth - wrap.clientWidth))}px`;
  if (cut && mine >= 0 && room.padShown !== players[mine].name) {
    const first = heads[mine] && firstWith(heads[mine]);
    if (first) wrap.scrollLeft = left(first) - labels;
    room.padShown = players[mine].name;
  }
}

// A player's total as the room's pad shows it, said to a screen reader: "Correction saved." alone
// left the total that moved unsaid (an audit).
function sayRoomTotal(name) {
  const pad = $("room-pad"), col = [...pad.querySelectorAll("thead th")].slice(1).findIndex((th) => th.title === name);
  const total = col >= 0 ? pad.querySelectorAll("tr.total td")[col] : null;
  if (total) say(`${name}: ${total.textContent}`);
}

// The room's pad and who won; a total with cards in doubt marked. A player's own tableau counts
// its doubts as this phone has them (cards kept as read included), the others' as the service does.
// So is a total whose read has a doubt of the photo or the grid (``readReasons``): the pad named a
// winner with plain totals of a game the service said was not final (a walk, in Italian).
function roomPad(game) {
  const doubts = new Map(game.players.map((p) => {
    const entry = room.views.get(p.name);
    return [p.name, entry && entry.view.read ? entry.view.doubtfulCells().length : unsureCells(p)];
  }));
  const reasons = new Map(game.players.map((p) => [p.name, readReasons(p, game)]));
  const waits = room.doc && room.doc.waiting_for;
  const waiting = waits ? t(waits === "bot" ? "ui.solo_needs_bot_guest" : waits === "players" ? waitingFor(game) : "ui.neutral_needed_guest") : "";
  renderPad($("room-pad"), game.players, { onName: showOther, bioTarget: $("room-bio"), unsure: (p) => doubts.get(p.name),
    reasons: (p) => reasons.get(p.name), waiting });
  fitRoomPad(game.players);
  // One player in doubt said in a sentence; several in one list (a sentence each repeated "…, so
  // the total is not final" per player: a walk).
  const unsure = game.players.filter((p) => doubts.get(p.name));
  const notes = unsure.length === 1 ? t("ui.pad_unsure", { n: doubts.get(unsure[0].name), name: unsure[0].name })
    : unsure.length ? t("ui.pad_unsure_players", { list: unsure.map((p) => t("ui.pad_unsure_entry", { name: p.name, n: doubts.get(p.name) })).join(", ") }) : "";
  // Those whose read is in doubt otherwise (their cards, if any, said above): named in one sentence.
  // A deck's count of a type exceeded is said as itself, on the pad's line: it was said only in a
  // total's title (no phone shows one), and the line blamed every player's "photo or grid" (a walk,
  // in Czech: three players told their photos were unsure where the game held 14 wolves).
  const deckIssues = new Set(game.deck_issues || []);  // (each player's and the game's own: scoring/game.py)
  const deckOnly = (p) => reasons.get(p.name).every((r) => deckIssues.has(r));
  const read = game.players.filter((p) => !doubts.get(p.name) && reasons.get(p.name).length && !deckOnly(p));
  const readNote = read.length ? t("ui.pad_read_unsure", { n: read.length, names: nameList(read.map((p) => p.name)) }) : "";
  // The game's own counts when it has any (each player's past a deck is the game's too): at 8
  // players every player's and the game's were listed, "a misread card or a second deck" six times
  // over some 25 lines of a phone (a Russian walk). Each player's own stays with their tableau.
  const ours = gameDeckIssues(game), said = ours.length ? ours : [...deckIssues];
  // "Not final" said once: the line's "Leading: ... (not final)." says it already but against the bot.
  const leading = !(room.doc && (room.doc.waiting_for === "bot" || room.doc.mode === "solo")) && !game.solo;
  const deckNote = game.final === false && said.length ? (leading ? deckIssuesSaid(said).map(sentence).join(" ")
    : t("ui.pad_deck_issues", { issues: deckIssuesSaid(said).join("; ") })) : "";
  // Those who checked their grid at the table: what it settled (a card left beside the grid, a
  // second tableau in the photo), said as settled, not as doubts, and no longer keeping the game open.
  const checkedNotes = game.players.filter((p) => p.checked && notAdvice(p.settled).length).map((p) => settledText(p.name, p.settled));
  // A duel's neutral pile, said under the pad as the command line's pad says it (it was shown only in
  // its boxes: "2nd place" with no one shown 1st, a game night's walk).
  const pile = roomPile();
  const pileNote = pile ? t("ui.pad_neutral", { what: t("ui.neutral"), streams: pile[0], wolves: pile[1] }) : "";
  $("room-winners").textContent = [winnersText(game, unsure.length + read.length > 0 || !!deckNote), notes, readNote, deckNote,
    ...checkedNotes, pileNote].filter(Boolean).join(" ");
}

// ---------- players: rename yourself, leave, or (the room's creator) remove anyone ----------
function showPlayers(players) {
  const owner = !!localStorage.getItem(ownerKey(room.id));
  const people = players.filter((p) => !p.bot);
  const button = (label, action, aria) => {
    const b = Object.assign(document.createElement("button"), { type: "button", className: "button small", textContent: label });
    b.setAttribute("aria-label", aria);
    b.addEventListener("click", action);
    return b;
  };
  $("room-players").replaceChildren(...people.map((p) => {
    const mine = !!localStorage.getItem(tokenKey(p.name));
    const li = document.createElement("li");
    li.append(Object.assign(document.createElement("span"), { textContent: p.name }));
    if (mine) li.append(button(t("ui.rename"), () => renamePlayer(p.name), t("ui.rename_who", { name: p.name })));
    if (mine || owner) li.append(button(t("ui.remove"), () => removePlayer(p.name), t("ui.remove_who", { name: p.name })));
    return li;
  }));
  $("room-players").hidden = !people.length;
}

async function renamePlayer(name, asked = name, refused = null) {
  const wanted = ((await askDialog(t("ui.rename_prompt", { name }), asked, refused)) || "").trim();
  if (!wanted || wanted === name) return;
  const version = room.doc && room.doc.versions && room.doc.versions[name];
  try {
    const res = await api("PATCH", `/api/rooms/${room.id}/players/${encodeURIComponent(name)}`, { name: wanted },
      { "X-Player-Token": localStorage.getItem(tokenKey(name)) || "", "If-Match": `"${version || 0}"` });
    localStorage.setItem(tokenKey(res.name), localStorage.getItem(tokenKey(name)));
    localStorage.removeItem(tokenKey(name));
    // The name box names the player as the room does now (it kept the old name: a tableau added
    // under it made a new player).
    if ($("player-name").value.trim() === name) $("player-name").value = res.name;
    setStatus($("room-status"), () => t("ui.renamed", { name, new: res.name }));
    await loadRoom(true);
  } catch (err) {
    // A name the room refuses (too like another's, not allowed): asked again, why said in the
    // dialog (said at the page's top, it was out of view: an Italian walk).
    if (err.status === 422) return renamePlayer(name, wanted, err);
    setStatus($("room-status"), err, true);
  }
}

async function removePlayer(name) {
  if (!(await confirmDialog(t("ui.remove_confirm", { name }), t("ui.remove")))) return;
  const token = localStorage.getItem(tokenKey(name));
  const headers = token ? { "X-Player-Token": token } : { "X-Room-Token": localStorage.getItem(ownerKey(room.id)) || "" };
  // The player as this page last saw them: whoever holds the name now, if another, stays.
  const version = room.doc && room.doc.versions && room.doc.versions[name];
  if (version) headers["If-Match"] = `"${version}"`;
  try {
    await api("DELETE", `/api/rooms/${room.id}/players/${encodeURIComponent(name)}`, undefined, headers);
    localStorage.removeItem(tokenKey(name));
    setStatus($("room-status"), () => t("ui.removed", { name }));
    await loadRoom(true);
  } catch (err) { setStatus($("room-status"), err, true); }
}

// A total with cards still in doubt is marked as the pad marks it ("29?"), never shown as final
// (a walk: "Аня: 29 очков" above the pad's "29?").
// (A read with a doubt of the photo or the grid is marked so too: ``readReasons``.)
// So is every total of a game still waiting for its neutral pile or its bot, as the pad marks it
// (a walk, in Russian: "Алёна: 51 очко — ваша экосистема" above the pad's "51?").
const pointsOf = (p, unsure) => (unsure || (room.doc && (room.doc.waiting_for || (room.doc.game && readReasons(p, room.doc.game).length)))
  ? `${minus(p.total)}?` : pts(p.total));
// One phone holding several players' seats (a table passing one phone round) calls none of them
// "your tableau" (each was, three times over: a walk).
const yourTitle = (p, pending) => `${p.name}: ${pointsOf(p, pending)} — ${
  t(room.doc && seatsHere(room.doc.players).length > 1 ? "ui.yours_here" : "ui.yours")}`;
const readOf = (p) => ({ ...p, read_grid: p.cells ? p.cells.map((row) => row.map((c) => c.type)) : p.grid });
const gridText = (grid) => grid.map((row) => row.map((c) => I18N.card(c === null ? null : c).replace(/\s+/g, "_")).map((s) => (s === I18N.card(null) ? "." : s)).join(" ")).join("\n");

// A tableau opened from the pad, brought into view and given the focus (a screen reader was left
// on the pad's name), smoothly only where the phone allows motion (an audit: 1,200 px animated
// with "reduce motion" on).
function bringTo(el) {
  el.scrollIntoView({ behavior: matchMedia("(prefers-reduced-motion: reduce)").matches ? "auto" : "smooth" });
  if (!el.hasAttribute("tabindex")) el.tabIndex = -1;
  el.focus({ preventScroll: true });
}

// Another player's read: their photo and grid, to look at (not to correct).
function showOther(name, refresh = false) {
  const game = room.doc && room.doc.game;
  const p = game && game.players.find((x) => x.name === name);
  if (!p || (!refresh && room.otherName === name && room.other)) { closeOther(); if (!refresh) return; if (!p) return; }
  if (room.views.has(name)) { bringTo(room.views.get(name).slot); return; }
  room.otherName = name;
  if (!room.other) {
    const box = $("others");
    box.innerHTML = "";
    const close = Object.assign(document.createElement("button"), { type: "button", className: "button", textContent: t("ui.close") });
    close.dataset.i18n = "ui.close";  // said anew when the language changes (I18N.apply)
    close.addEventListener("click", closeOther);
    const slot = document.createElement("div");
    box.append(slot, close);
    room.other = new TableauView(slot, { editable: false, onChange: () => null, majorityNote: roomMajorityNote, title: (pl, pending) => t("ui.their_read", { name: pl.name, points: pointsOf(pl, pending) }) });
    room.other.load(readOf(p));
    if (!refresh) bringTo(box);
  } else if (room.other.read.photo !== p.photo_url) room.other.load(readOf(p)); else room.other.update(p);
}

function closeOther() { if (room.other) room.other.close(); $("others").innerHTML = ""; room.other = null; room.otherName = null; }

const keySet = (cells) => new Set((cells || []).map(([r, c]) => key(r, c)));
const positions = (keys) => [...keys].map((k) => k.split(",").map(Number));  // keySet's keys as [row, col]

// The doubtful cards this phone kept as read on a player's tableau, as [row, col].
function keptCells(name) {
  const entry = room.views.get(name);
  return entry ? positions(entry.view.checked) : undefined;  // none: as kept before
}

// Whether this phone says the player's whole grid is right (``TableauView.checkWhole``), or
// undefined: as the room has it (a write of a card leaves a check made on another phone alone).
function gridChecked(name) {
  const entry = room.views.get(name);
  return entry ? entry.view.gridChecked : undefined;
}

// One write of a player's tableau at a time: a second keep or correction waits for the first's
// answer, then writes the view as it stands (both changes). While one is pending the view keeps
// its own grid and cards kept (``writing``): the first's answer would otherwise take back the
// second on the page, and the second would be sent without it (two quick taps lost one).
const roomWrites = new Map();  // player name -> { chain, pending }
const writing = (name) => ((roomWrites.get(name) || {}).pending || 0) > 0;

function correctRoom(name, grid, message, near = null, failNear = near) {
  if (!grid) { setStatus($("room-status"), message || ""); return Promise.resolve(null); }
  const writes = roomWrites.get(name) || { chain: Promise.resolve(), pending: 0 };
  roomWrites.set(name, writes);
  markWrite(name, grid, writes.pending > 0);
  writes.pending += 1;
  // The photo it was made on: a write queued behind one that met a new photo (from the player's
  // other phone) is dropped, not written over the new read (``writeRoomGrid``).
  const photo = (playerOf(room.doc, name) || {}).photo_url;
  const run = writes.chain.then(() => writeRoomGrid(name, grid, message, writes, near, failNear, photo));
  writes.chain = run.catch(() => {});
  return run;
}

const playerOf = (doc, name) => doc && doc.game && doc.game.players.find((p) => p.name === name && !p.bot);

// A write on its way, marked in the tab's storage until it is saved or its failure said: a reload
// (a thumb, the phone's camera taking the page down) dropped it, and the room came back without
// the correction, unsaid. Written again when the room's page is back (``resumeRoomWrites``).
// One mark a player: a write queued behind another carries its changes too, on the base of the
// first (the room's tableau as this page had it before any of them), so a cell changed on another
// phone meanwhile is not taken back.
const writeKey = (name) => `ecoscore:room-write:${room.id}:${name}`;
function markWrite(name, grid, queued) {
  try {
    const before = queued && JSON.parse(sessionStorage.getItem(writeKey(name)) || "null");
    const p = playerOf(room.doc, name);
    const base = before ? before.base : p && { grid: p.grid, kept: p.kept || [], photo_url: p.photo_url, checked: !!p.checked };
    sessionStorage.setItem(writeKey(name), JSON.stringify({ grid, kept: keptCells(name), checked: gridChecked(name), base }));
  } catch { /* storage off or full: nothing to resume after a reload */ }
}
function forgetWrite(name) {
  try { sessionStorage.removeItem(writeKey(name)); } catch { /* storage off */ }
}
// A write done with (saved, dropped, or its failure said): its mark goes unless a write queued
// behind it, which carries its changes, still holds it.
function writeDone(name) {
  if (!writing(name)) forgetWrite(name);
}

// This phone's changes (the cells, and cards kept, it changed since ``base``) on the room's latest
// tableau, as a write that met a 409 merges them.
function mergedGrid(grid, base, latest) {
  return latest.grid.map((row, r) => row.map((cell, c) => (grid[r][c] !== base.grid[r][c] ? grid[r][c] : cell)));
}
function mergedKept(kept, base, latest) {
  const before = keySet(base.kept), mine = keySet(kept);
  const merged = new Set([...keySet(latest.kept)].filter((k) => mine.has(k) || !before.has(k)));
  mine.forEach((k) => { if (!before.has(k)) merged.add(k); });
  return merged;
}

// The writes a reload dropped, written again on the room's tableau as it now is. One that landed
// before the reload is not sent again (each write moves the version on: the player's other phone
// met a 409 for nothing); one made on a photo replaced since is dropped, and said.
// Also run after a leave that did not happen (``leaving`` set, the page still here): a write that
// failed then was neither said nor taken back, and the next poll showed the room without it.
// A player whose write is on its way is left to it (its mark is that write's).
function resumeRoomWrites() {
  const prefix = writeKey(""), marks = [];
  let keys = [];
  try { keys = Array.from({ length: sessionStorage.length }, (_, i) => sessionStorage.key(i)); } catch { return; }  // storage off
  for (const k of keys) {
    if (!k || !k.startsWith(prefix)) continue;
    // A damaged mark is dropped alone: kept, it stopped every other player's mark on every load.
    try { marks.push([k.slice(prefix.length), JSON.parse(sessionStorage.getItem(k) || "null")]); } catch { forgetWrite(k.slice(prefix.length)); }
  }
  for (const [name, mark] of marks) {
    if (writing(name)) continue;
    const latest = playerOf(room.doc, name), entry = room.views.get(name);
    if (!mark || !mark.base || !latest || !entry || !localStorage.getItem(tokenKey(name))) { forgetWrite(name); continue; }
    if (latest.photo_url !== mark.base.photo_url) {
      forgetWrite(name);
      setStatus($("room-status"), () => t("ui.replaced_meanwhile"), true);
      continue;
    }
    const grid = mergedGrid(mark.grid, mark.base, latest);
    const kept = mark.kept ? mergedKept(mark.kept, mark.base, latest) : keySet(latest.kept);
    const checked = mark.checked === undefined || mark.checked === mark.base.checked ? !!latest.checked : mark.checked;
    // As the room keeps cards kept: where the read had doubts and the grid holds the type read. A
    // card the room keeps already counts (the room's cells show a kept card's doubts settled:
    // judged by its doubts alone, a write that had landed was sent again).
    const cells = latest.cells || [], roomKept = keySet(latest.kept);
    const stored = new Set([...kept].filter((k) => {
      const [r, c] = k.split(",").map(Number), cell = cells[r] && cells[r][c];
      return roomKept.has(k) || (cell && cell.doubts && cell.doubts.length && cell.type === grid[r][c]);
    }));
    const landed = sameGrid(grid, latest.grid) && checked === !!latest.checked
      && stored.size === roomKept.size && [...roomKept].every((k) => stored.has(k));
    if (landed) { forgetWrite(name); continue; }
    // Shown as it is written (the view's own while it is pending), as a correction made now is.
    const view = entry.view, corrected = new Set(view.corrected);
    grid.forEach((row, r) => row.forEach((type, c) => { if (type !== latest.grid[r][c]) corrected.add(key(r, c)); }));
    view.restore({ grid: grid.map((row) => row.slice()), corrected, checked: kept, gridChecked: checked });
    view.render();
    correctRoom(name, grid, () => t("ui.room_write_resumed"));
  }
}

async function writeRoomGrid(name, asked, message, writes, near = null, failNear = near, photo = undefined) {
  let done = false;
  const finish = () => { if (!done) { done = true; writes.pending -= 1; } };  // before its answer is shown
  const now = playerOf(room.doc, name);
  if (photo && now && now.photo_url !== photo) {  // its photo replaced meanwhile: said by the write before it
    finish();
    writeDone(name);
    return null;
  }
  let grid = asked, kept = keptCells(name);  // the grid as it was asked (it holds the changes before it too)
  const checked = gridChecked(name), shownBefore = room.doc;  // (a 409's fresh look replaces it below)
  try {
    // Each write carries the version it was made on (If-Match); if the tableau moved on meanwhile
    // (409: this player's other phone), this phone's own changes (the cells it changed, and kept
    // or took back, since the tableau it last saw) go onto the latest, and that is written: its
    // whole grid written again would undo the other phone's correction.
    let res, base = playerOf(room.doc, name);
    // Said only where this phone changed it (checked, or taken back): sent with every write, a
    // correction made here would take back a check made on the player's other phone meanwhile.
    const checkedBefore = !!(base && base.checked);
    for (let attempt = 0; ; attempt++) {
      try {
        const body = { grid, kept };
        if (checked !== undefined && checked !== checkedBefore) body.checked = checked;
        res = await api("PUT", `/api/rooms/${room.id}/players/${encodeURIComponent(name)}/grid`, body,
          { "X-Player-Token": localStorage.getItem(tokenKey(name)), "If-Match": `"${(room.doc.versions || {})[name]}"` });
        break;
      } catch (err) {
        if (err.status !== 409 || attempt >= 2) throw err;
        room.doc = await api("GET", `/api/rooms/${room.id}`);
        const latest = playerOf(room.doc, name);
        if (base && latest && latest.photo_url !== base.photo_url) {
          // A new photo from the other phone: this phone's changes were to the old read.
          finish(); room.version = room.doc.version; showRoom(room.doc);
          writeDone(name);
          setStatus($("room-status"), () => t("ui.replaced_meanwhile"), true);
          return null;
        }
        if (base && latest) {
          grid = mergedGrid(grid, base, latest);
          if (kept) kept = positions(mergedKept(kept, base, latest));
        }
        base = latest;
      }
    }
    finish();
    writeDone(name);
    // Said beside the tableau, as a failure is: on the room's status line, at the page's top, a
    // player at the grid never saw "Correction saved." (a Russian walk). A write resumed after a
    // reload (no tableau named) is said on the line.
    sayNear(near || failNear, $("room-status"), message || (() => t("ui.saved")));
    room.version = res.room.version; room.doc = res.room;
    showRoom(res.room);
    sayMajoritiesMoved(shownBefore, res.room);
    sayRoomTotal(name);
    return null;  // showRoom has updated the view with the room's score
  } catch (err) {
    // Failed as the page goes (a reload: a browser may fail its requests before it leaves): the
    // change stays, marked, and is written again when the page is back. Taken back and said, it
    // would be lost for good, as the solo page's was.
    if (leaving) return null;
    sayNear(failNear || near, $("room-status"), err, true);
    // A write still queued behind this one carries this change too; the last to fail shows the
    // tableau as the room has it (popping one step put back a queued change, not the failed one: a review).
    finish();
    if (writing(name)) return null;
    forgetWrite(name);
    showRoom(room.doc);
    return RESET;
  } finally { finish(); }
}

// How the service refuses one player more than a room of a mode seats (service/store.py SEATS;
// a game's room seats as many as the service's setting: the room's ``seats``).
const FULL = { "two-player": "api.two_player_full", solo: "api.solo_full", game: "api.room_full" };

// A name the room refuses: said, the field marked invalid and tied to what is said, the focus on
// it (a screen reader heard the words with nothing to say which field they were of: an audit).
function nameRefused(said) {
  setStatus($("room-status"), said, true);
  const field = $("player-name");
  field.setAttribute("aria-invalid", "true");
  field.setAttribute("aria-describedby", "room-status");
  field.focus();
}

// Before the file chooser opens: a name, a seat, and a yes before replacing a tableau.
async function addPhotoClicked() {
  await room.ready;  // whether the name is taken is the room's to say
  const name = ownName($("player-name").value.trim());
  if (name) $("player-name").value = name;
  if (!name) { nameRefused(() => t("ui.name_first")); return; }
  const taken = room.doc && room.doc.players.includes(name);
  // A full room takes no one new (the service's refusal, in its words): it came only after the
  // whole upload (an Italian walk; a game room's ninth player too). A player of it may still retake
  // their photo.
  const seats = room.doc && room.doc.seats;
  if (seats && !(taken && localStorage.getItem(tokenKey(name))) && room.doc.players.length >= seats) {
    setStatus($("room-status"), () => t(FULL[room.doc.mode] || "api.room_full", { n: seats }), true);
    return;
  }
  if (taken && !localStorage.getItem(tokenKey(name))) { nameRefused(() => t("ui.name_taken", { name })); return; }
  // Another's name but for case or width ("anna" beside "Anna"): the room refuses it, and said so
  // only after the whole upload (a walk). (Look-alike letters of other scripts are the room's to say.)
  const other = !taken && room.doc && room.doc.players.find((p) => foldName(p) === foldName(name));
  if (other) { nameRefused(() => t("ui.name_alike", { name, other })); return; }
  // Declined: said, or the last word stayed ("Saved.", as if the photo had been: a walk, in Russian).
  // (asked before a photo is chosen: "with this photo" named none; "Keep it" of which? an Italian walk)
  if (taken && !(await confirmDialog(t("ui.confirm_replace", { name }), t("ui.yes_replace"), t("ui.keep_previous")))) { setStatus($("room-status"), () => t("ui.room_kept", { name })); return; }
  setStatus($("room-status"), "");
  $("room-photo").click();
}

// The deck this phone is teaching, as the service lists it, while it lacks a type; else null.
async function deckBeingBuilt() {
  const name = localStorage.getItem(BUILDING_KEY);
  if (!name) return null;
  try {
    const doc = await api("GET", `/api/decks?named=${encodeURIComponent(name)}`);
    return doc.decks.find((d) => d.name === name && !d.complete && (d.missing || []).length) || null;
  } catch { return null; }  // offline: the general advice
}

// A photo of the player's tableau and a neighbour's: the room takes the one with most cards, and
// the player says "not mine" to take the next (the same photo sent again, with its number), as
// often as it holds tableaux. Only "another photo" could change it (a walk). Kept while the page
// holds the photo (a reload forgets it: the photo is the phone's, not the service's to keep).
// Kept for the tab with the photo as sent (a reload lost it, and the seat's "photo holds 2
// tableaux" doubt stayed with no way to choose: a Russian walk); offered while the seat still
// holds that photo's tableau (this phone's seat, the same tableau of as many).
let notMine = null;  // { file, name, k, n }: the photo sent, whose seat, its tableau taken, of how many
const notMineKey = () => `ecoscore:not-mine:${room.id}`;
function showNotMine() {
  const p = notMine && playerOf(room.doc, notMine.name);
  const shown = !!p && p.tableau === notMine.k && p.tableaux === notMine.n && !!localStorage.getItem(tokenKey(notMine.name));
  $("room-not-mine").hidden = !shown;
  if (shown) setText($("room-not-mine"), t("ui.room_not_mine", { k: notMine.k % notMine.n + 1, n: notMine.n }));
}
// The photo's data kept with it once made (``data``): the same photo sent again for another of its
// tableaux is stored at once, so a reload right after the choice keeps it (it kept the last one).
function keepNotMine(value) {
  notMine = value; showNotMine();
  if (!value) { try { sessionStorage.removeItem(notMineKey()); } catch { /* storage off */ } return; }
  const store = (photo) => {
    if (notMine !== value || !photo) return;  // another photo since
    value.data = photo;
    try { sessionStorage.setItem(notMineKey(), JSON.stringify({ name: value.name, k: value.k, n: value.n, photo })); } catch { /* storage full: this page only */ }
  };
  if (value.data) store(value.data); else photoData(value.file).then(store);
}
function restoreNotMine() {
  let kept = null;
  try { kept = JSON.parse(sessionStorage.getItem(notMineKey()) || "null"); } catch { /* damaged: nothing offered */ }
  if (!kept || typeof kept.photo !== "string" || typeof kept.name !== "string") return;
  notMine = { file: photoFile(kept.photo), name: kept.name, k: kept.k, n: kept.n, data: kept.photo };
  showNotMine();
}

async function joinRoom(file, chosen = null) {
  $("room-photo").value = "";  // the same file chosen again is a new choice
  const name = chosen ? chosen.name : ownName($("player-name").value.trim());
  if (!file || !name) return;
  $("room-teach").hidden = true;
  const offered = notMine;  // offered again if this photo is not taken (the seat keeps the tableau it had)
  notMine = null; showNotMine();
  const token = localStorage.getItem(tokenKey(name));
  const version = room.doc && room.doc.versions && room.doc.versions[name];
  // A retake of this phone's own seat says so (it said "Added" over the tableau it replaced).
  const replacing = Boolean(token) && Boolean(room.doc) && room.doc.players.includes(name);
  roomSending += 1;
  try { sessionStorage.setItem(ROOM_SENDING_KEY, JSON.stringify({ room: room.id, name, replacing })); } catch { /* storage off */ }
  try {
    // The phone's own deck: the service reads with the room's while it can, else with this one.
    const fields = { name, deck: deckChosen(), ...(chosen ? { tableau: chosen.k } : {}) };
    const res = await sendRoom(`/api/rooms/${room.id}/photo`, file, fields,
      token ? { "X-Player-Token": token, ...(version ? { "If-Match": `"${version}"` } : {}) } : {}).finally(() => {
      roomSending -= 1;  // answered, refused or cancelled: nothing to say after a reload (unless the page is going)
      if (!roomSending && !leaving) try { sessionStorage.removeItem(ROOM_SENDING_KEY); } catch { /* storage off */ }
    });
    if (!res) { if (res === null && chosen && offered) { notMine = offered; showNotMine(); } return; }  // cancelled
    localStorage.setItem(tokenKey(res.name), res.token);  // the name as stored (trimmed, normalised)
    // A phone passed round the table (it holds several seats now): the box is the next player's,
    // empty (it kept the last one's name, to be cleared each time: a walk).
    if (seatsHere(res.room.players).length > 1) $("player-name").value = "";
    room.version = res.room.version; room.doc = res.room;
    showRoom(res.room);
    // A read with as many doubts as the one-photo page asks to retake for is kept (the player may
    // check its cards), but said so, with what this photo's read advises (a player's walk-through:
    // a room took it silently).
    const entry = room.views.get(res.name), doubtful = entry && entry.view.read ? entry.view.readDoubtCount() : 0;
    const player = res.room.game && res.room.game.players.find((p) => p.name === res.name);
    const advice = adviceOf(player && player.doubts);
    // Any doubt at all (a few cards, a card beside the grid, a tableau photographed twice) said in a
    // word: "Ecosistema di Chiara aggiunto." stood alone over a read to check (an Italian walk).
    const toCheck = doubtful > 0 || !!(player && ((player.doubts || []).length || (player.deck_issues || []).length));
    keepNotMine(player && player.tableaux > 1 ? { file, name: res.name, k: player.tableau, n: player.tableaux,
      data: chosen && offered && offered.file === file ? offered.data : undefined } : null);
    // The player's choice said, with where to see it: the page shows the room's photo with the cells taken.
    if (chosen && player) { setStatus($("room-status"), () => t("ui.room_which", { k: player.tableau, n: player.tableaux, name: res.name })); return; }
    setStatus($("room-status"), () => doubtful >= UNREADABLE
      ? [t(replacing ? "ui.replaced_doubtful" : "ui.added_doubtful", { name: res.name, n: doubtful }),
        ...advice.map((d) => sentence(translated(d)))].join(" ")
      : [t(replacing ? "ui.replaced" : "ui.added", { name }), toCheck ? t("ui.added_to_check") : ""].filter(Boolean).join(" "),
    doubtful >= UNREADABLE);
  } catch (err) {
    if (err.code === "no_such_deck" || err.code === "deck_incomplete") await deckGone(err);
    // The player's own deck, not taught yet: it is taught on the start page (a tab of its own,
    // so this room stays open), then the tableau is added again.
    // A room with a deck of its own: not a deck for this phone to teach (it is the room's), nor
    // a menu to choose another in (the refusal said "choose the right deck (Deck)": there is none here).
    const roomDeckTitle = room.doc && room.doc.deck ? room.doc.deck_title || room.doc.deck : "";
    const notIts = err.code === "not_this_deck" && !!roomDeckTitle;
    const teach = err.code === "not_this_deck" && !notIts;
    // A photo refused for a player already in the room: their tableau there is the earlier one,
    // as the one-photo page says of its score (a walk: "Anna: No tableau found ..." and no more).
    const kept = !teach && token && room.doc && room.doc.players.includes(name);  // (another's name: not theirs to replace)
    const said = () => (notIts ? t("ui.room_not_its_deck", { name: roomDeckTitle }) : err.say ? err.say() : err.message);
    // Said once: the refusal's own "teach the page its cards (Name the cards of my deck)" and
    // the room's "Teach it once on the start page" were two instructions for one step (a newcomer).
    const reading = deckTitle(deckChosen() || builtinDeck) || t("ui.deck_sample");
    // A deck this phone is teaching, still lacking a type: not in the start page's menu, so "choose
    // it there" could not be done (a Russian walk); what it lacks is said instead.
    const building = teach ? await deckBeingBuilt() : null;
    const teachText = () => (building ? t("ui.room_deck_building", { name: building.title || building.name,
      missing: building.missing.map((c) => I18N.card(c)).join(", ") }) : t("ui.room_teach"));
    setStatus($("room-status"), teach ? () => `${t("ui.room_unknown_cards", { name: reading })} ${teachText()}`
      : Object.assign(() => [said(), ...(kept ? [t("ui.room_kept", { name })] : [])].join("; "), { offline: !!err.offline }), true);
    $("room-teach").hidden = !teach;
    if (chosen && offered) { notMine = offered; showNotMine(); }
  }
}

// The bot's grid in its box, shown from its start: a line a row, wider than a phone, and a new
// text kept the old one's sideways scroll ("cello cervo prato ..." after "Bot's grid from a
// photo": an Italian walk).
function setBotText(text) {
  const box = $("bot-grid");
  if (box.value !== text) { box.value = text; box.scrollLeft = 0; box.scrollTop = 0; }
  room.botText = text;
}

async function botFromPhoto(file) {
  $("bot-file").value = "";
  if (!file) return;
  try {
    const doc = await sendBot("/api/photo", file, { deck: roomDeck() });  // the game's cards: the room's deck
    if (!doc) return;
    const grid = doc.players[0].grid;
    const doubts = [...(doc.players.length > 1 ? [t("ui.bot_several", { n: doc.players.length })] : []),
      ...(doc.players[0].doubts || []).map((d) => translated(d))];
    // A read in doubt is not saved as the bot's: saved, its doubts went with the photo and the
    // game was final on a guess (a game night's walk: a dark photo, a photo of three tableaux).
    // Its grid is put in the box to check against the bot's cards, and saved by the player.
    if (doubts.length) {
      setBotText(gridText(grid));
      setStatus($("bot-status"), () => t("ui.bot_unsure", { doubts: doubts.join("; ") }), true);
      $("bot-grid").focus();
      return;
    }
    const saved = await api("PUT", `/api/rooms/${room.id}/bot`, { grid }, ownerHeaders());
    setBotText(gridText(grid));
    setStatus($("bot-status"), () => t("ui.bot_read"));
    room.version = saved.version; room.doc = saved; showRoom(saved);
  } catch (err) {
    // Without the photo's name before it ("icon-512: No tableau found: ...": an Italian walk), as
    // the one-photo page says a refusal; still taken back once back online, if that was the cause.
    setStatus($("bot-status"), Object.assign(() => unnamedRefusal(err), { offline: err.offline }), true);
  }
}

async function share() {
  await room.ready;
  const url = $("room-link").href || location.href;
  if (navigator.share) {
    try { await navigator.share({ title: "ecoscore", text: t("ui.share_text"), url }); return; } catch (err) { if (err.name === "AbortError") return; }
  }
  try {
    await navigator.clipboard.writeText(url);
    setStatus($("room-status"), () => t("ui.copied"));
  } catch {
    const range = document.createRange();
    range.selectNodeContents($("room-link"));
    getSelection().removeAllRanges(); getSelection().addRange(range);
    setStatus($("room-status"), () => t("ui.copy_failed"));
  }
}

// ---------- start ----------
function rerender() {
  if (solo.view && solo.doc && !solo.pending) {
    // the photo as one game, shown, stays shown in the language chosen (it went with the old words)
    const game = !$("game").hidden && solo.game;
    solo.view.render(); showSolo(solo.view.player);
    if (game) renderGame(game.players);
  }
  if (room.doc) { for (const { view } of room.views.values()) view.render(); if (room.other) room.other.render(); showRoom(room.doc); }
  if (!$("recent-rooms").hidden) showRecentRooms();
}

function bindPhotoButtons() {
  // Bound before the language is loaded: a player who taps "Choose a file" at once (a slow
  // phone, a slow network) must get the file chooser, not a dead button.
  sendSolo = sender($("upload"), $("progress"), $("cancel"), $("status"));
  $("take").addEventListener("click", () => $("camera").click());
  $("choose").addEventListener("click", () => $("file").click());
  for (const id of ["camera", "file"]) {
    $(id).addEventListener("change", (e) => { const f = e.target.files[0]; e.target.value = ""; scorePhoto(f); });
  }
  // "New room" too: bound after the catalogue, a tap on a slow load did nothing (seen in CI).
  $("new-room").addEventListener("click", async () => {
    // One room a tap: a double tap started two, one of them lost (and counted against the
    // service's rooms an hour: a walk). Free again if it fails; the page leaves if it does not.
    $("new-room").disabled = true;
    try {
      // The deck this phone reads with becomes the room's: every phone in it reads the game's
      // cards with it (a friend's phone could not read a deck taught on this one: a walk).
      const deck = deckChosen() && deckChosen() !== builtinDeck ? deckChosen() : "";
      const doc = await api("POST", "/api/rooms", { mode: $("mode").value, deck });
      localStorage.setItem(ownerKey(doc.id), doc.owner_token);  // only this phone may change the room's settings
      keepRecentRoom(doc.id);
      location.href = doc.url;
    } catch (err) { setStatus($("status"), err, true); $("new-room").disabled = false; }
  });
}

function bindRoomButtons(id) {
  // Bound before the language is loaded, as on the start page: a tap on a slow load must work.
  room.id = id;
  $("solo-view").hidden = true; $("room-view").hidden = false;
  sendRoom = sender($("room-upload"), $("room-progress"), $("room-cancel"), $("room-status"));
  // The bot's photo has its own upload: sharing the player's, one cancelled the other in flight
  // and the player's photo was lost without a word (a review).
  sendBot = sender($("bot-upload"), $("bot-progress"), $("bot-cancel"), $("bot-status"));
  $("add-photo").addEventListener("click", addPhotoClicked);
  // A name past what a room keeps (the box's maxlength, the service's 40): typed, the box takes no
  // more; pasted, it was cut without a word (a walk, in Russian). Said, and taken back once a name fits.
  $("player-name").addEventListener("beforeinput", (e) => {
    const box = e.target, text = e.data ?? (e.dataTransfer ? e.dataTransfer.getData("text/plain") : "");
    if (box.maxLength < 0 || !e.inputType.startsWith("insert")) return;
    const long = box.value.length - (box.selectionEnd - box.selectionStart) + (text || "").length > box.maxLength;
    if (long) setStatus($("room-status"), Object.assign(() => t("ui.name_cut", { max: box.maxLength }), { mark: "name_cut" }));
    else if ($("room-status").mark === "name_cut") setStatus($("room-status"), "");
  });
  // a name typed again is no longer the one refused
  $("player-name").addEventListener("input", (e) => { e.target.removeAttribute("aria-invalid"); e.target.removeAttribute("aria-describedby"); addPhotoLabel(); });
  $("room-photo").addEventListener("change", (e) => joinRoom(e.target.files[0]));
  $("room-not-mine").addEventListener("click", () => notMine && joinRoom(notMine.file, { name: notMine.name, k: notMine.k % notMine.n + 1 }));
  addEventListener("resize", () => { if (room.doc && room.doc.game) fitRoomPad(room.doc.game.players); });
  $("join").addEventListener("submit", (e) => { e.preventDefault(); addPhotoClicked(); });
  $("share").addEventListener("click", share);
  // Room-wide settings, the creator's: said saved, and the room shown as it now is.
  // The bot's said in its own box, without the service's "bot: " before it (left in English, a walk).
  const saveSetting = (what, body, said = $("room-status")) => api("PUT", `/api/rooms/${room.id}/${what}`, body, ownerHeaders())
    .then(() => { setStatus(said, () => t("ui.settings_saved")); return loadRoom(true); }, (e) => setStatus(said, () => unnamedRefusal(e), true));
  $("save-neutral").addEventListener("click", () => {
    // Out of the inputs' own range: said in the player's words (the service's 422 for 30 wolves
    // was FastAPI's, in English: a walk, in Russian).
    const [streams, wolves] = ["neutral-streams", "neutral-wolves"].map((id) => $(id));
    const given = [streams, wolves].filter((el) => el.value.trim() !== "");
    if (given.some((el) => !Number.isInteger(+el.value) || +el.value < +el.min || +el.value > +el.max)) {
      // The range, and whole numbers: "at most 20 streams and 12 wolves" was all it said of -1 or
      // 2.5 (an Italian walk). (The service's api.neutral_cap, for a pile past its most, stays its own.)
      setStatus($("room-status"), () => t("ui.neutral_range", { what: t("ui.neutral"), streams: streams.max, wolves: wolves.max }), true);
      return;
    }
    // A box left empty ("—", the pile not given yet) is asked for, not saved as 0 unsaid.
    if (given.length < 2) {
      setStatus($("room-status"), () => t("ui.neutral_empty", { what: t("ui.neutral") }), true);
      return;
    }
    saveSetting("neutral", { streams: +streams.value, wolves: +wolves.value });
  });
  $("save-bot").addEventListener("click", () => saveSetting("bot", { grid: $("bot-grid").value }, $("bot-status")));
  $("bot-photo").addEventListener("click", () => $("bot-file").click());
  $("room-use-deck").addEventListener("click", () => {
    if (!room.doc || !room.doc.deck) return;
    localStorage.setItem(DECK_KEY, room.doc.deck);
    $("room-use-deck").hidden = true;
    const name = room.doc.deck_title || room.doc.deck;
    setStatus($("room-status"), () => t("ui.room_deck_used", { name }));
  });
  $("bot-file").addEventListener("change", (e) => botFromPhoto(e.target.files[0]));
}

async function start() {
  const inRoom = location.pathname.match(/^\/r\/([a-z0-9]+)$/);
  if (inRoom) bindRoomButtons(inRoom[1]); else bindPhotoButtons();
  // The language menu listens from the start: a language chosen while the first catalogue was
  // on its way was lost, and the menu set back (a browser test's quick choice, now and then).
  let ready = false, chosen = null;
  const switchTo = async (lang) => {
    // The link's ?lang= gives way to the player's choice, a reload too (a review: the link's
    // language came back after the phone's camera reloaded the page).
    const url = new URL(location.href);
    if (url.searchParams.has("lang")) { url.searchParams.delete("lang"); history.replaceState(history.state, "", url); }
    await I18N.set(lang, true); rerender(); resay();
    if ($("said").textContent && !$("result").hidden) announceTotal();  // (it stayed in the last language: an audit)
    loadDecks($("deck"));  // "(built in)" in the language chosen
  };
  $("lang").addEventListener("change", (e) => { chosen = e.target.value; if (ready) switchTo(chosen); });
  await I18N.set(I18N.choose());
  ready = true;
  if (!inRoom) showRecentRooms();  // (their players named in the page's words: "a, b e altri 3")
  if (chosen && chosen !== I18N.lang) await switchTo(chosen); else $("lang").value = I18N.lang;
  resay();  // a status shown before the catalogue arrived (a photo chosen at once)
  if (inRoom && ROOM_INTERRUPTED && ROOM_INTERRUPTED.room === inRoom[1]) {
    const { name, replacing } = ROOM_INTERRUPTED;
    setStatus($("room-status"), () => [t("ui.room_upload_interrupted", { name }), ...(replacing ? [t("ui.room_kept", { name })] : [])].join(" "), true);
    // "Add it again" with the name still there to add it under (it had to be typed again: a walk)
    if (!$("player-name").value) $("player-name").value = name;
  }
  // Opened from a room to teach a deck: what to do here (the page was bare: a walk).
  if (!inRoom && new URLSearchParams(location.search).has("teach") && !$("status").textContent) {
    setStatus($("status"), () => t("ui.teach_from_room"));
  }
  // The room's "Name the cards of my deck" opens a tab, which has none of this tab's language from
  // a link (sessionStorage is a tab's): it is told the language in use when it is opened.
  $("room-teach").addEventListener("click", (event) => { event.currentTarget.href = `/?teach&lang=${I18N.lang}`; });
  if ("serviceWorker" in navigator) navigator.serviceWorker.register("/sw.js").catch(() => {});
  window.addEventListener("offline", () => showOffline(true));
  window.addEventListener("online", () => fetch("/health", { cache: "no-store" }).then(() => showOffline(false), () => {}));
  if (inRoom) {
    await loadRoom(true);
    if (!$("room-home").hidden) return;  // no such room
    restoreNotMine();
    roomLoaded();
    if (room.doc) resumeRoomWrites();  // (not loaded, offline: kept for the next load of the page)
    // Live: new tableaux show up within two seconds; not while the page is out of sight (a phone
    // laid on the table, locked), and at once when it is back.
    room.poll = setInterval(() => { if (!document.hidden) loadRoom(); }, 2000);
    document.addEventListener("visibilitychange", () => { if (!document.hidden && $("room-home").hidden) loadRoom(); });
    return;
  }
  loadDecks($("deck"));
  $("deck").addEventListener("change", (e) => {
    localStorage.setItem(DECK_KEY, e.target.value);
    if (goneDeck) { goneDeck = null; setStatus($("deck-note"), ""); }
  });
  $("remember").addEventListener("click", rememberCards);
  $("forget").addEventListener("click", forgetCards);
  $("teach-start").addEventListener("click", teachPhoto);
  $("other-tableau").addEventListener("click", otherTableau);
  $("as-game").addEventListener("click", () => scoreAsOneGame());
  $("show-anyway").addEventListener("click", () => { solo.showAnyway = true; showSolo(solo.view.player); });
  restoreSolo();
  fetch("/health", { cache: "no-store" }).then((r) => showOffline(!r.ok), () => showOffline(true));
}
start();
