"""The real app over HTTP with the real models: scoring, rooms surviving a restart, bad input."""
import io
import struct
import zlib

import pytest
from conftest import needs_models
from fastapi.testclient import TestClient
from helpers import EXAMPLES

from ecoscore.service.app import Settings, create_app

pytestmark = [needs_models, pytest.mark.slow]


@pytest.fixture()
def db(tmp_path):
    return f"sqlite:///{tmp_path / 'store.sqlite3'}"


@pytest.fixture()
def client(db, reader):
    with TestClient(create_app(Settings(db_url=db), reader=reader)) as c:
        yield c


def photo(scene, name="photo.jpg"):
    return (name, io.BytesIO(scene.jpeg), "image/jpeg")


def test_health_and_openapi(client):
    health = client.get("/health").json()
    assert health["status"] == "ok"
    # Every model that finds or names a card is listed: the finder's and the lattice's refiners (the wide one
    # checking the fine one), the classifier's partner too.
    assert health["models"]["finder_refiner"] == "corners.onnx"
    assert health["models"]["lattice_refiner"] == "lattice.onnx"
    assert health["models"]["lattice_wide"] == "lattice-wide.onnx"
    assert health["models"]["classifier"] == "classifier.onnx"
    assert health["models"]["classifier_partner"] == "classifier-norm.onnx"
    paths = client.get("/openapi.json").json()["paths"]
    for path in ("/api/photo", "/api/game", "/api/grid", "/api/rooms", "/api/rooms/{room_id}/photo"):
        assert path in paths
    # a client past its share is answered 429: said in the document (schemathesis found it unlisted)
    for path in ("/api/photo", "/api/game", "/api/rooms", "/api/rooms/{room_id}/photo"):
        assert "429" in paths[path]["post"]["responses"], path
    page = client.get("/")
    assert page.status_code == 200 and "Take a photo" in page.text
    # HEAD too, as uptime checks ask (they got 405: an attack's find)
    for path in ("/", "/health", "/r/abcdefghjk"):
        r = client.head(path)
        assert r.status_code == 200 and r.content == b"", path
    # A Range no file can be served by is ignored, as RFC 9110 says (it was a 400 in plain
    # English: an attack); a byte range is served
    whole = client.get("/static/app.js").content
    for bad in ("items=0-5", "bytes=5-1", "bytes=", "bytes=0-5;x", "lines=1-2, bytes=0-1", "bytes=" + "9" * 5000 + "-",
                "bytes=" + "9" * 5000 + "-" + "9" * 5000, "bytes=" + ",".join(f"{k}-{k}" for k in range(17))):
        for path in ("/", "/static/app.js"):
            r = client.get(path, headers={"Range": bad})
            assert r.status_code == 200, (bad, path, r.status_code, r.text[:80])
        assert client.get("/static/app.js", headers={"Range": bad}).content == whole
    r = client.get("/static/app.js", headers={"Range": "bytes=0-9"})
    assert r.status_code == 206 and r.content == whole[:10]
    r = client.get("/static/app.js", headers=[("Range", "bytes=0-9"), ("Range", "bytes=5-20")])  # two fields: neither
    assert r.status_code == 200 and r.content == whole


def test_score_one_photo_with_overlay(client, photo_set):
    r = client.post("/api/photo", files={"photo": photo(photo_set[0], "alice.jpg")})
    assert r.status_code == 200, r.text
    doc = r.json()
    p = doc["players"][0]
    assert p["name"] == "alice" and doc["provisional_majorities"] is True and p["deck"] == "standin"
    assert len(p["grid"]) == 4 and len(p["cells"][0]) == 5 and "doubts" in p
    assert p["explanation"]["cards"] or p["explanation"]["groups"]
    img = client.get(p["overlay_url"])
    assert img.status_code == 200 and img.headers["content-type"] == "image/jpeg" and img.content[:2] == b"\xff\xd8"


