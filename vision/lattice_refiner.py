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

A lattice a whole row or column off looks to it like one in place: the wide refiner, the same
network on a wider ``View`` (a cell and a half round the grid), checks it (``WideThenFine``).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from ecoscore.geometry import project
from ecoscore.paths import models_dir
from ecoscore.scoring import COLS, ROWS

from .runtime import Network, image_blob

# The grid's outer corners in lattice units (col, row), clockwise from the cell (0, 0)'s.
OUTER = np.array([[0, 0], [COLS, 0], [COLS, ROWS], [0, ROWS]], np.float64)


@dataclass(frozen=True)
class View:
    """How a refiner sees a lattice: ``cell_px`` canvas pixels a cell, ``margin`` cells round
    the grid, and ``most_moved``: it was trained on lattices moved up to this far (cells, each
    outer corner), says no more, and does not vouch for a lattice it moves further in all."""
    cell_px: int = 32
    margin: float = 0.5
    most_moved: float = 0.8

    @property
    def canvas(self) -> tuple[int, int]:
        """The canvas's (width, height)."""
        return (int(round((COLS + 2 * self.margin) * self.cell_px)), int(round((ROWS + 2 * self.margin) * self.cell_px)))

    def to_lattice(self) -> np.ndarray:
        """Canvas px -> lattice units."""
        return np.array([[1 / self.cell_px, 0, -self.margin], [0, 1 / self.cell_px, -self.margin], [0, 0, 1]])


# The fine refiner's view: the 5 × 4 cells and half a cell round them.
FINE = View()
# The wide refiner's view: a cell and a half round the grid at 24 px a cell, for a lattice a
# whole row or column off (the fine one sees too little round the grid to tell which way).
WIDE = View(cell_px=24, margin=1.5, most_moved=1.8)
CELL_PX, MARGIN, CANVAS, MOST_MOVED = FINE.cell_px, FINE.margin, FINE.canvas, FINE.most_moved


def lattice_canvas(image: np.ndarray, H: np.ndarray, view: View = FINE) -> np.ndarray | None:
    """The photo seen through lattice ``H`` (lattice units -> photo px) on the refiner's canvas;
    None where the canvas reaches past the lattice's horizon (a grid seen so low that its margin
    would map back mirrored). Only the part of the photo under the canvas is taken, and where its
    cells are far bigger than the canvas's it is shrunk first (averaged), so that the cards'
    thin edges are not lost between the canvas's samples."""
    to_photo = H @ view.to_lattice()  # canvas px -> photo px
    w, h = view.canvas
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
    shrink = min(1.0, 1.5 * view.cell_px / max(cell_side(H), 1e-3))
    if shrink < 0.95:
        # An area shrink by any factor cost 1.6 ms a canvas (three a read: 5-7 ms of a 12 MP
        # photo's). By a whole factor OpenCV averages whole blocks instead (up to 1.5 x less
        # shrunk than asked: the warp then samples up to 2.25 pixels a canvas pixel, not 1.5),
        # and down to half size bilinear takes in nearly every pixel; both a quarter of the
        # cost, the canvases within 1-2 grey levels of the area shrink's on average, and the
        # test sets read the same, tableau by tableau (2026-12-07).
        if shrink <= 0.5:
            shrink, resample = 1 / np.floor(1 / shrink), cv2.INTER_AREA
        else:
            resample = cv2.INTER_LINEAR
        image = cv2.resize(image, None, fx=shrink, fy=shrink, interpolation=resample)
        to_photo = np.diag([shrink, shrink, 1.0]) @ to_photo
    return cv2.warpPerspective(image, to_photo, view.canvas, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))


def cell_side(H: np.ndarray) -> float:
    """The side (px, the square root of its area) of lattice ``H``'s cell at the grid's middle."""
    centre = project(H, np.array([[COLS / 2, ROWS / 2], [COLS / 2 + 1, ROWS / 2], [COLS / 2, ROWS / 2 + 1]]))
    across, down = centre[1] - centre[0], centre[2] - centre[0]
    return float(np.sqrt(abs(across[0] * down[1] - across[1] * down[0])))


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
        self.view = view_of(self.path)

    def __call__(self, image: np.ndarray, lattices: list[np.ndarray], rounds: int = 2, still: float = 0.0,
                 cards: list[np.ndarray] | None = None) -> tuple[list[np.ndarray], np.ndarray]:
        """Each lattice refined (up to ``rounds`` runs), and how far its last run moved its outer
        corners (the largest, in cells): a lattice that still moves is no sure fit. A lattice a
        run moves less than ``still`` is not run again. A lattice the refiner cannot say (its
        canvas across the horizon, its corners not a flat grid's) is returned as given, its
        move infinite. ``cards``: each lattice's boxed cards' centres, which it does not need
        (``WideThenFine`` does)."""
        start = [np.asarray(H, np.float64) for H in lattices]
        lattices = list(start)
        last = np.full(len(lattices), np.inf)
        broken = np.zeros(len(lattices), bool)
        for _ in range(rounds):
            todo = [k for k in range(len(lattices)) if last[k] >= still and not broken[k]]
            if not todo:
                break
            canvases = [lattice_canvas(image, lattices[k], self.view) for k in todo]
            shown = [canvas for canvas in canvases if canvas is not None]
            # One batch of the photo's few tableaux, unpadded: ``run_in_turns`` pads a batch to 8,
            # which made one tableau's run cost eight.
            corners = self.network(image_blob(shown)) if shown else np.zeros((0, 8))
            most = self.view.most_moved
            said = iter(np.clip(corners.reshape(-1, 4, 2).astype(np.float64), -most, most))
            for k, canvas in zip(todo, canvases):
                if canvas is None:
                    broken[k] = True
                    continue
                moved = next(said)
                H = lattices[k] @ moved_by(moved)
                if not _flat_grid(H, start[k], most):
                    broken[k] = True
                    continue
                lattices[k], last[k] = H, float(np.linalg.norm(moved, axis=1).max())
        lattices = [start[k] if broken[k] else H for k, H in enumerate(lattices)]
        return lattices, np.where(broken, np.inf, last)


