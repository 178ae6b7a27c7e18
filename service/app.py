"""The upload service: a JSON API, the phone page, game rooms.

``create_app`` wires the parts: settings (settings.py), the store (store.py), the reader and its
bounded queue (reads.py), the middleware that bounds every request (middleware.py) and the
routers (routes/). Inference runs in the queue's threads (OpenVINO and OpenCV release the GIL),
at most ``reads`` photos at a time in each worker process, with the models loaded once at start-up; database and
scoring work runs in worker threads too, so the event loop only ever waits.
"""
from __future__ import annotations

import asyncio
import gc
import logging
import re
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match
from starlette.types import Scope

from ecoscore import __version__
from ecoscore.vision.pipeline import Reader

from . import localize
from .decks import Decks
from .deps import Services
from .invalid import worded
from .middleware import AccessLog, Admission, Bounds, CrossSite, HeadAsGet, IgnoredRange, PlainPath, SecurityHeaders
from .reads import ReadQueue
from .refusal import Refusal, refused, refused_plainly, utf8_safe
from .routes import decks as deck_routes
from .routes import page, rooms, score
from .routes.page import STATIC
from .settings import Settings
from .store import Busy, Share, Store

__all__ = ["Settings", "create_app"]
log = logging.getLogger("ecoscore.service")
ROOM_PHOTO = re.compile(r"/api/rooms/[^/]+/photo")
DECK_PHOTO = re.compile(r"/api/decks/[^/]+/photo")


def photos_allowed(scope: Scope, settings: Settings) -> int:
    """How many photos the request may carry (0: a JSON request or none)."""
    if scope.get("method") != "POST":
        return 0
    path = scope["path"]
    if path in ("/api/photo", "/api/layout") or ROOM_PHOTO.fullmatch(path) or DECK_PHOTO.fullmatch(path):
        return 1
    return settings.max_photos if path == "/api/game" else 0


MAX_ERRORS = 20  # a 422 lists at most this many of what was wrong (a body can hold thousands)


async def invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
    """FastAPI's own 422, with what it echoes of the client's input made encodable: a string
    holding a lone surrogate (valid JSON, not valid UTF-8) made its answer fail to encode, and
    every JSON route answer 500. Each error's ``msg`` is worded by ``invalid.worded``: in the
    player's language (pydantic's are English), and a file part sent as text said so, not as
    "Expected UploadFile, received: <class 'str'>".

    What it echoes is cut: no ``input`` (the client has it) and at most ``MAX_ERRORS`` errors. A
    60 KB body whose strings the 422 echoed (twice, once per branch of a union) had each string
    matched against every message template on its way out in another language: 1-2.5 s of the
    event loop a request, /health waiting behind it (an attack)."""
    errors = jsonable_encoder(exc.errors()[:MAX_ERRORS])
    for error in errors:
        if isinstance(error, dict):
            error.pop("input", None)
            error["msg"] = worded(error)  # in the catalogue's words: translated on the way out
    return JSONResponse(status_code=422, content={"detail": utf8_safe(errors)})


def freeze_heap() -> None:
    """Leave what start-up made (modules, models, the app: ~100,000 objects) out of garbage
    collection. A full collection runs on the event loop, whichever request happens to allocate,
    and walked all of them: 90-160 ms on a loaded 2-core machine, every second or two while a
    client sent bodies of deeply nested JSON, so /health's p99 went over 100 ms (bench_abuse)."""
    gc.collect()
    gc.freeze()


