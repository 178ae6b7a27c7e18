"""Issue 19: the store on either backend (SQLite, or a PostgreSQL server the tests start), its
migrations, an existing store upgraded in place, several processes over one database, and a
writer killed mid-write."""
import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time

import pytest

from ecoscore.service import migrations
from ecoscore.service.store import Busy, Conflict, Invalid, NotFound, Store, redact

EMPTY = [[None] * 5] * 4
HEAD = migrations.head("sqlite")

# The schema as the service made it before migrations (issue 17's store: tables, then columns
# added on start), and before owners and versions (issue 10's): both must open and upgrade.
SCHEMA_17 = """
CREATE TABLE rooms (id TEXT PRIMARY KEY, mode TEXT NOT NULL, created REAL NOT NULL,
    neutral_streams INTEGER NOT NULL DEFAULT 0, neutral_wolves INTEGER NOT NULL DEFAULT 0, bot_grid TEXT,
    version INTEGER NOT NULL DEFAULT 0, owner_hash TEXT, updated REAL);
CREATE TABLE players (room_id TEXT NOT NULL REFERENCES rooms(id), name TEXT NOT NULL, token_hash TEXT NOT NULL,
    grid TEXT NOT NULL, read TEXT, overlay_id TEXT, updated REAL NOT NULL, version INTEGER NOT NULL DEFAULT 1,
    PRIMARY KEY (room_id, name));
CREATE TABLE overlays (id TEXT PRIMARY KEY, created REAL NOT NULL, jpeg BLOB NOT NULL);
"""
SCHEMA_10 = """
CREATE TABLE rooms (id TEXT PRIMARY KEY, mode TEXT NOT NULL, created REAL NOT NULL,
    neutral_streams INTEGER NOT NULL DEFAULT 0, neutral_wolves INTEGER NOT NULL DEFAULT 0, bot_grid TEXT,
    version INTEGER NOT NULL DEFAULT 0);
CREATE TABLE players (room_id TEXT NOT NULL REFERENCES rooms(id), name TEXT NOT NULL, token_hash TEXT NOT NULL,
    grid TEXT NOT NULL, read TEXT, overlay_id TEXT, updated REAL NOT NULL, PRIMARY KEY (room_id, name));
CREATE TABLE overlays (id TEXT PRIMARY KEY, created REAL NOT NULL, jpeg BLOB NOT NULL);
"""


@pytest.fixture()
def store(db_url):
    s = Store(db_url)
    yield s
    s.close()


def test_a_new_store_has_every_step_and_opening_again_applies_none(db_url):
    first = Store(db_url)
    assert first.migrated == list(range(1, HEAD + 1))
    first.close()
    again = Store(db_url)
    assert again.migrated == []
    with again.db.connect() as db:
        assert [v for (v,) in db.execute("SELECT version FROM schema_migrations ORDER BY version")] == \
            list(range(1, HEAD + 1))
    again.close()


def test_both_backends_have_the_same_steps():
    assert [(n, name) for n, name, _ in migrations.steps("sqlite")] == \
        [(n, name) for n, name, _ in migrations.steps("postgresql")]


@pytest.mark.parametrize("schema, owned", [(SCHEMA_17, True), (SCHEMA_10, False)])
def test_an_existing_sqlite_store_upgrades_in_place(tmp_path, schema, owned):
    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path)
    db.executescript(schema)
    cols = "id, mode, created, version" + (", owner_hash, updated" if owned else "")
    vals = "'oldroom', 'game', 1000.0, 2" + (", 'x', 1000.0" if owned else "")
    db.execute(f"INSERT INTO rooms ({cols}) VALUES ({vals})")
    for name in ("zoe", "adam"):  # joined in this order: kept in this order
        db.execute("INSERT INTO players (room_id, name, token_hash, grid, updated) VALUES (?, ?, 'h', ?, 1000.0)",
                   ("oldroom", name, json.dumps(EMPTY)))
    db.execute("INSERT INTO overlays VALUES ('ov', 1000.0, x'ffd8ffd9')")
    db.commit()
    db.close()

    store = Store(f"sqlite:///{path}")
    assert store.migrated == list(range(1, HEAD + 1))
    room = store.room("oldroom")
    assert [p.name for p in room.players] == ["zoe", "adam"] and room.version == 2
    assert all(p.version == 1 for p in room.players)
    assert store.overlay("ov") == b"\xff\xd8\xff\xd9"
    # and it takes writes as a new store does
    token, version = store.put_player("oldroom", "bea", EMPTY, None, None, None)
    assert (version, store.room("oldroom").version) == (3, 3)  # a new player's first version is the room's
    rid, owner = store.create_room("solo")
    store.set_bot(rid, EMPTY, owner)
    with store.db.connect() as db:
        updated = db.execute("SELECT updated FROM rooms WHERE id = 'oldroom'").fetchone()[0]
        indexes = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert updated is not None and {"rooms_updated", "overlays_created"} <= indexes
    assert Store(f"sqlite:///{path}").migrated == []


