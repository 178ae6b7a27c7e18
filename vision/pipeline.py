"""From a photo to read grids: decode, find cards, snap to the lattice, classify, doubt.

A confident wrong score is the worst outcome, so every reading carries what looked doubtful;
nothing is silently "fixed".
"""
from __future__ import annotations

import copy
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import NamedTuple, NoReturn

import numpy as np

from ecoscore.geometry import CROP_SIZE, Detections, points_in_quads

from . import advice, photo_doubts
from .decode import Photo, decode
from .dim_light import is_dim, stretched
from .lattice import MAX_RESIDUAL, MIN_CARDS, SAME_CARD, TableauFit, card_half, clusters, covers, fit_tableaux
from .lattice_refiner import SETTLED, LatticeRefiner, WideThenFine, shipped_refiner
from .matcher import CardMatcher
from .models import CardClassifier, CardFinder, fast_nms
from .naming import (
    AMONG_DOUBTS,
    MIN_CONFIDENCE,
    left_out_doubt,
    name_cells,
    name_tableaux,
    table_beside,
    without_glared_foreigners,
    without_wrong_deck_where_the_deck_reads,
)
from .one_card import SeveralCards, boxed_whole, card_shaped, find_one_card, quad_area
from .outline_grid import fit_on_outline
from .photo_doubts import PatternGrid, UnreadGrid
from .reads import PhotoRead, TableauRead
from .second_look import (
    OUTLINE_CARDS,
    fit_outline,
    fit_table,
    fit_wider,
    from_quads,
    look_again,
    missing_cells,
    oblique,
    ordered_like,
    overlap,
)
from .window import cut_on_a_refined_lattice, cut_on_the_lattice, lattice_of, place_window

NEIGHBOUR_REACH = 1.5  # card lengths between the centres of cards lying side by side in a grid
# A photo of one card (a scan, a card held up to the phone): the finder boxes pieces of the
# card's picture, small, and the refusal told a player who uploaded one card's scan that "3
# cards" were "small in the photo: come closer". Where no grid fits, the photo is looked at
# zoomed out (``one_card``): one card over this share of the photo, every box found lying on it
# (pieces of its picture, not cards beside it), is one card shown. A grey page, noise or a dark
# table of a card's proportions is no card (an attack found them told so).
ONE_CARD_PIECES = 40  # more boxes than this are no one card's pieces (not looked at)
ONE_CARD_SHARE = 0.02
ONE_CARD = "no tableau found: the photo shows one card, and a tableau is its 20 cards (5 × 4)"
BESIDE_SCORE = 0.6  # a card beside a tableau that a lattice set aside is said where the finder boxed it this surely
# ... and where that lattice held at most this many boxes: a row or two left out of a tableau, not
# a grid of its own (a play mat's printed slots beside a tableau, 20 boxes read as no card).
BESIDE_MAX_BOXES = 10
SMALL_CARD_PX = 24  # a card's short side at the finder's input below which it looks closer
# The closer look shows the finder a group's cards at about this short side (px at its input),
# on the first of these canvases big enough: on the tuning sets 32 px found more cards than the
# first look's canvas (512) and than 40 or 48 px, which magnify past what the finder was trained on.
# A lone upright tableau's window is ~13 cards long, so 512 px does; tableaux lying close enough
# to make one group, or turned ones, take the bigger canvases (up to 768: 3 more hard tableaux
# read exactly than with 640).
CLOSER_CARD_PX = 32
CLOSER_SIZES = (512, 640, 768)
# The quick look: the finder on a canvas of QUICK_SIZE px first (0.56 x the first look's pixels:
# ~32 against ~55 ms of CPU on one thread), kept when it shows one tableau, every card at least
# QUICK_CARD_PX across its short side there (where the first look would not look closer
# either), and no loose card lying beside the tableau (one may be the tableau's own, for the
# first look and the refit to place); a loose card well apart (a draw pile) is no reason to
# look again. Cells where it found no card are looked at by the second look at full size.
# Otherwise the photo gets the first look as well (~32 ms more: photos of the whole game).
# Chosen on the tuning material (bench/compare_finders.py --no-quick-look; the model card has
# the figures): at 320 px the stand-in read the same but 9 more of the other decks' 223
# tableaux were flagged (a deck's matcher wants cards cut closer than the small canvas's boxes
# do); kept with loose cards beside the tableau too, 2 stand-in tableaux were lost.
QUICK_SIZE = 384
QUICK_CARD_PX = 22
# A grid whose cells look this far from square (degrees) is looked at again, straightened: its
# cards' boxes are rectangles round parallelograms (second_look.py).
OBLIQUE_DEGREES = 12.0
# A tableau fitted on at most PARTIAL_FIT cards, with at least REFIT_LOOSE loose cards beside
# it, is fitted again on the whole group's outline, and the new fit kept if it holds REFIT_GAIN
# more cards. Looser rules (any fit short of 20, one loose card, any gain) refitted whole
# tableaux beside a stray card and lost them (fresh steep renders).
PARTIAL_FIT = 16
REFIT_LOOSE = 3
REFIT_GAIN = 2
# ... and only where it holds more than half of the fit's own cards: the same tableau, not a
# neighbour's lying in a chain with its corner (a steep tuning photo, 2026-11-28).
REFIT_KEEPS = 0.5
# The second look's canvas (long side, px): a tableau straightened there shows its cards at
# ~41 px across, as big as the finder needs, and costs ~0.56 x the pixels of its own size (512).
# Measured in one run each against 512 (bench/bench_pipeline.py): hard 179 against 174 of 192
# tableaux exact, steep 145 against 142 of 178, normal 312 both, 0 confident wrong and 0
# phantom either way; on all the tuning material (stand-in sets and other decks) 371 of 436
# against 369 (320 px: 369), a small margin; the outline refit at 384 read the steep tuning set
# the same, so it stays at 512. Fewer magnified pixels of a far, blurred card seem to be what
# pays. The model card has the table, unseen decks included.
SECOND_LOOK_SIZE = 384
# The game seats 2-6 players; 8 as the service's MAX_PLAYERS (room for a photo of two games'
# worth of a table edge). A photo with more grids than this is not one game, and every grid and
# group of small cards costs looks of the finder: a made-up photo of 42 small grids took 24 s of
# CPU to read. More small groups than this are not looked at closer; more grids are refused.
MAX_TABLEAUX = 8
# Cards one photo may hold: a game's tableaux and a hand of loose cards beside them. A photo of
# 300 cards scattered at random held a reader 14 s, each group of them fitted again and again
# (an attack on a running server): refused on its first look.
LOOSE_CARDS = 40  # beside a game's tableaux in a photo: a hand, a draw pile
MAX_PHOTO_CARDS = MAX_TABLEAUX * 20 + LOOSE_CARDS
# A photo in whose finder's sure boxes (``CardFinder.conf``, 0.6) no grid fits is looked at once
# more, keeping its boxes from this confidence. Seen across the table, a deck drawn unlike the
# finder's training cards (full-bleed mosaics laid edge to edge, near-black cards) is boxed at
# 0.40-0.63, and its photos were refused. Kept from 0.45 in every photo, such boxes found those
# cards and were false cards on other decks' tables: as many tableaux lost as gained (model card);
# kept only where no grid was found, they lose no tableau that was read. A tableau found so says
# that its cards are less sure (UNSURE_DOUBT). None: no such look.
UNSURE_CONF: float | None = 0.45
# ... and what such a look reads is taken only where each of its tableaux has at least
# UNSURE_NAMED_CELLS boxed cards named one of the deck's types at UNSURE_NAMED_AT or more: the
# less sure boxes must be vouched for by their names. A phone screenshot's lines of text, read
# so, had a grid with 5 cards named at 0.55-0.96 (the stand-in's classifier), 1 of them at 0.9;
# the steep tuning photos it read had 9-11 (mosaic, silhouette decks), and one with 3 was a
# tableau misplaced.
UNSURE_NAMED_AT, UNSURE_NAMED_CELLS = 0.9, 8
UNSURE_DOUBT = "its cards were found only by a second, less sure look at the photo: check every cell"
# A loose card under this short side at the finder's input (the size the closer look magnifies
# cards to), and under FAR_RATIO of the fitted tableaux' cards, is looked at closer, with room
# round it for a tableau of FAR_PAD card lengths. The ratio keeps it to cards far behind: without
# it the same tableaux were read, and it fired on 18 of 100 normal tuning photos, not 12 (loose
# cards beside tableaux that are small themselves).
FAR_CARD_PX = CLOSER_CARD_PX
FAR_RATIO = 0.75
FAR_PAD = 3.0
# A tableau with this many cells in doubt is read again on its outline (``_read_on_outlines``):
# a lattice half a card off reads most of its cells in doubt; a dark tableau's few doubts are not
# the outline's to settle (not tuned: about a third of the cells).
OUTLINE_DOUBTED = 6
# The table look (``_look_at_the_table``): for a photo whose grid's nearest cell is this many times
# the area of its farthest (a phone 25-40 degrees above the table; of the normal and hard splits'
# true grids, 1-2 of 236-371 a set pass 3, and of their fitted grids 2 in 80 normal photos; from
# 2.0 the tuning sets read the same, at the cost of a finder run on half the hard photos and a
# third of the 12 MP ones: 2026-11-28, thirty-fourth), on a canvas this long (the
# finder's own: 640 and 768 read as many steep tuning tableaux, 174 and 175 of 190 against 174,
# and cost more: 1.37 times a steep photo's read at 768, 1.28 at 512).
TABLE_SQUEEZE = 3.0
TABLE_SIZE = 512
SMALL_GROUP_PAD = 2.2  # the closer look at a small group: room for a missed row or column round it
HOLE_OVERLAP = 0.6  # a card the second look finds in a cell with none covers the cell this well (IoU)
# A cell no card was boxed in is shown to the corner refiner shrunk to this share of its sides
# (``Reader.cut_unboxed_cells``). Chosen on the tuning material (797 tableaux, against no such
# cut): 0.9 read 2 more exactly and lost none, 0.8 1 / 0, the whole cell 1 / 1.
UNBOXED_CUT = 0.9
# A found card is cut where the lattice's card-sized cell lies when its own cut (the mean of its
# box and its cell, or the second look's corners) covers that cell less than this (IoU): a box
# round half a card or round parts of two lies off its cell (``window.cut_on_the_lattice``).
# Trusted on a lattice fitted on at least LATTICE_CARDS cards. Chosen on the tuning material (797
# tableaux, against no such cut): 0.75 read 4 more exactly and lost none; 0.6 none either way;
# on the other decks 0.85 gained 3 and lost 2; 0.7 and 0.8 and 5 cards checked after (model card).
LATTICE_CUT = 0.75
LATTICE_CARDS = 8
# A lattice the refiner still moved this far on its last run (its outer corners, in cells) is no
# settled fit: the cards' own lattice cuts instead (``Reader.cut_on_the_lattice``). On the unseen
# decks' normal and hard photos 584 of 596 lattices settle within it.
REFINED_SETTLED = SETTLED
# A lattice the refiner's first run moves less than this (cells) is where it says: not run again.
# On the unseen decks' normal and hard photos the same tableaux were read as with two runs always,
# and a 12 MP photo's read cost 1.08 times the read without the refiner, against 1.16.
REFINED_STILL = 0.05
def _surely_named(tableau: TableauRead) -> int:
    """How many of a tableau's cells hold a boxed card named one of the deck's types at
    ``UNSURE_NAMED_AT`` or more (``photo_doubts.is_card``, asked for more)."""
    return sum(photo_doubts.card_evidence(tableau.cells, at=UNSURE_NAMED_AT))


