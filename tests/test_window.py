"""A tableau found in part: its window placed where its cells show the deck's cards (vision/window.py)."""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import pytest

from ecoscore.geometry import project
from ecoscore.scoring import COLS, ROWS
from ecoscore.vision.lattice import CellFit, TableauFit
from ecoscore.vision.window import cell_quad, cut_on_the_lattice, lattice_of, place_window, shifts

NAMES = ["bear", "empty", "not ours"]
CARD = np.array([0.45, 0.42])  # a cell's half size in lattice units: a card, the gaps round it left out
SIZE = (1200, 900)


@dataclass
class Naming:
    chosen: int
    confidence: float


def bright_is_a_bear(crops: list[np.ndarray]) -> list[Naming]:
    """A stand-in namer: a bright crop is a card (a bear), a dark one the table."""
    return [Naming(0, 0.99) if crop.mean() > 128 else Naming(1, 0.99) for crop in crops]


def a_steep_lattice(turn_deg: float = 0.0) -> np.ndarray:
    """Grid coordinates (col, row) -> photo pixels: a tableau seen at a slant, its far rows smaller."""
    grid = np.float32([[0, 0], [COLS, 0], [COLS, ROWS], [0, ROWS]])
    photo = np.float32([[420, 180], [820, 190], [960, 700], [260, 690]])
    centre = photo.mean(0)
    a = np.radians(turn_deg)
    photo = (photo - centre) @ np.array([[np.cos(a), np.sin(a)], [-np.sin(a), np.cos(a)]], np.float32) + centre
    return cv2.getPerspectiveTransform(grid, photo.astype(np.float32))


def photo_of(H: np.ndarray, cards: set[tuple[int, int]]) -> np.ndarray:
    """A dark table with a light card on each of the lattice's ``cards`` (row, col)."""
    image = np.full((SIZE[1], SIZE[0], 3), 50, np.uint8)
    for r, c in cards:
        inset = project(H, [(c + 0.08, r + 0.08), (c + 0.92, r + 0.08), (c + 0.92, r + 0.92), (c + 0.08, r + 0.92)])
        cv2.fillConvexPoly(image, inset.astype(np.int32), (220, 220, 220))
    return image


def fit_of(H: np.ndarray, first_row: int, first_col: int, found: set[tuple[int, int]]) -> TableauFit:
    """A fit whose window starts at the lattice's (``first_row``, ``first_col``), with a card found
    at each of ``found`` (lattice row, col) inside it."""
    cells, k = {}, 0
    for r in range(ROWS):
        for c in range(COLS):
            at = (r + first_row, c + first_col)
            cells[(r, c)] = CellFit(cell_quad(H, *at, CARD), k if at in found else None, True)
            k += at in found
    return TableauFit(cells, 0.02, ambiguous_window=True)


def lattice_cells(fit: TableauFit, H: np.ndarray) -> set[tuple[int, int]]:
    """The lattice's (row, col) under each of the fit's cells."""
    Hinv = np.linalg.inv(H)
    return {tuple(int(v) for v in np.floor(project(Hinv, cell.quad.mean(0)[None])[0][::-1])) for cell in fit.cells.values()}


TABLEAU = {(r, c) for r in range(ROWS) for c in range(COLS)}


@pytest.mark.parametrize("turn", [0.0, 25.0, 90.0])
@pytest.mark.parametrize("missed_row", [0, ROWS - 1])
def test_a_window_a_row_off_moves_onto_the_row_of_cards_the_finder_missed(turn, missed_row):
    H = a_steep_lattice(turn)
    image = photo_of(H, TABLEAU)
    found = {rc for rc in TABLEAU if rc[0] != missed_row}  # a whole row of full-bleed cards not boxed
    off = 1 if missed_row == 0 else -1  # the lattice laid the window over the table instead
    fit = fit_of(H, off, 0, found)
    placed = place_window(fit, image, bright_is_a_bear, NAMES, 64)
    assert lattice_cells(placed, H) == TABLEAU
    # The cards found keep their cells and boxes; the cells moved onto are the lattice's, no card found there.
    assert sorted(cell.detection for cell in placed.cells.values() if cell.detection is not None) == list(range(15))
    assert sum(cell.detection is None for cell in placed.cells.values()) == COLS
    assert placed.ambiguous_window  # still a guess: its doubt is still said
    # The cells moved onto are cut as the lattice cuts its own: a card's size, on the card.
    for (r, c), cell in placed.cells.items():
        assert np.abs(cell.quad - cell_quad(H, r, c, CARD)).max() < 1.0


