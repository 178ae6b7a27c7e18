"""Plain ASGI middleware, each with one job, run around every request:

- ``Bounds``: the body's size counted as it streams (chunked or not: a declared Content-Length
  over the limit is refused before a byte is read), a pause in the body, and the whole request,
  each bounded: 413, 408, 504. An answer given before the body is all in closes the connection.
- ``Admission``: photo requests take a ticket of the read queue once their body is all in; 503 with
  Retry-After when there is none (said once the body is in and dropped, so a browser reads it).
- ``CrossSite``: a change asked by another site's page (a form it posts) refused: 403.
- ``PlainPath``: a path holding a control character (a NUL) is no address of ours: 400.
- ``HeadAsGet``: HEAD answered wherever GET is, with GET's headers and no body.
- ``SecurityHeaders``: CSP, nosniff, frame-ancestors, no referrer (a room's link is its password).
- ``AccessLog``: one line a request, with room codes blanked out.
"""
from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from starlette.routing import BaseRoute, Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .reads import ReadQueue
from .starts import client_of

# A room's code is its password, and an overlay's id shows a player's photo without it.
SECRET_IN_PATH = re.compile(r"(/r/|/api/rooms/|/api/overlays/)[^/?]+")
UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f]")  # a CR LF in a path wrote a forged line into the log
log = logging.getLogger("ecoscore.access")


def redact(path: str) -> str:
    path = SECRET_IN_PATH.sub(r"\1…", path)
    return UNPRINTABLE.sub(lambda m: f"\\x{ord(m.group()):02x}", path)


