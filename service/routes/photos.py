"""Reading uploaded photos through the read queue, with every failure a clear 4xx."""
from __future__ import annotations

import base64
import logging
import re
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import numpy as np
from fastapi import HTTPException, Request, UploadFile
from starlette.concurrency import run_in_threadpool

from ecoscore.vision.deckstore import DeckStoreError
from ecoscore.vision.decode import ImageError, NotAnImageError, probe
from ecoscore.vision.matcher import CardMatcher
from ecoscore.vision.overlay import MAX_SIDE as OVERLAY_SIDE
from ecoscore.vision.reads import PhotoRead
from ecoscore.vision.refusals import NoTableauError, NotThisDeckError

from .. import names
from ..deps import Services, http_error
from ..reads import Abandoned, QueueFull
from ..refusal import NOT_THIS_DECK, Refusal
from ..starts import client_of
from ..store import Busy, StoreError

log = logging.getLogger("ecoscore.service")

T = TypeVar("T")


# The reader's words for choosing and teaching a deck are the command line's too ("--deck on the
# command line", "deck add NAME --photo P.jpg --grid G.txt": vision/pipeline.py, vision/naming.py); what the service
# answers is read on the page, where they name nothing a player can do. The page's words instead
# (the command line keeps its own). The catalogues translate these.
_PAGE_WORDS = [
    (re.compile(re.escape("enrol it and choose it (Deck on the page, --deck on the command line)")),
     "teach the page its cards (Name the cards of my deck)"),
    (re.compile(r"enrol more of them from a photo like this one \(deck add \S+ --photo P\.jpg --grid G\.txt\), "
                r"or choose the right deck"),
     "teach the deck this photo's cards too (Name the cards of my deck), or choose the right deck (Deck)"),
    (re.compile(re.escape("Choose your deck (Deck on the page, --deck on the command line)")),
     "Choose your deck (Deck, on the start page)"),
    # a room's read stored before 2026-12-05 (the words the one-photo page uses for the same choice)
    (re.compile(re.escape("tableaux: the first found was taken as yours")), "tableaux: the one with the most cards was taken as yours"),
    # a doubt's least sure turn, as said before 2026-12-06 (and before 2026-12-05): a range now
    (re.compile(r"(\d+)% \((?:only )?(\d+)% (?:read another way up|at its worst turn)\)"), r"\2–\1%"),
]


def for_the_page(text: str, deck: str | None = None, title: str | None = None) -> str:
    """A message of the reader in the page's words (``_PAGE_WORDS``); the enrolled ``deck`` it
    names called by its ``title`` (the name its player typed)."""
    for words, page in _PAGE_WORDS:
        text = words.sub(page, text)
    if deck and title and title != deck:
        text = text.replace(f"a card of the deck {deck}: ", f"a card of the deck {title}: ")
    return text


def _too_large(svc: Services, name: str | None) -> HTTPException:
    return HTTPException(413, f"{name + ': ' if name else ''}upload too large: the limit is "
                              f"{svc.settings.max_upload // 2**20} MB")


def upload_bytes(svc: Services, upload: UploadFile, name: str | None = None) -> bytes:
    """An upload's bytes, read when a reader is free (in its thread): at most ``max_upload``,
    past it a 413 (a chunked body declares no size)."""
    limit = svc.settings.max_upload
    upload.file.seek(0)
    data = upload.file.read(limit + 1)
    if len(data) > limit:
        raise _too_large(svc, name)
    return data


async def queued(svc: Services, request: Request, work: Callable[[], T]) -> T:
    """``work`` run in the read queue once a reader is free: 503 with Retry-After when the queue
    is full, 408 when the client went away meanwhile (its work is not done)."""
    try:
        return await svc.reads.run(work, gone=request.is_disconnected, client=client_of(request))
    except QueueFull as err:
        raise HTTPException(503, str(err), headers={"Retry-After": str(err.retry_after)}) from None
    except Abandoned:
        raise HTTPException(408, "the client went away before its photo was read") from None


