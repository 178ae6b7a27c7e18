"""Reading uploaded photos through the read queue, with every failure a clear 4xx."""
from __future__ import annotations

from pathlib import Path

from fastapi import HTTPException, Request, UploadFile
from starlette.concurrency import run_in_threadpool

from ecoscore.vision.decode import ImageError
from ecoscore.vision.pipeline import NoTableauError, PhotoRead

from .. import names
from ..deps import Services
from ..reads import Abandoned, QueueFull


def _too_large(svc: Services, name: str) -> HTTPException:
    return HTTPException(413, f"{name}: upload too large: the limit is {svc.settings.max_upload // 2**20} MB")


async def read_photo(svc: Services, request: Request, upload: UploadFile, name: str, deck: str = "") -> PhotoRead:
    """Read one uploaded photo once a reader is free. Its bytes are loaded only then, in the
    reader's thread, so waiting photos stay spooled and memory holds ``reads`` photos at most."""
    limit = svc.settings.max_upload
    # A deck's first photo loads its matcher (files, and the embedder's model: seconds): not on the loop.
    classifier = await run_in_threadpool(svc.classifier_for, deck) if deck.strip() or svc.settings.deck else None
    if upload.size is not None and upload.size > limit:
        raise _too_large(svc, name)

    def load_and_read() -> PhotoRead:
        upload.file.seek(0)
        data = upload.file.read(limit + 1)
        if len(data) > limit:
            raise _too_large(svc, name)
        return svc.reader.read(data, classifier)

    try:
        return await svc.reads.run(load_and_read, gone=request.is_disconnected)
    except QueueFull as err:
        raise HTTPException(503, str(err), headers={"Retry-After": str(err.retry_after)}) from None
    except Abandoned:
        raise HTTPException(408, "the client went away before its photo was read") from None
    except ImageError as err:
        raise HTTPException(415 if "not an image" in str(err) else 422, f"{name}: {err}") from None
    except NoTableauError as err:
        raise HTTPException(422, f"{name}: {err}") from None


def photo_name(svc: Services, given: str, upload: UploadFile, k: int) -> str:
    """The player's name: as given (normalised, refused if unusable), else the file's (or photoN)."""
    if given.strip():
        return svc.name(given)
    try:
        return names.normalise(Path(upload.filename or "").stem, svc.settings.max_name)
    except names.BadName:  # a file name is no one's choice: fall back rather than refuse
        return f"photo{k + 1}"


def photo_jpeg(img, max_side: int = 1280, quality: int = 82) -> bytes:
    """The photo as read (``PhotoRead.photo.image``), upright and at most ``max_side`` px, with
    nothing drawn on it: the page draws the grid, the labels and the current points itself, so
    they never go stale."""
    import cv2

    if max(img.shape[:2]) > max_side:
        f = max_side / max(img.shape[:2])
        img = cv2.resize(img, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    return cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])[1].tobytes()
