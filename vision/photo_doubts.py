"""Doubts about the photo and the geometry, as retake advice (``advice.py``), and the rules that
keep phantom tableaux out: a lattice of cells with too few cards in it is no player's tableau,
nor is one whose cells all read alike and none surely (a pattern on the table, said as such).

Works on what the reader already has (the decoded photo, the lattice fits, the cells as read),
so it adds no pass of either model.
"""
from __future__ import annotations

from collections.abc import Sequence, Set
from dataclasses import dataclass
from typing import NamedTuple

import cv2
import numpy as np

from ecoscore.scoring.tableau import cells_short

from . import advice
from .crops import CROP_SIZE, warp_quad
from .lattice import MIN_CARDS, TableauFit

# Below this many cells holding a card the finder boxed and the classifier named (not empty),
# a fitted lattice is not reported as a tableau: a cloth's checks or a play mat's printed card
# slots boxed as cards read as empty; a real tableau has at least MIN_CARDS cards (the
# lattice's own minimum), so this drops none the lattice would otherwise keep for its cards.
MIN_CARD_CELLS = MIN_CARDS
# ... named with at least this confidence. A play mat's empty slots were named "wolf" at 9-22 %
# (tests/test_steep.py, the mat with no cards); a tableau with fewer than 5 cards named at 50 %
# or more is no read anyone could use.
EVIDENCE_CONFIDENCE = 0.5
# A lattice whose cells all read as one type is taken for a pattern (``one_look``) unless one of
# them is named at least this surely. Judged on a cell's surer cut (``card_evidence``), as the
# evidence rule is: a real card either cut names at 0.9 is a card. The mat's slots: 50-65 %.
ONE_LOOK_SURE = 0.9
# ... and only where at least this many cells are read alike: a pattern's grid names most of its
# 20 cells (the mat's: all 20), while a mid-game tableau may hold a handful of cards of one type.
ONE_LOOK_CELLS = 10
# A lattice set aside for too little card evidence is still said (``unread_doubt``) when it holds
# at least MIN_CARDS boxes and this many cells named surely: a far or dark player's tableau
# (6 of 8 such lattices on the tuning material held 2-4 sure cards, all real tableaux; a cloth's or
# mat's 0), left out silently, made the game's majorities lack a player with no doubt on anyone's score.
UNREAD_GRID_SURE = 2
# A doubtful cell in which at least this share of pixels is washed out (bright, little colour)
# and which stands out from its tableau's typical cell is blamed on glare. Only doubtful cells.
# A lamp's reflection in a sleeve is not always clipped white: another renderer's warm lamp left
# it at value 225-228, saturation 30-40, where 235 / 40 told nothing of five washed-out cards. At
# 215 / 60 alone, a bright photo's pale panels count too: 7.7 % of the normal test set's cards
# (first 60 photos, true corners, 2026-12-03) with no glare at all; standing GLARE_ABOVE_TYPICAL
# over the tableau's median cell as well, 1.8 % (235 / 40 alone: 1.3 %; the steep tuning set's
# sleeves 3.8 %), and the other renderer's photo is told.
GLARE_SHARE = 0.25
GLARE_VALUE, GLARE_SATURATION = 215, 60
GLARE_ABOVE_TYPICAL = 0.15
# A sleeve's sheen is often no bright patch but a veil: the room mirrored over the cards at a low
# angle lifts their dark ends and greys their colour (another renderer's sleeved tableau at ~30°:
# 13 cards at median value 160-190 and a third of their colour, beside its clear cards at 75-120;
# read "not a card of this deck", the player sent to choose another deck). A doubtful cell holding
# a card is blamed on glare too where its median saturation is at most VEIL_SATURATION of the
# tableau's sure cards' and its median value VEIL_VALUE_ABOVE over theirs (of 255), judged only
# with MIN_SURE_CARDS sure cards beside it. On our renderer's tuning sets (normal, hard, steep:
# 221 doubtful cells) it told only cells the patch rule already told.
VEIL_SATURATION = 0.5
VEIL_VALUE_ABOVE = 40
MIN_SURE_CARDS = 3
# Largest over smallest cell area in a tableau beyond which a doubtful read says to hold the
# phone higher. The normal and hard splits (40-90° from 1 m, what the finder was trained on)
# never exceed 2.9 (test sets: p90 2.1 and 2.3); the steep tuning set's median is 3.8, up to 10.
# Measured on the cameras' own truth, not guessed from a focal length: an elevation estimated
# from the homography with a guessed phone lens erred by 7° (median) on the steep tuning set.
TOO_STEEP_RATIO = 3.0
# Cards narrower than this (original photo pixels) in a doubtful read: come closer. The
# classifier sees 64 px crops; under ~40 px its crops are magnified past the photo's detail.
TOO_FAR_PX = 40.0
# The photo is too dark when the brightest cards (99th percentile of grey in the cells) are below this.
TOO_DARK_LEVEL = 60
# A photo has no colour when hardly a pixel is saturated: a black-and-white photo's are all 0
# (an unsaturated cloth beside colourful cards still has cards above it).
COLOURLESS_SATURATION = 12  # 99th percentile of HSV saturation (of 255) over the photo
# A doubtful read is blamed on blur when its cards' median ``sharpness`` lies below either level:
# the fine scale's (the Laplacian's spread over the grey level's) or the coarse one's (the same
# after a Gaussian of 1 px, which sensor noise moves far less: of the held-out decks' hard photos
# rendered blurred and read with doubts, the fine scale alone told 41 of 141, both 61).
# Rendered photos of 13 decks (the stand-in, the five generated styles, a smooth full-bleed one,
# mosaic, silhouette, both decks of photographs, a dark one; a third steep), cards cut at their
# true corners (``cell_grey``), 78 photos each sharp, defocused and shaken (seeds drawn after the
# levels were set): sharp, fine 0.49 at the least (median 1.0), coarse 0.147 (median 0.23); told
# blurred: none of the sharp, 53 % of those defocused by 1.2 px at 640 px (the hard split draws
# 1.2-2.5), 96 % by 2.5 px, 36 % shaken by 8 px (shake blurs one way only); with the hard split's
# noise none, 36, 83 and 23 %. The art sets how sharp a sharp card looks (a smooth full-bleed
# deck's are the least), so both levels lie under every sharp photo's: said only when surely blurred.
BLURRED_FINE = 0.40
BLURRED_COARSE = 0.12
# Cards narrower than the reader's cut (a whole game's, far) are judged at their own size, never
# magnified into it (magnified, a sharp card looks soft). Whole-game photos of 3-4 tableaux, 1600
# px, 8 decks (the stand-in, five generated styles, mosaic, silhouette), each photo's cards under
# 64 px cut at their true corners (29 photos each way): sharp, fine 0.567 at the least, coarse
# 0.177 (with the hard split's noise and JPEG 0.586, 0.186): none told blurred; defocused 1.2 and
# 2.5 px at 640 px: 22 and 28 of 29 told (with that noise, which looks like detail: 5 and 6).
# Under MIN_BLUR_PX there is too little card to judge (the distance has its own advice).
MIN_BLUR_PX = 32
BLUR_BOXES = 40  # a refused photo's blur is judged on at most this many of its boxes (a cost bound)
MIN_SHARPNESS_CELLS = 3  # ... and a tableau's on at least this many cards (fewer say little)
LOOK_PX = 480  # the light and glare are measured on a copy of the photo this wide (statistics, not detail)


