"""Decks: which ones the service knows, and "remember these cards": a photo of one tableau with
its corrected grid adds each cell to a deck's references (a deck reads once it has every type)."""
from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Annotated, TypeVar

import numpy as np
from fastapi import APIRouter, File, Form, Header, HTTPException, Path, Query, Request, UploadFile
from pydantic import StringConstraints
from starlette.concurrency import run_in_threadpool

from ecoscore.scoring import COLS, ROWS, GridError, parse_grid
from ecoscore.scoring.tableau import cells_short
from ecoscore.text import cut
from ecoscore.vision.deckstore import (
    DEFAULT_DECK,
    MAX_TITLE_CHARS,
    DeckInfo,
    DeckStoreError,
    HoldsTooManyDecks,
    NoSuchDeck,
    NotDeckOwner,
    TitleTaken,
    clean_title,
    name_for,
)
from ecoscore.vision.enrol import (
    AS_WRITTEN_NOTE,
    Clash,
    EnrolError,
    Layout,
    NotAnImage,
    PhotoReferences,
    check_image,
    clashes,
    from_photo,
    layout,
    left_out_note,
    name_it,
    outside_note,
)
from ecoscore.vision.refusals import NoTableauError
from ecoscore.vision.report import quad_doc

from ..bodies import BoundedRoute
from ..deps import Services, Svc
from ..refusal import DECK_CLASH, GRID_UNLIKE, Refusal
from ..schemas import DECK_KEY, DECK_KEY_OR_EMPTY, ERRORS, DeckOut, DecksOut, ForgottenOut, LayoutCell, LayoutOut, RememberedOut
from ..starts import client_of
from .photos import inline_url, photo_jpeg, queued, stored_url, upload_bytes

MAX_SHOWN_NAME = 60  # a file name's characters said in a message


def _shown(upload: UploadFile) -> str:
    """An upload's file name as messages say it: the client's text, cut (a 1.4 KB one was said
    whole, and matched against every message for translating: an attack)."""
    return cut((upload.filename or "").replace("\\", "/").rsplit("/", 1)[-1] or "photo", MAX_SHOWN_NAME)


def _title_taken(title: str | None, name: str) -> HTTPException:
    # Said as the deck would be shown (its title, else its key); the other deck's key is not named:
    # a deck started on a phone is listed only to whoever names it.
    return HTTPException(409, f"a deck called '{clean_title(title) or name}' exists already on this server: "
                              "give yours another name")


router = APIRouter(tags=["decks"], responses=ERRORS, route_class=BoundedRoute)
DeckPath = Annotated[str, Path(max_length=40, pattern=DECK_KEY)]
DeckName = Annotated[str, StringConstraints(max_length=40, pattern=DECK_KEY)]
MAX_NAMED = 32  # decks a page may name in one listing


def _out(info: DeckInfo) -> DeckOut:
    return DeckOut(name=info.name, title=info.shown, references={c.value: n for c, n in info.counts.items()}, builtin=info.builtin,
                   complete=info.complete, missing=info.missing, started_on_a_phone=info.owner is not None)


@router.get("/api/decks", summary="The decks photos can be read against", response_model=DecksOut)
async def list_decks(svc: Svc, named: Annotated[list[DeckName], Query(
        max_length=MAX_NAMED, description="decks started on a phone to list too (the page names those it started "
                                          "or reads with); unnamed, only the server's own decks are listed")] = []):
    # A deck started on a phone is listed only to whoever names it: its name is enough to read
    # with it (a room's deck, a friend's), but a stranger's list showed every player's deck names.
    asked = set(named)

    def work() -> DecksOut:
        store = svc.decks.store
        decks = []
        for name in store.names():
            try:
                info = store.info(name)
            except DeckStoreError:  # removed since it was listed (another process, another machine)
                continue
            if info.owner is None or name in asked:
                decks.append(_out(info))
        return DecksOut(default=svc.settings.deck or DEFAULT_DECK, decks=decks)

    return await run_in_threadpool(work)


# Said to a client that does not read the refusal's code (``deck_clash``: the page asks whether
# to remember the photo anyway, naming each clash).
CLASH_WORDS = ("the cards here are named otherwise than this deck's own cards show them (two cards swapped, or a "
               "wrong correction?): check them, or remember the photo anyway")
UNLIKE_WORDS = ("named one type here, these cards do not look like the others named so in the photo (a card named "
                "wrong? or art too fine or pale to tell apart from this far): check them, or remember the photo anyway")


