"""The service's multipart checks (service/bodies.py) on a route of their own: no models, so the
quick tier runs them too. They ride on Starlette's private parser hooks (``Request._get_form``,
``MultiPartParser``'s part callbacks); an upgrade that renamed one would let every body through
unchecked, and these tests say so at once."""
from typing import Annotated

import pytest
from fastapi import APIRouter, FastAPI, File, Form, UploadFile
from fastapi.testclient import TestClient

from ecoscore.service import bodies
from ecoscore.service.bodies import BoundedRoute

B = "b"


def _app() -> FastAPI:
    router = APIRouter(route_class=BoundedRoute)

    @router.post("/photo")
    async def photo(photo: UploadFile = File(...), name: Annotated[str, Form()] = "") -> dict:
        return {"name": name, "bytes": len(await photo.read())}

    app = FastAPI()
    app.include_router(router)
    return app


@pytest.fixture()
def post():
    with TestClient(_app()) as client:
        def send(body: bytes, charset: str = ""):
            ctype = f"multipart/form-data; boundary={B}" + (f"; charset={charset}" if charset else "")
            return client.post("/photo", content=body, headers={"Content-Type": ctype})
        yield send


def part(name: str, data: bytes, filename: bytes | None = None) -> bytes:
    disposition = f'form-data; name="{name}"'.encode() + (b'; filename="' + filename + b'"' if filename else b"")
    return b"--" + B.encode() + b"\r\nContent-Disposition: " + disposition + b"\r\n\r\n" + data + b"\r\n"


def form(*parts: bytes) -> bytes:
    return b"".join(parts) + b"--" + B.encode() + b"--\r\n"


PHOTO = part("photo", b"\xff\xd8 not parsed here \xff\xd9", b"p.jpg")


def test_a_well_formed_form_is_read_as_sent(post):
    r = post(form(PHOTO, part("name", "Jérôme".encode())))
    assert r.status_code == 200 and r.json() == {"name": "Jérôme", "bytes": len(b"\xff\xd8 not parsed here \xff\xd9")}


def test_a_field_of_one_value_sent_twice_is_refused(post):
    r = post(form(PHOTO, part("name", b"ann"), part("name", b"bob")))
    assert r.status_code == 422 and "'name' was sent more than once" in r.json()["detail"]
    r = post(form(PHOTO, PHOTO))
    assert r.status_code == 422 and r.json()["detail"].startswith("one photo a request")


def test_a_form_refused_once_parsed_has_its_files_closed_at_once(post, monkeypatch):
    # FastAPI closes a form's files only once it has the form: one refused on its way there kept
    # its spooled photos open until collected (a helper's review).
    parsed = []
    parse = bodies._CheckedParser.parse

    async def keeping(self):
        parsed.append(await parse(self))
        return parsed[-1]

    monkeypatch.setattr(bodies._CheckedParser, "parse", keeping)
    r = post(form(PHOTO, PHOTO))
    files = [value for f in parsed for _, value in f.multi_items() if not isinstance(value, str)]
    assert r.status_code == 422 and len(files) == 2 and all(f.file.closed for f in files)


@pytest.mark.parametrize("charset", ["", "utf-8", "x-foo", "latin-1", "base64", "undefined"])
def test_text_that_is_not_utf8_is_refused_whatever_charset_is_named(post, charset):
    # A charset Python does not know Starlette read as Latin-1, which takes any bytes: the name was
    # seated as "Jérôme" from Latin-1 bytes; base64 or "undefined" failed the parse with a bare 400
    # (a helper's attack).
    r = post(form(PHOTO, part("name", "Jérôme".encode("latin-1"))), charset)
    assert r.status_code == 422 and r.json()["detail"] == "the form field 'name' is not valid UTF-8 text"
    r = post(form(part("photo", b"x", "é.jpg".encode("latin-1"))), charset)
    assert r.status_code == 422 and "file name in form field 'photo' is not valid UTF-8" in r.json()["detail"]
    r = post(form(PHOTO, part("name", "Jérôme".encode())), charset)  # UTF-8 is read as UTF-8 whatever is named
    assert r.status_code == 200 and r.json()["name"] == "Jérôme"


@pytest.mark.parametrize("cut", [10, 60, -30, -8, -3])
def test_a_body_cut_before_its_closing_boundary_is_refused(post, cut):
    body = form(PHOTO, part("name", b"ann"))
    r = post(body[:cut])
    assert r.status_code == 400 and r.json()["detail"].startswith("the upload is incomplete"), (cut, r.text)


def test_a_field_of_many_values_is_known_however_it_is_written():
    # ``list[str] | None`` was taken for a field of one value, and would have been refused when repeated (a review).
    from collections.abc import Sequence
    from typing import Optional

    many = (list[str], list[str] | None, Optional[list[UploadFile]], Sequence[str], list[UploadFile])  # noqa: UP045
    one = (str, str | None, UploadFile, bool, int | None)
    assert all(bodies._takes_many(a) for a in many) and not any(bodies._takes_many(a) for a in one)


def test_a_body_holding_its_boundary_over_and_over_is_refused_as_it_streams(post, monkeypatch):
    # A photo part of "\r\n--b" + "x", over and over: python-multipart walks each near-delimiter
    # byte by byte, and 40 MB of it held the event loop 7 s (an attack on a running server).
    import time

    near = b"\r\n--" + B.encode() + b"x"
    start = time.perf_counter()
    r = post(form(part("photo", near * (4 * 2**20 // len(near)), b"p.jpg")))
    assert r.status_code == 400 and "holds its boundary more than" in r.json()["detail"]
    assert time.perf_counter() - start < 1.5  # refused at the first chunks, not parsed through
    # The largest form there may be (every field and file a form may have) is read.
    files = [part(f"x{k}", b"data", b"x.bin") for k in range(bodies.MAX_FORM_FILES - 1)]
    fields = [part(f"f{k}", b"v") for k in range(bodies.MAX_FORM_FIELDS - 1)]
    assert post(form(PHOTO, *files, *fields, part("name", b"ann"))).json()["name"] == "ann"
    # Counted as the body streams, a delimiter split across two chunks once.
    monkeypatch.setattr(bodies, "MAX_DELIMITERS", 3)
    three = form(PHOTO, part("a", b"v"), part("name", b"ann"))  # 3 delimiters after a CRLF
    for size in (1, 5, 7, len(three)):
        _drain(bodies._delimiters_counted(_chunks(three, size), B.encode()))
        with pytest.raises(bodies._Refused):
            _drain(bodies._delimiters_counted(_chunks(form(PHOTO, part("a", b"v"), part("b", b"v"), part("c", b"v")),
                                                      size), B.encode()))


async def _chunks(data: bytes, size: int):
    for i in range(0, len(data), size):
        yield data[i:i + size]


def _drain(stream) -> None:
    import asyncio

    async def go():
        async for _ in stream:
            pass

    asyncio.run(go())
