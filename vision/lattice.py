"""Snap card detections to the 5 × 4 lattice of a tableau.

Cards of one tableau share an orientation and sit one card-width (plus a small gap) apart,
so each detection's own oriented box says where its neighbours must be. Neighbour pairs form a
graph; each connected component big enough is a tableau. A walk over the component gives every
card integer lattice coordinates, a RANSAC homography from lattice to image fixes them (and
rejects what does not fit), and the 5 × 4 window with the most cards is the tableau. Cells
with no detection get their quad from the homography, so the classifier can still look there;
cells with one get the mean of the card's box and the homography's quad.

Seen steeply and turned, a card is a sheared quad and its box can point at no neighbour: such
groups are walked again on their centres alone (``_centre_walks``), and a group no box links at
all is gathered by distance (``_fit_by_centres``).
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from itertools import chain, permutations

import cv2
import numpy as np

from ecoscore.geometry import Detections, points_in_quads, project
from ecoscore.scoring import COLS, ROWS

MIN_CARDS = 5  # fewer connected cards are loose cards, not a tableau
MAX_RESIDUAL = 0.25  # a fit's error (card widths) above which its cards do not sit on a regular grid
MAX_ANGLE_DIFF = np.radians(20)
STEP_RANGE = (0.75, 1.7)  # neighbour distance in card sizes (touching ... wide gaps, perspective)
ACROSS_TOLERANCE = 0.4  # sideways slack of a neighbour, in card sizes
SNAP_TOLERANCE = 0.3  # how far from a lattice point a detection may sit, in cells
SAME_CARD = 0.3  # two boxes closer than this (in card widths) are one card found twice
MIN_VISIBLE = 0.9  # share of a cell that must lie in the photo for it to be read
# Largest over smallest cell area of one tableau: what perspective can give before a lattice is
# implausible (spurious lattices strung through false detections bend wildly). Seen at 25° from
# 45 cm the near cells are up to 10x the far ones (steep tuning set; the normal and hard splits'
# true grids reach 3.2). The 4 of before refused 25 of the 60 steep tuning photos, 3 with this.
MAX_AREA_RATIO = 16.0
# How far from one fit's lattice points another's cards may lie for the two to be joined, in
# cells: the lattice is carried on past its own cards, where perspective bends it. The joined
# fit must then hold the cards within JOIN_SLACK card widths (RMS) of the worse part's own fit.
JOIN_TOLERANCE = 0.4
JOIN_SLACK = 0.03
# How far beyond a window's edge cells (in cells) another tableau's card still counts as lying
# under the window (``_best_window``).
THEIRS_REACH = 0.25
MAX_STARTS = 4  # most confident cards a group's walk is tried from, while fits leave cards out
# A group no box links, fitted on its centres alone, is a tableau only with this many cards on its
# lattice: with 5, loose cards at random angles made one in 0-4 of 100 scatters of 6-14 cards.
CENTRE_FIT_CARDS = 8


@dataclass
class CellFit:
    quad: np.ndarray  # 4 × 2 image corners: TL, TR, BR, BL in the lattice's orientation
    detection: int | None  # index into the detections, None if no card was detected here
    inside: bool  # (almost) all the cell lies inside the photo: it can be read
    duplicates: list[int] = field(default_factory=list)  # other detections in the same cell
    found_twice: list[int] = field(default_factory=list)  # the same card boxed again (not a second card)
    # Where a second look found the card's own corners (``quad``), the first look's cut, read too.
    first_quad: np.ndarray | None = None


@dataclass
class TableauFit:
    cells: dict[tuple[int, int], CellFit]  # (row, col) -> cell, ROWS × COLS of them
    residual: float  # RMS distance of card centres from their lattice points, in card widths
    ambiguous_window: bool  # fewer than 5 columns or 4 rows hold cards: the grid's place is a guess
    off_grid: list[int] = field(default_factory=list)  # in line with the grid, just outside its 5 × 4
    # Fitted on the quick look's small canvas only, where the finder's looks at full size fit no
    # grid (the reader's last resort before a refusal): where the grid lies is a guess.
    small_canvas: bool = False

    @property
    def detections(self) -> list[int]:
        return [cell.detection for cell in self.cells.values() if cell.detection is not None]


def _axes(det: Detections) -> tuple[np.ndarray, np.ndarray]:
    """Per detection: unit vectors along its box's long side and short side.

    Which side looks longer says little about the card: seen at 40° a card's long side can
    look shorter than its short one. So both axes are treated alike below."""
    long_axis = np.stack([np.cos(det.angles), np.sin(det.angles)], 1)
    short_axis = np.stack([-long_axis[:, 1], long_axis[:, 0]], 1)
    return long_axis, short_axis


def _sides(det: Detections) -> np.ndarray:
    """Per detection, a 2 × 2 matrix whose columns are its long side and its short side as
    vectors (the mean of each pair of opposite sides of its quad): a box's are its axes times
    its sizes; a card's own corners make them a parallelogram's."""
    q = det.quads
    long_side = ((q[:, 1] - q[:, 0]) + (q[:, 2] - q[:, 3])) / 2
    short_side = ((q[:, 2] - q[:, 1]) + (q[:, 3] - q[:, 0])) / 2
    return np.stack([long_side, short_side], -1)


def _inverse(m: np.ndarray) -> np.ndarray:
    """Inverses of 2 × 2 matrices (N × 2 × 2); a flat one (a box of no width) maps far away."""
    det = m[:, 0, 0] * m[:, 1, 1] - m[:, 0, 1] * m[:, 1, 0]
    det = np.where(np.abs(det) < 1e-9, 1e-9, det)
    adj = np.stack([np.stack([m[:, 1, 1], -m[:, 0, 1]], -1), np.stack([-m[:, 1, 0], m[:, 0, 0]], -1)], 1)
    return adj / det[:, None, None]


def _angle_diff(a, b):
    """Difference of box orientations modulo a quarter turn (a box's two axes are alike)."""
    return np.abs(((a - b) + np.pi / 4) % (np.pi / 2) - np.pi / 4)


def _neighbour_steps(det: Detections) -> dict[tuple[int, int], np.ndarray]:
    """Pairs (i, j) of lattice neighbours, each with the vector from i's centre to j's.

    j neighbours i when it lies about one card away along one of i's sides and little to the
    side, when the same holds seen from j, and when both boxes are alike in angle and size.
    "Along a side" in the card's own sides (``_sides``): a card seen at a slant is a
    parallelogram, and its neighbours lie along its sides, not along a rectangle's round it."""
    s1 = det.sizes[:, 0]
    d = det.centers[None, :, :] - det.centers[:, None, :]  # d[i, j] = c_j - c_i
    # d[i, j] in i's sides: d = p * long side + q * short side.
    p, q = np.moveaxis(np.einsum("iab,ijb->ija", _inverse(_sides(det)), d), -1, 0)
    a1, a2 = np.abs(p), np.abs(q)
    lo, hi = STEP_RANGE
    along1 = (a1 >= lo) & (a1 <= hi) & (a2 < ACROSS_TOLERANCE)
    along2 = (a2 >= lo) & (a2 <= hi) & (a1 < ACROSS_TOLERANCE)
    ratio = s1[None, :] / s1[:, None]
    alike = (_angle_diff(det.angles[:, None], det.angles[None, :]) < MAX_ANGLE_DIFF) & (ratio > 0.6) & (ratio < 1.65)
    nb = alike & (along1 | along2)
    nb &= nb.T
    np.fill_diagonal(nb, False)
    return {(int(i), int(j)): d[i, j] for i, j in zip(*np.nonzero(nb))}


def _components(n: int, steps) -> list[list[int]]:
    adj: dict[int, list[int]] = {i: [] for i in range(n)}
    for i, j in steps:
        adj[i].append(j)
    seen, comps = set(), []
    for s in range(n):
        if s in seen:
            continue
        comp, queue = [], deque([s])
        seen.add(s)
        while queue:
            i = queue.popleft()
            comp.append(i)
            for j in adj[i]:
                if j not in seen:
                    seen.add(j)
                    queue.append(j)
        comps.append(comp)
    return comps


def clusters(det: Detections, reach: float = 2.5, min_size: int = 3) -> list[list[int]]:
    """Groups of detections lying near each other (within ``reach`` card lengths), at least
    ``min_size`` strong: where a tableau may be, before any lattice is fitted."""
    n = len(det)
    if n == 0:
        return []
    d = np.linalg.norm(det.centers[:, None] - det.centers[None], axis=2)
    link = d < reach * np.maximum(det.sizes[:, None, 0], det.sizes[None, :, 0])
    steps = {(int(i), int(j)): None for i, j in zip(*np.nonzero(link)) if i != j}
    return [c for c in _components(n, steps) if len(c) >= min_size]


def _walk(comp: list[int], det: Detections, steps, start: int) -> dict[int, tuple[int, int]]:
    """Integer lattice coordinates (u, v) of each card of a component, walking from ``start``.
    Each card carries a frame (its two axes, matched to its parent's), so perspective may turn
    the frame gradually across the tableau."""
    e1, e2 = _axes(det)
    # Start frame: u along the short side, v along the long side (cards are portrait, so this
    # is columns and rows unless the photo is very oblique); v runs down the picture and the
    # frame keeps the photo's handedness, so the grid reads the way the photo looks.
    u, v = e2[start].copy(), e1[start].copy()
    if v[1] < 0 or (v[1] == 0 and v[0] < 0):
        v = -v
    if u[0] * v[1] - u[1] * v[0] < 0:
        u = -u
    frames = {start: (u, v, det.sizes[start, 1], det.sizes[start, 0])}
    coords = {start: (0, 0)}
    members = set(comp)
    by_source: dict[int, list[int]] = {}
    for i, j in steps:
        by_source.setdefault(i, []).append(j)
    queue = deque([start])
    while queue:
        i = queue.popleft()
        u, v, su, sv = frames[i]
        for j in by_source.get(i, ()):
            if j in coords or j not in members:
                continue
            d = steps[(i, j)]
            p, q = d @ u / su, d @ v / sv
            step = (int(np.sign(p)), 0) if abs(p) > abs(q) else (0, int(np.sign(q)))
            coords[j] = (coords[i][0] + step[0], coords[i][1] + step[1])
            # j's axis most parallel to u becomes its u, signs matched to i's frame.
            if abs(e1[j] @ u) > abs(e2[j] @ u):
                uj, vj, suj, svj = e1[j], e2[j], det.sizes[j, 0], det.sizes[j, 1]
            else:
                uj, vj, suj, svj = e2[j], e1[j], det.sizes[j, 1], det.sizes[j, 0]
            frames[j] = (uj if uj @ u > 0 else -uj, vj if vj @ v > 0 else -vj, suj, svj)
            queue.append(j)
    return coords


def _fit_homography(coords: dict[int, tuple[int, int]], det: Detections):
    idx = list(coords)
    src = np.array([coords[i] for i in idx], np.float64)
    dst = det.centers[idx]
    if len(idx) < 4 or np.linalg.matrix_rank(np.column_stack([src, np.ones(len(src))])) < 3:
        return None
    threshold = 0.3 * float(np.median(det.sizes[idx, 1]))
    H, _ = cv2.findHomography(src, dst, cv2.RANSAC, threshold)
    # A walk may put two cards on one lattice point: the homography can then come out singular.
    return H if _invertible(H) else None


def _invertible(H) -> bool:
    return H is not None and bool(np.all(np.isfinite(H))) and abs(np.linalg.det(H)) >= 1e-9


def _best_window(occupied: dict[tuple[int, int], list[int]], width: int, height: int,
                 theirs: np.ndarray | None = None) -> tuple[tuple[int, int], int]:
    """The ``width`` × ``height`` window (its first column and row) holding most of the
    occupied lattice points (col, row), and how many it holds. Ties: the window over the fewest
    of ``theirs`` (lattice points where another tableau's cards lie), then the one that starts
    nearest the first occupied column and row, then the first in column-major order."""
    points = np.array(list(occupied), np.int64).reshape(-1, 2)
    lo, hi = points.min(0), points.max(0)
    c0 = np.arange(lo[0] - width + 1, hi[0] + 1)[:, None, None]
    r0 = np.arange(lo[1] - height + 1, hi[1] + 1)[None, :, None]

    def held(at: np.ndarray, reach: float = 0.0) -> np.ndarray:
        c, r = at[:, 0], at[:, 1]
        return ((c0 - reach <= c) & (c < c0 + width + reach) & (r0 - reach <= r) & (r < r0 + height + reach)).sum(2)

    counts = held(points)
    # A tableau cut by the frame, or found in part, leaves many windows alike: the one laid over
    # another tableau's cards would read them as its own cells, twice read and twice scored. A
    # card counts from a quarter cell beyond the window's edge cells (its centre off the lattice,
    # its body on the edge cell).
    over = held(theirs.reshape(-1, 2) + 0.5, THEIRS_REACH) if theirs is not None else 0
    offset = np.abs(c0[..., 0] - lo[0]) + np.abs(r0[..., 0] - lo[1])
    key = (counts * 100 - np.minimum(over, 99)) * 10_000 - offset  # the three in turn (offsets are few cells)
    best = np.unravel_index(int(np.argmax(key)), counts.shape)  # first of the best
    return (int(c0[best[0], 0, 0]), int(r0[0, best[1], 0])), int(counts[best])


def fit_tableaux(det: Detections, image_size: tuple[int, int]) -> tuple[list[TableauFit], list[int]]:
    """Find every tableau among the detections. Returns the fits (largest first) and the
    indices of detections in no tableau (loose cards, clutter the finder took for a card)."""
    w, h = image_size
    if len(det) == 0:
        return [], []
    steps = _neighbour_steps(det)
    comps = sorted(_components(len(det), steps), key=len, reverse=True)
    used: set[int] = set()
    fits = []
    for comp in comps:
        comp = [i for i in comp if i not in used]
        if len(comp) < MIN_CARDS:
            continue
        fit = _fit_group(comp, det, steps, used, (w, h))
        if fit is None:
            continue
        fits.append(fit)
        _take(fit, used)
        fits += _fit_the_rest(comp, fits, det, steps, used, (w, h))
    fits += _fit_by_centres(det, used, (w, h))
    fits = _joined(fits, det, used, (w, h))
    loose = [i for i in range(len(det)) if i not in used]
    # A box lying on a tableau's cell is that cell's card boxed again (looser, or turned), not a
    # loose card.
    cells = np.array([cell.quad for fit in fits for cell in fit.cells.values()]).reshape(-1, 4, 2)
    on_cells = np.asarray(points_in_quads(det.centers, cells).any(axis=1), bool)
    loose = [i for i in loose if not on_cells[i]]
    for fit in fits:  # a card beside one grid may be part of another tableau after all
        fit.off_grid = [i for i in fit.off_grid if i in loose]
    return fits, loose


def _fit_the_rest(comp: list[int], fits: list[TableauFit], det: Detections, steps, used: set[int], size
                  ) -> list[TableauFit]:
    """Tableaux among the cards of a group its first fit (the last of ``fits``) left: a
    neighbour's tableau laid close behind the player's, seen at a slant, joins it in one group of
    neighbouring cards, and once the player's was fitted the neighbour's boxed cards were "loose"
    (another renderer's steep photo; alone, the same cards fit as one tableau). Kept where it
    holds at least CENTRE_FIT_CARDS cards and reaches into no cell of any fit so far: the cards a
    tableau's own walk left out are its cards, fitted again on its outline later, never a second
    tableau."""
    more: list[TableauFit] = []
    while len(rest := [i for i in comp if i not in used]) >= CENTRE_FIT_CARDS:
        other = _fit_group(rest, det, steps, used, size)
        if (other is None or len(other.detections) < CENTRE_FIT_CARDS
                or any(_overlaps(other, f) for f in [*fits, *more])):
            break  # (the same rest would give the same fit again)
        more.append(other)
        _take(other, used)
    return more


def _overlaps(a: TableauFit, b: TableauFit) -> bool:
    """Whether either fit's cell centres lie in the other's cells."""
    return covers(a, np.array([cell.quad.mean(0) for cell in b.cells.values()])) or covers(
        b, np.array([cell.quad.mean(0) for cell in a.cells.values()]))


def _joined(fits: list[TableauFit], det: Detections, used: set[int], size) -> list[TableauFit]:
    """Fits joined into one where a single 5 × 4 grid holds every card of both as closely as
    either held its own: a tableau whose middle went unboxed (dark cards seen close up) falls
    into two groups no neighbour step links, each fitted apart, each window a guess laid over
    the other's cards: two overlapping "tableaux", neither read. One fit's lattice, carried on
    over the other's cards, places each near a lattice point of its own; the homography is
    fitted again on all of them and kept only where the cards sit on it about as well as on
    their own (two players' partial tableaux side by side sit a fraction of a cell off)."""
    while len(fits) > 1:
        join = next(((a, b, fit) for a, b in permutations(fits, 2) if (fit := _join(a, b, det, used, size))), None)
        if join is None:
            break
        a, b, fit = join
        fits = sorted([f for f in fits if f is not a and f is not b] + [fit], key=lambda f: -len(f.detections))
        _take(fit, used)
    return fits


def _join(a: TableauFit, b: TableauFit, det: Detections, used: set[int], size) -> TableauFit | None:
    """``a`` and ``b`` fitted as one on ``a``'s lattice (``_joined``), or None."""
    cards = a.detections + b.detections
    coords = _lattice_coords(a, det, cards)
    H = _fit_homography(coords, det) if coords is not None else None
    if coords is None or H is None:
        return None
    # Every box of the two (a card boxed twice, a second card in a cell) is free to snap again.
    boxes = {i for f in (a, b) for cell in f.cells.values() for i in cell.duplicates + cell.found_twice} | set(cards)
    fit = _snap(H, det, used - boxes, size, coords)
    if (fit is None or not set(cards) <= set(fit.detections)
            or fit.residual > max(a.residual, b.residual) + JOIN_SLACK):
        return None
    return fit


def covers(fit: TableauFit, points: np.ndarray, each: bool = False):
    """Whether any of ``points`` lies in one of the fit's cells (each of them, with ``each``)."""
    inside = points_in_quads(points.reshape(-1, 2), np.array([cell.quad for cell in fit.cells.values()])).any(1)
    return inside if each else bool(inside.any())


def _lattice_coords(fit: TableauFit, det: Detections, cards: list[int]) -> dict[int, tuple[int, int]] | None:
    """The ``cards``' lattice points in ``fit``'s lattice (its cells' centres give it), where
    each lies near one, no two on one, and all within one 5 × 4 window either way round."""
    keys = list(fit.cells)
    src = np.array([(c, r) for r, c in keys], np.float64)
    dst = np.array([fit.cells[k].quad.mean(0) for k in keys])
    H, _ = cv2.findHomography(src, dst, 0)
    if not _invertible(H):
        return None
    lat = project(np.linalg.inv(H), det.centers[cards])
    rounded = np.round(lat)
    if np.any(np.abs(lat - rounded) > JOIN_TOLERANCE) or len({tuple(p) for p in rounded}) < len(cards):
        return None
    span = np.ptp(rounded, axis=0) + 1
    if not (span[0] <= COLS and span[1] <= ROWS) and not (span[0] <= ROWS and span[1] <= COLS):
        return None
    return {i: (int(c), int(r)) for i, (c, r) in zip(cards, rounded)}


def _take(fit: TableauFit, used: set[int]) -> None:
    """Mark the fit's cards used, and every box of a card boxed twice (no loose card)."""
    used.update(fit.detections)
    for cell in fit.cells.values():
        used.update(cell.duplicates + cell.found_twice)


def _fit_group(comp: list[int], det: Detections, steps, used: set[int], size) -> TableauFit | None:
    """The lattice of one group of neighbouring cards: walked from its most confident card, and
    again from the next ones while a fit leaves some of its cards out, keeping the fit that holds
    the most. Seen steeply, a card's side and the step to its neighbour look alike, and one wrong
    step early in a walk can skew the whole lattice or lose it. While cards are still left out,
    the group is walked again on its centres alone (``_centre_walks``)."""
    starts = sorted(comp, key=lambda i: -det.scores[i])[:MAX_STARTS]
    box_walks = ((_walk(comp, det, steps, s), True) for s in starts)
    return _best_fit(chain(box_walks, _centre_walks(comp, det)), det, used, size, len(comp))


def _best_fit(walks, det: Detections, used: set[int], size, n_cards: int) -> TableauFit | None:
    """Of the fits the walks' lattice coordinates give (each with whether its boxes are trusted),
    the one holding the most cards, then one whose boxes are trusted (they shape its cells), then
    the smaller error; stops at the first holding them all."""
    best, best_key = None, None
    for coords, trust_boxes in walks:
        H = _fit_homography(coords, det)
        fit = _snap(H, det, used, size, coords, trust_boxes) if H is not None else None
        key = (len(fit.detections), trust_boxes, -fit.residual) if fit is not None else None
        if key is not None and (best_key is None or key > best_key):
            best, best_key = fit, key
        if best is not None and len(best.detections) >= min(n_cards, ROWS * COLS):
            break
    return best


def _centre_walks(comp: list[int], det: Detections):
    """Walks of the group found from where the cards' centres lie rather than from their boxes.
    Seen steeply and turned, a card is a sheared quad: its box runs along the quad's diagonal,
    and neither of its axes points at the next card. The centres still lie on a lattice: its two
    step vectors, taken where the centres' nearest neighbours most often lie, straighten the group
    into a square lattice, and the usual walk runs there (the homography is then fitted on the
    photo's centres). Boxes are not trusted in these fits."""
    square = _straightened(det.centers[comp], det.scores[comp])
    if square is None:
        return
    steps = _neighbour_steps(square)
    members = list(range(len(comp)))
    for start in sorted(members, key=lambda k: -square.scores[k])[:MAX_STARTS]:
        yield {comp[k]: uv for k, uv in _walk(members, square, steps, start).items()}, False


def _fit_by_centres(det: Detections, used: set[int], size) -> list[TableauFit]:
    """Tableaux among groups of cards lying apart from every tableau fitted, walked on their
    centres: when no box points at its neighbour, no group forms by the boxes at all (a hard
    photo of four tableaux lost a whole one of 13 cards found this way). A group within reach of
    a fitted tableau's cards is left alone: those are that tableau's cards the walk left out, and
    the reader fits it again on its outline (fitted here they were a second, split tableau)."""
    fits: list[TableauFit] = []
    if len(det) - len(used) < MIN_CARDS:
        return fits
    for comp in clusters(det, min_size=MIN_CARDS):
        if any(i in used for i in comp):
            continue
        fit = _best_fit(_centre_walks(comp, det), det, used, size, len(comp))
        if fit is not None and len(fit.detections) >= CENTRE_FIT_CARDS:
            fits.append(fit)
            _take(fit, used)
    return fits


def _straightened(points: np.ndarray, scores: np.ndarray) -> Detections | None:
    """The points mapped by the affine map that takes their lattice's two step vectors to unit
    steps across and down (keeping the photo's handedness), as boxes of a square lattice: each
    box's sides are its own steps to its neighbours there, so the usual neighbour rule and walk
    apply, perspective included. None when the points show no two step directions."""
    axes = _lattice_steps(points)
    if axes is None:
        return None
    q = (np.linalg.inv(axes) @ points.T).T
    d = q[None] - q[:, None]
    local = np.ones((len(q), 2))  # per point: its step across, its step down (1 where it has none)
    for k, unit in enumerate(([1.0, 0.0], [0.0, 1.0])):
        along = np.abs(d @ np.array(unit))
        aligned = (along > 0.5) & (along < 2.0) & (along > 2.0 * np.abs(d @ np.array(unit[::-1])))
        steps = np.where(aligned, along, np.inf).min(axis=1)
        local[:, k] = np.where(np.isfinite(steps), steps, 1.0)
    # A box's long side runs down (angle 90°): sized so a step is 1.15 box sides, mid STEP_RANGE.
    return Detections(q, np.stack([local[:, 1], local[:, 0]], 1) / 1.15, np.full(len(q), np.pi / 2), scores)


def _lattice_steps(points: np.ndarray) -> np.ndarray | None:
    """2 × 2: the lattice's step vectors (columns) from each point's four nearest neighbours:
    the most common direction, then the most common at least 30° from it, each as long as the
    median step along it; None when either has fewer than three steps."""
    n = len(points)
    d = points[None] - points[:, None]
    dist = np.linalg.norm(d, axis=2)
    np.fill_diagonal(dist, np.inf)
    nearest = np.argsort(dist, axis=1)[:, :min(4, n - 1)]
    vecs = d[np.arange(n)[:, None], nearest].reshape(-1, 2)
    angle = np.arctan2(vecs[:, 1], vecs[:, 0]) % np.pi  # a step and its reverse are one direction
    steps = []
    free = np.ones(len(vecs), bool)
    for _ in range(2):
        if free.sum() < 3:
            return None
        hist = np.bincount((angle[free] / np.pi * 36).astype(int) % 36, minlength=36)
        peak = (int(np.argmax(hist + np.roll(hist, 1) + np.roll(hist, -1))) + 0.5) * np.pi / 36
        near = free & (_half_turn_diff(angle, peak) < np.radians(12))
        if near.sum() < 3:
            return None
        mean = np.angle(np.sum(np.exp(2j * angle[near]))) / 2  # the mean direction, modulo a half turn
        steps.append(np.median(np.linalg.norm(vecs[near], axis=1)) * np.array([np.cos(mean), np.sin(mean)]))
        free &= _half_turn_diff(angle, mean) >= np.radians(30)
    axes = np.column_stack(steps)
    if abs(np.linalg.det(axes)) < 1e-6:
        return None
    if np.linalg.det(axes) < 0:  # keep the photo's handedness: the walk must not mirror the grid
        axes[:, 1] *= -1
    return axes


def _half_turn_diff(a, b):
    """Difference of directions modulo a half turn (a step and its reverse are one direction)."""
    return np.abs(((a - b) + np.pi / 2) % np.pi - np.pi / 2)


def _on_lattice(H, det: Detections, used: set[int], bounds, trust_boxes: bool = True) -> tuple[list[int], np.ndarray]:
    """Detections sitting on a lattice point of ``H`` within ``bounds`` (col0, col1, row0, row1),
    with the lattice's orientation (when the boxes are trusted to show it)."""
    lat = project(np.linalg.inv(H), det.centers)
    rounded = np.round(lat)
    near = np.all(np.abs(lat - rounded) < SNAP_TOLERANCE, axis=1)
    c0, c1, r0, r1 = bounds
    near &= (rounded[:, 0] >= c0) & (rounded[:, 0] <= c1) & (rounded[:, 1] >= r0) & (rounded[:, 1] <= r1)
    # Same orientation as the lattice (a loose card lying askew on a lattice point is not in it).
    if trust_boxes:
        row_dir = project(H, [[0, 1]]) - project(H, [[0, 0]])
        turned_with = _angle_diff(det.angles, np.arctan2(row_dir[0, 1], row_dir[0, 0])) < 1.5 * MAX_ANGLE_DIFF
    else:
        # The lattice says nothing of how a sheared card's box lies, but a tableau's boxes lie
        # alike, turning a little with depth: a card counts where it lies within half the usual
        # slack of a card on a lattice point next to it (a pile of loose cards at random angles
        # is no tableau).
        on = [i for i in range(len(det)) if near[i] and i not in used]
        turned_with = np.zeros(len(det), bool)
        for i in on:
            beside = [j for j in on if np.abs(rounded[j] - rounded[i]).sum() == 1]
            turned_with[i] = any(_angle_diff(det.angles[i], det.angles[j]) < MAX_ANGLE_DIFF / 2 for j in beside)
    return [i for i in range(len(det)) if near[i] and turned_with[i] and i not in used], lat


def _snap(H, det: Detections, used: set[int], size, coords: dict[int, tuple[int, int]],
          trust_boxes: bool = True) -> TableauFit | None:
    """Assign detections to lattice points through ``H``; pick the 5 × 4 window; build cells.
    Boxes not trusted (``_fit_by_centres``) neither vote on orientation nor shape the cells."""
    # Only lattice points near the walked component count: another tableau lying in line
    # with this one must not be pulled in.
    cols = [c for c, _ in coords.values()]
    rows = [r for _, r in coords.values()]
    bounds = (min(cols) - 1, max(cols) + 1, min(rows) - 1, max(rows) + 1)
    # The first homography comes from a walk over part of the tableau; refit it on every card
    # that snaps to it, then snap again, so far corners (perspective) are not extrapolated.
    for _ in range(2):
        candidates, lat = _on_lattice(H, det, used, bounds, trust_boxes)
        refit = _fit_homography({i: (int(round(lat[i, 0])), int(round(lat[i, 1]))) for i in candidates}, det)
        if refit is None:
            break
        H = refit
    candidates, lat = _on_lattice(H, det, used, bounds, trust_boxes)
    Hinv = np.linalg.inv(H)
    if len(candidates) < MIN_CARDS:
        return None
    occupied: dict[tuple[int, int], list[int]] = {}
    for i in candidates:
        occupied.setdefault((int(round(lat[i, 0])), int(round(lat[i, 1]))), []).append(i)

    # The window clear of other tableaux' cards, where it is a photo of a flat grid; else the
    # nearest (clear of them, it may stretch towards the horizon, its far cells implausible).
    for theirs in (_lattice_points_of(sorted(used), H, det, candidates), None):
        (c0, r0), n5x4 = _best_window(occupied, COLS, ROWS, theirs)
        (c0t, r0t), n4x5 = _best_window(occupied, ROWS, COLS, theirs)
        transposed = n4x5 > n5x4
        width, height = (ROWS, COLS) if transposed else (COLS, ROWS)
        if transposed:
            c0, r0 = c0t, r0t
        if _plausible(H, c0, r0, width, height):
            break
    else:
        return None
    turn = _reading_turn(H, c0, r0, width, height, transposed)
    # The span of the window's own cards: a card beside the window (left out of it) does not
    # say where the window lies.
    held = [(c, r) for c, r in occupied if c0 <= c < c0 + width and r0 <= r < r0 + height] or list(occupied)
    span_c = max(c for c, _ in held) - min(c for c, _ in held) + 1
    span_r = max(r for _, r in held) - min(r for _, r in held) + 1

    # A card's size in lattice units (cards are smaller than the pitch when there are gaps).
    half = card_half(Hinv, det.quads[candidates]) if trust_boxes else np.array([0.45, 0.45])
    # Every cell of the window projected at once (TL, TR, BR, BL in lattice units), and its centre.
    lc_grid, lr_grid = np.meshgrid(np.arange(width), np.arange(height))
    centres_lat = np.stack([c0 + lc_grid, r0 + lr_grid], -1).reshape(-1, 2).astype(np.float64)
    offsets = np.array([[-half[0], -half[1]], [half[0], -half[1]], [half[0], half[1]], [-half[0], half[1]]])
    cell_quads = project(H, centres_lat[:, None, :] + offsets).reshape(height, width, 4, 2)
    cell_centres = project(H, centres_lat).reshape(height, width, 2)

    cells: dict[tuple[int, int], CellFit] = {}
    off_grid = []
    residuals = []
    w, h = size
    for (c, r), members in occupied.items():
        inside_window = c0 <= c < c0 + width and r0 <= r < r0 + height
        touching = c0 - 1 <= c <= c0 + width and r0 - 1 <= r <= r0 + height
        if touching and not inside_window:  # a card right beside the grid: worth a word
            off_grid.extend(members)
    for lr in range(height):
        for lc in range(width):
            c, r = c0 + lc, r0 + lr
            members = sorted(occupied.get((c, r), []), key=lambda i: -det.scores[i])
            quad = cell_quads[lr, lc]
            if members:
                best = members[0]
                # The mean of the card's own box and the grid's cell: a box on a dark or blurred
                # card is often loose or shifted, and the grid (fitted to all the cards) cannot
                # follow a card laid a little off; each halves the other's error. Measured
                # (bench/bench_pipeline.py, tuning and test sets): whole tableaux read exactly
                # 592 of 668 with the box alone, 603 with the grid alone, 603 with the mean.
                # Under strong perspective (steep tuning set) 1/4 box or 3/4 box read the same 30 of
                # 54 tableaux exactly as the mean.
                if trust_boxes:
                    quad = (_order_like(det.quads[best], Hinv, (c, r)) + quad) / 2
                residuals.append(np.linalg.norm(cell_centres[lr, lc] - det.centers[best]) / det.sizes[best, 1])
            key, quad = _turned(lr, lc, width, height, turn), quad[_ROLLED[turn]]  # np.roll(quad, turn, axis=0)
            # The same card found twice (boxes a little apart) is one card; a second box well off
            # the first is a second card lying in this cell.
            others = [i for i in members[1:]
                      if np.linalg.norm(det.centers[i] - det.centers[members[0]]) > SAME_CARD * det.sizes[members[0], 1]]
            again = [i for i in members[1:] if i not in others]
            cells[key] = CellFit(quad, members[0] if members else None, mostly_inside(quad, w, h), others, again)
    residual = float(np.sqrt(np.mean(np.square(residuals)))) if residuals else float("inf")
    ambiguous = (span_c < width) or (span_r < height)
    return TableauFit(cells, residual, ambiguous, off_grid)


_ROLLED = [np.roll(np.arange(4), turn) for turn in range(4)]  # a quad's corners after 0-3 quarter turns


def card_half(Hinv: np.ndarray, quads: np.ndarray) -> np.ndarray:
    """A card's half size in lattice units (col, row), from cards' ``quads`` taken through ``Hinv``
    (photo pixels to the lattice): their median span, bounded to what a card in a cell can be."""
    corners = project(Hinv, quads.reshape(-1, 2)).reshape(-1, 4, 2)
    return np.clip(np.median(np.ptp(corners, axis=1), axis=0) / 2, 0.3, 0.55)


def _lattice_points_of(cards: list[int], H, det: Detections, own: list[int]) -> np.ndarray | None:
    """Where ``cards`` lie on the lattice of ``H`` (col, row), those on the side of the lattice's
    horizon where its ``own`` cards lie (beyond it a point maps back onto the lattice mirrored)."""
    if not cards:
        return None
    Hinv = np.linalg.inv(H)
    depth = (Hinv @ np.column_stack([det.centers, np.ones(len(det))]).T)[2]  # its sign: which side
    ahead = np.sign(depth[cards]) == np.sign(np.median(depth[own]))
    return project(Hinv, det.centers[cards][ahead])


def _reading_turn(H, c0: int, r0: int, width: int, height: int, transposed: bool) -> int:
    """Quarter turns (0-3) from the lattice's window to the grid as the photo shows it: rows
    running down the picture, columns across it. The walk keeps the photo's handedness, so a
    turn brings them together, never a mirror (a transpose would mirror the grid: its scores
    are the same, but "row 1, col 1" would name another card than the player sees there). A
    window lying sideways (4 × 5: cards that look wider than tall, seen steeply) is a quarter
    turn one way or the other, by which way its columns run; one the right way up but upside
    down (its rows running up the picture) is a half turn."""
    centre = np.array([[c0 + (width - 1) / 2, r0 + (height - 1) / 2]])
    at, along_c, along_r = project(H, np.concatenate([centre, centre + [1, 0], centre + [0, 1]]))
    if transposed:  # the lattice's columns are our rows: which way do they run?
        return 1 if (along_c - at)[1] >= 0 else 3
    return 0 if (along_r - at)[1] >= 0 else 2


def _turned(lr: int, lc: int, width: int, height: int, turn: int) -> tuple[int, int]:
    """(row, col) of the window's cell (``lr``, ``lc``) after ``turn`` quarter turns; a cell's
    corners (TL, TR, BR, BL as the lattice runs) turn with it by ``np.roll(quad, turn)``."""
    return [(lr, lc), (lc, height - 1 - lr), (height - 1 - lr, width - 1 - lc), (width - 1 - lc, lr)][turn]


def mostly_inside(quad: np.ndarray, w: int, h: int) -> bool:
    """At least MIN_VISIBLE of the cell lies in the photo (a card touching the edge is still read)."""
    q = quad.astype(np.float32)
    area = abs(cv2.contourArea(q))
    if area <= 0:
        return False
    inter, _ = cv2.intersectConvexConvex(q, np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32))
    return inter / area >= MIN_VISIBLE


