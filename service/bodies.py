"""Request bodies checked before FastAPI parses them, as a route class (FastAPI's "custom Request
and APIRoute class"): every router with a body uses ``BoundedRoute``.

- JSON: the body (at most ``max_json`` bytes, counted as it streamed: middleware.Bounds) may hold at
  most ``MAX_JSON_CONTAINERS`` arrays and objects outside its strings; more is refused with a 400
  before ``json.loads`` builds any of them. A key named twice in one object is a 422. A request of
  this API holds fewer than 100; a body of 60,000 nested ``[`` made the parser build a thousand
  lists before giving up, every request. A body sent without ``Content-Type: application/json``
  (FastAPI would validate it as bytes) is a 415 saying so, judged on the headers.
- Forms: a text field of at most ``MAX_FIELD_BYTES`` (the longest, a bot's grid, is 2,000
  characters), at most ``MAX_FORM_FIELDS`` fields and ``MAX_FORM_FILES`` files, refused as the
  multipart body is parsed (Starlette's defaults: 1 MB a field, 1,000 fields and files); a field
  of one value (a route's ``UploadFile``, ``str``, ``bool``: not a ``list``) sent more than once is
  a 422, never its last value taken. A form's text (a field's value, a file's name) is UTF-8,
  whatever charset its Content-Type names: other bytes are a 422, where Starlette read them as Latin-1.
  A multipart body that ends before its closing boundary (cut short) is a 400, never read as far as
  it went. (An urlencoded form has none of these checks: every form route takes a file, which
  only a multipart body can carry.)
"""
from __future__ import annotations

import json
import math
import re
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Coroutine, Sequence
from contextlib import aclosing
from types import UnionType
from typing import Any, Union, get_args, get_origin

from fastapi import HTTPException, Request, Response, UploadFile, params
from fastapi.routing import APIRoute
from starlette.datastructures import FormData
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.formparsers import MultiPartException, MultiPartParser, parse_options_header  # (python-multipart's, either name)