async def _answer(send: Send, status: int, detail: str, headers: dict[str, str] | None = None) -> None:
    body = json.dumps({"detail": detail}).encode()
    extra = [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close"), *extra]})
    await send({"type": "http.response.body", "body": body})


async def _answer_after_body(scope: Scope, receive: Receive, send: Send, status: int, detail: str,
                             headers: dict[str, str]) -> None:
    """``_answer``, once the request's body is in (read and dropped, as bounded as any body by
    ``Bounds``): a browser still sending its photo when the answer comes and the connection
    closes sees the connection reset, not the answer (an attack on a running server: 16 of 16
    turned away saw a network error, and the page told them they were offline, not that the
    service was busy). A client that waits for "100 Continue" has sent no body: answered at once."""
    if dict(scope["headers"]).get(b"expect", b"").lower() != b"100-continue":
        while (message := await receive())["type"] == "http.request" and message.get("more_body", False):
            pass
    await _answer(send, status, detail, headers)


class _Refused(Exception):
    pass


@dataclass
class _BodyState:
    """One request's body as Bounds has seen it."""

    read: int = 0  # bytes so far
    more: bool = True  # more of the body to come
    refusal: tuple[int, str] | None = None  # our answer instead of the app's (status, why)
    started: bool = False  # the app's answer has begun


class Bounds:
    def __init__(self, app: ASGIApp, limit: Callable[[Scope], int], body_timeout: float, request_timeout: float,
                 min_body_rate: int = 0, rate_grace: float = 10.0):
        self.app, self.limit, self.body_timeout, self.request_timeout = app, limit, body_timeout, request_timeout
        self.min_body_rate, self.rate_grace = min_body_rate, rate_grace

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        limit = self.limit(scope)
        headers = dict(scope["headers"])
        declared = headers.get(b"content-length", b"")
        if declared.isdigit() and int(declared) > limit:
            return await _answer(send, 413, f"request too large: the limit is {_size(limit)}")
        state = _BodyState()
        has_body = declared not in (b"", b"0") or b"transfer-encoding" in headers
        loop = asyncio.get_running_loop()
        began = loop.time()

        async def bounded_receive() -> Message:
            if not state.more:  # the body is in: what is left to hear is a disconnect, unhurried
                return await receive()
            wait, slow = self.body_timeout, False
            if self.min_body_rate:  # the next chunk is due when the bytes so far fall under the rate
                due = began + max(self.rate_grace, state.read / self.min_body_rate)
                if due - loop.time() < wait:
                    wait, slow = max(0.0, due - loop.time()), True
            try:
                message = await asyncio.wait_for(receive(), wait)
            except TimeoutError:
                state.refusal = (408, f"the request body came slower than {self.min_body_rate // 1024} KB/s" if slow
                                 else f"the request body paused for more than {self.body_timeout:g} s")
                raise _Refused() from None
            if message["type"] == "http.request":
                state.read += len(message.get("body", b""))
                state.more = message.get("more_body", False)
                if state.read > limit:
                    state.refusal = (413, f"request too large: the limit is {_size(limit)}")
                    raise _Refused()
            return message

        async def watched_send(message: Message) -> None:
            if state.refusal:  # the app's own answer to the broken body (a 400) gives way to ours
                return
            if message["type"] == "http.response.start":
                state.started = True
                if has_body and state.more:
                    # Answered before the body is all in (a form field over its limit, say): the
                    # connection closes after the answer rather than parse the rest only to drop it.
                    message = {**message, "headers": [*message.get("headers", []), (b"connection", b"close")]}
            await send(message)

        try:
            async with asyncio.timeout(self.request_timeout):
                await self.app(scope, bounded_receive, watched_send)
        except _Refused:
            pass
        except TimeoutError:
            state.refusal = state.refusal or (504, f"the request took more than {self.request_timeout:g} s")
        if state.refusal and not state.started:
            await _answer(send, *state.refusal)


def _size(n: int) -> str:
    return f"{n / 2**20:.0f} MB" if n >= 2**20 else f"{n // 1024} KB"


PHOTO_CLAIM = "photo_claim"  # in a photo request's state: ``Admission``'s claim for its further photos


class _Busy(Exception):
    pass


class Admission:
    """A photo request takes a place in the read queue once its body is all in: a busy service
    reads no photo it turned away. A queue already full when the headers come is said at once
    (after the body, dropped as it comes, so a browser reads the answer: ``_answer_after_body``);
    a place gone by the time the body is in is a 503 too. A client has at most ``per_client``
    requests at once, counted from their headers: a few sockets that sent headers and no body
    held every place for a body timeout each, and real uploads got 503 (an attack on a running
    server); from ten addresses, headers and a byte of body, reconnected as each was dropped,
    still held every place (a second attack and a review): now a request holds a place only
    with its whole photo sent. A game's request counts its photos, once its form is read
    (``PHOTO_CLAIM``)."""

    def __init__(self, app: ASGIApp, queue: Callable[[], ReadQueue | None], is_photo: Callable[[Scope], bool],
                 per_client: int = 8):
        self.app, self.queue, self.is_photo, self.per_client = app, queue, is_photo, per_client
        self.held: dict[str, int] = {}  # requests of each client now (entries only while held)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        queue = self.queue() if scope["type"] == "http" and self.is_photo(scope) else None
        if queue is None:
            return await self.app(scope, receive, send)
        client = client_of(scope)
        if self.held.get(client, 0) >= self.per_client:
            return await _answer_after_body(scope, receive, send, 429, f"this device has {self.per_client} photos "
                                            "waiting to be read already: wait for their scores", {"Retry-After": "3"})
        if queue.full():
            return await _answer_after_body(scope, receive, send, 503, *_busy(queue))
        mine = [1]  # this request's places in the client's count

        def claim(more: int) -> int:
            """Up to ``more`` further places for the photos this request carries (a game's, once
            its form is read): as many as the client's share has free, 0 once the request is over.
            Its photos are each a reader's turn: counted as one request, 8 games from one address
            put 64 reads ahead of everyone (a second attack)."""
            if mine[0] == 0:  # the request is over (its client's count may be gone)
                return 0
            granted = max(0, min(more, self.per_client - self.held[client]))
            self.held[client] += granted  # one event loop: no lock needed
            mine[0] += granted
            return granted

        admitted, busy = [False], [False]

        async def counted() -> Message:
            message = await receive()
            if message["type"] == "http.request" and not message.get("more_body", False) and not admitted[0]:
                if not queue.admit():  # the body is in, and the queue filled meanwhile
                    busy[0] = True
                    raise _Busy()
                admitted[0] = True
            return message

        async def watched_send(message: Message) -> None:
            if not busy[0]:  # the app's own answer to the body cut off (a 400) gives way to ours
                await send(message)

        scope.setdefault("state", {})[PHOTO_CLAIM] = claim
        self.held[client] = self.held.get(client, 0) + 1
        try:
            try:
                await self.app(scope, counted, watched_send)
            except _Busy:
                pass
            if busy[0]:
                await _answer(send, 503, *_busy(queue))
        finally:
            if admitted[0]:
                queue.leave()
            if self.held[client] <= mine[0]:
                del self.held[client]
            else:
                self.held[client] -= mine[0]
            mine[0] = 0


def _busy(queue: ReadQueue) -> tuple[str, dict[str, str]]:
    """A full queue's answer: its words and its Retry-After, the same wait in both."""
    wait = queue.retry_after()
    return f"the service is busy reading photos; try again in {wait} s", {"Retry-After": str(wait)}


# The page loads only its own files; its scripts are files too (no inline script). Inline style
# attributes are allowed: the page sets a few, and styles cannot run code.
CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; "
       "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
# FastAPI's /docs and /redoc pull Swagger UI / ReDoc from a CDN with an inline script.
DOCS_CSP = ("default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
            "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; img-src 'self' data: https://fastapi.tiangolo.com; "
            "worker-src blob:; frame-ancestors 'none'")


SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}
# Another site's page, or a page of another host of the same site (a neighbour on a shared domain:
# the service's own page is never served from another host: a review's find).
OTHER_SITES = {b"cross-site", b"same-site"}
CROSS_SITE = ("a request from another site's page: ecoscore takes changes only from its own page, or from "
              "programs that call it directly")