async def read_photo(svc: Services, request: Request, upload: UploadFile, name: str, deck: str = "",
                     fallback: str | None = None, owner: str | None = None) -> tuple[PhotoRead, bytes]:
    """Read one uploaded photo once a reader is free: the read, and the photo as the page draws on
    it (``plain_photo``). Its bytes are loaded only then, in the reader's thread, so waiting photos
    stay spooled and memory holds ``reads`` photos at most; the plain photo is made in that turn
    too (it may decode the photo again), and the read keeps only what the overlay is drawn on.
    ``fallback``: the deck to read with if ``deck`` cannot, now or by the reader's turn (a room's
    deck removed meanwhile: the phone's own choice). ``owner``: ``deck`` is a room's, started
    with its owner's deck (``Services.room_deck``): checked again in the reader's turn, with
    ``fallback``, not None, read with if the deck is no longer that."""
    # An unknown deck is refused before the photo waits its turn; the deck is loaded in the turn,
    # once the upload is seen to be an image: a deck's first photo embeds its references
    # (seconds), and a 5-byte "photo" naming a deck made the server embed it outside the
    # readers' limit, every time a card was added (an attack on a running server).
    try:
        enrolled = await run_in_threadpool(svc.deck_to_read, deck)
    except HTTPException:
        if fallback is None:
            raise
        enrolled, fallback, owner = await run_in_threadpool(svc.deck_to_read, fallback), None, None
    if upload.size is not None and upload.size > svc.settings.max_upload:
        raise _too_large(svc, name)
    classifier = None

    def read_it() -> tuple[PhotoRead, bytes]:
        nonlocal classifier
        data = upload_bytes(svc, upload, name)
        if enrolled:
            probe(data)  # the header alone: ImageError for what is no image, before the deck is loaded
            # A room's deck removed, or its name taken by another's deck, while the photo waited:
            # checked when the photo came only, a stranger's deck read it (a review).
            gone = owner is not None and svc.room_deck(enrolled, owner) is None
            try:
                classifier = svc.classifier_for(fallback if gone and fallback is not None else enrolled)
            except HTTPException:  # (a deck refusal: classifier_for raises no other)
                if fallback is None or gone:
                    raise
                classifier = svc.classifier_for(fallback)
        read = svc.reader.read(data, classifier)
        plain = plain_photo(read)
        read.photo = read.photo.to_draw_on(OVERLAY_SIDE)
        return read, plain

    try:
        read, plain = await queued(svc, request, read_it)
    except ImageError as err:
        raise HTTPException(415 if isinstance(err, NotAnImageError) else 422, f"{name}: {err}") from None
    except NoTableauError as err:
        deck_name = classifier.deck if isinstance(classifier, CardMatcher) else None
        title = await run_in_threadpool(_title, svc, deck_name) if deck_name else None
        detail = f"{name}: {for_the_page(str(err), deck_name, title)}"
        if isinstance(err, NotThisDeckError):
            raise Refusal(422, detail, NOT_THIS_DECK) from None
        raise HTTPException(422, detail) from None
    for tab in read.tableaux:
        tab.doubts[:] = [for_the_page(doubt) for doubt in tab.doubts]
    return read, plain


def _title(svc: Services, deck: str) -> str | None:
    try:
        return svc.decks.store.info(deck).shown
    except DeckStoreError:  # gone since it was read with
        return None


def photo_name(svc: Services, given: str, upload: UploadFile, k: int) -> str:
    """The player's name: as given (normalised, refused if unusable), else the file's (or photoN)."""
    if given.strip():
        return svc.name(given)
    try:
        return names.normalise(Path(upload.filename or "").stem, svc.settings.max_name)
    except names.BadName:  # a file name is no one's choice: fall back rather than refuse
        return f"photo{k + 1}"


# A tableau whose cards' box is under this share of its photo is shown by the page cut to it
# (app.js: FRAME_FILL, with a margin round it): its plain photo is sent with more detail, at
# DETAIL_SIDE. At 1,000 px a whole game's photo was drawn 2-2.5 times its pixels, its cards soft
# (a walk).
SMALL_TABLEAU = 0.3
DETAIL_SIDE = 2048


def plain_photo(read: PhotoRead) -> bytes:
    """The photo a read was made on (``PhotoRead``) as the page draws on it (``photo_jpeg``): with
    more detail where one of its tableaux fills little of it."""
    w, h = read.size
    boxes = [np.ptp(np.concatenate([cell.quad for cell in tab.cells]), axis=0) for tab in read.tableaux]
    if not any(bw * bh < SMALL_TABLEAU * w * h for bw, bh in boxes):
        return photo_jpeg(read.photo.image)
    return photo_jpeg(read.photo.at_least(DETAIL_SIDE).image, DETAIL_SIDE)


async def stored_url(svc: Services, jpeg: bytes, client: str) -> str | None:
    """Where the page fetches a picture kept in the rooms' database (``Store.put_overlay``), or
    None while that database does not answer: the caller then sends it inline (``inline_url``), a
    score being no room's (with PostgreSQL stopped, a photo scored at the table answered 503 after
    its read: an organiser's run). Its other refusals are HTTP answers, as ``Services.db`` gives."""
    try:
        return f"/api/overlays/{await run_in_threadpool(svc.store.put_overlay, jpeg, client)}.jpg"
    except Busy:
        log.warning("the database did not answer: a picture answered inline, not stored")
        return None
    except StoreError as err:
        raise http_error(err) from None


def inline_url(jpeg: bytes) -> str:
    """A picture as the page takes it where it cannot be stored (the rooms' database down): in
    the answer itself, a data: URL (the page's CSP allows them as images)."""
    return "data:image/jpeg;base64," + base64.b64encode(jpeg).decode()


def photo_jpeg(img, max_side: int = 1280, quality: int = 82) -> bytes:
    """The photo as read (``PhotoRead.photo.image``), upright and at most ``max_side`` px, with
    nothing drawn on it: the page draws the grid, the labels and the current points itself, so
    they never go stale."""
    import cv2

    from ecoscore.vision.overlay import within

    return cv2.imencode(".jpg", within(img, max_side), [cv2.IMWRITE_JPEG_QUALITY, quality])[1].tobytes()
