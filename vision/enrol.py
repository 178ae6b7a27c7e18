"""Enrolment: turn a player's own cards into a deck's references, with the run-time install only.

Two sources. A folder in the deck layout (``<type>/*.png|jpg``): each image is a flat scan
(the card fills it) or a photo of one card on a table (the finder cuts the card out). A photo
of a tableau with the grid it shows: the reader finds the grid and each cell becomes a
reference of the type the grid names there, so the references are real cards in real light.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

import cv2
import numpy as np

from ecoscore.geometry import CARD_ASPECT, Detections, warp_quad
from ecoscore.scoring import COLS, DECK_COUNTS, ROWS, CardType, Tableau, parse_card
from ecoscore.scoring.cards import NOT_OURS, over_deck
from ecoscore.scoring.tableau import cell_at, cells_short

from . import photo_doubts, window
from .deckstore import REFERENCE_PX
from .decode import ImageError, NotAnImageError, Photo, decode, probe
from .lattice import CellFit, TableauFit
from .matcher import CardEmbedder, CardMatcher
from .one_card import SeveralCards, card_shaped, find_one_card
from .pipeline import Reader
from .refusals import NoTableauError

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".webp", ".heic", ".heif"}
MIN_CARD_PX = 96  # a card's short side in the photo, in its own pixels: less is too far to serve as a reference
# An image with a card's proportions is taken as a scan cut to the card (``one_card.card_shaped``);
# any other is a photo in which the finder must box one card: a 4:3 (1.33) or 16:9 phone photo
# with no card found is refused. The matcher's empty prototype cannot tell a bare table from a
# face when the table fills the frame (measured: faces reach 0.69 cosine with it, tables go down to 0.04).
# A card on a scanner's page (``_card_on_a_bed``): its box within 8 % of a card's proportions,
# at most half the page, and the page round it flat (95 % of its pixels within this many grey
# levels of its median, in every channel: a scanner's lid, paper; not a card's own frame with
# its lettering and pictures).
BED_CARD_ASPECT, BED_MOST_CARD, BED_FLATNESS = 0.08, 0.5, 16.0
# An image of a card's proportions with no detail in it (one colour, or a smooth gradient: a
# blank sheet) is no card, though taken whole as a scan it would be a type's reference (a
# newcomer's grey test image was enrolled as a bee, and the deck's empty cells read "bee?").
# Detail: the 99th percentile of each channel's difference from itself blurred, at 128 px wide.
# The benches' 253 faces (stand-in, 21 generated and drawn decks) measure 56 and more; a blank
# JPEG, or a sheet shaded from dark to light, 1-3.
MIN_SCAN_DETAIL = 10.0
# Cards the grid names where the finder found none, left out of a photo's references; more and
# the photo is refused (the lattice, not the finder, is then the likelier fault).
MAX_LEFT_OUT = 3
MAX_BOXED_GAPS = 2  # boxes over cells the grid calls empty (false cards on holes) a photo may have
# A grid typed for a photo is this photo's only if the cards it names as one type look alike in it
# (``_consistency``: their mean cosine less that of cards of different types). A new deck has no
# cards of its own to judge a grid by, and took another photo's grid: 81 of 180 such grids were
# enrolled (cards of one deck's other photo, 20 cards each), teaching the deck wrong pictures. Of
# the benches' photos (7 unseen decks and the stand-in, normal and hard, one tableau each): the
# right grids 0.23 and over where they enrol (the near-black deck's; generated decks 0.5 and over),
# other photos' grids -0.10 to 0.20. Judged where the grid names enough pairs of one type among
# the cards found to tell (a layout of the 11 types names none).
MIN_CONSISTENCY = 0.2
MIN_ALIKE_PAIRS = 3
# A mean can be carried by a few pairs: another photo's grid whose same-type cells fell on cards of
# one colour by chance reached 0.22-0.40, and 10 of 1,062 such grids were enrolled (the benches'
# photos as above, 25 a set, each with three other photos' grids; a newcomer's stand-in photo too).
# So each card is asked as well: of the cards whose type the grid names twice or more, the share
# whose most alike other card (cosine) the grid names that type too (``_nearest_alike``). The
# right grids that enrol: 0.82 and over (190 of 204 at 1.0); other photos' grids: at most 0.70,
# and at most 0.58 of those the mean let through (15 photos a set, 861 grids).
MIN_NEAREST_ALIKE = 0.7
# Both checks above judge a card by the cards of the grid's other types: a grid naming every card
# one type (a template left as it was, "meadow" twenty times) or two types' cards one name has few
# or none to judge by, and was taken (19 wrong pictures). So each type named for
# ``MIN_LUMP_CARDS`` cards found or more is asked too whether its cards look like one card: each
# card's most alike card of its name is its twin, and the name's pairs (their median, and their
# lowest third, for two arts in uneven numbers, 5 and 2) lie far below that where several arts
# share the name (``_lumped``). Of the benches' photos (the 7 unseen decks and the stand-in, normal
# and hard, 285 photos; 275 right grids; cards found only): right grids at most 0.24 (median) and
# 0.41 (lowest third), none asked with these limits; with the other checks, wrong grids refused:
# every card named meadow 249 of 275 (all on every deck but the silhouette one, whose different
# arts look alike), a type's cards named as one with twice as many or more 176 of 195, the two
# commonest types' cards one name 266 of 275. (A type named more often than the deck holds it is
# refused before: ``over_deck``.)
MIN_LUMP_CARDS = 4
MAX_LUMP_SPREAD = 0.3  # the median's
MAX_LUMP_SPREAD_LOW = 0.45  # the lowest third's


class EnrolError(ValueError):
    """Images that cannot become references; the message says which and why."""


class NotAnImage(EnrolError):
    """An upload that is no image at all (a 415 over HTTP, whatever its file is named)."""


def _type_of_folder(name: str) -> CardType | None:
    try:
        return parse_card(name)  # any edition's name or code: "medvěd", "орёл", "BR"
    except KeyError:
        return None


def card_from_image(reader: Reader, data: bytes, where: str) -> np.ndarray:
    """The card in an image of one card: the whole image when it has a card's proportions (a
    scan cut to the card), else the card the finder boxes in it (a phone photo of one card)."""
    try:
        photo = decode(data)
    except ImageError as err:
        raise EnrolError(f"{where}: {err}") from None
    image = photo.image
    h, w = image.shape[:2]
    if card_shaped(image):
        # A card's proportions: a scan cut to the card (zoomed out, the finder boxes the whole
        # scan as the photo's edge, and may box its picture as a small card) -- or a flatbed
        # scan of a whole A4 page (1.414, within 1 % of a card's 1.400) with the card on it.
        quad = _card_on_a_bed(reader, image, where)
        if quad is None:
            if _detail(image) < MIN_SCAN_DETAIL:
                raise EnrolError(_no_card(where))
            upright = image if h >= w else cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE)
            return cv2.resize(upright, (REFERENCE_PX, REFERENCE_PX), interpolation=cv2.INTER_AREA)
    else:
        quad = _one_card(reader, image, where)
    if quad is not None:
        short = float(min(np.linalg.norm(quad[1] - quad[0]), np.linalg.norm(quad[3] - quad[0])))
        if short / photo.scale < MIN_CARD_PX:
            raise EnrolError(f"{where}: the card is small in it (about {short / photo.scale:.0f} px wide): "
                             "come closer, the card filling much of the frame")
        quad = _portrait(quad)
        full = photo.at_least(int(max(h, w) * min(4.0, max(1.0, 2 * REFERENCE_PX / short))))
        return warp_quad(full.image, quad * (full.scale / photo.scale), REFERENCE_PX)
    raise EnrolError(_no_card(where))


def _no_card(where: str) -> str:
    return (f"{where}: no card found in it (photograph one card alone, all of it in the frame, "
            "or give a scan cut to the card's edges)")


def _detail(image: np.ndarray) -> float:
    """How much detail an image shows (``MIN_SCAN_DETAIL``), whatever its size."""
    h, w = image.shape[:2]
    small = cv2.resize(image, (128, max(1, round(128 * h / w))), interpolation=cv2.INTER_AREA).astype(np.float32)
    return float(np.percentile(np.abs(small - cv2.GaussianBlur(small, (0, 0), 6)), 99, axis=(0, 1)).max())


def _one_card(reader: Reader, image: np.ndarray, where: str) -> np.ndarray | None:
    """The corners of the one card in ``image`` (``one_card.find_one_card``); a photo of two
    cards alike is refused: which one is the type's reference would be a guess."""
    try:
        return find_one_card(reader.finder, reader.finder.imgsz, image)
    except SeveralCards as several:
        raise EnrolError(f"{where}: {several.n} cards in it: photograph one card alone") from None