def _asked_first(disagree: list[Clash], taken: PhotoReferences) -> Refusal:
    """The question a player answers before a photo's cards are remembered: the cells the deck's
    own cards see otherwise (``deck_clash``), and those named one type that do not look alike
    (``grid_unlike``), both in one answer. Asked one at a time, "remember anyway" (``force``)
    answered the clash and passed the unlike cards unasked: a grid of twenty meadows for a deck
    that reads was remembered so."""
    unlike = sorted({cell for cell, _, _ in taken.unlike} | {cell for _, at in taken.lumped for cell in at})
    said = ([f"{cells_short([c.cell for c in disagree])}: {CLASH_WORDS}"] if disagree else []) + \
           ([f"{cells_short(unlike)}: {UNLIKE_WORDS}"] if unlike else [])
    return Refusal(409, "; ".join(said), DECK_CLASH if disagree else GRID_UNLIKE,
                   clashes=[{"cell": list(c.cell), "named": c.named.value, "seen": c.seen, "belief": round(c.belief, 3)}
                            for c in disagree],
                   strays=[{"cell": list(cell), "named": named.value, "like": like.value} for cell, named, like in taken.unlike],
                   lumped=[{"named": card.value, "cells": [list(cell) for cell in at]} for card, at in taken.lumped])


@router.post("/api/decks/{name}/photo", summary="Remember the cards of a photo (with its corrected grid) in a deck",
             response_model=RememberedOut)
