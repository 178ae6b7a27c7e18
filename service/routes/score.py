"""Scoring without a room: one photo, a game of photos, grids given as text or JSON."""
from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from typing import Annotated

from fastapi import APIRouter, File, Form, HTTPException, Path, Request, UploadFile
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from ecoscore.options import parse_others, parse_pair
from ecoscore.scoring import GameDoc, GameScore, GridError, ReadDoc, Tableau, game_to_dict, parse_grid, parse_json, score_game
from ecoscore.vision.overlay import overlay_jpeg
from ecoscore.vision.reads import PhotoRead
from ecoscore.vision.report import player_names, score_reads

from ..bodies import BoundedRoute
from ..deps import Services, Svc
from ..middleware import PHOTO_CLAIM
from ..names import alike, alike_among
from ..schemas import (
    DECK_KEY_OR_EMPTY,
    ERRORS,
    MAX_COUNT,
    MAX_GRID_TEXT,
    MAX_NEUTRAL_STREAMS,
    MAX_NEUTRAL_WOLVES,
    MAX_OTHERS,
    MAX_PLAYERS,
    MAX_RAW_NAME,
    GameOut,
    GridGame,
    Problem,
)
from ..starts import client_of
from .photos import inline_url, photo_name, read_photo, stored_url

router = APIRouter(tags=["score"], responses=ERRORS, route_class=BoundedRoute)

OthersText = Annotated[str, Form(max_length=500, description="S:W,S:W of players not photographed")]
DeckName = Annotated[str, Form(max_length=40, pattern=DECK_KEY_OR_EMPTY,
                               description="the enrolled deck the cards belong to (GET /api/decks); "
                                           "empty: the service's default")]


def tableau(grid: str | list, where: str) -> Tableau:
    try:
        return parse_grid(grid, where) if isinstance(grid, str) else parse_json(grid, where)
    except GridError as err:
        raise HTTPException(422, str(err)) from None


def _pair(text: str, what: str) -> tuple[int, int] | None:
    try:
        pair = parse_pair(text, what) if text.strip() else None
    except ValueError as err:
        raise HTTPException(422, str(err)) from None
    if pair and (pair[0] > MAX_NEUTRAL_STREAMS or pair[1] > MAX_NEUTRAL_WOLVES):  # as the JSON routes cap it
        raise HTTPException(422, f"{what}: at most {MAX_NEUTRAL_STREAMS} streams and {MAX_NEUTRAL_WOLVES} wolves")
    return pair


def others_of(text: str) -> list[tuple[int, int]] | None:
    try:
        others = parse_others(text) if text.strip() else None
    except ValueError as err:
        raise HTTPException(422, str(err)) from None
    if others and len(others) > MAX_OTHERS:
        raise HTTPException(422, f"others: at most {MAX_OTHERS} players, got {len(others)}")
    if others and max(max(pair) for pair in others) > MAX_COUNT:  # as the JSON routes cap it
        raise HTTPException(422, f"others: at most {MAX_COUNT} streams or wolves a player")
    return others


def _names_differ(players: list[str]) -> None:
    """One game's players as a room keeps them apart: "Alice" and "alice" (or "ɑlice") were two
    players, both winners (an attack on a running server); a room refuses the second name."""
    clash = alike_among(players)
    if clash:
        raise HTTPException(422, f"player names must differ; repeated: {', '.join(clash)}")


def _unique(base: str, taken: list[str], players: Callable[[str], list[str]], max_name: int) -> str:
    """``base``, else "base 2", "base 3", ...: the first whose ``players`` none of ``taken`` could be
    taken for (as a room tells names apart)."""
    name, n = base, 2
    while any(alike(player, other) for player in players(name) for other in taken):
        suffix = f" {n}"
        name, n = base[:max_name - len(suffix)] + suffix, n + 1
    return name


def _its_names(name: str, read: PhotoRead, max_name: int) -> list[str]:
    """A photo's players' names, and its own (each photo told apart too)."""
    return [*player_names(name, read, max_name), name]


def _file_names_apart(reads: list[tuple[str, PhotoRead]], bases: list[str | None],
                      max_name: int) -> list[tuple[str, PhotoRead]]:
    """The photos named after their files (``bases``, None where a name was given) made unique
    again now that their tableaux are known, against the players each photo's tableaux become
    ("image-1", "image-2"): two photos sent as image.jpg, the first of two tableaux, were refused as
    "image-2" beside "image 2", names no one had typed (a review)."""
    given = [said for (name, read), base in zip(reads, bases) if base is None for said in _its_names(name, read, max_name)]
    out: list[tuple[str, PhotoRead]] = []
    for (name, read), base in zip(reads, bases):
        if base is not None:
            name = _unique(base, given, partial(_its_names, read=read, max_name=max_name), max_name)
            given += _its_names(name, read, max_name)
        out.append((name, read))
    return out