def test_a_photo_is_scored_with_the_rooms_database_down(client, photo_set, monkeypatch):
    # With PostgreSQL stopped, a photo scored at the table answered 503 after its read: its
    # pictures are kept in the rooms' database (an organiser's run). Scored all the same now, its
    # photo inline, nothing stored; a room's call still says the database is down.
    import base64

    import numpy as np
    from PIL import Image

    from ecoscore.service.store import Busy, Store

    tries = []

    def down(self, *args, **kwargs):
        tries.append(1)
        raise Busy("the database is busy or unreachable; try again in a moment")

    monkeypatch.setattr(Store, "put_overlay", down)
    r = client.post("/api/game", files=[("photos", photo(photo_set[0], "a.jpg")), ("photos", photo(photo_set[1], "b.jpg"))])
    assert r.status_code == 200, r.text
    players = r.json()["players"]
    assert len(tries) == 1  # the first refusal is the database's answer: nothing more tried
    for p in players:
        assert "overlay_url" not in p
        head, _, data = p["photo_url"].partition(",")
        assert head == "data:image/jpeg;base64"
        shown = Image.open(io.BytesIO(base64.b64decode(data)))
        assert shown.format == "JPEG" and max(shown.size) <= 2048
        # the photo's shape, as photo_size gives the frame its cells' corners are in
        assert np.isclose(shown.size[0] / shown.size[1], p["photo_size"][0] / p["photo_size"][1], atol=0.01)


def test_cards_left_out_beside_the_grid_come_with_their_corners(db, monkeypatch):
    """The doubt "N cards ... were left out" names no cell: the answer gives those cards' corners
    (``left_out``), as many as it says, so the page can outline them on the photo."""
    from helpers import FiveByFive

    from ecoscore.vision.pipeline import Reader

    layout = FiveByFive()
    monkeypatch.setenv("ECOSCORE_PRECISION", "f32")  # the read of tests/test_pipeline.py's 5 x 5 test
    with TestClient(create_app(Settings(db_url=db), reader=Reader())) as c:
        r = c.post("/api/photo", files={"photo": ("five.jpg", io.BytesIO(layout.jpeg), "image/jpeg")})
    assert r.status_code == 200, r.text
    players = r.json()["players"]
    said = [int(d.split()[0]) for p in players for d in p["doubts"] if "were left out" in d or "was left out" in d]
    quads = [q for p in players for q in p["left_out"]]
    assert said and sum(said) == len(quads), (said, quads)
    for quad in quads:
        assert len(quad) == 4 and layout.on_a_card(sum(x for x, _ in quad) / 4, sum(y for _, y in quad) / 4), quad


def test_score_a_game_of_photos(client, photo_set):
    files = [("photos", photo(s, f"p{k}.jpg")) for k, s in enumerate(photo_set[:2])]
    r = client.post("/api/game", files=files, data={"names": ["Ann", "Ben"], "neutral": "3,2"})
    assert r.status_code == 200, r.text
    doc = r.json()
    assert [p["name"] for p in doc["players"]] == ["Ann", "Ben"]
    assert doc["neutral"] == {"streams": 3, "wolves": 2} and doc["provisional_majorities"] is False


def test_score_grids_reproduces_the_rulebook(client):
    players = [{"name": n, "grid": (EXAMPLES / f"{n}.txt").read_text()} for n in ("alice", "bruno", "chiara")]
    doc = client.post("/api/grid", json={"players": players}).json()
    assert [p["total"] for p in doc["players"]] == [50, 36, 43]
    bad = client.post("/api/grid", json={"players": [{"name": "x", "grid": "RB RB\nunicorn"}]})
    assert bad.status_code == 422 and "unicorn" in bad.json()["detail"]


def png_claiming(width, height):
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\x00" * 64)) + chunk(b"IEND", b""))


@pytest.mark.parametrize(
    "content, status, message",
    [
        (b"GIF89a not a photo at all", 415, "not an image"),
        (b"\xff\xd8\xff\xe0" + b"\x00" * 500, 422, "truncated"),
        (png_claiming(40000, 40000), 422, "the limit is"),
    ],
)
def test_bad_uploads_get_a_clear_4xx(client, content, status, message):
    r = client.post("/api/photo", files={"photo": ("x.jpg", io.BytesIO(content), "image/jpeg")})
    assert r.status_code == status and message in r.json()["detail"]