def _card_on_a_bed(reader: Reader, image: np.ndarray, where: str) -> np.ndarray | None:
    """The corners of a card lying on a plain ground in an image of a card's proportions (an A4
    flatbed scan with one card on it: taken whole, a page with a card in its corner was a deck's
    reference); None: the image is the card. A card's own picture may be boxed as a small card,
    so the box must have a card's proportions, cover at most half the image, and lie on a ground
    of one colour: the page's rest, outside the card, as flat as a scanner's lid."""
    try:
        quad = _one_card(reader, image, where)
    except EnrolError:  # two cards on the page: its own refusal comes from a card's photo, not here
        return None
    if quad is None:
        return None
    h, w = image.shape[:2]
    sides = np.linalg.norm(np.roll(quad, -1, axis=0) - quad, axis=1)
    aspect = max(sides[0] + sides[2], sides[1] + sides[3]) / min(sides[0] + sides[2], sides[1] + sides[3])
    area = cv2.contourArea(quad.astype(np.float32))
    if abs(aspect / CARD_ASPECT - 1) > BED_CARD_ASPECT or area > BED_MOST_CARD * h * w:
        return None
    page = np.ones((h, w), np.uint8)
    cv2.fillConvexPoly(page, quad.astype(np.int32), 0)
    outside = cv2.erode(page, np.ones((15, 15), np.uint8))  # not the card's edge, nor its shadow
    ground = image[outside > 0].astype(np.float32)
    spread = np.percentile(np.abs(ground - np.median(ground, axis=0)), 95, axis=0)
    return quad if float(spread.max()) <= BED_FLATNESS else None