@dataclass
class Look:
    """What one tableau's photo looks like, measured for the advice."""

    squeeze: float  # largest over smallest area of the cells holding a card: how much nearer the near cards are
    card_px: float  # median card width in the original photo
    brightest: float  # 99th percentile of grey over the cells in view
    glare: list[tuple[int, int]]  # (row, col) of washed-out cells
    cells_outside: int
    colourless: bool = False  # a black-and-white photo (measured, as the light is, only for doubtful reads)
    sharpness: Sharpness | None = None  # the cells' median (doubtful reads whose cards are big enough)


def squeeze(fit: TableauFit) -> float:
    """Largest over smallest cell area of a fitted tableau: 1 seen from straight above, ~10 from
    25° and 45 cm."""
    return _squeeze(list(fit.cells.values()))


def seen_squeeze(fit: TableauFit) -> float:
    """``squeeze`` over the cells where the finder found a card, what the advice says the angle
    by: the cells a lattice reaches past its cards are its guess. On a grid fitted to a few cards
    and refused, they made a photo taken from 41° "look 22 times smaller" at the far end (the
    cards' own cells: 4); on tableaux read, the two agree with the true cards' areas alike (227
    tableaux, 25-90°: median 1.02 and 1.01 of them)."""
    found = [cell for cell in fit.cells.values() if cell.detection is not None]
    return _squeeze(found) if len(found) >= 2 else 1.0