def _plausible(H, c0: int, r0: int, width: int, height: int) -> bool:
    """A photo of a flat grid: every cell a convex quad, sizes within what perspective gives.
    (Spurious lattices strung through false detections bend wildly.)"""
    # The cells' corners are the lattice's half-way points: projected once, all together.
    cs, rs = np.meshgrid(np.arange(c0, c0 + width + 1) - 0.5, np.arange(r0, r0 + height + 1) - 0.5)
    corners = project(H, np.stack([cs, rs], -1)).reshape(height + 1, width + 1, 2).astype(np.float32)
    areas = []
    for r in range(height):
        for c in range(width):
            quad = np.array([corners[r, c], corners[r, c + 1], corners[r + 1, c + 1], corners[r + 1, c]])
            if not cv2.isContourConvex(quad.reshape(-1, 1, 2)):
                return False
            areas.append(abs(cv2.contourArea(quad)))
    return min(areas) > 0 and max(areas) / min(areas) < MAX_AREA_RATIO


def _order_like(quad: np.ndarray, Hinv: np.ndarray, cell: tuple[int, int]) -> np.ndarray:
    """Reorder a detection's corners to TL, TR, BR, BL in lattice orientation."""
    lat = project(Hinv, quad) - np.array(cell, np.float64)
    order = [
        int(np.argmin(lat[:, 0] + lat[:, 1])),  # TL: smallest col + row
        int(np.argmax(lat[:, 0] - lat[:, 1])),  # TR
        int(np.argmax(lat[:, 0] + lat[:, 1])),  # BR
        int(np.argmax(lat[:, 1] - lat[:, 0])),  # BL
    ]
    if len(set(order)) < 4:  # degenerate (a square-ish detection at 45°): keep box order
        return quad
    return quad[order]
