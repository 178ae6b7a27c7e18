"""What the routes share, as FastAPI dependencies: the settings, the store, the reader and its
queue (made once at start-up, in ``app.state.services``), and the mapping of the store's
refusals to HTTP answers."""
from __future__ import annotations

import re
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Annotated, TypeVar

from fastapi import Depends, Header, HTTPException, Request
from starlette.concurrency import run_in_threadpool

from ecoscore.vision.deckstore import DEFAULT_DECK, DeckInfo, DeckStoreError, IncompleteDeck, NoSuchDeck, check_name
from ecoscore.vision.pipeline import Reader

from . import names
from .decks import Decks
from .reads import ReadQueue
from .refusal import DECK_INCOMPLETE, NO_SUCH_DECK, Refusal
from .settings import Settings
from .starts import Refusals, client_of
from .store import (
    ANY_VERSION,
    Busy,
    Conflict,
    Forbidden,
    Full,
    HoldsTooMany,
    Invalid,
    NotFound,
    OverShare,
    PreconditionFailed,
    PreconditionRequired,
    Share,
    Starter,
    Store,
    StoreError,
)

T = TypeVar("T")


@dataclass
class Services:
    settings: Settings
    store: Store
    reader: Reader
    reads: ReadQueue
    decks: Decks
    room_share: Share
    deck_share: Share
    refusals: Refusals[StoreError] = field(default_factory=Refusals)

    def _enrolled(self, deck: str) -> str | None:
        """The enrolled deck a photo of ``deck`` is read with (empty: the service's default deck);
        None: the reader's own classifier (the stand-in). Nothing looked up."""
        name = deck.strip() or self.settings.deck
        return None if not name or name == DEFAULT_DECK else name  # the stand-in: its own classifier

    def deck_to_read(self, deck: str) -> str | None:
        """``_enrolled``, with an unknown deck a 422 before any photo is read. Cheap: nothing is
        loaded (``classifier_for`` loads it)."""
        name = self._enrolled(deck)
        if name is not None:
            try:
                self.decks.store.info(check_name(name))
            except DeckStoreError as err:
                raise deck_refusal(err) from None
        return name

    def _room_deck_owner(self, deck: str) -> str:
        """Whose ``deck`` is (its owner-token hash, "" for one enrolled on the server), for a room to
        read with: a 422 if there is none such, or it cannot read yet (a type with no card)."""
        try:
            info = self.decks.store.info(check_name(deck))
        except DeckStoreError as err:
            raise deck_refusal(err) from None
        if not info.complete:
            raise Refusal(422, f"deck {deck!r} has no reference yet for: {', '.join(info.missing)}: a room "
                               "reads with a deck that has every type", DECK_INCOMPLETE)  # coded as a photo's is
        return info.owner or ""

    def room_deck(self, deck: str, owner: str) -> DeckInfo | None:
        """A room's deck (``deck``, ``owner`` as started), while it is that deck and can read; None:
        removed, emptied, or its name taken by someone else since (the phone's own choice then)."""
        if not deck:
            return None
        try:
            info = self.decks.store.info(deck)
        except DeckStoreError:
            return None
        return info if info.complete and (info.owner or "") == owner else None

    def classifier_for(self, deck: str):
        """What names the cells of a photo of ``deck`` (as ``_enrolled``; an unknown deck a 422): a
        deck's first photo loads its matcher (its references embedded: seconds), so call it where
        a read may take that long, in a reader's turn. Not through ``deck_to_read``: the matcher
        looks the deck up itself, and a read that checked it first would read its files twice."""
        name = self._enrolled(deck)
        if name is None:
            return None
        try:
            return self.decks.matcher(name)
        except DeckStoreError as err:
            raise deck_refusal(err) from None

    async def start_room(self, mode: str, request: Request, deck: str = "") -> tuple[str, str]:
        """A new room (``Store.create_room``), its start counted against the client's share: a 429
        past it. ``deck``: the deck its photos are read with, a 422 if there is none such; the
        built-in deck is no room's own (each phone then reads with its choice, as with none): a room
        started with it told every phone "read as deck standin", and offered to "use" it (a review)."""
        deck = "" if deck.strip() == DEFAULT_DECK else deck
        owner = await run_in_threadpool(self._room_deck_owner, deck) if deck else ""
        starter = self._starter(self.room_share, request)
        try:
            return await run_in_threadpool(self.store.create_room, mode, starter, None, deck, owner)
        except StoreError as err:
            raise self._refused(starter, err) from None

    def count_deck_start(self, request: Request) -> tuple[Starter, float]:
        """A deck about to be created, counted against the client's share: a 429 past it. Blocking
        (a worker thread's). Returns what ``uncount_deck_start`` takes back."""
        starter = self._starter(self.deck_share, request)
        try:
            return starter, self.store.count_start(starter)
        except StoreError as err:
            raise self._refused(starter, err) from None

    def uncount_deck_start(self, started: tuple[Starter, float]) -> None:
        """A deck counted that could not be made costs its client no start."""
        with suppress(StoreError):  # a busy database: the start stays counted, and the refusal is the answer
            self.store.uncount_start(*started)

    def _starter(self, share: Share, request: Request) -> Starter:
        starter = Starter(share, client_of(request))
        if (refused := self.refusals.refusal(share.kind, starter.client)) is not None:  # lately: no write to ask again
            raise http_error(refused)
        return starter

    def _refused(self, starter: Starter, err: StoreError) -> HTTPException:
        if isinstance(err, OverShare):
            share = starter.share
            self.refusals.remember(share.kind, starter.client, err.retry_after, lambda wait: OverShare(share, wait))
        elif isinstance(err, HoldsTooMany):  # (each refusal took the write lock: an attack)
            held = err.held
            self.refusals.remember(starter.share.kind, starter.client, err.retry_after, lambda wait: HoldsTooMany(held, wait))
        return http_error(err)

    async def db(self, fn: Callable[..., T], *args) -> T:
        """A store call in a worker thread (SQLite blocks), its refusals as HTTP answers."""
        try:
            return await run_in_threadpool(fn, *args)
        except StoreError as err:
            raise http_error(err) from None

    def name(self, raw: str) -> str:
        try:
            return names.normalise(raw, self.settings.max_name)
        except names.BadName as err:
            raise HTTPException(422, str(err)) from None


