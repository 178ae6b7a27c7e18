"""Game rooms: every player adds their tableau; the room scores the whole game.

The room's creator gets an owner token (X-Room-Token) for room-wide settings and for removing
players; each player gets a token (X-Player-Token) for their own tableau. Writes that replace
something carry the version the writer saw (If-Match; 409 when it moved on, 428 when missing).
"""
from __future__ import annotations

import hashlib
import io
from typing import Annotated

import segno
from fastapi import APIRouter, Body, File, Form, Header, HTTPException, Path, Request, Response, UploadFile
from starlette.concurrency import run_in_threadpool

from ecoscore.scoring import COLS, ROWS, ReadDoc, game_to_dict, parse_json, score_game, to_json
from ecoscore.scoring.tableau import cell_at
from ecoscore.vision.deckstore import DeckInfo
from ecoscore.vision.fits import MAX_TABLEAUX

from .. import names
from ..bodies import BoundedRoute
from ..deps import ANY_VERSION, IfMatch, PlayerToken, RoomToken, Svc
from ..schemas import (
    DECK_KEY_OR_EMPTY,
    ERRORS,
    MAX_RAW_NAME,
    GridOnly,
    Neutral,
    NewRoom,
    NewRoomOut,
    PlayerGrid,
    PlayerWrite,
    Problem,
    Removed,
    Rename,
    RoomOut,
)
from .photos import for_the_page, read_photo
from .score import tableau

router = APIRouter(tags=["rooms"], responses=ERRORS, route_class=BoundedRoute)

RoomId = Annotated[str, Path(max_length=20, description="the room's code (its password: keep it among players)")]
PlayerName = Annotated[str, Path(max_length=MAX_RAW_NAME)]


def with_corrections(read: ReadDoc | None, grid: list[list[str | None]]) -> ReadDoc:
    """A player's read as it stands after their corrections: the cells whose type now differs
    from the read are listed in ``corrected``, the doubtful cells the player kept as read (stored
    in the read's ``kept``) stay listed there while they still hold the type read, and both lose
    their doubts; every other cell and doubt stays as it was read (the cells keep the types read,
    so "back to what was read" can work). A read the player ``checked`` whole (the grid compared
    with the table) keeps every doubtful cell as it stands, and its doubts of the photo and the
    grid (a card left beside the grid, cells cut by the frame: none of them a cell's to correct)
    move to ``settled``: said, no longer in doubt."""
    read = ReadDoc(**read) if read else ReadDoc()
    if not read.get("cells"):
        return read
    cells = read["cells"]
    corrected = [[r, c] for r, row in enumerate(cells) for c, cell in enumerate(row)
                 if r < len(grid) and c < len(grid[r]) and cell.get("type") != grid[r][c]]
    gone = {(r, c) for r, c in corrected}
    wanted = ({(r, c) for r, row in enumerate(cells) for c, cell in enumerate(row) if cell.get("doubts")}
              if read.get("checked") else {(r, c) for r, c in read.get("kept", [])})
    kept = sorted(wanted - gone)
    gone |= set(kept)
    read["cells"] = [[cell | {"doubts": []} if (r, c) in gone else cell for c, cell in enumerate(row)]
                     for r, row in enumerate(cells)]
    if read.get("checked"):
        read["settled"] = [d for d in read.get("doubts", []) if _cell_of(d) is None]
        read["doubts"] = []
    else:
        read["doubts"] = [d for d in read.get("doubts", []) if _cell_of(d) not in gone]
    read["corrected"] = corrected
    read["kept"] = [[r, c] for r, c in kept]
    return read


# A read's doubt of one cell starts with the cell's words (vision/naming.py tableau_doubts).
_CELL_PREFIXES = {f"{cell_at(r, c)}: ": (r, c) for r in range(ROWS) for c in range(COLS)}


def _cell_of(doubt: str) -> tuple[int, int] | None:
    """The cell a read's doubt is of ("row 2, col 3: low confidence: ..."), or None: the photo's
    or the grid's."""
    return next((rc for prefix, rc in _CELL_PREFIXES.items() if doubt.startswith(prefix)), None)


