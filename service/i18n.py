"""The player's language: one message catalogue per language, shared by the page and the API.

The catalogues are JSON files in ``static/i18n/`` (``en.json``, ``cs.json``, ``ru.json``,
``it.json``): the page loads them as they are, and the service uses their ``api.*`` entries.
An entry is a string with ``{named}`` parameters, or an object of plural forms (CLDR categories
``one``/``few``/``many``/``other``) chosen by the parameter ``n``.

The reader and the scorer speak English. Until they emit codes and parameters, their messages
are translated *on the way out*: each English ``api.*`` template is turned into a pattern, a
message is matched against them (the most specific first), its parameters are taken out,
translated where they are words (card names, nested messages, lists of cells) and put into the
same template of the player's language. A message no template matches is passed on in English.
"""
from __future__ import annotations

import json
import re
import time
from functools import lru_cache
from pathlib import Path

from ecoscore.scoring.cards import FOREIGN_CARD, NOT_OURS  # how a reader's doubts name a card of no type

CATALOGUES = Path(__file__).resolve().parent / "static" / "i18n"
LANGS = ("en", "cs", "ru", "it")
DEFAULT = "en"

# What each parameter of an api.* template may hold, by its name.
_NUMBER = {"n", "k", "row", "col", "deck", "mb", "limit", "w", "h", "low"}
_PERCENT = {"pct", "runner_pct"}
_CARD = {"card", "top", "runner"}
# A name the reader gives a cell: a type, "empty", or a deck matcher's "not ours" (scoring/cards.py's
# NOT_OURS, two words: the runner-up of a doubt such as "bee 79%, or not ours 18%"). Its catalogue
# entry is card.<name>, a space written "_".
_NAME = rf"(?:{FOREIGN_CARD}|{NOT_OURS}|[a-z]+)"
_CARDS = {"types"}  # "fox, dragonfly"
_MESSAGE = {"doubt", "error", "belief"}  # nested messages, translated in turn
_CLASHES = {"clashes"}  # nested messages joined by "; " (`deck add`'s cells a grid and a deck disagree on)
_CELLS = {"where"}  # "row 1 col 2, row 3 col 4"
_OS_REASON = {"why"}  # the system's words for a failed read or write (strerror): said with os.* where we know them
# strerror's English (lower-cased: batch writes it so), as C libraries word them, and its os.* entry.
_OS_REASONS = {"no space left on device": "os.no_space", "read-only file system": "os.read_only",
               "input/output error": "os.io_error", "disk quota exceeded": "os.quota",
               "file name too long": "os.name_too_long", "not a directory": "os.not_a_folder",
               "too many open files": "os.too_many_open"}
_CELL_NAMES = {"cells"}  # "row 1, col 2; row 3, col 4" (an explanation's cells: scoring.tableau.cell_name)
_DECIMAL = {"residual"}
_ORDINAL = {"place"}  # a place in a majority, "2nd" (scoring.majority.ordinal): its number, as each language writes it round it
# A way an enrolment's grid may lie on a photo's cards (vision/enrol.py's labels): "as written",
# "turned 180°, 1 row and 2 columns off where the cards found put it".
_PLACEMENT = {"lay_one", "lay_other"}
_LAY_PATTERN = (r"(as written|turned 180°)(?:, (?:(where)|(?:(\d+) rows?)?(?: and )?(?:(\d+) columns?)? off where) the cards "
                r"found put it)?")
# The languages that write a decimal comma ("0,29"); English keeps the point.
_DECIMAL_COMMA = {"cs", "ru", "it"}
# The languages that put a (no-break) space before "%" ("87 %", as the page's Intl writes it:
# a doubt's "87%" beside the upload's "42 %", a walk, in Czech).
_PERCENT_SPACE = {"cs", "ru"}


@lru_cache(maxsize=None)
def catalogue(lang: str) -> dict:
    return json.loads((CATALOGUES / f"{lang}.json").read_text(encoding="utf-8"))


def plural_category(lang: str, n: int) -> str:
    """CLDR plural category of the integer ``n`` (what Intl.PluralRules gives the page)."""
    n = abs(int(n))
    if lang == "ru":
        if n % 10 == 1 and n % 100 != 11:
            return "one"
        if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
            return "few"
        return "many"
    if lang == "cs":
        return "one" if n == 1 else "few" if 2 <= n <= 4 else "other"
    return "one" if n == 1 else "other"


ACCEPT_LANGUAGE_CHARS, ACCEPT_LANGUAGE_TAGS = 1000, 32  # what of an Accept-Language header is read
_QVALUE = re.compile(r"0(\.\d{0,3})?|1(\.0{0,3})?")


