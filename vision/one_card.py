"""A photo of one card: where the card is in it, for enrolment (a reference) and for a refusal
that says so (a single card's scan sent to be scored was told "3 small cards: come closer").

The finder learned cards as a tableau shows them, a twentieth of the photo or less: a card that
fills the frame is bigger than any it saw (cards 400 px wide in a 1600 px photo were not found
at all, 300 px ones in pieces), so the photo is looked at shrunk into a bigger canvas.
"""
from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from ecoscore.geometry import CARD_ASPECT, Detections, points_in_quads

# The canvas is this many times the photo's size, in turn (a card filling the frame first).
ZOOM_OUTS = (2, 3, 1)
PHOTO_SIZED = 0.8  # a box over this share of the photo, zoomed out, is the photo's own edge
WHOLE_SHARE = 0.6  # a box over this share of an image of a card's proportions, zoomed out: the image is the card
SECOND_CARD, AS_SURE = 0.3, 0.1  # a box this big beside the card (of its area), as sure less this, is a second card
# An image with a card's proportions (88.9 / 63.5 = 1.40, within 4 %) is a scan cut to the card.
SCAN_ASPECT_TOLERANCE = 0.04


class SeveralCards(ValueError):
    """Every look that boxes a card boxes another one alike: which one is meant is a guess."""

    def __init__(self, n: int):
        super().__init__(f"{n} cards")
        self.n = n


def card_shaped(image: np.ndarray) -> bool:
    """Whether the image has a card's proportions (a scan cut to the card's edges)."""
    h, w = image.shape[:2]
    return abs(max(h, w) / min(h, w) / CARD_ASPECT - 1) <= SCAN_ASPECT_TOLERANCE


def quad_area(quad: np.ndarray) -> float:
    """The area of a quadrilateral given by its corners in order."""
    return float(cv2.contourArea(np.asarray(quad, np.float32)))


def _zoomed_out(finder: Callable[[np.ndarray], Detections], imgsz: int, image: np.ndarray,
                zoom: int) -> tuple[Detections, float, tuple[int, int]]:
    """The finder's boxes of ``image`` shrunk into a grey canvas ``zoom`` times its size: the
    boxes in the shrunk image's pixels, the shrink factor, and the shrunk image's height and width."""
    h, w = image.shape[:2]
    k = imgsz / zoom / max(h, w)
    small = cv2.resize(image, None, fx=k, fy=k, interpolation=cv2.INTER_AREA) if k < 1 else image
    k = small.shape[1] / w
    pad_y, pad_x = (zoom - 1) * small.shape[0] // 2, (zoom - 1) * small.shape[1] // 2
    canvas = cv2.copyMakeBorder(small, pad_y, pad_y, pad_x, pad_x, cv2.BORDER_CONSTANT, value=(114, 114, 114))
    return finder(canvas).shifted((-pad_x, -pad_y)), k, small.shape[:2]


def boxed_whole(finder: Callable[[np.ndarray], Detections], imgsz: int, image: np.ndarray) -> bool:
    """Whether the finder, zoomed out, boxes ``image`` itself as a card, sure of it: a scan cut
    to a card's edges (a grey page, noise or a dark photo of a card's proportions is not boxed so)."""
    for zoom in (2, 3):
        det, _, (sh, sw) = _zoomed_out(finder, imgsz, image, zoom)
        area = det.sizes[:, 0] * det.sizes[:, 1]
        if np.any((area >= WHOLE_SHARE * sh * sw) & (area <= 1.2 * sh * sw)):
            return True
    return False


def find_one_card(finder: Callable[[np.ndarray], Detections], imgsz: int, image: np.ndarray) -> np.ndarray | None:
    """The corners of the one card in ``image`` (its pixels), from the first zoom-out
    (``ZOOM_OUTS``) at which ``finder`` (working at ``imgsz``) boxes one card; None: no card at
    any. Raises ``SeveralCards`` where every zoom-out that boxes a card boxes two alike."""
    several = 0
    for zoom in ZOOM_OUTS:
        det, k, (sh, sw) = _zoomed_out(finder, imgsz, image, zoom)
        # A card photographed alone lies whole in the frame: a box the photo's edge cuts is the
        # table (a plank of a wooden table); and zoomed out, the photo's own edges are a
        # rectangle on grey: a box that big is the photo.
        slack = 0.01 * max(sh, sw)
        in_frame = np.all((det.quads >= -slack) & (det.quads <= np.array([sw, sh]) + slack), axis=(1, 2))
        det = det.subset(in_frame & (det.sizes[:, 0] * det.sizes[:, 1] < PHOTO_SIZED * sh * sw))
        if not len(det):
            continue
        area = det.sizes[:, 0] * det.sizes[:, 1]
        best = int(np.argmax(det.scores))
        quad = det.quads[best] / k
        # A second card is a box as sure and nearly as big, not inside the card (its picture
        # boxed in pieces), nor a less sure box on the table (a wooden table's planks: 0.63-0.75
        # where the card was 0.83-0.93).
        inside = points_in_quads(det.centers, det.quads[best][None])[:, 0]
        others = [i for i in range(len(det)) if i != best and area[i] >= SECOND_CARD * area[best] and not inside[i]
                  and det.scores[i] >= det.scores[best] - AS_SURE]
        if not others:
            return quad
        several = len(others) + 1  # maybe a patterned table boxed at this zoom: try the next one
    if several:
        raise SeveralCards(several)
    return None
