"""The quick look: the finder on a small canvas first, kept only when it shows one tableau of big
cards and nothing else (looks.QUICK_SIZE). A scripted finder says which canvas was asked
for; the shipped models show that a kept quick look reads as the first look does."""
import numpy as np
from conftest import grid_matches_truth, needs_models

from ecoscore.scoring import COLS, ROWS
from ecoscore.vision.evaluate import match_read
from ecoscore.vision.looks import QUICK_CARD_PX, QUICK_SIZE
from ecoscore.vision.models import Detections
from ecoscore.vision.pipeline import Reader

PHOTO = (2000, 2000)  # height, width of the scripted photo


def grid(card_short: float, holes: int = 0, extra: list[tuple[float, float]] | None = None) -> Detections:
    """A 5 × 4 grid of upright cards (short side ``card_short`` px in the photo), the last
    ``holes`` cells left empty, plus loose cards at ``extra`` (centres)."""
    long = card_short * 1.4
    centres = [(200 + c * card_short * 1.1, 200 + r * long * 1.1) for r in range(ROWS) for c in range(COLS)]
    centres = centres[: len(centres) - holes] + list(extra or [])
    n = len(centres)
    return Detections(np.array(centres, float), np.tile([long, card_short], (n, 1)), np.full(n, np.pi / 2),
                      np.full(n, 0.9))


class CanvasFinder:
    """Answers the quick look's canvas with ``quick`` and any other with ``first``."""

    imgsz, iou, conf, rect = 512, 0.45, 0.6, True

    def __init__(self, quick: Detections, first: Detections):
        self.quick, self.first, self.sizes = quick, first, []

    def __call__(self, image, size=None):
        self.sizes.append(size or self.imgsz)
        return self.quick if size == QUICK_SIZE else self.first


def locate(finder: CanvasFinder):
    from ecoscore.vision.decode import Photo

    photo = Photo(np.zeros((*PHOTO, 3), np.uint8), 1.0, PHOTO[::-1], b"")
    # (A black canvas is a dim photo: the dim look, which has its own tests, would run each look twice.)
    return Reader(finder=finder, classifier=object(), second_look=False, dim_look=False).locate(photo)


# A card QUICK_CARD_PX across at the quick canvas is this many photo pixels across.
BIG = QUICK_CARD_PX * PHOTO[0] / QUICK_SIZE * 1.2
SMALL = QUICK_CARD_PX * PHOTO[0] / QUICK_SIZE * 0.8


def test_one_tableau_of_big_cards_is_read_from_the_quick_look_alone():
    finder = CanvasFinder(grid(BIG), grid(BIG))
    det, fits, loose = locate(finder)
    assert finder.sizes == [QUICK_SIZE]
    assert len(fits) == 1 and len(fits[0].detections) == ROWS * COLS and not loose
    assert not fits[0].small_canvas


def test_a_grid_only_the_quick_look_fits_is_taken_and_marked_a_guess():
    # Small cards send the photo to the first look, which boxes 3 of them: no grid there. The
    # quick look's grid is read rather than the photo refused, marked as found on the small canvas.
    finder = CanvasFinder(grid(SMALL), grid(SMALL).subset(np.arange(3)))
    det, fits, loose = locate(finder)
    assert finder.sizes[0] == QUICK_SIZE and any(size != QUICK_SIZE for size in finder.sizes[1:])
    assert len(fits) == 1 and len(fits[0].detections) == ROWS * COLS and fits[0].small_canvas
    assert len(det) == ROWS * COLS


def test_the_first_look_s_grid_wins_over_the_quick_look_s():
    finder = CanvasFinder(grid(SMALL), grid(SMALL, holes=2))
    det, fits, loose = locate(finder)
    assert len(fits) == 1 and len(fits[0].detections) == ROWS * COLS - 2 and not fits[0].small_canvas