MAX_JSON_CONTAINERS = 256
MAX_FIELD_BYTES = 16 * 1024
MAX_FORM_FIELDS = 64
MAX_FORM_FILES = 64
# A string, or what is left of the body after an opening quote that is never closed: a match
# from every quote, so the scan stays linear whatever the quotes and backslashes.
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*+(?:"|\\?\Z)', re.DOTALL)


def containers(body: bytes) -> int:
    """Arrays and objects in a JSON text, its strings left out (brackets inside them are text)."""
    n = body.count(b"[") + body.count(b"{")
    if n <= MAX_JSON_CONTAINERS:  # the common case: no string to strip
        return n
    bare = _STRING.sub(b"", body)
    return bare.count(b"[") + bare.count(b"{")


NOT_FINITE = "the JSON body holds a number that is not finite (NaN, Infinity or too big): JSON allows none"


def _not_finite(_: str) -> float:
    raise HTTPException(400, NOT_FINITE)


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise HTTPException(400, NOT_FINITE)
    return value


MAX_INT_DIGITS = 100  # no number the API takes is longer; Python's own limit (4,300) was a bare 400
NOT_UTF8 = "the JSON body is not UTF-8 text (JSON sent over a network is UTF-8)"


def _keys_once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object's members, each key once: Python keeps a repeated key's last value without a
    word (``{"mode": "solo", "mode": "game"}`` started a game room: an attack), as a form's
    repeated field once was (``BoundedRequest._one_each``)."""
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            raise HTTPException(422, f"the JSON body names '{key}' more than once in one object: send it once")
        seen.add(key)
    return dict(pairs)


def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise HTTPException(400, f"the JSON body holds a number of more than {MAX_INT_DIGITS} digits")
    return int(text)


class _Refused(MultiPartException):
    """A multipart body refused as it is parsed: the status and words to answer."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def _utf8(data: bytes | bytearray) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


# A multipart body's delimiter (CRLF, "--" and the boundary) may not occur inside a part (RFC 2046,
# 5.1.1). Where it does, followed by neither a part nor the end, python-multipart walks it byte by
# byte: a 40 MB photo part made of "\r\n--BBx" (boundary "BB") held the event loop 7 s, a photo of
# that size 0.3 s (an attack on a running server). A form of this API has at most
# MAX_FORM_FIELDS + MAX_FORM_FILES parts, and as many delimiters after a CRLF (the first part's
# has none, the closing one has): a body holding more is no such form, and is refused as it
# streams, before the parser is given it.
MAX_DELIMITERS = MAX_FORM_FIELDS + MAX_FORM_FILES


async def _delimiters_counted(stream: AsyncIterator[bytes], boundary: bytes | None) -> AsyncGenerator[bytes, None]:
    """``stream`` as it comes, refused once it holds more than ``MAX_DELIMITERS`` delimiters."""
    delimiter = b"\r\n--" + (boundary or b"")
    seen, tail = 0, b""
    async for chunk in stream:
        if boundary:
            window = tail + chunk  # (a delimiter across two chunks counted once: the tail is shorter than one)
            seen += window.count(delimiter)
            if seen > MAX_DELIMITERS:
                raise _Refused(400, f"the form (multipart/form-data) holds its boundary more than {MAX_DELIMITERS} "
                                    "times, more than the parts a form of this API has: a file holding the form's "
                                    "boundary cannot be sent in it (send it as a browser or `curl -F` does)")
            tail = window[-(len(delimiter) - 1):]
        yield chunk


class _CheckedParser(MultiPartParser):
    """Starlette's multipart parser, refusing what it let through on a guess: text that is not
    UTF-8 (the form's charset) it read as Latin-1, and a player's name sent so was seated as the
    Latin-1 reading of its bytes (an attack on a running server). The route's ``file_fields``
    sent as text are left to the route, which says a file was expected. And a body that ends
    before its closing boundary: it was read as far as it went, "photo: Field required" when cut
    in the photo, and a room seated a player from a body cut after it."""

    def __init__(self, *args: Any, file_fields: tuple[str, ...] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.file_fields = file_fields
        self.ended = False  # the closing boundary seen

    # UTF-8 whatever charset the Content-Type names (a browser names none; Starlette's ``parse`` sets
    # it from there): a charset Python does not know it read as Latin-1, which takes any bytes (a
    # helper's attack), and a codec such as base64 failed the parse with a bare 400.
    @property
    def _charset(self) -> str:
        return "utf-8"

    @_charset.setter
    def _charset(self, named: str) -> None:
        pass

    async def parse(self) -> FormData:
        form = await super().parse()
        if not self.ended:
            for file in self._files_to_close_on_error:  # the parts' files, a part cut short's too
                file.close()
            raise _Refused(400, "the upload is incomplete: the form ended before its closing boundary (the body was "
                                "cut short); send it again")
        return form

    def on_end(self) -> None:
        self.ended = True

    def on_headers_finished(self) -> None:
        super().on_headers_finished()
        part = self._current_part
        filename = parse_options_header(part.content_disposition)[1].get(b"filename")
        if filename is not None and not _utf8(filename):  # a player's name, when none is given
            raise _Refused(422, f"the file name in form field '{part.field_name}' is not valid UTF-8 text")

    def on_part_end(self) -> None:
        part = self._current_part
        if part.file is None and part.field_name not in self.file_fields and not _utf8(part.data):
            raise _Refused(422, f"the form field '{part.field_name}' is not valid UTF-8 text")
        super().on_part_end()


class _Awaited:
    """A form to await, as FastAPI and the routes take ``request.form()`` (Starlette's own wrapper,
    which may also be entered with ``async with``, is private to it)."""

    def __init__(self, coroutine: Coroutine[Any, Any, FormData]):
        self._coroutine = coroutine

    def __await__(self):
        return self._coroutine.__await__()


class BoundedRequest(Request):
    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            body = await self.body()
            # UTF-8 only (RFC 8259): Python also reads UTF-16 and UTF-32, where a character such
            # as U+0122 holds the byte of a quote, and the container count below, which reads
            # the bytes, took brackets for text and let 10,000 nested arrays through.
            try:
                text = body.decode("utf-8-sig")  # a byte order mark may lead (RFC 8259 lets it be ignored)
            except UnicodeDecodeError:
                raise HTTPException(400, NOT_UTF8) from None
            if containers(body) > MAX_JSON_CONTAINERS:
                raise HTTPException(400, "the JSON body nests too deeply or holds too many arrays and objects "
                                         f"(at most {MAX_JSON_CONTAINERS})")
            # NaN, Infinity and 1e999 are no JSON, though Python reads them: a float that is not
            # finite passed the parser, failed validation, and the 422 that echoes the input could
            # not be written as JSON (a 500).
            self._json = json.loads(text, parse_constant=_not_finite, parse_float=_finite, parse_int=_int,
                                    object_pairs_hook=_keys_once)
        return self._json

    async def _get_form(self, *, max_files: int | float = 1000, max_fields: int | float = 1000,
                        max_part_size: int = 1024 * 1024) -> FormData:
        """Starlette's own, a multipart body parsed by ``_CheckedParser``."""
        kind, options = parse_options_header(self.headers.get("Content-Type"))
        if self._form is None and kind == b"multipart/form-data":
            try:
                boundary = options.get(b"boundary")
                async with aclosing(self.stream()) as stream, aclosing(_delimiters_counted(stream, boundary)) as counted:
                    parser = _CheckedParser(self.headers, counted, max_files=max_files, max_fields=max_fields,
                                            max_part_size=max_part_size, file_fields=self.file_fields)
                    self._form = await parser.parse()
            except _Refused as err:
                raise HTTPException(err.status, err.message) from None
            except MultiPartException as err:  # as Starlette answers it (``_said_plainly`` words it)
                raise StarletteHTTPException(400, err.message) from None
        return await super()._get_form(max_files=max_files, max_fields=max_fields, max_part_size=max_part_size)

    single_files: tuple[str, ...] = ()  # the route's fields of one file each (``BoundedRoute``)
    single_fields: tuple[str, ...] = ()  # the route's fields of one value each, files included
    file_fields: tuple[str, ...] = ()  # the route's fields of files, one or many

    def form(self, *, max_files: int | float = MAX_FORM_FILES, max_fields: int | float = MAX_FORM_FIELDS,
             max_part_size: int = MAX_FIELD_BYTES):
        parsed = super().form(max_files=max_files, max_fields=max_fields, max_part_size=max_part_size)
        return _Awaited(self._one_each(parsed))

    async def _one_each(self, parsed: Awaitable[FormData]) -> FormData:
        """A 422 for a form that sends a field of one value more than once: FastAPI reads the last
        and drops the others without a word (an attack's find, of a photo and then of a room's
        player's ``name``; a route that checked for itself was missed once). Starlette's refusals
        of a form said in this API's words."""
        try:
            form = await parsed
        except StarletteHTTPException as err:  # (Starlette's own: FastAPI's is a subclass of it)
            raise _said_plainly(err) from None
        refusal = next((f"one {field} a request: a game's photos go to /api/game, one per player"
                        for field in self.single_files if len(form.getlist(field)) > 1), None) or next(
            (f"the form field '{field}' was sent more than once: send it once"
             for field in self.single_fields if len(form.getlist(field)) > 1), None)
        if refusal:
            await form.close()  # its spooled files now: FastAPI closes a form only once it has it
            raise HTTPException(422, refusal)
        return form


def _said_plainly(err: StarletteHTTPException) -> StarletteHTTPException:
    """Starlette's words for a form it cannot parse, as a client can act on them: a photo sent with
    no file name in its part is a text field, and was refused as "Part exceeded maximum size of
    16KB."; a part's headers of 5 kB (a long file name) as "Invalid multipart data" (an attack on
    a running server)."""
    detail = str(err.detail)
    if detail.startswith("Part exceeded maximum size"):
        return HTTPException(400, f"a form field of more than {MAX_FIELD_BYTES // 1024} KB: a photo is sent as a file "
                                  "(its form part with a filename), and text fields are short")  # (api.form_field_too_long)
    if detail.startswith("Missing boundary"):  # (api.form_no_boundary: Starlette's words reached players)
        return HTTPException(400, "the form (multipart/form-data) names no boundary in its Content-Type: send it as a "
                                  "browser or `curl -F` does")
    if detail.startswith("The Content-Disposition header field"):  # (api.form_part_unnamed)
        return HTTPException(400, 'a part of the form has no name in its Content-Disposition: name each part '
                                  '(name="photo")')
    if detail.startswith("Invalid multipart data"):  # (a body whose boundary is not its Content-Type's too: an attack)
        return HTTPException(400, "the form (multipart/form-data) cannot be read: its parts do not start with the "
                                  "boundary its Content-Type names, or a part's headers are broken or too long (a "
                                  "file name of a few hundred characters at most)")
    return err


def _takes_many(annotation: Any) -> bool:
    """A field a form may send many times (``list[str]``, ``list[UploadFile]``, ``list[str] | None``,
    ``Sequence[str]``)."""
    origin = get_origin(annotation)
    if origin in (Union, UnionType):
        return any(_takes_many(arg) for arg in get_args(annotation))
    return isinstance(origin, type) and issubclass(origin, (list, tuple, set, frozenset, Sequence))


def _has_body(request: Request) -> bool:
    """Whether a request says it carries a body (a length other than 0, or chunks)."""
    length = request.headers.get("Content-Length")
    return (length is not None and length.strip() != "0") or "chunked" in request.headers.get("Transfer-Encoding", "").lower()


def _says_json(content_type: str | None) -> bool:
    """Whether a request's Content-Type lets FastAPI read its body as JSON (none said does not:
    FastAPI's ``strict_content_type``, from 0.132, the least pyproject.toml takes)."""
    kind = parse_options_header(content_type or "")[0].decode("latin-1").lower()
    return kind == "application/json" or (kind.startswith("application/") and kind.endswith("+json"))


class BoundedRoute(APIRoute):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The endpoint's own parameters (this service's routes take their files there).
        self.single_files = tuple(param.alias for param in self.dependant.body_params
                                  if param.field_info.annotation is UploadFile)
        self.single_fields = tuple(param.alias for param in self.dependant.body_params
                                   if not _takes_many(param.field_info.annotation))
        self.file_fields = tuple(param.alias for param in self.dependant.body_params
                                 if UploadFile in (param.field_info.annotation, *get_args(param.field_info.annotation)))
        # A body read as JSON: FastAPI reads it so only when its Content-Type says JSON, and
        # validated a JSON object sent as text/plain, or by `curl -d` as a form, as bytes: "body:
        # an object was expected", of a body that was one (an attack).
        self.takes_json = self.body_field is not None and not any(
            isinstance(param.field_info, params.Form) for param in self.dependant.body_params)

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def bounded(request: Request) -> Response:
            bounded_request = BoundedRequest(request.scope, request.receive)
            # Judged on the headers, before the body: a request with none (no length, or 0, and
            # not chunked) leaves the route's defaults, as before. (Reading the body here to
            # tell first made a client gone mid-body a 500: a review.)
            if self.takes_json and _has_body(request) and not _says_json(request.headers.get("Content-Type")):
                raise HTTPException(415, "the body is sent as JSON, with Content-Type: application/json (a browser's "
                                         "fetch or `curl -H 'Content-Type: application/json'` sends it so)")
            # A body compressed (gzip) was read as JSON text: "not UTF-8 text", a 400 (an attack).
            # Every Content-Encoding field (one saying identity before one saying gzip: a review).
            codings = [c.strip().lower() for field in request.headers.getlist("Content-Encoding") for c in field.split(",")]
            coded = next((c for c in codings if c not in ("", "identity")), None)
            if _has_body(request) and coded is not None:
                raise HTTPException(415, f"the body is sent as it is, not compressed (Content-Encoding: {coded[:20]})",
                                    headers={"Accept-Encoding": "identity"})  # (RFC 9110 15.5.16)
            bounded_request.single_files = self.single_files
            bounded_request.single_fields = self.single_fields
            bounded_request.file_fields = self.file_fields
            return await handler(bounded_request)

        return bounded
