"""The phone page (static files, served as they are) and the health check."""
from __future__ import annotations

import logging
import time

import anyio
import anyio.to_thread
from fastapi import APIRouter
from fastapi.responses import FileResponse, JSONResponse, Response

from ecoscore import __version__
from ecoscore.paths import static_dir

from ..deps import Svc
from ..schemas import Health, Problem

log = logging.getLogger("ecoscore.service")

STATIC = static_dir()
router = APIRouter(responses={503: {"model": Problem}})


# HEAD too: uptime checks ask so (they got 405).
@router.api_route("/", methods=["GET", "HEAD"], include_in_schema=False)
@router.api_route("/r/{room_id}", methods=["GET", "HEAD"], include_in_schema=False)
async def page(room_id: str | None = None):
    return FileResponse(STATIC / "index.html")


# The installable page: its manifest, and its service worker served from the root so that its
# scope covers / and every /r/ROOM (a worker under /static/ could only control /static/).
@router.get("/manifest.webmanifest", include_in_schema=False)
async def manifest():
    return FileResponse(STATIC / "manifest.webmanifest", media_type="application/manifest+json")


@router.get("/sw.js", include_in_schema=False)
async def service_worker():
    return FileResponse(STATIC / "sw.js", media_type="text/javascript", headers={"Cache-Control": "no-cache"})


@router.head("/health", include_in_schema=False)
async def alive() -> Response:
    return Response(status_code=200)


@router.get("/health", tags=["service"], response_model=Health, responses={503: {"model": Health}})
async def health(svc: Svc):
    r = svc.reader
    models = {"finder": r.finder.path.name, "classifier": r.classifier.path.name,
              "matcher": "matcher.onnx"}  # loaded with the first photo of an enrolled deck
    refiner = getattr(r.finder, "refiner", None)
    if refiner is not None:  # gives each box its card's own corners (vision/corners.py)
        models["finder_refiner"] = refiner.path.name
    lattice = getattr(r, "lattice_refiner", None)
    if lattice is not None:  # refines each tableau's lattice as one object (vision/lattice_refiner.py)
        models["lattice_refiner"] = lattice.path.name
        wide = getattr(lattice, "wide", None)
        if wide is not None:  # checks it for a lattice a whole row or column off
            models["lattice_wide"] = wide.path.name
    partner = getattr(r.classifier, "partner", None)
    if partner is not None:  # asked about the crops the classifier is unsure of (vision/models.py)
        models["classifier_partner"] = partner.path.name
    database = await _database(svc)
    body = {"status": "ok" if database == "ok" else "unavailable", "version": __version__, "database": database,
            "reads_waiting": svc.reads.tickets, "models": models}
    return body if database == "ok" else JSONResponse(body, status_code=503, headers={"Retry-After": "5"})


# The database asked too: with PostgreSQL down, /health said "ok" while every room call got a 503,
# and a load balancer would have kept sending players to it (an organiser's run). Asked on a thread
# of its own (behind the reads' busy threads /health waited seconds: bench_abuse), within 1 s, and
# at most once a second however often /health is asked.
HEALTH_DB_TIMEOUT = 1.0
_DB_ASKED_EVERY = 1.0
_db_limiter = anyio.CapacityLimiter(1)
_db_said: dict[int, tuple[float, str]] = {}  # id(store) -> (when asked, answer)


async def _database(svc) -> str:
    key, now = id(svc.store), time.monotonic()
    if key in _db_said and now - _db_said[key][0] < _DB_ASKED_EVERY:
        return _db_said[key][1]
    async with _db_limiter:  # one ask at a time; the others take its answer
        if key in _db_said and time.monotonic() - _db_said[key][0] < _DB_ASKED_EVERY:
            return _db_said[key][1]
        try:
            await anyio.to_thread.run_sync(svc.store.ping, HEALTH_DB_TIMEOUT, limiter=anyio.CapacityLimiter(1))
            said = "ok"
        except Exception as err:
            log.warning("/health: the database did not answer: %s", err)
            said = "unreachable"
        _db_said[key] = (time.monotonic(), said)
        return said