def kept_cells(read: ReadDoc, grid: list[list[str | None]], kept: list[list[int]] | None) -> list[list[int]]:
    """The cells a player kept as read, as stored with their read: ``kept`` (or, not given, those
    stored before), only where the read had doubts and the grid still holds the type read (a
    kept cell corrected since is no longer kept, so setting it back does not keep it again)."""
    cells = read.get("cells") or []
    wanted = {(r, c) for r, c in (read.get("kept", []) if kept is None else kept)}
    return [[r, c] for r, c in sorted(wanted)
            if r < len(cells) and c < len(cells[r]) and cells[r][c].get("doubts")
            and r < len(grid) and c < len(grid[r]) and cells[r][c].get("type") == grid[r][c]]


# The players a room's game needs before it names a winner (the solo bot aside): a game of 3-6
# (two play with the neutral pile, a room of its own), a duel's two.
MIN_PLAYERS = {"game": 3, "two-player": 2}
MAX_NONE_MATCH_TAGS = 16  # entity tags of an If-None-Match looked at: a page sends one


def room_etag(version: int, reads_with: DeckInfo | None) -> str:
    """The validator of a room's answer: its version, and the deck it reads with as the answer
    shows it, which changes with no write to the room (the deck removed, or made again under
    another title: an attack found every phone told "nothing new" while the room's deck had
    gone). A writer's ``If-Match`` takes it too (``deps._version`` reads the version from it)."""
    if reads_with is None:
        return f'"{version}"'
    shown = hashlib.sha256(f"{reads_with.name}\0{reads_with.shown}".encode()).hexdigest()[:8]
    return f'"{version}-{shown}"'


def none_match(header: str, etag: str) -> bool:
    """RFC 9110's If-None-Match: "*" (the room exists), or any of its entity tags, compared weakly."""
    if header.strip() == "*":
        return True
    tags = header.split(",", MAX_NONE_MATCH_TAGS)[:MAX_NONE_MATCH_TAGS]
    return any(tag.strip().removeprefix("W/") == etag for tag in tags)


def _room_head_etag(svc, room_id: str) -> str:
    version, deck, owner = svc.store.room_head(room_id)
    return room_etag(version, svc.room_deck(deck, owner))


def _room_doc(svc, room_id: str) -> tuple[dict, str]:
    """The room with every player's score pad, and its ``room_etag`` (blocking: the store and the
    scoring)."""
    room = svc.store.room(room_id)
    # The deck it reads with now: none once its deck is removed, emptied or another's (each
    # phone's own choice then: room_photo).
    reads_with = svc.room_deck(room.deck, room.deck_owner)
    etag = room_etag(room.version, reads_with)
    doc = {"id": room.id, "mode": room.mode, "version": room.version, "url": f"/r/{room.id}",
           "link": f"{svc.settings.link_base()}/r/{room.id}", "qr_url": f"/api/rooms/{room.id}/qr.svg",
           "neutral": list(room.neutral) if room.mode == "two-player" else None,
           "neutral_given": room.mode == "two-player" and bool(room.neutral_given), "bot": room.bot_grid,
           "deck": reads_with.name if reads_with else "", "deck_title": reads_with.shown if reads_with else "",
           "players": [p.name for p in room.players], "seats": svc.store.seats(room.mode),
           "versions": {p.name: p.version for p in room.players},
           "game": None, "problem": None, "waiting_for": None}
    if room.players:
        bot = parse_json(room.bot_grid) if room.mode == "solo" and room.bot_grid else None
        try:
            game = score_game([(p.name, parse_json(p.grid)) for p in room.players],
                              neutral=room.neutral if room.mode == "two-player" else None,
                              bot=bot if len(room.players) == 1 else None)
        except ValueError as err:  # a room stored before names were checked: say so, do not fail
            doc["problem"] = str(err)
            return doc, etag
        # A room keeps each player's plain photo (photo_url); overlay_url names the same picture
        # for older clients: a drawn overlay would show points scored alone, not the room's.
        reads = []
        for p in room.players:
            read = with_corrections(p.read, p.grid)
            for said in ("doubts", "settled"):  # a read stored before they were in the page's words
                if read.get(said):
                    read[said] = [for_the_page(doubt) for doubt in read[said]]
            read["overlay_url"] = read["photo_url"] = f"/api/overlays/{p.overlay_id}.jpg" if p.overlay_id else None
            reads.append(read)
        doc["game"] = game_to_dict(game, reads)
    # What the room still waits for before its score is final: a two-player game's neutral pile
    # (it takes part in the majorities), a solo game's bot. Both were final without them, the
    # winner named on half the game (an attack on a running server). Said before anyone joins too:
    # a guest's page could not tell a pile not given from one given as none.
    # And a duel's or a game's second player: one tableau alone won a game of one ("Winner: Anna"
    # in a two-player room before Bob's photo: a newcomer's walk).
    # And a game's third: two players play with a neutral pile (the rules; a room of its own),
    # so a "3-6 players" room of two named a winner while the third was still taking their photo
    # (an Italian walk).
    # (never more than the room seats: a service set to seat 2 would wait for ever)
    needed = min(MIN_PLAYERS.get(room.mode, 2), svc.store.seats(room.mode))
    waiting = ("players" if room.mode != "solo" and 0 < len(room.players) < needed
               else "neutral" if room.mode == "two-player" and not room.neutral_given
               else "bot" if room.mode == "solo" and not room.bot_grid else None)
    if waiting and doc["game"]:
        doc["game"]["final"] = False
    doc["waiting_for"] = waiting
    return doc, etag


