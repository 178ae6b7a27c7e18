"""The second look: a photo's tableaux fitted again where the first fit is unsure of them.

Each tableau with cells no card was found in, or seen so obliquely that its cards' boxes are poor,
is looked at again straightened (``look_again``); groups of loose cards no lattice fitted, or fitted
only in part, are fitted again on their outline (``fit_outlines``); a tableau whose window is a
guess is fitted again with more of the photo round it (``fit_wider``). The geometry of each look
is ``second_look.py``'s; this is what the reader keeps of what they find.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ecoscore.geometry import Detections

from .decode import Photo
from .fits import MAX_TABLEAUX, NEIGHBOUR_REACH, beside, holds_more, outside, reaches_into
from .lattice import SAME_CARD, TableauFit, clusters, covers
from .models import CardFinder
from .outline_grid import fit_on_outline
from .second_look import OUTLINE_CARDS, fit_outline, fit_wider, from_quads, look_again, missing_cells, oblique, overlap

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
HOLE_OVERLAP = 0.6  # a card the second look finds in a cell with none covers the cell this well (IoU)


@dataclass
class TableauRefitter:
    """The second look with one finder; ``outline_look``: a loose group no look fits is cut in
    5 × 4 on its outline (cards laid edge to edge)."""

    finder: CardFinder
    outline_look: bool = True

    def refit(self, photo: Photo, det: Detections, fits: list[TableauFit], loose: list[int]
              ) -> tuple[Detections, list[TableauFit], list[int]]:
        """The second look: cells looked at again, then grids fitted on outlines and wider."""
        det = self.look_again(photo, det, fits)
        det, fits, loose = self.fit_outlines(photo, det, fits, loose)
        return self.fit_wider(photo, det, fits, loose)

    def look_again(self, photo: Photo, det: Detections, fits: list[TableauFit]) -> Detections:
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

    def fit_outlines(self, photo: Photo, det: Detections, fits: list[TableauFit],
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
            more = [fit for fit in more if not reaches_into(fit, fits)]  # never a cell read twice
            if not more:
                continue
            det = Detections.concat([det, found])
            det = self.look_again(photo, det, more)  # as every fit: a steep grid's cards cut twice
            fits = fits + more
            placed = set(members) - set(outside(more, det, members))
            loose = [i for i in loose if i not in placed]
        # A tableau fitted on part of its cards, the rest left loose beside it (the lattice
        # walked off course across a steep photo): the whole group fitted again the same way,
        # and kept where that fit holds more of the cards.
        refitted: list[TableauFit] = []
        for k, fit in enumerate(fits):
            own = fit.detections
            members = beside(det, own, loose) if len(own) <= PARTIAL_FIT else own
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
                        and not reaches_into(more[0], refitted + fits[k + 1:])):
                    det = Detections.concat([det, found])
                    det = self.look_again(photo, det, more)
                    fit = more[0]
                    # The old fit's cards the new one leaves out are loose again, not lost.
                    loose = outside([fit], det, sorted(set(loose) | set(own)))
            refitted.append(fit)
        return det, refitted, loose

    def fit_wider(self, photo: Photo, det: Detections, fits: list[TableauFit],
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
                if new is not None and holds_more(new, fit, det, neighbours):
                    det = Detections.concat([det, found])
                    # Looked at again as every fit is: a steep grid's cards cut twice (the two
                    # cuts must agree), its empty cells looked at once more.
                    det = self.look_again(photo, det, [new])
                    fit = new
                    loose = outside([fit], det, loose)
            kept.append(fit)
        return det, kept, loose
