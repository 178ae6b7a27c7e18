"""The API's documents: what each route takes and gives. The OpenAPI document built from these
is the contract (and what the property-based test in tests/test_api_fuzz.py checks against).

The bounds here are fixed by the game and keep every request's work small whatever the
configuration: at most 8 players to a game, a tableau of 4 × 5 cards.
"""
from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from ecoscore.vision.deckstore import NAME as DECK_NAME

# A deck's key (its name made a slug: "Náš stůl" is "nas-stul"), as the store checks it; and a
# field that may also be empty (the default deck, or the phone's own choice).
DECK_KEY = DECK_NAME.pattern
DECK_KEY_OR_EMPTY = f"^({DECK_NAME.pattern.removeprefix('^').removesuffix('$')})?$"

MAX_PLAYERS = 8  # the game seats 2-6; 8 leaves room for a photo of two tableaux
MAX_OTHERS = 10
MAX_GRID_TEXT = 2000  # characters of a grid given as text (4 lines of 5 names, comments too)
MAX_RAW_NAME = 200  # characters before normalising; the normalised name is capped by the settings

MAX_COUNT = 100  # streams or wolves of a player not photographed
MAX_NEUTRAL_STREAMS, MAX_NEUTRAL_WOLVES = 20, 12  # the neutral pile of a two-player game
# Strict: a JSON integer, not true, "2" or 2.0 (lax parsing took [true, "2"] for (1, 2): an attack's find).
Count = Annotated[int, Field(strict=True, ge=0, le=MAX_COUNT)]
NeutralStreams = Annotated[int, Field(strict=True, ge=0, le=MAX_NEUTRAL_STREAMS)]
NeutralWolves = Annotated[int, Field(strict=True, ge=0, le=MAX_NEUTRAL_WOLVES)]
Cell = Annotated[str, Field(max_length=40)] | None
# Rows of cells, a few more than a tableau's either way: a row of 6 (a cell too many) was told
# "Input should be a valid string" by the union's two refusals; its shape is said by the grid's
# own check ("a tableau is 4 rows of 5 cards ...; got ..."). Still bounded before any work.
GridRows = Annotated[list[Annotated[list[Cell], Field(max_length=8)]], Field(max_length=8)]
Grid = Annotated[str, Field(max_length=MAX_GRID_TEXT)] | GridRows
Name = Annotated[str, Field(min_length=1, max_length=MAX_RAW_NAME)]
Position = Annotated[list[Annotated[int, Field(strict=True)]], Field(min_length=2, max_length=2,
                                                                       description="[row, col], 0-based")]


# ---- requests ----
class GridPlayer(BaseModel):
    name: Name
    grid: Grid = Field(description="text grid (4 lines of 5 names) or JSON rows; null/'.' for empty")


class GridGame(BaseModel):
    players: list[GridPlayer] = Field(min_length=1, max_length=MAX_PLAYERS)
    # The pile's caps as /api/game's form and a room's /neutral have them (100 : 100 was scored here).
    neutral: tuple[NeutralStreams, NeutralWolves] | None = Field(
        None, description="2-player game: the neutral pile's (streams, wolves)")
    others: list[tuple[Count, Count]] | None = Field(None, max_length=MAX_OTHERS,
                                                      description="(largest stream, wolves) of players not given")
    bot: Grid | None = Field(None, description="solo game: the bot's grid")


class NewRoom(BaseModel):
    mode: Literal["game", "two-player", "solo"] = Field(
        "game", description="game, two-player (with a neutral pile) or solo (with a bot)")
    deck: str = Field("", max_length=40, pattern=DECK_KEY_OR_EMPTY, description=(
        "the deck every photo of the room is read with (GET /api/decks), whichever phone sends it; "
        "empty: the service's default, or each phone's own choice"))


class Neutral(BaseModel):
    streams: NeutralStreams
    wolves: NeutralWolves


class GridOnly(BaseModel):
    grid: Grid