def _primary(tag: str) -> str:
    """A language tag's primary language: "it" of "it-IT", and of a POSIX locale's "it_IT"."""
    return re.split(r"[-_]", tag.strip().lower())[0]


def negotiate(accept_language: str | None) -> str:
    """The best of LANGS for an Accept-Language header (q-values honoured), else English."""
    best, best_q = DEFAULT, -1.0
    # A browser sends a few tags; a header of 9,000 held the event loop 20 ms a request (an attack).
    for part in (accept_language or "")[:ACCEPT_LANGUAGE_CHARS].split(",")[:ACCEPT_LANGUAGE_TAGS]:
        tag, _, params = part.strip().partition(";")
        q = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "q":  # RFC 9110's qvalue; any other ("abc", "1e999") ignores the tag
                q = float(value.strip()) if _QVALUE.fullmatch(value.strip()) else 0.0
        lang = _primary(tag)
        if lang in LANGS and q > 0 and q > best_q:  # the first of equal q wins
            best, best_q = lang, q
    return best


def _group(name: str) -> str:
    """What a parameter may hold, as a regular expression (by its name)."""
    if name in _NUMBER:
        return r"\d+"
    if name in _PERCENT:
        return r"\d+ ?%"
    if name in _CARD:
        return _NAME
    if name in _CARDS:
        return r"[a-z]+(?:, [a-z]+)*"
    if name in _DECIMAL:
        return r"[\d.]+"
    if name in _ORDINAL:
        return r"\d+(?:st|nd|rd|th)"
    if name in _PLACEMENT:
        return re.sub(r"\((?!\?)", "(?:", _LAY_PATTERN)  # its groups unnamed, uncaptured: one of the message's parameters
    if name in _CELLS:
        # never across "; ": two messages joined so ("row 1 col 2: ...; row 3 col 4: ...") were
        # taken for the second alone, the first left in English as its cells
        return r"(?:(?!; ).)+"
    if name in _MESSAGE or name in _CLASHES or name in _CELL_NAMES:
        return r".+"
    return r".+?"


def _pattern(template: str) -> re.Pattern:
    out, pos, seen = [], 0, set()
    for m in re.finditer(r"\{(\w+)\}", template):
        out.append(re.escape(template[pos:m.start()]))
        name = m.group(1)
        # A name used twice is the same text both times (and a group may be named only once).
        out.append(f"(?P={name})" if name in seen else f"(?P<{name}>{_group(name)})")
        seen.add(name)
        pos = m.end()
    out.append(re.escape(template[pos:]))
    return re.compile("^" + "".join(out) + "$", re.S)


@lru_cache(maxsize=1)
def _matchers() -> list[tuple[str, re.Pattern]]:
    """(key, pattern) of every English api.* template and plural form, most specific first."""
    found = []
    for key, value in catalogue("en").items():
        if not key.startswith("api."):
            continue
        for form in (value.values() if isinstance(value, dict) else [value]):
            literal = len(re.sub(r"\{\w+\}", "", form))
            found.append((literal, key, _pattern(form)))
    found.sort(key=lambda t: -t[0])
    return [(key, pattern) for _, key, pattern in found]


def fill(lang: str, key: str, **params) -> str:
    """The catalogue entry ``key`` of ``lang`` with its parameters (English if it lacks one)."""
    entry = catalogue(lang).get(key, catalogue("en")[key])
    if isinstance(entry, dict):
        n = params.get("n", 0)
        entry = entry.get(plural_category(lang, int(n)), entry.get("other") or next(iter(entry.values())))
    return entry.format(**params)


def decimal(lang: str, number: str) -> str:
    """A number written "0.29" as ``lang`` writes it ("0,29" in Czech, Russian and Italian)."""
    return number.replace(".", ",") if lang in _DECIMAL_COMMA else number


def percent_sign(lang: str) -> str:
    """"%" as ``lang`` writes it after a number: "87 %" in Czech and Russian, "87%" else."""
    return "\u00a0%" if lang in _PERCENT_SPACE else "%"


def card_name(lang: str, card: str) -> str:
    key = "not_ours" if card == FOREIGN_CARD else card.replace(" ", "_")
    return catalogue(lang).get(f"card.{key}", card)


