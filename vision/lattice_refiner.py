"""A tableau's 5 × 4 lattice refined as one object: the lattice refiner.

The lattice is fitted on the cards the finder boxed (``lattice.fit_tableaux``). Where few are
boxed, or boxed wrong (busy, hard-edged art laid edge to edge: the finder boxes the art's own
patches), it drifts off the far cells by up to half a card. Edges searched card by card, or a
template of the 20 outlines aligned on the photo's gradients, follow the art's edges as much as
the cards' (the model card's sections on them). The refiner looks at the whole grid at once: the
photo straightened through the lattice (``lattice_canvas``: the 5 × 4 cells and half a cell round
them), it says where the true lattice's four outer corners lie on that canvas. Run at most
twice, the second run on the canvas the first straightened; the last run's move is what is left
to doubt.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from ecoscore.geometry import project
from ecoscore.paths import models_dir
from ecoscore.scoring import COLS, ROWS

from .runtime import Network, image_blob

CELL_PX = 32  # the canvas's pixels per lattice cell
MARGIN = 0.5  # the canvas's margin round the grid, in cells
CANVAS = (int((COLS + 2 * MARGIN) * CELL_PX), int((ROWS + 2 * MARGIN) * CELL_PX))  # (width, height)
# The grid's outer corners in lattice units (col, row), clockwise from the cell (0, 0)'s.
OUTER = np.array([[0, 0], [COLS, 0], [COLS, ROWS], [0, ROWS]], np.float64)
# The refiner was trained on lattices moved up to this far (cells, each outer corner): it says no
# more, and a lattice it moves further in all is not one it can vouch for.
MOST_MOVED = 0.8
_TO_LATTICE = np.array([[1 / CELL_PX, 0, -MARGIN], [0, 1 / CELL_PX, -MARGIN], [0, 0, 1]])  # canvas px -> lattice


def lattice_canvas(image: np.ndarray, H: np.ndarray) -> np.ndarray | None:
    """The photo seen through lattice ``H`` (lattice units -> photo px) on the refiner's canvas;
    None where the canvas reaches past the lattice's horizon (a grid seen so low that its margin
    would map back mirrored). Only the part of the photo under the canvas is taken, and where its
    cells are far bigger than the canvas's it is shrunk first (area-averaged), so that the cards'
    thin edges are not lost between the canvas's samples."""
    to_photo = H @ _TO_LATTICE  # canvas px -> photo px
    w, h = CANVAS
    ends = np.array([(0, 0, 1), (w, 0, 1), (w, h, 1), (0, h, 1)], np.float64) @ to_photo.T
    if not np.all(ends[:, 2] > 0):
        return None
    footprint = ends[:, :2] / ends[:, 2:]  # only the part of the photo under the canvas is taken
    x0, y0 = np.clip(np.floor(footprint.min(0)) - 2, 0, None).astype(int)
    x1, y1 = np.minimum(np.ceil(footprint.max(0)) + 2, [image.shape[1], image.shape[0]]).astype(int)
    if x1 <= x0 or y1 <= y0:
        return None  # the canvas lies wholly off the photo
    image = image[y0:y1, x0:x1]
    to_photo = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64) @ to_photo
    centre = project(H, np.array([[COLS / 2, ROWS / 2], [COLS / 2 + 1, ROWS / 2], [COLS / 2, ROWS / 2 + 1]]))
    across, down = centre[1] - centre[0], centre[2] - centre[0]
    cell_px = float(np.sqrt(abs(across[0] * down[1] - across[1] * down[0])))
    shrink = min(1.0, 1.5 * CELL_PX / max(cell_px, 1e-3))
    if shrink < 0.95:
        image = cv2.resize(image, None, fx=shrink, fy=shrink, interpolation=cv2.INTER_AREA)
        to_photo = np.diag([shrink, shrink, 1.0]) @ to_photo
    return cv2.warpPerspective(image, to_photo, CANVAS, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))


