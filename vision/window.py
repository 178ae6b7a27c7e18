"""Where a tableau found in part lies: its 5 × 4 window placed by what the cells show.

A tableau whose found cards leave a whole edge row or column empty (``TableauFit.ambiguous_window``)
fits several windows alike; the lattice picks one by the cards alone, and the second look, which
straightens the photo round that window, cannot see past it. Cards the finder misses in a row
(full-bleed art laid edge to edge, where one card's edge is hardly seen against the next's)
then leave the window a row or a column off: cells on the bare table read "empty" while a line
of the tableau's cards lies outside it. Every window that still holds all the found cards is
read here, cell by cell, by the namer that reads the tableau, and the one with most cells named
a card of the deck is kept. The window stays a guess, and its doubt stays said.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import cv2
import numpy as np

from ecoscore.geometry import points_in_quads, project, warp_quad
from ecoscore.scoring import COLS, ROWS, CardType

from .lattice import CellFit, TableauFit, mostly_inside

# A cell with no box counts as holding a card when its namer names a type of the deck at least this
# sure. Higher than the card evidence a found box needs (``photo_doubts.EVIDENCE_CONFIDENCE``):
# here nothing but the namer says a card lies there.
WINDOW_EVIDENCE = 0.9

Namer = Callable[[list[np.ndarray]], list]  # crops -> a naming per crop (``pipeline.name_cells``)


def lattice_of(fit: TableauFit) -> np.ndarray:
    """The homography from the grid's reading coordinates (col, row; a cell's centre at +0.5) to
    photo pixels, fitted on the window's 20 cell centres (least squares): it carries the lattice on
    past the window, perspective and all."""
    grid = np.array([(c + 0.5, r + 0.5) for r, c in fit.cells], np.float64)
    photo = np.array([cell.quad.mean(0) for cell in fit.cells.values()], np.float64)
    H, _ = cv2.findHomography(grid, photo)
    return H


def shifts(fit: TableauFit) -> list[tuple[int, int]]:
    """Every (rows, cols) the window may move by and still hold every card found in it."""
    held = [rc for rc, cell in fit.cells.items() if cell.detection is not None]
    if not held:
        return [(0, 0)]
    rows, cols = [r for r, _ in held], [c for _, c in held]
    return [(dr, dc) for dr in range(max(rows) - (ROWS - 1), min(rows) + 1)
            for dc in range(max(cols) - (COLS - 1), min(cols) + 1)]


def cell_quad(H: np.ndarray, row: int, col: int) -> np.ndarray:
    """The lattice's cell (``row``, ``col``) in photo pixels: TL, TR, BR, BL."""
    return project(H, [(col, row), (col + 1, row), (col + 1, row + 1), (col, row + 1)])


def moved(fit: TableauFit, H: np.ndarray, dr: int, dc: int, size: tuple[int, int]) -> TableauFit:
    """The fit with its window moved by (``dr``, ``dc``) on its lattice: the cells it shares with the
    old window kept as they are, the others the lattice's, with no card found in them."""
    w, h = size
    cells: dict[tuple[int, int], CellFit] = {}
    for r in range(ROWS):
        for c in range(COLS):
            old = fit.cells.get((r + dr, c + dc))
            if old is not None:
                cells[(r, c)] = old
            else:
                quad = cell_quad(H, r + dr, c + dc)
                cells[(r, c)] = CellFit(quad, None, mostly_inside(quad, w, h))
    return replace(fit, cells=cells)


def _sound(H: np.ndarray, row: int, col: int) -> bool:
    """Whether the lattice's cell (``row``, ``col``) is a cell of a flat grid seen from the front:
    convex, and on the same side of the lattice's horizon as the window (beyond it a cell maps
    back mirrored)."""
    corners = np.array([(col, row, 1), (col + 1, row, 1), (col + 1, row + 1, 1), (col, row + 1, 1)], np.float64)
    depth = corners @ H[2]
    centre = np.array([COLS / 2, ROWS / 2, 1.0]) @ H[2]
    if not np.all(np.sign(depth) == np.sign(centre)):
        return False
    return bool(cv2.isContourConvex(cell_quad(H, row, col).astype(np.float32).reshape(-1, 1, 2)))


def place_window(fit: TableauFit, image: np.ndarray, namer: Namer, names: Sequence[str], side: int,
                 others: Sequence[TableauFit] = ()) -> TableauFit:
    """``fit`` with its window where its cells show most cards of the deck (``namer`` reads crops of
    ``side`` px; ``names`` its classes, the deck's types among them), never over a cell another
    tableau (``others``) reads. Unchanged where the window is no guess, or no other window shows
    more cards than its own."""
    if not fit.ambiguous_window:
        return fit
    moves = shifts(fit)
    if len(moves) < 2:
        return fit
    H = lattice_of(fit)
    size = (image.shape[1], image.shape[0])
    taken = np.array([cell.quad for other in others for cell in other.cells.values()]).reshape(-1, 4, 2)
    # The lattice's cells any candidate window holds, outside the found cards: each read once.
    lattice_cells: dict[tuple[int, int], np.ndarray | None] = {}
    for dr, dc in moves:
        for r in range(ROWS):
            for c in range(COLS):
                at = (r + dr, c + dc)
                if at in lattice_cells:
                    continue
                old = fit.cells.get(at)
                if old is not None and old.detection is not None:
                    lattice_cells[at] = None  # a found card: every candidate holds it
                    continue
                quad = old.quad if old is not None else cell_quad(H, *at)
                lattice_cells[at] = quad if old is not None or _sound(H, *at) else np.full((4, 2), np.nan)
    to_read = [at for at, quad in lattice_cells.items() if quad is not None and not np.isnan(quad).any()
               and mostly_inside(quad, *size)]
    crops = [warp_quad(image, lattice_cells[at], side) for at in to_read]
    types = {k for k, name in enumerate(names) if name in {card.value for card in CardType}}  # not empty, not ours
    card_at = {at: naming.chosen in types and naming.confidence >= WINDOW_EVIDENCE
               for at, naming in zip(to_read, namer(crops))}
    best, best_cards = (0, 0), -1
    for dr, dc in moves:
        window = [(r + dr, c + dc) for r in range(ROWS) for c in range(COLS)]
        if any(lattice_cells[at] is not None and np.isnan(lattice_cells[at]).any() for at in window):
            continue  # a cell past the horizon, or folded: no window of a flat grid
        if (dr, dc) != (0, 0) and len(taken):
            centres = np.array([cell_quad(H, *at).mean(0) for at in window])
            if points_in_quads(centres, taken).any():
                continue  # over another tableau's cells: its cards would be read twice
        cards = sum(card_at.get(at, False) for at in window)
        if cards > best_cards or (cards == best_cards and (dr, dc) == (0, 0)):
            best, best_cards = (dr, dc), cards
    return fit if best == (0, 0) else moved(fit, H, *best, size)
