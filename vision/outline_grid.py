"""A tableau of cards laid edge to edge, read on its outline.

Where cards touch and their art is busy (a mosaic of hard-edged patches), the finder boxes the
art's patches as cards: boxes straddling two cards, a lattice half a card off, most cells read
in doubt. The tableau's outline against the table is still plain, and a whole tableau of cards
laid edge to edge fills it: its 5 × 4 cells are the outline cut in five and four, where the
lines between cards run along the cuts (two tableaux laid touching, or a plain mat, are not cut).
The reader tries this on a lattice whose cells are mostly in doubt, keeping it only where it
reads better (``Reader._read_on_outlines``), and on a group of loose cards no lattice holds
(``TableauRefitter.fit_outlines``)."""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from ecoscore.geometry import CARD_ASPECT, Detections

from .lattice import COLS, ROWS, TableauFit
from .second_look import OUTLINE_MARGIN, fitted_back, from_quads, onto_square, outline

WORK_SIDE = 400  # the region round the tableau is judged at this size: colours, not detail
OUTLINE_FILL = 0.85  # share of the outline the cards must fill: cards with gaps are the finder's
CELL_FILL = 0.6  # share of a cell that must be card, not table, for it to hold a card
RING = 0.5  # the table's colour is taken from a rim of the region this many cells wide
# The region judged: this many cells round the grid (it may lie on part of the tableau), then
# wider where the patch runs out of it inside the photo.
REACHES = (2.5, 4.5)
# Cells of a patch's side along the photo's edge: a corner grazing it, not a cut (the mask's
# closing draws a corner out along the edge).
EDGE_GRAZE = 0.6
TABLEAU_CELLS = 10  # the patch is at least this many of the grid's cells: a tableau, not a card
# Each way, the 5 × 4 cut's weakest line runs along card borders this much more than the lines
# halfway between (``_layout``); each line is looked for this share of the canvas either side of
# its place (the outline is a few pixels off); a line's strength is this percentile along it of
# the edge across it (a card's border runs its whole length, the art's edges do not).
LINE_CONTRAST = 2.0
LINE_SLACK = 0.03
LINE_RUN = 30
TABLE_SPREAD = 5.0  # a pixel is not table beyond the table's median distance + this many MADs
MIN_DISTANCE = 12.0  # ... and never nearer its colour than this (Lab units): a plain cloth's noise


@dataclass
class CardPatch:
    """The patch of not-table a tableau's cards make, judged on a small copy of the region round it."""

    corners: np.ndarray  # its outline, 4 corners in photo pixels (clockwise from the top left)
    mask: np.ndarray  # uint8, 1 where the region is card (the region's copy's pixels: ``to_photo`` maps them)
    to_photo: np.ndarray  # 3 × 3: the region's pixels to the photo's
    widened: bool = False  # found only in a region wider than the first (it may hold a neighbour too)


def card_region(image: np.ndarray, cells: np.ndarray, boxes: bool = False) -> CardPatch | None:
    """The patch of not-table round ``cells`` (quads, (N, 4, 2): a lattice's cells, or with
    ``boxes`` a group of the finder's boxes, which on busy art are a third of a card) and its
    outline; None where it is no quadrilateral filled with cards. The region judged is widened
    where the patch runs out of it inside the photo: a lattice half a tableau off leaves part of
    the tableau beyond its reach."""
    cells = np.asarray(cells, np.float64)
    pitch = float(np.median(np.linalg.norm(cells[:, 1] - cells[:, 0], axis=1)))
    cell_area = float(np.median([cv2.contourArea(quad.astype(np.float32)) for quad in cells]))
    if boxes:
        # The group's hull holds at most a tableau: a card is at least a 20th of it (the reach,
        # the graze and "a tableau, not a card" are in cards, not in the art's patches).
        hull = cv2.contourArea(cv2.convexHull(cells.reshape(-1, 2).astype(np.float32)))
        cell_area = max(cell_area, hull / (ROWS * COLS))
        pitch = max(pitch, float(np.sqrt(cell_area / CARD_ASPECT)))
    for k, reach in enumerate(REACHES):
        found = _patch_within(image, cells, pitch, cell_area, reach)
        if isinstance(found, CardPatch):
            found.widened = k > 0
        if not isinstance(found, _RunsOut):
            return found
    return None


class _RunsOut:
    """The patch ran out of the region on a side inside the photo: a wider region may hold it."""


