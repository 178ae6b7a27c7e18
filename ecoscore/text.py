"""Text people type and others see (player names, deck titles): what shows nothing, and how much
of it a message says."""
from __future__ import annotations

import unicodedata

# Letters and marks that show nothing, which no category test catches (Hangul fillers are
# letters, the braille blank a symbol, the grapheme joiner and variation selectors marks): two
# players named "ㅤ" and "ㅤㅤ" sat side by side, indistinguishable.
BLANK = {"\u115f", "\u1160", "\u3164", "\uffa0", "\u2800", "\u034f", "\u17b4", "\u17b5", "\u180b", "\u180c",
         "\u180d", "\u180e", "\u180f", *map(chr, range(0xFE00, 0xFE10)), *map(chr, range(0xE0100, 0xE01F0))}
# Combining marks one letter carries at most: a letter of a real script takes two or three (Vietnamese
# "ệ"); forty stacked on one spilled over the lines round it.
MAX_MARKS = 3


ZWJ, EMOJI_STYLE = "\u200d", "\ufe0f"  # the zero-width joiner, the emoji presentation selector


def invisible(ch: str) -> bool:
    """A control, format or unassigned character, or one of ``BLANK``."""
    return unicodedata.category(ch)[0] == "C" or ch in BLANK


def _emoji(ch: str) -> bool:
    return unicodedata.category(ch) in ("So", "Sk")  # a pictograph, a skin tone


def joins_emoji(text: str, i: int) -> bool:
    """Whether ``text[i]`` is part of an emoji, though it shows nothing alone: the emoji style
    after a symbol ("❤️"), or a zero-width joiner between two emoji ("👩‍💻", "🏳️‍🌈"). A phone's
    keyboard types them; a player named "Ana ❤️" was refused as holding invisible characters.
    Anywhere else (after a letter, at an end) they are what they are: invisible."""
    ch = text[i]
    if ch == EMOJI_STYLE:
        return i > 0 and _emoji(text[i - 1])
    if ch == ZWJ:
        return 0 < i < len(text) - 1 and (_emoji(text[i - 1]) or joins_emoji(text, i - 1)) and _emoji(text[i + 1])
    return False


def without_emoji_joiners(text: str) -> str:
    """``text`` with the joiners of its emoji taken out: "Ana ❤️" looks as "Ana ❤" does, "👩‍💻" much
    as "👩💻" (two names told apart by them alone are alike; a script check reads the joiners as a
    script of their own)."""
    return text.replace(ZWJ, "").replace(EMOJI_STYLE, "")


def marks_capped(text: str) -> str:
    """``text`` with at most ``MAX_MARKS`` combining marks on each character."""
    out, run = [], 0
    for ch in text:
        run = run + 1 if unicodedata.category(ch).startswith("M") else 0
        if run <= MAX_MARKS:
            out.append(ch)
    return "".join(out)


def cut(text: str, limit: int) -> str:
    """``text`` as a message says it: at most ``limit`` characters, "…" the last where it is cut (a
    client's 1.4 KB name, said whole, was matched against every message for translating: an attack)."""
    return text if len(text) <= limit else text[:limit - 1] + "…"
