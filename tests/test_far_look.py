"""The closer look round small loose cards (``CardLooks.at_far_cards``), with a scripted
finder: a near tableau of big cards and a far one of small cards lying in one group with it.
The first look boxes a few far cards, some badly; a window round them shows every far card."""
from unittest import mock

import numpy as np

from ecoscore.geometry import points_in_quads
from ecoscore.scoring import COLS, ROWS
from ecoscore.vision.decode import Photo
from ecoscore.vision.looks import CardLooks
from ecoscore.vision.models import Detections
from ecoscore.vision.pipeline import Reader

SIDE = 2000  # the scripted photo's width and height


def boxes(rows: list[tuple[float, float, float, float]]) -> Detections:
    """Upright boxes (centre x, centre y, width, height)."""
    a = np.array(rows, float).reshape(-1, 4)
    sizes = np.stack([a[:, 2:].max(1), a[:, 2:].min(1)], 1)
    return Detections(a[:, :2].copy(), sizes, np.where(a[:, 3] >= a[:, 2], np.pi / 2, 0.0), np.full(len(a), 0.9))


def grid(x0: float, y0: float, w: float, h: float) -> list[tuple[float, float, float, float]]:
    return [(x0 + c * w * 1.15, y0 + r * h * 1.15, w, h) for r in range(ROWS) for c in range(COLS)]


NEAR = grid(500, 1000, 150, 210)  # 38 px across at the finder's 512 px input
FAR = grid(640, 560, 60, 84)  # 15 px: far, and within reach of the near cards


class WindowFinder:
    """Answers the whole photo with the near cards and ``first_far``, and a window (its origin
    told by ``origin``) with every far card inside it, in the window's pixels."""

    imgsz, iou, conf, rect = 512, 0.45, 0.6, True

    def __init__(self, first_far):
        self.first, self.every, self.origin = boxes(NEAR + first_far), boxes(NEAR + FAR), (0, 0)

    def __call__(self, image, size=None):
        if image.shape[:2] == (SIDE, SIDE):
            return self.first
        (x0, y0), (h, w) = self.origin, image.shape[:2]
        c = self.every.centers
        seen = self.every.subset((c[:, 0] > x0) & (c[:, 0] < x0 + w) & (c[:, 1] > y0) & (c[:, 1] < y0 + h))
        return Detections(seen.centers - [x0, y0], seen.sizes, seen.angles, seen.scores)


def locate(first_far):
    finder = WindowFinder(first_far)
    reader = Reader(finder=finder, classifier=object(), second_look=False, table_look=False, quick_look=False)
    closer = CardLooks.closer

    def told(self, image, det, cards, pad):  # the window's origin, as CardLooks.closer draws it
        room = pad * float(np.median(det.sizes[cards, 0]))
        finder.origin = tuple(np.maximum(np.floor(det.quads[cards].reshape(-1, 2).min(0) - room), 0).astype(int))
        return closer(self, image, det, cards, pad)

    with mock.patch.object(CardLooks, "closer", told):
        return reader.locate(Photo(np.zeros((SIDE, SIDE, 3), np.uint8), 1.0, (SIDE, SIDE), b""))


def test_a_far_tableau_boxed_well_by_the_window_is_fitted_whole():
    det, fits, loose = locate([FAR[0], FAR[1], FAR[7]])
    assert [len(fit.detections) for fit in fits] == [ROWS * COLS, ROWS * COLS] and loose == []
    for fit in fits:  # each card renumbered onto its own cell
        for cell in fit.cells.values():
            assert points_in_quads(det.centers[[cell.detection]], cell.quad[None]).all()


def test_a_poor_first_box_between_two_far_rows_gives_way_and_is_neither_loose_nor_left_out():
    # 34 x 114 px between rows 1 and 2 of the far grid: the closer look boxes both its cards.
    poor = (FAR[6][0], (FAR[6][1] + FAR[11][1]) / 2, 34, 114)
    det, fits, loose = locate([poor, FAR[0], FAR[3]])
    assert [len(fit.detections) for fit in fits] == [ROWS * COLS, ROWS * COLS]
    assert loose == [], "the poor box stood for a card the far grid holds: not a loose card too"
    assert all(fit.off_grid == [] for fit in fits), "nor a card 'left out' of the near grid"
