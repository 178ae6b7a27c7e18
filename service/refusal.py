"""Refusals a client acts on by a machine code, not by their words.

A refusal's ``detail`` is for people (and translated on the way out: ``localize.Localize``); a client
that must tell one refusal from another (the page: "teach this deck its cards", "remember
anyway?") read it by its English words, and a reworded message broke it silently. A ``Refusal``
adds a stable ``code`` and the facts behind it (``fields``) to the JSON answer."""
from __future__ import annotations

from fastapi import HTTPException, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

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
    return JSONResponse(utf8_safe({"detail": exc.detail, "code": exc.code, **exc.fields}), status_code=exc.status_code,
                        headers=exc.headers)


async def refused_plainly(request: Request, exc: Exception) -> Response:
    """FastAPI's own answer to any other refusal, its words made encodable: a message quoting what
    a client sent (a JSON key repeated, "\\ud800" twice) could not be written, and the refusal
    became a 500 with its traceback logged, on every JSON route (an attack on a running server)."""
    assert isinstance(exc, StarletteHTTPException)
    exc.detail = utf8_safe(exc.detail)  # type: ignore[assignment]  # (a string or a document, as it came)
    return await http_exception_handler(request, exc)


def utf8_safe(value: object) -> object:
    """``value`` (a JSON document) with every string encodable as UTF-8: a lone surrogate (the JSON
    escape "\\ud800" of a client) becomes "?"."""
    if isinstance(value, str):
        return value.encode("utf-8", "replace").decode("utf-8")
    if isinstance(value, dict):
        return {utf8_safe(k): utf8_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [utf8_safe(v) for v in value]
    return value