# Card lengths between the centres of loose cards said as one group (``PhotoRead.loose_group``):
# a far, dark tableau's few boxes lie a card or two apart, its cards between them unboxed. On the
# stand-in's normal and hard test sets and four unseen decks' hard and normal sets (630 photos
# read), 2.0 said 4 photos, each missing a tableau (1.5: 3 of them; 3.0: the same 4); a whole
# game's fourth tableau, 6 boxes 2 card lengths apart, had gone unsaid.
LOOSE_GROUP_REACH = 2.0


def side_by_side(cards: Detections, reach: float = NEIGHBOUR_REACH) -> int:
    """Cards in the biggest group of ``cards`` lying side by side as in a grid (0: no group of
    at least a tableau's minimum); ``reach``: card lengths between neighbours' centres."""
    groups = clusters(cards, reach=reach, min_size=MIN_CARDS)
    return max(map(len, groups), default=0)


class NoTableauError(ValueError):
    """The photo holds no tableau the reader can find."""


class NoGridError(NoTableauError):
    """No grid fits the cards found (or no card was found): the one refusal a less sure look at
    the photo may undo (``UNSURE_CONF``). A grid whose cells are no cards of the deck (the wrong
    deck, an unenrolled one) is not looked at again: more boxes would not make them the deck's."""


class NotThisDeckError(NoTableauError):
    """Grids of cards were found, and none held a card of the deck read with (most often the
    player's own deck, not yet taught): its cards are to be named, not photographed again."""


class JudgedGrids(NamedTuple):
    """A photo's lattices judged (``Reader._doubt_the_photo``): the tableaux kept as players, and
    those set aside: taken for a pattern, or too few cards named surely (yet maybe a player's)."""
    kept: list[TableauRead]
    pattern_grids: list[PatternGrid]
    unread_grids: list[UnreadGrid]
    # Boxes of lattices set aside without a word and said beside no tableau kept: loose cards.
    unsaid: tuple[int, ...] = ()


