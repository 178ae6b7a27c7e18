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


def invisible(ch: str) -> bool:
    """A control, format or unassigned character, or one of ``BLANK``."""
    return unicodedata.category(ch)[0] == "C" or ch in BLANK


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