def test_the_lattice_carried_past_the_window_is_the_photos_under_steep_perspective():
    H = a_steep_lattice()
    fitted, half = lattice_of(fit_of(H, 0, 0, TABLEAU))
    beyond = [(-1, 2), (4, 0), (2, 6), (-1, -1)]
    for at in beyond:
        assert np.abs(cell_quad(fitted, *at, half) - cell_quad(H, *at, CARD)).max() < 1.0, at
    assert np.allclose(half, CARD, atol=0.01)


def test_a_fit_on_no_lattice_is_left_as_it_is():
    H = a_steep_lattice()
    fit = fit_of(H, 1, 0, {rc for rc in TABLEAU if rc[0] != 0})
    for cell in fit.cells.values():  # every centre on one line: no homography
        cell.quad = cell.quad * [1.0, 0.0] + [0.0, 300.0]
    assert place_window(fit, photo_of(H, TABLEAU), bright_is_a_bear, NAMES, 64) is fit


def test_one_card_beside_a_mid_game_tableaus_empty_row_does_not_move_it():
    H = a_steep_lattice()
    found = {rc for rc in TABLEAU if rc[0] != 3}  # its last row not played yet
    stray = {(-1, 2)}  # a card of the pile lying a row beyond its other edge
    fit = fit_of(H, 0, 0, found)
    assert place_window(fit, photo_of(H, found | stray), bright_is_a_bear, NAMES, 64) is fit


def test_a_window_is_never_moved_onto_another_tableaus_cells():
    H = a_steep_lattice()
    image = photo_of(H, TABLEAU)
    found = {rc for rc in TABLEAU if rc[0] != 0}
    fit = fit_of(H, 1, 0, found)
    neighbour = fit_of(H, -3, 0, set())  # another tableau read on the lattice's rows -3..0
    assert place_window(fit, image, bright_is_a_bear, NAMES, 64, [neighbour]) is fit


def test_a_window_stays_where_no_other_shows_more_cards():
    H = a_steep_lattice()
    found = {rc for rc in TABLEAU if rc[0] != 0}
    image = photo_of(H, found)  # the row is not there: a mid-game tableau of three rows
    fit = fit_of(H, 0, 0, found)
    assert place_window(fit, image, bright_is_a_bear, NAMES, 64) is fit


def test_a_namer_unsure_of_the_cells_moves_nothing():
    H = a_steep_lattice()
    image = photo_of(H, TABLEAU)
    fit = fit_of(H, 1, 0, {rc for rc in TABLEAU if rc[0] != 0})
    unsure = lambda crops: [Naming(0, 0.6) for _ in crops]  # noqa: E731
    assert place_window(fit, image, unsure, NAMES, 64) is fit


def test_a_window_that_is_no_guess_is_not_read_again():
    H = a_steep_lattice()
    fit = fit_of(H, 0, 0, TABLEAU)
    fit.ambiguous_window = False

    def never(crops):
        raise AssertionError("read")

    assert place_window(fit, photo_of(H, TABLEAU), never, NAMES, 64) is fit


def test_the_windows_tried_are_those_that_hold_every_card_found():
    H = a_steep_lattice()
    fit = fit_of(H, 0, 0, {(1, 1), (1, 2), (2, 1), (2, 2)})
    assert sorted(shifts(fit)) == [(dr, dc) for dr in range(-1, 2) for dc in range(-2, 2)]