# A cell of the 4 × 5 grid, [row, col], checked as such (strict: no "1" or true taken for 1).
GridCell = tuple[Annotated[int, Field(strict=True, ge=0, le=3)], Annotated[int, Field(strict=True, ge=0, le=4)]]


class PlayerGrid(GridOnly):
    kept: list[GridCell] | None = Field(
        None, max_length=20, description="the doubtful cells the player looked at and kept as read: their doubts are "
                                         "dropped, as a correction's are (a cell read with no doubt is left out); "
                                         "absent: those kept before stay; []: none")
    checked: bool | None = Field(
        None, strict=True, description="the player compared the whole grid with the table and it is right: every doubtful cell is "
                          "kept as it stands, and the doubts of the photo and the grid (a card left beside the grid, "
                          "cells cut by the frame), which no cell's correction settles, are settled (listed in the "
                          "player's settled); absent: as before; false: not checked. Sending the photo again drops it")


class Rename(BaseModel):
    name: Name


# ---- responses ----
class MajorityOut(BaseModel):
    value: int
    place: int | None
    points: int
    provisional: bool


class CardOut(BaseModel):
    cell: Position
    type: str
    points: int
    reason: str
    because_of: list[Position]


class GroupOut(BaseModel):
    type: str
    cells: list[Position]
    points: int
    reason: str


class Explanation(BaseModel):
    cards: list[CardOut]
    groups: list[GroupOut]


class CellRead(BaseModel):
    type: str | None
    confidence: float
    runner_up: str | None
    runner_up_confidence: float
    detected: bool
    doubts: list[str]
    quad: list[list[float]]
    unknown: bool = Field(False, description="what lies here is not known (outside the photo, or a card of none "
                                             "of the deck's types): not an empty cell, though its type is null")


class PlayerOut(BaseModel):
    name: str
    bot: bool
    cards: dict[str, int] = Field(description="points per card type, in score pad order")
    biodiversity: int | None
    gaps: list[str]
    total: int
    grid: list[list[str | None]]
    incomplete: bool
    empty_cells: list[Position] = Field(description="cells scored as empty (no card); a read's cells "
                                                          "marked unknown are among them, scored so: see cells[].unknown")
    majorities: dict[str, MajorityOut]
    explanation: Explanation
    deck_issues: list[str]
    # what a photo's read adds
    doubts: list[str] | None = None
    confidence: float | None = None
    cells: list[list[CellRead]] | None = None
    left_out: list[list[list[float]]] | None = Field(None, description="the 4 corners (photo pixels, in order round the "
                                                     "card) of each card the doubt \"N cards ... were left out\" counts: in "
                                                     "line with the grid but outside its 5 × 4, or beside it; kept when a "
                                                     "room's check settles that doubt (see settled)")
    photo: str | None = None
    deck: str | None = Field(None, description="the deck whose cards the cells were named as (standin: built in)")
    overlay_url: str | None = None
    photo_url: str | None = Field(None, description="the plain photo (upright, at most 1280 px; 2048 where a tableau "
                                                    "fills little of it): the page draws on it")
    photo_size: list[int] | None = Field(None, description="width, height of the photo as sent: the cells' quads are in it")
    corrected: list[Position] | None = Field(None, description="a room's cells the player corrected (their doubts dropped)")
    kept: list[Position] | None = Field(None, description="a room's doubtful cells the player kept as read (their doubts "
                                                          "dropped)")
    checked: bool | None = Field(None, description="a room: the player compared the whole grid with the table "
                                                   "(PUT .../grid with checked): no doubt is left")
    settled: list[str] | None = Field(None, description="a room, checked: the doubts of the photo and the grid that "
                                                        "the player's check settled, as they were read")
    tableau: int | None = Field(None, description="a room: which of the photo's tableaux was taken as the player's, "
                                                 "numbered as found (1: the most cards); see the photo's tableau field")
    tableaux: int | None = Field(None, description="a room: how many tableaux the photo holds")