class CrossSite:
    """A request that would change something (a room started, a deck begun, a photo read),
    sent by another site's page in the visitor's browser, is refused: a page anywhere could post
    an empty form to /api/rooms and spend its visitors' quota of rooms (an attack on a running
    server). Browsers say where a request comes from (``Sec-Fetch-Site``, Fetch Metadata:
    "cross-site" for another site's page, "same-site" for another host of its domain); the
    service's own page is "same-origin", a link followed or a program such as curl sends none or
    "none". A browser too old to say is let through as before."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (scope["type"] == "http" and scope["method"] not in SAFE_METHODS
                and dict(scope["headers"]).get(b"sec-fetch-site") in OTHER_SITES):
            return await _answer(send, 403, CROSS_SITE)  # its body unread: the connection closes
        await self.app(scope, receive, send)


CONTROL_IN_PATH = "the address holds a control character: no address of ecoscore does"


class PlainPath:
    """A path with a control character in it (``%00`` in a room's code or a player's name) is
    refused before any route sees it: PostgreSQL takes no NUL in text, and such a room code was
    a 500 with a traceback in the log a hundred times its size (an attack on a running server)."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and UNPRINTABLE.search(scope["path"]):
            return await _answer(send, 400, CONTROL_IN_PATH)  # its body unread: the connection closes
        await self.app(scope, receive, send)


# A set of byte ranges as RFC 9110 writes it: "bytes=0-99", "bytes=100-", "bytes=-500", by commas;
# offsets of at most 18 digits (a file's size fits in far fewer; 5,000 digits were past what
# Python converts, a 500: a review), at most 16 ranges (RFC 9110 warns of many small ones).
_RANGE = r"(\d{1,18}-\d{0,18}|-\d{1,18})"
_BYTE_RANGES = re.compile(rf"bytes=\s*{_RANGE}(\s*,\s*{_RANGE}){{0,15}}\s*", re.IGNORECASE)


def _servable(value: bytes) -> bool:
    text = value.decode("latin-1").strip()
    if not _BYTE_RANGES.fullmatch(text):
        return False
    spans = [span.strip().split("-") for span in text.split("=", 1)[1].split(",")]
    return all(not first or not last or int(first) <= int(last) for first, last in spans)


class IgnoredRange:
    """A Range header the static files cannot serve is ignored, as RFC 9110 has it (a unit other
    than bytes, a range that ends before it starts): the page and its files answered 400 in plain
    English ("Only support bytes range"), where the whole file was due (an attack on a running server)."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            ranges = [v for k, v in scope["headers"] if k == b"range"]
            # (one field only: two are no range a server can tell apart from the other)
            if ranges and (len(ranges) > 1 or not _servable(ranges[0])):
                scope = dict(scope, headers=[(k, v) for k, v in scope["headers"] if k != b"range"])
        await self.app(scope, receive, send)


class HeadAsGet:
    """HEAD answered wherever GET is (RFC 9110), with GET's status and headers and no body.
    FastAPI's routes take only the methods they name: ``/api/decks``, a room's state and its QR
    code answered HEAD with 405 where GET gave 200 (an attack on a running server). A route that
    names HEAD itself (``/health``'s, which does no work) answers it as it is."""

    def __init__(self, app: ASGIApp, routes: Callable[[], Sequence[BaseRoute]]):
        self.app, self.routes = app, routes

    def _takes(self, scope: Scope) -> bool:
        return any(route.matches(scope)[0] == Match.FULL for route in self.routes())

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD" or self._takes(scope):
            return await self.app(scope, receive, send)
        as_get = dict(scope, method="GET")
        if not self._takes(as_get):
            return await self.app(scope, receive, send)  # its own 404 or 405

        async def headers_only(message: Message) -> None:
            if message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        await self.app(as_get, receive, headers_only)


class SecurityHeaders:
    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        csp = DOCS_CSP if scope["path"] in ("/docs", "/redoc") else CSP

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []),
                                      (b"content-security-policy", csp.encode()),
                                      (b"x-content-type-options", b"nosniff"),
                                      (b"x-frame-options", b"DENY"),
                                      (b"referrer-policy", b"no-referrer")]
            await send(message)

        await self.app(scope, receive, with_headers)


class AccessLog:
    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        started, status = time.monotonic(), [0]

        async def noting(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, noting)
        except Exception:
            # An error raised through here is answered 500 further out (Starlette's error
            # middleware): logged so, not as status 0 (a walk).
            status[0] = status[0] or 500
            raise
        finally:
            client = (scope.get("client") or ("-",))[0]
            log.info("%s %s %s %d %.0f ms", client, scope["method"], redact(scope["path"]), status[0],
                     (time.monotonic() - started) * 1000)