class Reader:
    """Loads the shipped models once; reads any number of photos."""

    def __init__(self, finder: CardFinder | None = None, classifier: CardClassifier | None = None,
                 min_confidence: float = MIN_CONFIDENCE, concurrent: int = 1, threads: int | None = None,
                 second_look: bool = True, quick_look: bool = True, far_look: bool = True, table_look: bool = True,
                 outline_look: bool = True, lattice_refiner: LatticeRefiner | WideThenFine | None = None,
                 refine_lattice: bool = True, dim_look: bool = True):
        """``concurrent``: how many reads this process runs at once (the cores are shared out);
        ``threads``: threads per inference, if not those (``vision/runtime.py``, ``threads``);
        ``second_look``: look again, straightened, at tableaux seen obliquely or with cells where
        no card was found, and at groups of cards no lattice fitted (benchmarks turn it off to
        measure what it buys); ``quick_look``: try the finder on a small canvas first (``QUICK_SIZE``);
        ``far_look``: look closer round small loose cards for a far tableau (``_look_at_far_cards``);
        ``table_look``: look for more tableaux on the table's plane straightened (``_look_at_the_table``);
        ``outline_look``: read a tableau mostly in doubt again on its outline (``_read_on_outlines``),
        and cut a loose group no look fits on its outline (``_fit_outlines``); ``lattice_refiner``:
        what refines each tableau's lattice as one object before its cells are cut (the shipped
        one, ``models/lattice.onnx`` checked by ``models/lattice-wide.onnx``, if not given and
        ``refine_lattice``); ``dim_look``: look at a dim photo stretched to the full range of
        light too (``dim_light``)."""
        self.finder = finder or CardFinder(concurrent=concurrent, threads=threads)
        if lattice_refiner is None and refine_lattice:
            lattice_refiner = shipped_refiner(concurrent, threads)
        self.lattice_refiner = lattice_refiner if refine_lattice else None
        self.classifier = classifier or CardClassifier(concurrent=concurrent, threads=threads)
        self.min_confidence = min_confidence
        self.second_look = second_look
        self.far_look = far_look
        self.table_look = table_look
        self.outline_look = outline_look
        self.dim_look = dim_look
        # A square-only export has one canvas, and a finder trained at QUICK_SIZE or less has no
        # smaller one to try.
        self.quick_look = quick_look and self.finder.rect and self.finder.imgsz > QUICK_SIZE

    def warm_up(self) -> None:
        """Compile the finder for every canvas a read may use (a long-running service)."""
        self.finder.warm_up(((QUICK_SIZE,) if self.quick_look else ()) + ((SECOND_LOOK_SIZE,) if self.second_look else ())
                            + CLOSER_SIZES)

    def read(self, data: bytes, classifier: CardClassifier | None = None) -> PhotoRead:
        """Read a photo; ``classifier``: what names the cells (a deck's ``CardMatcher``), if not
        the reader's own. A photo in whose finder's sure boxes no grid fits is read again on its
        less sure ones too (``UNSURE_CONF``); if that finds no tableau either, or any tableau
        without ``UNSURE_NAMED_CELLS`` cards surely named, the first refusal (its advice judged
        on the sure boxes) is the answer."""
        timings: dict[str, float] = {}
        t0 = time.perf_counter()
        photo = decode(data)
        timings["decode"] = (time.perf_counter() - t0) * 1e3
        try:
            return self._read(photo, classifier, timings)
        except NoGridError as refused:
            unsure = self._unsure_reader()
            if unsure is None:
                raise
            try:
                read = unsure._read(photo, classifier, timings)
            except NoTableauError:
                raise refused from None
            if not all(_surely_named(tableau) >= UNSURE_NAMED_CELLS for tableau in read.tableaux):
                raise refused from None
        for tableau in read.tableaux:
            tableau.doubts.append(UNSURE_DOUBT)
        return read

    def _unsure_reader(self) -> Reader | None:
        """This reader with its finder keeping boxes from ``UNSURE_CONF`` (the same networks);
        None where there is no such look (turned off, or a finder that is not the shipped kind)."""
        if UNSURE_CONF is None or not isinstance(self.finder, CardFinder) or self.finder.conf <= UNSURE_CONF:
            return None
        unsure = copy.copy(self)
        unsure.finder = self.finder.keeping_from(UNSURE_CONF)
        return unsure

    def _read(self, photo: Photo, classifier: CardClassifier | None, timings: dict[str, float]) -> PhotoRead:
        det, fits, loose = self.locate(photo, timings)
        t3 = time.perf_counter()
        if not fits:
            if len(det) <= ONE_CARD_PIECES and self._one_card_shown(photo.image, det):
                raise NoTableauError(f"{ONE_CARD}; {advice.NO_GRID()}")
            self._refuse(photo, det, error=NoGridError)
        classifier = classifier or self.classifier
        det, fits, loose = self.settle(photo, det, fits, loose, classifier)
        # Boxes beside a grid that are the table, not cards: neither "left out" nor loose cards.
        table = table_beside(photo.image, det, fits, classifier, self.min_confidence)
        loose = [i for i in loose if i not in table]
        to_original = 1 / photo.scale
        loose_quads = [det.quads[i] * to_original for i in loose]
        reads = name_tableaux(photo, det, fits, classifier, self.min_confidence)
        if self.outline_look:
            det, fits, reads = self._read_on_outlines(photo, det, fits, reads, classifier)
        t4 = time.perf_counter()
        timings["classify"] = (t4 - t3) * 1e3
        judged = self._doubt_the_photo(photo, det, fits, reads)
        reads, pattern_grids, unread_grids = judged.kept, judged.pattern_grids, judged.unread_grids
        timings["doubts"] = (time.perf_counter() - t4) * 1e3
        if not reads:  # grids of boxes were found, and none held a tableau of this deck's cards
            cards = max(len(fit.detections) for fit in fits)
            enrolled = classifier.deck if isinstance(classifier, CardMatcher) else None
            # A grid taken for a pattern is said here too: it may be the player's own deck,
            # unenrolled, read as one type throughout. So is a grid set aside with a few cards
            # named surely: a far or dark tableau of the deck, or another deck's cards a few of
            # which look like this one's (the stand-in's classifier names 2-4 of an unseen deck's
            # cards surely in some photos), which cannot be told apart: both are said (a review
            # found only the second said).
            why = (not_this_deck(cards, enrolled) + "".join(f"; {photo_doubts.pattern_doubt(g)}" for g in pattern_grids)
                   + "".join(f"; {photo_doubts.unread_doubt(g)}" for g in unread_grids))
            # A grid with some cards named surely, set aside for too few, in a blurred or dark
            # photo: the deck's own cards, the photo at fault. With none named surely the photo's
            # blur says nothing of the deck (a quarter of the unseen decks' normal photos read
            # against the stand-in are judged blurred): "not this deck", the blur advice after.
            self._refuse(photo, det, why, fits, error=NotThisDeckError, grid_cards=cards if unread_grids else None)
        # Several tableaux in one photo are no doubt in themselves: each is read (and doubted)
        # on its own, as one player. Where only one is wanted (a room), the caller says so.
        # A far, dark tableau's few boxes, fitted as a grid and set aside as no cards of the deck,
        # count with the loose cards: their group is said (a whole game's fourth tableau went
        # unsaid, its player missing from the majorities: a player's walk).
        loose_group = side_by_side(det.subset([*loose, *judged.unsaid]), LOOSE_GROUP_REACH)
        return PhotoRead(reads, loose_quads, photo.original_size, timings, photo, classifier.deck,
                         loose_group, pattern_grids, unread_grids)

    def locate(self, photo: Photo, timings: dict[str, float] | None = None
               ) -> tuple[Detections, list[TableauFit], list[int]]:
        """Where the cards and tableaux lie: (the cards found, the tableaux fitted on them, the
        cards outside every tableau). The finder's looks, the lattice fit, then the second look.
        ``timings``: gets the milliseconds of ``detect`` (the looks and the lattice fit) and ``snap``
        (the second look). Where only the quick look's small canvas fits a grid, that grid is
        taken, marked ``small_canvas``."""
        t1 = time.perf_counter()
        quick = self._quick_look(photo.image) if self.quick_look else None
        first_look = quick is None or not self._quick_enough(photo.image, *quick)
        if quick is not None and not first_look:
            det, fits, loose = quick
        else:
            det = self.find(photo.image)
            fits, loose = fit_tableaux(det, (photo.image.shape[1], photo.image.shape[0]))
        if self.far_look and fits and loose:
            det, fits, loose = self._look_at_far_cards(photo.image, det, fits, loose)
        if self.table_look and fits:
            det, fits, loose = self._look_at_the_table(photo.image, det, fits, loose)
        if len(fits) > MAX_TABLEAUX:
            self._refuse(photo, det, f"too many tableaux in one photo (grids of cards found: {len(fits)}; a game has at "
                                     f"most {MAX_TABLEAUX}): photograph the tableaux of one game")
        t2 = time.perf_counter()
        if self.second_look:
            det, fits, loose = self._snap(photo, det, fits, loose)
        if not fits and first_look and quick is not None and 0 < len(quick[1]) <= MAX_TABLEAUX:
            # The small canvas fitted a grid where the first look, and the second, fit none: big,
            # blurred cards far apart seen at a slant (a steep photo of a tableau laid with 2-4 cm
            # gaps: 10 cards boxed at 384 px, 4 at 512). Its grid is read rather than refused, and
            # says that its place is a guess (``TableauFit.small_canvas``); the second look fills
            # the cells the small canvas missed.
            det, fits, loose = self._snap(photo, *quick) if self.second_look else quick
            for fit in fits:
                fit.small_canvas = True
        _left_out_once(fits, det)
        if timings is not None:
            timings.update(detect=(t2 - t1) * 1e3, snap=(time.perf_counter() - t2) * 1e3)
        return det, fits, loose

    def settle(self, photo: Photo, det: Detections, fits: list[TableauFit], loose: list[int],
               classifier) -> tuple[Detections, list[TableauFit], list[int]]:
        """The fits as they are read: each window that is a guess placed by what its cells show
        (``place_windows``), each found card boxed off its cell cut on the lattice instead
        (``window.cut_on_the_lattice``), then each cell no card was boxed in cut again
        (``cut_unboxed_cells``).
        Part of the second look: without it (``second_look=False``) the fits are read as located."""
        if not self.second_look:
            return det, fits, loose
        det, fits, loose = self.place_windows(photo, det, fits, loose, classifier)
        self.cut_on_the_lattice(photo, fits)
        self.cut_unboxed_cells(photo, fits)
        return det, fits, loose

    def cut_on_the_lattice(self, photo: Photo, fits: list[TableauFit]) -> None:
        """Each found card boxed off its cell cut at the lattice's cell instead
        (``window.cut_on_the_lattice``); a reference cut for a deck from a photo is cut so too.
        Where the lattice refiner settles a tableau's lattice (``REFINED_SETTLED``), the refined
        lattice cuts its cells, boxed or not (``window.cut_on_a_refined_lattice``): a lattice
        fitted on boxes drifts off the far cells where the boxes are few or wrong (busy art laid
        edge to edge, whose own patches the finder boxes). The boxed cards' centres go with each
        lattice: the wide refiner's check (``WideThenFine``) takes a lattice it moves only where
        they sit on its cells. Part of the second look. Changes the fits' cells in place."""
        if not self.second_look:
            return
        size = (photo.image.shape[1], photo.image.shape[0])
        lattices = {k: lattice for k, fit in enumerate(fits) if (lattice := lattice_of(fit)) is not None}
        settled: dict[int, np.ndarray] = {}
        if self.lattice_refiner is not None and lattices:
            cards = [np.array([cell.quad.mean(0) for cell in fits[k].cells.values() if cell.detection is not None]).reshape(-1, 2)
                     for k in lattices]
            moved, last = self.lattice_refiner(photo.image, [H for H, _ in lattices.values()], still=REFINED_STILL, cards=cards)
            settled = {k: H for k, H, move in zip(lattices, moved, last) if move <= REFINED_SETTLED}
        for k, fit in enumerate(fits):
            if k in settled:
                # The card's size in the refined lattice's own cells: the first lattice's may be off in scale.
                half = card_half(np.linalg.inv(settled[k]), np.array([cell.quad for cell in fit.cells.values()]))
                cut_on_a_refined_lattice(fit, settled[k], half, LATTICE_CUT, size)
            elif k in lattices:  # a fit with no lattice has none to cut on
                cut_on_the_lattice(fit, LATTICE_CUT, LATTICE_CARDS, size, lattices[k])

    def place_windows(self, photo: Photo, det: Detections, fits: list[TableauFit], loose: list[int],
                       classifier) -> tuple[Detections, list[TableauFit], list[int]]:
        """Each tableau whose window is a guess placed where its cells show most of the deck's
        cards (``window.place_window``, read by the namer that will read it), then looked at
        again like any fit moved: its new cells straightened for the finder."""
        side = int(getattr(classifier, "imgsz", CROP_SIZE))
        placed: list[TableauFit] = []
        for k, fit in enumerate(fits):
            new = place_window(fit, photo.image, lambda crops: name_cells(classifier, crops), classifier.names, side,
                               placed + fits[k + 1:])
            if new is not fit:
                _take_loose(new, det, loose)
                det = self._look_again(photo, det, [new])
            placed.append(new)
        moved = any(new is not old for new, old in zip(placed, fits))
        return det, placed, _outside(placed, det, loose) if moved else loose

    def cut_unboxed_cells(self, photo: Photo, fits: list[TableauFit]) -> None:
        """Each cell no card was boxed in, cut again at the corner refiner's corners for it, and
        read at both cuts (``agree``: they must agree for a sure name). The lattice's cell is where
        a card should lie, not where it lies: a card the finder missed (full-bleed art edge to edge,
        a dark card) lies a little off it, and cut there it read as no card of the deck. The
        refiner sees the cell shrunk to about a card (cells hold the gaps between cards too); where
        its corners make no sense for that cut (off the cell, or of another size) the cell keeps
        its one cut. Changes the fits' cells in place."""
        refiner = getattr(self.finder, "refiner", None)
        cells = [cell for fit in fits for cell in fit.cells.values()
                 if cell.detection is None and cell.inside and cell.first_quad is None]
        if refiner is None or not cells:
            return
        quads = np.array([cell.quad.mean(0) + UNBOXED_CUT * (cell.quad - cell.quad.mean(0)) for cell in cells])
        boxes = from_quads(quads, np.ones(len(cells)))
        refined = refiner(photo.image, boxes)
        for cell, before, after in zip(cells, boxes.quads, refined.quads):
            if np.allclose(before, after):
                continue  # the refiner's corners made no sense: its cut is the lattice's alone
            cell.first_quad = cell.quad
            cell.quad = ordered_like(after, cell.quad)

    def _snap(self, photo: Photo, det: Detections, fits: list[TableauFit], loose: list[int]
              ) -> tuple[Detections, list[TableauFit], list[int]]:
        """The second look: cells looked at again, then grids fitted on outlines and wider."""
        det = self._look_again(photo, det, fits)
        det, fits, loose = self._fit_outlines(photo, det, fits, loose)
        return self._fit_wider(photo, det, fits, loose)

    def _look_again(self, photo: Photo, det: Detections, fits: list[TableauFit]) -> Detections:
        """A second look (``second_look.py``) at each tableau with cells where no card was found,
        or seen so obliquely that its cards' boxes are poor rectangles: each card it finds gives
        its cell the card's own corners, and a cell that had none its card. The fits' cells are
        changed in place; returns the detections with the cards found in empty cells added."""
        added: list[tuple[np.ndarray, float]] = []
        for fit in fits:
            skewed = oblique(fit) >= OBLIQUE_DEGREES
            if not skewed and not missing_cells(fit):
                continue
            for rc, (quad, score) in look_again(self.finder, photo.image, fit, SECOND_LOOK_SIZE).items():
                cell = fit.cells[rc]
                if cell.detection is None:
                    if not self._new_card(det, quad, cell.quad):
                        continue
                    cell.detection = len(det) + len(added)
                    added.append((quad, score))
                elif skewed:
                    cell.first_quad = cell.quad  # read too: both cuts must agree (``agree``)
                else:
                    continue  # seen from above, a found card's box is as good a cut
                cell.quad = quad
        if not added:
            return det
        return Detections.concat([det, from_quads(np.array([q for q, _ in added]), np.array([s for _, s in added]))])

    @staticmethod
    def _new_card(det: Detections, quad: np.ndarray, cell: np.ndarray) -> bool:
        """Whether a card the second look found in a cell with none is a card of its own: on
        the cell, not a neighbour's card boxed again a little off (on the hard test set such
        boxes named 4 empty-looking cells wrong)."""
        if overlap(quad, cell) < HOLE_OVERLAP:
            return False
        if len(det) == 0:
            return True
        centre = quad.mean(0)
        return bool(np.min(np.linalg.norm(det.centers - centre, axis=1) / det.sizes[:, 1]) > SAME_CARD)

    def _fit_outlines(self, photo: Photo, det: Detections, fits: list[TableauFit],
                      loose: list[int]) -> tuple[Detections, list[TableauFit], list[int]]:
        """Each group of loose cards lying side by side that no lattice fitted, or fitted only in
        part, fitted again on its outline straightened (``second_look.fit_outline``): a tableau
        seen steeply and turned, whose cards' boxes misled the lattice in the photo; where that
        finds no grid, the group's patch of cards cut in 5 × 4 (``outline_grid``: cards laid edge
        to edge, their art boxed again as cards). A new fit is kept only where no cell of it lies
        on a cell another tableau reads, and is then looked at again as every fit is (steep tuning
        set 39 -> 40 of 54, its tableaux not found 2 -> 0)."""
        groups = clusters(det.subset(loose), reach=NEIGHBOUR_REACH, min_size=OUTLINE_CARDS)
        # The biggest groups, as many as a game has tableaux: each fit is a finder run (a photo
        # of cards strewn about ran 44 of them).
        for members in sorted(([loose[k] for k in group] for group in groups), key=len, reverse=True)[:MAX_TABLEAUX]:
            found, more = fit_outline(self.finder, photo.image, det.quads[members], len(det))
            if not more and self.outline_look:
                # Cards laid edge to edge whose busy art the finder boxed again on the canvas:
                # the group's patch of not-table cut in 5 × 4 (``outline_grid``).
                found, more = fit_on_outline(photo.image, det.quads[members], len(det))
            more = [fit for fit in more if not _reaches_into(fit, fits)]  # never a cell read twice
            if not more:
                continue
            det = Detections.concat([det, found])
            det = self._look_again(photo, det, more)  # as every fit: a steep grid's cards cut twice
            fits = fits + more
            placed = set(members) - set(_outside(more, det, members))
            loose = [i for i in loose if i not in placed]
        # A tableau fitted on part of its cards, the rest left loose beside it (the lattice
        # walked off course across a steep photo): the whole group fitted again the same way,
        # and kept where that fit holds more of the cards.
        refitted: list[TableauFit] = []
        for k, fit in enumerate(fits):
            own = fit.detections
            members = self._beside(det, own, loose) if len(own) <= PARTIAL_FIT else own
            if len(members) >= len(own) + REFIT_LOOSE:
                found, more = fit_outline(self.finder, photo.image, det.quads[members], len(det))
                # The other tableaux as they stand now: those before this one already refitted.
                others = [i for other in refitted + fits[k + 1:] for i in other.detections]
                if (len(more) == 1 and len(more[0].detections) >= len(own) + REFIT_GAIN
                        # The same tableau, fitted on more of its cards: not a neighbour's beside it
                        # (a far tableau's cards in a chain with this one's corner were fitted
                        # in its stead, and this one's 15 cards left loose). Most, not all: only a
                        # card the old fit held by mistake falls out, loose again.
                        and covers(more[0], det.centers[own], each=True).sum() > REFIT_KEEPS * len(own)
                        and not covers(more[0], det.centers[others])  # never a card read twice
                        and not _reaches_into(more[0], refitted + fits[k + 1:])):
                    det = Detections.concat([det, found])
                    det = self._look_again(photo, det, more)
                    fit = more[0]
                    # The old fit's cards the new one leaves out are loose again, not lost.
                    loose = _outside([fit], det, sorted(set(loose) | set(own)))
            refitted.append(fit)
        return det, refitted, loose

    def _fit_wider(self, photo: Photo, det: Detections, fits: list[TableauFit],
                   loose: list[int]) -> tuple[Detections, list[TableauFit], list[int]]:
        """Each tableau whose window is a guess fitted again with more of the photo round it
        (``second_look.fit_wider``), and the new fit kept where it holds every card of the old
        one and more, and no other tableau's card or read cell: the line of cards the old
        window missed. The new fit is then looked at again like any fit.

        On the steep test set 9 of its 12 tableaux "not found" were read a row or column off
        (far cards missed along one edge); with this, 4 are left (the wider fit alone: 151 of
        178 tableaux exact against 145), hard and normal as before, 0 confident wrong (tuning
        sets: hard +1, steep and other decks the same). The model card has the rest."""
        kept: list[TableauFit] = []
        for k, fit in enumerate(fits):
            if fit.ambiguous_window:
                found, more = fit_wider(self.finder, photo.image, fit, len(det))
                own_centres = det.centers[fit.detections]
                neighbours = kept + fits[k + 1:]
                # The canvas may show a neighbour's tableau too: the fit on this one's cards.
                holds = {id(f): covers(f, own_centres, each=True) for f in more}
                new = max(more, key=lambda f: (int(holds[id(f)].sum()), len(f.detections)), default=None)
                if new is not None and _holds_more(new, fit, det, neighbours):
                    det = Detections.concat([det, found])
                    # Looked at again as every fit is: a steep grid's cards cut twice (the two
                    # cuts must agree), its empty cells looked at once more.
                    det = self._look_again(photo, det, [new])
                    fit = new
                    loose = _outside([fit], det, loose)
            kept.append(fit)
        return det, kept, loose

    @staticmethod
    def _beside(det: Detections, own: list[int], loose: list[int]) -> list[int]:
        """A tableau's cards and the loose cards lying side by side with them, in a chain."""
        group = own + loose
        members = set(own)
        for component in clusters(det.subset(group), reach=NEIGHBOUR_REACH, min_size=1):
            if any(k < len(own) for k in component):  # the group lists the tableau's own cards first
                members |= {group[k] for k in component}
        return sorted(members)

    def _one_card_shown(self, image: np.ndarray, det: Detections) -> bool:
        """Whether ``image`` shows one card, ``det`` (its boxes) pieces of it: a scan cut to the
        card (boxed whole, zoomed out), or one card over ``ONE_CARD_SHARE`` of the photo, boxed
        alone zoomed out, every box of ``det`` on it."""
        h, w = image.shape[:2]
        quad: np.ndarray | None
        if card_shaped(image) and boxed_whole(self.finder, self.finder.imgsz, image):
            quad = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
        else:
            try:
                quad = find_one_card(self.finder, self.finder.imgsz, image)
            except SeveralCards:
                return False
        if quad is None or quad_area(quad) < ONE_CARD_SHARE * h * w:
            return False
        return bool(np.all(points_in_quads(det.centers, quad[None])[:, 0])) if len(det) else True

    @staticmethod
    def _refuse(photo: Photo, det: Detections, why: str | None = None,
                fits: list[TableauFit] | None = None, error: type[NoTableauError] = NoTableauError,
                grid_cards: int | None = None) -> NoReturn:
        """Refuse the photo, saying ``why`` (else: no grid found) and how to retake it (too steep,
        too far, too dark...), whichever refusal it is: a grid too steep to read is often read as
        cards of no type of the deck. The angle is judged on the ``fits`` where there are some,
        else on the boxes of the biggest group of cards. ``grid_cards``: the grids' cards read as
        none of the deck's; in a photo too blurred or too dark to name cards in, that is the photo's
        fault first, not the deck's ("enrol your deck" would send the player the wrong way)."""
        no_grid = why is None
        # "0 cards detected, but no 5 × 4 grid" read oddly (a walk: a photo of a wall).
        why = why or ("no tableau found: no card detected in the photo" if len(det) == 0 else
                      f"no tableau found: {len(det)} card{'s' if len(det) != 1 else ''} detected, "
                      f"but no 5 × 4 grid of at least 5 aligned cards")
        if fits:
            steep = max(photo_doubts.seen_squeeze(fit) for fit in fits)
        else:
            groups = clusters(det, reach=NEIGHBOUR_REACH, min_size=MIN_CARDS)
            biggest = max(groups, key=len) if groups else []
            steep = photo_doubts.box_squeeze([float(det.sizes[i, 0] * det.sizes[i, 1]) for i in biggest])
        tips = photo_doubts.photo_advice(photo.image, list(det.sizes[:, 1]), 1 / photo.scale, steep, no_grid,
                                         det.quads)
        if grid_cards is not None and any((advice.which(tip) or (None,))[0] in (advice.BLURRED, advice.TOO_DARK) for tip in tips):
            why, error = cannot_name(grid_cards), NoTableauError
        raise error(why + "".join(f"; {tip}" for tip in tips))

    @staticmethod
    def _doubt_the_photo(photo: Photo, det: Detections, fits: list[TableauFit], reads: list[TableauRead]) -> JudgedGrids:
        """Drop lattices with too few cards of the deck to be a tableau (a cloth's checks, a play
        mat's printed slots, a screenshot's lines of text, another deck's cards: ``is_card``) or
        that read as one look repeated (``one_look``), and add what the photo itself says to each
        tableau: how to retake it. Returns the tableaux kept, the grids taken for a pattern, and
        those set aside that may yet be a player's (``unread_grid``); with no tableau left, ``_read``
        refuses the photo on them."""
        kept, pattern_grids, unread_grids = [], [], []
        kept_fits: list[TableauFit] = []
        unsaid: list[int] = []  # the boxes of lattices set aside without a word
        for fit, read in zip(fits, reads):
            evidence = photo_doubts.card_evidence(read.cells)
            if photo_doubts.is_phantom(evidence):
                unread = photo_doubts.unread_grid(sum(cell.detected for cell in read.cells), sum(evidence))
                if unread is not None:
                    unread_grids.append(unread)
                elif len(fit.detections) <= BESIDE_MAX_BOXES:  # a row or two: perhaps a tableau's, left out
                    unsaid.extend(fit.detections)
                continue
            pattern = photo_doubts.one_look([(cell.type.value, cell.card_evidence) for cell in read.cells
                                             if cell.type is not None])
            if pattern is not None:
                pattern_grids.append(pattern)
                continue
            widths = [det.sizes[i, 1] for i in fit.detections]
            unsure = {(cell.row, cell.col) for cell in read.cells if cell.doubts}
            seen = photo_doubts.look(photo.image, fit, widths, 1 / photo.scale, unsure)
            if fit.small_canvas:  # its cells outside the photo follow a guessed grid, not the tableau
                seen = replace(seen, cells_outside=0)
            retake = photo_doubts.retake_advice(seen, bool(read.doubts), unsure)
            read.doubts = [*without_glared_foreigners(read.doubts, read.cells, set(seen.glare)), *retake]
            kept.append(read)
            kept_fits.append(fit)
        boxes = [sum(cell.detected for cell in read.cells) for read in kept]
        for k in reversed(range(len(kept))):
            doubted = sum(cell.shown and any(d != AMONG_DOUBTS for d in cell.doubts) for cell in kept[k].cells)
            best = max((b for j, b in enumerate(boxes) if j != k), default=0)
            if photo_doubts.misread_beside(boxes[k], doubted, best):
                unread_grids.append(UnreadGrid(boxes[k], sum(photo_doubts.card_evidence(kept[k].cells)), doubted))
                del kept[k], kept_fits[k], boxes[k]
        without_wrong_deck_where_the_deck_reads(kept)
        read_cells = np.array([cell.quad for f in kept_fits for cell in f.cells.values()]).reshape(-1, 4, 2)
        said_beside: set[int] = set()
        for fit, read in zip(kept_fits, kept):
            beside = _left_beside(det, fit, unsaid, read_cells)
            said_beside.update(beside)
            read.left_out = [det.quads[i] / photo.scale for i in [*fit.off_grid, *beside]]
            if not beside:
                continue
            # One doubt for all the cards left out: those in line and loose, and these.
            said = left_out_doubt(len(fit.off_grid)) if fit.off_grid else None
            if said in read.doubts:
                read.doubts[read.doubts.index(said)] = left_out_doubt(len(fit.off_grid) + len(beside))
            else:
                read.doubts.append(left_out_doubt(len(beside)))
        left = [i for i in dict.fromkeys(unsaid) if i not in said_beside]
        if left and len(read_cells):
            on_cells = np.asarray(points_in_quads(det.centers[left], read_cells).any(1))
            left = [i for i, on in zip(left, on_cells.tolist()) if not on]
        return JudgedGrids(kept, pattern_grids, unread_grids, tuple(left))

    def _read_on_outlines(self, photo: Photo, det: Detections, fits: list[TableauFit], reads: list[TableauRead],
                          classifier) -> tuple[Detections, list[TableauFit], list[TableauRead]]:
        """Each tableau read with most of its cells in doubt, read again on its outline cut in
        5 × 4 (``outline_grid``): cards laid edge to edge, whose busy art the finder boxed as
        cards of its own. The new read stands where fewer of its cells are in doubt and no fewer
        are named surely. A card the old lattice left out beside it is said of the new one too
        where the outline does not hold it; a tableau the frame cuts has no outline of its own
        (``card_region``).
        Tuning decks: 408 -> 408 of 448, the stand-in's 200 -> 201 of 213, six more mosaic decks
        132 -> 136 of 144; held out 0 lost (the model card has the rest)."""
        tried: list[tuple[int, Detections, TableauFit]] = []  # (tableau, its outline's cards, their fit)
        offset = len(det)
        for k in [k for k, read in enumerate(reads) if _doubted(read) >= OUTLINE_DOUBTED]:
            cards, more = fit_on_outline(photo.image, fits[k], offset)
            if len(more) == 1:
                # A card the old lattice left out beside it is still left out if the outline
                # does not hold it (a box of the art's patches on its cells is the tableau's own).
                more[0].off_grid = [i for i in fits[k].off_grid if not covers(more[0], det.centers[[i]])]
                tried.append((k, cards, more[0]))
                offset += len(cards)
        if not tried:
            return det, fits, reads
        # Named in one go: a photo of several tableaux in doubt decodes its detail once.
        named = name_tableaux(photo, Detections.concat([det, *(cards for _, cards, _ in tried)]),
                              [fit for _, _, fit in tried], classifier, self.min_confidence)
        # Only the cards of the reads that stand join the photo's: an outline's not taken would be
        # its tableau's cards boxed twice (a refusal counts the photo's boxes, and advises on them).
        index, kept, start = list(range(len(det))), [det], len(det)
        for (k, cards, fit), read in zip(tried, named):
            if _doubted(read) < _doubted(reads[k]) and _named_without_doubt(read) >= _named_without_doubt(reads[k]):
                index += range(start, start + len(cards))
                _renumber(fit, index)  # (its own cards' indices and the photo's are all it holds)
                kept.append(cards)
                start += len(cards)
                fits[k], reads[k] = fit, read
            else:
                index += [-1] * len(cards)
        return Detections.concat(kept), fits, reads

    def _quick_look(self, image: np.ndarray) -> tuple[Detections, list[TableauFit], list[int]] | None:
        """The finder on the small canvas (``QUICK_SIZE``) and the lattice fitted on its cards;
        None: too few cards for a tableau."""
        det = _not_too_many(self.finder(image, QUICK_SIZE))
        if len(det) < MIN_CARDS:
            return None
        fits, loose = fit_tableaux(det, (image.shape[1], image.shape[0]))
        return det, fits, loose

    def _quick_enough(self, image: np.ndarray, det: Detections, fits: list[TableauFit], loose: list[int]) -> bool:
        """Whether the quick look answers the photo: one tableau of big cards, no group of loose
        cards lying side by side (a neighbour's tableau cut by the frame), and no loose card beside
        it unless every cell of its grid in the photo holds a card."""
        smallest = float(det.sizes[:, 1].min()) * QUICK_SIZE / max(image.shape[:2])
        if len(fits) != 1 or fits[0].ambiguous_window or smallest < QUICK_CARD_PX:
            return False
        if not loose:
            return True
        if side_by_side(det.subset(loose)):
            return False
        # A loose card beside a grid with an empty cell in the photo may be the tableau's own card,
        # boxed off its cell: look properly. Beside a grid without one (its cells cut by the frame
        # aside) it is a card of no tableau (a draw pile, a card face down), and the first look
        # cost those photos 30-50 ms for the same read (2026-11-29).
        return not missing_cells(fits[0]) or len(self._beside(det, fits[0].detections, loose)) == len(fits[0].detections)

    def _look_at_far_cards(self, image: np.ndarray, det: Detections, fits: list[TableauFit], loose: list[int]
                           ) -> tuple[Detections, list[TableauFit], list[int]]:
        """A closer look round small loose cards: a neighbour's tableau behind the player's, seen
        at a slant, of which the first look boxed one or a few cards, too few for a grid, and
        which lie in one group with the player's big cards, so the closer look at small groups
        (``_zoom_small_groups``) passes them by. The cards it finds are fitted on their own (the
        tableaux already fitted stand as they are) and a grid kept where it reaches into none of
        theirs. Runs only for photos with such cards: a loose card a player's tableau's size
        costs nothing. Steep tuning sets 51 -> 51 of 54 and 115 -> 116 of 136, nothing lost
        elsewhere; the model card has the rest."""
        to_input = self.finder.imgsz / max(image.shape[:2])
        h, w = image.shape[:2]
        near = float(np.median([det.sizes[i, 1] for fit in fits for i in fit.detections]))
        far = [i for i in loose if det.sizes[i, 1] * to_input < FAR_CARD_PX and det.sizes[i, 1] < FAR_RATIO * near]
        if not far:
            return det, fits, loose
        cells = np.array([cell.quad for fit in fits for cell in fit.cells.values()])
        found = []
        replaced = np.zeros(len(det), bool)
        near_boxes = det.quads[np.setdiff1d(np.arange(len(det)), far)]
        # The biggest groups first, at most MAX_TABLEAUX looks: a table strewn with small cards
        # costs a bounded number of finder runs.
        for group in sorted(clusters(det.subset(far), min_size=1), key=len, reverse=True)[:MAX_TABLEAUX]:
            members = np.array([far[k] for k in group])
            closer, _ = self._closer_look(image, det, list(members), FAR_PAD)
            # Only cards of no fitted tableau's cell, and on no card but the far ones.
            closer = closer.subset(~points_in_quads(closer.centers, cells).any(1)
                                   & ~points_in_quads(closer.centers, near_boxes).any(1))
            # A far card the closer look boxed again is its box from then on, as in the closer look
            # at small groups: the first look's box of a small blurred card is often poor (a card's
            # box 114 x 34 px beside its neighbours' 66 x 46), and the lattice fits on none of them.
            # (The window is drawn round its far cards with room: each lies wholly inside it.)
            replaced[members[boxed_again(det.subset(members), closer)]] = True
            found.append(closer)
        new = Detections.concat(found)
        # None the first look has already, but for its far cards boxed again.
        new = new.subset(~points_in_quads(new.centers, det.quads[~replaced]).any(1))
        if len(new) == 0:
            return det, fits, loose
        boxes = np.concatenate([new.centers, new.sizes, new.angles[:, None]], 1)
        new = new.subset(np.sort(fast_nms(boxes, new.scores, self.finder.iou)))
        # The far cards fitted on their own: the tableaux already fitted stand as they are.
        kept = [i for i in far if not replaced[i]]
        more, _ = fit_tableaux(Detections.concat([det.subset(kept), new]), (w, h))
        more = [fit for fit in more if not _reaches_into(fit, fits)]
        if not more:
            return det, fits, loose
        index = kept + list(range(len(det), len(det) + len(new)))  # the far cards' fit's indices to det's
        for fit in more:
            _renumber(fit, index)
        det = Detections.concat([det, new])
        # A far card boxed again whose new box a kept grid holds is that grid's card, though its
        # poor box's centre lie between its cells: neither loose nor "left out" of another grid.
        held = det.subset([i for fit in more for i in fit.detections])
        candidates = np.flatnonzero(replaced)
        stale = set(candidates[boxed_again(det.subset(candidates), held)].tolist())
        for fit in fits:
            fit.off_grid = [i for i in fit.off_grid if i not in stale]
        fits = fits + more
        # As fit_tableaux has it: a card on a new cell (its card, or the same card boxed again)
        # is loose no more. (Whose "left out" card it is, is judged once at the end of locate.)
        return det, fits, [i for i in _outside(more, det, loose) if i not in stale]

    def _look_at_the_table(self, image: np.ndarray, det: Detections, fits: list[TableauFit], loose: list[int]
                           ) -> tuple[Detections, list[TableauFit], list[int]]:
        """A steep photo's table looked at straightened on the plane of its best-found tableau
        (``second_look.fit_table``): a neighbour's tableau seen at 25-30 degrees behind the
        player's, of which the finder boxed none in the photo, is found there as a whole and
        fitted. A tableau found there is kept where it reaches into none already fitted, and
        holds none of their cards; and the grid the table was straightened on, placed on a few
        of its cards' boxes, is replaced by its fit there where that holds all its cards and more.
        Runs only for a grid seen steeply (``TABLE_SQUEEZE``): one finder run on TABLE_SIZE."""
        fit = max(fits, key=lambda f: len(f.detections))
        if photo_doubts.squeeze(fit) <= TABLE_SQUEEZE:
            return det, fits, loose
        found, more = fit_table(self.finder, image, fit, len(det), TABLE_SIZE)
        every = Detections.concat([det, found])
        others = [other for other in fits if other is not fit]
        # The grid itself fitted again there stands for it where it holds every card of it and
        # more (a steep grid placed on a few of its cards' boxes; the wider fit's rule).
        again = [new for new in more if _holds_more(new, fit, det, others)]
        stand = max(again, key=lambda f: len(f.detections)) if again else fit
        standing = others + [stand]
        theirs = every.centers[[i for other in standing for i in other.detections]]
        new = [f for f in more if f is not stand and not _reaches_into(f, standing) and not covers(f, theirs)]
        if stand is fit and not new:
            return det, fits, loose
        changed = new + ([stand] if stand is not fit else [])
        # Only the cards the kept tableaux hold join the photo's: the rest of the table's boxes
        # (the player's cards boxed again, a cloth's squares) would be "left out" or loose cards.
        used = sorted({i for f in changed for cell in f.cells.values()
                       for i in ([cell.detection] if cell.detection is not None else []) + cell.duplicates + cell.found_twice}
                      | {i for f in changed for i in f.off_grid})
        index = dict(zip(used, range(len(det), len(det) + len(used))))
        for f in changed:
            _renumber(f, index)
        det = Detections.concat([det, found.subset(np.array([i - len(det) for i in used], int))])
        # A loose card on a new tableau's cell is loose no more (its card, or the same card boxed again).
        return det, [stand if f is fit else f for f in fits] + new, _outside(changed, det, loose)

    def _closer_look(self, image: np.ndarray, det: Detections, cards: list[int], pad: float
                     ) -> tuple[Detections, tuple[int, int, int, int]]:
        """The finder on a window round ``cards`` with ``pad`` card lengths of room, magnified so
        their short side is about CLOSER_CARD_PX at its input: the cards it boxes wholly inside
        the window (one its edge cuts is seen in part), in photo pixels, and the window."""
        h, w = image.shape[:2]
        card = float(np.median(det.sizes[cards, 1]))  # the cards' short side, photo pixels
        quads = det.quads[cards].reshape(-1, 2)
        room = pad * float(np.median(det.sizes[cards, 0]))
        x0, y0 = np.maximum(np.floor(quads.min(0) - room), 0).astype(int)
        x1, y1 = np.minimum(np.ceil(quads.max(0) + room), [w, h]).astype(int)
        window = (int(x0), int(y0), int(x1), int(y1))
        want = max(x1 - x0, y1 - y0) * CLOSER_CARD_PX / card
        closer = self.finder(image[y0:y1, x0:x1], next((s for s in CLOSER_SIZES if s >= want), CLOSER_SIZES[-1]))
        closer = closer.shifted((x0, y0))
        return closer.subset(wholly_inside(closer.quads, window, (w, h))), window

    def find(self, image: np.ndarray) -> Detections:
        """The cards in a photo: the finder's look, then a closer look at small ones (each
        refused with more cards than a game's tableaux hold: ``_not_too_many``); a dim photo's
        looked at as it is and stretched (``dim_light``), the boxes of both kept. The closer
        looks at a dim photo's far tableaux are where its stretched look finds most. The stretched
        look only adds: where it (or both together) boxes more cards than a game holds (a cloth's
        pattern lifted with the cards), the photo as it is stands, never refused for it."""
        det = self._look(image)
        if not (self.dim_look and is_dim(image)):
            return det
        try:
            return _not_too_many(self._merged([det, self._look(stretched(image))]))
        except NoTableauError:
            return det

    def _look(self, image: np.ndarray) -> Detections:
        """The finder's look and its closer looks at small groups, each held to a game's cards."""
        return _not_too_many(self._zoom_small_groups(image, _not_too_many(self.finder(image))))

    def _merged(self, looks: list[Detections]) -> Detections:
        """Several looks' boxes as one, a card boxed by more than one kept once (the finder's NMS)."""
        merged = Detections.concat(looks)
        boxes = np.concatenate([merged.centers, merged.sizes, merged.angles[:, None]], 1)
        return merged.subset(np.sort(fast_nms(boxes, merged.scores, self.finder.iou)))

    def _zoom_small_groups(self, image: np.ndarray, det: Detections) -> Detections:
        """Look again, closer, where cards are small (a far tableau, several in one photo).

        Cards under ~24 px at the finder's input are often missed. Each group of such cards is
        cut out with room for a missed row or column around it and run through the finder on
        its own, which magnifies it several times. The cut is a window, as in tiled detection:
        the closer look's boxes replace the first look's only for cards wholly inside it, and a
        card the window's edge cuts (a loose card beside the group, a neighbour's big card) is
        kept from the first look, never from a closer look that saw only part of it. A card the
        first look found that the closer look did not box again is kept too: a dark, blurred
        window can show the closer look fewer cards (a hard tuning photo: 35 cards found, 20
        left after the closer look, two of its three tableaux lost)."""
        if len(det) == 0:
            return det
        to_input = self.finder.imgsz / max(image.shape[:2])
        h, w = image.shape[:2]
        replaced = np.zeros(len(det), bool)
        found = []
        small = [group for group in clusters(det) if float(np.median(det.sizes[group, 1])) * to_input < SMALL_CARD_PX]
        biggest = sorted(sorted(range(len(small)), key=lambda g: len(small[g]), reverse=True)[:MAX_TABLEAUX])
        for group in (small[g] for g in biggest):  # the biggest groups (a game's tableaux), in their own order
            closer, window = self._closer_look(image, det, group, SMALL_GROUP_PAD)
            # Boxed again (``boxed_again``): a box the first look drew round two small cards is
            # dropped, not kept beside them.
            replaced |= wholly_inside(det.quads, window, (w, h)) & boxed_again(det, closer)
            found.append(closer)
        if not found:
            return det
        # Closer looks overlap where groups lie close: one card may be found by two of them.
        return self._merged([det.subset(~replaced), *found])


