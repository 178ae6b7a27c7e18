"""What a cell read as empty is compared with (the table round its tableau), and what it is
named when it looks like none of it (vision/empty_cells.py). The whole pipeline on rendered
photos: tests/test_matcher.py::test_cards_whose_art_looks_like_a_table_are_not_taken_for_empty_cells."""
import numpy as np

from ecoscore.scoring import COLS, ROWS
from ecoscore.vision import empty_cells
from ecoscore.vision.lattice import CellFit, TableauFit
from ecoscore.vision.matcher import CardMatcher

NAMES = CardMatcher.names
EMPTY, NOT_OURS = NAMES.index("empty"), NAMES.index("not ours")
PITCH = np.array([70.0, 100.0])  # a cell's width and height in pixels, square on


def grid_at(origin) -> TableauFit:
    """A 5 × 4 grid seen from straight above, its top-left cell's corner at ``origin``."""
    cells = {}
    for r in range(ROWS):
        for c in range(COLS):
            tl = np.asarray(origin, float) + PITCH * (c, r)
            quad = np.array([tl, tl + (PITCH[0], 0), tl + PITCH, tl + (0, PITCH[1])])
            cells[(r, c)] = CellFit(quad, None, True)
    return TableauFit(cells, 0.0, False)


def test_the_table_is_the_ring_of_cells_round_the_grid_in_the_photo_that_hold_no_card():
    image = np.zeros((800, 800, 3), np.uint8)
    ring = empty_cells.table_cells(grid_at((200, 200)), image, np.zeros((0, 2)))
    assert len(ring) == 2 * (COLS + 2) + 2 * ROWS  # all 22 in view
    centres = np.array([quad.mean(0) for quad in ring])
    # one step past the grid on every side, none on it
    assert centres[:, 0].min() < 200 < 200 + COLS * PITCH[0] < centres[:, 0].max()
    assert not ((centres[:, 0] > 200) & (centres[:, 0] < 200 + COLS * PITCH[0])
                & (centres[:, 1] > 200) & (centres[:, 1] < 200 + ROWS * PITCH[1])).any()
    # a card found on one of them (a neighbour's, a loose one) is not the table
    held = empty_cells.table_cells(grid_at((200, 200)), image, centres[:1])
    assert len(held) == len(ring) - 1
    # the grid at the photo's corner: only the ring cells wholly in the photo
    assert len(empty_cells.table_cells(grid_at((1, 1)), image, np.zeros((0, 2)))) == COLS + 1 + ROWS


def test_too_few_table_cells_tell_nothing():
    def embed(crops):
        return np.ones((len(crops), 4)) / 2

    cell = [np.zeros((8, 8, 3), np.uint8)]
    assert empty_cells.unlike_the_table(embed, cell, cell * (empty_cells.MIN_TABLE_CELLS - 1)) is None
    assert empty_cells.unlike_the_table(embed, cell, cell * empty_cells.MIN_TABLE_CELLS).tolist() == [False]


def test_a_cell_unlike_the_table_is_named_its_likeliest_type_always_unsure_and_never_another_games_card():
    probs = np.full(len(NAMES), 0.01, np.float32)
    probs[EMPTY], probs[NAMES.index("trout")], probs[NOT_OURS] = 0.5, 0.3, 0.1
    chosen, confidence = empty_cells.best_but_empty(probs, NAMES)
    assert NAMES[chosen] == "trout" and confidence == np.float32(0.3)
    probs[NOT_OURS] = 0.35  # "not ours" likelier than any type: kept a hole, doubted, not another game's card
    assert empty_cells.best_but_empty(probs, NAMES) == (EMPTY, empty_cells.DOUBTED)
    probs[NOT_OURS], probs[NAMES.index("trout")] = 0.01, empty_cells.MIN_OTHER / 2  # no type has any belief
    assert empty_cells.best_but_empty(probs, NAMES) == (EMPTY, empty_cells.DOUBTED)
    assert "taken for trout" in empty_cells.unlike_table_doubt(0.55, "trout")
    assert "check that no card lies here" in empty_cells.unlike_table_doubt(0.55, None)
