"""A second look at a tableau, straightened: the finder again where the first look's boxes
served the lattice poorly.

Seen at an angle, a card is a parallelogram and its oriented box a poor rectangle round it; far
cards are small and squashed, and cards of unfamiliar art (near-black stock on a dark cloth,
mosaic faces) are missed where the first look found their neighbours. The lattice fitted to the
cards that were found says where the tableau lies: warping the photo so that the grid stands
upright with all its cells one size shows the finder every card alike (``look_again``), and each
card found there is mapped back with its own four corners. A group of cards that no lattice
fitted is straightened on its outline instead, and the lattice is fitted on that canvas
(``fit_outline``). What the reader does with what is found: ``TableauRefitter.look_again`` and
``TableauRefitter.fit_outlines`` (refit.py).
"""
from __future__ import annotations

import cv2
import numpy as np

from ecoscore.geometry import Detections, points_in_quads, project
from ecoscore.scoring import COLS, ROWS

from .lattice import TableauFit, fit_tableaux, mostly_inside
from .models import CardFinder

# A card seen again must cover its cell about as the grid has it (intersection over union):
# a box round part of a card (a mosaic's facet) or round two is no better corners for it.
MIN_OVERLAP = 0.4
# Cells of photo kept round the grid on the straightened canvas: room for a card laid off its
# place, and context like the first look's. This puts a card at ~55 px across on a canvas of
# the finder's own size (512), ~41 on the reader's (refit.SECOND_LOOK_SIZE).
MARGIN = 1.0


def missing_cells(fit: TableauFit) -> list[tuple[int, int]]:
    """Cells (row, col) inside the photo where no card was found."""
    return [rc for rc, cell in fit.cells.items() if cell.detection is None and cell.inside]


def straighten(fit: TableauFit, long_side: int, margin: float = MARGIN) -> tuple[np.ndarray, tuple[int, int]]:
    """The homography from photo pixels to a canvas on which the fit's grid stands upright,
    every cell one size, ``margin`` cells of photo round it; and the canvas's (width, height).

    The cells' aspect is their mean aspect in the photo (the pitch along rows over the pitch
    along columns, measured between cell centres), so the canvas undoes the perspective's
    change of scale across the grid but keeps the photo's mean foreshortening, which the finder
    was trained on."""
    centres = {rc: cell.quad.mean(0) for rc, cell in fit.cells.items()}
    along_row = np.median([np.linalg.norm(centres[(r, c + 1)] - centres[(r, c)])
                           for r in range(ROWS) for c in range(COLS - 1)])
    along_col = np.median([np.linalg.norm(centres[(r + 1, c)] - centres[(r, c)])
                           for r in range(ROWS - 1) for c in range(COLS)])
    aspect = along_col / max(along_row, 1e-6)
    pitch = long_side / max(COLS + 2 * margin, (ROWS + 2 * margin) * aspect)
    px, py = pitch, pitch * aspect
    src = np.array([centres[(r, c)] for r in range(ROWS) for c in range(COLS)], np.float64)
    dst = np.array([((margin + c + 0.5) * px, (margin + r + 0.5) * py) for r in range(ROWS) for c in range(COLS)])
    H, _ = cv2.findHomography(src, dst)  # least squares over all 20 cells
    size = (int(round((COLS + 2 * margin) * px)), int(round((ROWS + 2 * margin) * py)))
    return H, size


def from_quads(quads: np.ndarray, scores: np.ndarray, corners: bool = False) -> Detections:
    """Oriented boxes (the smallest rectangle round each quad) for quads mapped back to the photo;
    with ``corners``, the quads kept as the cards' corners (a corner finder's, not a box's)."""
    centers, sizes, angles = [], [], []
    for quad in quads:
        (cx, cy), (w, h), degrees = cv2.minAreaRect(quad.astype(np.float32))
        long_side_first = w >= h
        centers.append((cx, cy))
        sizes.append((max(w, h), min(w, h)))
        angles.append(np.radians(degrees if long_side_first else degrees + 90))
    return Detections(np.array(centers, np.float64).reshape(-1, 2), np.array(sizes, np.float64).reshape(-1, 2),
                      np.array(angles, np.float64), np.asarray(scores, np.float64),
                      np.asarray(quads, np.float64).reshape(-1, 4, 2) if corners else None)