def test_too_large_an_upload(db, reader):
    with TestClient(create_app(Settings(db_url=db, max_upload=1000), reader=reader)) as c:
        r = c.post("/api/photo", files={"photo": ("big.jpg", io.BytesIO(b"\xff" * 5000), "image/jpeg")})
        assert r.status_code == 413 and "too large" in r.json()["detail"]


def test_photo_without_a_tableau(client):
    import cv2
    import numpy as np

    blank = cv2.imencode(".jpg", np.full((900, 1200, 3), 90, np.uint8))[1].tobytes()
    r = client.post("/api/photo", files={"photo": ("empty.jpg", io.BytesIO(blank), "image/jpeg")})
    assert r.status_code == 422 and "no tableau found" in r.json()["detail"]


def test_room_with_three_players_survives_a_restart(db, reader, photo_set):
    with TestClient(create_app(Settings(db_url=db), reader=reader)) as c:
        room = c.post("/api/rooms", json={"mode": "game"}).json()
        rid = room["id"]
        assert len(rid) == 10 and c.get(room["qr_url"]).headers["content-type"].startswith("image/svg")
        alice = c.put(f"/api/rooms/{rid}/players/alice/grid", json={"grid": (EXAMPLES / "alice.txt").read_text()}).json()
        bruno = c.put(f"/api/rooms/{rid}/players/bruno/grid", json={"grid": (EXAMPLES / "bruno.txt").read_text()}).json()
        assert alice["token"] and bruno["token"] != alice["token"]
    # the service restarts: a new app on the same store
    with TestClient(create_app(Settings(db_url=db), reader=reader)) as c:
        doc = c.get(f"/api/rooms/{rid}").json()
        assert doc["players"] == ["alice", "bruno"]
        r = c.post(f"/api/rooms/{rid}/photo", files={"photo": photo(photo_set[3])}, data={"name": "chiara"})
        assert r.status_code == 200, r.text
        chiara = r.json()
        game = chiara["room"]["game"]
        assert [p["name"] for p in game["players"]] == ["alice", "bruno", "chiara"]
        assert game["provisional_majorities"] is False
        assert game["players"][2]["overlay_url"] and "doubts" in game["players"][2]
        # a player can only replace their own tableau
        hijack = c.put(f"/api/rooms/{rid}/players/alice/grid", json={"grid": (EXAMPLES / "bruno.txt").read_text()})
        assert hijack.status_code == 403
        wrong = c.put(f"/api/rooms/{rid}/players/alice/grid", json={"grid": (EXAMPLES / "bruno.txt").read_text()},
                      headers={"X-Player-Token": bruno["token"]})
        assert wrong.status_code == 403
        mine = c.put(f"/api/rooms/{rid}/players/chiara/grid", json={"grid": (EXAMPLES / "chiara.txt").read_text()},
                     headers={"X-Player-Token": chiara["token"], "If-Match": f'"{chiara["version"]}"'})
        assert mine.status_code == 200
        totals = [p["total"] for p in mine.json()["room"]["game"]["players"]]
        assert totals == [50, 36, 43]
    with TestClient(create_app(Settings(db_url=db), reader=reader)) as c:
        assert [p["total"] for p in c.get(f"/api/rooms/{rid}").json()["game"]["players"]] == [50, 36, 43]


def test_two_player_and_solo_rooms(client):
    two = client.post("/api/rooms", json={"mode": "two-player"}).json()
    rid = two["id"]
    client.put(f"/api/rooms/{rid}/players/alice/grid", json={"grid": (EXAMPLES / "alice.txt").read_text()})
    doc = client.put(f"/api/rooms/{rid}/neutral", json={"streams": 6, "wolves": 0},
                     headers={"X-Room-Token": two["owner_token"]}).json()
    assert doc["game"]["neutral"] == {"streams": 6, "wolves": 0}
    assert doc["game"]["players"][0]["cards"]["stream"] == 5  # the pile's 6 beat alice's 3
    solo = client.post("/api/rooms", json={"mode": "solo"}).json()
    sid = solo["id"]
    client.put(f"/api/rooms/{sid}/players/me/grid", json={"grid": (EXAMPLES / "alice.txt").read_text()})
    doc = client.put(f"/api/rooms/{sid}/bot", json={"grid": "RB . . . .\n. . . . .\n. . . . .\n. . . . ."},
                     headers={"X-Room-Token": solo["owner_token"]}).json()
    assert doc["game"]["solo"] == {"margin": 52, "outcome": "remarkable"}