async def room_doc(svc, room_id: str, response: Response | None = None) -> dict:
    doc, etag = await svc.db(_room_doc, svc, room_id)
    if response is not None:
        response.headers["ETag"] = etag
    return doc


@router.post("/api/rooms", summary="Start a game room", response_model=NewRoomOut, response_model_exclude_unset=True)
async def new_room(svc: Svc, response: Response, request: Request, body: Annotated[NewRoom | None, Body()] = None):
    body = body or NewRoom()  # no body: every field's default, as {} (it was "body: missing": an attack)
    room_id, owner = await svc.start_room(body.mode, request, body.deck)
    return await room_doc(svc, room_id, response) | {"owner_token": owner}


@router.get("/api/rooms/{room_id}", summary="A room with every player's score pad", response_model=RoomOut,
            response_model_exclude_unset=True,
            responses={304: {"description": "the room's answer is the one If-None-Match names (its ETag)"}})
async def get_room(svc: Svc, room_id: RoomId, response: Response,
                   if_none_match: Annotated[list[str] | None, Header(description="the ETag of the answer you have")] = None):
    # Every phone in a room asks every two seconds; most often nothing moved on. Each answer
    # loaded every player's read and scored the game (a review): a poll that names the answer
    # it has is answered from the room's version and deck alone. Sent on several lines, the
    # header is one list (RFC 9110, 5.3: only its first line was looked at, an attack found).
    if if_none_match:
        etag = await svc.db(_room_head_etag, svc, room_id)
        if none_match(", ".join(if_none_match[:MAX_NONE_MATCH_TAGS]), etag):
            return Response(status_code=304, headers={"ETag": etag})
    return await room_doc(svc, room_id, response)


@router.get("/api/rooms/{room_id}/qr.svg", summary="The room's link as a QR code", response_class=Response,
            responses={200: {"content": {"image/svg+xml": {}}}, 404: {"model": Problem, "description": "no such room"}})
async def room_qr(svc: Svc, room_id: RoomId):
    await svc.db(svc.store.room, room_id)  # 404 for a room that does not exist
    # The public address from the settings: a request's Host header is the client's to choose.
    # A standalone SVG needs its xmlns (svg_inline() leaves it out, and an <img> then shows
    # nothing); a white background keeps it readable by cameras on a dark page.
    def draw() -> bytes:
        out = io.BytesIO()
        segno.make(f"{svc.settings.link_base()}/r/{room_id}", error="m").save(
            out, kind="svg", scale=6, border=4, xmldecl=False, light="#fff")
        return out.getvalue()

    return Response(await run_in_threadpool(draw), media_type="image/svg+xml")