def _doubted(read: TableauRead) -> int:
    """Cells the photo shows with any doubt ("most cells of this photo are in doubt" too; a cell
    outside the photo, "not read", is no sign of a lattice off its cards)."""
    return sum(cell.shown and bool(cell.doubts) for cell in read.cells)


def _named_without_doubt(read: TableauRead) -> int:
    """Cells named a type with no doubt (not ``_surely_named``'s confidence: no doubt at all)."""
    return sum(cell.type is not None and not cell.doubts for cell in read.cells)


def _left_out_once(fits: list[TableauFit], det: Detections) -> None:
    """A card "in line with the grid but left out" of one tableau that lies in another's cell,
    or is another's card, is that tableau's: not said of the first (a far neighbour's grid named
    the near tableau's edge cards so, and the near grid a far card). Judged once, on the grids
    as the second look left them."""
    if len(fits) < 2:
        return
    for fit in fits:
        others = [other for other in fits if other is not fit]
        theirs = {i for other in others for i in other.detections}
        fit.off_grid = [i for i in fit.off_grid
                        if i not in theirs and not any(covers(other, det.centers[[i]]) for other in others)]


def _renumber(fit: TableauFit, index: Sequence[int] | Mapping[int, int]) -> None:
    """A fit made on some of the detections, its indices made those of all (``index[k]``)."""
    fit.off_grid = [index[i] for i in fit.off_grid]
    for cell in fit.cells.values():
        cell.detection = None if cell.detection is None else index[cell.detection]
        cell.duplicates = [index[i] for i in cell.duplicates]
        cell.found_twice = [index[i] for i in cell.found_twice]