def _portrait(quad: np.ndarray) -> np.ndarray:
    """Corners ordered so the first side is a short one (the crop stands the card up)."""
    if np.linalg.norm(quad[1] - quad[0]) > np.linalg.norm(quad[3] - quad[0]):
        quad = np.roll(quad, -1, axis=0)
    return quad


def from_folder(reader: Reader, folder: Path, every_type: bool = True) -> dict[CardType, list[np.ndarray]]:
    """Reference crops from a folder in the deck layout; every type must have an image (or, with
    ``every_type`` False, for cards added to a deck that has them, at least one)."""
    if not folder.is_dir():
        raise EnrolError(f"{folder}: not a folder (expected {folder}/<type>/*.png for each of the 11 types)")
    crops: dict[CardType, list[np.ndarray]] = {card: [] for card in CardType}
    subs = sorted(p for p in folder.iterdir() if p.is_dir())
    unknown = [sub.name for sub in subs if _type_of_folder(sub.name) is None]
    # A type's images in a folder named amiss ("fxo/" beside "fox/") would be left out unsaid.
    if astray := [name for name in unknown if _images(folder / name)]:
        raise EnrolError(f"{folder}: images in folders not named after a type: {', '.join(astray)} (rename each "
                         "after its card's type, or move it out of the deck's folder)")
    for sub in subs:
        if (card := _type_of_folder(sub.name)) is not None:
            for f in _images(sub):
                crops[card].append(card_from_image(reader, f.read_bytes(), str(f)))
    missing = [card.value for card in CardType if not crops[card]]
    if missing and (every_type or len(missing) == len(CardType)):
        hint = f" (folders not named after a type: {', '.join(unknown)})" if unknown else ""
        raise EnrolError(f"{folder}: no image for {', '.join(missing)}{hint}")
    return crops


def _images(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)


# The read grid's rows run down the photo (a grid seen sideways is turned a quarter, never
# mirrored: lattice.py); the player's grid may be written from the other side of the table.
_SYMMETRIES = {
    "as written": lambda g: g,
    "turned 180°": lambda g: [row[::-1] for row in g[::-1]],
}


class _Placement(NamedTuple):
    """The grid laid on the cells read one way round."""

    agree: int  # cards where the grid has cards, less the cells where only one of them has one
    consistency: float  # how much more alike same-type cells are (``_consistency``)
    nearest: tuple[int, int]  # cards whose most alike other card is of their type, of those asked (``_nearest_alike``)
    strays: list[tuple[tuple[int, int], CardType]]  # the others: each cell, and the type of its most alike card
    lumped: list[tuple[CardType, list[tuple[int, int]]]]  # types whose cards look like several cards (``_lumped``)
    label: str
    grid: list[list[CardType | None]]
    turn: Callable[[list], list]
    mismatch: set[tuple[int, int]]  # cells where the grid and the cards found disagree
    move: tuple[int, int]  # the window's move (rows, cols) from where the cards found put it
    cells: dict[tuple[int, int], CellFit]  # the window's cells
    crops: dict[tuple[int, int], np.ndarray]  # a crop of each of its cells in the photo
    found: set[tuple[int, int]]  # its cells where a card was found


class PhotoReferences(NamedTuple):
    """What a photo of a tableau gives a deck."""

    crops: dict[CardType, list[np.ndarray]]  # reference crops by type
    left_out: list[tuple[int, int]]  # cells (row, col; as the grid is written) whose card was not found: not taken
    outside: list[tuple[int, int]]  # cells (as written) the grid names a card in, outside the photo: not taken
    advice: tuple[str, ...] = ()  # how to retake it for better references (blurred, dark...: ``enrolment_advice``)
    # Cells (as written) where a card was found and the grid has an empty place, at most
    # MAX_BOXED_GAPS (a box on a bare gap, or a typo in the grid): nothing taken from them.
    gaps: tuple[tuple[int, int], ...] = ()
    # Where each reference came from: its cell (as written), by type in the order of ``crops``.
    at: dict[CardType, list[tuple[int, int]]] | None = None
    # The grid was taken as written, the photo unable to tell it from its half turn (every card
    # of another type, laid out evenly): said with ``AS_WRITTEN_NOTE``.
    taken_as_written: bool = False
    # A grid named on the read's own cells (``as_read``) whose cards of one type do not look alike
    # (``_unlike``): the cards named unlike their own type, each with the type of the card it looks
    # most like (a card named wrong on the page, or art too fine to tell apart). Taken all the same:
    # the caller asks the player first (the page's "remember anyway").
    unlike: tuple[tuple[tuple[int, int], CardType, CardType], ...] = ()
    # The types such a grid names for cards that look like several cards, not one (``_lumped``),
    # with their cells (as written): asked about as ``unlike`` is.
    lumped: tuple[tuple[CardType, tuple[tuple[int, int], ...]], ...] = ()


