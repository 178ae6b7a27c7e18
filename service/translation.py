"""The reader's, the scorer's and the service's English messages in the player's language.

The reader and the scorer speak English. Until they emit codes and parameters, their messages
are translated *on the way out*: each English ``api.*`` template of the catalogue (``i18n.py``) is
turned into a pattern, a message is matched against them (the most specific first), its
parameters are taken out, translated where they are words (card names, nested messages, lists of
cells) and put into the same template of the player's language. A message no template matches is
passed on in English.
"""
from __future__ import annotations

import re
import time
from functools import lru_cache

from ecoscore.scoring.cards import FOREIGN_CARD, NOT_OURS  # how a reader's doubts name a card of no type

from .i18n import DEFAULT, LANGS, card_name, catalogue, decimal, fill, percent_sign

# What each parameter of an api.* template may hold, by its name.
_NUMBER = {"n", "k", "row", "col", "deck", "mb", "limit", "w", "h", "low"}
_PERCENT = {"pct", "runner_pct"}
_CARD = {"card", "top", "runner", "swapped", "swapped_as"}
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
        # taken for the second alone, the first left in English as its cells. But a player's name
        # before its cells may hold one ("Ann; Bo, row 4, cell 5": left in English): a name and
        # ", " with no ": " in it (no message's end), before a grid's "row 4, cell 5" only (tried
        # before every ", " of a message, a long joined one outran its deadline: a CI run)
        return r"(?:(?:(?!: ).)+?, (?=(?:row|line) \d+, cell \d+))?(?:(?!; ).)+"
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


# An answer's messages repeat, within it (a whole game's players share their reasons' wording)
# and from answer to answer: each kept translated, the short ones (the cache's size bounded by
# count and length: a client's crafted text is long, or passes once).
CACHED_TEXTS, CACHED_LENGTH = 8192, 400


@lru_cache(maxsize=CACHED_TEXTS)
def _translated(text: str, lang: str) -> str:
    return translate(text, lang)


def translate_doc(doc: object, lang: str) -> object:
    """A JSON document of the API with its messages in ``lang``: every ``detail`` string, every
    ``msg`` (a 422's errors) and ``reason`` (an explanation's), every item of a ``doubts``,
    ``settled`` or ``deck_issues`` list,
    at any depth (the first ``MAX_TRANSLATED``)."""
    left = MAX_TRANSLATED

    def one(text: str) -> str:
        nonlocal left
        left -= 1
        if left < 0:
            return text
        return _translated(text, lang) if len(text) <= CACHED_LENGTH else translate(text, lang)

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
