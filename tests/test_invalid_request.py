"""FastAPI's 422 in the catalogue's words (service/invalid.py): on a route of its own with the
service's real request models and error handler, so the quick tier runs it (no models)."""
import pytest
from fastapi import FastAPI, File, Form, UploadFile
from fastapi.exceptions import RequestValidationError
from fastapi.testclient import TestClient

from ecoscore.service import localize
from ecoscore.service.app import invalid_request
from ecoscore.service.invalid import field_name, worded
from ecoscore.service.schemas import GridGame, Neutral, NewRoom


def _app() -> FastAPI:
    app = FastAPI()

    @app.put("/api/neutral")
    async def neutral(body: Neutral) -> dict:
        return body.model_dump()

    @app.post("/api/game")
    async def game(body: GridGame) -> dict:
        return {"players": len(body.players)}

    @app.post("/api/room")
    async def room(body: NewRoom) -> dict:
        return {"mode": body.mode}

    @app.post("/api/photo")
    async def photo(photo: UploadFile = File(...), name: str = Form(..., min_length=1, max_length=40),
                    tableau: int = Form(0, ge=0, le=8)) -> dict:
        return {"name": name}

    app.add_exception_handler(RequestValidationError, invalid_request)  # type: ignore[arg-type]
    localize.install(app)
    return app


@pytest.fixture(scope="module")
def client():
    with TestClient(_app()) as client:
        yield client


def msgs(r) -> list[str]:
    assert r.status_code == 422, r.text
    return [e["msg"] for e in r.json()["detail"]]


def test_a_number_past_its_bound_is_said_in_the_players_language(client):
    # A walk, in Russian: FastAPI's "Input should be less than or equal to 12" reached the page.
    body = {"streams": 3, "wolves": 30}
    assert msgs(client.put("/api/neutral", json=body)) == ["wolves: at most 12"]
    assert msgs(client.put("/api/neutral?lang=ru", json=body)) == ["wolves: не больше 12"]
    r = client.put("/api/neutral", json={"streams": -1, "wolves": 1}, headers={"Accept-Language": "cs"})
    assert msgs(r) == ["streams: nejméně 0"]
    assert r.json()["detail"][0]["type"] == "greater_than_equal" and r.json()["detail"][0]["loc"] == ["body", "streams"]


def test_each_kind_of_mistake_is_worded_and_translated(client):
    cases = [
        (client.put, "/api/neutral", {"json": {"streams": "3", "wolves": 1}}, "streams: a whole number was expected"),
        # a room photo's tableau of 5000 digits: pydantic's "exceeded maximum size" stayed in English (an attack)
        (client.post, "/api/photo", {"files": {"photo": ("p.jpg", b"x")}, "data": {"name": "a", "tableau": "1" * 5000}},
         "tableau: a whole number was expected"),
        (client.put, "/api/neutral", {"json": {"wolves": 1}}, "streams: missing, and it is required"),
        (client.put, "/api/neutral", {"content": b"{not json", "headers": {"Content-Type": "application/json"}},
         "the body is not valid JSON"),
        (client.post, "/api/room", {"json": {"mode": "duel"}}, "mode: one of game / two-player / solo"),
        (client.post, "/api/room", {"json": {"deck": "Kitchen Deck"}}, "deck: not in the form expected"),
        (client.post, "/api/game", {"json": {"players": []}}, "players: at least 1 item"),
        (client.post, "/api/game", {"json": {"players": [{"name": "", "grid": "."}]}}, "players.0.name: empty, and it may not be"),
        (client.post, "/api/game", {"json": {"players": [{"name": "a", "grid": 5}]}}, "players.0.grid: text was expected"),
        (client.post, "/api/game", {"json": {"players": "ann"}}, "players: a list was expected"),
        (client.post, "/api/photo", {"files": {"photo": ("p.jpg", b"x")}, "data": {"name": "x" * 41}},
         "name: at most 40 characters"),
        (client.post, "/api/photo", {"data": {"photo": "not a file", "name": "ann"}},
         "photo: a file was expected and a text field came: send the photo as a file part, "
         "with filename=\"...\" in its Content-Disposition"),
    ]
    for send, path, kwargs, english in cases:
        assert english in msgs(send(path, **kwargs)), (path, kwargs)
        for lang in ("cs", "ru", "it"):
            said = msgs(send(f"{path}?lang={lang}", **kwargs))
            assert english not in said and len(said) == len(msgs(send(path, **kwargs))), (lang, said)
    assert "players: al massimo 8 elementi" in msgs(client.post("/api/game?lang=it", json={"players": [{"name": "a", "grid": "."}] * 9}))
    assert "name: не больше 40 символов" in msgs(client.post("/api/photo?lang=ru", files={"photo": ("p.jpg", b"x")},
                                                                data={"name": "x" * 41}))


def test_a_fields_name_leaves_out_where_it_came_from_and_a_unions_branches():
    assert field_name(["body", "players", 0, "grid", "str"]) == "players.0.grid"
    assert field_name(["body", "players", 0, "grid", "list[list[nullable[constrained-str]]]", 2]) == "players.0.grid.2"
    assert field_name(["query", "lang"]) == "lang"
    assert field_name(["body"]) == "body"
    assert len(field_name(["body", "x" * 500])) == 80  # a client's key is cut


def test_a_kind_not_worded_keeps_pydantics_words_after_the_field():
    assert worded({"type": "uuid_parsing", "loc": ["body", "id"], "msg": "Input should be a valid UUID"}) == \
        "id: Input should be a valid UUID"
    assert worded({"type": "value_error", "loc": ["body", "grid"], "msg": "Value error, row 2 holds 6 cards"}) == \
        "grid: row 2 holds 6 cards"
    # a bound that is no whole number (none of ours) is not put in a template that expects one
    assert worded({"type": "less_than_equal", "loc": ["body", "x"], "msg": "Input should be less than or equal to 0.5",
                   "ctx": {"le": 0.5}}) == "x: Input should be less than or equal to 0.5"