AS_WRITTEN_NOTE = ("every card the grid names is of another type, so the photo cannot show which way round the grid "
                   "lies: it was taken as written, its first line the photo's top row (written from the other side of the "
                   "table? take this photo back and add it with the grid turned round)")


def left_out_note(cells: list[tuple[int, int]]) -> str:
    """What a player is told of the cells left out of a photo's references."""
    # (not "none was found": the page may have read a card there from the lattice's cut, and the
    # player saw it named: an Italian walk)
    return (f"{cells_short(cells)}: the grid names a card there, but the card's edges were not found in the photo: "
            "no picture of it taken for the deck")


# A card the grid names one type that a deck's own references name surely another: the grid is
# likelier wrong than the deck (two cards swapped in a grid taught a deck two wrong pictures
# without a word, and it read a photo 63 for 46 after: a newcomer's find).
CLASH_BELIEF = 0.95


class Clash(NamedTuple):
    """A reference the grid names one type and the deck's own cards surely another."""

    cell: tuple[int, int]  # (row, col) as the grid is written
    named: CardType  # the grid's type
    seen: str  # the deck's own cards' type
    belief: float  # how surely they say so

    def __str__(self) -> str:
        return f"{cells_short([self.cell])}: the grid says {self.named.value}, this deck's cards say {self.seen} ({self.belief:.0%})"


def clashes(matcher: CardMatcher, taken: PhotoReferences) -> list[Clash]:
    """Where a photo's references, as its grid names them, and the deck they would join
    (``matcher``, its references) disagree surely, in the grid's reading order."""
    cards = [(card, rc, crop) for card, crops in taken.crops.items() for rc, crop in zip((taken.at or {}).get(card, []), crops)]
    if not cards:
        return []
    beliefs = matcher([crop for _, _, crop in cards])
    said = []
    for (card, rc, _), p in sorted(zip(cards, beliefs), key=lambda x: x[0][1]):
        best = int(np.argmax(p[:len(CardType)]))
        if matcher.names[best] != card.value and p[best] >= CLASH_BELIEF:
            said.append(Clash(rc, card, matcher.names[best], float(p[best])))
    return said


def strangers(matcher: CardMatcher, taken: PhotoReferences) -> tuple[int, int]:
    """How many of a photo's references the deck they would join (``matcher``) reads as none of
    its types ("not ours"), of how many: a photo of another deck's cards was added to a deck
    without a word, the refusal of a wrong deck having said to add such photos (a newcomer's run)."""
    crops = [crop for crops in taken.crops.values() for crop in crops]
    if not crops:
        return 0, 0
    beliefs = matcher(crops)
    return int(sum(matcher.names[int(np.argmax(p))] == NOT_OURS for p in beliefs)), len(crops)


def strangers_note(name: str, k: int, n: int) -> str:
    """What a player is told of a photo whose cards mostly do not look like the deck's own."""
    return (f"{k} of its {n} cards do not look like deck {name}'s cards: if they are another deck's, not this deck's in "
            f"another edition or another light, ecoscore deck forget-last {name} takes this add back")


def gap_note(cells: list[tuple[int, int]]) -> str:
    """What a player is told of cards found where the grid has an empty place (a typo there went
    without a word: a newcomer's find)."""
    return (f"{cells_short(cells)}: a card was found where the grid has an empty place: nothing taken from it "
            "(check the grid there: a card written as '.'?)")


def outside_note(cells: list[tuple[int, int]]) -> str:
    """What a player is told of the cells the photo does not show (a type whose only card lies
    there was refused as "no reference for", with no word of why: a newcomer's find)."""
    return f"{cells_short(cells)}: the grid names a card there, but the cell lies outside the photo: left out of the deck"


def _refusal(err: ImageError, where: str) -> EnrolError:
    """An image enrolment cannot use, as its refusal naming it (``NotAnImage``: no image at all)."""
    return (NotAnImage if isinstance(err, NotAnImageError) else EnrolError)(f"{where}: {err}")


def check_image(data: bytes, where: str) -> None:
    """The photo's header alone, checked before any work on it (a deck loaded to read it):
    ``EnrolError`` naming it where it is no usable image."""
    try:
        probe(data)
    except ImageError as err:
        raise _refusal(err, where) from None