async def remember_cards(svc: Svc, request: Request, name: DeckPath, photo: UploadFile = File(...),
                         grid: Annotated[str, Form(max_length=2000, description="the photo's grid as text, corrected")] = "",
                         # (a longer one was cut to 40 without a word, where a player's name is refused: an attack)
                         title: Annotated[str, Form(max_length=MAX_TITLE_CHARS, description=(
                             "the deck's name as the player typed it (\"Náš stůl\"; ``name`` is its key, "
                             "\"nas-stul\"): kept when the deck has none yet, shown wherever the deck is named"))] = "",
                         at: Annotated[str, Form(max_length=40, pattern=r"^\d{1,6}(\.\d{1,3})?,\d{1,6}(\.\d{1,3})?$",
                                                 description="x,y: of several tableaux in the photo, the one "
                                                             "lying here (its pixels)")] = "",
                         as_read: Annotated[bool, Form(description="the grid is a read of this photo, corrected: it "
                                                                   "lies as the read laid it out (else it may be written "
                                                                   "from the other side of the table)")] = False,
                         read_with: Annotated[str, Form(max_length=40, pattern=DECK_KEY_OR_EMPTY, description=(
                             "with as_read: the deck that read the photo (its answer's deck); the read "
                             "placed its cells by what they show, and the grid lies on those cells. Empty: "
                             "the cells of /api/layout, placed by no deck"))] = "",
                         force: Annotated[bool, Form(description="remember the cards as the grid names them even where "
                                                                 "the deck's own cards say otherwise, or where cards "
                                                                 "named one type do not look alike")] = False,
                         x_deck_token: Annotated[str | None, Header(max_length=200, description=(
                             "the deck's token, given when this deck was started here; none: start a new deck"))] = None):
    if name == DEFAULT_DECK:
        raise HTTPException(422, "the built-in deck cannot learn cards: name your own deck")
    try:
        tableau = parse_grid(grid, "grid")
    except GridError as err:
        raise HTTPException(422, str(err)) from None
    # Whoever starts a deck here holds its token; only that token adds to it (a deck's name is
    # public, and a wrong grid sent with a photo would teach it wrong pictures).
    token = x_deck_token or secrets.token_urlsafe(18)

    def enrol() -> RememberedOut:
        # Before the photo is read: a title another deck is called already (its key is not
        # named: a deck started on a phone is listed only to whoever names it).
        if svc.decks.store.title_taken(name, title):
            raise _title_taken(title, name)
        try:  # and a deck this token may not teach: the photo was read first, then refused (an attack)
            svc.decks.store.check_owner(name, token)
        except NotDeckOwner as err:
            raise _not_owner(err, x_deck_token, title, name) from None
        data = upload_bytes(svc, photo)
        check_image(data, _shown(photo))  # before the deck that read it is loaded (seconds)
        x, _, y = at.partition(",")
        read_by = (svc.classifier_for(read_with) or svc.reader.classifier) if as_read and read_with else None
        taken = from_photo(svc.reader, svc.decks.embedder, data, tableau, _shown(photo), as_read=as_read,
                           at=(float(x), float(y)) if at else None, read_by=read_by,
                           advise=False)  # the page's layout of this photo said how to retake it
        # A deck that reads already judges the grid against its own cards, as `deck add` does: a
        # card corrected to the wrong type would be taught as named, and read so on every photo.
        disagree: list[Clash] = []
        if not force and x_deck_token is not None and svc.decks.store.exists(name) and svc.decks.store.info(name).complete:
            disagree = clashes(svc.decks.matcher(name), taken)
        # A grid named on this photo's cards whose cards of one type do not look alike: named by
        # another photo's grid, or a card corrected wrong (a new deck has no cards of its own to
        # judge it by). Asked, as `deck add` refuses it; art too fine to tell apart is remembered
        # all the same when the player says so.
        # (A type named for every card, or for two types' cards, has few others to judge by: its
        # cards are asked whether they look like one card - ``lumped``.)
        if not force and (disagree or taken.unlike or taken.lumped):
            raise _asked_first(disagree, taken)
        # A deck started here counts against its client's share, whatever token it came with (any
        # token starts a new name), and only once its photo has given references: a photo
        # refused ("photograph it again") costs a player no start.
        started = None if svc.decks.store.exists(name) else svc.count_deck_start(request)
        # A deck is built a photo at a time here: one tableau seldom shows all 11 types.
        try:
            source = f"photo {_shown(photo) if photo.filename else ''} from the page".replace("  ", " ")
            info = svc.decks.store.add(name, taken.crops, source,
                                       token, max_decks=svc.settings.max_decks, partial=True, title=title,
                                       client=client_of(request), per_client=svc.settings.decks_per_client)
        except DeckStoreError as err:
            if started is not None:  # not made (the store full, the name taken meanwhile): no start
                svc.uncount_deck_start(started)
            if isinstance(err, HoldsTooManyDecks):
                raise HTTPException(429, str(err)) from None
            if isinstance(err, TitleTaken):  # taken meanwhile, by an add the check above did not see
                raise _title_taken(title, name) from None
            if isinstance(err, NotDeckOwner):  # started meanwhile, by another phone
                raise _not_owner(err, x_deck_token, title, name) from None
            raise
        notes = [left_out_note(taken.left_out)] if taken.left_out else []
        if taken.outside:  # cards the player named outside the photo ("17 cards" of 20, "still needs eagle"
            notes.append(outside_note(taken.outside))  # after naming one there, without a word: a newcomer's walk)
        if taken.taken_as_written:
            notes.append(AS_WRITTEN_NOTE)
        if not info.added:
            notes.append(f"deck {info.shown!r} knew every card of this photo already: nothing added")  # as the player named it
        return RememberedOut(**_out(info).model_dump(), token=token, added=info.added or 0, doubts=notes)

    return await _run(svc, request, enrol)


def _not_owner(err: NotDeckOwner, x_deck_token: str | None, title: str, name: str) -> Exception:
    """A deck this phone may not teach: one of another phone's or the server's, said as the
    player named theirs when it came as a new deck (no token)."""
    if x_deck_token is None:  # a new deck, named as one that exists
        # as the player typed it, not its key ("'il-nostro-tavolo' exists": a walk, in Italian),
        # where the key was made of it (as the page makes it): another title sent with a key that
        # exists was said to exist ("'Race 0' exists", the deck there called "Race 3": an attack)
        typed = clean_title(title)
        shown = typed if typed and name_for(typed) == name else name
        return HTTPException(409, f"a deck named '{shown}' exists already, started on "
                                  "another phone or on the server: give yours another name")
    return err


@router.delete("/api/decks/{name}/last", summary="Forget the cards the deck learned last (a card named wrong)",
               response_model=ForgottenOut)
async def forget_last(svc: Svc, name: DeckPath,
                      x_deck_token: Annotated[str, Header(max_length=200, description="the deck's token")]):
    def forget() -> ForgottenOut:
        info = svc.decks.store.forget_last(name, x_deck_token)
        return ForgottenOut(deck=_out(info) if info else None)

    try:
        return await run_in_threadpool(forget)
    except NotDeckOwner as err:
        raise HTTPException(403, str(err)) from None
    except NoSuchDeck as err:
        raise HTTPException(404, err.over_the_service()) from None
    except DeckStoreError as err:
        raise HTTPException(409, str(err)) from None