def _holds_more(new: TableauFit, fit: TableauFit, det: Detections, others: list[TableauFit]) -> bool:
    """Whether ``new``, ``fit`` fitted again on more of the photo, may stand for it: it holds
    every card of ``fit`` (``det``) and more, as closely to its lattice as any fit kept, and no
    card or cell of the ``others``."""
    theirs = det.centers[[i for other in others for i in other.detections]]
    return bool(covers(new, det.centers[fit.detections], each=True).all() and len(new.detections) > len(fit.detections)
                and new.residual <= MAX_RESIDUAL and not covers(new, theirs) and not _reaches_into(new, others))


def _take_loose(fit: TableauFit, det: Detections, loose: list[int]) -> None:
    """A cell of ``fit`` with no card found takes the loose card lying on it (its centre inside):
    a window moved onto a line of cards the lattice had left beside it finds them boxed."""
    held = set(fit.detections)
    free = [i for i in loose if i not in held]
    if not free:
        return
    for cell in fit.cells.values():
        if cell.detection is None:
            on = [i for i, inside in zip(free, points_in_quads(det.centers[free], cell.quad[None])[:, 0]) if inside]
            if on:
                cell.detection = max(on, key=lambda i: det.scores[i])
                free.remove(cell.detection)


def _not_too_many(det: Detections) -> Detections:
    """``det``, or NoTableauError with more cards than ``MAX_PHOTO_CARDS``: checked before the
    lattice and the closer looks are spent on them."""
    if len(det) > MAX_PHOTO_CARDS:
        raise NoTableauError(f"too many cards in one photo ({len(det)} found; the tableaux of a game hold at most "
                             f"{MAX_PHOTO_CARDS - LOOSE_CARDS}): photograph the tableaux of one game")
    return det


