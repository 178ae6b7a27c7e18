// The page's language: the catalogues in /static/i18n/ (the same files the service translates
// its API messages with), chosen by a link's ?lang= (for the tab), by the player (kept), or from the browser
// (navigator.languages).
"use strict";
const I18N = (() => {
  const LANGS = ["en", "cs", "ru", "it"];
  const STORE = "ecoscore:lang";
  let lang = "en", cat = {}, en = {}, matchers = null;

  // A language tag's primary language ("it-IT", a POSIX "it_IT": "it").
  const primary = (tag) => String(tag || "").trim().toLowerCase().split(/[-_]/)[0];

  function choose() {
    // A link's ?lang= first, as the API takes it (the page took only the browser's or the
    // player's choice: an audit); not saved, so the player's own choice stays theirs.
    // Kept for the tab (sessionStorage): a room started from /?lang=ru went on in the browser's
    // language, its own address having no ?lang=.
    // Read as a tag, as the API reads it: "?lang=it-IT" is Italian.
    const asked = primary(new URLSearchParams(location.search).get("lang"));
    if (LANGS.includes(asked)) { sessionStore("set", asked); return asked; }
    const linked = sessionStore("get");
    if (LANGS.includes(linked)) return linked;
    const saved = localStorage.getItem(STORE);
    if (LANGS.includes(saved)) return saved;
    for (const tag of navigator.languages || [navigator.language || "en"]) {
      const base = primary(tag);
      if (LANGS.includes(base)) return base;
    }
    return "en";
  }

  // The tab's language from a link; a browser that refuses storage (a private window's quota) only
  // loses the memory of it.
  function sessionStore(op, value) {
    try {
      if (op === "get") return sessionStorage.getItem(STORE);
      if (op === "set") sessionStorage.setItem(STORE, value); else sessionStorage.removeItem(STORE);
    } catch { /* no storage: the link's language holds for its own page only */ }
    return null;
  }

  // A language chosen from the menu in another tab is the player's choice in this one too.
  addEventListener("storage", (event) => { if (event.key === STORE) sessionStore("remove"); });

  async function load(l) {
    const res = await fetch(`/static/i18n/${l}.json`);
    if (!res.ok) throw new Error(`catalogue ${l}: ${res.status}`);
    return res.json();
  }

  function fill(entry, params, l) {
    if (entry && typeof entry === "object") {
      // (a negative count written with the minus sign, U+2212, as the page writes one, is a number too)
      const form = new Intl.PluralRules(l).select(Number(String(params.n ?? 0).replace("\u2212", "-")));
      entry = entry[form] ?? entry.other ?? Object.values(entry)[0];
    }
    // A value that ends a sentence itself ("Giulia R.") takes the template's full stop after it:
    // "Giulia ora si chiama Giulia R.." was said (an Italian walk).
    return String(entry).replace(/\{(\w+)\}(\.?)/g, (m, k, stop) => {
      if (!(k in params)) return m;
      const value = String(params[k]);
      return value + (stop && value.endsWith(".") ? "" : stop);
    });
  }

  function t(key, params = {}) {
    if (key in cat) return fill(cat[key], params, lang);
    if (key in en) return fill(en[key], params, "en");
    return key;
  }

  // a type, "empty" (null), or a deck matcher's "not ours": its entry is card.not_ours
  // ("a foreign card": how the reader's doubts say "not ours" to a player)
  const card = (type) => t(`card.${type === "a foreign card" ? "not_ours" : (type || "empty").replace(/ /g, "_")}`);

  // ---- messages of the reader and the service (English) in the page's language ----
  // The same matching as service/i18n.py: every English api.* template becomes a pattern,
  // the most specific first; parameters that are words are translated in turn.
  const KIND = {
    n: "num", k: "num", row: "num", col: "num", deck: "num", mb: "num", limit: "num", w: "num", h: "num",
    pct: "pct", low: "num", runner_pct: "pct", card: "card", top: "card", runner: "card", swapped: "card", swapped_as: "card",
    doubt: "msg", error: "msg", belief: "msg", where: "cells", residual: "dec", types: "cards",
    cells: "names", place: "ord",  // an explanation's "row 1, col 2; ..." and a majority's "2nd"
    lay_one: "lay", lay_other: "lay",  // a way an enrolment's grid may lie: "turned 180°, 1 row off where ..."
  };
  // The ways vision/enrol.py says a grid may lie on the cards found (as service/i18n.py's _LAY_PATTERN).
  const LAY = /^(as written|turned 180°)(?:, (?:(where)|(?:(\d+) rows?)?(?: and )?(?:(\d+) columns?)? off where) the cards found put it)?$/;
  // card: a name the reader gives a cell, one word or a deck matcher's "not ours" (as service/i18n.py)
  const GROUP = { num: "\\d+", pct: "\\d+ ?%", card: "(?:a foreign card|not ours|[a-z]+)", cards: "[a-z]+(?:, [a-z]+)*", dec: "[\\d.]+",
                  msg: "[\\s\\S]+", cells: "[\\s\\S]+", names: "[\\s\\S]+", ord: "\\d+(?:st|nd|rd|th)",
                  lay: LAY.source.slice(1, -1).replace(/\((?!\?)/g, "(?:") };  // (its groups not the message's)
  const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

  function buildMatchers() {
    const found = [];
    for (const [key, value] of Object.entries(en)) {
      if (!key.startsWith("api.")) continue;
      for (const form of typeof value === "object" ? Object.values(value) : [value]) {
        let src = "", pos = 0;
        const seen = new Set();  // a name used twice is the same text both times (a group may be named once)
        for (const m of form.matchAll(/\{(\w+)\}/g)) {
          src += escape(form.slice(pos, m.index)) +
            (seen.has(m[1]) ? `\\k<${m[1]}>` : `(?<${m[1]}>${GROUP[KIND[m[1]]] || "[\\s\\S]+?"})`);
          seen.add(m[1]);
          pos = m.index + m[0].length;
        }
        src += escape(form.slice(pos));
        found.push({ key, literal: form.replace(/\{\w+\}/g, "").length, re: new RegExp(`^${src}$`) });
      }
    }
    found.sort((a, b) => b.literal - a.literal);
    return found;
  }

  // The bounds of service/i18n.py: a message holds a client's text, and one crafted of ": " and
  // "; " made the matching recurse and try every split.
  const MAX_TEXT = 1500, MAX_DEPTH = 3, MAX_PARTS = 6;

  function match(text, depth = 0) {
    if (text.length > MAX_TEXT || depth > MAX_DEPTH) return null;
    if (!Object.keys(en).length) return null;  // asked before the catalogue came: built once it is here
    matchers = matchers || buildMatchers();
    for (const { key, re } of matchers) {
      const m = re.exec(text);
      if (!m) continue;
      const params = { ...m.groups };
      if (Object.keys(params).every((k) => KIND[k] !== "msg" || match(params[k], depth + 1))) return { key, params };
    }
    return null;
  }

  // What the language writes between a number and "%" (cs, ru: a no-break space), as Intl has it.
  const percentSpace = () => (0.5).toLocaleString(lang, { style: "percent" }).replace(/[\d%]/g, "");

  function message(text) {
    if (lang === "en" || !text) return text;
    const found = match(text);
    if (!found) return joined(text);
    const out = {};
    for (const [k, v] of Object.entries(found.params)) {
      const kind = KIND[k];
      out[k] = kind === "msg" ? message(v) : kind === "card" ? card(v === "empty" ? null : v)
        : kind === "cards" ? v.split(", ").map((c) => card(c)).join(", ")
        : kind === "dec" ? v.replace(".", (1.5).toLocaleString(lang).charAt(1))  // "0,29" where the language writes so
        : kind === "pct" ? v.replace(/(\d) ?%/, `$1${percentSpace()}%`)  // "87 %" where the language writes so
        : kind === "ord" ? v.replace(/\D+$/, "")
        : kind === "lay" ? placement(v)
        : kind === "names" ? v.replace(/row (\d+), col (\d+)/g, (_, r, c) => t("api.cell_name", { row: r, col: c }))
        : kind === "cells" ? v.replace(/row (\d+) col (\d+)/g, (_, r, c) => t("api.cell_short", { row: r, col: c }))
          .replace(/(?:line|row) (\d+), cell (\d+)/g, (_, line, cell) => t("api.line_cell", { line, cell }))
          .replace(/^bot, /, () => `${t("api.bots_grid")}, `) : v;  // as service/i18n.py says it
    }
    return t(found.key, out);
  }

  // A way an enrolment's grid lies on the cards found, in the page's language (service/i18n.py's _placement).
  function placement(text) {
    const [, lay, there, rows, columns] = LAY.exec(text);
    const said = t(lay === "as written" ? "enrol.as_written" : "enrol.turned");
    const moves = [["enrol.rows", rows], ["enrol.columns", columns]].filter(([, n]) => n).map(([key, n]) => t(key, { n: Number(n) }));
    if (there) return t("enrol.there", { lay: said });
    if (!moves.length) return said;
    return t("enrol.moved", { lay: said, move: moves.length === 1 ? moves[0] : t("enrol.and", { a: moves[0], b: moves[1] }) });
  }

  // A refusal with retake advice after it: messages joined by "; ", each translated. The refusal
  // itself may hold a "; " (why, then what to do), so the head is the longest one that is a
  // message (as service/i18n.py translate). Anything else is left as it came.
  function joined(text) {
    const parts = text.split("; ");
    if (parts.length > MAX_PARTS || text.length > MAX_TEXT) return text;
    for (let cut = parts.length - 1; cut > 0; cut--) {
      const head = parts.slice(0, cut).join("; ");
      if (match(head) && parts.slice(cut).every((part) => match(part))) {
        return [head, ...parts.slice(cut)].map(message).join("; ");
      }
    }
    return text;
  }

  function apply(root = document) {
    root.querySelectorAll("[data-i18n]").forEach((el) => { el.textContent = t(el.dataset.i18n); });
    root.querySelectorAll("[data-i18n-attr]").forEach((el) => el.dataset.i18nAttr.split(";").forEach((pair) => {
      const [attr, key] = pair.split(":");
      el.setAttribute(attr, t(key));
    }));
    if (root === document) { document.documentElement.lang = lang; document.title = t("ui.title"); }
  }

  async function set(l, remember = false) {
    if (!Object.keys(en).length) en = await load("en");
    cat = l === "en" ? en : await load(l);
    lang = l;
    if (remember) { localStorage.setItem(STORE, l); sessionStore("remove"); }  // the player's own choice wins from now on
    apply();
  }

  return { LANGS, get lang() { return lang; }, t, card, message, match, apply, set, choose };
})();