def _squeeze(cells: list) -> float:
    areas = [abs(cv2.contourArea(cell.quad.astype(np.float32))) for cell in cells]
    return max(areas) / max(min(areas), 1e-6)


def look(image: np.ndarray, fit: TableauFit, card_widths: list[float], to_original: float,
         doubtful_cells: Set[tuple[int, int]]) -> Look:
    """Measure a tableau in the (decoded, reduced) photo ``image``. The pixels are looked at only
    for a read with doubtful cells (the light, glare and blur advice is only for those): the light
    on a copy at most LOOK_PX wide (on every cell of every photo at full size this cost more than
    the lattice fit), the blur on the cells holding a card, each cut at the reader's size."""
    brightest: float = 255.0
    glare: list[tuple[int, int]] = []
    colourless = False
    sharp: Sharpness | None = None
    if doubtful_cells:
        copy = LookCopy.of(image)
        brightest, glare = _light(copy, fit, doubtful_cells)
        colourless = copy.colourless()
        if big_enough_to_judge(card_widths):
            sharp = _sharpness(image, fit)
    return Look(
        squeeze=seen_squeeze(fit),
        card_px=float(np.median(card_widths)) * to_original if card_widths else 0.0,
        brightest=brightest,
        glare=glare,
        cells_outside=sum(not cell.inside for cell in fit.cells.values()),
        colourless=colourless,
        sharpness=sharp,
    )


def big_enough_to_judge(card_widths: Sequence[float]) -> bool:
    """Whether cards this wide (in the decoded photo) can be judged for blur: MIN_BLUR_PX or more
    (smaller ones are judged at their own size, ``cell_grey``)."""
    return len(card_widths) > 0 and float(np.median(card_widths)) >= MIN_BLUR_PX


class Sharpness(NamedTuple):
    """How sharp a cell is: the spread of its Laplacian over the spread of its grey level, at two
    scales. Blur takes the fine detail and leaves the broad contrast; the ratio does not care how
    bright or how contrasted the card is. Sensor noise raises the fine scale's (a noisy blurred
    photo looks sharp there), much less the coarse one's (after a Gaussian of 1 px)."""
    fine: float
    coarse: float

    @property
    def blurred(self) -> bool:
        return self.fine < BLURRED_FINE or self.coarse < BLURRED_COARSE


def sharpness(grey: np.ndarray) -> Sharpness:
    grey = grey.astype(np.float32)
    spread = max(float(grey.std()), 1.0)
    return Sharpness(float(cv2.Laplacian(grey, cv2.CV_32F).std()) / spread,
                     float(cv2.Laplacian(cv2.GaussianBlur(grey, (0, 0), 1.0), cv2.CV_32F).std()) / spread)


def _sharpness(image: np.ndarray, fit: TableauFit) -> Sharpness | None:
    """The median ``sharpness`` of a tableau's cells in view that hold a card found, each cut at
    the reader's size (None with fewer than ``MIN_SHARPNESS_CELLS``). Not the empty cells: a
    plain cloth has no detail however sharp the photo (a sharp mid-game tableau's median fell
    from 0.24 to 0.144 with its 11 empty cells, one of them at 0.09), and a busy one hides blur."""
    return median_sharpness(image, [cell.quad for cell in fit.cells.values() if cell.inside and cell.detection is not None])


def median_sharpness(image: np.ndarray, quads: Sequence[np.ndarray]) -> Sharpness | None:
    """The median ``sharpness`` (each scale's) of the quads (cells, or the finder's boxes) cut at
    the reader's size; None for fewer than ``MIN_SHARPNESS_CELLS`` (a tableau's and a refused
    photo's one rule)."""
    if len(quads) < MIN_SHARPNESS_CELLS:
        return None
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)  # once: a third of the pixels to warp for each cell
    fine, coarse = np.median([sharpness(cell_grey(grey, quad)) for quad in quads], axis=0)
    return Sharpness(float(fine), float(coarse))