def deck_refusal(err: DeckStoreError) -> HTTPException:
    """A photo's deck that cannot read it: a 422, coded where the deck is gone (removed since a
    phone chose it) or lacks a type (its name taken by another's deck being taught, or its last
    photo taken back: an attack found it uncoded): the page forgets its choice, rather than send
    every photo to it again."""
    if isinstance(err, NoSuchDeck):
        return Refusal(422, err.over_the_service(), NO_SUCH_DECK)
    if isinstance(err, IncompleteDeck):
        return Refusal(422, str(err), DECK_INCOMPLETE)
    return HTTPException(422, str(err))


def http_error(err: StoreError) -> HTTPException:
    if isinstance(err, Busy):
        return HTTPException(503, str(err), headers={"Retry-After": "1"})
    if isinstance(err, Full):  # rooms go as they idle out: an hour is a fair wait to suggest
        return HTTPException(503, str(err), headers={"Retry-After": "3600"})
    if isinstance(err, (OverShare, HoldsTooMany)):
        return HTTPException(429, str(err), headers={"Retry-After": str(err.retry_after)})
    if isinstance(err, Conflict):
        return HTTPException(409, str(err), headers={"ETag": f'"{err.current}"'})
    status = {Forbidden: 403, NotFound: 404, PreconditionFailed: 412, PreconditionRequired: 428, Invalid: 422}.get(type(err), 422)
    return HTTPException(status, str(err))


async def services(request: Request) -> Services:
    # async on purpose, as every dependency here: FastAPI runs a plain ``def`` dependency in its
    # thread pool, so each request (/health too) waited for a free thread and two thread hops
    # on a loaded machine, and queued behind 40 busy threads.
    return request.app.state.services


Svc = Annotated[Services, Depends(services)]


def _version(if_match: str | None) -> int | None:
    if if_match is None:
        return None
    if if_match.strip() == "*":  # RFC 9110: whatever version there is now (a deliberate overwrite)
        return ANY_VERSION
    # "3", or a room's answer's ETag "3-1a2b3c4d" (its deck shown beside its version: rooms.room_etag)
    m = re.fullmatch(r'\s*(?:W/)?"?(\d{1,12})(?:-[0-9a-f]{8})?"?\s*', if_match)
    if not m:
        raise HTTPException(422, f'If-Match: expected a version like "3", got {if_match[:40]!r}')
    return int(m.group(1))


async def if_match(if_match: Annotated[str | None, Header(description='the version you saw, as "3" (the ETag); '
                                                                      '"*": whatever version there is (a grid '
                                                                      'correction: the one it read the player '
                                                                      'at; a change meanwhile is a 409)')] = None
             ) -> int | None:
    return _version(if_match)


IfMatch = Annotated[int | None, Depends(if_match)]
PlayerToken = Annotated[str | None, Header(description="your tableau's token", max_length=200)]
RoomToken = Annotated[str | None, Header(description="the room creator's token", max_length=200)]
