"""Whether two names people type could be taken for one another (players' names, decks' titles):
the same but for case, for accents, or for letters and glyphs that look alike (Cyrillic ``А`` in
a Latin ``Alice``, ``rn`` beside ``m``)."""
from __future__ import annotations

import unicodedata
from functools import lru_cache

from confusable_homoglyphs import categories, confusables

from ecoscore.text import without_emoji_joiners

# ASCII characters that look like a letter (the key compares them as that letter).
ASCII_LOOKALIKE = {"0": "o", "|": "l"}
# As names look before case is folded: a capital I and a 1 are an l in most phone fonts ("AIice",
# "A1ice" beside "Alice"), and letter pairs look like one letter in a small font ("Emrna" beside
# "Emma"). Not in the key itself: there "ALICE" must stay "alice", not "allce".
GLYPH_LOOKALIKE = (("I", "l"), ("1", "l"), ("rn", "m"), ("vv", "w"))


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
    """What two names must not share: the case-folded name with look-alike letters made Latin.
    Folded first: a capital and its small letter may look like different Latin letters, or one
    like none ("Б" like a b, "б" like a 6: "Борис" and "борис" sat in one room as two players)."""
    return "".join(_latin(ch) for ch in name.casefold()).casefold()


def _cased_key(name: str) -> str:
    """``key`` with the look-alikes taken before case is folded: a capital may look like a Latin
    letter its small letter does not ("Нana" beside "Hana")."""
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


def unpunctuated(name: str) -> str:
    """``unmarked`` of the name without its punctuation and spaces ("Ann." and "A-nn" are "ann").
    Symbols stay: "Ann 🐻" is not "Ann 🦊". ``name`` whole where it is all punctuation."""
    kept = "".join(ch for ch in name if not (unicodedata.category(ch)[0] in "PZ" or ch.isspace()))
    return unmarked(kept or name)


def alike(a: str, b: str) -> bool:
    """Whether two names could be taken for one another: the same but for case, for accents, or
    for glyphs that look alike in either case (compared cased and case-folded), full-width and
    other compatibility forms folded first (NFKC). Players' names are compared without their
    punctuation too (``service/names.py``)."""
    a, b = (without_emoji_joiners(unicodedata.normalize("NFKC", name)) for name in (a, b))
    return (key(a) == key(b) or _cased_key(a) == _cased_key(b) or unmarked(a) == unmarked(b) or glyphs(a) == glyphs(b)
            or glyphs(a).casefold() == glyphs(b).casefold())