def test_rooms_players_versions_and_overlays(store):
    rid, owner = store.create_room("two-player")
    tokens, versions = {}, {}
    for name in ("zoe", "adam"):
        tokens[name], versions[name] = store.put_player(rid, name, EMPTY, {"confidence": 0.5}, b"\xff\xd8" + name.encode(), None)
    assert list(versions.values()) == [1, 2]  # each begins at the room's version: never one another had
    with pytest.raises(Invalid, match="a two-player room seats 2"):
        store.put_player(rid, "mia", EMPTY, None, None, None)
    room = store.room(rid)
    assert [p.name for p in room.players] == ["zoe", "adam"]  # the order they joined
    assert room.version == 2 and room.players[0].read == {"confidence": 0.5}  # the refused join wrote nothing
    assert store.overlay(room.players[1].overlay_id) == b"\xff\xd8adam"
    _, v = store.put_player(rid, "adam", [["RB"] + [None] * 4] + EMPTY[1:], None, None, tokens["adam"], 2)
    assert v == 3 and store.room(rid).players[1].grid[0][0] == "RB"
    with pytest.raises(Conflict):
        store.put_player(rid, "adam", EMPTY, None, None, tokens["adam"], 2)
    assert store.rename_player(rid, "adam", "ada", tokens["adam"], 3) == 4
    assert [p.name for p in store.room(rid).players] == ["zoe", "ada"]  # renaming keeps the place
    store.set_neutral(rid, 2, 1, owner, store.room(rid).version)
    with pytest.raises(Conflict):
        store.set_neutral(rid, 0, 0, owner, 1)
    assert store.room(rid).neutral == (2, 1)
    store.remove_player(rid, "zoe", None, owner)
    assert [p.name for p in store.room(rid).players] == ["ada"]
    with pytest.raises(NotFound):
        store.room("nosuchroom")