class NeutralOut(BaseModel):
    streams: int
    wolves: int


class OtherOut(BaseModel):
    largest_stream: int
    wolves: int


class SoloOut(BaseModel):
    margin: int
    outcome: str


class GameOut(BaseModel):
    players: list[PlayerOut]
    winners: list[str]
    provisional_majorities: bool
    neutral: NeutralOut | None
    others: list[OtherOut]
    solo: SoloOut | None
    deck_issues: list[str]
    final: bool = Field(description="no player's read carries a doubt (of a cell, the grid or the photo): the "
                                    "totals and the winners need no check; false: check the doubts first. In a "
                                    "room a cell corrected or kept as read loses its doubts; the doubts of the photo stay until "
                                    "the tableau is sent again, or its player says the grid is checked. False too "
                                    "where the game holds more cards of a type than a deck does (deck_issues), typed "
                                    "grids included")


class RoomOut(BaseModel):
    id: str
    mode: str
    version: int = Field(description="the room's version: its ETag; If-Match of room-wide settings")
    url: str = Field(description="the room's page, relative")
    link: str = Field(description="the room's page at the service's public address (the QR code's)")
    qr_url: str
    neutral: list[int] | None
    # (waiting_for says "players" first: a duel of one player could not tell its pile given from 0, 0)
    neutral_given: bool = Field(False, description="a two-player game: its creator has given the neutral pile "
                                                   "(until then ``neutral`` is 0, 0 and the game not final)")
    bot: list[list[str | None]] | None
    deck: str = Field("", description="the deck the room's photos are read with (empty: each phone's own choice; "
                                       "so too once the room's deck is removed, emptied, or its name another's)")
    deck_title: str = Field("", description="what that deck is called where a player sees it (its name as typed)")
    players: list[str]
    seats: int = Field(description="the players the room takes at most, the solo bot aside (a page says a full room "
                                   "is full before a photo is sent)")
    versions: dict[str, int] = Field(description="each player's version: If-Match of their writes")
    game: GameOut | None
    problem: str | None = Field(None, description="why the room's game cannot be scored, if it cannot")
    waiting_for: Literal["players", "neutral", "bot"] | None = Field(
        None, description="what the game's score waits for (game.final is false until then): more players' "
                          "tableaux (a duel of one player so far, a game of 3-6 of fewer than three), or its "
                          "creator to give a two-player game's neutral pile, a solo game's bot grid")


class NewRoomOut(RoomOut):
    owner_token: str = Field(description="shown once: send it as X-Room-Token to change the room's settings "
                                         "or remove a player")


class PlayerWrite(BaseModel):
    name: str = Field(description="the name as stored (normalised)")
    token: str = Field(description="send as X-Player-Token to replace, rename or remove this tableau")
    version: int = Field(description="the player's new version, for the next If-Match")
    room: RoomOut


class Removed(BaseModel):
    removed: str
    room: RoomOut


class Health(BaseModel):
    status: str  # "ok", or "unavailable" (answered 503) while the database cannot be reached
    version: str
    database: str  # "ok" or "unreachable"
    models: dict[str, str]
    reads_waiting: int


class Clash(BaseModel):
    cell: list[int] = Field(min_length=2, max_length=2, description="[row, col], 0-based, as the grid is written")
    named: str = Field(description="the type the grid names there")
    seen: str = Field(description="the type the deck's own cards show there")
    belief: float = Field(description="how surely they do (0-1)")


class Stray(BaseModel):
    cell: list[int] = Field(min_length=2, max_length=2, description="[row, col], 0-based, as the grid is written")
    named: str = Field(description="the type the grid names there")
    like: str = Field(description="the type the grid names on the card of this photo it looks most like")


class Lumped(BaseModel):
    named: str = Field(description="a type the grid names for cards that look like several cards, not one (or "
                                   "names more often than the deck holds it)")
    cells: list[list[int]] = Field(description="its cells, [row, col] each, 0-based, as the grid is written")