def oblique(fit: TableauFit) -> float:
    """How far from square the grid's cells look, in degrees (the largest corner angle's
    departure from 90° over the cells): ~0 from above, tens of degrees across the table."""
    quads = np.array([cell.quad for cell in fit.cells.values()], np.float64)  # (cells, 4, 2)
    # At each corner, the sides to the next corner and to the one before (all at once: a loop
    # over the 80 corners in Python took a millisecond of a 60 ms read).
    a, b = np.roll(quads, -1, axis=1) - quads, np.roll(quads, 1, axis=1) - quads
    cos = (a * b).sum(-1) / np.maximum(np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1), 1e-9)
    return float(np.abs(90 - np.degrees(np.arccos(np.clip(cos, -1, 1)))).max(initial=0.0))


def ordered_like(quad: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """``quad``'s corners in the order of ``reference``'s (the cyclic turn nearest it)."""
    turns = [np.roll(quad, -k, axis=0) for k in range(4)]
    return min(turns, key=lambda q: float(np.linalg.norm(q - reference, axis=1).sum()))


def look_again(finder: CardFinder, image: np.ndarray, fit: TableauFit, size: int | None = None
               ) -> dict[tuple[int, int], tuple[np.ndarray, float]]:
    """Cards the finder sees on the straightened tableau, by the cell (row, col) they lie in:
    each card's four corners mapped back to the photo (a true quadrilateral under perspective,
    where a first-look box is only a rectangle), in the cell's corner order, and its score."""
    side = finder.canvas_side(size)  # straightened to the canvas the finder will run on
    H, (w, h) = straighten(fit, side)
    canvas = cv2.warpPerspective(image, H, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    seen = finder(canvas, side)
    px, py = w / (COLS + 2 * MARGIN), h / (ROWS + 2 * MARGIN)
    back = project(np.linalg.inv(H), seen.quads.reshape(-1, 2)).reshape(-1, 4, 2)
    found: dict[tuple[int, int], tuple[np.ndarray, float]] = {}
    for k in np.argsort(-seen.scores):
        x, y = seen.centers[k]
        c, r = int(np.floor(x / px - MARGIN)), int(np.floor(y / py - MARGIN))
        if not (0 <= r < ROWS and 0 <= c < COLS) or (r, c) in found:
            continue
        cell = fit.cells[(r, c)].quad
        if overlap(back[k], cell) < MIN_OVERLAP:
            continue
        found[(r, c)] = (ordered_like(back[k], cell), float(seen.scores[k]))
    return found


def overlap(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over union of two convex quads."""
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    inter, _ = cv2.intersectConvexConvex(a32, b32)
    union = abs(cv2.contourArea(a32)) + abs(cv2.contourArea(b32)) - inter
    return float(inter / union) if union > 0 else 0.0


# The straightened canvas for a group of cards no lattice fitted: its outline's corners go this
# far in from the canvas's edges (a share of its side), so the group's edge cards lie whole on it.
OUTLINE_MARGIN = 0.12
OUTLINE_CARDS = 5  # at least this many loose cards side by side are worth a look


def outline(quads: np.ndarray) -> np.ndarray | None:
    """The four corners (clockwise from the top left, as the photo shows them) of the quadrilateral round a
    group of card boxes: under perspective a tableau's outline is a quadrilateral, whatever its
    cards' boxes look like. None if the hull is not near one."""
    hull = cv2.convexHull(quads.reshape(-1, 1, 2).astype(np.float32))
    perimeter = cv2.arcLength(hull, True)
    for eps in (0.02, 0.04, 0.06, 0.08, 0.1):
        poly = cv2.approxPolyDP(hull, eps * perimeter, True).reshape(-1, 2)
        if len(poly) == 4:
            break
    else:
        return None
    # Clockwise as the photo shows them (y down), from the corner nearest the top left.
    centre = poly.mean(0)
    clockwise = poly[np.argsort(np.arctan2(poly[:, 1] - centre[1], poly[:, 0] - centre[0]))].astype(np.float64)
    corners = np.roll(clockwise, -int(np.argmin(clockwise.sum(1))), axis=0)
    return corners if cv2.isContourConvex(corners.astype(np.float32)) else None


def fit_outline(finder: CardFinder, image: np.ndarray, quads: np.ndarray, offset: int) -> tuple[Detections, list[TableauFit]]:
    """Tableaux in a group of cards that no lattice fitted in the photo (seen steeply and turned,
    a card's box is a rectangle round a parallelogram and says little of where its neighbours
    lie): the group's outline straightened to a square canvas, the finder and the lattice fit
    run there, and each fitted cell's corners mapped back to the photo. Returns the cards found
    (photo pixels) and the fits, whose detections index into them from ``offset`` on (where
    the caller puts them after the photo's own)."""
    corners = outline(quads)
    if corners is None:
        return Detections.empty(), []
    side = finder.imgsz
    canvas, H = onto_square(image, corners, side)
    return fitted_back(finder(canvas), (side, side), H, image, offset)


def onto_square(image: np.ndarray, corners: np.ndarray, side: int) -> tuple[np.ndarray, np.ndarray]:
    """The quadrilateral ``corners`` (photo pixels, clockwise from the top left) straightened onto
    a square canvas ``side`` long, OUTLINE_MARGIN of it in from each edge: (the canvas, the 3 × 3
    photo-to-canvas homography)."""
    m = OUTLINE_MARGIN * side
    square = np.array([[m, m], [side - m, m], [side - m, side - m], [m, side - m]], np.float32)
    H = cv2.getPerspectiveTransform(corners.astype(np.float32), square)
    canvas = cv2.warpPerspective(image, H, (side, side), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return canvas, H


# Cells of photo round the grid when a tableau whose window is a guess is fitted again: room for
# a whole line of cards the first look missed on either side, with some table beyond it (the
# finder was trained on cards with context round them). Not tuned: a line and a half.
WIDER_MARGIN = 1.6


def fit_wider(finder: CardFinder, image: np.ndarray, fit: TableauFit, offset: int) -> tuple[Detections, list[TableauFit]]:
    """A tableau whose 5 × 4 window is a guess (an edge row or column with no card found)
    fitted again on its grid straightened with a line and more of photo round it: far cards
    missed along one edge put the window a line off, and on the straightened canvas, where the
    finder sees every card upright and one size, the line missed is often found, and the
    lattice fit there places the window on all the cards. Returns as ``fit_outline`` does."""
    side = finder.imgsz
    H, size = straighten(fit, side, WIDER_MARGIN)
    if not _usable(H, size):  # a degenerate grid (refitted, never straightened)
        return Detections.empty(), []
    canvas = cv2.warpPerspective(image, H, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return fitted_back(finder(canvas, side), size, H, image, offset)


# The table round a steep photo's tableau, straightened (``fit_table``): this many cells of it
# on each side of the grid, room for a neighbour's tableau behind or beside the player's.
TABLE_MARGIN = 6.0


def fit_table(finder: CardFinder, image: np.ndarray, fit: TableauFit, offset: int, side: int
              ) -> tuple[Detections, list[TableauFit]]:
    """Tableaux on the table round ``fit``, found on the table's plane straightened: the grid's
    homography extended ``TABLE_MARGIN`` cells round it onto a canvas ``side`` long, where every
    card on the table stands upright and about one size, as the finder learnt them. Seen at
    25-30 degrees, a neighbour's tableau behind the player's is a band of slivers the finder boxes
    none of at any magnification; straightened, it boxes them as the player's own. Returns as
    ``fit_outline`` does (the player's own tableau among the fits, fitted again)."""
    H, size = straighten(fit, side, TABLE_MARGIN)
    if not _usable(H, size):
        return Detections.empty(), []
    grid = np.mean([cell.quad.mean(0) for cell in fit.cells.values()], 0)  # on the plane, in front
    H, size = _onto_the_photo(H, size, image.shape[:2], side, grid)
    canvas = cv2.warpPerspective(image, H, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    canvas[~_in_front(H, size, grid)] = 0
    seen = finder(canvas, side)
    cells = project(H, np.array([cell.quad for cell in fit.cells.values()]).reshape(-1, 2)).reshape(-1, 4, 2)
    return fitted_back(seen.subset(_card_sized(seen, cells)), size, H, image, offset)


# On the table's plane straightened every card has one area (the canvas scales the plane's two
# axes, and an area by their product): a box of other area is no card of the game, such as a
# checked cloth's squares or a play mat's frames. Its box, not the card, is what is measured: a
# card turned a quarter has the same box area, one turned partway a bigger one (up to about 1.5
# times at the steep canvases' foreshortening of 0.5-0.6, 1.7 at 0.3), within the bounds.
CARD_AREA = (0.55, 1.8)  # of the grid's own cards' median area on the canvas


def _card_sized(seen: Detections, cells: np.ndarray) -> np.ndarray:
    """Which boxes ``seen`` on the straightened table are the size of the grid's own cards
    (those whose centres lie in the grid's ``cells``, canvas pixels); all if none is there."""
    area = seen.sizes[:, 0] * seen.sizes[:, 1]
    own = points_in_quads(seen.centers, cells).any(1)
    if not own.any():
        return np.ones(len(seen), bool)
    ref = float(np.median(area[own]))
    return (area >= CARD_AREA[0] * ref) & (area <= CARD_AREA[1] * ref)


def _in_front(H: np.ndarray, size: tuple[int, int], grid: np.ndarray) -> np.ndarray:
    """The canvas's pixels on the plane in front of the camera, as the photo point ``grid`` is.
    Beyond the horizon the plane's points lie behind it, and the homography maps them onto the
    photo mirrored."""
    back = np.linalg.inv(H)
    xs, ys = np.meshgrid(np.arange(size[0]), np.arange(size[1]))
    w = back[2, 0] * xs + back[2, 1] * ys + back[2, 2]
    # At the canvas point of photo point p, w has the sign of (H p)'s last coordinate.
    return w * np.sign(H[2] @ np.array([grid[0], grid[1], 1.0])) > 0


MAX_TABLE_ZOOM = 2.5  # the table's part in the photo magnified at most this much (cards ~80 px)


def _onto_the_photo(H: np.ndarray, size: tuple[int, int], shape: tuple[int, int], side: int, grid: np.ndarray
                    ) -> tuple[np.ndarray, tuple[int, int]]:
    """The straightened table cut to the part the photo shows, and magnified to ``side``: most
    of six cells round a steep photo's grid lies out of the frame or behind the camera."""
    k = 0.25  # the footprint is found on a quarter-size mask: a bounding box needs no detail
    small = (max(1, int(size[0] * k)), max(1, int(size[1] * k)))
    Hs = np.diag([k, k, 1.0]) @ H
    seen = cv2.warpPerspective(np.ones(shape, np.uint8), Hs, small, flags=cv2.INTER_NEAREST,
                               borderMode=cv2.BORDER_CONSTANT).astype(bool) & _in_front(Hs, small, grid)
    ys, xs = np.nonzero(seen)
    if len(xs) == 0:
        return H, size
    x0, y0, x1, y1 = xs.min() / k, ys.min() / k, (xs.max() + 1) / k, (ys.max() + 1) / k
    zoom = min(MAX_TABLE_ZOOM, side / max(x1 - x0, y1 - y0))
    shift = np.array([[zoom, 0, -x0 * zoom], [0, zoom, -y0 * zoom], [0, 0, 1.0]])
    return shift @ H, (max(1, int(round((x1 - x0) * zoom))), max(1, int(round((y1 - y0) * zoom))))


def _usable(H: np.ndarray | None, size: tuple[int, int]) -> bool:
    """Whether a straightening can be drawn and undone: finite, invertible, of some size (the
    centres of a grid fitted on a line of cards give a homography of rank one)."""
    return H is not None and bool(np.isfinite(H).all()) and min(size) >= 1 and abs(float(np.linalg.det(H))) > 1e-12


def fitted_back(seen: Detections, size: tuple[int, int], H: np.ndarray, image: np.ndarray, offset: int
                ) -> tuple[Detections, list[TableauFit]]:
    """The lattice fitted to the cards ``seen`` on a canvas of ``size`` made by ``H`` from the
    photo, its cells and cards mapped back to the photo, the fits' detections from ``offset``."""
    fits, _ = fit_tableaux(seen, size)
    if not fits:
        return Detections.empty(), []
    back = np.linalg.inv(H)
    found = from_quads(project(back, seen.quads.reshape(-1, 2)).reshape(-1, 4, 2), seen.scores, seen.corners is not None)
    for tableau in fits:
        tableau.off_grid = [i + offset for i in tableau.off_grid]
        for cell in tableau.cells.values():
            cell.quad = project(back, cell.quad)
            # Judged in the photo: a cell off the straightened canvas (beyond the cards found) may lie
            # well inside the photo, and is read there as the first look's lattice would read it.
            cell.inside = mostly_inside(cell.quad, image.shape[1], image.shape[0])
            cell.detection = None if cell.detection is None else cell.detection + offset
            cell.duplicates = [i + offset for i in cell.duplicates]
            cell.found_twice = [i + offset for i in cell.found_twice]
    return found, fits