def test_unknown_room_and_bad_mode(client):
    assert client.get("/api/rooms/doesnotexist").status_code == 404
    assert client.post("/api/rooms", json={"mode": "party"}).status_code == 422


def test_bad_game_options(client, photo_set):
    r = client.post("/api/game", files=[("photos", photo(photo_set[0]))], data={"neutral": "three,2"})
    assert r.status_code == 422 and "neutral: expected two whole numbers" in r.json()["detail"]
    r = client.post("/api/photo", files={"photo": photo(photo_set[0])}, data={"others": "5:-1"})
    assert r.status_code == 422 and "cannot be negative" in r.json()["detail"]


@pytest.fixture(scope="module")
def two_tableaux():
    """One photo of two players' tableaux side by side (camera straight above, clear light)."""
    from ecoscore.datasets.deck import load_deck
    from ecoscore.datasets.effects import LightParams
    from ecoscore.datasets.scene import SceneParams, render_scene

    params = SceneParams(long_side=3000, p_multi=1.0, tableaux=(2, 2), p_cut_off=0.0, p_hole=0.0, fill=(0.8, 0.9),
                         elevation_deg=(80, 90), loose_cards=(0, 0), light=LightParams(p_motion=0.0, p_defocus=0.0))
    return render_scene(load_deck("standin"), (4343, 0), params)


def test_a_photo_of_two_tableaux_is_two_players_but_one_room_seat(client, two_tableaux):
    from ecoscore.datasets.truth import truth_tableau
    from ecoscore.scoring import score_game

    doc = client.post("/api/photo", files={"photo": photo(two_tableaux, "table.jpg")}).json()
    assert [p["name"] for p in doc["players"]] == ["table-1", "table-2"]
    truth = score_game([(str(k), truth_tableau(t)) for k, t in enumerate(two_tableaux.truth["tableaux"])])
    assert sorted(p["total"] for p in doc["players"]) == sorted(p.total for p in truth.players)  # majorities between them
    assert not any("tableaux" in d for p in doc["players"] for d in p["doubts"])  # each read stands alone
    # A phone's long file name: its players' names fit a name's 40 characters, so the page's
    # correction (/api/grid) takes them back (they came back as 42 and were refused: an attack).
    long = "PXL_20210108_094738624.PORTRAIT.ORIGINAL"
    doc = client.post("/api/photo", files={"photo": photo(two_tableaux, long + ".jpg")}).json()
    named = [p["name"] for p in doc["players"]]
    assert named == [long[:38] + "-1", long[:38] + "-2"]
    back = client.post("/api/grid", json={"players": [{"name": n, "grid": p["grid"]} for n, p in zip(named, doc["players"])]})
    assert back.status_code == 200, back.text

    rid = client.post("/api/rooms", json={"mode": "game"}).json()["id"]
    r = client.post(f"/api/rooms/{rid}/photo", files={"photo": photo(two_tableaux)}, data={"name": "dana"})
    dana = next(p for p in r.json()["room"]["game"]["players"] if p["name"] == "dana")
    assert any("holds 2 tableaux" in d for d in dana["doubts"])  # only one can be hers: say so


