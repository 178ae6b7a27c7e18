"""A tableau found in part: its window placed where its cells show the deck's cards (vision/window.py)."""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import pytest

from ecoscore.geometry import project
from ecoscore.scoring import COLS, ROWS
from ecoscore.vision.lattice import CellFit, TableauFit
from ecoscore.vision.window import cell_quad, place_window, shifts

NAMES = ["bear", "empty", "not ours"]
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
            cells[(r, c)] = CellFit(cell_quad(H, *at), k if at in found else None, True)
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
