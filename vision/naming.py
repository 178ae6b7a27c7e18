"""Naming a read's cells: each fitted cell cut from the photo and named by the stand-in's
classifier or a deck's matcher, at more turns and cuts where unsure, and what about each cell
and each tableau is in doubt (a confident wrong score is the worst outcome: every doubt is said).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ecoscore.geometry import CROP_SIZE, Detections, warp_quad
from ecoscore.scoring import COLS, ROWS, CardType, Tableau
from ecoscore.scoring.cards import FOREIGN_CARD, NOT_OURS, over_deck
from ecoscore.scoring.tableau import cell_at, cells_short

from . import empty_cells
from .decode import Photo
from .lattice import MAX_RESIDUAL, TableauFit
from .matcher import CardMatcher
from .models import EMPTY, CardClassifier
from .reads import CellRead, TableauRead

# A cell read with less confidence than this is flagged. The confidence is the least sure of
# the quarter-turn views (see name_cells). Chosen with bench/tune_confidence.py on a tuning set
# with its own seeds (146 tableaux): one confident wrong tableau up to 0.7, none from 0.8;
# 0.9 keeps a margin for 2 % more tableaux flagged.
MIN_CONFIDENCE = 0.9
RANGE_FROM = 0.5  # a doubted cell's belief from which its doubt gives the range it was read in (``tableau_read``)
# A cell read at its first turn with at least this belief needs no other turn. Chosen on the
# tuning sets (seeds 4001, 4002): 0.99 already gave the same reads and no confident wrong;
# 0.999 keeps a margin.
SURE_AT_ONCE = 0.999
# This many cards of one tableau named "not ours" say more than a stray card of another game:
# the wrong deck chosen (read against another deck, most cells of a tableau come out so).
WRONG_DECK_CARDS = 5
# A tableau with this many cells in doubt has the rest doubted too (AMONG_DOUBTS): held out, 13
# right cells more doubted, in tableaux already flagged; on the tuning decks the only two cells
# named wrong with no doubt.
MOSTLY_IN_DOUBT = 15
AMONG_DOUBTS = "most cells of this photo are in doubt: check this card too"
SMALL_CANVAS_DOUBT = ("the grid was found only on a small copy of the photo: where it lies is a guess, so check "
                      "every cell, or photograph the tableau from higher up")
# Decode again for the crops only for at least this many times the pixels across: below it the
# card is about the crop's size or bigger in the work image already, a pixel of the photo for
# each of the crop's. 1.25 against 1.1: the tuning material (797 tableaux, stand-in and decks)
# read tableau by tableau the same; a 12 MP photo of cards 65-72 px across there (000011) read
# its crops in about 10 ms instead of 50 (the second decode gone).
MIN_DETAIL_GAIN = 1.25


def detail_gain(card_px: float, crop_px: int = CROP_SIZE) -> float:
    """How many times the work image's pixels across the crops' decode should have, for cards
    ``card_px`` wide (short side) there and crops ``crop_px`` across (the classifier's or the
    matcher's input): a crop's worth with a quarter to spare (at most 4: full
    size), but only twice where twice already shows a card at 3/4 of a crop. A JPEG halved in
    its DCT decodes at about half the cost of a full 12 MP decode; on the tuning sets the halved
    crops read the same (stand-in 188 of 213, other decks 172 against 171 of 223); the 12 MP
    photos' p90 (whole-game photos) took 0.79-0.88 x the time, their mean 0.9-1.0 x (two
    alternating runs of two rounds on a noisy machine; the p50 photo decodes no finer)."""
    gain = min(4.0, 1.25 * crop_px / card_px)
    if gain > 2.0 and 2.0 * card_px >= 0.75 * crop_px:
        return 2.0
    return gain


@dataclass(frozen=True)
class CellNaming:
    """How the classifier (or a deck's matcher: the same probabilities) named one cell crop."""

    probabilities: np.ndarray  # over the classifier's names: the mean of the turns read
    chosen: int  # index into the classifier's names
    confidence: float  # the belief in ``chosen`` at its least sure turn
    evidence: float | None = None  # from two cuts (``agree``): the surer cut's belief in ``chosen``
    unlike_table: bool = False  # read as empty, but like none of the table round it (``empty_cells``)


def name_cells(classifier: CardClassifier, crops: list[np.ndarray]) -> list[CellNaming]:
    """How each straightened cell crop is named (``CellNaming``).

    A cell the classifier is all but sure of at once is decided there. Any other is read
    at its three other quarter turns too (the classifier knows all four): the decision is
    the mean, the confidence the least sure turn's belief in it, so turns that disagree
    make a doubt instead of a confident mistake. Most cells are sure at once, so this
    classifies ~3x fewer crops than four turns for every cell; on the test sets it gives the
    same reads, and no confident wrong either way. A namer may set how sure is sure at once
    (``sure_at_once``); the matcher does (``CardMatcher.sure_at_once``)."""
    first = classifier(crops)
    named = [CellNaming(p, int(p.argmax()), float(p.max())) for p in first]
    unsure = np.flatnonzero(first.max(1) < getattr(classifier, "sure_at_once", SURE_AT_ONCE))
    turned = [np.ascontiguousarray(np.rot90(crops[i], turn)) for i in unsure for turn in (1, 2, 3)]
    others = classifier(turned).reshape(len(unsure), 3, first.shape[1])
    for i, more in zip(unsure, others):
        views = np.concatenate([first[i : i + 1], more])
        mean = views.mean(0)
        chosen = int(mean.argmax())
        named[i] = CellNaming(mean, chosen, float(views[:, chosen].min()))
    return named


def agree(first: CellNaming, second: CellNaming) -> CellNaming:
    """One naming of a cell from two cuts of it (the second look's corners and the first look's
    box): the mean belief decides, and the confidence is the least either cut has in that
    decision, so two cuts that disagree make a doubt, never a confident choice of one of them."""
    mean = (first.probabilities + second.probabilities) / 2
    chosen = int(mean.argmax())
    belief = [v.confidence if v.chosen == chosen else float(v.probabilities[chosen]) for v in (first, second)]
    return CellNaming(mean, chosen, min(belief), max(belief))


def name_tableaux(photo: Photo, det: Detections, fits: list[TableauFit], classifier,
                  min_confidence: float = MIN_CONFIDENCE) -> list[TableauRead]:
    """Each fitted tableau's cells cut from the photo (at more pixels where its cards are small),
    named by ``classifier`` (the stand-in's classifier or a deck's matcher) and doubted."""
    # Small cards: decode the photo again with more pixels so crops show the art. Not for a
    # few per cent more (a second decode of a 12 MP JPEG costs more than the whole read).
    side = int(getattr(classifier, "imgsz", CROP_SIZE))  # the namer's input: crops are cut that size
    gain = detail_gain(float(np.median([det.sizes[i, 1] for fit in fits for i in fit.detections])), side)
    detail = photo.at_least(int(max(photo.image.shape[:2]) * gain)) if gain >= MIN_DETAIL_GAIN else photo
    k = detail.scale / photo.scale
    crops, where = [], []
    for t, fit in enumerate(fits):
        for (r, c), cell in fit.cells.items():
            if cell.inside:
                for quad in [cell.quad] + ([cell.first_quad] if cell.first_quad is not None else []):
                    crops.append(warp_quad(detail.image, quad * k, side))
                    where.append((t, (r, c)))
    named: list[dict[tuple[int, int], CellNaming]] = [{} for _ in fits]  # per tableau, by (row, col)
    for (t, rc), naming in zip(where, name_cells(classifier, crops)):
        named[t][rc] = agree(named[t][rc], naming) if rc in named[t] else naming
    names = classifier.names
    if isinstance(classifier, CardMatcher):
        _empty_only_where_the_table_is(photo.image, detail.image, k, side, det, fits, named, classifier)
    # A matcher carries its own threshold (calibrated apart); the classifier uses the reader's.
    least = getattr(classifier, "min_confidence", min_confidence)
    return [tableau_read(fit, named[t], names, det, 1 / photo.scale, least) for t, fit in enumerate(fits)]


def table_beside(image: np.ndarray, det: Detections, fits: list[TableauFit], classifier,
                 min_confidence: float = MIN_CONFIDENCE) -> set[int]:
    """The boxes in line with a grid, just outside its 5 × 4 (``off_grid``, said as "4 cards ...
    were left out"), that are the table, not a card: named empty surely (at the namer's own
    ``min_confidence``, as ``name_tableaux`` reads cells, else the one given), and for a
    deck's matcher, which names some real cards empty (``empty_cells``), like the table round the
    grid too. A striped cloth under a steep tableau's last row, boxed four times and named empty
    at 0.90-0.94, sent a newcomer looking for four cards that were not there. They are taken off
    the fits' ``off_grid`` (in place) and returned, for the caller to take off the loose cards."""
    boxes = [(t, i) for t, fit in enumerate(fits) for i in fit.off_grid]
    if not boxes:
        return set()
    empty = classifier.names.index(EMPTY)
    sure = getattr(classifier, "min_confidence", min_confidence)
    named = name_cells(classifier, [warp_quad(image, det.quads[i], CROP_SIZE) for _, i in boxes])
    table = {box for box, naming in zip(boxes, named) if naming.chosen == empty and naming.confidence >= sure}
    if table and isinstance(classifier, CardMatcher):
        centres = det.quads.mean(1)
        for t, fit in enumerate(fits):
            own = [box for box in boxes if box in table and box[0] == t]
            if not own:
                continue
            unlike = empty_cells.unlike_the_table_round(classifier.embedder, fit, [det.quads[i] for _, i in own],
                                                        image, centres, image, 1.0, CROP_SIZE)
            if unlike is None:  # the table round the grid not seen: no telling the box from a card
                table -= set(own)
            else:
                table -= {box for box, u in zip(own, unlike) if u}
    for t, fit in enumerate(fits):
        fit.off_grid = [i for i in fit.off_grid if (t, i) not in table]
    return {i for _, i in table}


def _empty_only_where_the_table_is(image: np.ndarray, detail: np.ndarray, k: float, side: int, det: Detections,
                                   fits: list[TableauFit], named: list[dict[tuple[int, int], CellNaming]],
                                   matcher: CardMatcher) -> None:
    """Each cell a deck's matcher reads as empty that looks like none of the table round its
    tableau (``empty_cells``) named its likeliest type instead, at that type's belief (a doubt),
    or kept empty and doubted (``empty_cells.best_but_empty``). Changes ``named`` in place."""
    names = matcher.names
    empty = names.index(EMPTY)
    centres = det.quads.mean(1) if len(det.quads) else np.zeros((0, 2))
    for t, fit in enumerate(fits):
        cells = [rc for rc, naming in named[t].items() if naming.chosen == empty]
        if not cells:
            continue
        unlike = empty_cells.unlike_the_table_round(matcher.embedder, fit, [fit.cells[rc].quad for rc in cells], image,
                                                    centres, detail, k, side)
        for rc in ([] if unlike is None else [rc for rc, u in zip(cells, unlike) if u]):
            before = named[t][rc]
            chosen, confidence = empty_cells.best_but_empty(before.probabilities, names)
            named[t][rc] = CellNaming(before.probabilities, chosen, confidence, unlike_table=True)


def tableau_read(fit: TableauFit, named: dict[tuple[int, int], CellNaming], names: list[str],
                 det: Detections, to_original: float, min_confidence: float) -> TableauRead:
    """One tableau's read from its cells' namings: each cell's type (None: empty, or a card of none
    of the deck's types), confidence, runner-up and doubts in words, corners in the photo's own
    pixels (``to_original``), and the tableau's doubts (``tableau_doubts``)."""
    cells = []
    for r in range(ROWS):
        for c in range(COLS):
            fc = fit.cells[(r, c)]
            read = named.get((r, c))
            doubts = []
            det_conf = float(det.scores[fc.detection]) if fc.detection is not None else None
            evidence = None if read is None else read.evidence
            if read is None:
                card, conf, runner, runner_conf = None, 0.0, "", 0.0
                doubts.append("cell lies partly outside the photo: not read")
            else:
                mean, chosen, conf = read.probabilities, read.chosen, read.confidence
                second = max((j for j in range(len(names)) if j != chosen), key=lambda j: mean[j])
                top, runner, runner_conf = names[chosen], names[second], float(mean[second])
                card = None if top in (EMPTY, NOT_OURS) else CardType(top)
                if top == NOT_OURS:
                    # Never scored as a type: a face-down card, another game's, or a deck
                    # other than the one enrolled (the wrong --deck?).
                    doubts.append(NOT_OURS_DOUBT.format(nearest=f"{runner} {runner_conf:.0%}"))
                elif read.unlike_table:  # says why it is doubted, and what it is taken for
                    doubts.append(empty_cells.unlike_table_doubt(float(mean[names.index(EMPTY)]),
                                                                 top if card else None))
                elif conf < min_confidence:
                    # The mean over the turns read beside the runner-up's mean, and the least
                    # sure turn when it is what made the doubt ("deer 10 %, or fox 37 %" misled).
                    belief = f"{top} {mean[chosen]:.0%}"
                    # A mean that reads as a likely answer ("trout 93 %") says why it is doubted too: as
                    # a range, from its least sure look (a quarter turn, or a second cut) to the mean.
                    # (Said before as "at its worst turn", then "only 74% read another way up": both
                    # read as the code's words by players on their walks.) Under an even chance the
                    # number says the doubt itself: "meadow 1–24 %" looked absurd (a walk).
                    low = f"{conf * 100:.0f}"
                    if (mean[chosen] >= RANGE_FROM and (mean[chosen] - conf >= 0.05 or mean[chosen] >= min_confidence)
                            and f"{low}%" != f"{mean[chosen]:.0%}"):
                        belief = f"{top} {low}–{mean[chosen]:.0%}"
                    # "or not ours 29%" read as the code's word, not the player's.
                    other = FOREIGN_CARD if runner == NOT_OURS else runner
                    doubts.append(f"low confidence: {belief}, or {other} {runner_conf:.0%}")
                # Weak boxes over holes are dropped by the finder itself (CardFinder's threshold),
                # so any box over a cell read as empty is worth a word.
                if card is None and top == EMPTY and det_conf is not None:
                    doubts.append(f"a card was detected here ({det_conf:.0%}) but the cell reads as empty")
                # Said of a cell named with no other doubt: beside "low confidence: deer 77 %" it
                # was a second line for the same card (3 doubtful cards, 6 lines: a newcomer's walk).
                if card is not None and fc.detection is None and conf < 0.98 and not doubts:
                    doubts.append(f"no card was detected here, yet the cell reads as {top}")
            if fc.duplicates:
                doubts.append(f"{1 + len(fc.duplicates)} cards detected in one cell")
            cells.append(
                CellRead(r, c, card, conf, runner, runner_conf, fc.detection is not None, fc.quad * to_original,
                         doubts, read is not None and top == NOT_OURS, evidence, shown=read is not None)
            )
    # Where most of a tableau is in doubt, the photo is too poor for any of its cells to be
    # sure: the tuning decks' two cells named wrong with no doubt lay in tableaux doubted at
    # 19 and 20 cells (model card, "A deck's own type scale").
    if sum(bool(cell.doubts) for cell in cells) >= MOSTLY_IN_DOUBT:
        for cell in cells:
            if cell.shown and not cell.doubts:
                cell.doubts.append(AMONG_DOUBTS)
    read_doubts = tableau_doubts(cells, fit)
    return TableauRead(cells, read_doubts)



def left_out_doubt(n: int) -> str:
    """``n`` cards lying in line with a tableau's grid, just outside its 5 × 4, that no tableau holds."""
    return f"{n} card{'s' if n > 1 else ''} in line with the grid but outside its 5 × 4 {'were' if n > 1 else 'was'} left out"

EDGE_EMPTY = "a whole edge row or column is empty: where the grid ends is a guess"
EDGE_UNFOUND = ("no card was found along one edge of the grid: its cards there were read where the grid puts them; "
                "check that edge against the table")


def _an_edge_reads_empty(cells: list[CellRead]) -> bool:
    """Whether a whole edge row or column of the read holds no card."""
    edges = [[c for c in cells if c.row == r] for r in (0, ROWS - 1)] + [[c for c in cells if c.col == k]
                                                                        for k in (0, COLS - 1)]
    return any(all(c.type is None for c in edge) for edge in edges)


def said_of(cell: CellRead, doubt: str) -> str:
    """A cell's doubt as the tableau's list says it: "row 2, col 1: ..."."""
    return f"{cell_at(cell.row, cell.col)}: {doubt}"


def tableau_doubts(cells: list[CellRead], fit: TableauFit) -> list[str]:
    """The flags that matter for one tableau, in words."""
    doubts = []
    for cell in cells:
        for d in cell.doubts:
            doubts.append(said_of(cell, d))
    empty = [cell for cell in cells if cell.type is None and not cell.doubts]
    if empty:
        where = cells_short([(c.row, c.col) for c in empty])  # the catalogue's wording: translated whole
        doubts.append(f"{len(empty)} empty cell{'s' if len(empty) > 1 else ''} ({where}): a mid-game tableau, or a card missed")
    for card, n in over_deck(Tableau([cell.type for cell in cells]).counts()):
        doubts.append(f"{n} {card.value} cards read, but a deck holds only {card.deck_count}: a misread card?")
    if fit.residual > MAX_RESIDUAL:
        doubts.append(f"the cards do not sit on a regular grid (fit error {fit.residual:.2f} card widths)")
    if fit.ambiguous_window:
        # Said as it is: the finder found no card along an edge, and either the read leaves that
        # edge empty, or it names cards there from where the grid puts its cells (a newcomer's
        # batch was told "a whole edge row or column is empty" beside four cards read along it).
        doubts.append(EDGE_EMPTY if _an_edge_reads_empty(cells) else EDGE_UNFOUND)
    if fit.small_canvas:
        doubts.append(SMALL_CANVAS_DOUBT)
    if fit.off_grid:
        doubts.append(left_out_doubt(len(fit.off_grid)))
    foreign = sum(cell.not_ours for cell in cells)
    if foreign >= WRONG_DECK_CARDS:
        doubts.append(wrong_deck_doubt(foreign))
    return doubts


# Scored as empty, and said so: a real empty place read so had no way out (a newcomer's walk).
NOT_OURS_DOUBT = ("not a card of this deck (nearest: {nearest}), counted as empty: right if nothing lies here, else "
                  "another game's card, a card face down, or the wrong deck chosen")
GLARED_DOUBT = "washed out by glare (nearest: {nearest}): take the photo again without the lamp's reflection on it"
_NOT_OURS = re.compile(re.escape(NOT_OURS_DOUBT).replace(re.escape("{nearest}"), "(?P<nearest>[^)]*)"))


def wrong_deck_doubt(foreign: int) -> str:
    """A tableau with ``foreign`` cards of none of the deck's types (WRONG_DECK_CARDS or more)."""
    return (f"{foreign} cards are of none of this deck's types: is the photo read against the wrong deck? "
            "Choose your deck (Deck on the page, --deck on the command line)")


# A photo whose cells read surely as the deck's cards this many times is a photo of the deck: read
# against another deck, a photo showed at most 3 (the seven unseen decks' normal photos, each read
# against another: 29 of 280 read at all, 0-3 sure cells in each; the others refused).
DECK_SHOWN_CARDS = 10


def deck_shown_doubt(foreign: int, sure: int) -> str:
    """A tableau's ``foreign`` cards of none of the deck's types in a photo where ``sure`` cells
    read surely as the deck's: the deck is right, these cards are not seen well."""
    return (f"{foreign} cards read as none of this deck's types, though this photo's other cards read as its own "
            f"({sure} surely): too small, dark or blurred to tell, or another game's cards. Photograph them closer, in better light")


def without_wrong_deck_where_the_deck_reads(reads: list[TableauRead]) -> None:
    """A tableau's wrong-deck doubt said instead as cards not seen well where the photo's tableaux
    together read DECK_SHOWN_CARDS cells or more surely as the deck's: a whole game's far tableau,
    dark and blurred, was sent to choose another deck while the tableau beside it read 18 of 20
    of the chosen one's (the unseen decks' hard photos: 4 of 9 tableaux told "the wrong deck?")."""
    sure = sum(cell.type is not None and not cell.doubts for read in reads for cell in read.cells)
    if sure < DECK_SHOWN_CARDS:
        return
    for read in reads:
        foreign = sum(cell.not_ours for cell in read.cells)
        read.doubts = [deck_shown_doubt(foreign, sure) if d == wrong_deck_doubt(foreign) else d for d in read.doubts]


def without_glared_foreigners(doubts: list[str], cells: list[CellRead], glared: set[tuple[int, int]]) -> list[str]:
    """``doubts`` with glare, not another deck, blamed for the cards it washes out: a glared
    cell's "not a card of this deck ... or the wrong deck chosen" says the glare instead (on the
    cell and in the tableau's list), and the wrong-deck doubt goes where the cards of none of the
    deck's types less the glared ones are fewer than WRONG_DECK_CARDS (a sleeved tableau under a
    lamp sent its player to choose another deck)."""
    foreign = [(cell.row, cell.col) for cell in cells if cell.not_ours]
    renamed: dict[str, str] = {}  # the tableau's list says each cell's doubts (``said_of``)
    for cell in cells:
        if cell.not_ours and (cell.row, cell.col) in glared:
            now = [_NOT_OURS.sub(lambda m: GLARED_DOUBT.format(nearest=m["nearest"]), d) for d in cell.doubts]
            renamed.update({said_of(cell, old): said_of(cell, new) for old, new in zip(cell.doubts, now)})
            cell.doubts = now
    doubts = [renamed.get(d, d) for d in doubts]
    if len(foreign) < WRONG_DECK_CARDS or len(set(foreign) - glared) >= WRONG_DECK_CARDS:
        return doubts
    return [d for d in doubts if d != wrong_deck_doubt(len(foreign))]
