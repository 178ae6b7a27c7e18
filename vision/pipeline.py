"""From a photo to read grids: decode, find cards, snap to the lattice, classify, doubt.

The ``Reader`` runs the stages and decides which run: the finder's looks (``looks.py``), the lattice
fit (``lattice.py``), the second look's refits (``refit.py``), the cells cut on each lattice
(``window.py``), named (``naming.py``), and the photo judged (``photo_doubts.py``); a photo it cannot
read is refused with its reason (``refusals.py``).

A confident wrong score is the worst outcome, so every reading carries what looked doubtful;
nothing is silently "fixed".
"""
from __future__ import annotations

import copy
import time
from dataclasses import replace
from typing import NamedTuple, NoReturn

import numpy as np

from ecoscore.geometry import CROP_SIZE, Detections, points_in_quads

from . import advice, photo_doubts
from .decode import Photo, decode
from .fits import (
    MAX_TABLEAUX,
    NEIGHBOUR_REACH,
    left_out_once,
    outside,
    renumber,
    side_by_side,
    take_loose,
)
from .lattice import MIN_CARDS, TableauFit, card_half, clusters, covers, fit_tableaux
from .lattice_refiner import SETTLED, LatticeRefiner, WideThenFine, shipped_refiner
from .looks import CLOSER_SIZES, QUICK_SIZE, CardLooks
from .matcher import CardMatcher
from .models import CardClassifier, CardFinder
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
from .refit import SECOND_LOOK_SIZE, TableauRefitter
from .refusals import ONE_CARD, NoGridError, NoTableauError, NotThisDeckError, cannot_name, not_this_deck
from .second_look import from_quads, ordered_like
from .window import cut_on_a_refined_lattice, cut_on_the_lattice, lattice_of, place_window

# A photo of one card (a scan, a card held up to the phone): the finder boxes pieces of the
# card's picture, small, and the refusal told a player who uploaded one card's scan that "3
# cards" were "small in the photo: come closer". Where no grid fits, the photo is looked at
# zoomed out (``one_card``): one card over this share of the photo, every box found lying on it
# (pieces of its picture, not cards beside it), is one card shown. A grey page, noise or a dark
# table of a card's proportions is no card (an attack found them told so).
ONE_CARD_PIECES = 40  # more boxes than this are no one card's pieces (not looked at)
ONE_CARD_SHARE = 0.02
BESIDE_SCORE = 0.6  # a card beside a tableau that a lattice set aside is said where the finder boxed it this surely
# ... and where that lattice held at most this many boxes: a row or two left out of a tableau, not
# a grid of its own (a play mat's printed slots beside a tableau, 20 boxes read as no card).
BESIDE_MAX_BOXES = 10
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
# A tableau with this many cells in doubt is read again on its outline (``_read_on_outlines``):
# a lattice half a card off reads most of its cells in doubt; a dark tableau's few doubts are not
# the outline's to settle (not tuned: about a third of the cells).
OUTLINE_DOUBTED = 6
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
        ``far_look``: look closer round small loose cards for a far tableau (``CardLooks.at_far_cards``);
        ``table_look``: look for more tableaux on the table's plane straightened (``CardLooks.at_the_table``);
        ``outline_look``: read a tableau mostly in doubt again on its outline (``_read_on_outlines``),
        and cut a loose group no look fits on its outline (``TableauRefitter.fit_outlines``); ``lattice_refiner``:
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
        quick = self.looks.quick(photo.image) if self.quick_look else None
        first_look = quick is None or not self.looks.quick_enough(photo.image, *quick)
        if quick is not None and not first_look:
            det, fits, loose = quick
        else:
            det = self.looks.find(photo.image)
            fits, loose = fit_tableaux(det, (photo.image.shape[1], photo.image.shape[0]))
        if self.far_look and fits and loose:
            det, fits, loose = self.looks.at_far_cards(photo.image, det, fits, loose)
        if self.table_look and fits:
            det, fits, loose = self.looks.at_the_table(photo.image, det, fits, loose)
        if len(fits) > MAX_TABLEAUX:
            self._refuse(photo, det, f"too many tableaux in one photo (grids of cards found: {len(fits)}; a game has at "
                                     f"most {MAX_TABLEAUX}): photograph the tableaux of one game")
        t2 = time.perf_counter()
        if self.second_look:
            det, fits, loose = self.refitter.refit(photo, det, fits, loose)
        if not fits and first_look and quick is not None and 0 < len(quick[1]) <= MAX_TABLEAUX:
            # The small canvas fitted a grid where the first look, and the second, fit none: big,
            # blurred cards far apart seen at a slant (a steep photo of a tableau laid with 2-4 cm
            # gaps: 10 cards boxed at 384 px, 4 at 512). Its grid is read rather than refused, and
            # says that its place is a guess (``TableauFit.small_canvas``); the second look fills
            # the cells the small canvas missed.
            det, fits, loose = self.refitter.refit(photo, *quick) if self.second_look else quick
            for fit in fits:
                fit.small_canvas = True
        left_out_once(fits, det)
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
                take_loose(new, det, loose)
                det = self.refitter.look_again(photo, det, [new])
            placed.append(new)
        moved = any(new is not old for new, old in zip(placed, fits))
        return det, placed, outside(placed, det, loose) if moved else loose

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
                renumber(fit, index)  # (its own cards' indices and the photo's are all it holds)
                kept.append(cards)
                start += len(cards)
                fits[k], reads[k] = fit, read
            else:
                index += [-1] * len(cards)
        return Detections.concat(kept), fits, reads

    @property
    def looks(self) -> CardLooks:
        """The finder's looks (``looks.py``), with the reader's finder as it is now (a test or a
        less sure reader may swap it)."""
        return CardLooks(self.finder, self.dim_look)

    @property
    def refitter(self) -> TableauRefitter:
        """The second look (``refit.py``), with the reader's finder as it is now."""
        return TableauRefitter(self.finder, self.outline_look)

    def find(self, image: np.ndarray) -> Detections:
        """The cards in a photo (``CardLooks.find``)."""
        return self.looks.find(image)


def _doubted(read: TableauRead) -> int:
    """Cells the photo shows with any doubt ("most cells of this photo are in doubt" too; a cell
    outside the photo, "not read", is no sign of a lattice off its cards)."""
    return sum(cell.shown and bool(cell.doubts) for cell in read.cells)


def _named_without_doubt(read: TableauRead) -> int:
    """Cells named a type with no doubt (not ``_surely_named``'s confidence: no doubt at all)."""
    return sum(cell.type is not None and not cell.doubts for cell in read.cells)


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


