"""The pipeline's closer look at groups of small cards, with a scripted finder: which boxes of
the first look it replaces and which of its own it keeps. (The shipped finder's figures are in
bench/bench_models.py.)"""
import numpy as np

from ecoscore.vision.fits import wholly_inside
from ecoscore.vision.models import Detections
from ecoscore.vision.pipeline import Reader


def boxes(*rows) -> Detections:
    """Axis-aligned portrait cards: (cx, cy, width, height, score) each."""
    a = np.array(rows, float)
    return Detections(a[:, :2].copy(), a[:, [3, 2]].copy(), np.full(len(a), np.pi / 2), a[:, 4].copy())


class ScriptedFinder:
    """Answers the whole photo with ``first`` and any smaller window with ``closer`` (in the
    window's own pixels), recording the windows it was shown."""

    imgsz, iou, rect = 512, 0.45, False

    def __init__(self, first: Detections, closer: Detections):
        self.first, self.closer, self.windows, self.sizes = first, closer, [], []

    def __call__(self, image, size=None):
        if image.shape[:2] == (2000, 2000):
            return self.first
        self.windows.append(image.shape[:2])
        self.sizes.append(size)
        return Detections(self.closer.centers.copy(), self.closer.sizes.copy(), self.closer.angles.copy(),
                          self.closer.scores.copy())


def test_wholly_inside_treats_the_photos_own_edge_as_no_cut():
    window, size = (100, 100, 300, 300), (1000, 1000)
    quads = boxes((200, 200, 40, 60, 1), (295, 200, 40, 60, 1), (125, 200, 40, 60, 1)).quads
    assert wholly_inside(quads, window, size).tolist() == [True, False, True]
    # The same card at the photo's left edge, with a window that starts there.
    at_edge = boxes((10, 200, 40, 60, 1)).quads
    assert wholly_inside(at_edge, (0, 100, 300, 300), size).tolist() == [True]
    assert not wholly_inside(at_edge, (5, 100, 300, 300), size).any()


def test_closer_look_replaces_small_cards_and_keeps_a_card_its_window_cuts():
    # Nine small cards (20 px short side at the finder's 512 px input: 78 px here) in a 3 × 3
    # group, and a loose card beside them, just out of the group's reach (2.5 card lengths),
    # whose centre lies in the group's window but whose left part does not.
    small = [(1000 + 90 * i, 1000 + 120 * j, 78, 110, 0.9) for i in range(3) for j in range(3)]
    loose = (720, 1000, 78, 110, 0.95)
    first = boxes(*small, loose)
    # The window: the group's extent plus 2.2 card lengths.
    x0, y0 = np.floor(first.quads[:9].reshape(-1, 2).min(0) - 2.2 * 110).astype(int)
    assert x0 < loose[0] < x0 + 40
    # The closer look sees the small cards better (shifted 3 px), and the part of the loose
    # card inside the window as a card of its own, at the window's edge.
    cut_part = (759 - x0) / 2
    closer = boxes(*[(x - x0 + 3, y - y0, w, h, s) for x, y, w, h, s in small], (cut_part, 1000 - y0, 2 * cut_part, 110, 0.8))
    # (The black canvas is a dim photo: the dim look, which has its own tests, would look twice.)
    reader = Reader(finder=ScriptedFinder(first, closer), classifier=object(), dim_look=False)
    out = reader.find(np.zeros((2000, 2000, 3), np.uint8))  # the scripted first look, then the closer one
    assert len(reader.finder.windows) == 1
    # The window's long side (1,074 px) at 32 px a card of 78 px wants 440 px: the first canvas.
    assert reader.finder.sizes == [512]
    got = sorted(map(tuple, np.round(out.centers).astype(int).tolist()))
    assert got == sorted([(720, 1000)] + [(x + 3, y) for x, y, *_ in small]), (
        "the loose card comes whole from the first look, the small cards from the closer one")


def test_closer_look_magnifies_tiny_cards_on_a_bigger_canvas():
    # A long group (two tableaux side by side make one) of cards 30 px wide: its window,
    # 12 cards of 35 px plus 2.2 card lengths each side (~640 px), at 32 px a card wants a
    # canvas of ~680 px, so the 768 px one.
    tiny = [(600 + 35 * i, 1000, 30, 42, 0.9) for i in range(12)]
    first = boxes(*tiny)
    reader = Reader(finder=ScriptedFinder(first, boxes((0, 0, 1, 1, 0.1))), classifier=object(), dim_look=False)
    reader.find(np.zeros((2000, 2000, 3), np.uint8))
    assert reader.finder.sizes == [768]


def test_a_card_the_closer_look_does_not_box_again_is_kept_from_the_first_look():
    # A dark, blurred group: the closer look boxes only 5 of the 9 small cards the first look
    # found (seen on a hard tuning photo, 35 cards found and 20 left). The other 4 stay.
    small = [(1000 + 90 * i, 1000 + 120 * j, 78, 110, 0.9) for i in range(3) for j in range(3)]
    first = boxes(*small)
    x0, y0 = np.floor(first.quads.reshape(-1, 2).min(0) - 2.2 * 110).astype(int)
    again = small[:5]
    closer = boxes(*[(x - x0 + 3, y - y0, w, h, s) for x, y, w, h, s in again])
    reader = Reader(finder=ScriptedFinder(first, closer), classifier=object(), dim_look=False)
    out = reader.find(np.zeros((2000, 2000, 3), np.uint8))
    got = sorted(map(tuple, np.round(out.centers).astype(int).tolist()))
    assert got == sorted([(x + 3, y) for x, y, *_ in again] + [(x, y) for x, y, *_ in small[5:]])


def test_a_box_the_first_look_drew_round_two_small_cards_gives_way_to_the_closer_looks_two():
    # The first look boxed two small cards side by side as one card (more sure of it than the
    # closer look is of either); the closer look boxes them apart. The two are kept, not the blob.
    small = [(1000 + 90 * i, 1000 + 120 * j, 78, 110, 0.9) for i in range(3) for j in range(3)]
    blob = (1450, 1000, 168, 110, 0.95)  # round two cards at x 1405 and 1495
    first = boxes(*small, blob)
    x0, y0 = np.floor(first.quads[:9].reshape(-1, 2).min(0) - 2.2 * 110).astype(int)
    pair = [(1405, 1000, 78, 110, 0.7), (1495, 1000, 78, 110, 0.7)]
    closer = boxes(*[(x - x0, y - y0, w, h, s) for x, y, w, h, s in small + pair])
    reader = Reader(finder=ScriptedFinder(first, closer), classifier=object(), dim_look=False)
    out = reader.find(np.zeros((2000, 2000, 3), np.uint8))
    got = sorted(map(tuple, np.round(out.centers).astype(int).tolist()))
    assert got == sorted([(x, y) for x, y, *_ in small + pair])