def test_cells_without_a_card_do_not_stop_the_quick_look():
    # The second look examines them at full size (tests/test_second_look.py).
    finder = CanvasFinder(grid(BIG, holes=2), grid(BIG, holes=2))
    _, fits, _ = locate(finder)
    assert finder.sizes == [QUICK_SIZE] and len(fits[0].detections) == ROWS * COLS - 2


def test_small_cards_or_a_card_beside_the_tableau_take_the_first_look():
    small = CanvasFinder(grid(SMALL), grid(SMALL))
    locate(small)
    assert small.sizes[:2] == [QUICK_SIZE, 512]
    # A card in line with the grid's last column, one step on, beside a grid with an empty cell:
    # maybe the tableau's own, which the first look and the refit of a partial fit should see.
    step = BIG * 1.1
    beside = CanvasFinder(grid(BIG, holes=1, extra=[(200 + 5 * step, 200)]), grid(BIG))
    det, fits, loose = locate(beside)
    assert beside.sizes == [QUICK_SIZE, 512]
    assert len(det) == ROWS * COLS, "the first look's cards are the ones kept"
    nothing = CanvasFinder(grid(BIG).subset(np.arange(3)), grid(BIG))
    locate(nothing)
    assert nothing.sizes == [QUICK_SIZE, 512]


def test_two_tableaux_or_a_group_of_loose_cards_take_the_first_look():
    # The second tableau's cards listed first, so the kept tableau's own cards are not 0..19.
    shift = 1000
    second = grid(BIG)
    two = Detections.concat([second.shifted((shift, 0)), grid(BIG)])
    finder = CanvasFinder(two, two)
    locate(finder)
    assert finder.sizes == [QUICK_SIZE, 512]
    # Five cards side by side well apart from the tableau: a neighbour's tableau cut by the frame.
    row = [(200 + k * BIG * 1.1, 1800) for k in range(5)]
    finder = CanvasFinder(grid(BIG, extra=row), grid(BIG, extra=row))
    locate(finder)
    assert finder.sizes == [QUICK_SIZE, 512]


def test_a_loose_card_beside_a_full_grid_does_not_stop_the_quick_look():
    # Every cell holds a card: the card beside it is no card of the tableau (a card face down).
    step = BIG * 1.1
    finder = CanvasFinder(grid(BIG, extra=[(200 + 5 * step, 200)]), grid(BIG))
    det, fits, loose = locate(finder)
    assert finder.sizes == [QUICK_SIZE]
    assert len(fits[0].detections) == ROWS * COLS and loose == [ROWS * COLS]


def test_a_loose_card_well_apart_from_the_tableau_does_not_stop_the_quick_look():
    # A draw pile or a discarded card at the table's edge, several cards away.
    finder = CanvasFinder(grid(BIG, extra=[(1800, 1800)]), grid(BIG))
    det, fits, loose = locate(finder)
    assert finder.sizes == [QUICK_SIZE]
    assert len(fits[0].detections) == ROWS * COLS and loose == [ROWS * COLS]


@needs_models
def test_a_quick_look_reads_the_rendered_photos_as_the_first_look_does(reader, photo_set):
    slow = Reader(finder=reader.finder, classifier=reader.classifier, quick_look=False)
    quick_taken = 0
    for scene in photo_set:
        fast_read, slow_read = reader.read(scene.jpeg), slow.read(scene.jpeg)
        truth = scene.truth["tableaux"][0]
        for read in (fast_read, slow_read):
            tab = next(t for t in read.tableaux if match_read(t, truth))
            assert grid_matches_truth(tab, truth)
        assert [c.type for t in fast_read.tableaux for c in t.cells] == \
            [c.type for t in slow_read.tableaux for c in t.cells]
        quick = reader.looks.quick(fast_read.photo.image)
        quick_taken += quick is not None and reader.looks.quick_enough(fast_read.photo.image, *quick)
    assert quick_taken >= len(photo_set) // 2, "one-tableau photos from above are what the quick look is for"