def _flat_grid(H: np.ndarray, start: np.ndarray, most_moved: float = MOST_MOVED) -> bool:
    """Whether ``H`` is a lattice a flat grid could have, near ``start``: finite, its outer
    corners a convex quadrilateral on the near side of the horizon, none further than
    ``most_moved`` from where ``start`` has it (in ``start``'s cells)."""
    if not np.isfinite(H).all() or abs(np.linalg.det(H)) < 1e-12:
        return False
    if np.any(np.c_[OUTER, np.ones(4)] @ H[2] <= 0) != np.any(np.c_[OUTER, np.ones(4)] @ start[2] <= 0):
        return False
    corners = project(H, OUTER)
    if not cv2.isContourConvex(corners.astype(np.float32).reshape(-1, 1, 2)):
        return False
    back = project(np.linalg.inv(start), corners)
    return bool(np.isfinite(back).all() and np.linalg.norm(back - OUTER, axis=1).max() <= most_moved)


def view_of(path: Path) -> View:
    """The view a refiner's network was trained on, from its sidecar (``<name>.json``)."""
    sidecar = json.loads(path.with_suffix(".json").read_text())
    return View(sidecar["cell_px"], sidecar["margin"], sidecar["recipe"]["most_moved"])


# The wide refiner agrees with a lattice it would move less than this (cells, its furthest outer
# corner): a lattice a whole row or column off is moved about one.
WIDE_AGREES = 0.5
# The boxed cards' centres may lie this much further from their cells' middles (cells, median)
# on the wide refiner's lattice than on the fine one's: a tableau cut by the frame, with holes,
# was moved half a column (its cards from 0.05 to 0.34; the mosaic deck's lattices a cell off,
# mended, changed by 0.04 at most).
OFF_CENTRE_SLACK = 0.1
# A lattice the fine refiner moved no more than this on its last run has settled (the reader's
# own gate, ``pipeline.REFINED_SETTLED``, is this).
SETTLED = 0.15


class WideThenFine:
    """The fine refiner, checked by the wide one. The fine refiner sees half a cell round the
    grid: a lattice a whole row or column off (the finder's boxes on the art's own patches, an
    edge column boxed on the table) looks to it like a lattice in place, and it settles there.
    The wide refiner sees a cell and a half round the grid. Where it would move the fine one's
    lattice a cell or so, or where the fine refiner does not settle, the fine refiner starts again
    from where the wide one says, and that lattice is taken if it settles there, the wide
    refiner then agrees with it, and the boxed cards (``cards``: each lattice's, their centres in
    photo px) sit on its cells' middles as well as on the first one's. Called as a
    ``LatticeRefiner`` is."""

    def __init__(self, fine: LatticeRefiner, wide: LatticeRefiner):
        self.fine, self.wide = fine, wide
        self.path = fine.path

    def __call__(self, image: np.ndarray, lattices: list[np.ndarray], rounds: int = 2, still: float = 0.0,
                 cards: list[np.ndarray] | None = None) -> tuple[list[np.ndarray], np.ndarray]:
        refined, last = self.fine(image, lattices, rounds, still)
        said, wide_move = self.wide(image, refined, rounds=1)
        # A lattice the wide refiner would move a cell or so, or one the fine refiner left unsettled
        # (half-way back from a column too many, it stalls), is tried again from where the wide one says.
        off = [k for k, move in enumerate(wide_move) if move < np.inf and (move >= WIDE_AGREES or last[k] > SETTLED)]
        if not off:
            return refined, last
        again, again_last = self.fine(image, [said[k] for k in off], rounds, still)
        _, check = self.wide(image, again, rounds=1)
        for k, H, move, wide_says in zip(off, again, again_last, check):
            # The wide refiner's lattice, where it is no less settled than the fine one's own and
            # the boxed cards sit on its cells as well (a lattice a whole cell along keeps them on
            # their cells' middles; one half a cell along puts them on the lines between).
            sits = cards is None or off_centre(H, cards[k]) <= off_centre(refined[k], cards[k]) + OFF_CENTRE_SLACK
            if wide_says < WIDE_AGREES and move <= max(last[k], SETTLED) and sits:
                refined[k], last[k] = H, move
        return refined, last


@lru_cache(maxsize=4)
def shipped_refiner(concurrent: int = 1, threads: int | None = None, wide: bool = True) -> LatticeRefiner | WideThenFine:
    """The shipped refiner (``models/lattice.onnx``), checked by the wide one (``wide``) where it
    is shipped (``models/lattice-wide.onnx``), loaded once per process for each share of the
    cores: every reader of a deck (one per deck read) uses the one network."""
    fine = LatticeRefiner(concurrent=concurrent, threads=threads)
    path = models_dir() / "lattice-wide.onnx"
    return WideThenFine(fine, LatticeRefiner(path, concurrent, threads)) if wide and path.exists() else fine


def off_centre(H: np.ndarray, cards: np.ndarray) -> float:
    """How far the boxed cards' centres (photo px) lie from the middles of lattice ``H``'s cells:
    the median over the cards of the larger of the two, in cells (0 on their cells' middles, 0.5
    on the lines between cells). A lattice a whole cell along keeps it; one half a cell along does not."""
    if len(cards) == 0:
        return 0.0
    at = project(np.linalg.inv(H), np.asarray(cards, np.float64)) - 0.5
    return float(np.median(np.abs(at - np.round(at)).max(axis=1)))
