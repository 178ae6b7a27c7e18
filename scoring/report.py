"""Present a scored game: the JSON answer and the printed score pad.

The JSON answer's shape is defined here, once (the ``...Doc`` TypedDicts), and built here, once
(``game_to_dict``): the command line, the batch and the service only serialise it. A player read
from a photo also carries a ``ReadDoc``: what the read adds (built by vision/report.py; the
service adds its picture links; a room stores it). The service's OpenAPI models
(service/schemas.py) describe the same shape for its clients; tests/test_answer.py holds the two
together, key for key.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypedDict, cast

from .cards import SCORE_PAD_ORDER, CardType
from .game import GameScore, Majority, PlayerScore
from .gridfile import to_json
from .tableau import COLS, Tableau, cell_at, cell_name

Position = list[int]  # a cell as [row, col], 0-based
# The pad and the explanation are written in English, a message a line (or a label a word); the
# command line passes each through the player's language (ecoscore/cli/language.py), as the
# service does its answers. By default they are printed as they are.
Say = Callable[[str], str]


def _as_is(text: str) -> str:
    return text


class MajorityDoc(TypedDict):
    value: int
    place: int | None
    points: int
    provisional: bool


class CardDoc(TypedDict):
    cell: Position
    type: str
    points: int
    reason: str
    because_of: list[Position]


class GroupDoc(TypedDict):
    type: str
    cells: list[Position]
    points: int
    reason: str


class ExplanationDoc(TypedDict):
    cards: list[CardDoc]
    groups: list[GroupDoc]


class _CellReadKeys(TypedDict):
    type: str | None  # None: empty, or unreadable (see doubts)
    confidence: float
    runner_up: str | None
    runner_up_confidence: float
    detected: bool  # the card finder saw a card here
    doubts: list[str]
    quad: list[list[float]]  # corners (x, y) in the photo as sent: TL, TR, BR, BL


class CellReadDoc(_CellReadKeys, total=False):
    """One cell as read from a photo (``unknown``: absent from a room's read stored by a version
    before it)."""

    unknown: bool  # what lies here is not known (not shown, or no type of the deck): never "empty"


class ReadDoc(TypedDict, total=False):
    """What a photo's read adds to a player: every key is absent for a grid given as text."""

    doubts: list[str]  # the photo's doubts, then the tableau's
    confidence: float  # the weakest cell's
    cells: list[list[CellReadDoc]]  # 4 rows of 5
    left_out: list[list[list[float]]]  # quads of the cards its doubt says were left out beside the grid
    photo: str  # the photo's name (its file's stem, or the name given)
    deck: str  # the deck whose cards the cells were named as ("standin": the built-in classifier)
    overlay_url: str | None  # the service: the photo with the grid drawn on it
    photo_url: str | None  # the service: the plain photo (upright, at most 1280 px)
    photo_size: list[int]  # the service: width, height of the photo as sent (the quads are in it)
    corrected: list[Position]  # a room: the cells the player corrected (their doubts dropped)
    kept: list[Position]  # a room: doubtful cells the player kept as read (their doubts dropped too)
    checked: bool  # a room: the player compared the whole grid with the table (every doubt settled)
    settled: list[str]  # a room, checked: the photo's and the grid's doubts the check settled
    tableau: int  # a room: which of the photo's tableaux is the player's (1: the most cards), of
    tableaux: int  # the tableaux the photo holds


class ScoreDoc(TypedDict):
    name: str
    bot: bool
    cards: dict[str, int]  # points per card type, in score pad order
    biodiversity: int | None  # None for the solo bot
    gaps: list[str]
    total: int
    grid: list[list[str | None]]
    incomplete: bool
    empty_cells: list[Position]
    majorities: dict[str, MajorityDoc]  # "stream", "wolf"
    explanation: ExplanationDoc
    deck_issues: list[str]


class PlayerDoc(ScoreDoc, ReadDoc):
    """A player of the answer: the score, then what a photo's read adds (if it was read)."""


class NeutralDoc(TypedDict):
    streams: int
    wolves: int


class OtherDoc(TypedDict):
    largest_stream: int
    wolves: int


class SoloDoc(TypedDict):
    margin: int
    outcome: str