def _left_beside(det: Detections, fit: TableauFit, boxes: list[int], read_cells: np.ndarray) -> list[int]:
    """Which of ``boxes`` (cards of a lattice set aside without a word) lie beside ``fit``'s
    cards, on no cell a tableau reads (``read_cells``), boxed surely: a tableau's fifth row,
    fitted apart as a grid of its own, read as no cards and dropped, left the tableau "read"
    whole and final, its row unsaid (a 5 x 5 layout: an attack on a running server)."""
    own = fit.detections
    if not boxes or not own:
        return []
    candidates = [i for i in dict.fromkeys(boxes) if det.scores[i] >= BESIDE_SCORE]
    if not candidates:
        return []
    centres = det.centers[candidates]
    off_cells = ~points_in_quads(centres, read_cells).any(1)
    gaps = np.linalg.norm(centres[:, None, :] - det.centers[own][None, :, :], axis=2).min(1)
    reach = NEIGHBOUR_REACH * np.maximum(det.sizes[candidates, 0], np.median(det.sizes[own, 0]))  # card lengths
    beside = np.flatnonzero(off_cells & (gaps <= reach))
    # One card boxed twice (whole, or in parts) is one card: boxes closer than half a card of the
    # tableau's apart are counted once, and not again where a card in line with the grid and
    # left out (``off_grid``, said already) is that card.
    half_card = float(np.median(det.sizes[own, 1])) / 2
    counted = list(det.centers[fit.off_grid])
    cards: list[int] = []
    for k in sorted(beside, key=lambda k: -det.scores[candidates[k]]):
        if all(np.linalg.norm(centres[k] - c) > half_card for c in counted):
            cards.append(int(k))
            counted.append(centres[k])
    return [candidates[k] for k in cards]