def test_the_plain_photo_of_a_whole_game_has_the_detail_the_page_shows_it_cut_to_a_tableau_with(client, photo_set):
    # The page shows a tableau filling little of its photo cut to it (app.js: framed): drawn from
    # 1,000 px it was 2-2.5 times its pixels, its cards soft (a walk). A one-tableau photo's is as before.
    import cv2
    import numpy as np

    from ecoscore.datasets.deck import load_deck
    from ecoscore.datasets.effects import LightParams
    from ecoscore.datasets.scene import SceneParams, render_scene

    def long_side(doc) -> int:
        data = client.get(doc["players"][0]["photo_url"]).content
        return max(cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR).shape[:2])

    params = SceneParams(long_side=3000, p_multi=1.0, tableaux=(4, 4), p_cut_off=0.0, p_hole=0.0, fill=(0.85, 0.95),
                         elevation_deg=(70, 90), loose_cards=(0, 0), light=LightParams(p_motion=0.0, p_defocus=0.0))
    game = client.post("/api/photo", files={"photo": photo(render_scene(load_deck("standin"), (52, 0), params))}).json()
    assert len(game["players"]) == 4
    assert long_side(game) == 2048 and game["players"][0]["photo_size"] == [3000, 3000]
    one = client.post("/api/photo", files={"photo": photo(photo_set[0])}).json()
    assert len(one["players"]) == 1 and long_side(one) <= 1280


def test_a_room_player_says_which_of_the_photos_tableaux_is_theirs(client, two_tableaux):
    """A neighbour's tableau beside the player's: the room took the one with most cards, said
    "the one with the most cards was taken as yours", and no more could be done but another photo (a walk).
    The same photo sent again with ``tableau`` takes that one, undoubted; the answer says which
    of how many was taken, and a tableau the photo does not hold is refused, the seat unchanged."""
    rid = client.post("/api/rooms", json={"mode": "game"}).json()["id"]
    solo = client.post("/api/photo", files={"photo": photo(two_tableaux)}).json()["players"]
    first = client.post(f"/api/rooms/{rid}/photo", files={"photo": photo(two_tableaux)}, data={"name": "dana"}).json()
    dana = first["room"]["game"]["players"][0]
    assert (dana["tableau"], dana["tableaux"]) == (1, 2) and dana["grid"] == solo[0]["grid"]
    headers = {"X-Player-Token": first["token"], "If-Match": f'"{first["version"]}"'}
    r = client.post(f"/api/rooms/{rid}/photo", files={"photo": photo(two_tableaux)},
                    data={"name": "dana", "tableau": "2"}, headers=headers)
    assert r.status_code == 200, r.text
    dana = r.json()["room"]["game"]["players"][0]
    assert (dana["tableau"], dana["tableaux"]) == (2, 2) and dana["grid"] == solo[1]["grid"] != solo[0]["grid"]
    assert not any("tableaux" in d for d in dana["doubts"])  # the player's own word: no doubt of it
    # the photo replaced is gone from its address (it stayed public there: an attack)
    assert client.get(first["room"]["game"]["players"][0]["photo_url"]).status_code == 404
    assert client.get(dana["photo_url"]).status_code == 200
    version = r.json()["version"]
    headers["If-Match"] = f'"{version}"'
    for bad, status in (("3", 422), ("9", 422), ("-1", 422), ("two", 422)):
        r = client.post(f"/api/rooms/{rid}/photo?lang=it", files={"photo": photo(two_tableaux)},
                        data={"name": "dana", "tableau": bad}, headers=headers)
        assert r.status_code == status, (bad, r.text)
    assert r.json()["detail"] != "" and client.get(f"/api/rooms/{rid}").json()["version"] == version  # nothing written
    r = client.post(f"/api/rooms/{rid}/photo?lang=it", files={"photo": photo(two_tableaux)},
                    data={"name": "dana", "tableau": "3"}, headers=headers)
    assert r.json()["detail"] == "questa foto contiene 2 ecosistemi: non c'è un ecosistema 3", r.json()
    # leaving, the player's photo goes with them
    assert client.delete(f"/api/rooms/{rid}/players/dana", headers=headers).status_code in (200, 204)
    assert client.get(dana["photo_url"]).status_code == 404


