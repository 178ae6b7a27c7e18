"""What the page needs from the service: a QR code an <img> can show, the worker at the root,
iPhone photos, the plain photo to draw on, and a room correction that keeps the other doubts."""
import io

import pytest
from conftest import needs_models
from fastapi.testclient import TestClient
from helpers import EXAMPLES, spoil

from ecoscore.service.app import Settings, create_app

pytestmark = needs_models


@pytest.fixture()
def client(tmp_path, reader):
    with TestClient(create_app(Settings(db_url=f"sqlite:///{tmp_path / 'db.sqlite3'}"), reader=reader)) as c:
        yield c


def test_qr_svg_is_standalone(client):
    room = client.post("/api/rooms", json={"mode": "game"}).json()
    svg = client.get(room["qr_url"]).text
    assert svg.startswith('<svg xmlns="http://www.w3.org/2000/svg"')


def test_worker_and_manifest_at_the_root(client):
    sw = client.get("/sw.js")
    assert sw.status_code == 200 and "javascript" in sw.headers["content-type"] and "caches" in sw.text
    assert client.get("/manifest.webmanifest").json()["scope"] == "/"


def test_heic_photos_are_read(client, photo_set):
    from PIL import Image
    from pillow_heif import register_heif_opener

    register_heif_opener()
    out = io.BytesIO()
    Image.open(io.BytesIO(photo_set[0].jpeg)).save(out, "HEIF", quality=90)
    r = client.post("/api/photo", files={"photo": ("IMG_0001.HEIC", out.getvalue(), "image/heic")})
    assert r.status_code == 200, r.text
    p = r.json()["players"][0]
    assert p["photo_url"] and len(p["photo_size"]) == 2 and client.get(p["photo_url"]).content[:2] == b"\xff\xd8"


def test_a_room_correction_keeps_the_other_doubts(client, photo_set, reader):
    rid = client.post("/api/rooms", json={"mode": "game"}).json()["id"]
    r = client.post(f"/api/rooms/{rid}/photo", files={"photo": ("a.jpg", spoil(photo_set[1].jpeg, reader, 3), "image/jpeg")},
                    data={"name": "ann"})
    token, version, ann = r.json()["token"], r.json()["version"], r.json()["room"]["game"]["players"][0]
    doubtful = [(i, j) for i, row in enumerate(ann["cells"]) for j, cell in enumerate(row) if cell["doubts"]]
    assert len(doubtful) >= 2
    grid = [row[:] for row in ann["grid"]]
    i, j = doubtful[0]
    grid[i][j] = "meadow" if grid[i][j] != "meadow" else "bee"
    after = client.put(f"/api/rooms/{rid}/players/ann/grid", json={"grid": grid},
                       headers={"X-Player-Token": token, "If-Match": f'"{version}"'}).json()
    p = after["room"]["game"]["players"][0]
    assert p["grid"][i][j] == grid[i][j] and p["corrected"] == [[i, j]]
    assert not p["cells"][i][j]["doubts"] and p["cells"][i][j]["type"] == ann["cells"][i][j]["type"]  # as read
    assert all(p["cells"][a][b]["doubts"] for a, b in doubtful[1:])
    assert not any(d.startswith(f"row {i + 1}, col {j + 1}: ") for d in p["doubts"]) and len(p["doubts"]) >= len(doubtful) - 1
    # back to what was read: the doubt comes back
    back = client.put(f"/api/rooms/{rid}/players/ann/grid", json={"grid": ann["grid"]},
                      headers={"X-Player-Token": token, "If-Match": f'"{after["version"]}"'}).json()
    assert back["room"]["game"]["players"][0]["doubts"] == ann["doubts"]