class Problem(BaseModel):
    """Every refusal: ``detail`` says why (a list of field errors when the request's shape is wrong).
    A refusal a client may act on carries a stable ``code`` too: ``not_this_deck`` (a grid of cards
    found, none of the deck's: name its cards, /api/layout), ``no_such_deck`` (the deck a photo is
    to be read with is not, or no longer, on this server), ``deck_incomplete`` (that deck lacks a
    type: it reads no photo yet), ``deck_clash`` (409: the grid names
    cards otherwise than the deck's own show them, listed in ``clashes``; send ``force`` to
    remember anyway), ``grid_unlike`` (409: cards the grid names one type do not look alike in the
    photo, listed in ``strays``, or a type's cards look like several cards, listed in ``lumped``;
    send ``force`` to remember anyway)."""

    detail: str | list
    code: Literal["not_this_deck", "no_such_deck", "deck_incomplete", "deck_clash", "grid_unlike"] | None = None
    clashes: list[Clash] | None = None
    strays: list[Stray] | None = None
    lumped: list[Lumped] | None = None


# Declared on every router: replaces FastAPI's own 422 document (a list only) with the real one.
# 429: a client past its share (schemathesis found it answered, unlisted).
ERROR_STATUSES = (400, 403, 404, 408, 409, 412, 413, 415, 422, 428, 429, 503, 504)
ERRORS: dict[int | str, dict[str, Any]] = {code: {"model": Problem} for code in ERROR_STATUSES}


class DeckOut(BaseModel):
    name: str = Field(description="the deck's key: in URLs, the `deck` field, `ecoscore ... --deck`")
    title: str = Field(description="what the deck is called where a player sees it: its name as typed when it was "
                                   "started (\"Náš stůl\"), else its key")
    references: dict[str, int] = Field(description="reference crops per card type")
    builtin: bool
    complete: bool = Field(description="every type has a reference: the deck can read a tableau")
    missing: list[str] = Field(default_factory=list, description="the types with no reference yet (remember a photo "
                                                                 "that holds them)")
    started_on_a_phone: bool = Field(False, description="started over the service by a phone, which holds its token: "
                                                        "the page lists it on that phone only (false: built in, or "
                                                        "enrolled on the server, for every phone)")


class RememberedOut(DeckOut):
    token: str = Field(description="send as X-Deck-Token to add more cards to this deck (keep it: it is shown once "
                                   "when the deck is started)")
    added: int = Field(0, description="cards this photo added (0: the deck knew every one: nothing to forget)")
    doubts: list[str] = Field(default_factory=list,
                              description="what was not taken: cells the grid names where the photo showed no card")


class ForgottenOut(BaseModel):
    deck: DeckOut | None = Field(description="the deck as it is now; none: its first cards were forgotten, and "
                                             "the deck with them")


class LayoutCell(BaseModel):
    card: bool = Field(description="a card was found in the cell")
    guess: str | None = Field(None, description="the type the deck asked for (``deck``) reads here surely: a guess "
                                                "for the player to confirm before it is remembered")
    doubts: list[str] = Field(description="name the card found here, or check the cell where none was found")
    quad: list[list[float]] = Field(description="the cell's corners in the photo's pixels (TL, TR, BR, BL)")


class LayoutOut(BaseModel):
    cells: list[list[LayoutCell]] = Field(description="4 rows of 5 cells, laid out as a read of the photo lays them")
    photo_url: str = Field(description="the photo as located, upright, with nothing drawn on it")
    photo_size: list[int] = Field(description="the original photo's width and height (the quads' pixels)")
    doubts: list[str] = Field(description="how to retake the photo (cut by the frame, too steep, too far)")


class DecksOut(BaseModel):
    default: str = Field(description="the deck a photo is read against when it names none")
    decks: list[DeckOut]
