"""The finder's looks at a photo: where the cards lie, before any grid is read.

The first look on the finder's canvas, with closer looks at groups of small cards and, in a dim
photo, a look at it stretched; the quick look on a small canvas that answers most photos of one
tableau; and two looks after a lattice is fitted, for tableaux the first look boxed too few cards
of: round small loose cards (a far neighbour's tableau) and on the table straightened (a steep
photo). ``Reader.locate`` chooses which run; each gives detections in photo pixels.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ecoscore.geometry import Detections, points_in_quads

from . import photo_doubts
from .dim_light import is_dim, stretched
from .fits import (
    MAX_TABLEAUX,
    beside,
    boxed_again,
    holds_more,
    not_too_many,
    outside,
    reaches_into,
    renumber,
    side_by_side,
    wholly_inside,
)
from .lattice import MIN_CARDS, TableauFit, clusters, covers, fit_tableaux
from .models import CardFinder, fast_nms
from .refusals import NoTableauError
from .second_look import fit_table, missing_cells

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
# A loose card under this short side at the finder's input (the size the closer look magnifies
# cards to), and under FAR_RATIO of the fitted tableaux' cards, is looked at closer, with room
# round it for a tableau of FAR_PAD card lengths. The ratio keeps it to cards far behind: without
# it the same tableaux were read, and it fired on 18 of 100 normal tuning photos, not 12 (loose
# cards beside tableaux that are small themselves).
FAR_CARD_PX = CLOSER_CARD_PX
FAR_RATIO = 0.75
FAR_PAD = 3.0
# The table look (``at_the_table``): for a photo whose grid's nearest cell is this many times
# the area of its farthest (a phone 25-40 degrees above the table; of the normal and hard splits'
# true grids, 1-2 of 236-371 a set pass 3, and of their fitted grids 2 in 80 normal photos; from
# 2.0 the tuning sets read the same, at the cost of a finder run on half the hard photos and a
# third of the 12 MP ones: 2026-11-28, thirty-fourth), on a canvas this long (the
# finder's own: 640 and 768 read as many steep tuning tableaux, 174 and 175 of 190 against 174,
# and cost more: 1.37 times a steep photo's read at 768, 1.28 at 512).
TABLE_SQUEEZE = 3.0
TABLE_SIZE = 512
SMALL_GROUP_PAD = 2.2  # the closer look at a small group: room for a missed row or column round it


@dataclass
class CardLooks:
    """The finder's looks at a photo; ``dim_look``: a dim photo is looked at stretched too."""

    finder: CardFinder
    dim_look: bool = True

    def find(self, image: np.ndarray) -> Detections:
        """The cards in a photo: the finder's look, then a closer look at small ones (each
        refused with more cards than a game's tableaux hold: ``not_too_many``); a dim photo's
        looked at as it is and stretched (``dim_light``), the boxes of both kept. The closer
        looks at a dim photo's far tableaux are where its stretched look finds most. The stretched
        look only adds: where it (or both together) boxes more cards than a game holds (a cloth's
        pattern lifted with the cards), the photo as it is stands, never refused for it."""
        det = self._look(image)
        if not (self.dim_look and is_dim(image)):
            return det
        try:
            return not_too_many(self._merged([det, self._look(stretched(image))]))
        except NoTableauError:
            return det

    def _look(self, image: np.ndarray) -> Detections:
        """The finder's look and its closer looks at small groups, each held to a game's cards."""
        return not_too_many(self._zoom_small_groups(image, not_too_many(self.finder(image))))

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
            closer, window = self.closer(image, det, group, SMALL_GROUP_PAD)
            # Boxed again (``boxed_again``): a box the first look drew round two small cards is
            # dropped, not kept beside them.
            replaced |= wholly_inside(det.quads, window, (w, h)) & boxed_again(det, closer)
            found.append(closer)
        if not found:
            return det
        # Closer looks overlap where groups lie close: one card may be found by two of them.
        return self._merged([det.subset(~replaced), *found])

    def closer(self, image: np.ndarray, det: Detections, cards: list[int], pad: float
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

    def quick(self, image: np.ndarray) -> tuple[Detections, list[TableauFit], list[int]] | None:
        """The finder on the small canvas (``QUICK_SIZE``) and the lattice fitted on its cards;
        None: too few cards for a tableau."""
        det = not_too_many(self.finder(image, QUICK_SIZE))
        if len(det) < MIN_CARDS:
            return None
        fits, loose = fit_tableaux(det, (image.shape[1], image.shape[0]))
        return det, fits, loose

    def quick_enough(self, image: np.ndarray, det: Detections, fits: list[TableauFit], loose: list[int]) -> bool:
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
        return not missing_cells(fits[0]) or len(beside(det, fits[0].detections, loose)) == len(fits[0].detections)

    def at_far_cards(self, image: np.ndarray, det: Detections, fits: list[TableauFit], loose: list[int]
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
            closer, _ = self.closer(image, det, list(members), FAR_PAD)
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
        more = [fit for fit in more if not reaches_into(fit, fits)]
        if not more:
            return det, fits, loose
        index = kept + list(range(len(det), len(det) + len(new)))  # the far cards' fit's indices to det's
        for fit in more:
            renumber(fit, index)
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
        return det, fits, [i for i in outside(more, det, loose) if i not in stale]

    def at_the_table(self, image: np.ndarray, det: Detections, fits: list[TableauFit], loose: list[int]
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
        again = [new for new in more if holds_more(new, fit, det, others)]
        stand = max(again, key=lambda f: len(f.detections)) if again else fit
        standing = others + [stand]
        theirs = every.centers[[i for other in standing for i in other.detections]]
        new = [f for f in more if f is not stand and not reaches_into(f, standing) and not covers(f, theirs)]
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
            renumber(f, index)
        det = Detections.concat([det, found.subset(np.array([i - len(det) for i in used], int))])
        # A loose card on a new tableau's cell is loose no more (its card, or the same card boxed again).
        return det, [stand if f is fit else f for f in fits] + new, outside(changed, det, loose)
