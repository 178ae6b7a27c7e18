"""Write rendered scenes as training data: Ultralytics OBB labels for the card finder, and
straightened cell crops (11 types + empty, at every quarter turn) for the card classifier."""
from __future__ import annotations

import cv2
import numpy as np

from ecoscore.geometry import CROP_SIZE, warp_quad
from ecoscore.truthfile import Truth
from ecoscore.vision.crops import colour_normalised
from ecoscore.vision.models import EMPTY

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


def cell_crops(image: np.ndarray, truth: Truth, rng: np.random.Generator, jitter: float = 0.04,
               size: int = CROP_SIZE, normalise: bool = False):
    """(crop, class name) for each cell of each tableau that lies fully in the frame.

    Quads are perturbed the way the lattice fit and the finder err (corner noise, a cell a
    little larger than the card), and turned a random quarter, as a tableau read from any side;
    with ``normalise``, colour-normalised as a classifier trained on them reads (``colour_normalised``).
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
            if normalise:
                crop = colour_normalised(crop)
            out.append((crop, cell["type"] or EMPTY))
    return out