def _one_tableau(reader: Reader, data: bytes, where: str, at: tuple[float, float] | None = None,
                 biggest: bool = False, read_by=None) -> tuple[Photo, Detections, TableauFit]:
    """The photo's one tableau, located as a read locates it (second look included): a card the
    first look missed, or a grid seen at a slant, must not refuse an enrolment that a read of
    the same photo gets right. ``read_by``: the namer of that read (a deck's matcher, or the
    classifier), whose cells the grid was named on: a read places a window that is a guess by
    what its cells show (``Reader.settle``), and the grid must meet the cells it was named on,
    not the window before it was placed. Of several (a neighbour's in the frame): the one
    nearest ``at`` (a point in the photo's own pixels: the tableau the page showed), or with
    ``biggest`` the one with the most cards; else the photo is refused. Located on the finder's
    sure boxes only: a read may find a tableau on its less sure ones too (``pipeline.UNSURE_CONF``,
    with a doubt), but a reference is a card surely found."""
    try:
        photo = decode(data)
    except ImageError as err:
        raise _refusal(err, where) from None
    # A point far off the photo (the tableau nearest it was taken: an attack). The page's point is
    # the middle of the tableau it showed, which may lie off a photo cutting most of that tableau.
    w, h = photo.original_size
    if at is not None and not (-w / 2 <= at[0] <= 1.5 * w and -h / 2 <= at[1] <= 1.5 * h):
        raise EnrolError(f"{where}: the point {at[0]:g},{at[1]:g} lies far outside the photo ({w} × {h} pixels): "
                         "give a point on the tableau to take")
    try:
        det, fits, loose = reader.locate(photo)
        if read_by is not None and fits:
            det, fits, _ = reader.settle(photo, det, fits, loose, read_by)
        else:  # no namer to place a window by: the cards are still cut where a read cuts them
            reader.cut_on_the_lattice(photo, fits)
    except NoTableauError as err:  # e.g. more grids than a game has
        raise EnrolError(f"{where}: {err}; photograph the one tableau alone") from None
    if len(fits) > 1 and at is not None:
        point = np.array(at) * photo.scale
        return photo, det, min(fits, key=lambda fit: float(np.linalg.norm(
            np.mean([cell.quad.mean(0) for cell in fit.cells.values()], 0) - point)))
    if len(fits) > 1 and biggest:
        return photo, det, max(fits, key=lambda fit: len(fit.detections))
    if not fits:
        # Too few cards for a grid (a scan of a few cards, four laid out): "photograph the one
        # tableau alone" sent a player with a layout of 3 cards looking for a neighbour's tableau.
        raise EnrolError(f"{where}: no grid of at least 5 aligned cards found (cards found: {len(det)}): "
                         "lay at least 5 cards out in their grid, whole in the frame, or photograph each card alone")
    if len(fits) != 1:
        raise EnrolError(f"{where}: {len(fits)} tableaux found; photograph the one tableau alone")
    return photo, det, fits[0]


def _card_found(cell: CellFit) -> bool:
    """A card was found in the cell, and the photo holds it (a cell the frame cuts is not read)."""
    return cell.detection is not None and cell.inside


class CellPlace(NamedTuple):
    """Where one cell of a tableau lies in its photo, and whether a card was found there."""

    row: int
    col: int
    quad: np.ndarray  # corners in original photo pixels (TL, TR, BR, BL)
    card: bool  # a card was found there
    inside: bool  # the cell lies in the photo


class Layout(NamedTuple):
    """A tableau's cells in its photo, named by no deck: what a player names to start a deck."""

    photo: Photo
    cells: list[CellPlace]  # in reading order, as a read of the photo lays them out
    advice: list[str]  # how to retake the photo, as a read's doubts say it (cut by the frame, too steep...)


def name_it(cell: CellPlace) -> str | None:
    """The doubt of a layout's cell: a card found, to name; no card found, to check (a card the
    finder missed was scored as empty, the total shown as final: a walk); none out of view."""
    if cell.card:
        return f"{cell_at(cell.row, cell.col)}: a card no deck has read: name it, and your deck learns it"
    return f"{cell_at(cell.row, cell.col)}: no card found here: name it if one lies there, else keep it empty" \
        if cell.inside else None


def layout(reader: Reader, data: bytes, where: str) -> Layout:
    """The cells of the photo's one tableau, as a read lays them out (so a grid named on them is
    the grid ``from_photo(..., as_read=True)`` takes), and where cards were found. A player's
    own deck, read against a deck that is not theirs, gives no read to correct (each card is
    "not a card of this deck"): these are the cells they name instead."""
    photo, det, fit = _one_tableau(reader, data, where, biggest=True)  # the one a read shows first
    cells = [CellPlace(r, c, cell.quad / photo.scale, _card_found(cell), cell.inside)
             for (r, c), cell in sorted(fit.cells.items())]
    if not any(cell.card for cell in cells):
        raise EnrolError(f"{where}: no card found in the tableau's cells")
    # Said as for a read with doubts: a photo cut by the frame, steep or far teaches a deck
    # poor pictures too (a walk: a cut photo's cards just showed as empty).
    return Layout(photo, cells, enrolment_advice(photo, det, fit))


def enrolment_advice(photo: Photo, det: Detections, fit: TableauFit, cut_by_frame: bool = True) -> list[str]:
    """How to retake a photo a deck learns from: its light and blur judged as a read's doubtful
    cells are, on every cell (a blurred or dark photo teaches a deck soft or dark pictures);
    ``cut_by_frame``: say so too (else the caller says it in its own words). Not glare: a pale
    card is as washed out as a glared one (2.3 % of the normal test set's cards), so one cell in
    twenty would say it of a photo in even light."""
    every = set(fit.cells)
    seen = photo_doubts.look(photo.image, fit, [float(det.sizes[i, 1]) for i in fit.detections], 1 / photo.scale, every)
    seen = replace(seen, glare=[], cells_outside=seen.cells_outside if cut_by_frame else 0)
    return photo_doubts.retake_advice(seen, True, every)


