"""Player names as people type them, made safe to compare and show.

A name is NFKC-normalised (full-width and compatibility forms fold to plain ones), its spaces
trimmed and collapsed, capped in length, and refused when it mixes scripts with look-alike
letters (Cyrillic ``А`` in a Latin ``Alice``). Two names clash when their *keys* match: case
folded, with each letter that looks like a Latin one replaced by it, so ``alice`` and ``Аlice``
cannot sit beside ``Alice``; nor can ``Alice.`` (``alike``).
"""
from __future__ import annotations

import re
import unicodedata

from confusable_homoglyphs import categories, confusables

from ecoscore import lookalike
from ecoscore.scoring.game import BOT_NAME
from ecoscore.text import invisible, joins_emoji, without_emoji_joiners

# Three combining marks in a row (the Latin, extended and symbol ranges): more than any language stacks.
STACKED_MARKS = re.compile(r"[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]{3}")
RESERVED = {BOT_NAME}  # the solo bot's seat in a scored game


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
    if any(invisible(ch) and not joins_emoji(name, i) for i, ch in enumerate(name)):  # control, format, unassigned, blank
        raise BadName("a name cannot hold control or invisible characters")
    if not any(unicodedata.category(ch)[0] in "LNPS" for ch in name):  # marks and spaces alone
        raise BadName("a name cannot hold control or invisible characters")
    # U+FFFD: bytes that were not UTF-8, replaced as a URL's path was decoded (a name of a form
    # field is refused as not UTF-8 already; "A%ff" in a path was seated as "A\ufffd": an attack)
    if "\ufffd" in name:
        raise BadName("a name cannot hold bytes that are not UTF-8 text")
    if name.strip(".") == "":  # "." and ".." vanish from a URL path (a browser resolves them)
        raise BadName("a name cannot be only dots")
    if not any(unicodedata.category(ch)[0] in "LN" for ch in name):  # "·" beside "⸱", "-" beside "‐"
        raise BadName("a name needs a letter or a digit")
    if "/" in name:  # a name is part of a URL path
        raise BadName("a name cannot hold '/'")
    # Marks without their letter, or stacked past any language's (NFC composes most; Vietnamese
    # stacks two): they were refused as "mixes scripts with look-alike letters" (an attack).
    if unicodedata.category(name[0]).startswith("M"):  # (enclosing marks and vowel signs too: a review)
        raise BadName("a name cannot begin with an accent or a mark: type its letter first")
    # counted on the letters taken apart (NFD): "á" and two more was one composed letter and two
    if STACKED_MARKS.search(unicodedata.normalize("NFD", name)):
        raise BadName("a name cannot stack more than two accents or marks on a letter")
    if confusables.is_dangerous(_unmarked(without_emoji_joiners(name))):
        raise BadName(f"{name!r} mixes scripts with look-alike letters; type it in one script")
    if any(alike(name, r) for r in RESERVED):
        raise BadName(f"{name!r} is reserved (the solo bot's seat); choose another name")
    return name


def _unmarked(name: str) -> str:
    """``name`` without its combining marks, for the mixed-script check: a mark's script is
    "inherited" from its letter, and the check counted it as a script of its own, so a Yoruba
    "Ẹ́mọ́" (a dot below and an acute: one of them stays a mark in NFC) mixed scripts. A mark
    cannot make a letter look like another script's: the letters are checked."""
    return "".join(ch for ch in name if categories.alias(ch) != "INHERITED")


def alike(a: str, b: str) -> bool:
    """Whether two players' names could be taken for one another (``lookalike.alike``), or are
    the same but for punctuation and spaces: "Ann." (a phone's keyboard puts a full stop after a
    double space), "(Ann)", "A-nn" and "An n" each sat beside "Ann", and the majorities counted
    her twice (an attack). Decks' titles are not compared so: a deck's key ("nase-kuchyn") may
    sit beside the title it was made of."""
    return lookalike.alike(a, b) or lookalike.unpunctuated(a) == lookalike.unpunctuated(b)


def alike_among(given: list[str]) -> list[str]:
    """The names of ``given`` that could be taken for another of them (``alike``), once each, in
    order: one game's players, as a room keeps them apart."""
    return list(dict.fromkeys(a for i, a in enumerate(given) if any(alike(a, b) for b in given[:i] + given[i + 1:])))
