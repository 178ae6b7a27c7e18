"""A player's tableau: 5 columns × 4 rows of card types, empty cells allowed."""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from .cards import CardType

ROWS = 4
COLS = 5
SIZE = ROWS * COLS


def _index(row: int, col: int) -> int:
    return row * COLS + col


def _cells_within(max_distance: int) -> tuple[tuple[int, ...], ...]:
    """For each cell, the cells at Manhattan distance 1..max_distance, in reading order."""
    table = []
    for i in range(SIZE):
        r, c = divmod(i, COLS)
        table.append(
            tuple(
                j
                for j in range(SIZE)
                if 0 < abs(r - j // COLS) + abs(c - j % COLS) <= max_distance
            )
        )
    return tuple(table)


#: Orthogonal neighbours of each cell index (precomputed: scoring is a hot path).
NEIGHBOURS = _cells_within(1)
#: Cells within two orthogonal steps (the eagle's reach).
WITHIN_TWO = _cells_within(2)


def cell_at(row: int, col: int) -> str:
    """The one wording of a cell for people, from 0-based (row, col), counted from 1: 'row 2, col 3'."""
    return f"row {row + 1}, col {col + 1}"


def cells_short(cells) -> str:
    """Several cells in the short wording the message catalogue translates, from 0-based
    (row, col): 'row 1 col 2, row 3 col 4'."""
    return ", ".join(f"row {r + 1} col {c + 1}" for r, c in cells)


def cell_name(index: int) -> str:
    """Human name of a cell by its index in reading order: 'row 2, col 3'."""
    return cell_at(*divmod(index, COLS))


class Tableau:
    """An immutable 5 × 4 grid. ``cells`` is in reading order (row by row); ``None`` is empty."""

    __slots__ = ("cells",)

    def __init__(self, cells: Sequence[CardType | None]):
        cells = tuple(cells)
        if len(cells) != SIZE:
            raise ValueError(f"a tableau has {SIZE} cells, got {len(cells)}")
        for cell in cells:
            if cell is not None and not isinstance(cell, CardType):
                raise TypeError(f"cell must be a CardType or None, got {cell!r}")
        self.cells: tuple[CardType | None, ...] = cells

    @classmethod
    def from_rows(cls, rows: Sequence[Sequence[CardType | None]]) -> Tableau:
        """Build from 4 rows of 5, or from a sideways 5 rows of 4 (transposed to 4 × 5)."""
        shape = (len(rows), *{len(row) for row in rows})
        if shape == (ROWS, COLS):
            return cls([cell for row in rows for cell in row])
        if shape == (COLS, ROWS):
            return cls([rows[c][r] for r in range(ROWS) for c in range(COLS)])
        # each row's count in order: "of 4, 5 cells" read as nonsense (a walk, in Italian)
        widths = ", ".join(str(len(row)) for row in rows) or "0"
        if widths == "1":  # "got 1 row, holding 1 cards" (an attack)
            raise ValueError("a tableau is 4 rows of 5 cards (or 5 rows of 4); got 1 card")
        rows_got = f"{len(rows)} row" if len(rows) == 1 else f"{len(rows)} rows"  # "got 1 rows" (a walk, in Italian)
        raise ValueError(f"a tableau is 4 rows of 5 cards (or 5 rows of 4); got {rows_got}, holding {widths} cards")

    def rows(self) -> list[list[CardType | None]]:
        return [list(self.cells[r * COLS : (r + 1) * COLS]) for r in range(ROWS)]

    def at(self, row: int, col: int) -> CardType | None:
        return self.cells[_index(row, col)]

    def counts(self) -> Counter[CardType]:
        return Counter(card for card in self.cells if card is not None)

    def empty_cells(self) -> list[int]:
        return [i for i, cell in enumerate(self.cells) if cell is None]

    @property
    def is_complete(self) -> bool:
        return None not in self.cells

    # Symmetries under which the score is invariant: a tableau read from any side of the table
    # scores the same (tests/test_properties.py holds the scorer to it).
    def rotated_180(self) -> Tableau:
        return Tableau(self.cells[::-1])

    def mirrored(self) -> Tableau:
        return Tableau.from_rows([row[::-1] for row in self.rows()])

    def transposed(self) -> list[list[CardType | None]]:
        """The 5 × 4 reading of this tableau (rows of 4); ``from_rows`` turns it back."""
        rows = self.rows()
        return [[rows[r][c] for r in range(ROWS)] for c in range(COLS)]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Tableau) and other.cells == self.cells

    def __hash__(self) -> int:
        return hash(self.cells)

    def __repr__(self) -> str:
        body = " / ".join(" ".join(c.code if c else "." for c in row) for row in self.rows())
        return f"Tableau({body})"


