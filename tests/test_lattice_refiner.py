"""The lattice refiner: a tableau's 5 × 4 lattice refined as one object (vision/lattice_refiner.py)."""
from __future__ import annotations

import cv2
import numpy as np
import pytest
from conftest import needs_models

from ecoscore.geometry import project
from ecoscore.scoring import COLS, ROWS
from ecoscore.vision.lattice import CellFit, TableauFit
from ecoscore.vision.lattice_refiner import CANVAS, CELL_PX, FINE, MARGIN, OUTER, lattice_canvas, moved_by
from ecoscore.vision.window import cell_quad, cut_on_a_refined_lattice

CARD = np.array([0.45, 0.42])  # a cell's half size in lattice units
SIZE = (1200, 900)


def a_slanted_lattice(scale: float = 1.0) -> np.ndarray:
    """Lattice units -> photo px: a tableau seen at a slant, its far row smaller."""
    photo = np.float32([[420, 180], [820, 190], [960, 700], [260, 690]]) * scale
    return cv2.getPerspectiveTransform(OUTER.astype(np.float32), photo)


def photo_of(H: np.ndarray, size: tuple[int, int] = SIZE) -> np.ndarray:
    """A dark table with a light card on every cell of the lattice, the first cell's red and the
    second's (row 0, col 1) green: a canvas turned or mirrored shows them elsewhere."""
    image = np.full((size[1], size[0], 3), 40, np.uint8)
    for r in range(ROWS):
        for c in range(COLS):
            colour = {(0, 0): (40, 40, 230), (0, 1): (40, 230, 40)}.get((r, c), (230, 230, 230))
            cv2.fillConvexPoly(image, cell_quad(H, r, c, CARD).astype(np.int32), colour)
    return image


# cells of ~70 px (shrunk bilinearly), ~100 px (halved by blocks) and ~400 px (shrunk by a whole factor)
@pytest.mark.parametrize("scale", [0.7, 1.0, 4.0])
def test_the_canvas_shows_the_grid_straightened_with_half_a_cell_round_it(scale):
    H = a_slanted_lattice(scale)
    canvas = lattice_canvas(photo_of(H, (int(SIZE[0] * scale), int(SIZE[1] * scale))), H)
    assert canvas.shape == (CANVAS[1], CANVAS[0], 3)
    for r in range(ROWS):
        for c in range(COLS):
            x, y = (np.array([c, r]) + 0.5 + MARGIN) * CELL_PX
            b, g, red = canvas[int(y), int(x)].astype(int)  # each card's middle where its cell's is
            expected = {(0, 0): (40, 40, 230), (0, 1): (40, 230, 40)}.get((r, c), (230, 230, 230))
            assert np.abs(np.array([b, g, red]) - expected).max() < 30, (r, c)
    gap = (np.array([2.0, 1.5]) + MARGIN) * CELL_PX  # between cells (1, 1) and (1, 2)
    assert canvas[int(gap[1]), int(gap[0])].mean() < 120
    assert canvas[2, 2].mean() < 60  # the margin shows the table


def test_a_move_takes_the_outer_corners_where_the_refiner_saw_them():
    move = np.array([[0.2, -0.1], [0.0, 0.3], [-0.25, 0.05], [0.1, 0.1]])
    np.testing.assert_allclose(project(moved_by(move), OUTER), OUTER + move, atol=1e-6)
    np.testing.assert_allclose(moved_by(np.zeros((4, 2))), np.eye(3), atol=1e-9)


