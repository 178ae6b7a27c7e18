"""Card scoring of one tableau: every type but the two majorities, with the reason for each point.

Stream and wolf points depend on the other players, so this module only measures what they
compete with (largest stream group, number of wolves); ``game.py`` awards them. This is the hot
path of batch scoring, so reasons are kept as data (the cells that earned the points) and put
into words only when someone reads them.
"""
from __future__ import annotations

from dataclasses import dataclass

from .cards import CardType
from .majority import ordinal
from .tableau import COLS, NEIGHBOURS, SIZE, WITHIN_TWO, Tableau, cell_name

RABBIT, TROUT, FOX, BEAR, DRAGONFLY, BEE, EAGLE, WOLF, DEER, STREAM, MEADOW = CardType
ALL_TYPES = tuple(CardType)
MEADOW_GROUP_POINTS = (0, 0, 3, 6, 10, 15)  # by group size; 5 or more scores 15


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _cells(indices) -> str:
    return "; ".join(cell_name(i) for i in indices)


@dataclass(slots=True)
class CardPoints:
    """Points one card earned on its own, and the cells that earned them."""

    cell: int
    type: CardType
    points: int
    because_of: list[int]
    group_sizes: tuple[int, ...] = ()  # dragonfly: the distinct stream groups it touches

    @property
    def reason(self) -> str:
        n, t = len(self.because_of), self.type
        if t is BEE:
            text = f"3 × {_count(n, 'adjacent meadow', 'adjacent meadows')}"
        elif t is BEAR:
            text = f"2 × {_count(n, 'adjacent bee/trout', 'adjacent bees/trout')}"
        elif t is TROUT:
            text = f"2 × {_count(n, 'adjacent stream/dragonfly', 'adjacent streams/dragonflies')}"
        elif t is EAGLE:
            text = f"2 × {_count(n, 'rabbit/trout', 'rabbits/trout')} within 2 steps"
        elif t is FOX:
            text = "adjacent wolf or bear spoils it" if n else "no adjacent wolf or bear"
        elif t is DRAGONFLY:
            sizes = " + ".join(map(str, self.group_sizes))
            groups = "an adjacent stream group" if len(self.group_sizes) == 1 else "adjacent stream groups"
            text = f"{groups} of {sizes} {'card' if sum(self.group_sizes) == 1 else 'cards'}" if n else "no adjacent stream"
        else:
            text = "1 per rabbit"
        return f"{text} ({_cells(self.because_of)})" if n else text


@dataclass(slots=True)
class GroupPoints:
    """Points earned by cards together: a meadow group, all the deer, the largest stream, the wolves."""

    type: CardType
    cells: tuple[int, ...]
    points: int
    place: int | None = None  # stream and wolf: place in the majority, set by the game
    provisional: bool = False

    @property
    def reason(self) -> str:
        n, t = len(self.cells), self.type
        if t is MEADOW:
            return f"{_count(n, 'meadow', 'meadows')} in a group: {self.points}"
        if t is DEER:
            rows = sorted({i // COLS + 1 for i in self.cells})
            cols = sorted({i % COLS + 1 for i in self.cells})
            return (
                f"2 × ({_count(len(rows), 'row', 'rows')} + {_count(len(cols), 'column', 'columns')} with a deer: "
                f"rows {', '.join(map(str, rows))}; columns {', '.join(map(str, cols))})"
            )
        what, prizes, text = (
            ("largest stream group", 2, f"largest stream group: {_count(n, 'card', 'cards')}")
            if t is STREAM
            else ("most wolves", 3, _count(n, "wolf", "wolves"))
        )
        if self.place is None:
            return text
        if not self.points:
            return f"{text}: {ordinal(self.place)} place for {what}, only the first {prizes} places score"
        tail = " (provisional: the other players are not known)" if self.provisional else ""
        return f"{text}: {ordinal(self.place)} place for {what}, {self.points}{tail}"


@dataclass(slots=True)
class TableauPoints:
    """Card scoring of one tableau before majorities and biodiversity."""

    by_type: dict[CardType, int]
    cards: list[CardPoints]
    groups: list[GroupPoints]
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


def score_cards(tableau: Tableau) -> TableauPoints:
    """Score every card of ``tableau`` except the majority awards."""
    cells = tableau.cells
    by_type = dict.fromkeys(ALL_TYPES, 0)
    cards: list[CardPoints] = []
    groups: list[GroupPoints] = []
    stream_groups = groups_of(cells, STREAM) if STREAM in cells else []
    deer, wolves = [], []

    for i, card in enumerate(cells):
        if card is None:
            continue
        if card is BEE:
            near = [j for j in NEIGHBOURS[i] if cells[j] is MEADOW]
            pts = 3 * len(near)
        elif card is BEAR:
            near = [j for j in NEIGHBOURS[i] if cells[j] is BEE or cells[j] is TROUT]
            pts = 2 * len(near)
        elif card is TROUT:
            near = [j for j in NEIGHBOURS[i] if cells[j] is STREAM or cells[j] is DRAGONFLY]
            pts = 2 * len(near)
        elif card is FOX:
            near = [j for j in NEIGHBOURS[i] if cells[j] is WOLF or cells[j] is BEAR]
            pts = 0 if near else 3
        elif card is EAGLE:
            near = [j for j in WITHIN_TWO[i] if cells[j] is RABBIT or cells[j] is TROUT]
            pts = 2 * len(near)
        elif card is DRAGONFLY:
            touching = []
            for j in NEIGHBOURS[i]:
                if cells[j] is STREAM:
                    group = next(g for g in stream_groups if j in g)
                    if group not in touching:
                        touching.append(group)  # a group touching on two sides counts once
            near = [j for g in touching for j in g]
            by_type[card] += len(near)
            cards.append(CardPoints(i, card, len(near), near, tuple(len(g) for g in touching)))
            continue
        elif card is RABBIT:
            near, pts = [], 1
        elif card is DEER:
            deer.append(i)
            continue
        elif card is WOLF:
            wolves.append(i)
            continue
        else:
            continue  # meadows score as groups, streams as a majority, below
        by_type[card] += pts
        cards.append(CardPoints(i, card, pts, near))

    if MEADOW in cells:
        for group in groups_of(cells, MEADOW):
            pts = MEADOW_GROUP_POINTS[min(len(group), 5)]
            by_type[MEADOW] += pts
            groups.append(GroupPoints(MEADOW, group, pts))
    if deer:
        pts = 2 * (len({i // COLS for i in deer}) + len({i % COLS for i in deer}))
        by_type[DEER] = pts
        groups.append(GroupPoints(DEER, tuple(deer), pts))
    largest = 0
    if stream_groups:
        biggest = max(stream_groups, key=len)  # the first of the largest, in reading order
        largest = len(biggest)
        groups.append(GroupPoints(STREAM, biggest, 0))  # points come from the game
    if wolves:
        groups.append(GroupPoints(WOLF, tuple(wolves), 0))
    return TableauPoints(by_type, cards, groups, largest, len(wolves))