def test_a_room_card_kept_as_read_loses_its_doubts_until_the_player_takes_the_keep_back(client, photo_set, reader):
    rid = client.post("/api/rooms", json={"mode": "game"}).json()["id"]
    r = client.post(f"/api/rooms/{rid}/photo", files={"photo": ("a.jpg", spoil(photo_set[1].jpeg, reader, 3), "image/jpeg")},
                    data={"name": "ann"})
    token, version, ann = r.json()["token"], r.json()["version"], r.json()["room"]["game"]["players"][0]
    doubtful = [[i, j] for i, row in enumerate(ann["cells"]) for j, cell in enumerate(row) if cell["doubts"]]
    assert len(doubtful) >= 2 and r.json()["room"]["game"]["final"] is False
    # two more players, read from grids (a game of 3-6 waits for its third: never final before)
    for other, grid in (("bob", "bruno.txt"), ("cleo", "chiara.txt")):
        added = client.put(f"/api/rooms/{rid}/players/{other}/grid", json={"grid": (EXAMPLES / grid).read_text()})
        assert added.status_code == 200, added.text

    def put(body: dict, version: int) -> dict:
        r = client.put(f"/api/rooms/{rid}/players/ann/grid", json=body,
                       headers={"X-Player-Token": token, "If-Match": f'"{version}"'})
        assert r.status_code == 200, r.text
        return r.json()

    # every doubtful card kept: no cell in doubt, no cell doubt left in the read's list, the grid as read
    after = put({"grid": ann["grid"], "kept": doubtful}, version)
    p = after["room"]["game"]["players"][0]
    assert p["kept"] == doubtful and p["corrected"] == [] and p["grid"] == ann["grid"]
    assert not any(cell["doubts"] for row in p["cells"] for cell in row)
    assert not any(d.startswith(f"row {i + 1}, col {j + 1}: ") for i, j in doubtful for d in p["doubts"])
    assert after["room"]["game"]["final"] is (not p["doubts"])  # only the photo's own doubts may remain
    # a later correction that does not say what is kept keeps it; one of the kept cells corrected
    # moves from kept to corrected
    grid = [row[:] for row in ann["grid"]]
    i, j = doubtful[0]
    grid[i][j] = "meadow" if grid[i][j] != "meadow" else "bee"
    later = put({"grid": grid}, after["version"])
    p = later["room"]["game"]["players"][0]
    assert p["corrected"] == [[i, j]] and p["kept"] == doubtful[1:]
    # ... and set back to what was read, it is not kept again: its doubt is back
    again = put({"grid": ann["grid"]}, later["version"])
    p = again["room"]["game"]["players"][0]
    assert p["corrected"] == [] and p["kept"] == doubtful[1:] and p["cells"][i][j]["doubts"]
    # a cell read with no doubt is not kept (nothing to drop)
    sure = next([r, c] for r, row in enumerate(ann["cells"]) for c, cell in enumerate(row) if not cell["doubts"])
    unsure = put({"grid": ann["grid"], "kept": [sure]}, again["version"])
    assert unsure["room"]["game"]["players"][0]["kept"] == []
    # the keep taken back (Undo): the doubts come back
    back = put({"grid": ann["grid"], "kept": []}, unsure["version"])
    p = back["room"]["game"]["players"][0]
    assert p["kept"] == [] and p["doubts"] == ann["doubts"] and back["room"]["game"]["final"] is False


@pytest.mark.parametrize("kept", [[[4, 0]], [[0, 5]], [[-1, 2]], [[0, 0, 0]], [[0, 0]] * 21, "row 1", [[True, False]],
                                  [["0", "1"]], [[0.5, 1]], [[2**70, 0]], [None]])
def test_a_kept_cell_off_the_grid_is_refused_and_nothing_is_written(client, kept):
    rid = client.post("/api/rooms", json={"mode": "game"}).json()["id"]
    grid = ". . . . .\n" * 4
    r = client.put(f"/api/rooms/{rid}/players/ann/grid", json={"grid": grid, "kept": kept})
    assert r.status_code == 422, r.text
    assert client.get(f"/api/rooms/{rid}").json()["players"] == []


@pytest.mark.parametrize("checked", ["yes", 1, "true", [True], {"x": 1}])
def test_a_checked_that_is_not_a_boolean_is_refused_and_nothing_is_written(client, checked):
    rid = client.post("/api/rooms", json={"mode": "game"}).json()["id"]
    r = client.put(f"/api/rooms/{rid}/players/ann/grid", json={"grid": ". . . . .\n" * 4, "checked": checked})
    assert r.status_code == 422, r.text
    assert client.get(f"/api/rooms/{rid}").json()["players"] == []
