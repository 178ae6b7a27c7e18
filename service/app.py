"""The upload service: a JSON API, the phone page, game rooms.

Inference runs off the event loop in a thread pool (OpenVINO and OpenCV release the GIL),
at most ``workers`` photos at a time, with the models loaded once at start-up.
"""
from __future__ import annotations

import asyncio
import io
import os
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import segno
from fastapi import FastAPI, File, Form, Header, HTTPException, Request, UploadFile
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from ecoscore import __version__
from ecoscore.options import parse_others, parse_pair
from ecoscore.paths import data_dir
from ecoscore.scoring import GridError, Tableau, game_to_dict, parse_grid, parse_json, score_game, to_json
from ecoscore.vision.decode import MAX_BYTES, ImageError
from ecoscore.vision.overlay import overlay_jpeg
from ecoscore.vision.pipeline import NoTableauError, PhotoRead, Reader
from ecoscore.vision.report import read_to_dict, score_reads

from . import i18n
from .store import Forbidden, NotFound, Store, StoreError

STATIC = Path(__file__).resolve().parent / "static"


@dataclass
class Settings:
    db_url: str = ""
    workers: int = 2  # photos read at once: one per core
    max_upload: int = MAX_BYTES

    def __post_init__(self):
        self.db_url = self.db_url or f"sqlite:///{data_dir() / 'service' / 'ecoscore.sqlite3'}"


class GridPlayer(BaseModel):
    name: str = Field(min_length=1, max_length=40)
    grid: str | list = Field(description="text grid (4 lines of 5 names) or JSON rows; null/'.' for empty")


class GridGame(BaseModel):
    players: list[GridPlayer] = Field(min_length=1, max_length=8)
    neutral: tuple[int, int] | None = Field(None, description="2-player game: the neutral pile's (streams, wolves)")
    others: list[tuple[int, int]] | None = Field(None, description="(largest stream, wolves) of players not given")
    bot: str | list | None = Field(None, description="solo game: the bot's grid")


class NewRoom(BaseModel):
    mode: str = Field("game", description="game, two-player (with a neutral pile) or solo (with a bot)")


class Neutral(BaseModel):
    streams: int = Field(ge=0, le=20)
    wolves: int = Field(ge=0, le=12)


class GridOnly(BaseModel):
    grid: str | list


def _tableau(grid: str | list, where: str) -> Tableau:
    try:
        return parse_grid(grid, where) if isinstance(grid, str) else parse_json(grid, where)
    except GridError as err:
        raise HTTPException(422, str(err)) from None


def _pair(text: str | None, what: str) -> tuple[int, int] | None:
    try:
        return parse_pair(text, what) if text else None
    except ValueError as err:
        raise HTTPException(422, str(err)) from None


def _others(text: str | None):
    try:
        return parse_others(text) if text else None
    except ValueError as err:
        raise HTTPException(422, str(err)) from None


def _photo_jpeg(read: PhotoRead, max_side: int = 1280, quality: int = 82) -> bytes:
    """The photo as read, upright and at most ``max_side`` px, with nothing drawn on it: the page
    draws the grid, the labels and the current points itself, so they never go stale."""
    import cv2

    img = read.photo.image
    if max(img.shape[:2]) > max_side:
        f = max_side / max(img.shape[:2])
        img = cv2.resize(img, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    return cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])[1].tobytes()


def _with_corrections(read: dict | None, grid: list) -> dict:
    """A player's read as it stands after their corrections: the cells whose type now differs
    from the read are listed in ``corrected`` and lose their doubts; every other cell and doubt
    stays as it was read (the cells keep the types read, so "back to what was read" can work)."""
    read = {k: v for k, v in (read or {}).items() if k != "grid"}  # the grid is the one scored
    if not read.get("cells"):
        return read
    corrected = [[r, c] for r, row in enumerate(read["cells"]) for c, cell in enumerate(row)
                 if r < len(grid) and c < len(grid[r]) and cell.get("type") != grid[r][c]]
    gone = {(r, c) for r, c in corrected}
    cells = [[cell | {"doubts": []} if (r, c) in gone else cell for c, cell in enumerate(row)]
             for r, row in enumerate(read["cells"])]
    doubts = [d for d in read.get("doubts", []) if not any(d.startswith(f"row {r + 1}, col {c + 1}: ") for r, c in gone)]
    return read | {"cells": cells, "doubts": doubts, "corrected": corrected}