def test_a_refined_lattice_cuts_every_cell_boxed_off_it_and_every_unboxed_one():
    """Cells no card was boxed in are cut at the refined lattice's cells; a found card boxed off its
    cell too (however few cards were found: the refiner saw the whole grid); a card boxed well, a
    cell out of the photo, keep their cuts."""
    H = a_slanted_lattice()
    drifted = H @ moved_by(np.array([[0.0, 0.0], [0.3, 0.0], [0.3, 0.3], [0.0, 0.3]]))  # off towards the far corner
    cells = {(r, c): CellFit(cell_quad(drifted, r, c, CARD), None, True) for r in range(ROWS) for c in range(COLS)}
    well = cell_quad(H, 0, 0, CARD) + 2.0
    cells[(0, 0)] = CellFit(well, 0, True)
    off = cell_quad(H, 1, 1, CARD) + (cell_quad(H, 1, 2, CARD) - cell_quad(H, 1, 1, CARD)) * 0.5  # across two cards
    cells[(1, 1)] = CellFit(off, 1, True)
    out_of_view = cells[(3, 4)].quad
    cells[(3, 4)].inside = False
    fit = TableauFit(cells, 0.02, ambiguous_window=False)
    assert cut_on_a_refined_lattice(fit, H, CARD, 0.75, SIZE) == 1
    assert fit.cells[(0, 0)].quad is well and fit.cells[(3, 4)].quad is out_of_view
    np.testing.assert_allclose(fit.cells[(1, 1)].quad, cell_quad(H, 1, 1, CARD))
    for r, c in ((0, 1), (2, 3), (3, 3)):
        np.testing.assert_allclose(fit.cells[(r, c)].quad, cell_quad(H, r, c, CARD))


@needs_models
def test_the_shipped_refiner_brings_a_drifted_lattice_back_onto_a_rendered_tableau():
    """A rendered photo of a held-out deck (no training run drew it) laid edge to edge, its true
    lattice moved off by up to 0.35 of a cell at the corners, labelled from either end: the
    refiner brings the outer corners back to within a fifth of the error, and says it settled."""
    from ecoscore.datasets.deckgen import HELD_OUT_SEEDS, generate_deck
    from ecoscore.datasets.scene import SceneParams, render_scene
    from ecoscore.vision.lattice_refiner import LatticeRefiner
    from ecoscore.vision.train_lattice import true_lattice

    deck = generate_deck(HELD_OUT_SEEDS[71], "fullart")
    scene = render_scene(deck, 7, SceneParams(long_side=1200, p_touching=1.0, p_hole=0.0, p_multi=0.0, p_cut_off=0.0))
    labelled = true_lattice(scene.truth["tableaux"][0])
    assert labelled is not None
    turned = labelled @ np.array([[-1, 0, COLS], [0, -1, ROWS], [0, 0, 1]], np.float64)  # read from the other end
    refiner = LatticeRefiner()
    for true, move in ((labelled, np.array([[0.3, 0.0], [0.35, 0.2], [0.0, -0.25], [-0.2, 0.1]])),
                       (labelled, np.full((4, 2), -0.3)), (turned, np.array([[0.2, 0.2], [0.3, -0.1], [0.0, 0.0],
                                                                             [-0.3, 0.25]]))):
        drifted = true @ np.linalg.inv(moved_by(move))
        (refined,), last = refiner(scene.image, [drifted])
        pitch = np.linalg.norm(project(true, [(1, 0)]) - project(true, [(0, 0)]))  # one cell, px
        before = np.linalg.norm(project(drifted, OUTER) - project(true, OUTER), axis=1).max() / pitch
        after = np.linalg.norm(project(refined, OUTER) - project(true, OUTER), axis=1).max() / pitch
        assert after < before / 5, (before, after)
        assert last[0] < 0.15


class _SaysAlways:
    """A stand-in for the refiner's network: the same corner moves for every canvas."""

    def __init__(self, moves):
        self.moves = np.asarray(moves, np.float32).reshape(1, 8)

    def __call__(self, blob):
        return np.repeat(self.moves, len(blob), 0)


def _refiner_saying(moves):
    from ecoscore.vision.lattice_refiner import LatticeRefiner

    refiner = LatticeRefiner.__new__(LatticeRefiner)
    refiner.network = _SaysAlways(moves)
    refiner.view = FINE
    return refiner


