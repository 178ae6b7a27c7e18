"""Parsing the game options people type: the neutral pile and the other players' figures.
Shared by the command line and the web API; errors are ValueErrors with a message."""
from __future__ import annotations

import re


# ASCII digits only: int() takes "1_0" as 10 and "٣" or "５" as digits, none of which a player types
# for a count (an attack found them all taken).
def _pair(sep: str) -> re.Pattern:
    return re.compile(rf"\s*(-?[0-9]+)\s*{re.escape(sep)}\s*(-?[0-9]+)\s*")


def _count(digits: str) -> int:
    """A count as typed; past 9 digits, 10**9 (more than any bound a caller puts on it, which then
    says so: int() refuses 4,300 digits in its own words)."""
    return int(digits) if len(digits.lstrip("-")) <= 9 else (-1 if digits.startswith("-") else 1) * 10**9


def parse_pair(text: str, what: str, sep: str = ",") -> tuple[int, int]:
    """``"5,2"`` (or ``"5:2"`` with ``sep=":"``): two whole numbers, not negative."""
    found = _pair(sep).fullmatch(text)
    if found is None:
        raise ValueError(f"{what}: expected two whole numbers like 5{sep}2, got {text!r}")
    a, b = _count(found.group(1)), _count(found.group(2))
    if a < 0 or b < 0:
        raise ValueError(f"{what}: counts cannot be negative, got {text!r}")
    return a, b


def parse_others(text: str) -> list[tuple[int, int]]:
    """``"S:W,S:W"``: each other player's largest stream and wolf count."""
    return [parse_pair(item, "others", ":") for item in text.split(",") if item.strip()]