# Bounds on what is matched: a message holds a client's text (a file name, a player's name), and
# one crafted of ": " and "; " made the matching recurse once per separator and try every split
# (2 KB held the event loop 5 s, a little more was a RecursionError: an attack). No message of
# ours is longer, nests deeper, or joins more parts.
MAX_TEXT, MAX_DEPTH, MAX_PARTS = 1500, 3, 6
# And in time: a message of ours is matched in under 1 ms (the test catalogue's worst 0.8), yet a
# 1.4 KB file name of ": " and "; " within those bounds still took 0.5-1.1 s of the event loop per
# request, in every language but English (an attack: the service slowed for everyone). Past this,
# a message stays in English. The thread's own CPU time: a busy machine's waits are not counted,
# so a message of ours is never left in English because photos were being read meanwhile.
MAX_MATCH_SECONDS = 0.03


def match(text: str, _depth: int = 0, _deadline: float | None = None) -> tuple[str, dict] | None:
    """The api.* key and parameters an English message was made from (None: no template fits, or
    none found within ``MAX_MATCH_SECONDS``).

    A template with a nested message matches only if that message matches in turn."""
    if len(text) > MAX_TEXT or _depth > MAX_DEPTH:
        return None
    matchers = _matchers()  # (compiled at the first call: not the message's time)
    deadline = time.thread_time() + MAX_MATCH_SECONDS if _deadline is None else _deadline
    for k, (key, pattern) in enumerate(matchers):
        if k % 32 == 0 and time.thread_time() > deadline:  # (asked every time, it cost 10 times the matching)
            return None
        m = pattern.match(text)
        if not m:
            continue
        params = m.groupdict()
        if all(match(params[name], _depth + 1, deadline) for name in params if name in _MESSAGE):
            return key, params
    return None


def translate(text: str, lang: str, _deadline: float | None = None) -> str:
    """``text`` (an English message of the reader, scorer or service) in ``lang`` (as it is where
    it cannot be matched within ``MAX_MATCH_SECONDS``)."""
    if lang == DEFAULT or lang not in LANGS:
        return text
    _matchers()
    deadline = time.thread_time() + MAX_MATCH_SECONDS if _deadline is None else _deadline
    found = match(text, _deadline=deadline)
    if found is None:
        # A refusal with retake advice after it: messages joined by "; ", each translated. The
        # refusal itself may hold a "; " (why, then what to do), so it is the longest head that
        # is a message.
        parts = text.split("; ")
        if len(parts) > MAX_PARTS or len(text) > MAX_TEXT:
            return text
        for cut in range(len(parts) - 1, 0, -1):
            head = "; ".join(parts[:cut])
            if match(head, _deadline=deadline) and all(match(part, _deadline=deadline) for part in parts[cut:]):
                return "; ".join(translate(part, lang, deadline) for part in [head, *parts[cut:]])
        return text
    key, params = found
    out = {}
    for name, value in params.items():
        if name in _MESSAGE:
            out[name] = translate(value, lang, deadline)
        elif name in _CLASHES:
            out[name] = "; ".join(translate(part, lang, deadline) for part in value.split("; "))
        elif name in _OS_REASON:
            key_of = _OS_REASONS.get(value.lower())
            out[name] = fill(lang, key_of) if key_of else value
        elif name in _CARD:
            out[name] = card_name(lang, value)
        elif name in _CARDS:
            out[name] = ", ".join(card_name(lang, part) for part in value.split(", "))
        elif name in _CELLS:
            out[name] = re.sub(r"row (\d+) col (\d+)",
                               lambda m: fill(lang, "api.cell_short", row=m.group(1), col=m.group(2)), value)
            # a grid's text: "bot, row 2, cell 3" (gridfile.py; "line" before); the solo bot's grid is labelled "bot"
            # by the routes, said so in the asker's words ("bot, строка 2": a walk, in Russian)
            out[name] = re.sub(r"(?:line|row) (\d+), cell (\d+)",
                               lambda m: fill(lang, "api.line_cell", line=m.group(1), cell=m.group(2)), out[name])
            out[name] = re.sub(r"^bot, ", lambda m: fill(lang, "api.bots_grid") + ", ", out[name])
        elif name in _CELL_NAMES:
            out[name] = re.sub(r"row (\d+), col (\d+)",
                               lambda m: fill(lang, "api.cell_name", row=m.group(1), col=m.group(2)), value)
        elif name in _ORDINAL:
            out[name] = re.sub(r"\D+$", "", value)
        elif name in _PLACEMENT:
            out[name] = _placement(lang, value)
        elif name in _DECIMAL:
            out[name] = decimal(lang, value)
        elif name in _PERCENT:
            out[name] = re.sub(r"(\d) ?%", lambda m: m.group(1) + percent_sign(lang), value)
        else:
            out[name] = value
    return fill(lang, key, **out)