def test_a_lattice_the_refiner_keeps_moving_or_moves_past_what_it_learnt_is_returned_as_given():
    H = a_slanted_lattice()
    image = photo_of(H)
    small = np.full((4, 2), 0.05)
    (settled,), last = _refiner_saying(small)(image, [H])
    np.testing.assert_allclose(project(settled, OUTER), project(H @ moved_by(small) @ moved_by(small), OUTER))
    assert last[0] == pytest.approx(np.linalg.norm([0.05, 0.05]))
    # Two runs of 0.5 a corner: past the 0.8 of a cell it was trained on, so no lattice it vouches for.
    (kept,), last = _refiner_saying(np.full((4, 2), 0.5))(image, [H])
    assert kept is not None and np.array_equal(kept, H) and last[0] == np.inf
    # A grid seen so low that its canvas's far margin lies past the horizon: nothing to show the refiner.
    low = np.array([[100.0, 0, 100], [0, 100, 100], [0, -0.23, 1]])  # row 4.35 at the horizon, the grid's 4 before it
    (kept,), last = _refiner_saying(small)(image, [low])
    assert np.array_equal(kept, low) and last[0] == np.inf
    # A lattice still moving at its last run says so; one still at once is not run again.
    (_,), last = _refiner_saying(np.full((4, 2), 0.3))(image, [H], rounds=1)
    assert last[0] == pytest.approx(np.linalg.norm([0.3, 0.3]))
    (once,), last = _refiner_saying(small)(image, [H], still=0.1)
    np.testing.assert_allclose(project(once, OUTER), project(H @ moved_by(small), OUTER))


def test_the_reader_cuts_on_a_settled_lattice_and_on_the_boxes_own_where_it_is_not():
    """Through ``Reader.cut_on_the_lattice``: a refined lattice that settles cuts an unboxed cell
    at its cell; one that does not leaves the cells as the boxes' lattice cuts them."""
    from types import SimpleNamespace

    from ecoscore.vision.pipeline import Reader

    H = a_slanted_lattice()
    image = photo_of(H)

    def a_fit() -> TableauFit:
        cells = {(r, c): CellFit(cell_quad(H, r, c, CARD), r * COLS + c, True) for r in range(ROWS) for c in range(COLS)}
        cells[(2, 2)] = CellFit(cell_quad(H, 2, 2, CARD) + 25.0, None, True)  # no card boxed: cut off its card
        return TableauFit(cells, 0.02, ambiguous_window=False)

    photo = SimpleNamespace(image=image)
    reader = Reader.__new__(Reader)
    reader.second_look = True
    reader.lattice_refiner = _refiner_saying(np.zeros((4, 2)))
    fit = a_fit()
    reader.cut_on_the_lattice(photo, [fit])
    assert np.abs(fit.cells[(2, 2)].quad - cell_quad(H, 2, 2, CARD)).max() < 4.0  # at its card (the half measured)
    reader.lattice_refiner = _refiner_saying(np.full((4, 2), 0.5))  # past what it learnt: not settled
    fit = a_fit()
    reader.cut_on_the_lattice(photo, [fit])
    np.testing.assert_allclose(fit.cells[(2, 2)].quad, cell_quad(H, 2, 2, CARD) + 25.0)


class _SaysInTurn:
    """A stand-in network answering each call with the next of ``moves`` (the same for every canvas of the call)."""

    def __init__(self, *moves):
        self.moves = [np.asarray(m, np.float32).reshape(1, 8) for m in moves]

    def __call__(self, blob):
        return np.repeat(self.moves.pop(0), len(blob), 0)


def _two_stage(fine_says: list, wide_says: list):
    from ecoscore.vision.lattice_refiner import WIDE, LatticeRefiner, WideThenFine

    fine, wide = LatticeRefiner.__new__(LatticeRefiner), LatticeRefiner.__new__(LatticeRefiner)
    fine.network, fine.view, fine.path = _SaysInTurn(*fine_says), FINE, None
    wide.network, wide.view = _SaysInTurn(*wide_says), WIDE
    return WideThenFine(fine, wide)


