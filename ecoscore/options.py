"""Parsing the game options people type: the neutral pile and the other players' figures.
Shared by the command line and the web API; errors are ValueErrors with a message."""
from __future__ import annotations


def parse_pair(text: str, what: str, sep: str = ",") -> tuple[int, int]:
    """``"5,2"`` (or ``"5:2"`` with ``sep=":"``): two whole numbers, not negative."""
    try:
        a, b = (int(part) for part in text.strip().split(sep))
    except ValueError:
        raise ValueError(f"{what}: expected two whole numbers like 5{sep}2, got {text!r}") from None
    if a < 0 or b < 0:
        raise ValueError(f"{what}: counts cannot be negative, got {text!r}")
    return a, b


def parse_others(text: str) -> list[tuple[int, int]]:
    """``"S:W,S:W"``: each other player's largest stream and wolf count."""
    return [parse_pair(item, "others", ":") for item in text.split(",") if item.strip()]
