"""An empty cell shows the table the tableau lies on.

A deck's matcher knows *empty* by one learned prototype of table surfaces, and a card of
photographic art (a close-up of grass or gravel, coins, a night sky) can lie nearer that than
its own reference under a photo's light: read as empty, such a card was lost without a word
wherever the finder had missed it too (on another renderer's photos of a deck of photographs,
11 % of its cards, 36 of 316, read as empty). So a cell the matcher reads as empty is compared
with this photo's own table: the lattice's cells in the ring just outside the grid that hold no
card found, each cell's middle half against theirs (clear of neighbours' edges: whole cells of a
mosaic deck laid edge to edge, holes among cards, looked unlike the bare table round it). In
another renderer's photos an empty cell's middle is like one of theirs at cosine 0.97 at the
median (0.87 at the tenth percentile), a card's at 0.46 (0.75 at the ninetieth). A cell like
none of them is no empty cell: it is named the likeliest of the deck's types (where the matcher
gave it ``MIN_OTHER`` and more than "not ours"), and doubted.
"""
from __future__ import annotations

import numpy as np

from ecoscore.geometry import points_in_quads, warp_quad
from ecoscore.scoring import COLS, ROWS
from ecoscore.scoring.cards import NOT_OURS

from .lattice import TableauFit
from .models import EMPTY
from .window import cell_quad, lattice_of

TABLE_LIKE = 0.8  # cosine with the nearest table cell below which a cell is not the table
MIN_TABLE_CELLS = 3  # fewer table cells in view than this: the table is not known, nothing is changed
# A cell unlike the table is named otherwise only where the matcher gave the other name this much
# belief: on the tuning decks, true empty cells unlike their table (a hole in a dark corner, under
# a shadow's edge) had 0-3 % for any card, and renamed lost 3 tableaux; the cards read as empty
# in another renderer's photos had 2-48 % for their own type, most above 5 %. Below it the cell
# stays empty, and is doubted.
MIN_OTHER = 0.05
DOUBTED = 0.5  # the confidence a cell kept empty but unlike the table is read at
CENTRE = 0.5  # the share of a cell (about its centre) compared: its middle, clear of its neighbours
UNLIKE_TABLE = "reads as empty, but looks like none of the table around the tableau"


def unlike_table_doubt(empty_belief: float, taken_for: str | None) -> str:
    """The doubt of a cell read as empty and unlike the table: what it is taken for, or, kept
    empty, to check it (service/static/i18n: api.unlike_table, api.unlike_table_kept)."""
    if taken_for is not None:
        return f"{UNLIKE_TABLE} (empty {empty_belief:.0%}): taken for {taken_for}"
    return (f"reads as empty ({empty_belief:.0%}), but looks like none of the table around the tableau: "
            "check that no card lies here")


def table_cells(fit: TableauFit, image: np.ndarray, card_centres: np.ndarray) -> list[np.ndarray]:
    """The lattice's card-sized cells in the ring round the grid (``image`` pixels) that lie
    wholly in the photo and hold no found card's centre: what the table looks like here."""
    lattice = lattice_of(fit)
    if lattice is None:
        return []
    H, half = lattice
    h, w = image.shape[:2]
    quads = []
    for r in range(-1, ROWS + 1):
        for c in range(-1, COLS + 1):
            if 0 <= r < ROWS and 0 <= c < COLS:
                continue
            quad = cell_quad(H, r, c, half)
            if not (np.isfinite(quad).all() and (quad >= 0).all() and (quad[:, 0] < w).all() and (quad[:, 1] < h).all()):
                continue
            quads.append(quad)
    if not quads or not len(card_centres):
        return quads
    holds_a_card: list[bool] = np.any(points_in_quads(card_centres, np.array(quads)), axis=0).tolist()
    return [quad for quad, held in zip(quads, holds_a_card) if not held]


def unlike_the_table(embedder, cells: list[np.ndarray], table: list[np.ndarray]) -> np.ndarray | None:
    """Per cell crop, whether it is like none of the table crops (cosine below ``TABLE_LIKE``);
    None where too few table crops show the table to tell."""
    if len(table) < MIN_TABLE_CELLS or not cells:
        return None
    return (embedder(cells) @ embedder(table).T).max(1) < TABLE_LIKE


def unlike_the_table_round(embedder, fit: TableauFit, quads: list[np.ndarray], image: np.ndarray,
                           card_centres: np.ndarray, detail: np.ndarray, k: float, side: int) -> np.ndarray | None:
    """``unlike_the_table`` of each quad's middle, against the table seen round ``fit``'s grid
    (``table_cells``): both cut from ``detail`` (``k`` × ``image``'s pixels) at ``side``."""
    table = centre_crops(table_cells(fit, image, card_centres), detail, k, side)
    return unlike_the_table(embedder, centre_crops(quads, detail, k, side), table)


def centre_crops(quads: list[np.ndarray], image: np.ndarray, k: float, side: int) -> list[np.ndarray]:
    """Each quad's middle (``CENTRE`` of it, about its centre) cut from ``image`` (``k`` × the
    quads' pixels) at ``side``: a cell's middle holds its own card or table, not its neighbours'
    edges (cards laid edge to edge, a cell cut a little loose)."""
    return [warp_quad(image, (quad.mean(0) + CENTRE * (quad - quad.mean(0))) * k, side) for quad in quads]


def best_but_empty(probabilities: np.ndarray, names: list[str]) -> tuple[int, float]:
    """The name a cell that is not the table takes, and the confidence it is read at: the
    likeliest of the deck's types, at its belief, where that has ``MIN_OTHER`` and more than
    "not ours"; else *empty* still, at ``DOUBTED``. Never "not ours" itself: a hole called another
    game's card would count towards "the wrong deck?"; and a type less likely than "not ours"
    named a hole on the held-out decks' steep photos (2 tableaux lost)."""
    empty, not_ours = names.index(EMPTY), names.index(NOT_OURS)
    other = max((j for j in range(len(names)) if j not in (empty, not_ours)), key=lambda j: probabilities[j])
    if probabilities[other] >= max(MIN_OTHER, probabilities[not_ours]):
        return other, float(probabilities[other])
    return empty, min(DOUBTED, float(probabilities[empty]))
