"""The bottom layer's geometry, shared by the vision code, the renderer and the training code.

Coordinate convention (one for the whole project): **image points are (x, y)** in pixels,
x to the right and y down; **lattice points are (col, row)**, the same order as (x, y), so a
homography maps lattice to image as it maps any point; **cells are (row, col)**, as grids are
written (``grid[row][col]``, rows top to bottom). Image sizes are **(width, height)**, and
arrays are indexed ``image[y, x]`` (``image.shape[:2]`` is (height, width)). Quads are 4
corners in the order TL, TR, BR, BL of the card as it lies.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

CROP_SIZE = 64  # side of a straightened cell: the classifier's and the matcher's input
CARD_ASPECT = 88.9 / 63.5  # a card's long side over its short one (a standard card, 63.5 × 88.9 mm)


def project(H: np.ndarray, pts) -> np.ndarray:
    """Points (N × 2, (x, y) or (col, row)) through the homography ``H``."""
    pts = np.asarray(pts, np.float64).reshape(-1, 2)
    q = pts @ H[:, :2].T + H[:, 2]  # [x, y, 1] @ H.T without building the ones column
    return q[:, :2] / q[:, 2:3]


def points_in_quads(points: np.ndarray, quads: np.ndarray) -> np.ndarray:
    """P × M: whether each of ``points`` (P × 2) lies inside each convex quad of ``quads``
    (M × 4 × 2, either winding), edges included."""
    points = np.asarray(points, np.float64).reshape(-1, 2)
    quads = np.asarray(quads, np.float64).reshape(-1, 4, 2)
    edges = np.roll(quads, -1, axis=1) - quads  # M × 4 × 2
    to_point = points[:, None, None, :] - quads[None]  # P × M × 4 × 2
    cross = edges[None, ..., 0] * to_point[..., 1] - edges[None, ..., 1] * to_point[..., 0]
    return np.all(cross >= 0, axis=2) | np.all(cross <= 0, axis=2)


def obb_corners(centers, sizes, angles) -> np.ndarray:
    """Corners of rotated boxes (N × 4 × 2): long axis along ``angles``."""
    c, s = np.cos(angles), np.sin(angles)
    long_axis = np.stack([c, s], -1) * sizes[:, :1] / 2
    short_axis = np.stack([-s, c], -1) * sizes[:, 1:2] / 2
    return np.stack(
        [centers - long_axis - short_axis, centers + long_axis - short_axis,
         centers + long_axis + short_axis, centers - long_axis + short_axis], 1
    )


def long_side_first(xywhr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sizes (long side, short side) and the long side's angle in [0, π) of boxes given as
    x, y, w, h, angle (radians, along w): the one form ``Detections`` keeps."""
    w, h, angle = xywhr[:, 2], xywhr[:, 3], xywhr[:, 4]
    swap = h > w
    sizes = np.stack([np.where(swap, h, w), np.where(swap, w, h)], 1)
    return sizes, np.where(swap, angle + np.pi / 2, angle) % np.pi


def quad_boxes(quads: np.ndarray) -> np.ndarray:
    """xywhr of the rectangle along each quad's long sides (corners 1-2 and 3-0) that holds it."""
    along = (quads[:, 2] - quads[:, 1]) + (quads[:, 3] - quads[:, 0])
    angle = np.arctan2(along[:, 1], along[:, 0])
    axes = np.stack([np.stack([np.cos(angle), np.sin(angle)], -1), np.stack([-np.sin(angle), np.cos(angle)], -1)], 1)
    local = np.einsum("nkd,nad->nka", quads, axes)  # each corner on the long and the short axis
    lo, hi = local.min(1), local.max(1)
    center = np.einsum("na,nad->nd", (lo + hi) / 2, axes)
    return np.concatenate([center, hi - lo, angle[:, None]], 1)


@dataclass(frozen=True)
class Detections:
    """Oriented card boxes in image pixels, never changed in place (``subset``, ``shifted`` and
    ``concat`` make new ones). ``quads``: 4 corners each, computed once from the boxes, or the
    cards' own corners where the finder saw them (``corners``: a card seen at a slant is no
    rectangle); either way clockwise (y down), a box's long side first (``obb_corners``), a card's
    as the finder saw it."""

    centers: np.ndarray  # N × 2, (x, y)
    sizes: np.ndarray  # N × 2: long side, short side
    angles: np.ndarray  # N, radians: direction of the long side
    scores: np.ndarray  # N
    corners: np.ndarray | None = field(default=None, repr=False, compare=False)  # N × 4 × 2, or None: the boxes'
    quads: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        n = len(self.scores)
        if self.centers.shape != (n, 2) or self.sizes.shape != (n, 2) or self.angles.shape != (n,) \
                or self.scores.shape != (n,) or (self.corners is not None and self.corners.shape != (n, 4, 2)):
            raise ValueError(f"Detections: centers {self.centers.shape}, sizes {self.sizes.shape}, angles "
                             f"{self.angles.shape}, scores {self.scores.shape} do not describe one set of boxes")
        quads = obb_corners(self.centers, self.sizes, self.angles) if self.corners is None else self.corners
        object.__setattr__(self, "quads", quads)

    def __len__(self) -> int:
        return len(self.scores)

    def subset(self, keep) -> Detections:
        return Detections(self.centers[keep], self.sizes[keep], self.angles[keep], self.scores[keep],
                          None if self.corners is None else self.corners[keep])

    def shifted(self, offset) -> Detections:
        """The same boxes moved by ``offset`` (x, y): from a window's pixels to the photo's."""
        offset = np.asarray(offset, np.float64)
        return Detections(self.centers + offset, self.sizes, self.angles, self.scores,
                          None if self.corners is None else self.corners + offset)

    @staticmethod
    def empty() -> Detections:
        """No boxes."""
        return Detections(np.zeros((0, 2)), np.zeros((0, 2)), np.zeros(0), np.zeros(0))

    @staticmethod
    def concat(parts: list[Detections]) -> Detections:
        centers, sizes, angles, scores = (np.concatenate([getattr(p, f) for p in parts])
                                          for f in ("centers", "sizes", "angles", "scores"))
        corners = None if all(p.corners is None for p in parts) else np.concatenate([p.quads for p in parts])
        return Detections(centers, sizes, angles, scores, corners)


def warp_quad(image: np.ndarray, quad: np.ndarray, size: int = CROP_SIZE) -> np.ndarray:
    """Warp the quadrilateral ``quad`` (TL, TR, BR, BL, pixels of ``image``) to a size × size
    square. A portrait card is squashed to a square; the classifier is trained the same way."""
    src = np.asarray(quad, np.float32).reshape(4, 2)
    dst = np.array([[0, 0], [size, 0], [size, size], [0, size]], np.float32)
    M = cv2.getPerspectiveTransform(src, dst)
    # INTER_AREA is not supported by warpPerspective; shrink big cells first so the crop
    # averages the card's pixels instead of sampling a few of them (aliasing).
    side = float(max(np.linalg.norm(src[1] - src[0]), np.linalg.norm(src[3] - src[0])))
    if side > 3 * size:
        k = 2 * size / side
        x0, y0 = np.floor(src.min(0)).astype(int)
        x1, y1 = np.ceil(src.max(0)).astype(int) + 1
        x0, y0 = max(x0, 0), max(y0, 0)
        roi = image[y0:max(y0 + 1, y1), x0:max(x0 + 1, x1)]
        small = cv2.resize(roi, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
        src = (src - [x0, y0]) * k
        M = cv2.getPerspectiveTransform(src.astype(np.float32), dst)
        image = small
    return cv2.warpPerspective(image, M, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
