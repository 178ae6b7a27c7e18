"""Card scoring of one tableau: every type but the two majorities, with the reason for each point.

Stream and wolf points depend on the other players, so this module only measures what they
compete with (largest stream group, number of wolves); ``game.py`` awards them.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .cards import CardType
from .tableau import COLS, NEIGHBOURS, SIZE, WITHIN_TWO, Tableau, cell_name

MEADOW_GROUP_POINTS = (0, 0, 3, 6, 10, 15)  # by group size; 5 or more scores 15


def meadow_group_points(size: int) -> int:
    return MEADOW_GROUP_POINTS[min(size, 5)]


@dataclass(slots=True)
class CardPoints:
    """Points one card earned on its own, and the cells that earned them."""

    cell: int
    type: CardType
    points: int
    reason: str
    because_of: tuple[int, ...] = ()


@dataclass(slots=True)
class GroupPoints:
    """Points earned by a set of cards together (a meadow group, the deer, a stream group)."""

    type: CardType
    cells: tuple[int, ...]
    points: int
    reason: str


@dataclass(slots=True)
class TableauPoints:
    """Card scoring of one tableau before majorities and biodiversity."""

    by_type: dict[CardType, int]
    cards: list[CardPoints] = field(default_factory=list)
    groups: list[GroupPoints] = field(default_factory=list)
    largest_stream: int = 0
    wolves: int = 0


def groups_of(cells: tuple[CardType | None, ...], card: CardType) -> list[tuple[int, ...]]:
    """Orthogonally connected groups of ``card``, each sorted, in reading order of first cell."""
    seen = [False] * SIZE
    groups = []
    for start in range(SIZE):
        if seen[start] or cells[start] is not card:
            continue
        seen[start] = True
        stack, group = [start], []
        while stack:
            i = stack.pop()
            group.append(i)
            for j in NEIGHBOURS[i]:
                if not seen[j] and cells[j] is card:
                    seen[j] = True
                    stack.append(j)
        groups.append(tuple(sorted(group)))
    return groups


def _names(indices) -> str:
    return "; ".join(cell_name(i) for i in indices)


def _count_phrase(n: int, what: str, plural: str = "") -> str:
    return f"{n} {what}" if n == 1 else f"{n} {plural or what + 's'}"


def score_cards(tableau: Tableau) -> TableauPoints:
    """Score every card of ``tableau`` except the majority awards."""
    cells = tableau.cells
    by_type = dict.fromkeys(CardType, 0)
    result = TableauPoints(by_type=by_type)
    cards = result.cards

    stream_groups = groups_of(cells, CardType.STREAM)
    stream_group_of = {i: g for g in stream_groups for i in g}

    for i, card in enumerate(cells):
        if card is None:
            continue
        if card is CardType.BEE:
            near = tuple(j for j in NEIGHBOURS[i] if cells[j] is CardType.MEADOW)
            pts = 3 * len(near)
            reason = f"3 × {_count_phrase(len(near), 'adjacent meadow')}"
        elif card is CardType.BEAR:
            near = tuple(j for j in NEIGHBOURS[i] if cells[j] is CardType.BEE or cells[j] is CardType.TROUT)
            pts = 2 * len(near)
            reason = f"2 × {_count_phrase(len(near), 'adjacent bee/trout', 'adjacent bees/trout')}"
        elif card is CardType.TROUT:
            near = tuple(
                j for j in NEIGHBOURS[i] if cells[j] is CardType.STREAM or cells[j] is CardType.DRAGONFLY
            )
            pts = 2 * len(near)
            reason = f"2 × {_count_phrase(len(near), 'adjacent stream/dragonfly', 'adjacent streams/dragonflies')}"
        elif card is CardType.FOX:
            near = tuple(j for j in NEIGHBOURS[i] if cells[j] is CardType.WOLF or cells[j] is CardType.BEAR)
            pts = 0 if near else 3
            reason = "no adjacent wolf or bear" if not near else "adjacent wolf or bear spoils it"
        elif card is CardType.EAGLE:
            near = tuple(j for j in WITHIN_TWO[i] if cells[j] is CardType.RABBIT or cells[j] is CardType.TROUT)
            pts = 2 * len(near)
            reason = f"2 × {_count_phrase(len(near), 'rabbit/trout', 'rabbits/trout')} within 2 steps"
        elif card is CardType.DRAGONFLY:
            touching = []
            for j in NEIGHBOURS[i]:
                group = stream_group_of.get(j)
                if group is not None and group not in touching:
                    touching.append(group)  # a group touching on two sides counts once
            near = tuple(j for g in touching for j in g)
            pts = len(near)
            sizes = " + ".join(str(len(g)) for g in touching) or "0"
            reason = f"adjacent stream groups of {sizes} cards" if touching else "no adjacent stream"
        elif card is CardType.RABBIT:
            near, pts, reason = (), 1, "1 per rabbit"
        else:
            continue  # meadow, deer, stream, wolf score as groups or majorities below
        if near:
            reason = f"{reason} ({_names(near)})"
        by_type[card] += pts
        cards.append(CardPoints(i, card, pts, reason, near))

    for group in groups_of(cells, CardType.MEADOW):
        pts = meadow_group_points(len(group))
        by_type[CardType.MEADOW] += pts
        result.groups.append(
            GroupPoints(CardType.MEADOW, group, pts, f"{_count_phrase(len(group), 'meadow')} in a group: {pts}")
        )

    deer = tuple(i for i, card in enumerate(cells) if card is CardType.DEER)
    if deer:
        rows = {i // COLS for i in deer}
        cols = {i % COLS for i in deer}
        pts = 2 * (len(rows) + len(cols))
        by_type[CardType.DEER] = pts
        result.groups.append(
            GroupPoints(
                CardType.DEER,
                deer,
                pts,
                f"2 × ({_count_phrase(len(rows), 'row')} + {_count_phrase(len(cols), 'column')} "
                f"with a deer: rows {', '.join(str(r + 1) for r in sorted(rows))}; "
                f"columns {', '.join(str(c + 1) for c in sorted(cols))})",
            )
        )

    if stream_groups:
        result.largest_stream = max(len(g) for g in stream_groups)
        largest = next(g for g in stream_groups if len(g) == result.largest_stream)
        # Points are filled in by the game, which knows the other players' streams.
        result.groups.append(
            GroupPoints(CardType.STREAM, largest, 0, f"largest stream group: {len(largest)} cards")
        )
    wolves = tuple(i for i, card in enumerate(cells) if card is CardType.WOLF)
    result.wolves = len(wolves)
    if wolves:
        result.groups.append(GroupPoints(CardType.WOLF, wolves, 0, _count_phrase(len(wolves), "wolf", "wolves")))
    return result