def create_app(settings: Settings | None = None, reader: Reader | None = None) -> FastAPI:
    settings = settings or Settings()

    async def prune_now(store: Store, decks: Decks) -> None:
        gone = await run_in_threadpool(store.prune, settings.room_idle_days)
        if any(gone.values()):
            log.info("retention: deleted %(rooms)d rooms, %(players)d players, %(overlays)d overlays", gone)
        unfinished = await run_in_threadpool(decks.store.prune_unfinished, settings.deck_unfinished_days)
        if unfinished:
            log.info("retention: deleted %d decks started on a phone and left unfinished", len(unfinished))

    async def prune_forever(store: Store, decks: Decks) -> None:
        while True:
            await asyncio.sleep(settings.prune_every_hours * 3600)
            try:
                await prune_now(store, decks)
            except Exception:  # a busy database: next time (said, so that a bug here is seen)
                log.exception("retention: pruning failed; trying again in %s h", settings.prune_every_hours)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        store = await run_in_threadpool(lambda: Store(settings.database_url(), lock_timeout=settings.db_timeout,
                                                      max_players=settings.max_players, pool_size=settings.db_pool,
                                                      max_rooms=settings.max_rooms,
                                                      rooms_per_client=settings.rooms_per_client))
        the_reader = reader
        reads = ReadQueue(settings.readers(), settings.read_queue, settings.queue_wait)
        if the_reader is None:
            the_reader = await run_in_threadpool(lambda: Reader(concurrent=settings.readers(),
                                                                threads=settings.inference_threads()))
            # No compile on a user's first photo, and every reader's inference state made now,
            # in the threads that read (reads.py, on_each_reader).
            await reads.on_each_reader(the_reader.warm_up)
        decks = Decks(concurrent=settings.readers(), threads=settings.inference_threads())
        if settings.deck:
            await run_in_threadpool(decks.matcher, settings.deck)  # an unknown deck stops the start, clearly
        app.state.services = Services(settings, store, the_reader, reads, decks,
                                      Share("rooms", settings.rooms_per_client_hour),
                                      Share("decks", settings.decks_per_client_hour))
        try:
            await prune_now(store, decks)
        except Busy:  # (another worker pruning at its own start: the service starts all the same)
            log.warning("retention: the database is busy; pruning at the next round")
        pruning = asyncio.create_task(prune_forever(store, decks))
        freeze_heap()
        yield
        gc.unfreeze()
        pruning.cancel()
        reads.close()
        store.close()

    app = FastAPI(
        title="ecoscore",
        version=__version__,
        description="Score photographed Ecosystem tableaux exactly, with the reason for every point.",
        lifespan=lifespan,
        # No redirect to the path without its trailing slash: Starlette builds it from the
        # request's Host header, and links never come from that (a proxy's upstream name, http).
        redirect_slashes=False,
    )
    app.add_exception_handler(RequestValidationError, invalid_request)  # type: ignore[arg-type]
    app.add_exception_handler(Refusal, refused)
    app.add_exception_handler(StarletteHTTPException, refused_plainly)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.include_router(page.router)
    app.include_router(score.router)
    app.include_router(rooms.router)
    app.include_router(deck_routes.router)

    def queue() -> ReadQueue | None:
        services = getattr(app.state, "services", None)
        return services.reads if services else None

    def body_limit(scope: Scope) -> int:
        n = photos_allowed(scope, settings)
        if n:
            return settings.upload_limit(n)
        # A path (or method) no route takes ("/api/photos", "/api/photo/") gets its 404 (405),
        # answered without its body read: a photo sent there was told "request too large: the
        # limit is 64 KB" (an attack on a running server).
        if all(route.matches(scope)[0] != Match.FULL for route in app.router.routes):
            return settings.upload_limit(1)
        return settings.max_json

    # Added innermost first: a request meets the access log, then the headers, HEAD taken as GET,
    # the translator, the path check, the cross-site check, the bounds, admission. The translator outside the
    # bounds and admission, so their refusals (413, 408, 504, a full queue's 503) come in the
    # language asked for too.
    app.add_middleware(Admission, queue=queue, is_photo=lambda scope: photos_allowed(scope, settings) > 0,
                       per_client=settings.photos_per_client)
    app.add_middleware(Bounds, limit=body_limit, body_timeout=settings.body_timeout,
                       request_timeout=settings.request_timeout, min_body_rate=settings.min_body_rate,
                       rate_grace=settings.body_rate_grace)
    app.add_middleware(CrossSite)  # before the body is counted or a photo queued: nothing of it is read
    app.add_middleware(PlainPath)  # before any route, and the database, sees the path
    app.add_middleware(IgnoredRange)
    localize.install(app)  # the API's messages and doubts in the language asked for (Accept-Language, ?lang=)
    # Outside the translator: a HEAD's headers are its GET's as translated (its length too).
    app.add_middleware(HeadAsGet, routes=lambda: app.router.routes)
    app.add_middleware(SecurityHeaders)
    if settings.access_log:
        app.add_middleware(AccessLog)
    return app