class GameDoc(TypedDict):
    """The JSON answer: ``ecoscore grid --json``, ``score --json``, a batch's ``game``, the API's."""

    players: list[PlayerDoc]
    winners: list[str]
    provisional_majorities: bool
    neutral: NeutralDoc | None
    others: list[OtherDoc]
    solo: SoloDoc | None
    deck_issues: list[str]
    # No player's read carries a doubt (of a cell, the grid or the photo): the totals and the
    # winners need no check. A grid given as text is sure.
    final: bool


def _cell(index: int) -> Position:
    return list(divmod(index, COLS))


def _majority(m: Majority) -> MajorityDoc:
    return {"value": m.value, "place": m.place, "points": m.points, "provisional": m.provisional}


def _read_fields(read: ReadDoc) -> ReadDoc:
    """A read's fields in the answer's order. A room's read stored by an older version may hold
    keys the answer no longer has (its ``grid``): they are left out."""
    fields: dict[str, object] = dict(read)
    return cast(ReadDoc, {key: fields[key] for key in ReadDoc.__annotations__ if key in fields})


def player_to_dict(p: PlayerScore, read: ReadDoc | None = None) -> PlayerDoc:
    """One player of the answer; ``read``: what a photo's read adds, if it was read."""
    doc: PlayerDoc = {
        "name": p.name,
        "bot": p.bot,
        "cards": {card.value: p.sheet[card] for card in SCORE_PAD_ORDER},
        "biodiversity": p.biodiversity,
        "gaps": [card.value for card in p.gaps],
        "total": p.total,
        "grid": to_json(p.tableau),
        "incomplete": p.incomplete,
        "empty_cells": [_cell(i) for i in p.tableau.empty_cells()],
        "majorities": {"stream": _majority(p.stream), "wolf": _majority(p.wolf)},
        "explanation": {
            "cards": [
                {
                    "cell": _cell(c.cell),
                    "type": c.type.value,
                    "points": c.points,
                    "reason": c.reason,
                    "because_of": [_cell(i) for i in c.because_of],
                }
                for c in p.cards
            ],
            "groups": [
                {"type": g.type.value, "cells": [_cell(i) for i in g.cells], "points": g.points, "reason": g.reason}
                for g in p.groups
            ],
        },
        "deck_issues": [str(issue) for issue in p.deck_issues],
    }
    if read:
        doc.update(_read_fields(read))
    return doc


# A tableau read as another player's, card for card, is one photographed twice (or a neighbour's
# taken for one's own): two players' tableaux of this many cards are never alike by chance.
TWIN_CARDS = 10
# ... nor alike but for a card or two: the same photo's tableau, one copy corrected, had been taken
# as two players' (a game night's walk: a player's two wolves counted twice, the game final).
TWIN_DIFFERENCES = 2


def twins_said(game: GameScore, reads: Sequence[ReadDoc | None]) -> list[ReadDoc | None]:
    """``reads`` (one a player, None past its end) with a doubt on each read whose tableau is
    another player's, card for card, as laid, turned half round (the same tableau shot from the
    other side), mirrored or flipped (``_layouts``). The same photo sent for two players was scored as two, its majorities shared,
    and the game said final (an attack)."""
    out: list[ReadDoc | None] = [reads[k] if k < len(reads) else None for k in range(len(game.players))]
    for k, p in enumerate(game.players):
        read, n = out[k], sum(c is not None for c in p.tableau.cells)
        if read is None or p.bot or n < TWIN_CARDS:
            continue
        apart = [(_differences(p.tableau, o.tableau), o.name) for j, o in enumerate(game.players) if j != k and not o.bot]
        same = sorted(a for a in apart if a[0] <= TWIN_DIFFERENCES)
        if same:
            differ, name = same[0]
            said = (f"the same {n} cards in the same places as {name}'s tableau: one tableau photographed twice? "
                    "Photograph each player's own tableau" if not differ else
                    f"all but {differ} of its {n} cards in the same places as {name}'s tableau: one tableau "
                    "photographed twice? Photograph each player's own tableau")
            if said not in read.get("doubts", []):  # (said once, however often asked)
                out[k] = cast(ReadDoc, {**read, "doubts": [*read.get("doubts", []), said]})
    return out


def _differences(tableau: Tableau, other: Tableau) -> int:
    """In how few places ``other`` differs from ``tableau``, laid any of the ways one photo shows it."""
    return min(sum(a != b for a, b in zip(cells, other.cells)) for cells in _layouts(tableau))


