"""Issue 17, part 2: rooms with owners, versions, names, retention, links, logs and headers."""
import io
import json
import logging
import threading
import time
from urllib.parse import quote

import pytest
import segno
from fastapi.testclient import TestClient
from helpers import EXAMPLES
from service_helpers import SlowReader

from ecoscore.service.app import Settings, create_app
from ecoscore.service.store import Store

pytestmark = pytest.mark.slow  # models, renders or a server: the full suite only

GRIDS = {n: (EXAMPLES / f"{n}.txt").read_text() for n in ("alice", "bruno", "chiara")}
EMPTY = ". . . . .\n" * 4


@pytest.fixture()
def settings(db_url):
    return Settings(db_url=db_url, public_url="https://eco.example/")


@pytest.fixture()
def client(settings):
    with TestClient(create_app(settings, reader=SlowReader())) as c:
        yield c


def join(client, rid, name, grid=EMPTY):
    r = client.put(f"/api/rooms/{rid}/players/{name}/grid", json={"grid": grid})
    assert r.status_code == 200, r.text
    return r.json()


def test_room_settings_need_the_creators_token(client):
    room = client.post("/api/rooms", json={"mode": "two-player"}).json()
    rid, owner = room["id"], room["owner_token"]
    alice = join(client, rid, "alice", GRIDS["alice"])
    for token in (None, alice["token"], "guess"):
        headers = {"X-Room-Token": token} if token else {}
        assert client.put(f"/api/rooms/{rid}/neutral", json={"streams": 6, "wolves": 0}, headers=headers).status_code == 403
    assert "owner_token" not in client.get(f"/api/rooms/{rid}").json()  # shown once, to the creator
    r = client.put(f"/api/rooms/{rid}/neutral", json={"streams": 6, "wolves": 0}, headers={"X-Room-Token": owner})
    assert r.status_code == 200 and r.json()["neutral"] == [6, 0]
    # with the room's version: a stale one is a conflict
    stale = room["version"]
    r = client.put(f"/api/rooms/{rid}/neutral", json={"streams": 1, "wolves": 1},
                   headers={"X-Room-Token": owner, "If-Match": f'"{stale}"'})
    assert r.status_code == 409


def test_a_room_started_with_no_body_is_a_game_room_as_with_an_empty_one(client):
    # Every field has a default, so {} started a room and no body was "body: missing" (an attack).
    for kw in ({}, {"json": {}}):
        r = client.post("/api/rooms", **kw)
        assert r.status_code == 200 and r.json()["mode"] == "game" and r.json()["owner_token"], r.text
    r = client.post("/api/rooms", content=b"{", headers={"content-type": "application/json"})
    assert r.status_code == 422 and r.json()["detail"][0]["msg"] == "the body is not valid JSON", r.text


def test_a_duel_waits_for_its_neutral_pile_and_a_solo_game_for_its_bot_before_it_is_final(client):
    # A two-player room's pile was 0 and 0 before its creator said it, and the game final with
    # a winner the pile's majorities may change (49-42 for ann; 40-42 with the pile's 2 streams);
    # a solo room was final before the bot's grid (an attack on a running server).
    duel = client.post("/api/rooms", json={"mode": "two-player"}).json()
    # said before anyone joins too: a guest's page could not tell a pile not given from 0 and 0
    assert duel["waiting_for"] == "neutral" and duel["game"] is None and duel["neutral_given"] is False
    for name in ("ann", "bob"):
        join(client, duel["id"], name, GRIDS["alice" if name == "ann" else "bruno"])
    doc = client.get(f"/api/rooms/{duel['id']}").json()
    assert doc["waiting_for"] == "neutral" and doc["game"]["final"] is False
    r = client.put(f"/api/rooms/{duel['id']}/neutral", json={"streams": 0, "wolves": 0},
                   headers={"X-Room-Token": duel["owner_token"]})
    assert r.status_code == 200 and r.json()["waiting_for"] is None and r.json()["game"]["final"] is True
    assert r.json()["neutral_given"] is True
    solo = client.post("/api/rooms", json={"mode": "solo"}).json()
    assert solo["waiting_for"] == "bot" and solo["neutral_given"] is False
    join(client, solo["id"], "ann", GRIDS["alice"])
    doc = client.get(f"/api/rooms/{solo['id']}").json()
    assert doc["waiting_for"] == "bot" and doc["game"]["final"] is False and doc["game"]["solo"] is None
    r = client.put(f"/api/rooms/{solo['id']}/bot", json={"grid": GRIDS["bruno"]}, headers={"X-Room-Token": solo["owner_token"]})
    assert r.status_code == 200, r.text
    assert r.json()["waiting_for"] is None and r.json()["game"]["final"] is True and r.json()["game"]["solo"]


def test_a_game_waits_for_its_third_player_and_a_duel_for_its_second(client):
    # "Winner: Anna" in a two-player room, its pile given, before Bob's photo (a newcomer's walk):
    # a game of one is won by no one.
    duel = client.post("/api/rooms", json={"mode": "two-player"}).json()
    lone = client.post("/api/rooms", json={"mode": "two-player"}).json()
    join(client, lone["id"], "ann", GRIDS["alice"])
    doc = client.get(f"/api/rooms/{lone['id']}").json()  # one player, no pile: "players" first, the pile not given
    assert doc["waiting_for"] == "players" and doc["neutral_given"] is False and doc["neutral"] == [0, 0]
    r = client.put(f"/api/rooms/{duel['id']}/neutral", json={"streams": 0, "wolves": 0},
                   headers={"X-Room-Token": duel["owner_token"]})
    assert r.status_code == 200, r.text
    join(client, duel["id"], "ann", GRIDS["alice"])
    doc = client.get(f"/api/rooms/{duel['id']}").json()
    assert doc["waiting_for"] == "players" and doc["game"]["final"] is False
    # the pile given is said while the second player is awaited ("players" first: a page could not
    # tell 0 and 0 given from none given, and showed 0 and 0)
    assert doc["neutral_given"] is True and doc["neutral"] == [0, 0]
    join(client, duel["id"], "bob", GRIDS["bruno"])
    doc = client.get(f"/api/rooms/{duel['id']}").json()
    assert doc["waiting_for"] is None and doc["game"]["final"] is True and doc["game"]["winners"] == ["ann"]
    game = client.post("/api/rooms", json={"mode": "game"}).json()
    assert game["waiting_for"] is None  # no one yet: nothing to say
    join(client, game["id"], "ann", GRIDS["alice"])
    doc = client.get(f"/api/rooms/{game['id']}").json()
    assert doc["waiting_for"] == "players" and doc["game"]["final"] is False
    r = client.get(f"/api/rooms/{game['id']}?lang=cs")
    assert r.json()["waiting_for"] == "players"
    # Two in a game of 3-6 (two players play with the neutral pile, a room of their own): it
    # named a winner while the third was still taking their photo (an Italian walk).
    join(client, game["id"], "bob", GRIDS["bruno"])
    doc = client.get(f"/api/rooms/{game['id']}").json()
    assert doc["waiting_for"] == "players" and doc["game"]["final"] is False
    join(client, game["id"], "cleo", GRIDS["chiara"])
    doc = client.get(f"/api/rooms/{game['id']}").json()
    assert doc["waiting_for"] is None and doc["game"]["final"] is True
    assert [p["total"] for p in doc["game"]["players"]] == [50, 36, 43]  # the rulebook's game