def _numbered_apart(game: GameScore, read_docs: list[ReadDoc]) -> None:
    """``_names_differ`` once a photo's tableaux are numbered as players: where that numbering made
    the clash, said so ("repeated: ann-1", when no one had typed it twice: a photo "ann" of three
    tableaux beside a photo named "ann-1", an attack)."""
    names = [player.name for player in game.players]
    clash = alike_among(names)
    for name, doc in zip(names, read_docs):
        if name not in clash:
            continue
        own = [nm for nm, d in zip(names, read_docs) if d.get("photo") == doc.get("photo")]  # its photo's players
        if len(own) > 1:
            raise HTTPException(422, f"player names must differ: the photo {doc.get('photo')} holds {len(own)} tableaux, "
                                     f"its players numbered {own[0]} to {own[-1]}, and {name} is too like another "
                                     "player's name: name the photos apart")
    _names_differ(names)


async def _score_photos(svc: Services, request: Request, files: list[UploadFile], names: list[str],
                        neutral: tuple[int, int] | None, others: list[tuple[int, int]] | None, bot: Tableau | None,
                        deck: str = "") -> GameDoc:
    # Each photo a reader's turn: the client's share of the queue counts them all (``Admission``).
    # The game takes as many more places as the share has free now and reads its photos that many
    # at a time: one place (its own) at the least, so it is never refused for its size, and two
    # games from one phone never wait on each other's places (they did, until a 30 s 429: an attack
    # on a running server).
    claim = request.scope.get("state", {}).get(PHOTO_CLAIM)
    places = len(files) if claim is None else 1 + claim(len(files) - 1)
    turns = asyncio.Semaphore(places)

    async def in_turn(upload: UploadFile, name: str) -> tuple[PhotoRead, bytes]:
        async with turns:
            return await read_photo(svc, request, upload, name, deck)

    named: list[str] = []
    bases: list[str | None] = []  # a photo named after its file: that name, to make unique again once read
    for k, upload in enumerate(files):
        given = names[k] if k < len(names) else ""
        named.append(photo_name(svc, given, upload, k))
        bases.append(None if given.strip() else named[-1])
    # A file's name, no one's choice (iPhones name every photo image.jpg): made unique against every
    # name typed, whichever photo comes first (ann.jpg before a photo named "Ann" was refused as
    # "repeated: ann, Ann", after it named "ann 2": an attack on a running server).
    taken = [name for name, base in zip(named, bases) if base is None]
    for k, base in enumerate(bases):
        if base is not None:
            named[k] = _unique(base, taken, lambda candidate: [candidate], svc.settings.max_name)
            taken.append(named[k])
    _names_differ(named)
    done = await asyncio.gather(*(in_turn(f, n) for f, n in zip(files, named)))
    plains = [plain for _, plain in done]  # each photo as the page draws on it, made in its read's turn
    reads = _file_names_apart(list(zip(named, [read for read, _ in done])), bases, svc.settings.max_name)

    # As a room seats them (the setting), and never more than a correction (/api/grid) can send back.
    most = min(svc.settings.max_players, MAX_PLAYERS)

    def score_and_draw() -> tuple[GameScore, list[ReadDoc], list[bytes]]:
        found = sum(len(read.tableaux) for _, read in reads)
        if found > most:  # each tableau is a player: photos of several count each one
            raise HTTPException(422, f"at most {most} players in a game: the photos hold {found} tableaux")
        try:
            game, read_docs = score_reads(reads, neutral=neutral, bot=bot, others=others,
                                          max_name=svc.settings.max_name)
        except ValueError as err:
            raise HTTPException(422, str(err)) from None
        _numbered_apart(game, read_docs)  # a photo's tableaux numbered: "ann-2" beside "Ann-2"
        players, jpegs = iter(game.players), []
        for _, read in reads:
            jpegs.append(overlay_jpeg(read, [next(players) for _ in read.tableaux]))
        return game, read_docs, jpegs

    game, read_docs, jpegs = await run_in_threadpool(score_and_draw)
    client = client_of(request)  # whose pictures these are (each client's newest kept: Store.put_overlay)
    overlay_urls: list[str | None] = []
    photo_urls: list[tuple[str, list[int]]] = []  # the plain photos: the page draws the grid and the current points on them
    stored = True
    for (_, read), jpeg, plain in zip(reads, jpegs, plains):
        if await request.is_disconnected():  # no one to show it to: store nothing
            raise HTTPException(408, "the client went away")
        # The rooms' database down: the score is answered all the same, its photo inline; once it
        # has not answered, nothing more is tried (each try waits the database's timeout).
        overlay_url = await stored_url(svc, jpeg, client) if stored else None
        photo_url = await stored_url(svc, plain, client) if overlay_url else None
        stored = photo_url is not None
        overlay_urls.extend([overlay_url if stored else None] * len(read.tableaux))
        photo_urls.extend([(photo_url or inline_url(plain), list(read.size))] * len(read.tableaux))
    for read_doc, overlay_url, (photo_url, size) in zip(read_docs, overlay_urls, photo_urls):  # the service's part
        if overlay_url is not None:
            read_doc["overlay_url"] = overlay_url
        read_doc["photo_url"] = photo_url
        read_doc["photo_size"] = size
    return game_to_dict(game, read_docs)