def _layouts(tableau: Tableau) -> list[list]:
    """A tableau's cells as laid, turned half round, mirrored and flipped: the ways one photo
    shows the same tableau again (a mirrored copy, or the same JPEG with an EXIF orientation that
    mirrors it, passed as another player's: an attack)."""
    mirrored = tableau.mirrored()
    return [list(t.cells) for t in (tableau, tableau.rotated_180(), mirrored, mirrored.rotated_180())]


def game_to_dict(game: GameScore, reads: Sequence[ReadDoc | None] = ()) -> GameDoc:
    """The JSON answer (cells are [row, col], 0-based). ``reads[k]``: what a photo's read adds to
    player k (none for a player given as a grid, or past the end of ``reads``). Final: no read in
    doubt, and no more cards of a type than the deck holds (a misread card, or a mistyped grid)."""
    reads = twins_said(game, reads)
    return {
        "players": [player_to_dict(p, reads[k] if k < len(reads) else None) for k, p in enumerate(game.players)],
        "winners": game.winners,
        "provisional_majorities": game.provisional,
        "neutral": {"streams": game.neutral[0], "wolves": game.neutral[1]} if game.neutral else None,
        "others": [{"largest_stream": s, "wolves": w} for s, w in game.others],
        "solo": {"margin": game.solo.margin, "outcome": game.solo.outcome} if game.solo else None,
        "deck_issues": [str(issue) for issue in game.deck_issues],
        # A game of more cards of a type than a deck holds is no game as given, read or typed: a
        # room of typed grids said not final, /api/grid of the same grids final (an attack).
        "final": not any(_unsure(read) for read in reads) and not game.deck_issues,
    }


def _unsure(read: ReadDoc | None) -> bool:
    """Whether a read has doubts: of its cells, or of the photo or the grid."""
    return read is not None and (_in_doubt(read)[0] > 0 or bool(read.get("doubts")))


def _in_doubt(read: ReadDoc | None) -> tuple[int, int]:
    """A read's cells in doubt, and of those the unknown ones (outside the photo, or a card of no
    type of the deck): scored as empty, which they may not be."""
    cells = [cell for row in read.get("cells", []) for cell in row] if read else []
    return sum(bool(cell["doubts"]) for cell in cells), sum(bool(cell.get("unknown")) for cell in cells)