def test_the_wide_refiner_moves_a_lattice_a_column_off_only_where_it_then_agrees():
    """The fine refiner's lattice is kept where the wide one would move it less than half a cell;
    where the wide one says a column off, the fine refiner starts again there, and that lattice is
    taken only if it settles and the wide refiner then agrees with it."""
    H = a_slanted_lattice()
    image = photo_of(H)
    still, column = np.zeros((4, 2)), np.tile([1.0, 0.0], (4, 1))
    # The wide refiner agrees: the fine refiner's lattice, as the fine refiner alone gives it.
    (kept,), last = _two_stage([still], [np.full((4, 2), 0.2)])(image, [H], still=0.05)
    np.testing.assert_allclose(kept, H)
    assert last[0] == 0.0
    # A column off, then settled and agreed with: the lattice a column along.
    (moved,), last = _two_stage([still, still], [column, still])(image, [H], still=0.05)
    np.testing.assert_allclose(project(moved, OUTER), project(H, OUTER + [1.0, 0.0]), atol=1e-6)
    assert last[0] == 0.0
    # A column off, but the wide refiner still disagrees after: the fine refiner's own lattice.
    (kept,), last = _two_stage([still, still], [column, column])(image, [H], still=0.05)
    np.testing.assert_allclose(kept, H)
    # A column off, but the fine refiner does not settle there (it had settled where it was).
    (kept,), last = _two_stage([still, np.full((4, 2), 0.3), np.full((4, 2), 0.3)], [column, still])(image, [H], still=0.05)
    np.testing.assert_allclose(kept, H)
    assert last[0] == 0.0


@needs_models
def test_the_shipped_refiners_bring_a_lattice_a_row_or_column_off_back_onto_a_rendered_tableau():
    """A rendered photo of a held-out deck laid edge to edge, its true lattice a whole column or
    row off (or one side a column out), as a lattice fitted on the art's own patches is: the fine
    refiner alone settles off the grid or gives up, the shipped pair brings it back onto it."""
    from ecoscore.datasets.deckgen import HELD_OUT_SEEDS, generate_deck
    from ecoscore.datasets.scene import SceneParams, render_scene
    from ecoscore.vision.lattice_refiner import WideThenFine, shipped_refiner
    from ecoscore.vision.train_lattice import true_lattice

    deck = generate_deck(HELD_OUT_SEEDS[72], "texture")
    scene = render_scene(deck, 11, SceneParams(long_side=1200, p_touching=1.0, p_hole=0.0, p_multi=0.0, p_cut_off=0.0))
    true = true_lattice(scene.truth["tableaux"][0])
    assert true is not None
    refiner = shipped_refiner()
    assert isinstance(refiner, WideThenFine)
    pitch = np.linalg.norm(project(true, [(1, 0)]) - project(true, [(0, 0)]))  # one cell, px
    for off in ([[1.0, 0.0]] * 4, [[0.0, -1.0]] * 4, [[0, 0], [1.0, 0.0], [1.0, 0.0], [0, 0]]):
        shown = true @ np.linalg.inv(moved_by(np.array(off) + 0.1))
        (refined,), last = refiner(scene.image, [shown], still=0.05)
        after = np.linalg.norm(project(refined, OUTER) - project(true, OUTER), axis=1).max() / pitch
        assert after < 0.2 and last[0] <= 0.15, (off, after, last)


def test_a_lattice_the_fine_refiner_leaves_unsettled_is_tried_from_where_the_wide_one_says():
    """Half-way back from a column too many the fine refiner stalls (still moving 0.28 of a cell);
    the wide refiner's lattice is taken though it would move it less than half a cell, where the
    fine refiner settles there."""
    H = a_slanted_lattice()
    image = photo_of(H)
    still, stalls, nudge = np.zeros((4, 2)), np.full((4, 2), 0.2), np.full((4, 2), 0.2)
    (moved,), last = _two_stage([stalls, stalls, still], [nudge, still])(image, [H], still=0.05)
    expected = H @ moved_by(stalls) @ moved_by(stalls) @ moved_by(nudge)
    np.testing.assert_allclose(project(moved, OUTER), project(expected, OUTER), atol=1e-6)
    assert last[0] == 0.0


