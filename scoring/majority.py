"""Majority awards with competition ranking (1, 1, 3): the stream and the wolf."""
from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

STREAM_AWARDS = (8, 5)
WOLF_AWARDS = (12, 8, 4)


def places(values: Sequence[int]) -> list[int | None]:
    """Competition-ranked place of each value; ``None`` for a value of 0 (cannot place).

    Tied entrants share the place, and the places after them are skipped: 5, 5, 3 -> 1, 1, 3.
    """
    # One sort, then a binary search per value: n log n, not n² (a service takes long lists of
    # other players' figures, and a quadratic ranking of 300,000 of them held the server for minutes).
    qualifying = sorted(v for v in values if v > 0)
    return [1 + len(qualifying) - bisect_right(qualifying, v) if v > 0 else None for v in values]


def awards(values: Sequence[int], prizes: Sequence[int]) -> list[tuple[int | None, int]]:
    """(place, points) of each entrant; a place beyond the prizes scores 0."""
    return [
        (place, prizes[place - 1] if place is not None and place <= len(prizes) else 0)
        for place in places(values)
    ]


def ordinal(place: int) -> str:
    # 11th-13th in every hundred ("111st" was said against 110 others' figures: a rules check)
    suffix = "th" if place % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(place % 10, "th")
    return f"{place}{suffix}"