def score_pad(game: GameScore, reads: Sequence[ReadDoc | None] = (), say: Say = _as_is, label: Say = _as_is) -> str:
    """The paper score pad as a text table: one column per player, 11 rows + biodiversity + total.
    ``reads[k]``: what a photo's read adds to player k; while a read has doubts the winner is
    not final, and the pad says so (a cut neighbour's tableau, its missing cells scored as empty,
    was named the winner with nothing beside it but the doubts). ``say``: each line, as a message;
    ``label``: a row's word (a card's name, "biodiversity", "total"), and "warning"."""
    reads = twins_said(game, reads)
    names = [p.name for p in game.players]
    label_width = max(len(label("biodiversity")), len(label("total")), *(len(label(c.value)) for c in CardType))
    col_width = max(6, *(len(n) for n in names))

    def row(label: str, values: Sequence[object]) -> str:
        return label.ljust(label_width) + "".join(str(v).rjust(col_width + 2) for v in values)

    lines = [row("", names), "-" * (label_width + (col_width + 2) * len(names))]
    for card in SCORE_PAD_ORDER:
        marks = []
        for p in game.players:
            m = p.stream if card is CardType.STREAM else p.wolf if card is CardType.WOLF else None
            marks.append(f"{p.sheet[card]}{'*' if m and m.provisional and m.points else ''}")
        lines.append(row(label(card.value), marks))
    lines.append(row(label("biodiversity"), ["-" if p.biodiversity is None else p.biodiversity for p in game.players]))
    lines.append("-" * (label_width + (col_width + 2) * len(names)))
    lines.append(row(label("total"), [p.total for p in game.players]))
    lines.append("")
    read_of = [reads[k] if k < len(reads) else None for k in range(len(game.players))]
    in_doubt = [_in_doubt(read) for read in read_of]
    unsure = [say(f"{p.name} ({n} cell{'s' if n != 1 else ''} in doubt)" if n else f"{p.name} (doubts about the photo or the grid)")
              for p, read, (n, _) in zip(game.players, read_of, in_doubt) if _unsure(read)]
    if game.deck_issues:
        unsure.append(say("more cards of a type than a deck holds (below)"))
    # One player alone wins nothing; a solo game's outcome is its own line ("winner: bot" above
    # alice's 50 to the bot's 36 read as a bug: a newcomer's walk).
    if len(game.players) > 1 and not game.solo:
        # Who leads, not who won, while a read is in doubt ("winner: ann" above "not final": a
        # walk found the page naming a winner so; the pad says it as the page does).
        said = ("leading" if unsure else f"winner{'s' if len(game.winners) > 1 else ''}")
        lines.append(say(f"{said}: {', '.join(game.winners)}" + (" (not final)" if unsure else "")))
    if unsure:
        trusted = "winner" if len(game.players) > 1 else "total"
        lines.append(say(f"not final: {', '.join(unsure)}: check the doubts below before trusting the {trusted}"))
    if game.solo:
        # "beat the bot by 14: lost" read as a contradiction: a solo win needs a margin of 30.
        lead = game.solo.margin
        ahead = (f"{lead} point{'s' if lead != 1 else ''} ahead of the bot" if lead > 0 else "level with the bot"
                 if lead == 0 else f"{-lead} point{'s' if lead != -1 else ''} behind the bot")
        verdict = game.solo.outcome if game.solo.outcome != "lost" else "lost (a win needs 30 or more ahead)"
        lines.append(say(f"solo: {ahead}: {verdict}"))
    # What else ranked in the majorities: without it a 2-player pad said "3rd place" for the
    # largest stream with no one shown in 1st (the neutral pile's streams; a rules check).
    if game.neutral:
        streams, wolves = game.neutral
        lines.append(say(f"neutral pile: streams {streams}, wolves {wolves} (its streams one group): "
                         "in the stream and wolf majorities, scoring nothing"))
    for streams, wolves in game.others:
        lines.append(say(f"another player: largest stream {streams}, wolves {wolves}: in the majorities"))
    if game.provisional:
        lines.append(say("* provisional: majorities scored without the other players of the game "
                         "(give --others S:W,... to compare)"))
    for p, (_, not_read) in zip(game.players, in_doubt):
        empty = len(p.tableau.empty_cells()) - not_read
        if not_read:
            lines.append(say(f"note: {p.name}: {not_read} cell{'s' if not_read != 1 else ''} unknown (outside the photo, "
                             "or a card of no type of the deck), scored as empty"))
        if empty > 0:
            lines.append(say(f"note: {p.name}'s tableau is incomplete ({empty} empty cell{'s' if empty != 1 else ''})"))
    for issue in game.deck_issues:
        # (the issue said alone: "warning: {the issue}" read as a player named "warning: the game")
        lines.append(f"{label('warning')}: {say(str(issue))}")
    return "\n".join(lines) + "\n"


def explain(player: PlayerScore, say: Say = _as_is, label: Say = _as_is) -> str:
    """Every point of one player, card by card and group by group (``say``, ``label``: as
    ``score_pad``'s)."""
    width = max(10, *(len(label(c.value)) for c in CardType))
    at = max(12, len(say(cell_at(0, 0))))  # a cell's column ("row 1, col 1" is 12 in English)
    lines = [f"{player.name}:"]
    for c in player.cards:
        r, col = divmod(c.cell, COLS)
        lines.append(f"  {label(c.type.value):<{width}} {say(cell_at(r, col)):<{at}}: {c.points:>3}  {say(c.reason)}")
    for g in player.groups:
        # Where the group lies: a lone card's cell in the column (six lone meadows were six
        # identical "1 card" lines), a bigger group's cells after its reason.
        cells = [say(cell_name(i)) for i in g.cells]
        where = cells[0] if len(cells) == 1 else say(f"{len(cells)} cards")
        after = f" ({'; '.join(cells)})" if len(cells) > 1 else ""
        lines.append(f"  {label(g.type.value):<{width}} {where:<{at}}: {g.points:>3}  {say(g.reason)}{after}")
    if player.biodiversity is not None:
        gaps = len(player.gaps)
        lines.append("  " + say(
            f"biodiversity: {gaps} type{'s' if gaps != 1 else ''} scored nothing "
            f"({', '.join(c.value for c in player.gaps) or 'none'}): {player.biodiversity:+d}"
        ))
    return "\n".join(lines) + "\n"