def moved_by(corners: np.ndarray) -> np.ndarray:
    """The lattice map (lattice units -> lattice units) that takes the outer corners where the
    refiner saw them (``OUTER`` + ``corners``, 4 × 2): the refined lattice is ``H @ moved_by(said)``,
    as the refiner was trained on lattices ``true @ inv(moved_by(move))`` to say ``move``."""
    return cv2.getPerspectiveTransform(OUTER.astype(np.float32), (OUTER + corners).astype(np.float32)).astype(np.float64)


class LatticeRefiner:
    """Runs the refiner network (ONNX, torch-free) on lattices: each refined where the photo's
    grid of cards says it lies."""

    def __init__(self, path: Path | None = None, concurrent: int = 1, threads: int | None = None):
        self.path = path or models_dir() / "lattice.onnx"
        self.network = Network(self.path, concurrent, threads)

    def __call__(self, image: np.ndarray, lattices: list[np.ndarray], rounds: int = 2, still: float = 0.0
                 ) -> tuple[list[np.ndarray], np.ndarray]:
        """Each lattice refined (up to ``rounds`` runs), and how far its last run moved its outer
        corners (the largest, in cells): a lattice that still moves is no sure fit. A lattice a
        run moves less than ``still`` is not run again. A lattice the refiner cannot say (its
        canvas across the horizon, its corners not a flat grid's) is returned as given, its
        move infinite."""
        start = [np.asarray(H, np.float64) for H in lattices]
        lattices = list(start)
        last = np.full(len(lattices), np.inf)
        broken = np.zeros(len(lattices), bool)
        for _ in range(rounds):
            todo = [k for k in range(len(lattices)) if last[k] >= still and not broken[k]]
            if not todo:
                break
            canvases = [lattice_canvas(image, lattices[k]) for k in todo]
            shown = [canvas for canvas in canvases if canvas is not None]
            # One batch of the photo's few tableaux, unpadded: ``run_batch`` pads a batch to 8,
            # which made one tableau's run cost eight.
            corners = self.network(image_blob(shown)) if shown else np.zeros((0, 8))
            said = iter(np.clip(corners.reshape(-1, 4, 2).astype(np.float64), -MOST_MOVED, MOST_MOVED))
            for k, canvas in zip(todo, canvases):
                if canvas is None:
                    broken[k] = True
                    continue
                moved = next(said)
                H = lattices[k] @ moved_by(moved)
                if not _flat_grid(H, start[k]):
                    broken[k] = True
                    continue
                lattices[k], last[k] = H, float(np.linalg.norm(moved, axis=1).max())
        lattices = [start[k] if broken[k] else H for k, H in enumerate(lattices)]
        return lattices, np.where(broken, np.inf, last)


def _flat_grid(H: np.ndarray, start: np.ndarray) -> bool:
    """Whether ``H`` is a lattice a flat grid could have, near ``start``: finite, its outer
    corners a convex quadrilateral on the near side of the horizon, none further than
    ``MOST_MOVED`` from where ``start`` has it (in ``start``'s cells)."""
    if not np.isfinite(H).all() or abs(np.linalg.det(H)) < 1e-12:
        return False
    if np.any(np.c_[OUTER, np.ones(4)] @ H[2] <= 0) != np.any(np.c_[OUTER, np.ones(4)] @ start[2] <= 0):
        return False
    corners = project(H, OUTER)
    if not cv2.isContourConvex(corners.astype(np.float32).reshape(-1, 1, 2)):
        return False
    back = project(np.linalg.inv(start), corners)
    return bool(np.isfinite(back).all() and np.linalg.norm(back - OUTER, axis=1).max() <= MOST_MOVED)


@lru_cache(maxsize=4)
def shipped_refiner(concurrent: int = 1, threads: int | None = None) -> LatticeRefiner:
    """The shipped refiner (``models/lattice.onnx``), loaded once per process for each share of
    the cores: every reader of a deck (one per deck read) uses the one network."""
    return LatticeRefiner(concurrent=concurrent, threads=threads)