def test_a_game_room_of_a_service_seating_two_waits_for_no_third(settings):
    # A service set to seat 2 a room would have its game rooms wait for ever (a review).
    with TestClient(create_app(settings.model_copy(update={"max_players": 2}), reader=SlowReader())) as client:
        game = client.post("/api/rooms", json={"mode": "game"}).json()
        for name, grid in (("ann", "alice"), ("bob", "bruno")):
            join(client, game["id"], name, GRIDS[grid])
        doc = client.get(f"/api/rooms/{game['id']}").json()
        assert doc["seats"] == 2 and doc["waiting_for"] is None and doc["game"]["final"] is True


def test_players_rename_and_leave_with_their_token_the_creator_removes(client):
    room = client.post("/api/rooms", json={"mode": "game"}).json()
    rid, owner = room["id"], room["owner_token"]
    ann, ben = join(client, rid, "ann"), join(client, rid, "ben")
    # rename: own token and version
    assert client.patch(f"/api/rooms/{rid}/players/ann", json={"name": "Anna"},
                        headers={"X-Player-Token": ben["token"], "If-Match": '"1"'}).status_code == 403
    assert client.patch(f"/api/rooms/{rid}/players/ann", json={"name": "Anna"},
                        headers={"X-Player-Token": ann["token"]}).status_code == 428
    r = client.patch(f"/api/rooms/{rid}/players/ann", json={"name": "Anna"},
                     headers={"X-Player-Token": ann["token"], "If-Match": f'"{ann["version"]}"'})
    # renamed, a version no player of the new name had: the room's (ann 1, ben 2, this write 3)
    assert r.status_code == 200 and r.json()["room"]["players"] == ["Anna", "ben"] and r.headers["ETag"] == '"3"'
    assert client.patch(f"/api/rooms/{rid}/players/Anna", json={"name": "BEN"},
                        headers={"X-Player-Token": ann["token"], "If-Match": '"3"'}).status_code == 422  # taken
    r = client.patch(f"/api/rooms/{rid}/players/Anna", json={"name": "ben"},
                     headers={"X-Player-Token": ann["token"], "If-Match": '"3"'})  # ("'ben' is too like 'ben'": an attack)
    assert r.status_code == 422 and r.json()["detail"] == "'ben' is already in this room; choose another name", r.text
    # a correction made on ann's version before the rename (her other phone): no second tableau
    r = client.put(f"/api/rooms/{rid}/players/ann/grid", json={"grid": GRIDS["alice"]},
                   headers={"X-Player-Token": ann["token"], "If-Match": f'"{ann["version"]}"'})
    assert r.status_code == 412 and "no longer in this room" in r.json()["detail"], r.text
    # ... and a rename or a removal made on it is answered the same (they said 404; an attack)
    for r in (client.patch(f"/api/rooms/{rid}/players/ann", json={"name": "Annie"},
                           headers={"X-Player-Token": ann["token"], "If-Match": f'"{ann["version"]}"'}),
              client.delete(f"/api/rooms/{rid}/players/ann", headers={"X-Room-Token": owner,
                                                                      "If-Match": f'"{ann["version"]}"'})):
        assert r.status_code == 412 and "no longer in this room" in r.json()["detail"], r.text
    assert client.get(f"/api/rooms/{rid}").json()["players"] == ["Anna", "ben"]
    # a newcomer taking the old name never meets the old player's versions: a stale removal
    # made on ann's version does not remove them
    newcomer = join(client, rid, "ann")
    assert newcomer["version"] > ann["version"]
    r = client.delete(f"/api/rooms/{rid}/players/ann", headers={"X-Room-Token": owner, "If-Match": f'"{ann["version"]}"'})
    assert r.status_code == 409 and "ann" in client.get(f"/api/rooms/{rid}").json()["players"]
    assert client.delete(f"/api/rooms/{rid}/players/ann", headers={"X-Room-Token": owner}).status_code == 200
    # a removal with a stale version is a conflict, not done
    r = client.delete(f"/api/rooms/{rid}/players/ben", headers={"X-Room-Token": owner, "If-Match": '"999"'})
    assert r.status_code == 409 and client.get(f"/api/rooms/{rid}").json()["players"] == ["Anna", "ben"]
    # remove: not by another player; by oneself; by the creator
    assert client.delete(f"/api/rooms/{rid}/players/ben", headers={"X-Player-Token": ann["token"]}).status_code == 403
    assert client.delete(f"/api/rooms/{rid}/players/Anna", headers={"X-Player-Token": ann["token"]}).status_code == 200
    r = client.delete(f"/api/rooms/{rid}/players/ben", headers={"X-Room-Token": owner})
    assert r.status_code == 200 and r.json()["room"]["players"] == []
    assert client.delete(f"/api/rooms/{rid}/players/ben", headers={"X-Room-Token": owner}).status_code == 404


def test_a_stale_removal_of_a_player_who_left_does_not_remove_the_one_renamed_to_their_name(client):
    # X joined (version 1), B joined (2); the creator's page saw B at 2. B left, X renamed
    # themselves "B": kept at their own version 1 + 1 = 2, the creator's stale removal of the
    # B who left removed X (an attack on a running server).
    room = client.post("/api/rooms", json={}).json()
    rid, owner = room["id"], room["owner_token"]
    x, b = join(client, rid, "X"), join(client, rid, "B")
    assert client.delete(f"/api/rooms/{rid}/players/B", headers={"X-Player-Token": b["token"]}).status_code == 200
    r = client.patch(f"/api/rooms/{rid}/players/X", json={"name": "B"},
                     headers={"X-Player-Token": x["token"], "If-Match": f'"{x["version"]}"'})
    assert r.status_code == 200 and int(r.headers["ETag"].strip('"')) > b["version"]
    r = client.delete(f"/api/rooms/{rid}/players/B", headers={"X-Room-Token": owner, "If-Match": f'"{b["version"]}"'})
    assert r.status_code == 409 and client.get(f"/api/rooms/{rid}").json()["players"] == ["B"]