def create_app(settings: Settings | None = None, reader: Reader | None = None) -> FastAPI:
    settings = settings or Settings()
    state: dict = {}

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        state["store"] = Store(settings.db_url)
        if reader is None:
            state["reader"] = await run_in_threadpool(lambda: Reader(concurrent=settings.workers))
            await run_in_threadpool(state["reader"].warm_up)  # no compile on a user's first photo
        else:
            state["reader"] = reader
        state["slots"] = asyncio.Semaphore(settings.workers)
        yield

    app = FastAPI(
        title="ecoscore",
        version=__version__,
        description="Score photographed Ecosystem tableaux exactly, with the reason for every point.",
        lifespan=lifespan,
    )
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    i18n.install(app)  # the API's messages and doubts in the language asked for (Accept-Language, ?lang=)

    # The installable page: its manifest, and its service worker served from the root so that its
    # scope covers / and every /r/ROOM (a worker under /static/ could only control /static/).
    @app.get("/manifest.webmanifest", include_in_schema=False)
    async def manifest():
        return FileResponse(STATIC / "manifest.webmanifest", media_type="application/manifest+json")

    @app.get("/sw.js", include_in_schema=False)
    async def service_worker():
        return FileResponse(STATIC / "sw.js", media_type="text/javascript", headers={"Cache-Control": "no-cache"})

    @app.middleware("http")
    async def refuse_huge_bodies(request: Request, call_next):
        # Refuse on the declared size, before anything is read or spooled to disk (a game
        # upload may carry up to 8 photos; each photo is checked again on its own below).
        length = request.headers.get("content-length")
        if length and length.isdigit() and int(length) > settings.max_upload * 8 + 1_000_000:
            return JSONResponse({"detail": f"upload too large: the limit is {settings.max_upload // 2**20} MB a photo"}, 413)
        return await call_next(request)

    async def _bytes(upload: UploadFile) -> bytes:
        data = await upload.read(settings.max_upload + 1)
        if len(data) > settings.max_upload:
            raise HTTPException(413, f"{upload.filename}: upload too large: the limit is {settings.max_upload // 2**20} MB")
        return data

    async def _read(name: str, data: bytes) -> PhotoRead:
        async with state["slots"]:
            try:
                return await run_in_threadpool(state["reader"].read, data)
            except ImageError as err:
                raise HTTPException(415 if "not an image" in str(err) else 422, f"{name}: {err}") from None
            except NoTableauError as err:
                raise HTTPException(422, f"{name}: {err}") from None


    async def _score_photos(files, names, neutral, others, bot):
        photos = [(names[k] if k < len(names) and names[k] else Path(f.filename or f"photo{k + 1}").stem or f"photo{k + 1}",
                   await _bytes(f)) for k, f in enumerate(files)]
        reads = list(zip([n for n, _ in photos], await asyncio.gather(*(_read(n, d) for n, d in photos))))
        try:
            game, extras = score_reads(reads, neutral=neutral, bot=bot, others=others)
        except ValueError as err:
            raise HTTPException(422, str(err)) from None
        overlay_ids, players = [], iter(game.players)
        for _, read in reads:
            scored = [next(players) for _ in read.tableaux]
            jpeg = await run_in_threadpool(overlay_jpeg, read, scored)
            oid = await run_in_threadpool(state["store"].put_overlay, jpeg)
            overlay_ids.extend([oid] * len(read.tableaux))
        photo_ids = []
        for _, read in reads:
            pid = await run_in_threadpool(state["store"].put_overlay, await run_in_threadpool(_photo_jpeg, read))
            photo_ids.extend([(pid, read.size)] * len(read.tableaux))
        for fields, oid, (pid, size) in zip(extras, overlay_ids, photo_ids):
            fields["overlay_url"] = f"/api/overlays/{oid}.jpg"
            fields["photo_url"] = f"/api/overlays/{pid}.jpg"  # the plain photo: the page draws on it
            fields["photo_size"] = list(size)  # the pixels the cells' quads are given in
        return game_to_dict(game, extras)

    @app.get("/", include_in_schema=False)
    @app.get("/r/{room_id}", include_in_schema=False)
    async def page(room_id: str | None = None):
        return FileResponse(STATIC / "index.html")

    @app.get("/health", tags=["service"])
    async def health():
        r = state["reader"]
        return {"status": "ok", "version": __version__,
                "models": {"finder": r.finder.path.name, "classifier": r.classifier.path.name}}

    @app.post("/api/photo", tags=["score"], summary="Score one photo (every tableau in it)")
    async def score_photo(photo: UploadFile = File(...), name: str = Form(""), others: str = Form("")):
        return await _score_photos([photo], [name], None, _others(others), None)

    @app.post("/api/game", tags=["score"], summary="Score a game: one photo per player")
    async def score_game_photos(
        photos: list[UploadFile] = File(...),
        names: list[str] = Form([]),
        neutral: str = Form("", description="2-player game: STREAMS,WOLVES of the neutral pile"),
        others: str = Form("", description="S:W,S:W of players not photographed"),
        bot: str = Form("", description="solo game: the bot's grid as text"),
    ):
        if len(photos) > 8:
            raise HTTPException(422, "at most 8 photos per game")
        return await _score_photos(photos, names, _pair(neutral, "neutral"), _others(others),
                                   _tableau(bot, "bot") if bot else None)

    @app.post("/api/grid", tags=["score"], summary="Score grids given as text or JSON (corrections)")
    async def score_grids(body: GridGame):
        players = [(p.name, _tableau(p.grid, p.name)) for p in body.players]
        try:
            game = score_game(players, neutral=body.neutral, others=body.others,
                              bot=_tableau(body.bot, "bot") if body.bot else None)
        except ValueError as err:
            raise HTTPException(422, str(err)) from None
        return game_to_dict(game)

    @app.get("/api/overlays/{overlay_id}.jpg", tags=["score"], response_class=Response)
    async def overlay(overlay_id: str):
        try:
            return Response(state["store"].overlay(overlay_id), media_type="image/jpeg")
        except NotFound as err:
            raise HTTPException(404, str(err)) from None

    # ---- game rooms ----
    def _room_doc(room_id: str) -> dict:
        try:
            room = state["store"].room(room_id)
        except NotFound as err:
            raise HTTPException(404, str(err)) from None
        doc = {"id": room.id, "mode": room.mode, "version": room.version, "url": f"/r/{room.id}",
               "qr_url": f"/api/rooms/{room.id}/qr.svg", "neutral": list(room.neutral) if room.mode == "two-player" else None,
               "bot": room.bot_grid, "players": [], "game": None}
        if room.players:
            bot = parse_json(room.bot_grid) if room.mode == "solo" and room.bot_grid else None
            players = [(p.name, parse_json(p.grid)) for p in room.players]
            game = score_game(players, neutral=room.neutral if room.mode == "two-player" else None,
                              bot=bot if len(players) == 1 else None)
            # A room keeps each player's plain photo (photo_url); overlay_url names the same
            # picture for older clients: a drawn overlay would show points scored alone.
            extras = [_with_corrections(p.read, p.grid) | {"overlay_url": f"/api/overlays/{p.overlay_id}.jpg" if p.overlay_id else None,
                                        "photo_url": f"/api/overlays/{p.overlay_id}.jpg" if p.overlay_id else None}
                      for p in room.players]
            doc["game"] = game_to_dict(game, extras)
            doc["players"] = [p.name for p in room.players]
        return doc

    @app.post("/api/rooms", tags=["rooms"], summary="Start a game room")
    async def new_room(body: NewRoom):
        try:
            room_id = state["store"].create_room(body.mode)
        except StoreError as err:
            raise HTTPException(422, str(err)) from None
        return _room_doc(room_id)

    @app.get("/api/rooms/{room_id}", tags=["rooms"], summary="A room with every player's score pad")
    async def get_room(room_id: str):
        return _room_doc(room_id)

    @app.get("/api/rooms/{room_id}/qr.svg", tags=["rooms"], response_class=Response)
    async def room_qr(room_id: str, request: Request):
        _room_doc(room_id)
        url = str(request.base_url).rstrip("/") + f"/r/{room_id}"
        # A standalone SVG needs its xmlns (svg_inline() leaves it out, and an <img> then shows
        # nothing); a white background keeps it readable by cameras on a dark page.
        svg = io.BytesIO()
        segno.make(url, error="m").save(svg, kind="svg", scale=6, border=4, xmldecl=False, light="#fff")
        return Response(svg.getvalue(), media_type="image/svg+xml")

    def _put(room_id, name, grid, read, overlay, token):
        try:
            return state["store"].put_player(room_id, name, grid, read, overlay, token)
        except Forbidden as err:
            raise HTTPException(403, str(err)) from None
        except NotFound as err:
            raise HTTPException(404, str(err)) from None

    @app.post("/api/rooms/{room_id}/photo", tags=["rooms"], summary="Add (or replace) your tableau by photo")
    async def room_photo(room_id: str, photo: UploadFile = File(...), name: str = Form(..., min_length=1, max_length=40),
                         x_player_token: str | None = Header(None)):
        _room_doc(room_id)
        read = await _read(name, await _bytes(photo))
        tab = read.tableaux[0]
        jpeg = await run_in_threadpool(_photo_jpeg, read)  # plain: the page draws the room's points on it
        doubts = list(read.doubts)
        if len(read.tableaux) > 1:
            doubts.append(f"this photo holds {len(read.tableaux)} tableaux: the first found was taken as yours "
                          "(photograph yours alone to be sure)")
        fields = read_to_dict(tab, doubts) | {"photo_size": list(read.size)}
        token = await run_in_threadpool(_put, room_id, name, to_json(tab.tableau), fields, jpeg, x_player_token)
        return {"name": name, "token": token, "room": _room_doc(room_id)}

    @app.put("/api/rooms/{room_id}/players/{name}/grid", tags=["rooms"], summary="Add or correct your tableau as a grid")
    async def room_grid(room_id: str, name: str, body: GridOnly, x_player_token: str | None = Header(None)):
        tableau = _tableau(body.grid, name)
        _room_doc(room_id)  # 404 for an unknown room
        before = next((p for p in state["store"].room(room_id).players if p.name == name), None)
        read = before.read if before else None  # a correction keeps the read: its other doubts stay
        token = await run_in_threadpool(_put, room_id, name, to_json(tableau), read, None, x_player_token)
        return {"name": name, "token": token, "room": _room_doc(room_id)}

    @app.put("/api/rooms/{room_id}/neutral", tags=["rooms"], summary="2-player game: the neutral pile")
    async def room_neutral(room_id: str, body: Neutral):
        try:
            state["store"].set_neutral(room_id, body.streams, body.wolves)
        except NotFound as err:
            raise HTTPException(404, str(err)) from None
        return _room_doc(room_id)

    @app.put("/api/rooms/{room_id}/bot", tags=["rooms"], summary="Solo game: the bot's grid")
    async def room_bot(room_id: str, body: GridOnly):
        tableau = _tableau(body.grid, "bot")
        try:
            state["store"].set_bot(room_id, to_json(tableau))
        except NotFound as err:
            raise HTTPException(404, str(err)) from None
        return _room_doc(room_id)

    return app


def serve(host: str = "127.0.0.1", port: int = 8000, db_url: str = "", workers: int = 2) -> None:
    import uvicorn

    os.environ.setdefault("ECOSCORE_THREADS", "1")  # parallel photos, one core each
    uvicorn.run(create_app(Settings(db_url=db_url, workers=workers)), host=host, port=port, log_level="info")
