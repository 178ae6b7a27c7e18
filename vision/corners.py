"""A card's own four corners from the finder's box: the corner refiner.

The finder boxes a card with a rectangle. Seen at a slant a card is a parallelogram (a
trapezoid, near), and the rectangle round it may lie along either pair of its sides, so the
boxes of neighbouring cards disagree. The refiner looks at each box's surroundings, cut upright
(``box_crops``: the box's long side down the crop, one and a half long sides across), and says
where the card's four corners lie in that crop. Which end of the card is its top does not
matter: the corners are named by where they lie in the crop (top left first, clockwise), so a
card of art it never saw has one answer.
"""
from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from ecoscore.geometry import Detections, long_side_first, quad_boxes
from ecoscore.paths import models_dir

from .runtime import Network, run_in_turns

REFINE_SIZE = 64  # the crop's side, px
SPAN = 1.5  # the crop's side in the box's long sides: the card and a margin round it
MOST_MOVED = 0.5  # a card's corners whose centre lies further off its box's (in its short sides) ...
MOST_GROWN = 1.8  # ... or whose box is this many times bigger or smaller than the finder's: not taken


def crop_transforms(centers: np.ndarray, long_sides: np.ndarray, angles: np.ndarray,
                    size: int = REFINE_SIZE) -> np.ndarray:
    """Affine maps (N × 2 × 3) from image pixels to each box's upright crop: the box's centre
    at the crop's, its long side down the crop (no mirror: clockwise stays clockwise)."""
    scale = size / (SPAN * np.maximum(long_sides, 1e-6))
    down = np.stack([np.cos(angles), np.sin(angles)], -1)  # the long side: the crop's y axis
    across = np.stack([down[:, 1], -down[:, 0]], -1)  # the crop's x axis, the same handedness
    linear = scale[:, None, None] * np.stack([across, down], 1)
    offset = size / 2 - np.einsum("nij,nj->ni", linear, centers)
    return np.concatenate([linear, offset[:, :, None]], 2)


def box_crops(image: np.ndarray, det: Detections, size: int = REFINE_SIZE) -> tuple[np.ndarray, np.ndarray]:
    """Each box's upright crop (N × size × size × 3) and the map from the image to it."""
    maps = crop_transforms(det.centers, det.sizes[:, 0], det.angles, size)
    crops = np.stack([cv2.warpAffine(image, m, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
                      for m in maps]) if len(det) else np.zeros((0, size, size, 3), np.uint8)
    return crops, maps


def to_image(points: np.ndarray, maps: np.ndarray) -> np.ndarray:
    """Crop points (N × K × 2) back through each crop's map to image pixels."""
    linear, offset = maps[:, :, :2], maps[:, :, 2]
    return np.einsum("nij,nkj->nki", np.linalg.inv(linear), points - offset[:, None, :])


class CornerRefiner:
    """Runs the refiner network (ONNX, torch-free) on each box's crop: the cards' own corners."""

    def __init__(self, path: Path | None = None, concurrent: int = 1, threads: int | None = None):
        self.path = path or models_dir() / "corners.onnx"
        self.meta = json.loads(self.path.with_suffix(".json").read_text(encoding="utf-8"))
        self.size = int(self.meta["imgsz"])
        self.network = Network(self.path, concurrent, threads)

    def __call__(self, image: np.ndarray, det: Detections) -> Detections:
        """``det`` boxed again along each card's own long sides, with its corners (a long side
        first, as ``Detections.quads``). A card the frame cuts, or whose corners make no sense
        for its box (moved off it, or of another size: a box round no card), keeps its box."""
        if not len(det):
            return det
        crops, maps = box_crops(image, det, self.size)
        corners = run_in_turns(self.network, crops).reshape(-1, 4, 2) * self.size  # TL, TR, BR, BL in the crop
        quads = to_image(corners.astype(np.float64), maps)  # long sides: 1-2 and 3-0
        boxes = quad_boxes(quads)
        h, w = image.shape[:2]
        area = np.prod(boxes[:, 2:4], axis=1) / np.prod(det.sizes, axis=1)
        kept = (np.any((quads < 0) | (quads > [w, h]), axis=(1, 2))
                | (np.linalg.norm(boxes[:, :2] - det.centers, axis=1) > MOST_MOVED * det.sizes[:, 1])
                | (area < 1 / MOST_GROWN) | (area > MOST_GROWN))
        sizes, angles = long_side_first(boxes)
        keep = kept[:, None]
        return Detections(np.where(keep, det.centers, boxes[:, :2]), np.where(keep, det.sizes, sizes),
                          np.where(kept, det.angles, angles), det.scores,
                          np.where(keep[..., None], det.quads, quads[:, [1, 2, 3, 0]]))  # TR first: down a long side