# Emoji as phones type them: "Ana ❤️" (a heart and the emoji style) and "Eva 👩‍💻" (two emoji
# joined) were refused as holding invisible characters (an attack on a running server's find).
@pytest.mark.parametrize("name, stored", [("  Alice  ", "Alice"), ("Ｊｏｓé", "José"), ("Zoë  Li", "Zoë Li"),
                                          ("Ana ❤️", "Ana ❤️"), ("Eva 👩‍💻", "Eva 👩‍💻"), ("🏳️‍🌈 Jo", "🏳️‍🌈 Jo"),
                                          ("Ivo 👍🏽", "Ivo 👍🏽"), ("Nguye\u0302\u0303n", "Nguyễn"),
                                          # a mark NFC cannot compose onto its letter was counted a
                                          # script of its own: "mixes scripts" (Yoruba)
                                          ("Ẹ\u0301mọ\u0301", "Ẹ́mọ́"), ("Adébáyọ\u0300", "Adébáyọ̀")])
def test_names_are_normalised(client, name, stored):
    rid = client.post("/api/rooms", json={}).json()["id"]
    assert join(client, rid, name)["name"] == stored


@pytest.mark.parametrize("name, status, why", [
    ("alice", 422, "too like"), ("ALICE ", 422, "too like"), ("Аlice", 422, "mixes scripts"),  # Cyrillic А
    ("Ａｌｉｃｅ", 403, "already has a tableau"),  # full width: NFKC makes it Alice herself
    ("x" * 100, 422, "at most 40"), ("x" * 6000, 422, "at most 200"), ("a\u200bb", 422, "invisible"),
    # an attack on a running server: Latin look-alikes, letters and marks that show nothing, dots
    ("ɑlice", 422, "too like"), ("ᴀlice", 422, "too like"), ("\u3164", 422, "invisible"), ("\u2800", 422, "invisible"),
    ("Alice\u034f", 422, "invisible"), ("%2E%2E", 422, "only dots"), ("·", 422, "a letter or a digit"),
    # plain ASCII look-alikes in a phone's font (a second attack): capital I and 1 for l
    ("AIice", 422, "too like"), ("A1ice", 422, "too like"),
    # bytes that are not UTF-8 in the path, decoded as U+FFFD: "A%ff" was seated as "A\ufffd" (a third)
    ("A%ff", 422, "not UTF-8"), ("B%C0%AF", 422, "not UTF-8"),
    # an emoji's joiners anywhere but in an emoji show nothing
    ("Ali\u200dce", 422, "invisible"), ("Bob\u200d", 422, "invisible"), ("Bob\ufe0f", 422, "invisible"),
    ("\u200d❤", 422, "invisible"),
    # marks stacked, or before any letter: said so, not "mixes scripts" (an attack)
    ("a" + "\u0301" * 39, 422, "more than two accents"), ("\u0301Bob", 422, "begin with an accent"),
    ("a\u0301\u0302\u0303", 422, "more than two accents"), ("\u20ddBob", 422, "begin with an accent"),
    # marks on a letter of another script than the rest still mix scripts
    ("Аlic\u0301e", 422, "mixes scripts"), ("Alic\u0435\u0301", 422, "mixes scripts"),
])
def test_names_that_clash_or_deceive_are_refused(client, name, status, why):
    # (each beside Alice alone; an emoji's joiners do not tell two names apart: test below)
    rid = client.post("/api/rooms", json={}).json()["id"]
    join(client, rid, "Alice")
    r = client.put(f"/api/rooms/{rid}/players/{name}/grid", json={"grid": EMPTY})
    assert r.status_code == status and why in str(r.json()["detail"]), r.text
    assert client.get(f"/api/rooms/{rid}").json()["players"] == ["Alice"]


def test_names_alike_but_for_a_look_alike_pair_of_letters_clash_and_names_unlike_do_not(client):
    rid = client.post("/api/rooms", json={}).json()["id"]
    join(client, rid, "Emma")
    for name in ("Emrna", "Ernrna"):
        r = client.put(f"/api/rooms/{rid}/players/{name}/grid", json={"grid": EMPTY})
        assert r.status_code == 422 and "too like" in r.json()["detail"], (name, r.text)
    for name in ("Ema", "Irena", "Bruno"):  # alike letters in other places make other names
        join(client, rid, name)


def test_names_alike_but_for_accents_clash(client):
    # "Kacka" typed without háčky sat beside "Kačka": one player counted twice (a walk, in Czech)
    rid = client.post("/api/rooms", json={}).json()["id"]
    join(client, rid, "Kačka")
    join(client, rid, "Алёна")
    for name in ("Kacka", "KACKA", "Алена", "Kačká"):
        r = client.put(f"/api/rooms/{rid}/players/{name}/grid", json={"grid": EMPTY})
        assert r.status_code == 422 and "too like" in r.json()["detail"], (name, r.text)
    for name in ("Katka", "Alena"):  # other letters, other names (Latin "Alena" beside Cyrillic "Алёна")
        join(client, rid, name)


def test_names_alike_but_for_case_clash_in_every_script(client):
    # "Борис" and "борис" sat in one room as two players (a walk, in Russian): "Б" looks like a
    # Latin b and "б" like none, so the names' Latin look-alikes differed where their cases did
    rid = client.post("/api/rooms", json={}).json()["id"]
    for name in ("Борис", "Вика", "Юля", "Šárka", "Èlia"):
        join(client, rid, name)
    for name in ("борис", "БОРИС", "вика", "ЮЛЯ", "юля", "ŠÁRKA", "èlia"):
        r = client.put(f"/api/rooms/{rid}/players/{name}/grid", json={"grid": EMPTY})
        assert r.status_code == 422 and "too like" in r.json()["detail"], (name, r.text)
    rid = client.post("/api/rooms", json={}).json()["id"]  # (a room seats 6)
    for name in ("Борис", "Вика", "Šárka", "Борислав", "Вита", "Sára"):  # other names
        join(client, rid, name)


