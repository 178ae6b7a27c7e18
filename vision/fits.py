"""Bookkeeping of the tableaux fitted on a photo's cards, shared by the reader's looks: which
cards a fit holds, which are left loose, whether two fits overlap, and the bounds on how many
tableaux and cards one photo may hold.

A fit (``lattice.TableauFit``) names its cards by their index in the photo's detections; a look
that adds detections renumbers the fits it made on a subset (``renumber``).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ecoscore.geometry import Detections, points_in_quads

from .lattice import MAX_RESIDUAL, MIN_CARDS, TableauFit, clusters, covers
from .refusals import NoTableauError

NEIGHBOUR_REACH = 1.5  # card lengths between the centres of cards lying side by side in a grid
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


def side_by_side(cards: Detections, reach: float = NEIGHBOUR_REACH) -> int:
    """Cards in the biggest group of ``cards`` lying side by side as in a grid (0: no group of
    at least a tableau's minimum); ``reach``: card lengths between neighbours' centres."""
    groups = clusters(cards, reach=reach, min_size=MIN_CARDS)
    return max(map(len, groups), default=0)


def beside(det: Detections, own: list[int], loose: list[int]) -> list[int]:
    """A tableau's cards and the loose cards lying side by side with them, in a chain."""
    group = own + loose
    members = set(own)
    for component in clusters(det.subset(group), reach=NEIGHBOUR_REACH, min_size=1):
        if any(k < len(own) for k in component):  # the group lists the tableau's own cards first
            members |= {group[k] for k in component}
    return sorted(members)


def left_out_once(fits: list[TableauFit], det: Detections) -> None:
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


def renumber(fit: TableauFit, index: Sequence[int] | Mapping[int, int]) -> None:
    """A fit made on some of the detections, its indices made those of all (``index[k]``)."""
    fit.off_grid = [index[i] for i in fit.off_grid]
    for cell in fit.cells.values():
        cell.detection = None if cell.detection is None else index[cell.detection]
        cell.duplicates = [index[i] for i in cell.duplicates]
        cell.found_twice = [index[i] for i in cell.found_twice]


def holds_more(new: TableauFit, fit: TableauFit, det: Detections, others: list[TableauFit]) -> bool:
    """Whether ``new``, ``fit`` fitted again on more of the photo, may stand for it: it holds
    every card of ``fit`` (``det``) and more, as closely to its lattice as any fit kept, and no
    card or cell of the ``others``."""
    theirs = det.centers[[i for other in others for i in other.detections]]
    return bool(covers(new, det.centers[fit.detections], each=True).all() and len(new.detections) > len(fit.detections)
                and new.residual <= MAX_RESIDUAL and not covers(new, theirs) and not reaches_into(new, others))


def take_loose(fit: TableauFit, det: Detections, loose: list[int]) -> None:
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


def not_too_many(det: Detections) -> Detections:
    """``det``, or NoTableauError with more cards than ``MAX_PHOTO_CARDS``: checked before the
    lattice and the closer looks are spent on them."""
    if len(det) > MAX_PHOTO_CARDS:
        raise NoTableauError(f"too many cards in one photo ({len(det)} found; the tableaux of a game hold at most "
                             f"{MAX_PHOTO_CARDS - LOOSE_CARDS}): photograph the tableaux of one game")
    return det


def reaches_into(fit: TableauFit, others: list[TableauFit]) -> bool:
    """Whether a cell of ``fit`` lies on a cell another tableau reads (its centre inside it),
    found card or not: a card read in two tableaux would be scored twice."""
    read = np.array([cell.quad for other in others for cell in other.cells.values() if cell.inside]).reshape(-1, 4, 2)
    centres = np.array([cell.quad.mean(0) for cell in fit.cells.values()])
    return bool(points_in_quads(centres, read).any())


def outside(fits: list[TableauFit], det: Detections, cards: list[int]) -> list[int]:
    """The ``cards`` whose centre lies in no cell of ``fits``: still loose once they are fitted."""
    if not cards:
        return []
    covered = np.any([covers(fit, det.centers[cards], each=True) for fit in fits], axis=0)
    return [i for i, inside in zip(cards, covered) if not inside]


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
