"""Write rendered scenes as training data: Ultralytics OBB or corner (pose) labels for the card
finder, and straightened cell crops (11 types + empty, at every quarter turn) for the card classifier."""
from __future__ import annotations

import cv2
import numpy as np

from ecoscore.geometry import CROP_SIZE, warp_quad
from ecoscore.truthfile import Truth
from ecoscore.vision.crops import colour_normalised
from ecoscore.vision.models import EMPTY

from .effects import cover_part

MIN_VISIBLE = 0.5  # a card cut by the frame is labelled if at least half of it shows


def card_quads(truth: Truth) -> list[np.ndarray]:
    """Every card in a scene, in the tableaux and loose (face up or down): the finder's targets."""
    quads = [np.array(cell["corners"]) for tab in truth["tableaux"] for cell in tab["cells"] if cell["corners"]]
    quads += [np.array(card["corners"]) for card in truth["loose_cards"]]
    return quads


def visible_part(quad: np.ndarray, w: int, h: int) -> tuple[float, np.ndarray | None]:
    """Share of a card's area inside the ``w`` × ``h`` frame, and that visible polygon."""
    quad = quad.astype(np.float32)
    area = abs(cv2.contourArea(quad))
    visible, clipped = cv2.intersectConvexConvex(quad, np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32))
    return (visible / area if area > 0 else 0.0), (None if clipped is None else clipped.reshape(-1, 2))


def obb_label_lines(truth: Truth) -> list[str]:
    """Lines of an Ultralytics OBB label file: ``0 x1 y1 ... x4 y4``, normalised."""
    w, h = truth["width"], truth["height"]
    lines = []
    for quad in card_quads(truth):
        quad = quad.astype(np.float32)
        inside = np.all((quad >= 0) & (quad <= [w, h]))
        if not inside:
            share, clipped = visible_part(quad, w, h)
            if share < MIN_VISIBLE or clipped is None:
                continue
            quad = cv2.boxPoints(cv2.minAreaRect(clipped))
            quad = np.clip(quad, 0, [w, h])
        norm = quad / [w, h]
        lines.append("0 " + " ".join(f"{v:.6f}" for v in norm.reshape(-1)))
    return lines


# A corner finder's keypoints: the card's four corners, clockwise in the image, the first two
# ends of a short side. Which short side comes first is not knowable for art the finder never
# saw, so training takes whichever of the two orders lies nearer (vision.train); a mirrored
# photo keeps the order clockwise by swapping within each short side.
CORNER_FLIP = [1, 0, 3, 2]


def clockwise(quad: np.ndarray) -> np.ndarray:
    """``quad`` (short side first) in clockwise image order (y down), still short side first."""
    x, y = quad[:, 0], quad[:, 1]
    area = float(np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y))  # > 0: clockwise with y down
    return quad if area >= 0 else quad[[1, 0, 3, 2]]


def pose_label_lines(truth: Truth) -> list[str]:
    """Lines of an Ultralytics pose label file: ``0 cx cy w h`` (the box of the card's part in
    the frame) then ``x y v`` for each corner (``clockwise``), normalised; a corner outside the
    frame is ``0 0 0`` (unseen). Cards with under half their area in the frame are left out."""
    w, h = truth["width"], truth["height"]
    lines = []
    for quad in card_quads(truth):
        quad = clockwise(quad.astype(np.float64))
        share, clipped = visible_part(quad, w, h)
        if share < MIN_VISIBLE or clipped is None:
            continue
        (x0, y0), (x1, y1) = np.clip(clipped.min(0), 0, [w, h]), np.clip(clipped.max(0), 0, [w, h])
        values = [(x0 + x1) / 2 / w, (y0 + y1) / 2 / h, (x1 - x0) / w, (y1 - y0) / h]
        for x, y in quad:
            inside = 0 <= x <= w and 0 <= y <= h
            values += [x / w, y / h, 2.0] if inside else [0.0, 0.0, 0.0]
        lines.append("0 " + " ".join(f"{v:.6f}" for v in values))
    return lines


def cell_crops(image: np.ndarray, truth: Truth, rng: np.random.Generator, jitter: float = 0.04,
               size: int = CROP_SIZE, normalise: bool = False, p_cover: float = 0.0):
    """(crop, class name) for each cell of each tableau that lies fully in the frame.

    Quads are perturbed the way the lattice fit and the finder err (corner noise, a cell a
    little larger than the card), and turned a random quarter, as a tableau read from any side;
    with ``normalise``, colour-normalised as a classifier trained on them reads (``colour_normalised``);
    a share ``p_cover`` of them partly covered (``effects.cover_part``), labelled with the card beneath.
    """
    h, w = image.shape[:2]
    out = []
    for tab in truth["tableaux"]:
        for cell in tab["cells"]:
            quad = np.array(cell["corners"] or cell["cell_corners"], np.float64)
            if np.any(quad < 0) or np.any(quad > [w - 1, h - 1]):
                continue
            side = np.linalg.norm(quad[1] - quad[0])
            center = quad.mean(0)
            quad = center + (quad - center) * rng.uniform(0.98, 1.12)
            quad += rng.normal(0, jitter * side, quad.shape)
            crop = warp_quad(image, quad, size)
            crop = np.ascontiguousarray(np.rot90(crop, int(rng.integers(4))))
            if p_cover and rng.random() < p_cover:
                crop = cover_part(crop, rng)
            if normalise:
                crop = colour_normalised(crop)
            out.append((crop, cell["type"] or EMPTY))
    return out