def test_names_alike_but_for_a_look_alike_sign_clash(client):
    rid = client.post("/api/rooms", json={}).json()["id"]
    join(client, rid, "O'Neil")
    join(client, rid, "Jean-Luc")
    for name in ("O\u2019Neil", "Jean\u2010Luc", "Jean\u2212Luc"):
        r = client.put(f"/api/rooms/{rid}/players/{name}/grid", json={"grid": EMPTY})
        assert r.status_code == 422 and "too like" in r.json()["detail"], (name, r.text)


def test_names_alike_but_for_punctuation_and_spaces_clash(client):
    # "Ann." (a phone's double space), "(Ann)", "A-nn" and "An n" each sat beside "Ann", and the
    # majorities counted her twice; "Bot." sat beside the solo bot (an attack)
    rid = client.post("/api/rooms", json={}).json()["id"]
    join(client, rid, "Ann")
    for name in ("Ann.", "Ann!", "Ann'", "(Ann)", "A-nn", "An n", "ANN?", "Ánn…"):
        r = client.put(f"/api/rooms/{rid}/players/{quote(name)}/grid", json={"grid": EMPTY})
        assert r.status_code == 422 and "too like" in r.json()["detail"], (name, r.text)
    for name in ("Anna", "Ann 🐻", "Jan"):  # other letters, or a symbol beside the name: other names
        join(client, rid, name)
    solo = client.post("/api/rooms", json={"mode": "solo"}).json()["id"]
    r = client.put(f"/api/rooms/{solo}/players/Bot./grid", json={"grid": EMPTY})
    assert r.status_code == 422 and "reserved" in r.json()["detail"], r.text


def test_if_match_star_writes_on_whatever_version_there_is_and_never_on_a_gone_player(client):
    # RFC 9110's "*": a deliberate overwrite by a script (it was a 422 "expected a version").
    room = client.post("/api/rooms", json={"mode": "game"}).json()
    rid = room["id"]
    ann = join(client, rid, "ann")
    for _ in range(2):  # whatever version it has come to
        r = client.put(f"/api/rooms/{rid}/players/ann/grid", json={"grid": GRIDS["alice"]},
                       headers={"X-Player-Token": ann["token"], "If-Match": "*"})
        assert r.status_code == 200, r.text
    assert client.get(f"/api/rooms/{rid}").json()["versions"]["ann"] == ann["version"] + 2
    duel = client.post("/api/rooms", json={"mode": "two-player"}).json()
    join(client, duel["id"], "bea")  # the room's version moves on
    r = client.put(f"/api/rooms/{duel['id']}/neutral", json={"streams": 1, "wolves": 1},
                   headers={"X-Room-Token": duel["owner_token"], "If-Match": " * "})
    assert r.status_code == 200 and r.json()["neutral"] == [1, 1], r.text
    # it still needs someone there: a tableau never comes back under a name that left
    assert client.delete(f"/api/rooms/{rid}/players/ann", headers={"X-Player-Token": ann["token"]}).status_code == 200
    r = client.put(f"/api/rooms/{rid}/players/ann/grid", json={"grid": GRIDS["alice"]},
                   headers={"X-Player-Token": ann["token"], "If-Match": "*"})
    assert r.status_code == 412 and client.get(f"/api/rooms/{rid}").json()["players"] == []
    assert client.put(f"/api/rooms/{rid}/players/ann/grid", json={"grid": GRIDS["alice"]},
                      headers={"If-Match": "**"}).status_code == 422


def test_a_game_room_seats_as_many_as_a_game_of_ecosystem(client):
    # a seventh tableau would pass the deck's 130 cards: a seventh and an eighth player sat in a "3-6 players" room
    rid = client.post("/api/rooms", json={}).json()["id"]
    for k in range(6):
        join(client, rid, f"p{k}")
    r = client.put(f"/api/rooms/{rid}/players/p6/grid", json={"grid": EMPTY})
    assert r.status_code == 422 and r.json()["detail"] == "a game room seats 6: it is full", r.text