@pytest.mark.parametrize("name", ["lattice", "lattice-wide"])
def test_the_shipped_lattice_refiners_are_what_their_recipes_train(name):
    """Each shipped refiner's sidecar names the recipe that trains it (fields added since hold
    their defaults: what it was trained with), and the view the runtime shows it is that recipe's."""
    import json
    from dataclasses import asdict, fields

    from ecoscore.paths import models_dir
    from ecoscore.vision.lattice_refiner import view_of
    from ecoscore.vision.train_lattice import RECIPES, LatticeRecipe

    shipped = json.loads((models_dir() / f"{name}.json").read_text())
    recipe = RECIPES[shipped["recipe"]["name"]]
    assert recipe.name == name
    wanted = json.loads(json.dumps(asdict(recipe)))  # tuples as JSON has them
    defaults = {f.name: f.default for f in fields(LatticeRecipe)}
    assert {k: v for k, v in wanted.items() if k in shipped["recipe"]} == shipped["recipe"]
    assert all(wanted[k] == defaults[k] for k in wanted.keys() - shipped["recipe"].keys())
    assert view_of(models_dir() / f"{name}.onnx") == recipe.view
    assert shipped["canvas"] == list(recipe.view.canvas)


def test_a_whole_cell_move_shifts_the_lattice_or_one_side_of_it_by_one_cell_along_one_axis():
    from ecoscore.vision.train_lattice import whole_cell_move

    rng = np.random.default_rng(0)
    kinds = set()
    for _ in range(200):
        move = whole_cell_move(rng)
        moved = np.abs(move) == 1.0
        assert np.all(moved | (move == 0))
        axis = int(np.flatnonzero(moved.any(0))[0])
        assert not moved[:, 1 - axis].any()  # one axis only
        corners = tuple(np.flatnonzero(moved[:, axis]))
        # All four (the lattice a row or column off), or one side's two: a grid a cell wider or narrower.
        assert corners in {(0, 1, 2, 3), (0, 3), (1, 2), (0, 1), (2, 3)}
        # A side moves only along the axis across it: left and right sides in x, top and bottom in y.
        assert len(corners) == 4 or (axis == 0) == (corners in {(0, 3), (1, 2)})
        kinds.add((axis, corners))
    assert len(kinds) == 6


def test_the_wide_refiners_lattice_is_not_taken_where_the_boxed_cards_fall_between_its_cells():
    """A lattice the wide refiner moves half a column puts the boxed cards on the lines between
    its cells: not taken, though both refiners settle there; a whole column along keeps them on
    their cells' middles, and is."""
    from ecoscore.vision.lattice_refiner import off_centre

    H = a_slanted_lattice()
    image = photo_of(H)
    cards = [project(H, np.array([(c + 0.5, r + 0.5) for r in range(ROWS) for c in range(COLS)]))]
    assert off_centre(H, cards[0]) == pytest.approx(0.0, abs=1e-9)
    still = np.zeros((4, 2))
    half, whole = np.tile([0.6, 0.0], (4, 1)), np.tile([1.0, 0.0], (4, 1))
    (kept,), _ = _two_stage([still, still], [half, still])(image, [H], still=0.05, cards=cards)
    np.testing.assert_allclose(kept, H)
    assert off_centre(H @ moved_by(half), cards[0]) == pytest.approx(0.4, abs=1e-6)
    (moved,), _ = _two_stage([still, still], [whole, still])(image, [H], still=0.05, cards=cards)
    np.testing.assert_allclose(project(moved, OUTER), project(H, OUTER + [1.0, 0.0]), atol=1e-6)