async def _written(svc, room_id: str, name: str, token_version: tuple[str, int], response: Response) -> dict:
    token, version = token_version
    response.headers["ETag"] = f'"{version}"'
    return {"name": name, "token": token, "version": version, "room": await room_doc(svc, room_id)}


def _not_theirs(grids: list[list[list[str | None]]], first: int, theirs: list[list[list[str | None]]]) -> int:
    """Of a photo's tableaux (``grids``, as found), the first from ``first`` on, round, that no other
    player holds card for card (``theirs``); ``first`` where every one is held."""
    for step in range(len(grids)):
        k = (first + step) % len(grids)
        if grids[k] not in theirs:
            return k
    return first


@router.post("/api/rooms/{room_id}/photo", summary="Add (or replace) your tableau by photo", response_model=PlayerWrite,
             response_model_exclude_unset=True)
async def room_photo(svc: Svc, request: Request, response: Response, room_id: RoomId, if_match: IfMatch,
                     photo: UploadFile = File(...), name: str = Form(..., min_length=1, max_length=MAX_RAW_NAME),
                     deck: str = Form("", max_length=40, pattern=DECK_KEY_OR_EMPTY, description=(
                         "the enrolled deck of the cards (GET /api/decks), where the room has none")),
                     which: int = Form(0, alias="tableau", ge=0, le=MAX_TABLEAUX, description=(
                         "which of the photo's tableaux is yours, numbered as found (1: the most cards; the answer's "
                         "tableaux says how many); 0: the one with the most cards, with a doubt where there are several")),
                     x_player_token: PlayerToken = None):
    name = svc.name(name)
    # An unknown room, a full one, another's name, a stale version: refused before the read.
    await svc.db(svc.store.check_put, room_id, name, x_player_token, if_match)
    room = await svc.db(svc.store.room, room_id)
    # The room's deck, if it has one, whatever the phone chose: one game, one deck. One removed
    # from the server since (or emptied, or its name taken by another's deck) would refuse, or
    # misread, every photo of the room: the phone's own choice then, also if that happens while
    # the photo waits its turn.
    room_deck = await run_in_threadpool(svc.room_deck, room.deck, room.deck_owner)
    read, jpeg = await read_photo(svc, request, photo, name, room_deck.name if room_deck else deck,
                                  fallback=deck if room_deck else None, owner=room.deck_owner if room_deck else None)

    def draw() -> tuple[list[list[str | None]], ReadDoc, bytes]:
        from ecoscore.vision.report import read_to_dict

        found = len(read.tableaux)
        # A neighbour's tableau beside the player's: the player says which is theirs (the page sends
        # the same photo again with the next number), else the one with the most cards, in doubt.
        if which > found:
            raise HTTPException(422, f"this photo holds {found} tableau{'x' if found > 1 else ''}: it has no tableau {which}")
        # ... passing over those another player of the room holds already, card for card: three
        # players sending one photo of the table each got its biggest tableau, and "Not mine" gave
        # the next one the second player held (a Czech walk: two players with one tableau, the
        # majorities moved, until pressed again).
        theirs = [player.grid for player in room.players if player.name != name]
        k = _not_theirs([to_json(t.tableau) for t in read.tableaux], max(which, 1) - 1, theirs)
        tab = read.tableaux[k]  # (its photo plain, ``jpeg``: the page draws the room's points on it)
        doubts = list(read.doubts)
        if found > 1 and not which:
            doubts.append(f"this photo holds {found} tableaux: the one with the most cards was taken as yours "
                          "(photograph yours alone to be sure)" if k == 0 else
                          f"this photo holds {found} tableaux: tableau {k + 1} was taken as yours, those with more cards "
                          "being other players' (photograph yours alone to be sure)")
        # which deck read it: a room's, or the phone's after it was removed
        read_doc = read_to_dict(tab, doubts, read.deck)
        read_doc["photo_size"] = list(read.size)
        read_doc["tableau"], read_doc["tableaux"] = k + 1, found
        return to_json(tab.tableau), read_doc, jpeg

    grid, read_doc, jpeg = await run_in_threadpool(draw)
    if await request.is_disconnected():  # abandoned: store nothing
        raise HTTPException(408, "the client went away")
    written = await svc.db(svc.store.put_player, room_id, name, grid, read_doc, jpeg, x_player_token, if_match)
    return await _written(svc, room_id, name, written, response)