def from_photo(reader: Reader, embedder: CardEmbedder, data: bytes, tableau: Tableau, where: str,
               as_read: bool = False, at: tuple[float, float] | None = None, read_by=None,
               advise: bool = True) -> PhotoReferences:
    """Reference crops from a photo of one tableau and the grid it shows.

    The grid may be written from any side: of its placements on the cells read, the one whose
    same-type cells look most alike (and whose cards lie where cards were found) wins; where
    two placements are equally likely the photo is refused rather than guessed, and so is a
    photo with a card found where the grid has none. A card the grid names where the finder
    found none (a card it missed: dark, glared, far) is left out and said, up to
    ``MAX_LEFT_OUT`` of them: the other cells still sit where the cards were found. ``as_read``:
    the grid lies as a read of the photo laid it out, named on its cells (any number of cards
    missed are left out); ``read_by``: the namer of that read (its cells are where it placed
    them: ``_one_tableau``); ``at``: of several tableaux, the one nearest this
    point (original pixels); ``advise``: say how to retake the photo for better references
    (``PhotoReferences.advice``; the page said it already when it laid the cells out)."""
    for over, n in over_deck(Counter(c for c in tableau.cells if c is not None)):  # (cards under one name, a typo)
        raise EnrolError(f"{where}: the grid names {n} {over.value} cards, but a deck holds only {DECK_COUNTS[over]}: "
                         "check the grid")
    photo, det, fit = _one_tableau(reader, data, where, at, read_by=read_by if as_read else None)
    if not any(tableau.cells):  # (placed either way round it would agree as well: said so, wrongly)
        raise EnrolError(f"{where}: the grid given with it names no card in the cells found (a grid of another photo?)")
    card_px = float(np.median(det.sizes[fit.detections, 1])) if fit.detections else REFERENCE_PX
    detail = photo.at_least(int(max(photo.image.shape[:2]) * min(4.0, max(1.0, REFERENCE_PX / card_px))))
    k = detail.scale / photo.scale
    grid = [list(tableau.cells[r * COLS:(r + 1) * COLS]) for r in range(ROWS)]
    # Where the cards found leave the tableau's window a guess (a row or a column of them not
    # found), the grid says where they lie: every window holding the cards found is tried. A
    # grid that names cards outside the photo there counts them against that window: a mosaic
    # deck's enrolment photo, its top two rows not found, was taken with the window hung below
    # the photo and the grid's far rows named on its near ones: ten references of wrong types.
    # A grid corrected from a read of this photo (the page's) lies as the read laid it out.
    # (With a grid of 20 cards every window scores the same agreement, twice the cards found less
    # 20: which one fits is then how alike the grid's same-type cells look in it. Each window's
    # cells are cut and embedded afresh: a few windows of 20 crops, once per enrolment photo.)
    size = (photo.image.shape[1], photo.image.shape[0])
    candidates = [((0, 0), fit)] if as_read else window.windows(fit, size)
    guessed = len(candidates) > 1
    placements = []
    for move, fitted in candidates:
        cells = {(r, c): fitted.cells[(r, c)] for r in range(ROWS) for c in range(COLS)}
        crops = {rc: warp_quad(detail.image, cell.quad * k, REFERENCE_PX) for rc, cell in cells.items() if cell.inside}
        keys = list(crops)
        vectors = embedder([crops[rc] for rc in keys])
        # Cells the frame cuts are compared with nothing: no crop is cut from them, and the read
        # itself does not name them (a photo cut by one cell was refused for it).
        found = {rc for rc, cell in cells.items() if _card_found(cell)}
        for label, turn in list(_SYMMETRIES.items())[:1 if as_read else None]:
            g = turn(grid)
            named = {(r, c) for r in range(ROWS) for c in range(COLS) if g[r][c] is not None}
            occupied = {rc for rc in named if cells[rc].inside}
            unseen = len(named - occupied) if guessed else 0
            labels = [g[r][c] for r, c in keys]
            alike, asked, strays = _nearest_alike(vectors, labels)
            placements.append(_Placement(len(occupied & found) - len(occupied ^ found) - unseen,
                                         _consistency(vectors, labels), (alike, asked),
                                         [(keys[i], like) for i, like in strays],
                                         [(card, [keys[i] for i in at]) for card, at in
                                          _lumped(vectors, [label if rc in found else None for rc, label in zip(keys, labels)])],
                                         label if not guessed else f"{label}, {_moved_by(move)}", g, turn,
                                         occupied ^ found, move, cells, crops, found))
    placements.sort(key=lambda p: (p.agree, p.consistency), reverse=True)
    best = placements[0]
    tied = [p for p in placements if p.agree == best.agree and best.consistency - p.consistency < 0.05]  # best first
    if not as_read and all(_unlike(p) for p in tied):
        # Checked before the grid's way round: another photo's grid, read alike either way round,
        # was sent to photograph the tableau again from the side the grid was written from (a
        # newcomer's run). (A grid named on this photo's own cells, the page's, was named card by
        # card, looking at them.)
        # (or a deck whose art the reader cannot tell apart from this far: a correct grid of thin
        # pastel drawings on white was refused so, the message blaming the grid alone: a helper's deck)
        raise EnrolError(f"{where}: the cards the grid names as one type do not look alike in the photo (a grid of "
                         "another photo? or art too fine or pale to tell apart from this far): check that the grid is "
                         "this photo's, card by card, or enrol the deck from scans or photos of single cards")
    upright = [p for p in tied if p.turn is _SYMMETRIES["as written"]]
    as_written_taken = len(tied) == 2 and len(upright) == 1 and not _same_type_pairs(upright[0].grid, upright[0].found)
    if as_written_taken:
        # One card of each type laid out (a scan of 9 cards, a layout of the 11): no two cards
        # look alike, so nothing in the photo tells the grid from its half turn, and a layout
        # as even as a 3 x 3 block fits the cards found either way. The grid is taken as
        # written, its first line the photo's top row, as the README asks it written; and said.
        best = upright[0]
    elif len(tied) > 1:
        second = tied[1]
        # Said the same way whichever scored a hair higher: as written first.
        one, other = sorted((best.label, second.label), key=lambda label: not label.startswith("as written"))
        if best.move != second.move:
            if len(best.found) < sum(card is not None for card in tableau.cells):
                raise EnrolError(f"{where}: cannot tell where the grid lies on the cards found (only "
                                 f"{len(best.found)} cards were found; it reads alike {one} and {other}): "
                                 "photograph the tableau again, whole in the frame, in even light and from nearer above")
            # Every card the grid names was found ("only 11 cards were found" was said wrongly).
            raise EnrolError(f"{where}: cannot tell where the grid lies on the cards found (all its {len(best.found)} "
                             f"cards were found, and it fits them alike {one} and {other}): check that "
                             "the grid is this photo's, its empty cells where no card lies")
        raise EnrolError(f"{where}: cannot tell which way the grid lies in the photo (it reads alike "
                         f"{one} and {other}); photograph it from the side the grid was written from")
    cells, crops, found = best.cells, best.crops, best.found
    # More cards found where the grid has none, or named where none was found, than a finder
    # errs by means the lattice (or the grid) sits wrong somewhere: crops cut from it would
    # teach the deck wrong pictures, so refuse. A few cards named where none was found are the
    # finder's misses (the page's "remember these cards" sends a grid the player corrected
    # exactly there): their cells are left out, the rest kept. A box or two over a gap the grid
    # calls empty is the finder's false card on a hole (the read doubts it too): nothing is cut
    # from an empty cell, so it costs nothing (a correct read of a tableau with gaps was refused).
    # A grid named ``as_read`` was named on these very cells, outlined on the photo: the player
    # has seen where the lattice sits, so any number of cards named where none was found are
    # left out, not refused (on a deck of art the finder knows badly one card in six is missed:
    # a player who had named all 20 cards was refused). Boxes over cells named empty still
    # count: the page has every card found named or set empty, so more than a couple mean a grid
    # that is not this photo's (a grid typed turned round, a photo not the one named).
    missed = {rc for rc in best.mismatch if rc not in found}
    boxed_gaps = best.mismatch - missed
    as_written = best.turn([[(r, c) for c in range(COLS)] for r in range(ROWS)])  # the symmetries are their own inverse
    if as_read and len(boxed_gaps) > MAX_BOXED_GAPS:
        # The player named these cells empty on the photo itself: "photograph the tableau again"
        # sent them the wrong way; the cards there are to name (a walk).
        raise EnrolError(f"{where}: cards were found at "
                         f"{cells_short(as_written[r][c] for r, c in sorted(boxed_gaps))} where the grid names none: "
                         "name each of them, or where no card lies there, photograph the tableau again")
    if len(boxed_gaps) > MAX_BOXED_GAPS or (not as_read and len(missed) > MAX_LEFT_OUT):
        raise EnrolError(f"{where}: the grid and the cards found disagree at "
                         f"{cells_short(as_written[r][c] for r, c in sorted(best.mismatch))}: check the grid "
                         f"there, or photograph the tableau again, whole in the frame and from nearer above")
    g = best.grid
    out: dict[CardType, list[np.ndarray]] = {card: [] for card in CardType}
    taken_at: dict[CardType, list[tuple[int, int]]] = {card: [] for card in CardType}
    for rc in crops:
        card = g[rc[0]][rc[1]]
        if card is not None and rc not in missed:
            out[card].append(crops[rc])
            taken_at[card].append(as_written[rc[0]][rc[1]])
    if not any(out.values()):
        raise EnrolError(f"{where}: the grid given with it names no card in the cells found (a grid of another photo?)")
    outside = sorted(as_written[r][c] for (r, c), cell in cells.items() if not cell.inside and g[r][c] is not None)
    # (a grid named on the page was taken unchecked: named by another photo's grid, or a card
    # corrected to the wrong type, it taught a new deck wrong pictures where `deck add` refused
    # them, and the next photo's guesses were 7 of 8 wrong - a newcomer's walk)
    # (the cards left out are not asked about: nothing is taken from them; and where no card looks
    # more like another type than its own, there is no card to ask about - a review)
    asked = as_read and _unlike(best)
    unlike = tuple((as_written[r][c], card, like) for (r, c), like in sorted(best.strays)
                   if (card := g[r][c]) is not None and (r, c) not in missed) if asked else ()
    lumped = tuple((card, tuple(sorted(as_written[r][c] for r, c in at if (r, c) not in missed)))
                   for card, at in best.lumped) if asked else ()
    return PhotoReferences(out, sorted(as_written[r][c] for r, c in missed), outside,
                           tuple(enrolment_advice(photo, det, fit, cut_by_frame=False)) if advise else (),
                           tuple(sorted(as_written[r][c] for r, c in boxed_gaps)), taken_at, as_written_taken, unlike,
                           tuple((card, at) for card, at in lumped if at))