def test_a_grid_named_on_a_reads_cells_is_enrolled_on_the_window_that_read_placed():
    """The page's "remember these cards" sends a grid named on a read's cells; the read placed its
    window by what the cells show, so the enrolment must too, with the read's namer (a review:
    15 references were cut a row off, without a word)."""
    from ecoscore.geometry import Detections
    from ecoscore.vision import enrol
    from ecoscore.vision.second_look import from_quads

    H = a_steep_lattice()
    image = photo_of(H, TABLEAU)
    found = {rc for rc in TABLEAU if rc[0] != 0}

    class Located:  # the reader's looks, as they were for this photo: the window a row too low
        def locate(self, photo, timings=None):
            fit = fit_of(H * [[photo.scale], [photo.scale], [1]], 1, 0, found)
            quads = np.array([cell.quad for cell in fit.cells.values() if cell.detection is not None])
            return from_quads(quads, np.ones(len(quads))), [fit], []

        def settle(self, photo, det: Detections, fits, loose, namer):
            return det, [place_window(fits[0], photo.image, namer, NAMES, 64)], loose

        def cut_on_the_lattice(self, photo, fits):  # every box here is its cell: nothing to cut again
            pass

    png = cv2.imencode(".png", image)[1].tobytes()
    _, _, as_located = enrol._one_tableau(Located(), png, "photo")
    _, _, as_read = enrol._one_tableau(Located(), png, "photo", read_by=bright_is_a_bear)
    assert lattice_cells(as_read, H) == TABLEAU  # (the photo is read at its own size: scale 1)
    assert lattice_cells(as_located, H) != TABLEAU


def test_a_card_boxed_off_its_cell_is_cut_on_the_lattice_and_a_card_boxed_well_is_not():
    """A box round part of a card, or across parts of two (full-bleed art laid edge to edge), lies
    off its cell: the card is cut at the lattice's card-sized cell there. A card cut a little off, an
    empty cell, a cell out of the photo, and every cell of a lattice fitted on too few cards to
    trust over the boxes keep their cuts. Cuts are made as the lattice fit makes them: the mean of
    the box and the cell."""
    H = a_steep_lattice(25.0)
    fit = fit_of(H, 0, 0, TABLEAU - {(3, 0)})

    def as_cut(r: int, c: int, box: np.ndarray) -> np.ndarray:
        return (box + cell_quad(H, r, c, CARD)) / 2

    def shifted(r: int, c: int, by: float) -> np.ndarray:  # the cell's box moved ``by`` of a card to the right
        q = cell_quad(H, r, c, CARD)
        return q + by * (q[[1, 1, 2, 2]] - q[[0, 0, 3, 3]])

    q = cell_quad(H, 1, 2, CARD)
    third = np.array([q[0], q[0] + (q[1] - q[0]) / 3, q[3] + (q[2] - q[3]) / 3, q[3]])  # a box round its left third
    fit.cells[(1, 2)].quad = as_cut(1, 2, third)  # IoU 0.67 with its cell
    fit.cells[(2, 1)].quad = as_cut(2, 1, shifted(2, 1, 0.6))  # across this card and the next: IoU 0.54
    slightly_off = as_cut(2, 3, shifted(2, 3, 0.15))  # IoU 0.86
    fit.cells[(2, 3)].quad = slightly_off
    def shrunk(r: int, c: int) -> np.ndarray:  # a small cut on the cell's centre (IoU 0.25)
        q = cell_quad(H, r, c, CARD)
        return q.mean(0) + 0.5 * (q - q.mean(0))

    empty_off = shrunk(3, 0)  # no card found there: cut_unboxed_cells' cell, not this step's
    fit.cells[(3, 0)].quad = empty_off
    out_of_view = shrunk(0, 4)
    fit.cells[(0, 4)].quad, fit.cells[(0, 4)].inside = out_of_view, False
    assert cut_on_the_lattice(fit, 0.75, 8, SIZE) == 2
    # On the card, within 3 px of a ~100 px card (the off cuts' own centres pull the lattice a little).
    for r, c in ((1, 2), (2, 1)):
        assert np.abs(fit.cells[(r, c)].quad - cell_quad(H, r, c, CARD)).max() < 3.0
    assert fit.cells[(2, 3)].quad is slightly_off
    assert fit.cells[(3, 0)].quad is empty_off and fit.cells[(0, 4)].quad is out_of_view

    few = fit_of(H, 0, 0, {(0, c) for c in range(COLS)})
    off = as_cut(0, 2, shifted(0, 2, 0.6))
    few.cells[(0, 2)].quad = off
    assert cut_on_the_lattice(few, 0.75, 8, SIZE) == 0 and few.cells[(0, 2)].quad is off
