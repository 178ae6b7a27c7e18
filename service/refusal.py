"""Refusals a client acts on by a machine code, not by their words.

A refusal's ``detail`` is for people (and translated on the way out: ``i18n.Localize``); a client
that must tell one refusal from another (the page: "teach this deck its cards", "remember
anyway?") read it by its English words, and a reworded message broke it silently. A ``Refusal``
adds a stable ``code`` and the facts behind it (``fields``) to the JSON answer."""
from __future__ import annotations

from fastapi import HTTPException, Request
from fastapi.responses import JSONResponse

NOT_THIS_DECK = "not_this_deck"  # a grid of cards found, none of them the deck's: teach it its cards
NO_SUCH_DECK = "no_such_deck"  # the deck a photo is to be read with is not (or no longer) on this server
DECK_INCOMPLETE = "deck_incomplete"  # the deck a photo is to be read with lacks a type: it reads no photo yet
DECK_CLASH = "deck_clash"  # a remembered photo's grid names cards otherwise than the deck's own show them
GRID_UNLIKE = "grid_unlike"  # a remembered photo's grid names cards of one type that do not look alike in it


class Refusal(HTTPException):
    def __init__(self, status: int, detail: str, code: str, headers: dict[str, str] | None = None, **fields: object):
        super().__init__(status, detail, headers)
        self.code = code
        self.fields = fields


async def refused(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, Refusal)
    return JSONResponse({"detail": exc.detail, "code": exc.code, **exc.fields}, status_code=exc.status_code,
                        headers=exc.headers)