def test_two_processes_worth_of_stores_write_one_room_without_losing_or_overfilling(db_url):
    """Two stores on one database stand for two workers: concurrent corrections with one version
    let exactly one through; concurrent joins never pass the room's cap."""
    a, b = Store(db_url, max_players=8), Store(db_url, max_players=8)
    rid, _ = a.create_room()
    token, version = a.put_player(rid, "me", EMPTY, None, None, None)
    results = []

    def correct(store, k):
        try:
            store.put_player(rid, "me", [[f"c{k}"] + [None] * 4] + EMPTY[1:], None, None, token, version)
            results.append(("ok", k))
        except Conflict:
            results.append(("conflict", k))
        except Busy:
            results.append(("busy", k))

    threads = [threading.Thread(target=correct, args=((a, b)[k % 2], k)) for k in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(r for r, _ in results) == ["conflict"] * 11 + ["ok"], results
    winner = next(k for r, k in results if r == "ok")
    assert b.room(rid).players[0].grid[0][0] == f"c{winner}" and a.room(rid).players[0].version == 2

    joined, refused = [], []

    def join(store, k):
        try:
            store.put_player(rid, f"p{k}", EMPTY, None, None, None)
            joined.append(k)
        except Invalid:
            refused.append(k)

    threads = [threading.Thread(target=join, args=((a, b)[k % 2], k)) for k in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(joined) == 5 and len(refused) == 7  # "me" and 5 more: a game's 6
    assert len(a.room(rid).players) == 6
    a.close()
    b.close()


def test_prune_on_both(store):
    rid, _ = store.create_room()
    store.put_player(rid, "ann", EMPTY, None, b"jpeg", None)
    lone = store.put_overlay(b"single photo")
    assert store.prune(30) == {"rooms": 0, "players": 0, "overlays": 0, "starts": 0}
    gone = store.prune(30, now=time.time() + 31 * 86400)
    assert gone == {"rooms": 1, "players": 1, "overlays": 2, "starts": 0}
    with pytest.raises(NotFound):
        store.overlay(lone)


def test_a_writer_killed_mid_write_loses_no_acknowledged_write(db_url, tmp_path):
    """kill -9 of a process while it writes: every write it reported done is there, nothing is
    half-written, and another store goes on writing the same room."""
    store = Store(db_url)
    rid, _ = store.create_room()
    script = tmp_path / "writer.py"
    script.write_text(
        "import sys\n"
        "from ecoscore.service.store import Store\n"
        "store = Store(sys.argv[1])\n"
        "rid = sys.argv[2]\n"
        "token, version = store.put_player(rid, 'p0', [[None] * 5] * 4, {'k': 0}, b'x' * 20000, None)\n"
        "print(0, flush=True)\n"
        "k = 1\n"
        "while True:\n"
        "    token, version = store.put_player(rid, 'p0', [[None] * 5] * 4, {'k': k}, b'x' * 20000, token, version)\n"
        "    print(k, flush=True)  # acknowledged: committed\n"
        "    k += 1\n")
    proc = subprocess.Popen([sys.executable, str(script), db_url, rid], stdout=subprocess.PIPE, text=True)
    acked = []
    deadline = time.monotonic() + 60
    while len(acked) < 40 and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        acked.append(int(line))
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    acked += [int(line) for line in proc.stdout.read().split()]  # acknowledged before the kill, read late
    assert len(acked) >= 40, "the writer did not get going"
    room = store.room(rid)
    player = room.players[0]
    # the last acknowledged write is there (or the one after it, committed as the kill landed)
    assert player.read["k"] in (acked[-1], acked[-1] + 1)
    assert player.version == player.read["k"] + 1 and store.overlay(player.overlay_id) == b"x" * 20000
    # the database goes on: another process's store writes the same room
    token2, _ = store.put_player(rid, "after", EMPTY, None, None, None)
    assert [p.name for p in store.room(rid).players] == ["p0", "after"]
    store.close()


def test_passwords_stay_out_of_messages():
    assert redact("postgresql://eco:s3cret@db.example:5432/eco") == "postgresql://eco:***@db.example:5432/eco"
    assert redact("sqlite:////tmp/x.sqlite3") == "sqlite:////tmp/x.sqlite3"


def _open_at_once(url: str, workers: int = 4) -> tuple[list[Store], list[Exception]]:
    """Open ``workers`` stores on ``url`` from as many threads at once (workers starting together)."""
    opened: list[Store] = []
    errors: list[Exception] = []

    def start():
        try:
            opened.append(Store(url))
        except Exception as err:  # reported by the caller
            errors.append(err)

    threads = [threading.Thread(target=start) for _ in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return opened, errors


def test_many_stores_opening_a_new_sqlite_file_at_once_all_open(tmp_path):
    """Switching a new file to WAL from several connections at once answers "locked" without
    SQLite's lock wait (one start in ~10 failed so before): the store waits for it itself."""
    for k in range(40):
        _, errors = _open_at_once(f"sqlite:///{tmp_path}/new-{k}.sqlite3")
        assert not errors, (k, errors)


def test_workers_starting_at_once_migrate_once(db_url):
    """Every worker opens the store as it starts: on a new database one of them applies the
    steps, the others find them done (an advisory lock on PostgreSQL, the write lock on SQLite)."""
    opened, errors = _open_at_once(db_url)
    assert not errors, errors
    assert sorted(len(s.migrated) for s in opened) == [0, 0, 0, HEAD]
    for s in opened:
        s.close()


def test_a_postgres_store_at_an_older_step_upgrades_in_place(pg_server):
    import psycopg

    url = pg_server.new_database()
    first = migrations.steps("postgresql")[0]
    with psycopg.connect(url, autocommit=True) as conn:
        for statement in migrations.statements(first[2]):
            conn.execute(statement)
        conn.execute(migrations.TABLE.format(real="DOUBLE PRECISION"))
        conn.execute("INSERT INTO schema_migrations VALUES (1, 'rooms', 0)")
        conn.execute("INSERT INTO rooms (id, mode, created, version) VALUES ('oldroom', 'game', 1000, 0)")
        conn.execute("INSERT INTO players (room_id, name, token_hash, grid, updated) VALUES ('oldroom', 'zoe', 'h', %s, 1)",
                     (json.dumps(EMPTY),))
    store = Store(url)
    assert store.migrated == list(range(2, HEAD + 1))
    room = store.room("oldroom")
    assert [p.name for p in room.players] == ["zoe"] and room.players[0].version == 1
    store.put_player("oldroom", "adam", EMPTY, None, None, None)
    assert store.room("oldroom").version == 1
    store.close()


def test_a_clients_starts_are_counted_over_a_sliding_hour_and_leave_the_store_as_they_leave_it(store):
    from ecoscore.service.store import OverShare, Share, Starter

    decks = Share("decks", 2)
    store.count_start(Starter(decks, "a"), now=0.0)
    store.count_start(Starter(decks, "a"), now=1000.0)
    with pytest.raises(OverShare, match="this device started 2 decks in the last hour") as refused:
        store.count_start(Starter(decks, "a"), now=1500.0)
    assert refused.value.retry_after == 2100  # when the first start leaves the hour
    store.count_start(Starter(decks, "b"), now=1500.0)  # another client's share is its own
    store.count_start(Starter(Share("rooms", 2), "a"), now=1500.0)  # and a kind's its own
    store.count_start(Starter(decks, "a"), now=3600.0)  # the first start has left the hour
    with store._connect() as db:  # a client's own starts that left the hour go at its next start
        assert db.execute("SELECT COUNT(*) FROM starts WHERE at <= ?", (0.0,)).fetchone()[0] == 0
        assert db.execute("SELECT COUNT(*) FROM starts").fetchone()[0] == 4
    assert store.prune(30, now=4000.0)["starts"] == 0  # every other client's at the next prune
    assert store.prune(30, now=5100.0)["starts"] == 3  # b's, a's room and a's deck of 1000 and 1500
    store.count_start(Starter(decks, "b"), now=5100.0)  # b's share whole again
    store.count_start(Starter(decks, "b"), now=5100.0)
    with pytest.raises(OverShare) as refused:
        store.count_start(Starter(decks, "b"), now=5100.0)
    assert refused.value.retry_after == 3600
    # a worker whose clock is ahead of the one that counted: never told to wait more than an hour
    with pytest.raises(OverShare) as refused:
        store.count_start(Starter(decks, "b"), now=5000.0)
    assert refused.value.retry_after == 3600


def test_one_clients_starts_on_many_workers_at_once_take_turns_and_pass_its_share_by_none(db_url):
    from ecoscore.service.store import OverShare, Share, Starter

    stores = [Store(db_url) for _ in range(2)]
    share, made, refused, errors = Share("rooms", 5), [], [], []
    barrier = threading.Barrier(12)

    def start(store):
        barrier.wait()
        try:
            made.append(store.create_room("game", Starter(share, "greedy")))
        except OverShare:
            refused.append(1)
        except Exception as err:  # reported below
            errors.append(err)

    threads = [threading.Thread(target=start, args=(stores[k % 2],)) for k in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for s in stores:
        s.close()
    assert not errors, errors
    assert (len(made), len(refused)) == (5, 7)


def test_a_room_the_store_cannot_hold_costs_its_client_no_start(db_url):
    from ecoscore.service.store import Full, OverShare, Share, Starter

    store = Store(db_url, max_rooms=1)
    try:
        rooms = Share("rooms", 1)
        store.create_room("game", Starter(rooms, "a"), now=10.0)
        with pytest.raises(Full):
            store.create_room("game", Starter(rooms, "b"), now=20.0)
        with store._connect() as db:
            assert [tuple(row) for row in db.execute("SELECT client FROM starts").fetchall()] == [("a",)]
        store.max_rooms = 5
        with pytest.raises(OverShare):
            store.create_room("game", Starter(rooms, "a"), now=30.0)
        store.create_room("game", Starter(rooms, "b"), now=30.0)
    finally:
        store.close()


def test_a_full_store_makes_room_from_its_longest_idle_room_no_one_joined(db_url):
    # Empty rooms were kept as long as used ones (30 days): one script at the rooms' hourly share
    # filled the store, and no one could start a room for a month (an attack on a running server).
    from ecoscore.service.store import EMPTY_ROOM_KEPT, Full

    store = Store(db_url, max_rooms=3)
    try:
        used, _ = store.create_room("game", now=10.0)
        store.put_player(used, "bea", EMPTY, None, None, None)
        with store._transaction() as db:  # idle longest of all: only its player keeps it
            db.execute("UPDATE rooms SET updated = ? WHERE id = ?", (5.0, used))
        first, _ = store.create_room("game", now=20.0)
        second, _ = store.create_room("game", now=30.0)
        with pytest.raises(Full):  # none of them idle long enough
            store.create_room("game", now=20.0 + EMPTY_ROOM_KEPT / 2)
        late = 30.0 + 2 * EMPTY_ROOM_KEPT
        third, _ = store.create_room("game", now=late)
        with store._connect() as db:
            left = {row[0] for row in db.execute("SELECT id FROM rooms").fetchall()}
        assert left == {used, second, third}  # the longest idle of the empty ones went; the used one stays
        store.create_room("game", now=late + 1)  # and the next
        with pytest.raises(Full):  # the used room and the fresh ones are never taken
            store.create_room("game", now=late + 2)
        assert store.room(used).players
    finally:
        store.close()


def _held(url: str, room_id: str):
    """A writer mid-transaction on ``room_id`` (its row held, as ``Store._bump`` holds it), in a
    connection of its own: commit() lets it go."""
    import psycopg

    conn = psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://"))
    conn.execute("UPDATE rooms SET version = version + 1 WHERE id = %s", (room_id,))
    return conn


def test_a_full_store_passes_over_a_room_a_writer_holds_and_takes_the_next_idle_one(pg_server):
    # Rooms started while a player joined the oldest empty room: its delete, by what a subquery
    # had seen, ran into the new player's row (a 500), and starts at the same moment all took
    # the one oldest room, the losers told the store was full (an attack on a running server).
    from ecoscore.service.store import EMPTY_ROOM_KEPT

    url = pg_server.new_database()
    store = Store(url, max_rooms=3, lock_timeout=2.0)
    try:
        oldest, _ = store.create_room("game", now=10.0)
        older, _ = store.create_room("game", now=20.0)
        fresh, _ = store.create_room("game", now=30.0 + EMPTY_ROOM_KEPT)
        writer = _held(url, oldest)
        try:
            t0 = time.monotonic()
            new, _ = store.create_room("game", now=40.0 + EMPTY_ROOM_KEPT)
            assert time.monotonic() - t0 < 1.0  # not waiting for the writer
        finally:
            writer.execute("INSERT INTO players (room_id, name, token_hash, grid, updated, version) "
                           "VALUES (%s, 'ann', 'x', '[]', 0, 1)", (oldest,))
            writer.commit()
            writer.close()
        with store._connect() as db:
            assert {row[0] for row in db.execute("SELECT id FROM rooms").fetchall()} == {oldest, fresh, new}
        assert [p.name for p in store.room(oldest).players] == ["ann"]
    finally:
        store.close()


def test_pruning_passes_over_a_room_being_written_and_loses_none_of_its_players(pg_server):
    # A write acknowledged while the idle rooms were pruned left its room with no players: the
    # players' delete went by what its subquery had seen (an attack on a running server).
    url = pg_server.new_database()
    store = Store(url, lock_timeout=2.0)
    try:
        busy, _ = store.create_room("game", now=10.0)
        idle, _ = store.create_room("game", now=10.0)
        for rid in (busy, idle):
            store.put_player(rid, "ann", EMPTY, None, None, None)
            store.put_player(rid, "bob", EMPTY, None, None, None)
        with store._transaction() as db:
            db.execute("UPDATE rooms SET updated = ?", (10.0,))
        writer = _held(url, busy)
        try:
            gone = store.prune(30, now=10.0 + 31 * 86400)
        finally:
            writer.execute("UPDATE rooms SET updated = %s WHERE id = %s", (time.time(), busy))
            writer.commit()
            writer.close()
        assert gone["rooms"] == 1 and gone["players"] == 2
        assert sorted(p.name for p in store.room(busy).players) == ["ann", "bob"]
        with store._connect() as db:
            assert [row[0] for row in db.execute("SELECT id FROM rooms").fetchall()] == [busy]
    finally:
        store.close()


def test_a_client_at_its_cap_of_rooms_starts_one_in_place_of_its_own_longest_idle(db_url):
    # Rooms that each keep a player were never taken for new ones: a client at its hourly share
    # filled the store in days and kept it with a write a month (an attack on a running server).
    from ecoscore.service.store import OWN_ROOM_KEPT, HoldsTooMany, NotFound, Share, Starter

    def rooms_left():
        with store._connect() as db:
            return {row[0] for row in db.execute("SELECT id FROM rooms").fetchall()}

    def written(room_id, at):
        with store._transaction() as db:
            db.execute("UPDATE rooms SET updated = ? WHERE id = ?", (at, room_id))

    store = Store(db_url, rooms_per_client=2)
    try:
        rooms = Share("rooms", 100)
        first, _ = store.create_room("game", Starter(rooms, "a"), now=10.0)
        store.put_player(first, "bea", EMPTY, None, b"\xff\xd8 bea's photo", None)
        written(first, 10.0)
        second, _ = store.create_room("game", Starter(rooms, "a"), now=20.0)
        theirs, _ = store.create_room("game", Starter(rooms, "b"), now=30.0)  # another client's cap
        cli, _ = store.create_room("game", now=40.0)  # the command line's, no one's
        with pytest.raises(HoldsTooMany) as refused:  # a's two rooms both written within the day
            store.create_room("game", Starter(rooms, "a"), now=10.0 + OWN_ROOM_KEPT / 2)
        assert refused.value.retry_after == OWN_ROOM_KEPT / 2
        assert "holds 2 rooms" in str(refused.value)
        with store._connect() as db:  # a refused room costs no start
            assert db.execute("SELECT COUNT(*) FROM starts WHERE client = 'a'").fetchone()[0] == 2
        written(first, 25.0)  # the first room written again after the second
        third, _ = store.create_room("game", Starter(rooms, "a"), now=20.0 + OWN_ROOM_KEPT + 1)
        assert rooms_left() == {first, theirs, cli, third}  # a's room untouched longest made way
        assert store.room(first).players[0].name == "bea"
        store.create_room("game", Starter(rooms, "a"), now=25.0 + OWN_ROOM_KEPT + 1)
        assert first not in rooms_left() and third in rooms_left()  # then the first, its player
        with pytest.raises(NotFound):
            store.room(first)
        with store._connect() as db:  # and its picture with it
            assert db.execute("SELECT COUNT(*) FROM players").fetchone()[0] == 0
            assert db.execute("SELECT COUNT(*) FROM overlays").fetchone()[0] == 0
    finally:
        store.close()


def test_one_clients_uploads_push_out_only_its_own_pictures(db_url, monkeypatch):
    # With one cap for all, ~1,000 uploads from one address took every other player's photo
    # away while they were still naming its cards (an attack on a running server).
    from ecoscore.service import store as store_module

    monkeypatch.setattr(store_module, "KEEP_OVERLAYS_PER_CLIENT", 3)
    monkeypatch.setattr(store_module, "KEEP_OVERLAYS", 6)
    store = Store(db_url)
    try:
        theirs = store.put_overlay(b"\xff\xd8 a player's photo", "10.0.0.2")
        flood = [store.put_overlay(b"\xff\xd8 flood %d" % k, "10.0.0.66") for k in range(20)]
        assert store.overlay(theirs) == b"\xff\xd8 a player's photo"
        for gone in flood[:-3]:
            with pytest.raises(NotFound):
                store.overlay(gone)
        assert [store.overlay(kept) for kept in flood[-3:]] == [b"\xff\xd8 flood %d" % k for k in (17, 18, 19)]
        for k in range(6):  # many clients at once: the store's own cap still holds
            store.put_overlay(b"\xff\xd8 other %d" % k, f"10.0.1.{k}")
        with store._connect() as db:
            assert db.execute("SELECT COUNT(*) FROM overlays").fetchone()[0] == 6
        # ... taken from whoever holds most: a player's one photo outlives other addresses' floods
        # filling the store between them (the oldest of all went first, and it was theirs: an attack)
        mine = store.put_overlay(b"\xff\xd8 my photo", "10.0.0.3")
        for k in range(30):
            store.put_overlay(b"\xff\xd8 many %d" % k, f"10.0.2.{k % 2}")
        assert store.overlay(mine) == b"\xff\xd8 my photo"
        with store._connect() as db:
            assert db.execute("SELECT COUNT(*) FROM overlays").fetchone()[0] == 6
    finally:
        store.close()



def test_a_postgresql_server_out_of_reach_is_said_once_with_why():
    # The pool logged "error connecting in 'ecoscore': ..." at each try and then refused with
    # "pool initialization incomplete after 5.0 sec": why, and the password, said as the cause.
    import logging
    import socket

    from ecoscore.service.store import StoreError

    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]  # closed again: nothing listens there
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    logging.getLogger("psycopg.pool").addHandler(handler)
    try:
        with pytest.raises(StoreError) as err:
            Store(f"postgresql://keeper:s3cret@127.0.0.1:{port}/rooms", lock_timeout=1.0)
    finally:
        logging.getLogger("psycopg.pool").removeHandler(handler)
    said = str(err.value)
    assert said.startswith(f"cannot reach the database 'postgresql://keeper:***@127.0.0.1:{port}/rooms': ")
    assert "refused" in said.lower() and "s3cret" not in said
    assert not [r for r in records if r.levelno >= logging.WARNING]


def test_a_transaction_sqlite_rolled_back_itself_raises_its_own_error(tmp_path):
    # SQLite rolls back by itself on a full disk or an I/O error; the store's ROLLBACK then raised
    # "no transaction is active" over the real error (a Busy turned into a 500: a review).
    store = Store(f"sqlite:///{tmp_path / 'rooms.db'}")
    with pytest.raises(Busy, match="busy"):
        with store.db.transaction() as db:
            db.execute("ROLLBACK")  # as SQLite does on SQLITE_FULL
            raise Busy("the database is busy; try again in a moment")
    store.create_room("game")  # and the store writes on after it
    store.close()


def test_postgres_calls_wait_briefly_only_while_the_pools_tries_to_connect_fail():
    # With the server unreachable each call waited the writers' 5 s (an organiser's run); after an
    # outage, a wait timed out by mere load was taken for one (the failed tries counted from the
    # last refusal: a review). A pool whose waits are recorded, its failed tries set by hand.
    pytest.importorskip("psycopg_pool")
    from contextlib import contextmanager

    from psycopg_pool import PoolTimeout

    from ecoscore.service.store import UNREACHABLE_WAIT, _Postgres

    class Pool:
        failed, up, fail_during_wait, waits = 0, True, 0, []

        def get_stats(self):
            return {"connections_errors": self.failed}

        @contextmanager
        def connection(self, timeout=None):
            self.waits.append(timeout)
            self.failed += self.fail_during_wait
            if not self.up:
                raise PoolTimeout("no connection")
            yield object()

    pg = _Postgres.__new__(_Postgres)
    pg._psycopg, pg._unreachable, pg.pool = pytest.importorskip("psycopg"), False, Pool()

    def call():
        try:
            with pg.connect():
                return "ok"
        except Busy:
            return "busy"

    pg.pool.up, pg.pool.fail_during_wait = False, 3  # the server gone: the pool's tries fail
    assert [call(), call(), call()] == ["busy"] * 3
    assert pg.pool.waits == [None, UNREACHABLE_WAIT, UNREACHABLE_WAIT]  # the writers' wait once, then brief
    pg.pool.up, pg.pool.fail_during_wait = True, 0
    assert call() == "ok"  # back: a connection had within the brief wait
    pg.pool.waits = []
    pg.pool.failed += 3  # tries that failed while it came back
    pg.pool.up = False  # every connection busy: no failed try during the wait
    assert [call(), call()] == ["busy"] * 2 and pg.pool.waits == [None, None]