def test_players_sending_one_photo_of_the_table_each_get_a_tableau_no_other_player_holds(client, two_tableaux):
    """Players sending one photo of the table each got its biggest tableau, and "Not mine" the next
    one even where another player held it (a Czech walk: two players with one tableau, the
    majorities moved, until pressed again). Each gets one no other player holds, said so."""
    rid = client.post("/api/rooms", json={"mode": "game"}).json()["id"]
    solo = client.post("/api/photo", files={"photo": photo(two_tableaux)}).json()["players"]
    dana = client.post(f"/api/rooms/{rid}/photo", files={"photo": photo(two_tableaux)}, data={"name": "dana"}).json()
    eva = client.post(f"/api/rooms/{rid}/photo?lang=cs", files={"photo": photo(two_tableaux)}, data={"name": "eva"}).json()
    players = {p["name"]: p for p in eva["room"]["game"]["players"]}
    assert (players["dana"]["tableau"], players["eva"]["tableau"]) == (1, 2), players
    assert players["eva"]["grid"] == solo[1]["grid"] != players["dana"]["grid"]
    assert any("za váš byl vzat ekosystém 2, ty s více kartami už mají jiní hráči" in d for d in players["eva"]["doubts"])
    # dana's "Not mine", asking for tableau 2 (eva's): the next one no other player holds, round to 1
    again = client.post(f"/api/rooms/{rid}/photo", files={"photo": photo(two_tableaux)}, data={"name": "dana", "tableau": "2"},
                        headers={"X-Player-Token": dana["token"], "If-Match": f'"{dana["version"]}"'}).json()
    assert {p["name"]: p["tableau"] for p in again["room"]["game"]["players"]} == {"dana": 1, "eva": 2}
    # a third player of the same photo: every tableau held, the biggest as before (the twin said by the room)
    fred = client.post(f"/api/rooms/{rid}/photo", files={"photo": photo(two_tableaux)}, data={"name": "fred"}).json()
    assert {p["name"]: p["tableau"] for p in fred["room"]["game"]["players"]}["fred"] == 1


def test_a_room_player_who_checked_the_grid_settles_the_photos_doubts_until_the_photo_is_sent_again(client, two_tableaux):
    """The doubts of the photo and the grid ("this photo holds 2 tableaux", a card beside the grid,
    cells cut by the frame) belong to no cell: no correction settled them, and the room's game
    stayed "not final" until the photo was sent again. The player's word that the grid is right
    settles them (said, in ``settled``), and every doubtful cell is kept as it stands."""
    rid = client.post("/api/rooms", json={"mode": "game"}).json()["id"]
    r = client.post(f"/api/rooms/{rid}/photo", files={"photo": photo(two_tableaux)}, data={"name": "dana"})
    token, version = r.json()["token"], r.json()["version"]
    dana = r.json()["room"]["game"]["players"][0]
    of_photo = [d for d in dana["doubts"] if not d.startswith("row ")]
    assert any("holds 2 tableaux" in d for d in of_photo) and r.json()["room"]["game"]["final"] is False
    doubtful = [[i, j] for i, row in enumerate(dana["cells"]) for j, cell in enumerate(row) if cell["doubts"]]
    # two more players (a game of 3-6 is not final before its third: it waits for the others)
    for other, grid in (("eve", "bruno.txt"), ("fay", "chiara.txt")):
        assert client.put(f"/api/rooms/{rid}/players/{other}/grid", json={"grid": (EXAMPLES / grid).read_text()}).status_code == 200

    def put(body: dict, version: int, lang: str = "en") -> dict:
        r = client.put(f"/api/rooms/{rid}/players/dana/grid?lang={lang}", json=body,
                       headers={"X-Player-Token": token, "If-Match": f'"{version}"'})
        assert r.status_code == 200, r.text
        return r.json()

    kept_only = put({"grid": dana["grid"], "kept": doubtful}, version)  # every cell kept: the photo's doubts stay
    assert kept_only["room"]["game"]["players"][0]["doubts"] == of_photo and kept_only["room"]["game"]["final"] is False
    checked = put({"grid": dana["grid"], "kept": [], "checked": True}, kept_only["version"])
    p = checked["room"]["game"]["players"][0]
    assert p["checked"] is True and p["doubts"] == [] and p["settled"] == of_photo
    assert p["kept"] == doubtful and not any(cell["doubts"] for row in p["cells"] for cell in row)
    assert checked["room"]["game"]["final"] is True and p["grid"] == dana["grid"]
    # a correction after it that does not say keeps it checked; the answer in Czech says what was settled
    grid = [row[:] for row in dana["grid"]]
    grid[0][0] = "meadow" if grid[0][0] != "meadow" else "bee"
    later = put({"grid": grid}, checked["version"], lang="cs")
    p = later["room"]["game"]["players"][0]
    assert p["checked"] is True and p["corrected"] == [[0, 0]] and later["room"]["game"]["final"] is True
    assert any("2 ekosystémy" in d for d in p["settled"]), p["settled"]
    # taken back (Undo): every doubt as read
    back = put({"grid": dana["grid"], "checked": False}, later["version"])
    p = back["room"]["game"]["players"][0]
    assert "checked" not in p and "settled" not in p and p["doubts"] == dana["doubts"] and p["kept"] == []
    assert back["room"]["game"]["final"] is False
    # checked again, then the photo sent again: a new read, unchecked
    again = put({"grid": dana["grid"], "checked": True}, back["version"])
    r = client.post(f"/api/rooms/{rid}/photo", files={"photo": photo(two_tableaux)}, data={"name": "dana"},
                    headers={"X-Player-Token": token, "If-Match": f'"{again["version"]}"'})
    assert r.status_code == 200, r.text
    p = r.json()["room"]["game"]["players"][0]
    assert "checked" not in p and p["doubts"] == dana["doubts"] and r.json()["room"]["game"]["final"] is False
    # a grid given as text has nothing to settle: checked is taken and changes nothing
    typed = client.put(f"/api/rooms/{rid}/players/eva/grid", json={"grid": dana["grid"], "checked": True})
    assert typed.status_code == 200 and "checked" not in typed.json()["room"]["game"]["players"][1]


