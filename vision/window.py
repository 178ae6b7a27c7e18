"""What a tableau's lattice says beyond its found cards: where a tableau found in part lies (its
5 × 4 window placed by what the cells show), and where a found card is cut.

A tableau whose found cards leave a whole edge row or column empty (``TableauFit.ambiguous_window``)
fits several windows alike; the lattice picks one by the cards alone, and the second look, which
straightens the photo round that window, cannot see past it. Cards the finder misses in a row
(full-bleed art laid edge to edge, where one card's edge is hardly seen against the next's)
then leave the window a row or a column off: cells on the bare table read "empty" while a line
of the tableau's cards lies outside it. Every window that still holds all the found cards is
read here, cell by cell, by the namer that reads the tableau, and the one with most cells named
a card of the deck is kept. The window stays a guess, and its doubt stays said.

The same lattice also says where a found card should be cut (``cut_on_the_lattice``): a box
round half a card, or round parts of two (full-bleed art laid edge to edge), lies off its cell.
Where the lattice refiner (``lattice_refiner.py``) refined it as one object, the refined one says
where every cell is cut (``cut_on_a_refined_lattice``).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import cv2
import numpy as np

from ecoscore.geometry import points_in_quads, project, warp_quad
from ecoscore.scoring import COLS, ROWS, CardType

from .lattice import CellFit, TableauFit, card_half, mostly_inside
from .second_look import overlap

# A cell with no box counts as holding a card when its namer names a type of the deck at least this
# sure. Higher than the card evidence a found box needs (``photo_doubts.EVIDENCE_CONFIDENCE``):
# here nothing but the namer says a card lies there.
WINDOW_EVIDENCE = 0.9
# A window moves only to show this many more such cells than its own: one card's worth of
# evidence (a neighbour's card beside a mid-game tableau's empty edge row) is not enough.
MIN_GAIN = 2

Namer = Callable[[list[np.ndarray]], list]  # crops -> a naming per crop (``naming.name_cells``)


def centre(quad: np.ndarray) -> np.ndarray:
    """Where a quad's diagonals cross: the centre of the square it is a photo of (under
    perspective the mean of its corners lies off it, towards the far side)."""
    p, r = quad[0], quad[2] - quad[0]
    q, s = quad[1], quad[3] - quad[1]
    cross = r[0] * s[1] - r[1] * s[0]
    if abs(cross) < 1e-9:
        return quad.mean(0)
    t = ((q - p)[0] * s[1] - (q - p)[1] * s[0]) / cross
    return p + t * r


def lattice_of(fit: TableauFit) -> tuple[np.ndarray, np.ndarray] | None:
    """The homography from the grid's reading coordinates (col, row; a cell's centre at +0.5) to
    photo pixels, fitted on the window's 20 cell centres (least squares): it carries the lattice
    on past the window, perspective and all. And the cells' half size in lattice units (col,
    row): a cell is a card, smaller than the pitch by the gaps, as the lattice cuts them. None:
    no lattice (centres on one line)."""
    grid = np.array([(c + 0.5, r + 0.5) for r, c in fit.cells], np.float64)
    photo = np.array([centre(cell.quad) for cell in fit.cells.values()], np.float64)
    H, _ = cv2.findHomography(grid, photo)
    if H is None or not np.isfinite(H).all() or abs(np.linalg.det(H)) < 1e-12:
        return None
    return H, card_half(np.linalg.inv(H), np.array([cell.quad for cell in fit.cells.values()]))


def shifts(fit: TableauFit) -> list[tuple[int, int]]:
    """Every (rows, cols) the window may move by and still hold every card found in it."""
    held = [rc for rc, cell in fit.cells.items() if cell.detection is not None]
    if not held:
        return [(0, 0)]
    rows, cols = [r for r, _ in held], [c for _, c in held]
    return [(dr, dc) for dr in range(max(rows) - (ROWS - 1), min(rows) + 1)
            for dc in range(max(cols) - (COLS - 1), min(cols) + 1)]


def cell_quad(H: np.ndarray, row: int, col: int, half: np.ndarray = np.array([0.5, 0.5])) -> np.ndarray:
    """The lattice's cell (``row``, ``col``) in photo pixels, TL, TR, BR, BL: ``half`` its half size
    in lattice units (0.5: the whole pitch)."""
    c, r = col + 0.5, row + 0.5
    hc, hr = half
    return project(H, [(c - hc, r - hr), (c + hc, r - hr), (c + hc, r + hr), (c - hc, r + hr)])


def cut_on_the_lattice(fit: TableauFit, min_overlap: float, min_cards: int, size: tuple[int, int],
                       lattice: tuple[np.ndarray, np.ndarray] | None = None) -> int:
    """Each found card's cut (``quad``: the mean of its box and its cell, or the second look's
    corners) that covers the lattice's card-sized cell there less than ``min_overlap``
    (intersection over union) cut at that cell instead; a lattice fitted on fewer than
    ``min_cards`` cards is not trusted over the boxes, nor a cell of it that no flat grid seen
    from the front shows or that lies mostly out of the photo (``size``). Where the second look
    cut the card, its corners are replaced and the first look's cut (``first_quad``) is still read
    beside the lattice's: the two must agree. Changes the fit's cells in place; returns how many
    were cut again. ``lattice``: the fit's ``lattice_of``, where the caller has it already."""
    if len(fit.detections) < min_cards:
        return 0
    lattice = lattice or lattice_of(fit)
    if lattice is None:
        return 0
    return _cut_at_cells(fit, *lattice, min_overlap, size, unboxed=False)


