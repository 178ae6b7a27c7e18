"""Player names as people type them, made safe to compare and show.

A name is NFKC-normalised (full-width and compatibility forms fold to plain ones), its spaces
trimmed and collapsed, capped in length, and refused when it mixes scripts with look-alike
letters (Cyrillic ``А`` in a Latin ``Alice``). Two names clash when their *keys* match: case
folded, with each letter that looks like a Latin one replaced by it, so ``alice`` and ``Аlice``
cannot sit beside ``Alice``.
"""
from __future__ import annotations

import unicodedata
from functools import lru_cache

from confusable_homoglyphs import categories, confusables

from ecoscore.scoring.game import BOT_NAME
from ecoscore.text import invisible

RESERVED = {BOT_NAME}  # the solo bot's seat in a scored game
# ASCII characters that look like a letter (the key compares them as that letter).
ASCII_LOOKALIKE = {"0": "o", "|": "l"}
# As names look before case is folded: a capital I and a 1 are an l in most phone fonts ("AIice",
# "A1ice" beside "Alice"), and letter pairs look like one letter in a small font ("Emrna" beside
# "Emma"). Not in the key itself: there "ALICE" must stay "alice", not "allce".
GLYPH_LOOKALIKE = (("I", "l"), ("1", "l"), ("rn", "m"), ("vv", "w"))


class BadName(ValueError):
    """A name that cannot be used; the message says why."""


def fold(raw: str) -> str:
    """NFKC, spaces trimmed and collapsed: how a stored name is looked up (no checks)."""
    return " ".join(unicodedata.normalize("NFKC", raw).split())


def normalise(raw: str, max_length: int) -> str:
    """A new name, ready to store, or BadName saying why not."""
    name = fold(raw)
    if not name:
        raise BadName("a name cannot be empty")
    if len(name) > max_length:
        raise BadName(f"a name has at most {max_length} characters; this one has {len(name)}")
    if any(invisible(ch) for ch in name):  # control, format, unassigned, blank
        raise BadName("a name cannot hold control or invisible characters")
    if not any(unicodedata.category(ch)[0] in "LNPS" for ch in name):  # marks and spaces alone
        raise BadName("a name cannot hold control or invisible characters")
    if name.strip(".") == "":  # "." and ".." vanish from a URL path (a browser resolves them)
        raise BadName("a name cannot be only dots")
    if not any(unicodedata.category(ch)[0] in "LN" for ch in name):  # "·" beside "⸱", "-" beside "‐"
        raise BadName("a name needs a letter or a digit")
    if "/" in name:  # a name is part of a URL path
        raise BadName("a name cannot hold '/'")
    if confusables.is_dangerous(name):
        raise BadName(f"{name!r} mixes scripts with look-alike letters; type it in one script")
    if any(alike(name, r) for r in RESERVED):
        raise BadName(f"{name!r} is reserved (the solo bot's seat); choose another name")
    return name


@lru_cache(maxsize=4096)
def _latin(ch: str) -> str:
    """The ASCII letter ``ch`` looks like, if it looks like one, else ``ch``. Latin letters that
    are not ASCII count too: ``ɑlice`` and ``ǀlia`` sat beside ``Alice`` and ``llia``."""
    if ch.isascii():
        return ASCII_LOOKALIKE.get(ch, ch)
    small_capital = unicodedata.name(ch, "").removeprefix("LATIN LETTER SMALL CAPITAL ")
    if len(small_capital) == 1:  # ᴀ, ʙ, ...: a smaller capital letter
        return small_capital.lower()
    if categories.alias(ch) in ("LATIN", "COMMON"):
        found = confusables.is_confusable(ch, preferred_aliases=[], greedy=True) or []
        # A letter looks like an ASCII letter; a sign (’ ‐ −) like an ASCII sign.
        ascii_like = [h["c"] for f in found for h in f["homoglyphs"]
                      if len(h["c"]) == 1 and h["c"].isascii() and h["c"].isalpha() == ch.isalpha()]
        return ascii_like[0] if ascii_like else ch
    found = confusables.is_confusable(ch, preferred_aliases=["latin"])
    return found[0]["homoglyphs"][0]["c"] if found else ch


def key(name: str) -> str:
    """What two names must not share: the case-folded name with look-alike letters made Latin."""
    return "".join(_latin(ch) for ch in name).casefold()


def glyphs(name: str) -> str:
    """The name as it looks, case kept: look-alike letters made Latin, look-alike glyphs one."""
    shown = "".join(_latin(ch) for ch in name)
    for alike, letter in GLYPH_LOOKALIKE:
        shown = shown.replace(alike, letter)
    return shown


def unmarked(name: str) -> str:
    """``key`` without accents: a Czech player typing on a phone without háčky ("Kacka") is the
    "Kačka" already seated (she sat twice, and the majorities counted her twice: a walk, in
    Czech); "Алена" is "Алёна"."""
    bare = "".join(ch for ch in unicodedata.normalize("NFD", name) if not unicodedata.combining(ch))
    return key(unicodedata.normalize("NFC", bare))  # the letters left, then made Latin where they look it


def alike(a: str, b: str) -> bool:
    """Whether two names could be taken for one another: the same but for case, for accents, or
    for glyphs that look alike in either case (compared cased and case-folded)."""
    return (key(a) == key(b) or unmarked(a) == unmarked(b) or glyphs(a) == glyphs(b)
            or glyphs(a).casefold() == glyphs(b).casefold())


def alike_among(given: list[str]) -> list[str]:
    """The names of ``given`` that could be taken for another of them (``alike``), once each, in
    order: one game's players, as a room keeps them apart."""
    return list(dict.fromkeys(a for i, a in enumerate(given) if any(alike(a, b) for b in given[:i] + given[i + 1:])))
