"""The phone page (static files, served as they are) and the health check."""
from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import FileResponse, Response

from ecoscore import __version__
from ecoscore.paths import static_dir

from ..deps import Svc
from ..schemas import Health, Problem

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


@router.get("/health", tags=["service"], response_model=Health)
async def health(svc: Svc):
    r = svc.reader
    models = {"finder": r.finder.path.name, "classifier": r.classifier.path.name,
              "matcher": "matcher.onnx"}  # loaded with the first photo of an enrolled deck
    refiner = getattr(r.finder, "refiner", None)
    if refiner is not None:  # gives each box its card's own corners (vision/corners.py)
        models["finder_refiner"] = refiner.path.name
    partner = getattr(r.classifier, "partner", None)
    if partner is not None:  # asked about the crops the classifier is unsure of (vision/models.py)
        models["classifier_partner"] = partner.path.name
    return {"status": "ok", "version": __version__, "reads_waiting": svc.reads.tickets, "models": models}
