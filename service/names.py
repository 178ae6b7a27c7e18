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
    if any(unicodedata.category(ch)[0] == "C" for ch in name):  # control, format, unassigned
        raise BadName("a name cannot hold control or invisible characters")
    if "/" in name:  # a name is part of a URL path
        raise BadName("a name cannot hold '/'")
    if confusables.is_dangerous(name):
        raise BadName(f"{name!r} mixes scripts with look-alike letters; type it in one script")
    if key(name) in {key(r) for r in RESERVED}:
        raise BadName(f"{name!r} is reserved (the solo bot's seat); choose another name")
    return name


@lru_cache(maxsize=4096)
def _latin(ch: str) -> str:
    if categories.alias(ch) in ("LATIN", "COMMON"):
        return ch
    found = confusables.is_confusable(ch, preferred_aliases=["latin"])
    return found[0]["homoglyphs"][0]["c"] if found else ch


def key(name: str) -> str:
    """What two names must not share: the case-folded name with look-alike letters made Latin."""
    return "".join(_latin(ch) for ch in name).casefold()