def cell_grey(image: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """A cell at the reader's size, grey, cut at its own size (up to four times the reader's) and
    then averaged down, not sampled straight to 64 px as the reader's cut is: sampled, a noisy
    photo's grain looked like detail, and a tableau defocused by the hard split's most read as
    sharp (0.61 against 0.23 averaged). ``image``: grey or BGR."""
    edges = np.linalg.norm(quad[1] - quad[0]), np.linalg.norm(quad[3] - quad[0])
    side = float(max(edges))
    if side < CROP_SIZE:  # a far card at its own size, never magnified: it would look soft however sharp
        small = warp_quad(image, quad, max(8, int(min(edges))))
        return cv2.cvtColor(small, cv2.COLOR_BGR2GRAY) if small.ndim == 3 else small
    big = warp_quad(image, quad, int(np.clip(side, CROP_SIZE, 4 * CROP_SIZE)))
    if big.ndim == 3:
        big = cv2.cvtColor(big, cv2.COLOR_BGR2GRAY)
    return cv2.resize(big, (CROP_SIZE, CROP_SIZE), interpolation=cv2.INTER_AREA)


def look_copy(image: np.ndarray) -> tuple[np.ndarray, float]:
    """The photo at most LOOK_PX wide, for statistics of its light and colour, and its scale."""
    k = min(1.0, LOOK_PX / max(image.shape[:2]))
    # Bilinear, not area, down to about half size: a statistic of the light, not detail, at a ninth
    # of the cost (0.2 against 1.8 ms for a 12 MP photo's 1,000 px copy, the slowest step of a
    # doubtful read after the networks). Further down it would skip most pixels (a 2,000 px photo:
    # one glare cell became four), so there it averages them.
    small = (cv2.resize(image, None, fx=k, fy=k, interpolation=cv2.INTER_LINEAR if k >= 0.45 else cv2.INTER_AREA)
             if k < 1 else image)
    return small, k


class LookCopy(NamedTuple):
    """A photo's ``look_copy`` (and its scale), in grey and HSV too: made once for a tableau's
    light, glare and colour, not once for each, nor in each cell (2-3 ms of a doubtful read)."""
    image: np.ndarray
    scale: float
    grey: np.ndarray
    hsv: np.ndarray

    @classmethod
    def of(cls, photo: np.ndarray) -> LookCopy:
        small, k = look_copy(photo)
        return cls(small, k, cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), cv2.cvtColor(small, cv2.COLOR_BGR2HSV))

    def colourless(self) -> bool:
        """Whether the photo shows no colour (black and white)."""
        return float(np.percentile(self.hsv[..., 1], 99)) < COLOURLESS_SATURATION


def is_colourless(image: np.ndarray) -> bool:
    """Whether the photo shows no colour (black and white), on its ``look_copy``."""
    return LookCopy.of(image).colourless()


def _light(copy: LookCopy, fit: TableauFit, doubtful_cells: Set[tuple[int, int]]) -> tuple[float, list[tuple[int, int]]]:
    """(99th percentile of grey over the cells in view, the doubtful cells washed out by glare)."""
    small, k = copy.image, copy.scale
    h, w = small.shape[:2]
    values, washed = [], {}  # (row, col) -> share of washed-out pixels, every cell in view
    tone: dict[tuple[int, int], tuple[float, float]] = {}  # cells holding a card -> median (saturation, value)
    for (r, c), cell in fit.cells.items():
        if not cell.inside:
            continue
        quad = cell.quad * k
        # Only the cell's own box of pixels, not a whole-photo mask per cell.
        x0, y0 = np.maximum(np.floor(quad.min(0)).astype(int), 0)
        x1, y1 = np.minimum(np.ceil(quad.max(0)).astype(int) + 1, [w, h])
        if x1 <= x0 or y1 <= y0:
            continue
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillPoly(mask, [np.round(quad - [x0, y0]).astype(np.int32)], 1)
        inside = mask.astype(bool)
        if not inside.any():
            continue
        values.append(copy.grey[y0:y1, x0:x1][inside])
        px = copy.hsv[y0:y1, x0:x1][inside]
        washed[(r, c)] = float(np.mean((px[:, 2] >= GLARE_VALUE) & (px[:, 1] <= GLARE_SATURATION)))
        if cell.detection is not None:
            tone[(r, c)] = float(np.median(px[:, 1])), float(np.median(px[:, 2]))
    brightest = float(np.percentile(np.concatenate(values), 99)) if values else 0.0
    typical = float(np.median(list(washed.values()))) if washed else 0.0
    glare = {rc for rc, share in washed.items()
             if rc in doubtful_cells and share >= max(GLARE_SHARE, typical + GLARE_ABOVE_TYPICAL)}
    sure = [st for rc, st in tone.items() if rc not in doubtful_cells]
    if len(sure) >= MIN_SURE_CARDS:
        saturation, value = np.median(sure, axis=0)
        glare |= {rc for rc, (s, v) in tone.items() if rc in doubtful_cells
                  and s <= VEIL_SATURATION * saturation and v >= value + VEIL_VALUE_ABOVE}
    return brightest, sorted(glare)