def test_ten_concurrent_corrections_none_lost_silently(client):
    rid = client.post("/api/rooms", json={}).json()["id"]
    me = join(client, rid, "me")
    rows = ["RB . . . .", "TR . . . .", "FX . . . .", "BR . . . .", "DF . . . .",
            "BE . . . .", "EG . . . .", "WF . . . .", "DR . . . .", "MD . . . ."]
    results = [None] * 10

    def correct(k):
        r = client.put(f"/api/rooms/{rid}/players/me/grid", json={"grid": rows[k] + "\n" + ". . . . .\n" * 3},
                       headers={"X-Player-Token": me["token"], "If-Match": f'"{me["version"]}"'})
        results[k] = r.status_code

    threads = [threading.Thread(target=correct, args=(k,)) for k in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == [200] + [409] * 9, results
    kept = results.index(200)
    doc = client.get(f"/api/rooms/{rid}").json()
    assert doc["versions"]["me"] == 2
    assert doc["game"]["players"][0]["grid"][0][0] == client.post(
        "/api/grid", json={"players": [{"name": "x", "grid": rows[kept] + "\n" + ". . . . .\n" * 3}]}
    ).json()["players"][0]["grid"][0][0]
    # without a version a replacement is refused rather than risked
    r = client.put(f"/api/rooms/{rid}/players/me/grid", json={"grid": EMPTY}, headers={"X-Player-Token": me["token"]})
    assert r.status_code == 428


def test_idle_rooms_go_with_their_overlays(settings, client, capsys):
    import time

    from ecoscore.cli import main

    old = client.post("/api/rooms", json={}).json()["id"]
    store = Store(settings.database_url())
    store.put_player(old, "ann", [[None] * 5] * 4, None, b"\xff\xd8jpeg\xff\xd9", None)
    overlay_id = store.room(old).players[0].overlay_id
    assert client.get(f"/api/overlays/{overlay_id}.jpg").status_code == 200
    gone = store.prune(settings.room_idle_days, now=time.time() + (settings.room_idle_days + 1) * 86400)
    assert gone == {"rooms": 1, "players": 1, "overlays": 1, "starts": 1}  # the room's start has left the hour too
    assert client.get(f"/api/rooms/{old}").status_code == 404
    assert client.get(f"/api/overlays/{overlay_id}.jpg").status_code == 404
    # the maintenance command
    fresh = client.post("/api/rooms", json={}).json()["id"]
    assert main(["rooms", "prune", "--days", "1", "--db", settings.database_url()]) == 0
    assert client.get(f"/api/rooms/{fresh}").status_code == 200  # not idle: kept
    assert main(["rooms", "prune", "--days", "0", "--db", settings.database_url()]) == 0
    assert client.get(f"/api/rooms/{fresh}").status_code == 404
    assert "deleted 1 room idle for 0 days" in capsys.readouterr().err


def test_a_rooms_read_stored_in_older_words_is_shown_in_the_pages_words(settings, client):
    """A room's read keeps its doubts as they were read: "the first found was taken as yours",
    stored before 2026-12-05, is said as the one-photo page says the same choice (and so in the
    player's language: the catalogue has only the new words)."""
    rid = client.post("/api/rooms", json={}).json()["id"]
    old = ["this photo holds 2 tableaux: the first found was taken as yours (photograph yours alone to be sure)",
           "row 2, col 3: low confidence: empty 69% (35% at its worst turn), or wolf 9%",
           "row 4, col 1: low confidence: trout 93% (only 89% read another way up), or fox 6%"]
    Store(settings.database_url()).put_player(rid, "ann", [[None] * 5] * 4, {"doubts": old}, b"\xff\xd8jpeg\xff\xd9", None)
    ann = client.get(f"/api/rooms/{rid}?lang=it").json()["game"]["players"][0]
    assert ann["doubts"][0] == ("questa foto contiene 2 ecosistemi: è stato preso come tuo quello con più carte "
                                "(fotografa solo il tuo per andare sul sicuro)")
    assert "vuota 35–69%, oppure lupo 9%" in ann["doubts"][1], ann["doubts"][1]
    assert "trota 89–93%, oppure volpe 6%" in ann["doubts"][2], ann["doubts"][2]


def test_links_and_qr_come_from_the_settings_not_the_host_header(client):
    room = client.post("/api/rooms", json={}, headers={"Host": "evil.example"}).json()
    assert room["link"] == f"https://eco.example/r/{room['id']}"
    qr = client.get(room["qr_url"], headers={"Host": "evil.example"}).text
    expected = io.BytesIO()  # a standalone SVG (with its xmlns), so that an <img> shows it
    segno.make(room["link"], error="m").save(expected, kind="svg", scale=6, border=4, xmldecl=False, light="#fff")
    assert qr == expected.getvalue().decode()
    # A trailing slash is not redirected to a URL built from the Host header (a proxy's upstream).
    r = client.get(f"/r/{room['id']}/", headers={"Host": "evil.example"}, follow_redirects=False)
    assert r.status_code == 404 and "location" not in r.headers


def test_room_codes_stay_out_of_the_access_log(client, caplog):
    rid = client.post("/api/rooms", json={}).json()["id"]
    with caplog.at_level(logging.INFO, logger="ecoscore.access"):
        client.get(f"/api/rooms/{rid}")
        client.get(f"/r/{rid}")
        client.get(f"/api/rooms/{rid}/qr.svg")
    lines = [r.getMessage() for r in caplog.records if r.name == "ecoscore.access"]
    assert len(lines) == 3 and all(rid not in line for line in lines)
    assert "GET /api/rooms/… 200" in lines[0]


def test_security_headers_and_a_page_that_keeps_to_them(client):
    import re
    from pathlib import Path

    for path in ("/", "/health", "/api/rooms/nope", "/static/app.js"):
        h = client.get(path).headers
        assert "frame-ancestors 'none'" in h["content-security-policy"] and "script-src 'self'" in h["content-security-policy"]
        assert h["x-content-type-options"] == "nosniff" and h["referrer-policy"] == "no-referrer"
    static = Path(__file__).resolve().parent.parent / "service" / "static"
    html = (static / "index.html").read_text()
    assert not re.search(r"<script(?![^>]*\bsrc=)", html), "an inline script: the CSP blocks it"
    assert not re.search(r"\son[a-z]+\s*=", html + (static / "app.js").read_text().replace("addEventListener", "")), \
        "an inline event handler: the CSP blocks it"


def test_no_room_is_started_past_the_services_cap_until_idle_ones_are_pruned(settings):
    # Starting a room is one small anonymous request: uncapped, a script filled the store at will.
    import time

    with TestClient(create_app(settings.model_copy(update={"max_rooms": 2}), reader=SlowReader())) as c:
        rooms = [c.post("/api/rooms", json={"mode": "game"}) for _ in range(2)]
        assert [r.status_code for r in rooms] == [200, 200]
        refused = c.post("/api/rooms", json={"mode": "game"})
        assert refused.status_code == 503 and refused.headers["Retry-After"] == "3600"
        assert "at most 2 rooms" in refused.json()["detail"]
        join(c, rooms[0].json()["id"], "Alice")  # the rooms there go on as before
        Store(settings.database_url()).prune(1, now=time.time() + 2 * 86400)
        assert c.post("/api/rooms", json={"mode": "game"}).status_code == 200


def test_a_two_player_room_seats_two_and_a_solo_room_one(client):
    # A third player was let into a two-player room, after which no one had a score ("game":
    # null and an untranslated problem): an attack on a running server.
    for mode, seats in (("two-player", 2), ("solo", 1)):
        rid = client.post("/api/rooms", json={"mode": mode}).json()["id"]
        for k in range(seats):
            join(client, rid, f"p{k}", GRIDS["alice"])
        r = client.put(f"/api/rooms/{rid}/players/extra/grid", json={"grid": GRIDS["bruno"]})
        assert r.status_code == 422 and r.json()["detail"] == f"a {mode} room seats {seats}: it is full", r.text
        doc = client.get(f"/api/rooms/{rid}").json()
        assert [p["name"] for p in doc["game"]["players"] if not p.get("bot")] == [f"p{k}" for k in range(seats)]
        assert doc["seats"] == seats  # said in the room, so a page can say it is full before a photo is sent
    game = client.post("/api/rooms", json={"mode": "game"}).json()
    assert game["seats"] == 6 and game["waiting_for"] is None  # as many as a game of Ecosystem; a game waits for no one


def test_the_access_log_keeps_overlay_ids_out_and_cannot_be_given_forged_lines(client, caplog):
    # An overlay's id shows a player's photo without the room's code; a CR LF in the path wrote
    # a line of the client's choosing into the log (an attack on a running server).
    with caplog.at_level(logging.INFO, logger="ecoscore.access"):
        client.get("/api/overlays/secretid123.jpg")
        client.get("/nothing%0D%0A2026-11-24 13:07:00,001 ecoscore.access 203.0.113.9 GET /admin 200 1 ms")
    lines = [r.getMessage() for r in caplog.records if r.name == "ecoscore.access"]
    assert len(lines) == 2 and "secretid123" not in lines[0] and "/api/overlays/… 404" in lines[0]
    assert "\n" not in lines[1] and "\r" not in lines[1] and "\\x0d\\x0a2026-11-24" in lines[1]


def test_the_picture_routes_document_the_json_body_of_their_404(client):
    # Their 404 answers {"detail": ...} where the OpenAPI document declared no body (an attack
    # checking every answer against the document).
    doc = client.get("/openapi.json").json()
    for path, url in (("/api/rooms/{room_id}/qr.svg", "/api/rooms/nosuchroom/qr.svg"),
                      ("/api/overlays/{overlay_id}.jpg", "/api/overlays/nosuch.jpg")):
        declared = doc["paths"][path]["get"]["responses"]["404"]["content"]["application/json"]["schema"]
        assert declared == {"$ref": "#/components/schemas/Problem"}
        r = client.get(url)
        assert r.status_code == 404 and isinstance(r.json()["detail"], str)


def test_one_client_starts_only_its_share_of_rooms_on_every_worker_and_another_is_not_refused_for_it(settings):
    # 2,000 empty rooms started by one client in 10 s filled the service's rooms, and every other
    # player was refused a new room for 30 days (an attack on a running server). Two apps on one
    # store are two workers (or machines): the share is one, not one each (it was counted in
    # each worker's memory).
    settings = settings.model_copy(update={"rooms_per_client_hour": 3})
    one, two = create_app(settings, reader=SlowReader()), create_app(settings, reader=SlowReader())
    with TestClient(one, client=("203.0.113.5", 5000)) as greedy, \
            TestClient(two, client=("203.0.113.5", 5001)) as greedy_elsewhere, \
            TestClient(two, client=("198.51.100.7", 5000)) as other:
        for c in (greedy, greedy_elsewhere, greedy):
            assert c.post("/api/rooms", json={}).status_code == 200
        for c in (greedy, greedy_elsewhere):
            r = c.post("/api/rooms?lang=cs", json={})
            assert r.status_code == 429 and 0 < int(r.headers["retry-after"]) <= 3600
            assert "zkuste to znovu za 60 min" in r.json()["detail"], r.text
        assert other.post("/api/rooms", json={}).status_code == 200
        # a client refused is answered from the worker's memory until its oldest start leaves the
        # hour: hammering on costs the store no write
        one.state.services.store.create_room = None  # any call would fail now
        r = greedy.post("/api/rooms", json={})
        assert r.status_code == 429 and 3500 < int(r.headers["retry-after"]) <= 3600, r.text


def test_a_client_holding_its_cap_of_rooms_used_today_is_refused_in_its_language(settings):
    # A client's rooms that each kept a player were kept for good: at its hourly share, one
    # script held every place of the store within days (an attack on a running server).
    settings = settings.model_copy(update={"rooms_per_client": 2})
    with TestClient(create_app(settings, reader=SlowReader()), client=("203.0.113.5", 5000)) as club, \
            TestClient(create_app(settings, reader=SlowReader()), client=("198.51.100.7", 5000)) as other:
        for _ in range(2):
            join(club, club.post("/api/rooms", json={}).json()["id"], "ann")
        r = club.post("/api/rooms?lang=it", json={})
        assert r.status_code == 429 and 23 * 3600 < int(r.headers["retry-after"]) <= 24 * 3600, r.text
        assert "riprova tra 24 h" in r.json()["detail"], r.text
        assert other.post("/api/rooms", json={}).status_code == 200
        # asked again, answered from the worker's memory (each refusal took the write lock), in its own words
        club.app.state.services.store.create_room = None  # any call would fail now
        r = club.post("/api/rooms", json={})
        assert r.status_code == 429 and r.json()["detail"].startswith("this device holds 2 rooms"), r.text


def test_a_worker_remembers_whom_it_refused_until_then_and_only_so_many():
    from ecoscore.service import starts

    now = [0.0]
    refusals = starts.Refusals(clock=lambda: now[0])
    assert refusals.wait("rooms", "a") == 0
    refusals.remember("rooms", "a", 100)
    assert (refusals.wait("rooms", "a"), refusals.wait("decks", "a"), refusals.wait("rooms", "b")) == (100, 0, 0)
    now[0] = 99.5
    assert refusals.wait("rooms", "a") == 1
    now[0] = 100.0
    assert refusals.wait("rooms", "a") == 0
    for k in range(starts.MAX_CLIENTS + 5):
        refusals.remember("rooms", f"c{k}", 10)
    assert len(refusals._until) == starts.MAX_CLIENTS and refusals.wait("rooms", "c0") == 0


def test_client_keys_take_an_ipv6_client_by_its_64_and_keep_any_other_key_short():
    from ecoscore.service.starts import MAX_KEY, client_key

    # an IPv6 client by its /64 (it may take any address in it), an IPv4 one mapped into IPv6 as itself
    assert client_key("2001:db8::1") == client_key("2001:db8::beef:2") != client_key("2001:db8:0:1::1")
    assert client_key("::ffff:192.0.2.1") == client_key("192.0.2.1") == "192.0.2.1"
    assert client_key("x" * 10_000) == "x" * MAX_KEY  # a proxy's header passed on: stored short


def test_a_poll_naming_the_rooms_version_is_told_nothing_moved_on_and_a_write_moves_it_on(client, monkeypatch):
    # Every phone in a room polls every two seconds; each answer loaded every player's read and
    # scored the game (a review). Asked with the version it has, a poll is answered from it alone.
    from ecoscore.service.routes import rooms

    room = client.post("/api/rooms", json={"mode": "game"}).json()
    rid = room["id"]
    alice = join(client, rid, "alice", GRIDS["alice"])
    r = client.get(f"/api/rooms/{rid}")
    version = r.json()["version"]
    assert r.headers["ETag"] == f'"{version}"' and version == alice["room"]["version"]
    built = []
    monkeypatch.setattr(rooms, "_room_doc", lambda *a, real=rooms._room_doc: built.append(1) or real(*a))
    etag = f'"{version}"'
    # RFC 9110: any of a list, compared weakly; "*" (the room exists)
    for header in (etag, f"W/{etag}", f'"99", {etag}', "*"):
        same = client.get(f"/api/rooms/{rid}", headers={"If-None-Match": header})
        assert same.status_code == 304 and same.content == b"" and same.headers["ETag"] == etag, header
    # ... and a list on two lines of the header is one list (the second line was not looked at: an attack)
    two_lines = client.get(f"/api/rooms/{rid}", headers=[("If-None-Match", '"x"'), ("If-None-Match", etag)])
    assert two_lines.status_code == 304, two_lines.status_code
    assert built == []  # nothing loaded, nothing scored
    join(client, rid, "bruno", GRIDS["bruno"])  # a write moves the room on
    moved = client.get(f"/api/rooms/{rid}", headers={"If-None-Match": etag})
    assert moved.status_code == 200 and moved.json()["version"] > version
    assert [p["name"] for p in moved.json()["game"]["players"]] == ["alice", "bruno"]
    for junk in ("W/\"x\"", "\"-1\"", "", "x" * 20000, ",".join(["\"1\""] * 5000)):  # never refused: a full answer
        assert client.get(f"/api/rooms/{rid}", headers={"If-None-Match": junk}).status_code == 200
    assert client.get("/api/rooms/nosuchroom1", headers={"If-None-Match": '"1"'}).status_code in (404, 422)


def test_a_writer_may_send_back_a_rooms_etag_with_its_deck_as_if_match():
    # A room with a deck tags its answer "3-1a2b3c4d" (its deck beside its version: room_etag);
    # a client that sends that ETag back as If-Match writes on version 3.
    from fastapi import HTTPException

    from ecoscore.service.deps import _version
    from ecoscore.service.routes.rooms import room_etag
    from ecoscore.vision.deckstore import DeckInfo

    tagged = room_etag(3, DeckInfo("nas-stul", {}, [], False, title="Náš stůl"))
    assert tagged.startswith('"3-') and tagged != room_etag(3, DeckInfo("nas-stul", {}, [], False, title="Jiný"))
    assert _version(tagged) == 3 and _version(f"W/{tagged}") == 3 and _version('"3"') == 3
    with pytest.raises(HTTPException):
        _version('"3-nothex!"')


def test_a_room_photo_that_could_not_be_written_is_refused_before_it_is_read(settings):
    # A full room's, another player's name's, or a stale version's photo was read (the costly
    # part) and then refused as it was written (an attack): now refused before the read.
    reader = SlowReader()
    with TestClient(create_app(settings, reader=reader)) as client:
        rid = client.post("/api/rooms", json={"mode": "solo"}).json()["id"]
        alice = join(client, rid, "alice", GRIDS["alice"])
        jpeg = ("t.jpg", io.BytesIO(b"\xff\xd8\xff\xe0" + b"\0" * 100), "image/jpeg")
        refusals = {
            "full": ({"name": "bruno"}, {}, 422, "seats 1: it is full"),
            "not theirs": ({"name": "alice"}, {}, 403, "only that player can replace it"),
            "no version": ({"name": "alice"}, {"X-Player-Token": alice["token"]}, 428, "needs If-Match"),
            "stale": ({"name": "alice"}, {"X-Player-Token": alice["token"], "If-Match": '"999"'}, 409, "changed meanwhile"),
        }
        for why, (data, headers, status, said) in refusals.items():
            r = client.post(f"/api/rooms/{rid}/photo", files={"photo": jpeg}, data=data, headers=headers)
            assert r.status_code == status and said in r.json()["detail"], (why, r.status_code, r.text)
        assert reader.calls == 0
        # ... and a photo that can be written is read (this reader finds no tableau in any)
        r = client.post(f"/api/rooms/{rid}/photo", files={"photo": jpeg}, data={"name": "alice"},
                        headers={"X-Player-Token": alice["token"], "If-Match": f'"{alice["version"]}"'})
        assert r.status_code == 422 and reader.calls == 1


def test_an_error_the_app_did_not_answer_is_logged_as_the_500_it_becomes(settings, caplog, monkeypatch):
    # Logged as status 0 (a walk: "GET /api/decks 0 92 ms" for a 500).
    from ecoscore.service.routes import rooms

    def broken(*args):
        raise RuntimeError("a bug")

    monkeypatch.setattr(rooms, "_room_doc", broken)
    with TestClient(create_app(settings, reader=SlowReader()), raise_server_exceptions=False) as client:
        with caplog.at_level(logging.INFO, logger="ecoscore.access"):
            assert client.get("/api/rooms/abcdefghij").status_code == 500
    lines = [r.getMessage() for r in caplog.records if r.name == "ecoscore.access"]
    assert any(" GET " in line and " 500 " in line for line in lines), lines


def test_a_database_stopped_and_started_again_is_said_by_health_and_served_again_at_once(tmp_path):
    """PostgreSQL stopped under a running service: /health said "ok" (a load balancer kept sending
    players to it) and, the server back, the pool handed out its dead connections: 1 request in 3
    got a 503 (an organiser's run). Now /health says the database is unreachable, 503, and every
    request is served once the server is back."""
    from pg_helpers import postgres_server, why_not

    if why_not():
        pytest.skip(why_not())
    with postgres_server(max_connections=30) as server:
        settings = Settings(db_url=server.new_database(), public_url="https://eco.example/")
        with TestClient(create_app(settings, reader=SlowReader())) as c:
            rid = c.post("/api/rooms", json={}).json()["id"]
            for _ in range(4):  # the pool holds several connections
                assert c.get(f"/api/rooms/{rid}").status_code == 200
            health = c.get("/health")
            assert health.status_code == 200 and health.json()["database"] == "ok"
            server.stop()  # restarted, with no request meanwhile: the pool's connections are dead
            server.start()
            assert [c.get(f"/api/rooms/{rid}").status_code for _ in range(12)] == [200] * 12
            server.stop()
            time.sleep(1.1)  # /health asks the database at most once a second
            health = c.get("/health")
            assert health.status_code == 503 and health.json()["database"] == "unreachable", health.text
            assert health.json()["status"] == "unavailable" and health.headers["Retry-After"]
            assert c.get(f"/api/rooms/{rid}").status_code == 503
            # the next calls refused at once, not each after the writers' 5 s wait (an organiser's run)
            began = time.monotonic()
            assert [c.get(f"/api/rooms/{rid}").status_code for _ in range(4)] == [503] * 4
            assert time.monotonic() - began < 4
            server.start()
            # served again once the pool's own retry connects (it waits longer between tries the
            # longer the outage: README, about 15 s at most); meanwhile each call is refused at once
            back = time.monotonic()
            while c.get(f"/api/rooms/{rid}").status_code != 200:
                assert time.monotonic() - back < 30
                time.sleep(0.2)
            assert [c.get(f"/api/rooms/{rid}").status_code for _ in range(12)] == [200] * 12
            time.sleep(1.1)  # (/health asks the database at most once a second)
            assert c.get("/health").json()["database"] == "ok"


def test_another_sites_page_cannot_start_a_room_in_its_visitors_browser(client):
    # An empty form posted by any page (a "simple" request: no preflight) started a room, and
    # spent its visitors' quota of rooms (an attack on a running server). Browsers say such a
    # request is cross-site; the page's own are same-origin, and programs send no such header.
    for lang, said in (("en", "another site's page"), ("cs", "stránky jiného webu")):
        r = client.post(f"/api/rooms?lang={lang}", content=b"", headers={"Sec-Fetch-Site": "cross-site",
                                                                         "Content-Type": "text/plain"})
        assert r.status_code == 403 and said in r.json()["detail"], r.text
    for site in ("cross-site", "same-site"):  # same-site: another host of a shared domain
        r = client.post("/api/photo", files={"photo": ("a.jpg", b"x" * 100, "image/jpeg")}, headers={"Sec-Fetch-Site": site})
        assert r.status_code == 403, r.text
    for fetched in ({"Sec-Fetch-Site": "same-origin"}, {"Sec-Fetch-Site": "none"}, {}):
        r = client.post("/api/rooms", json={"mode": "solo"}, headers=fetched)
        assert r.status_code == 200 and r.json()["mode"] == "solo", r.text
    room = client.post("/api/rooms", json={"mode": "game"}).json()
    assert client.get(f"/api/rooms/{room['id']}", headers={"Sec-Fetch-Site": "cross-site"}).status_code == 200  # a link followed


def test_a_control_character_in_an_address_is_a_400_on_either_database(client):
    # "%00" in a room's code or a player's name was a 500 on PostgreSQL (no NUL in its text),
    # its traceback in the log a hundred times the request's size (an attack on a running server).
    rid = client.post("/api/rooms", json={"mode": "game"}).json()["id"]
    join(client, rid, "ann")
    asked = [("GET", "/api/rooms/a%00b"), ("HEAD", "/api/rooms/a%00b"), ("GET", "/api/rooms/a%00b/qr.svg"),
             ("GET", "/api/overlays/a%00b.jpg"), ("PUT", f"/api/rooms/{rid}/players/a%00b/grid"),
             ("DELETE", f"/api/rooms/{rid}/players/a%00b"), ("PATCH", f"/api/rooms/{rid}/players/an%0An"),
             ("PUT", "/api/rooms/a%00b/neutral")]
    for method, path in asked:
        r = client.request(method, path, json={"grid": EMPTY} if method == "PUT" else None)
        assert r.status_code == 400, (method, path, r.status_code, r.text)
        assert method == "HEAD" or "control character" in r.json()["detail"], r.text
    r = client.get("/api/rooms/a%00b?lang=ru")
    assert r.status_code == 400 and "управляющий символ" in r.json()["detail"]
    assert client.get(f"/api/rooms/{rid}").json()["players"] == ["ann"]  # nothing lost


def test_a_correction_sent_with_any_version_never_writes_an_older_photos_read_over_a_newer_one(client):
    # With If-Match "*", a correction scored on a player's read while their new photo was put
    # wrote the old read's cells beside the new photo (3 of 12 at once: an attack). The read it
    # was taken from is the version it may write over; a photo put meanwhile is a 409.
    store = client.app.state.services.store
    rid = client.post("/api/rooms", json={"mode": "game"}).json()["id"]
    old_read = {"doubts": [], "confidence": 0.9, "photo": "old"}
    token, _ = store.put_player(rid, "ann", [[None] * 5] * 4, old_read, None, None)
    put = store.put_player

    def a_photo_put_meanwhile(room_id, name, grid, read, overlay, tok, if_match=None):
        put(room_id, name, grid, {**old_read, "photo": "new"}, b"new photo", tok, -1)  # the new photo lands first
        return put(room_id, name, grid, read, overlay, tok, if_match)

    store.put_player = a_photo_put_meanwhile
    r = client.put(f"/api/rooms/{rid}/players/ann/grid", json={"grid": EMPTY},
                   headers={"X-Player-Token": token, "If-Match": "*"})
    store.put_player = put
    assert r.status_code == 409, r.text
    assert store.room(rid).players[0].read["photo"] == "new"
    # with nothing put meanwhile, "*" writes as before
    r = client.put(f"/api/rooms/{rid}/players/ann/grid", json={"grid": EMPTY},
                   headers={"X-Player-Token": token, "If-Match": "*"})
    assert r.status_code == 200 and store.room(rid).players[0].read["photo"] == "new", r.text


def test_a_key_sent_twice_in_a_json_body_is_refused_not_its_last_value_taken(client):
    r = client.post("/api/rooms", content=b'{"mode": "solo", "mode": "game"}', headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and "names 'mode' more than once" in r.json()["detail"], r.text
    r = client.post("/api/rooms?lang=it", content=b'{"mode": "solo", "mode": "game"}', headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and "più volte" in r.json()["detail"], r.text
    # the same key in two objects is two keys
    r = client.post("/api/grid", content=json.dumps({"players": [{"name": "a", "grid": [["RB"] * 5] * 4},
                                                                 {"name": "b", "grid": [["RB"] * 5] * 4}]}).encode(),
                    headers={"Content-Type": "application/json"})
    assert r.status_code == 200, r.text


def test_what_answers_get_answers_head_with_no_body(client):
    room = client.post("/api/rooms", json={"mode": "game"}).json()
    assert client.head("/health").status_code == 200  # its own HEAD route: no work done
    for path in ("/api/decks", f"/api/rooms/{room['id']}", f"/api/rooms/{room['id']}/qr.svg", "/manifest.webmanifest",
                 "/sw.js", "/"):
        for lang in ("en", "cs"):
            got, head = client.get(path, params={"lang": lang}), client.head(path, params={"lang": lang})
            assert got.status_code == head.status_code == 200, (path, head.status_code)
            assert head.content == b"" and head.headers["content-type"] == got.headers["content-type"], path
            assert head.headers["content-length"] == got.headers["content-length"], (path, lang)  # as translated
    assert client.head("/api/photo").status_code == 405  # a POST's path: HEAD is no GET there
    assert client.head("/api/nothing").status_code == 404


def test_an_emojis_joiners_do_not_tell_two_players_apart(client):
    rid = client.post("/api/rooms", json={}).json()["id"]
    join(client, rid, "Ana ❤️")
    join(client, rid, "Eva 👩‍💻")
    for name in ("Ana ❤", "Eva 👩💻"):
        r = client.put(f"/api/rooms/{rid}/players/{name}/grid", json={"grid": EMPTY})
        assert r.status_code == 422 and "too like" in str(r.json()["detail"]), r.text
