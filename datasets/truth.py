"""Reading truth files back: perfect detections from labelled corners (to test the lattice
fit apart from the finder) and grids as tableaux."""
from __future__ import annotations

import cv2
import numpy as np

from ecoscore.geometry import Detections
from ecoscore.scoring import Tableau, parse_json
from ecoscore.truthfile import Truth, TruthTableau

from .yolo import card_quads


def detections_from_truth(truth: Truth, rng: np.random.Generator | None = None, drop: float = 0.0,
                          jitter: float = 0.0) -> Detections:
    """Oriented boxes of every card in ``truth``; ``drop`` loses some, ``jitter`` (in card
    widths) moves the rest, as an imperfect finder would."""
    rng = rng or np.random.default_rng(0)
    centers, sizes, angles, scores = [], [], [], []
    for quad in card_quads(truth):
        if drop and rng.random() < drop:
            continue
        (cx, cy), (w, h), a = cv2.minAreaRect(quad.astype(np.float32))
        a = np.radians(a)
        if h > w:
            w, h, a = h, w, a + np.pi / 2
        shift = rng.normal(0, jitter * h, 2) if jitter else (0.0, 0.0)
        centers.append((cx + shift[0], cy + shift[1]))
        sizes.append((w, h))
        angles.append(a % np.pi)
        scores.append(rng.uniform(0.6, 0.95))
    return Detections(np.array(centers, float).reshape(-1, 2), np.array(sizes, float).reshape(-1, 2),
                      np.array(angles, float), np.array(scores, float))


def truth_tableau(tab: TruthTableau) -> Tableau:
    return parse_json(tab["grid"], "truth")


def fully_visible(tab: TruthTableau, width: int, height: int) -> bool:
    """Every cell of the tableau lies inside the photo."""
    for cell in tab["cells"]:
        quad = np.array(cell["corners"] or cell["cell_corners"])
        if np.any(quad < 0) or np.any(quad[:, 0] > width - 1) or np.any(quad[:, 1] > height - 1):
            return False
    return True