def test_a_photos_tableaux_numbered_are_told_apart_from_the_other_players(client, two_tableaux, photo_set):
    # "ann" (two tableaux: ann-1, ann-2) beside a photo named "Ann-2" gave one game two players a
    # room would take for one (an attack on a running server).
    files = [("photos", photo(two_tableaux, "a.jpg")), ("photos", photo(photo_set[0], "b.jpg"))]
    r = client.post("/api/game", files=files, data={"names": ["ann", "Ann-2"]})
    # said where the name came from ("repeated: ann-2, Ann-2", when no one had typed it twice)
    assert r.status_code == 422 and r.json()["detail"] == (
        "player names must differ: the photo ann holds 2 tableaux, its players numbered ann-1 to ann-2, and ann-2 "
        "is too like another player's name: name the photos apart"), r.text
    r = client.post("/api/game?lang=cs", files=files, data={"names": ["ann", "Ann-2"]})
    assert r.json()["detail"].startswith("jména hráčů se musí lišit: na fotce ann jsou 2 ekosystémy"), r.text
    r = client.post("/api/game", files=files, data={"names": ["ann", "bob"]})
    assert r.status_code == 200 and [p["name"] for p in r.json()["players"]] == ["ann-1", "ann-2", "bob"], r.text
    # photos named after their files are made unique once their tableaux are numbered: two sent
    # as image.jpg, the first of two tableaux, were refused as "image-2" beside "image 2" (a review)
    twins = [("photos", photo(two_tableaux, "image.jpg")), ("photos", photo(photo_set[0], "image.jpg"))]
    r = client.post("/api/game", files=twins)
    names = [p["name"] for p in r.json()["players"]]
    assert r.status_code == 200 and names == ["image-1", "image-2", "image 3"], r.text  # ("image 2" is "image-2")
    r = client.post("/api/game", files=twins[::-1])
    assert r.status_code == 200 and [p["name"] for p in r.json()["players"]][1:] == ["image 2-1", "image 2-2"], r.text