def _same_type_pairs(grid: list[list[CardType | None]], found: set[tuple[int, int]]) -> bool:
    """Whether two cards found are named one type (their look then tells which way round a
    grid lies: ``_consistency``)."""
    return _alike_pairs(grid, found) > 0


def _alike_pairs(grid: list[list[CardType | None]], found: set[tuple[int, int]]) -> int:
    """How many pairs of the cards found the grid names one type."""
    counts = Counter(grid[r][c] for r, c in found if grid[r][c] is not None)
    return sum(n * (n - 1) // 2 for n in counts.values())


def _moved_by(move: tuple[int, int]) -> str:
    """A window's move, as a player reads it in a refusal."""
    said = [f"{abs(n)} {word}{'s' if abs(n) > 1 else ''}" for n, word in zip(move, ("row", "column")) if n]
    return " and ".join(said) + " off where the cards found put it" if said else "where the cards found put it"


def _unlike(placement: _Placement) -> bool:
    """Whether the cards a placed grid names as one type do not look alike in the photo (judged
    where it names enough pairs of one type among the cards found: ``MIN_ALIKE_PAIRS``)."""
    alike, asked = placement.nearest
    # One card unlike its own type is forgiven where few are asked (3 of one type: 2 of 3 is 0.67).
    strays = asked - alike > 1 and alike < MIN_NEAREST_ALIKE * asked
    return bool(placement.lumped) or (_alike_pairs(placement.grid, placement.found) >= MIN_ALIKE_PAIRS
                                      and (placement.consistency < MIN_CONSISTENCY or strays))


def _lumped(vectors: np.ndarray, labels: list[CardType | None]) -> list[tuple[CardType, list[int]]]:
    """The types the labels name ``MIN_LUMP_CARDS`` times or more for cards that look like several
    cards, not one, with their indices: each card's most alike card of its name (cosine; the
    median of those) more alike than the name's pairs' median by over ``MAX_LUMP_SPREAD``, or than
    their lowest third by over ``MAX_LUMP_SPREAD_LOW``."""
    lumped = []
    for card, n in Counter(label for label in labels if label is not None).items():
        if n < MIN_LUMP_CARDS:
            continue
        at = [i for i, label in enumerate(labels) if label == card]
        sims = vectors[at] @ vectors[at].T
        pairs = sims[np.triu_indices(n, 1)]
        np.fill_diagonal(sims, -np.inf)
        twins = float(np.median(sims.max(1)))
        if twins - np.median(pairs) > MAX_LUMP_SPREAD or twins - np.quantile(pairs, 1 / 3) > MAX_LUMP_SPREAD_LOW:
            lumped.append((card, at))
    return lumped


def _nearest_alike(vectors: np.ndarray, labels: list[CardType | None]) -> tuple[int, int, list[tuple[int, CardType]]]:
    """Of the cells whose type the labels name twice or more (those asked), how many have as their
    most alike other labelled cell (cosine) one labelled that type too: (that many, those asked,
    and the others: (index into ``labels``, the label of the cell each looks most like))."""
    named = [i for i, label in enumerate(labels) if label is not None]
    counts = Counter(labels[i] for i in named)
    asked = [k for k, i in enumerate(named) if counts[labels[i]] >= 2]
    if not asked:
        return 0, 0, []
    sims = vectors[named] @ vectors[named].T
    np.fill_diagonal(sims, -np.inf)
    nearest = sims.argmax(1)
    strays = []
    for k in asked:
        like = labels[named[nearest[k]]]
        if like is not None and like != labels[named[k]]:
            strays.append((named[k], like))
    return len(asked) - len(strays), len(asked), strays


def _consistency(vectors: np.ndarray, labels: list) -> float:
    """How much more alike same-type cells are than cells of different types (mean cosines)."""
    sims = vectors @ vectors.T
    same: list[float] = []
    other: list[float] = []
    for i in range(len(labels)):
        for j in range(i + 1, len(labels)):
            if labels[i] is None or labels[j] is None:
                continue
            (same if labels[i] == labels[j] else other).append(sims[i, j])
    return (float(np.mean(same)) if same else 0.0) - (float(np.mean(other)) if other else 0.0)