def cut_on_a_refined_lattice(fit: TableauFit, H: np.ndarray, half: np.ndarray, min_overlap: float,
                             size: tuple[int, int]) -> int:
    """``cut_on_the_lattice`` on the lattice refined as one object (``H``: the lattice refiner's,
    ``half`` the cells' half size): each cell no card was boxed in cut at its cell too. Trusted
    however few cards were found: the refiner fitted it on the photo's whole grid, not on them.
    Changes the fit's cells in place; returns how many found cards were cut again."""
    return _cut_at_cells(fit, H, half, min_overlap, size, unboxed=True)


def _cut_at_cells(fit: TableauFit, H: np.ndarray, half: np.ndarray, min_overlap: float, size: tuple[int, int],
                  unboxed: bool) -> int:
    """Each found card whose cut covers lattice ``H``'s card-sized cell (``half``) less than
    ``min_overlap`` cut at that cell, and each cell no card was boxed in too where ``unboxed``;
    a cell out of view, that no flat grid seen from the front shows, or that lies mostly out of
    the photo (``size``) keeps its cut. Returns how many found cards were cut again."""
    recut = 0
    for (r, c), cell in fit.cells.items():
        if not cell.inside or (cell.detection is None and not unboxed) or not _sound(H, r, c):
            continue
        there = cell_quad(H, r, c, half)
        if not mostly_inside(there, *size):
            continue
        if cell.detection is None:
            cell.quad = there
        elif overlap(cell.quad, there) < min_overlap:
            cell.quad = there
            recut += 1
    return recut


def moved(fit: TableauFit, H: np.ndarray, half: np.ndarray, dr: int, dc: int, size: tuple[int, int]) -> TableauFit:
    """The fit with its window moved by (``dr``, ``dc``) on its lattice: the cells it shares with the
    old window kept as they are, the others the lattice's (``half``: their half size), with no
    card found in them."""
    w, h = size
    cells: dict[tuple[int, int], CellFit] = {}
    for r in range(ROWS):
        for c in range(COLS):
            old = fit.cells.get((r + dr, c + dc))
            if old is not None:
                cells[(r, c)] = old
            else:
                quad = cell_quad(H, r + dr, c + dc, half)
                cells[(r, c)] = CellFit(quad, None, mostly_inside(quad, w, h))
    return replace(fit, cells=cells)


def windows(fit: TableauFit, size: tuple[int, int]) -> list[tuple[tuple[int, int], TableauFit]]:
    """Every window the tableau may have, as (the move, the fit moved by it): where its window is
    a guess (``ambiguous_window``), each that holds all its found cards on a flat grid's lattice;
    else the fit alone. For a grid a player gives (enrolment), which says where the cards lie
    better than the cards found do."""
    moves = shifts(fit) if fit.ambiguous_window else [(0, 0)]
    lattice = lattice_of(fit) if len(moves) > 1 else None
    if lattice is None:
        return [((0, 0), fit)]
    H, half = lattice
    out = []
    for dr, dc in moves:
        if (dr, dc) == (0, 0):
            out.append(((0, 0), fit))
        elif all(_sound(H, r + dr, c + dc) for r in range(ROWS) for c in range(COLS)):
            out.append(((dr, dc), moved(fit, H, half, dr, dc, size)))
    return out


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
    ``MIN_GAIN`` more cards than its own."""
    if not fit.ambiguous_window:
        return fit
    moves = shifts(fit)
    lattice = lattice_of(fit) if len(moves) > 1 else None
    if lattice is None:
        return fit
    H, half = lattice
    size = (image.shape[1], image.shape[0])
    taken = np.array([cell.quad for other in others for cell in other.cells.values()]).reshape(-1, 4, 2)
    # The lattice's cells any candidate window holds, outside the found cards: each read once.
    # None: a found card (every candidate holds it); no quad: past the horizon, or folded.
    lattice_cells: dict[tuple[int, int], np.ndarray | None] = {}
    unsound: set[tuple[int, int]] = set()
    for dr, dc in moves:
        for r in range(ROWS):
            for c in range(COLS):
                at = (r + dr, c + dc)
                if at in lattice_cells or at in unsound:
                    continue
                old = fit.cells.get(at)
                if old is not None:
                    lattice_cells[at] = None if old.detection is not None else old.quad
                elif _sound(H, *at):
                    lattice_cells[at] = cell_quad(H, *at, half)
                else:
                    unsound.add(at)
    to_read = {at: quad for at, quad in lattice_cells.items() if quad is not None and mostly_inside(quad, *size)}
    crops = [warp_quad(image, quad, side) for quad in to_read.values()]
    types = {k for k, name in enumerate(names) if name in {card.value for card in CardType}}  # not empty, not ours
    card_at = {at: naming.chosen in types and naming.confidence >= WINDOW_EVIDENCE
               for at, naming in zip(to_read, namer(crops))}
    counted: list[tuple[int, int, tuple[int, int]]] = []  # (cards, -distance, move)
    for dr, dc in moves:
        window = [(r + dr, c + dc) for r in range(ROWS) for c in range(COLS)]
        if any(at in unsound for at in window):
            continue  # no window of a flat grid seen from the front
        if (dr, dc) != (0, 0) and len(taken):
            centres = np.array([cell_quad(H, *at).mean(0) for at in window])
            if points_in_quads(centres, taken).any():
                continue  # over another tableau's cells: its cards would be read twice
        counted.append((sum(card_at.get(at, False) for at in window), -abs(dr) - abs(dc), (dr, dc)))
    own = next(cards for cards, _, move in counted if move == (0, 0))
    cards, _, best = max(counted)
    return fit if cards < own + MIN_GAIN else moved(fit, H, half, *best, size)