def test_a_game_of_photos_all_named_image_jpg_gets_a_player_each(client, photo_set):
    # iPhones send every photo as image.jpg: the players were named after the files, and the
    # game was refused ("player names must differ; repeated: image"). Names given are kept as given.
    files = [("photos", photo(s, "image.jpg")) for s in photo_set[:3]]
    r = client.post("/api/game", files=files)
    assert r.status_code == 200, r.text
    assert [p["name"] for p in r.json()["players"]] == ["image", "image 2", "image 3"]
    r = client.post("/api/game", files=files[:2], data={"names": ["Ann", "Ann"]})
    assert r.status_code == 422 and "repeated: Ann" in r.json()["detail"]
    # Names a room would refuse as too alike are two players no more than there (an attack on a
    # running server: "Alice" and "alice" both winners of one game)
    # a name taken from a file is made unique as a room tells names apart: no refusal of a name
    # no one typed ("Ann" given, ann.jpg unnamed; Photo.jpg and photo.jpg)
    r = client.post("/api/game", files=[files[0], ("photos", photo(photo_set[1], "ann.jpg"))], data={"names": ["Ann", ""]})
    assert r.status_code == 200 and [p["name"] for p in r.json()["players"]] == ["Ann", "ann 2"], r.text
    # ... whichever photo comes first (ann.jpg before the photo named "Ann" was refused: "repeated: ann, Ann")
    r = client.post("/api/game", files=[("photos", photo(photo_set[1], "ann.jpg")), files[0]], data={"names": ["", "Ann"]})
    assert r.status_code == 200 and [p["name"] for p in r.json()["players"]] == ["ann 2", "Ann"], r.text
    # more names than photos: said, not dropped without a word (an attack)
    r = client.post("/api/game", files=files[:1], data={"names": ["A", "B", "C"]})
    assert r.status_code == 422 and r.json()["detail"].startswith("more names (3) than photos: one name a photo"), r.text
    r = client.post("/api/game", files=files[:1], data={"names": ["Ann", "", " "]})  # a form's empty boxes
    assert r.status_code == 200 and [p["name"] for p in r.json()["players"]] == ["Ann"], r.text
    r = client.post("/api/game", files=files[:2], data={"names": ["Ann", "Bob", *[""] * 9]})  # (not "at most 8 names")
    assert r.status_code == 200 and [p["name"] for p in r.json()["players"]] == ["Ann", "Bob"], r.text
    r = client.post("/api/game", files=[("photos", photo(photo_set[0], "Photo.jpg")), ("photos", photo(photo_set[1], "photo.jpg"))])
    assert r.status_code == 200 and [p["name"] for p in r.json()["players"]] == ["Photo", "photo 2"], r.text
    r = client.post("/api/game", files=files[:2], data={"names": ["Ann", "ann"]})
    assert r.status_code == 422 and "repeated: Ann, ann" in r.json()["detail"]
    grid = (EXAMPLES / "alice.txt").read_text()
    for twins in (["Alice", "alice"], ["Alice", "\u0251lice"], ["AIice", "Alice"]):
        r = client.post("/api/grid", json={"players": [{"name": n, "grid": grid} for n in twins]})
        assert r.status_code == 422 and "player names must differ" in r.json()["detail"], (twins, r.text)
    r = client.post("/api/grid", json={"players": [{"name": n, "grid": grid} for n in ("Alice", "Alicia")]})
    assert r.status_code == 200


def test_a_games_photos_keep_only_what_is_drawn_on_while_its_other_photos_are_read(client, photo_set, monkeypatch):
    # Each photo's read was kept whole until the game's last was read: its file and its reading copy
    # (12 games of four 20 MB photos held 937 MB; the same photos one by one, 120 MB: an attack on a
    # running server). Once read, a photo keeps the overlay's copy of it, and no file.
    from ecoscore.service.routes import score
    from ecoscore.vision.overlay import MAX_SIDE

    kept = []
    scored = score.score_reads

    def looked_at(reads, **kwargs):
        kept.extend((len(read.photo.data), max(read.photo.image.shape[:2])) for _, read in reads)
        return scored(reads, **kwargs)

    monkeypatch.setattr(score, "score_reads", looked_at)
    files = [("photos", ("a.jpg", photo_set[0].jpeg, "image/jpeg")), ("photos", ("b.jpg", photo_set[1].jpeg, "image/jpeg"))]
    r = client.post("/api/game", files=files)
    assert r.status_code == 200, r.text
    assert len(kept) == 2 and all(data == 0 and side <= MAX_SIDE for data, side in kept), kept
    assert all(client.get(p["photo_url"]).status_code == 200 for p in r.json()["players"])