def _reaches_into(fit: TableauFit, others: list[TableauFit]) -> bool:
    """Whether a cell of ``fit`` lies on a cell another tableau reads (its centre inside it),
    found card or not: a card read in two tableaux would be scored twice."""
    read = np.array([cell.quad for other in others for cell in other.cells.values() if cell.inside]).reshape(-1, 4, 2)
    centres = np.array([cell.quad.mean(0) for cell in fit.cells.values()])
    return bool(points_in_quads(centres, read).any())


def _outside(fits: list[TableauFit], det: Detections, cards: list[int]) -> list[int]:
    """The ``cards`` whose centre lies in no cell of ``fits``: still loose once they are fitted."""
    if not cards:
        return []
    covered = np.any([covers(fit, det.centers[cards], each=True) for fit in fits], axis=0)
    return [i for i, inside in zip(cards, covered) if not inside]




def cannot_name(cards: int) -> str:
    """Why a photo whose grids held no card of the deck is refused when the photo itself is too
    blurred or too dark to name cards in (its advice follows)."""
    # Not said as the photo's fault alone: a sharp enough photo of another deck's cards is refused
    # so too, now and then, and "take it again" was all it said (a walk: 1 of 36 such photos).
    return (f"no tableau read: a grid of {cards} cards was found, but none of them reads as a card of the deck: this photo "
            "may be too blurred or too dark to name them (take it again), or they are another deck's cards (choose their deck)")