@router.post("/api/photo", summary="Score one photo (every tableau in it)", response_model=GameOut,
             response_model_exclude_unset=True)
async def score_photo(svc: Svc, request: Request, photo: UploadFile = File(...),
                      name: Annotated[str, Form(max_length=MAX_RAW_NAME)] = "", others: OthersText = "",
                      deck: DeckName = ""):
    """A photo (JPEG, PNG, WebP or HEIC) of one or more tableaux, each read, placed and scored.
    Every cell carries its type, confidence and runner-up, every tableau its doubts; ``others``
    (the other players' largest stream : wolves) makes the majorities right without their photos."""
    return await _score_photos(svc, request, [photo], [name], None, others_of(others), None, deck)


@router.post("/api/game", summary="Score a game: one photo per player", response_model=GameOut,
             response_model_exclude_unset=True)
async def score_game_photos(
    svc: Svc,
    request: Request,
    photos: list[UploadFile] = File(...),
    names: Annotated[list[str], Form(description="each photo's player, in order")] = [],  # noqa: B006
    neutral: Annotated[str, Form(max_length=50, description="2-player game: STREAMS,WOLVES of the neutral pile")] = "",
    others: OthersText = "",
    bot: Annotated[str, Form(max_length=MAX_GRID_TEXT, description="solo game: the bot's grid as text")] = "",
    deck: DeckName = "",
):
    if len(photos) > svc.settings.max_photos:
        raise HTTPException(422, f"at most {svc.settings.max_photos} photos per game")
    # Blank names past the photos are a form's empty boxes (a page with a box for each player: a
    # review), dropped before the names are counted (9 of them for 2 photos were "at most 8 names").
    names = names[:len(photos)] + [name for name in names[len(photos):] if name.strip()]
    if len(names) > MAX_PLAYERS:
        raise HTTPException(422, f"at most {MAX_PLAYERS} names")
    if len(names) > len(photos):  # (the names past the photos' were dropped without a word: an attack)
        raise HTTPException(422, f"more names ({len(names)}) than photos: one name a photo, in the photos' order (a photo "
                                 "of several tableaux names its players after it: Ann-1, Ann-2)")
    return await _score_photos(svc, request, photos, names, _pair(neutral, "neutral"), others_of(others),
                               tableau(bot, "bot") if bot.strip() else None, deck)


@router.post("/api/grid", summary="Score grids given as text or JSON (corrections)", response_model=GameOut,
             response_model_exclude_unset=True)
async def score_grids(svc: Svc, body: GridGame):
    def work() -> GameDoc:
        players = [(svc.name(p.name), tableau(p.grid, p.name[:40])) for p in body.players]
        _names_differ([name for name, _ in players])
        try:
            game = score_game(players, neutral=body.neutral, others=body.others,
                              bot=tableau(body.bot, "bot") if body.bot else None)
        except ValueError as err:
            raise HTTPException(422, str(err)) from None
        return game_to_dict(game)

    return await run_in_threadpool(work)


@router.get("/api/overlays/{overlay_id}.jpg", summary="A photo as read: the grid drawn on it",
            response_class=Response, responses={200: {"content": {"image/jpeg": {}}}, 404: {"model": Problem, "description": "gone"}})
async def overlay(svc: Svc, overlay_id: Annotated[str, Path(max_length=40)]):
    return Response(await svc.db(svc.store.overlay, overlay_id), media_type="image/jpeg",
                    headers={"Cache-Control": "private, max-age=86400"})