@router.post("/api/layout", summary="Where the cards of a photo's one tableau lie, to name (to start or teach a deck)",
             response_model=LayoutOut)
async def tableau_layout(svc: Svc, request: Request, photo: UploadFile = File(...),
                         deck: Annotated[str, Form(max_length=40, pattern=DECK_KEY_OR_EMPTY, description=(
                             "the deck these cards are taught to, if it has cards already (even before it has every "
                             "type): the cells it reads surely come with its guess"))] = ""):
    """A player's own deck read against a deck that is not theirs gives no read to correct: these
    are the cells they name instead, then remember (``/api/decks/{name}/photo``) to start it. A
    deck being built a photo at a time reads nothing yet; given as ``deck``, the photo is read with
    the types it has so far, and each cell it names surely carries its ``guess`` (a card of a type
    it lacks mostly reads as none of its cards, and is left to name). A guess is the player's to
    confirm: nothing is remembered from this answer."""
    deck = deck.strip()

    def locate() -> tuple[Layout, bytes, dict[tuple[int, int], str]]:
        data = upload_bytes(svc, photo)
        found = layout(svc.reader, data, _shown(photo))
        guesses = _guesses(svc, data, found, deck) if deck and deck != DEFAULT_DECK else {}
        return found, photo_jpeg(found.photo.image), guesses

    found, jpeg, guesses = await _run(svc, request, locate)
    cells = []
    for cell in found.cells:
        guess = guesses.get((cell.row, cell.col))
        doubt = None if guess else name_it(cell)  # a guess is not to name, but to confirm
        cells.append(LayoutCell(card=cell.card, guess=guess, doubts=[doubt] if doubt else [], quad=quad_doc(cell.quad)))
    # (the rooms' database down: the cells to name come all the same, their photo inline)
    photo_url = await stored_url(svc, jpeg, client_of(request)) or inline_url(jpeg)
    return LayoutOut(cells=[cells[r * COLS:(r + 1) * COLS] for r in range(ROWS)], photo_url=photo_url,
                     photo_size=list(found.photo.original_size), doubts=found.advice)


def _guesses(svc: Services, data: bytes, found: Layout, deck: str) -> dict[tuple[int, int], str]:
    """The cells of ``found`` that deck ``deck`` (whole or not) names surely, read as a photo is:
    (row, col) -> the type. The read lays out the same tableau's cells as ``layout`` (both locate
    the photo alike), but for a cell it cut again, which guesses nothing; a read refused, or one
    whose tableau is not that one (most cells elsewhere), guesses nothing."""
    try:
        matcher = svc.decks.guesser(deck)
    except DeckStoreError:  # removed since the phone began it, or a reference unreadable: nothing to
        return {}           # guess with, and the cells are still to name (guesses are a help, not the layout)
    try:
        read = svc.reader.read(data, matcher)  # type: ignore[arg-type]  # a drop-in for the classifier (matcher.py)
    except NoTableauError:  # none of its cards among them (the stand-in's, another deck's)
        return {}
    for tab in read.tableaux:
        if len(tab.cells) != len(found.cells):
            continue
        # A read cuts a cell where no card was boxed again (Reader.cut_unboxed_cells), a layout
        # does not: such a cell guesses nothing, the rest of the same tableau still does (one
        # such cell made a whole photo's cards "to name" again).
        alike = [(cell.row, cell.col) == (place.row, place.col) and np.allclose(cell.quad, place.quad, atol=2.0)
                 for cell, place in zip(tab.cells, found.cells)]
        if 2 * sum(alike) > len(alike):
            return {(cell.row, cell.col): cell.type.value for cell, same in zip(tab.cells, alike)
                    if same and cell.type is not None and not cell.doubts}
    return {}


T = TypeVar("T")


async def _run(svc: Services, request: Request, work: Callable[[], T]) -> T:
    """``work`` in the read queue, its refusals as 4xx."""
    try:
        return await queued(svc, request, work)
    except NotDeckOwner as err:
        raise HTTPException(403, str(err)) from None
    except (EnrolError, DeckStoreError) as err:  # not an image: 415, as /api/photo answers it
        raise HTTPException(415 if isinstance(err, NotAnImage) else 422, str(err)) from None