def retake_advice(seen: Look, doubtful: bool, doubtful_cells: Set[tuple[int, int]] = frozenset()) -> list[str]:
    """The advice for one tableau. Cut by the frame is said always (cells went unread); glare
    for the doubtful cells it washes out (``doubtful_cells``); the others only for a read that
    has doubts (they say why, and how to do better; a good read needs no lecture)."""
    out = []
    if seen.cells_outside:
        out.append(advice.CUT_BY_FRAME(n=seen.cells_outside))
    glared = [rc for rc in seen.glare if rc in doubtful_cells]  # look() measured only those
    if glared:
        out.append(advice.GLARE(where=cells_short(glared)))
    if doubtful and seen.colourless:
        out.append(advice.NO_COLOUR())
    if doubtful:
        if seen.squeeze > TOO_STEEP_RATIO:
            out.append(advice.TOO_STEEP(ratio=f"{seen.squeeze:.0f}"))
        if seen.card_px < TOO_FAR_PX:
            out.append(advice.TOO_FAR(px=int(round(seen.card_px))))
        if seen.brightest < TOO_DARK_LEVEL:
            out.append(advice.TOO_DARK(level=int(round(seen.brightest))))
        if seen.sharpness is not None and seen.sharpness.blurred:
            out.append(advice.BLURRED())
    return out


def is_card(detected: bool, named: bool, confidence: float, at: float = EVIDENCE_CONFIDENCE) -> bool:
    """Evidence of a card of the deck in a cell: a box from the finder and one of the deck's types,
    said with some confidence. A box a deck's matcher calls none of the deck's ("not ours") is
    none: a grid of such boxes is no tableau to score. It was, to reach a "wrong deck?" doubt,
    and a phone screenshot's lines of text, read with an enrolled deck, were scored as a player
    (-4: one line named a rabbit at 52 %, 13 "not ours"); such a photo is refused now, saying
    that the deck may be the wrong one or that no cards lie there (``refusals.not_this_deck``).
    ``at``: the confidence asked for (a less sure look asks more: ``pipeline.UNSURE_NAMED_AT``)."""
    return detected and named and confidence >= at


def card_evidence(cells, at: float = EVIDENCE_CONFIDENCE) -> list[bool]:
    """``is_card`` of each of a tableau's read cells (``reads.CellRead``), named at ``at`` or more."""
    return [is_card(cell.detected, cell.type is not None, cell.card_evidence, at) for cell in cells]


def is_phantom(evidence: list[bool]) -> bool:
    """A lattice with too few cells holding card evidence (``is_card``) to be a player's tableau."""
    return sum(evidence) < MIN_CARD_CELLS


class PatternGrid(NamedTuple):
    """A lattice taken for a pattern on the table (``one_look``)."""
    cells: int  # how many of its cells were read as a card
    card: str  # the one type they were all read as


def one_look(named: Sequence[tuple[str, float]]) -> PatternGrid | None:
    """The lattice as a pattern, if it is one look repeated and never named surely; ``named``:
    ``(type, surer cut's confidence)`` of each of its cells read as a card, boxed or not. A
    surface pattern's repeats (a play mat's printed slots, a cloth's checks) read alike, so a
    pattern the namer half takes for cards is named as one type in every cell: a mat of dark
    green slots was reported as a player of 20 doubted streams (stand-in tuning photo, steep seed
    4016, 000093). A real tableau, however poor the photo, shows several types or names some card
    surely."""
    if len(named) < ONE_LOOK_CELLS or len({card for card, _ in named}) != 1:
        return None
    if max(conf for _, conf in named) >= ONE_LOOK_SURE:
        return None
    return PatternGrid(len(named), named[0][0])


def pattern_doubt(grid: PatternGrid) -> str:
    """What the photo's reader says of a grid taken for a pattern: never dropped silently, for
    were they a player's cards, the game would lack that player."""
    return (f"a grid of {grid.cells} card-like shapes, all read as {grid.card} and none surely, was taken for a "
            "pattern on the table, not a tableau: if they are a player's cards, photograph them alone, or closer")