@router.put("/api/rooms/{room_id}/players/{name}/grid", summary="Add or correct your tableau as a grid",
            response_model=PlayerWrite, response_model_exclude_unset=True)
async def room_grid(svc: Svc, response: Response, room_id: RoomId, name: PlayerName, body: PlayerGrid,
                    if_match: IfMatch, x_player_token: PlayerToken = None):
    name = svc.name(name)
    grid = to_json(tableau(body.grid, name))
    room = await svc.db(svc.store.room, room_id)
    before = next((p for p in room.players if p.name == name), None)
    read = before.read if before else None  # a correction keeps the read: its other doubts stay
    if read:
        kept = [list(cell) for cell in body.kept] if body.kept is not None else None
        read = ReadDoc(**read) | ReadDoc(kept=kept_cells(ReadDoc(**read), grid, kept))
        if body.checked is not None:  # absent: as checked (or not) before
            read.pop("checked", None)
            if body.checked:
                read["checked"] = True
    # "*" (any version) is the version the player was read at: their read (or none) is written
    # back, and a photo put meanwhile, its overlay kept by the write, got the old photo's cells (an
    # attack); such a race is a 409, as with the version sent.
    if if_match == ANY_VERSION and before is not None:
        if_match = before.version
    written = await svc.db(svc.store.put_player, room_id, name, grid, read, None, x_player_token, if_match)
    return await _written(svc, room_id, name, written, response)


@router.patch("/api/rooms/{room_id}/players/{name}", summary="Rename yourself", response_model=PlayerWrite,
              response_model_exclude_unset=True)
async def rename_player(svc: Svc, response: Response, room_id: RoomId, name: PlayerName, body: Rename,
                        if_match: IfMatch, x_player_token: PlayerToken = None):
    name, new = names.fold(name), svc.name(body.name)
    version = await svc.db(svc.store.rename_player, room_id, name, new, x_player_token, if_match)
    assert x_player_token is not None  # the store renames only for the player's own token
    return await _written(svc, room_id, new, (x_player_token, version), response)


@router.delete("/api/rooms/{room_id}/players/{name}", summary="Leave (your token) or remove a player (the room's)",
               response_model=Removed, response_model_exclude_unset=True)
async def remove_player(svc: Svc, response: Response, room_id: RoomId, name: PlayerName, if_match: IfMatch,
                        x_player_token: PlayerToken = None, x_room_token: RoomToken = None):
    name = names.fold(name)  # as stored, unchecked: a name stored before the checks can still go
    await svc.db(svc.store.remove_player, room_id, name, x_player_token, x_room_token, if_match)
    return {"removed": name, "room": await room_doc(svc, room_id, response)}


@router.put("/api/rooms/{room_id}/neutral", summary="2-player game: the neutral pile (the room's creator)",
            response_model=RoomOut, response_model_exclude_unset=True)
async def room_neutral(svc: Svc, response: Response, room_id: RoomId, body: Neutral, if_match: IfMatch,
                       x_room_token: RoomToken = None):
    await svc.db(svc.store.set_neutral, room_id, body.streams, body.wolves, x_room_token, if_match)
    return await room_doc(svc, room_id, response)


@router.put("/api/rooms/{room_id}/bot", summary="Solo game: the bot's grid (the room's creator)",
            response_model=RoomOut, response_model_exclude_unset=True)
async def room_bot(svc: Svc, response: Response, room_id: RoomId, body: GridOnly, if_match: IfMatch,
                   x_room_token: RoomToken = None):
    grid = to_json(tableau(body.grid, "bot"))
    await svc.db(svc.store.set_bot, room_id, grid, x_room_token, if_match)
    return await room_doc(svc, room_id, response)
