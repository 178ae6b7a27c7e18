"""What a read of a photo hands on: each cell's name, confidence and doubts, each tableau's,
the photo's. The reader (``pipeline.Reader``) makes a photo's, its cells and tableaux named by
``naming.tableau_read``; the report, the overlay, the service and the benches read them."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ecoscore.scoring import CardType, Tableau

from . import photo_doubts
from .decode import Photo
from .lattice import MIN_CARDS
from .photo_doubts import PatternGrid, UnreadGrid


@dataclass
class CellRead:
    row: int
    col: int
    type: CardType | None  # None: empty (or unreadable: see doubts)
    confidence: float
    runner_up: str
    runner_up_confidence: float
    detected: bool  # the card finder saw a card in this cell
    quad: np.ndarray  # corners in original photo pixels (TL, TR, BR, BL)
    doubts: list[str] = field(default_factory=list)
    not_ours: bool = False  # a card, but of none of the deck's types (read by a deck's matcher)
    # The surest any one cut of the cell was of its type (two cuts that disagree make a doubt,
    # yet a card named surely by one of them is still a card: no phantom tableau).
    evidence: float | None = None
    shown: bool = True  # False: the cell lies partly outside the photo, and was not read

    @property
    def unknown(self) -> bool:
        """What lies here is not known: a cell not shown, or a card of none of the deck's types
        (never to be taken for an empty cell)."""
        return self.type is None and (self.not_ours or not self.shown)

    @property
    def card_evidence(self) -> float:
        return self.confidence if self.evidence is None else self.evidence


@dataclass
class TableauRead:
    cells: list[CellRead]  # reading order, ROWS × COLS
    doubts: list[str]
    # Quads (original pixels) of the cards its doubt "N cards ... were left out" counts: in line
    # with the grid but outside its 5 × 4, or beside it: drawn so the player sees which they are.
    left_out: list[np.ndarray] = field(default_factory=list)

    @property
    def tableau(self) -> Tableau:
        return Tableau([cell.type for cell in self.cells])

    @property
    def confidence(self) -> float:
        """The weakest cell's confidence: a tableau is only as sure as its least sure card."""
        return min(cell.confidence for cell in self.cells)


@dataclass
class PhotoRead:
    tableaux: list[TableauRead]
    loose_cards: list[np.ndarray]  # quads of cards on no grid (original pixels)
    size: tuple[int, int]
    timings_ms: dict[str, float]
    photo: Photo  # the decoded photo (reduced size), for drawing the overlay without decoding again
    deck: str  # the deck whose cards the cells were named as (the classifier's or a matcher's)
    loose_group: int = 0  # cards in the biggest group of loose cards lying side by side

    # Grids not read as tableaux for being one look repeated (``photo_doubts.one_look``).
    pattern_grids: list[PatternGrid] = field(default_factory=list)
    # Grids not read as tableaux for too few sure cards, that may yet be a player's (``photo_doubts.unread_grid``).
    unread_grids: list[UnreadGrid] = field(default_factory=list)

    @property
    def doubts(self) -> list[str]:
        """What looks doubtful about the photo as a whole (each tableau carries its own doubts).

        Loose cards lying side by side, as many as a tableau needs to be found, may be a
        tableau that was not read (too small, too dark, too steep, cut by the frame): the
        others' majorities may then lack a player. Scattered loose cards (a draw pile, cards
        put aside) are no such sign. A grid taken for a pattern is said (``pattern_doubt``)."""
        out = [photo_doubts.pattern_doubt(grid) for grid in self.pattern_grids]
        out += [photo_doubts.unread_doubt(grid) for grid in self.unread_grids]
        if self.loose_group >= MIN_CARDS:
            out.append(f"{self.loose_group} cards lie side by side outside every tableau read: if they are a player's "
                       "tableau, it was not read (photograph it alone, or closer)")
        return out