class UnreadGrid(NamedTuple):
    """A lattice of cards set aside for holding too few cards named surely (``is_phantom``) that
    may yet be a player's tableau (``unread_grid``), or for its cells being mostly in doubt beside
    a tableau read well (``misread_beside``)."""
    cards: int  # its cells where the finder boxed a card
    sure: int  # of them, named surely as cards of the deck (``is_card``)
    doubted: int = 0  # set aside for this many of its cells in doubt (0: for too few sure cards)


def unread_grid(detected: int, evidence: int) -> UnreadGrid | None:
    """A phantom lattice worth saying: boxes enough for a tableau, and some of them surely cards."""
    return UnreadGrid(detected, evidence) if detected >= MIN_CARDS and evidence >= UNREAD_GRID_SURE else None


def unread_doubt(grid: UnreadGrid) -> str:
    """What the photo's reader says of such a grid: the game may lack a player."""
    if grid.doubted:
        return (f"a grid of {grid.cards} cards was found, but {grid.doubted} of its 20 cells are in doubt, so it was "
                "not scored as a player: if it is a player's tableau, photograph it alone, or closer")
    return (f"a grid of {grid.cards} cards was found, but only {grid.sure} of them read surely as cards, so it was "
            "not scored as a player: if it is a player's tableau, photograph it alone, or closer")


# A tableau beside one read well is set aside (said, not scored) when the finder boxed fewer than
# MISREAD_BOXES of its cards and at least MISREAD_DOUBTED of its cells in view are in doubt: a far
# or dark neighbour on which the lattice was fitted off its cards (held-out hard photo 000048, on a
# CPU with bfloat16: a 20-cell grid over a far tableau of cells half its size, reported as a fourth
# player). On the stand-in's tuning sets 5 tableaux were so, none read exactly, every one a real
# tableau: a player's score read from them was no score, and the photo taken alone reads it.
MISREAD_BOXES = 12
MISREAD_DOUBTED = 12


def misread_beside(boxes: int, doubted_in_view: int, best_boxes: int) -> bool:
    """Whether a tableau read beside another is too poorly read to score (``MISREAD_BOXES``):
    ``best_boxes``, the most cards the finder boxed in another tableau of the photo."""
    return boxes < MISREAD_BOXES and doubted_in_view >= MISREAD_DOUBTED and best_boxes >= 2 * boxes


BOX_SQUEEZE_CARDS = 10  # fewer boxes than this say nothing of the angle: one stray box would decide it


def box_squeeze(card_areas: Sequence[float]) -> float:
    """How much nearer the near cards are, from the cards' boxes alone (no lattice fitted): the
    90th over the 10th percentile of their areas, from BOX_SQUEEZE_CARDS boxes on (with fewer, 1:
    one stray box of ten times the area among nine moves it to 1.9, under the 3 that means steep)."""
    if len(card_areas) < BOX_SQUEEZE_CARDS:
        return 1.0
    low, high = np.percentile(card_areas, [10, 90])
    return float(high / max(low, 1e-6))


def photo_advice(image: np.ndarray, card_widths: list[float], to_original: float, steep: float = 1.0,
                 no_grid: bool = False, card_quads: np.ndarray | Sequence[np.ndarray] = ()) -> list[str]:
    """Advice for a photo in which no tableau was read; ``steep``: how much nearer the near cards
    are (``squeeze`` of a fitted grid, or ``box_squeeze``); ``no_grid``: the refusal is that no
    grid of cards was found (not that its cards read as none of the deck's, or too many grids);
    ``card_quads``: the cards found, in ``image`` (their blur is looked at)."""
    out = []
    if card_widths and is_colourless(image):  # cards found, and no colour to tell them by (a grey table alone: no)
        out.append(advice.NO_COLOUR())
    if steep > TOO_STEEP_RATIO:
        out.append(advice.TOO_STEEP(ratio=f"{steep:.0f}"))
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    level = float(np.percentile(grey, 99))
    if level < TOO_DARK_LEVEL:
        out.append(advice.TOO_DARK(level=int(round(level))))
    if card_widths and np.median(card_widths) * to_original < TOO_FAR_PX:
        out.append(advice.TOO_FAR(px=int(round(float(np.median(card_widths)) * to_original))))
    if big_enough_to_judge(card_widths):
        sharp = median_sharpness(image, list(card_quads)[:BLUR_BOXES])
        if sharp is not None and sharp.blurred:
            out.append(advice.BLURRED())
    if not out and no_grid:
        # No grid, and nothing wrong that the photo shows: a player still needs to hear what to
        # try (a blurred or glared photo, a busy cloth, art the finder barely sees).
        out.append(advice.NO_GRID())
    return out