def _placement(lang: str, text: str) -> str:
    """A way an enrolment's grid lies on the cards found, in ``lang`` (``_LAY_PATTERN``)."""
    lay, there, rows, columns = re.fullmatch(_LAY_PATTERN, text).groups()  # type: ignore[union-attr]  # matched so
    said = fill(lang, "enrol.as_written" if lay == "as written" else "enrol.turned")
    moves = [fill(lang, key, n=int(n)) for key, n in (("enrol.rows", rows), ("enrol.columns", columns)) if n]
    if there:
        return fill(lang, "enrol.there", lay=said)
    if moves:
        move = moves[0] if len(moves) == 1 else fill(lang, "enrol.and", a=moves[0], b=moves[1])
        return fill(lang, "enrol.moved", lay=said, move=move)
    return said


_TRANSLATED_LISTS = ("doubts", "settled", "deck_issues")
# Messages translated in one answer at most; the rest pass in English. Each costs up to ~0.2 ms
# (matched against every template) on the event loop; a whole game of 8 players with every cell
# in doubt holds about 200, and as many reasons for points; a client-shaped answer must not hold
# the loop for seconds.
MAX_TRANSLATED = 600


def translate_doc(doc: object, lang: str) -> object:
    """A JSON document of the API with its messages in ``lang``: every ``detail`` string, every
    ``msg`` (a 422's errors) and ``reason`` (an explanation's), every item of a ``doubts``,
    ``settled`` or ``deck_issues`` list,
    at any depth (the first ``MAX_TRANSLATED``)."""
    left = MAX_TRANSLATED

    def one(text: str) -> str:
        nonlocal left
        left -= 1
        return translate(text, lang) if left >= 0 else text

    def walk(doc: object) -> object:
        if isinstance(doc, dict):
            out: dict[object, object] = {}
            for k, v in doc.items():
                if k in _TRANSLATED_LISTS and isinstance(v, list) and all(isinstance(x, str) for x in v):
                    out[k] = [one(x) for x in v]
                elif k in ("detail", "msg", "reason") and isinstance(v, str):  # msg: a 422's errors (invalid.py);
                    # reason: the scorer's why of a card's or a group's points
                    out[k] = one(v)
                else:
                    out[k] = walk(v)
            return out
        if isinstance(doc, list):
            return [walk(v) for v in doc]
        return doc

    return walk(doc)


def request_lang(query_lang: str | None, accept_language: str | None) -> str:
    """``?lang=`` where it names one of LANGS, read as a language tag ("it-IT" and "it_IT" as
    "it", as Accept-Language's are: it was English, an attack), else Accept-Language's best."""
    lang = _primary(query_lang or "")
    return lang if lang in LANGS else negotiate(accept_language)


class Localize:
    """ASGI middleware: the API's JSON answers in the language the request asks for (``?lang=``
    first, then Accept-Language). English answers, and everything that is not /api/ JSON, pass
    through untouched and unbuffered."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or not scope["path"].startswith("/api/"):
            return await self.app(scope, receive, send)
        from urllib.parse import parse_qs

        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        query = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("lang", [None])[0]
        lang = request_lang(query, headers.get("accept-language"))
        if lang == DEFAULT:
            async def vary(message):
                if message["type"] == "http.response.start":
                    message["headers"] = [*message.get("headers", []), (b"vary", b"Accept-Language")]
                await send(message)
            return await self.app(scope, receive, vary)
        start, body = None, []

        async def buffer(message):
            nonlocal start
            if message["type"] == "http.response.start":
                start = message
                ctype = dict((k.lower(), v) for k, v in message.get("headers", [])).get(b"content-type", b"")
                if not ctype.startswith(b"application/json"):
                    start = None
                    await send(message)
                return
            if message["type"] == "http.response.body" and start is not None:
                body.append(message.get("body", b""))
                if message.get("more_body"):
                    return
                data = b"".join(body)
                try:
                    data = json.dumps(translate_doc(json.loads(data), lang), ensure_ascii=False).encode()
                except ValueError:
                    pass
                hdrs = [(k, v) for k, v in start.get("headers", []) if k.lower() not in (b"content-length", b"content-language")]
                hdrs += [(b"content-length", str(len(data)).encode()), (b"content-language", lang.encode()),
                         (b"vary", b"Accept-Language")]
                await send({**start, "headers": hdrs})
                await send({"type": "http.response.body", "body": data})
                return
            await send(message)

        return await self.app(scope, receive, buffer)


def install(app) -> None:
    """Translate the API's JSON answers (see Localize)."""
    app.add_middleware(Localize)