def not_this_deck(cards: int, enrolled: str | None = None) -> str:
    """Why a photo whose only grids held no card of the deck is refused. Most often the player's
    own deck, not yet enrolled, read against the stand-in (or another deck); the rarer case is a
    grid of no cards at all (a play mat's printed slots, a cloth's checks boxed as cards). The two
    cannot be told apart surely from the cells alone (a plain deck's cards have as little detail
    as a textured cloth's squares), so the answer names both. Read against a deck the player
    ``enrolled``, "enrol it" would mislead: its references may show the cards unlike the photo
    does (a lamp, another edition), and more references cut from such a photo are what may help.
    (A deck told apart by its lettering alone is beyond the matcher: from scans or from photos,
    its photos are refused with this answer; the model card says so.)"""
    no_cards = "if no cards lie there (a play mat's printed slots, a pattern on the table), photograph the tableau itself"
    if enrolled is not None:
        return (f"no tableau read: a grid of {cards} cards was found, but none reads as a card of the deck {enrolled}: "
                "if they are its cards, this photo shows them unlike its references (another light, another edition): "
                f"enrol more of them from a photo like this one (deck add {enrolled} --photo P.jpg --grid G.txt), "
                f"or choose the right deck; {no_cards}")
    return (f"no tableau read: a grid of {cards} cards was found, but they do not read as cards of this deck: "
            f"if it is your own deck, enrol it and choose it (Deck on the page, --deck on the command line); {no_cards}")


def boxed_again(cards: Detections, by: Detections) -> np.ndarray:
    """Which of ``cards`` another look's boxes ``by`` box again: the card's centre lies on one of
    them, or one of them lies on the card (a box the first look drew round two small cards)."""
    on_theirs = points_in_quads(cards.centers, by.quads).any(1)
    return np.asarray(on_theirs | points_in_quads(by.centers, cards.quads).any(0), bool)


def wholly_inside(quads: np.ndarray, window: tuple[int, int, int, int], size: tuple[int, int],
                   margin: float = 2.0) -> np.ndarray:
    """Which boxes lie wholly inside ``window`` (x0, y0, x1, y1), ``margin`` pixels clear of
    each of its edges that is not also the photo's edge (a card cut by the photo is cut in
    both looks alike)."""
    x0, y0, x1, y1 = window
    w, h = size
    lo = np.array([x0 + margin if x0 > 0 else -np.inf, y0 + margin if y0 > 0 else -np.inf])
    hi = np.array([x1 - margin if x1 < w else np.inf, y1 - margin if y1 < h else np.inf])
    return np.all((quads >= lo) & (quads <= hi), axis=(1, 2))