def _patch_within(image: np.ndarray, cells: np.ndarray, pitch: float, cell_area: float, reach: float
                  ) -> CardPatch | _RunsOut | None:
    h, w = image.shape[:2]
    lo = np.maximum(np.floor(cells.reshape(-1, 2).min(0) - reach * pitch), 0).astype(int)
    hi = np.minimum(np.ceil(cells.reshape(-1, 2).max(0) + reach * pitch), [w, h]).astype(int)
    if np.any(hi - lo < 8):
        return None
    k = min(1.0, WORK_SIDE / float(max(hi - lo)))
    roi = cv2.resize(image[lo[1]:hi[1], lo[0]:hi[0]], None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(cv2.GaussianBlur(roi, (0, 0), 1.0), cv2.COLOR_BGR2LAB).astype(np.float32)
    in_roi = (cells - lo) * k
    inner = np.zeros(roi.shape[:2], np.uint8)
    cv2.fillConvexPoly(inner, cv2.convexHull(in_roi.reshape(-1, 2).astype(np.float32)).astype(np.int32), 1)
    # The table: the region's rim, off the grid's hull (the grid may lie on part of the tableau
    # only, so nearer the grid than the rim may be cards).
    band = max(3, int(RING * pitch * k))
    ring = np.ones(roi.shape[:2], bool)
    ring[band:-band, band:-band] = False
    ring &= inner == 0
    if ring.sum() < 50:
        return None
    distance = np.linalg.norm(lab - np.median(lab[ring], axis=0), axis=2)
    # Not table: further from its colour than the table's own patterns and light go (Otsu's
    # threshold between two modes went too high where a lamp's pool lay on the cards).
    spread = distance[ring]
    threshold = float(np.median(spread) + TABLE_SPREAD * np.median(np.abs(spread - np.median(spread))))
    mask = (distance > max(threshold, MIN_DISTANCE)).astype(np.uint8)
    close = np.ones((max(1, int(0.15 * pitch * k)),) * 2, np.uint8)  # the art's own table-coloured bits
    mask = cv2.morphologyEx(cv2.morphologyEx(mask, cv2.MORPH_CLOSE, close), cv2.MORPH_OPEN, close)
    count, labels = cv2.connectedComponents(mask)
    if count < 2:
        return None
    # The patch the grid lies on: the one covering most of its cells' hull.
    votes = np.bincount(labels[inner > 0], minlength=count)
    votes[0] = 0
    if votes.max() == 0:  # no card under the grid (label 0 is the table's own)
        return None
    patch = (labels == int(np.argmax(votes))).astype(np.uint8)
    # A patch running out of the region: inside the photo, a wider region may hold it (two
    # tableaux laid touching never end); at the photo's edge, a tableau the frame cuts has no
    # outline of its own (its visible part cut in 5 × 4 would be wrong), unless only a corner
    # grazes the edge.
    sides = ((patch[0], lo[1] == 0), (patch[-1], hi[1] == h), (patch[:, 0], lo[0] == 0), (patch[:, -1], hi[0] == w))
    for touching, at_photo_edge in sides:
        if not touching.any():
            continue
        if not at_photo_edge:
            return _RunsOut()
        if touching.sum() > EDGE_GRAZE * pitch * k:
            return None
    contours, _ = cv2.findContours(patch, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    corners = outline(max(contours, key=cv2.contourArea).reshape(-1, 2).astype(np.float64))
    if corners is None:
        return None
    within = np.zeros_like(patch)
    cv2.fillConvexPoly(within, corners.astype(np.int32), 1)
    held = int((patch & within).sum())
    cell_area = cell_area * k * k
    # The cards fill the outline, the outline holds the patch, and the patch is a tableau's, not
    # one card's (cards laid apart are patches of their own).
    if held < OUTLINE_FILL * within.sum() or held < 0.9 * patch.sum() or held < TABLEAU_CELLS * cell_area:
        return None
    to_photo = np.array([[1 / k, 0, lo[0]], [0, 1 / k, lo[1]], [0, 0, 1]], np.float64)
    return CardPatch(corners / k + lo, patch, to_photo)


def _layout(canvas: np.ndarray, m: float, lines_checked: bool = False) -> tuple[int, int] | None:
    """(across, down): the grid the straightened canvas shows most strongly among 4 and 5 cards
    each way, by the lines between its cards (a line's strength: the mean edge across it inside
    the square [m, side - m]); None unless it is a tableau's 5 × 4, either way round. The outline
    of a 5 × 4 tableau is near square and seen at a slant either way may look the longer; a
    mid-game 4 × 4, or 5 × 5 cards laid edge to edge, must not be cut as 5 × 4.
    ``lines_checked``: and only where every cut runs along card borders (below)."""
    grey = cv2.cvtColor(canvas, cv2.COLOR_BGR2GRAY).astype(np.float32)
    gx, gy = np.abs(cv2.Sobel(grey, cv2.CV_32F, 1, 0)), np.abs(cv2.Sobel(grey, cv2.CV_32F, 0, 1))
    lo, hi = int(m), int(canvas.shape[0] - m)

    def strength(layout: tuple[int, int]) -> float:
        xs = np.linspace(lo, hi, layout[0] + 1)[1:-1].astype(int)
        ys = np.linspace(lo, hi, layout[1] + 1)[1:-1].astype(int)
        return float(np.mean([gx[lo:hi, x - 2:x + 3].max(1).mean() for x in xs]
                             + [gy[y - 2:y + 3, lo:hi].max(0).mean() for y in ys]))

    best = max(((a, d) for a in (ROWS, COLS) for d in (ROWS, COLS)), key=strength)
    if sorted(best) != [ROWS, COLS]:
        return None
    if not lines_checked:
        return best
    # Each way, every line of the cut runs along card borders, and the lines halfway between them
    # cross cards: the outline of two tableaux laid touching (8 x 5, or a tableau and part of a
    # neighbour's) has borders halfway too, or cut lines across cards; cut in 5 x 4 its cells
    # would straddle cards. A plain patch (a placemat) has no borders at all.
    slack = max(1, int(LINE_SLACK * canvas.shape[0]))
    runs = (np.percentile(cv2.dilate(gx, np.ones((1, 3), np.uint8))[lo:hi], LINE_RUN, axis=0),
            np.percentile(cv2.dilate(gy, np.ones((3, 1), np.uint8))[:, lo:hi], LINE_RUN, axis=1))
    for run, n in zip(runs, best):
        at = np.linspace(lo, hi, n + 1)
        def line(v: float) -> float:
            return float(run[max(0, int(v) - slack):int(v) + slack + 1].max())
        cut = min(line(v) for v in at[1:-1])
        halfway = float(np.median([line(v) for v in (at[1:] + at[:-1]) / 2]))
        if not cut > LINE_CONTRAST * halfway:
            return None
    return best


def fit_on_outline(image: np.ndarray, fit: TableauFit | np.ndarray, offset: int, side: int = 512
                   ) -> tuple[Detections, list[TableauFit]]:
    """``fit``'s tableau (a lattice, or the quads of a group of cards no lattice holds) fitted
    again as its outline cut in 5 × 4 (its rows of five the way the lines between cards show;
    none where they show another layout), a card in each cell the cards fill. Returns as
    ``second_look.fit_outline`` does."""
    boxes = not isinstance(fit, TableauFit)
    cells = np.array([cell.quad for cell in fit.cells.values()]) if isinstance(fit, TableauFit) else fit
    patch = card_region(image, cells, boxes)
    if patch is None:
        return Detections.empty(), []
    canvas, H = onto_square(image, patch.corners, side)
    m = OUTLINE_MARGIN * side
    # A loose group's cut is judged by its lines (no read of it before says whether it reads
    # better), and so is a patch found only in a widened region (it may hold a neighbour's
    # tableau laid touching). A lattice's own region's is kept only where it reads better
    # (``Reader._read_on_outlines``): asked for borders too, it lost a blurred tableau whose
    # cards are blocks of colour (tuning: mosaic-7).
    layout = _layout(canvas, m, lines_checked=patch.widened or boxes)
    if layout is None:
        return Detections.empty(), []
    across, down = layout
    filled = cv2.warpPerspective(patch.mask, H @ patch.to_photo, (side, side), flags=cv2.INTER_NEAREST)
    xs, ys = np.linspace(m, side - m, across + 1), np.linspace(m, side - m, down + 1)
    quads, scores = [], []
    for r in range(down):
        for c in range(across):
            x0, x1, y0, y1 = xs[c], xs[c + 1], ys[r], ys[r + 1]
            share = float(filled[int(y0):int(y1), int(x0):int(x1)].mean()) if x1 - x0 >= 1 and y1 - y0 >= 1 else 0.0
            if share >= CELL_FILL:
                quads.append([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
                scores.append(share)  # its "detection" score: how much of the cell is card
    if len(quads) < (ROWS * COLS) // 2:
        return Detections.empty(), []
    seen = from_quads(np.array(quads, np.float64), np.array(scores), corners=True)
    return fitted_back(seen, (side, side), H, image, offset)
