"""The service's store: game rooms, their players' tableaux, and overlay pictures.

SQLite by default (a file in the data folder); PostgreSQL with ``--db postgresql://...`` (the
``postgres`` extra), for several workers or machines over one database. One short transaction
per change, so a failure leaves nothing half-written and a restart finds every room as it was.
The queries are written once, with ``?`` parameters; ``_SQLite`` and ``_Postgres`` below are the
thin layer that runs them on each (placeholders, the few words the two spell differently, locks
and the errors that mean "busy"). The schema is kept in ``migrations/``: a store is brought up to
date when it is opened, an existing one in place.

Every write to a room first bumps the room's version (``UPDATE rooms ...``): that takes the
room's row lock on PostgreSQL and the write lock on SQLite, so two writes to one room run one
after the other on either, and each sees what the other wrote.

Who may write what: a room's creator holds its owner token (room-wide settings, removing any
player); each player holds a token for their own tableau (replace, rename, leave). Tokens are
kept hashed. Every player carries a version, and replacing or renaming needs the version the
writer last saw, so two corrections at once cannot silently undo each other. Methods here are
blocking: the app calls them from a worker thread, never on the event loop.
"""
from __future__ import annotations

import json
import logging
import math
import re
import secrets
import sqlite3
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from ecoscore.scoring import ReadDoc
from ecoscore.tokens import holds, token_hash

from . import migrations, names

ROOM_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"  # no 0/o, 1/l/i: easy to read out and type
ROOM_ID_LENGTH = 10  # 31^10 ≈ 2^49: not guessable, still short enough to type
DROP_BATCH = 500  # rooms deleted by one statement (a query's parameters are bounded)
MODES = ("game", "two-player", "solo")
SEATS = {"two-player": 2, "solo": 1}  # players a room of the mode seats (the bot aside); a game: GAME_SEATS
# A game of Ecosystem seats 2-6: a seventh tableau's 20 cards would pass the deck's 130. A game
# room took 8 (the service's max_players, a photo's bound), the page saying "3-6 players" (a walk).
GAME_SEATS = 6
KEEP_OVERLAYS = 2000
# Of those no room holds, one client's newest only: its next upload pushes out its own oldest,
# never another player's (two pictures a photo: 200 is its last 100 photos, or a big game's).
KEEP_OVERLAYS_PER_CLIENT = 200
EVICTIONS_PER_WRITE = 8  # pictures a write pushes out at most, to keep the store within KEEP_OVERLAYS
HOUR = 3600.0  # a share of starts is counted over the last hour
# A full store makes room by deleting its longest-idle room no one has joined, once unwritten this
# long: kept as long as a used room (room_idle_days), empty rooms started by one script at the
# rooms' hourly share filled the store for a month (an attack on a running server).
EMPTY_ROOM_KEPT = HOUR
# A client at its cap of rooms held (``rooms_per_client``) starts a new one in place of its own
# room untouched longest, once untouched this long: a club behind one address keeps playing, and
# last week's game makes way; a script that started its cap today is refused.
OWN_ROOM_KEPT = 24 * HOUR
STARTS_LOCK = 0x73747274  # the class of the advisory locks (two-key: apart from the migrations' one-key lock)

class StoreError(ValueError):
    """A request the store refuses (unknown room, wrong token ...); the message says why."""


class Forbidden(StoreError):
    pass


class NotFound(StoreError):
    pass


class Invalid(StoreError):
    """A write that breaks a rule of the room (full, a name taken or refused)."""


class Conflict(StoreError):
    """The writer's version is not the current one: someone else wrote in between."""

    def __init__(self, message: str, current: int):
        super().__init__(message)
        self.current = current


# If-Match: * — the write goes ahead on whatever version there is (it still needs one: a player
# renamed or removed meanwhile is gone, as with a number).
ANY_VERSION = -1


class PreconditionFailed(StoreError):
    """A write made on a version of something that no longer exists (renamed or removed meanwhile)."""


class PreconditionRequired(StoreError):
    """Replacing a tableau needs the version the writer saw (If-Match)."""


class NotOurs(StoreError):
    """The database named is a file that is not SQLite, or not the service's."""


class Busy(StoreError):
    """The database stayed locked longer than the configured wait."""


class Full(StoreError):
    """The store holds as many rooms as it may: none is started until idle ones are pruned."""


class HoldsTooMany(StoreError):
    """A client holding its cap of rooms, none of them idle long enough to make way for a new one:
    ``retry_after`` seconds until its longest idle one may."""

    def __init__(self, held: int, retry_after: int):
        super().__init__(f"this device holds {held} rooms used in the last day (the most it may): "
                         f"try again in {math.ceil(retry_after / 3600)} h, or go on in one of them")
        self.held, self.retry_after = held, retry_after


class OverShare(StoreError):
    """A client past its share of starts (``Share``): ``retry_after`` seconds until its oldest start
    in the hour leaves it."""

    def __init__(self, share: Share, retry_after: int):
        super().__init__(f"this device started {share.per_hour} {share.kind} in the last hour (the most it may): "
                         f"try again in {math.ceil(retry_after / 60)} min")
        self.retry_after = retry_after


@dataclass(frozen=True)
class Share:
    """How many ``kind`` ("rooms", "decks": the key its starts are stored under, and the word its
    refusal says) one client may start in an hour (``starts.py``)."""

    kind: str
    per_hour: int


class Starter(NamedTuple):
    """Who starts a thing, against which share."""

    share: Share
    client: str  # ``starts.client_key``


def _gone(name: str) -> PreconditionFailed:
    """A write made on a version of a player renamed or removed since."""
    return PreconditionFailed(f"{name!r} is no longer in this room (renamed or removed meanwhile); reload the room")


@dataclass
class PlayerRow:
    name: str
    grid: list[list[str | None]]
    read: ReadDoc | None  # what the photo's read adds to the player in the answer (None: a grid given)
    overlay_id: str | None
    updated: float
    version: int = 1


@dataclass
class Room:
    id: str
    mode: str
    created: float
    neutral: tuple[int, int]
    bot_grid: list[list[str | None]] | None
    version: int
    players: list[PlayerRow]
    deck: str = ""  # the deck every photo of the room is read with ("": each phone's own choice)
    deck_owner: str = ""  # that deck's owner-token hash when the room was started ("": enrolled on the server)
    neutral_given: bool = False  # a two-player room's pile said by its creator (0 and 0 until then: no pile yet)


def path_from_url(url: str) -> Path:
    if not url.startswith("sqlite:///"):
        raise StoreError(f"not a database URL ecoscore knows: {redact(url)!r} (sqlite:///PATH or postgresql://USER@HOST/NAME)")
    return Path(url[len("sqlite:///"):])


def redact(url: str) -> str:
    """The URL without its password, for messages and logs."""
    return re.sub(r"(://[^:/@]*):[^@/]*@", r"\1:***@", url)


def is_postgres(url: str) -> bool:
    return url.startswith(("postgresql://", "postgres://", "postgresql+psycopg://"))


class _SQLite:
    """One file; a connection per call (cheap), WAL, a short wait for the write lock."""

    dialect = "sqlite"
    all_rows = "LIMIT -1"  # OFFSET needs a LIMIT in SQLite
    join_order = "rowid"
    lock_rows = ""  # a write transaction holds the whole file
    take_free_rows = ""

    def __init__(self, url: str, lock_timeout: float):
        self.path = path_from_url(url)
        self.lock_timeout = lock_timeout
        self.path.parent.mkdir(parents=True, exist_ok=True)

    @contextmanager
    def connect(self, timeout: float | None = None):
        # A short lock wait: a writer queued behind a long one is answered 503, not held for 30 s.
        wait = self.lock_timeout if timeout is None else timeout
        db = sqlite3.connect(self.path, timeout=wait, isolation_level=None)
        try:
            self._wal(db, wait)
            db.execute("PRAGMA foreign_keys=ON")
            yield db
        except sqlite3.OperationalError as err:
            if "locked" in str(err) or "busy" in str(err):
                raise Busy("the database is busy; try again in a moment") from None
            raise
        finally:
            db.close()

    def _wal(self, db: sqlite3.Connection, wait: float) -> None:
        """Turn WAL on. On a new file, connections doing so at once (workers starting together)
        get "database is locked" at once, without SQLite's lock wait: wait here instead."""
        deadline = time.monotonic() + wait
        while True:
            try:
                db.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError as err:
                if "locked" not in str(err) or time.monotonic() > deadline:
                    raise
                time.sleep(0.01)

    @contextmanager
    def transaction(self):
        with self.connect() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                # (SQLite has rolled back itself on a full disk or an I/O error: a ROLLBACK then
                # raised "no transaction is active" over the real error, a 500 for a 503 - a review)
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    @contextmanager
    def snapshot(self):
        """Reads that see one state of the database (WAL: a deferred transaction, no lock taken)."""
        with self.connect() as db:
            db.execute("BEGIN")
            try:
                yield db
            finally:
                if db.in_transaction:
                    db.execute("COMMIT")

    def ping(self, timeout: float) -> None:
        with self.connect(timeout) as db:  # (/health says within its second, not the writers' wait)
            db.execute("SELECT 1")

    def close(self) -> None:
        pass


class _PgConnection:
    """A psycopg connection that takes the store's ``?`` placeholders."""

    def __init__(self, conn):
        self.conn = conn

    def execute(self, sql: str, params=()):
        return self.conn.execute(sql.replace("?", "%s"), params)


# With the server unreachable each room call waited the writers' whole wait for a connection
# before its 503 (5 s; an organiser's run): a few players' pages polling held the service's
# threads, and a photo scored at the table, answered without the database, waited behind them.
# Once the pool's own tries to connect are seen failing, a call waits this long (a connection
# back in the pool is handed out at once), until one is had again.
UNREACHABLE_WAIT = 0.5


class _Postgres:
    """A server: a small pool of connections per process (a worker's threads share it), a
    lock wait of ``lock_timeout``, and "busy" for a lock, a pool or a server that does not answer
    in time (503 + Retry-After, as SQLite's locked file)."""

    dialect = "postgresql"
    all_rows = "LIMIT ALL"
    join_order = "seq"
    lock_rows = " FOR UPDATE"  # the rows a query selects, held to the transaction's end
    # ... passing over rows another transaction holds (a writer's room: not idle) rather than
    # waiting for them and then acting on what the query saw before
    take_free_rows = " FOR UPDATE SKIP LOCKED"

    def __init__(self, url: str, lock_timeout: float, pool_size: int = 8):
        try:
            import psycopg
            from psycopg_pool import ConnectionPool
        except ImportError:
            raise StoreError("a postgresql:// database needs the postgres extra: pip install -e '.[service,postgres]' in a "
                             "checkout (pip install 'ecoscore[service,postgres]' else)") from None
        self._psycopg = psycopg
        self._unreachable = False  # (``connect``)
        url = url.replace("postgresql+psycopg://", "postgresql://", 1)
        ms = int(lock_timeout * 1000)
        # ``check``: each connection is tried as it is handed out, a broken one replaced. After a
        # server restart the pool's old connections were handed out dead, and 1 request in 3
        # got a 503 with the server back (an organiser's run).
        self.pool = ConnectionPool(
            url, min_size=1, max_size=pool_size, timeout=lock_timeout, open=False, name="ecoscore",
            check=ConnectionPool.check_connection,
            kwargs={"autocommit": True, "connect_timeout": max(1, round(lock_timeout)),
                    "options": f"-c lock_timeout={ms} -c statement_timeout={ms * 6}",
                    "application_name": "ecoscore"})
        # The pool logs each failed try ("error connecting in 'ecoscore': ...", three times over a
        # refusal) and then says only that it timed out: the refusal says why, once, instead.
        pool_log = logging.getLogger("psycopg.pool")
        level = pool_log.level
        pool_log.setLevel(logging.CRITICAL)
        try:
            self.pool.open(wait=True, timeout=max(lock_timeout, 5.0))
        except Exception as err:  # PoolTimeout: the server is not there
            self.pool.close()
            raise StoreError(f"cannot reach the database {redact(url)!r}: {self._why_not(url, err)}") from None
        finally:
            pool_log.setLevel(level)

    def _why_not(self, url: str, err: Exception) -> str:
        """Why the pool found no server: one connection tried on its own says it ("Connection
        refused", a password refused); else the pool's own words."""
        try:
            self._psycopg.connect(url, connect_timeout=2).close()
        except Exception as direct:
            return redact(str(direct).strip().splitlines()[0])
        return str(err)

    def _busy(self, err: Exception) -> bool:
        from psycopg_pool import PoolTimeout

        errors = self._psycopg.errors
        return isinstance(err, (PoolTimeout, self._psycopg.OperationalError, errors.LockNotAvailable,
                                errors.DeadlockDetected, errors.SerializationFailure, errors.QueryCanceled))

    @contextmanager
    def connect(self):
        from psycopg_pool import PoolTimeout

        # The pool's failed tries to connect, counted before the wait: a wait that times out
        # with more of them is the server unreachable (all connections merely busy, else; a
        # count kept from the last refusal took load after an outage for one: a review).
        tries_failed = None if self._unreachable else self._tries_failed()
        try:
            with self.pool.connection(timeout=UNREACHABLE_WAIT if self._unreachable else None) as conn:
                self._unreachable = False
                yield _PgConnection(conn)
        except Exception as err:
            if isinstance(err, PoolTimeout) and tries_failed is not None and self._tries_failed() > tries_failed:
                self._unreachable = True
            if self._busy(err):
                raise Busy("the database is busy or unreachable; try again in a moment") from None
            raise

    def _tries_failed(self) -> int:
        return self.pool.get_stats().get("connections_errors", 0)

    @contextmanager
    def transaction(self):
        with self.connect() as db, db.conn.transaction():
            yield db

    def ping(self, timeout: float) -> None:
        try:
            with self.pool.connection(timeout=timeout) as conn:
                conn.execute("SELECT 1")
        except Exception as err:
            if self._busy(err):
                raise Busy("the database is busy or unreachable; try again in a moment") from None
            raise

    @contextmanager
    def snapshot(self):
        """Reads that see one state of the database."""
        with self.connect() as db, db.conn.transaction():
            db.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            yield db

    def close(self) -> None:
        self.pool.close()


class Store:
    def __init__(self, url: str, *, lock_timeout: float = 5.0, max_players: int = 8, pool_size: int = 8,
                 max_rooms: int = 2_000, rooms_per_client: int = 100):
        self.lock_timeout = lock_timeout
        self.max_players = max_players
        # Starting a room costs a client one small request: without a cap a script could fill
        # the disk within the retention period. Past it, rooms wait for idle ones to be pruned.
        self.max_rooms = max_rooms
        self.rooms_per_client = rooms_per_client  # rooms one starter holds at once (``OWN_ROOM_KEPT``)
        self.db = _Postgres(url, lock_timeout, pool_size) if is_postgres(url) else _SQLite(url, lock_timeout)
        try:
            with self.db.transaction() as db:
                self.migrated = migrations.upgrade(db, self.db.dialect)
        except sqlite3.OperationalError as err:  # (a lock is Busy already) a folder it cannot write, ...
            raise StoreError(f"cannot reach the database {redact(url)!r}: {err}") from None
        except sqlite3.DatabaseError as err:  # a file that is not SQLite, or not ours
            raise NotOurs(f"{redact(url)}: not the service's database ({err})") from None

    @property
    def dialect(self) -> str:
        return self.db.dialect

    def ping(self, timeout: float = 1.0) -> None:
        """A query of nothing, answered within ``timeout`` s, or ``Busy`` (/health's question)."""
        self.db.ping(timeout)

    def close(self) -> None:
        self.db.close()

    def _connect(self):
        return self.db.connect()

    def _transaction(self):
        return self.db.transaction()

    # starts: each client's share of new rooms and decks, one count for every worker and machine
    def count_start(self, starter: Starter, now: float | None = None) -> float:
        """Count a start of ``starter.share.kind`` by ``starter.client``; ``OverShare`` if it
        started ``share.per_hour`` in the last hour. Returns the start's time (``uncount_start``)."""
        now = time.time() if now is None else now
        with self._transaction() as db:
            self._count_start(db, starter, now)
        return now

    def uncount_start(self, starter: Starter, at: float) -> None:
        """Take back a start counted at ``at``: what it started could not be made."""
        with self._transaction() as db:
            db.execute("DELETE FROM starts WHERE kind = ? AND client = ? AND at = ?",
                       (starter.share.kind, starter.client, at))

    def _count_start(self, db, starter: Starter, now: float) -> None:
        share, client = starter
        if self.dialect == "postgresql":  # one client's starts on several workers at once: one at a time
            db.execute("SELECT pg_advisory_xact_lock(?::integer, hashtext(?))", (STARTS_LOCK, f"{share.kind} {client}"))
        since = now - HOUR
        # This client's starts that left the hour go now (rows its lock covers); every other
        # client's at the next prune, so that clients never wait on each other's old rows.
        db.execute("DELETE FROM starts WHERE kind = ? AND client = ? AND at <= ?", (share.kind, client, since))
        count, first = db.execute("SELECT COUNT(*), MIN(at) FROM starts WHERE kind = ? AND client = ? AND at > ?",
                                  (share.kind, client, since)).fetchone()
        if count >= share.per_hour:
            # At most an hour: the workers' clocks may disagree, or one be set back.
            raise OverShare(share, min(int(HOUR), max(1, math.ceil(first + HOUR - now))))
        db.execute("INSERT INTO starts (kind, client, at) VALUES (?, ?, ?)", (share.kind, client, now))

    # rooms
    def create_room(self, mode: str = "game", starter: Starter | None = None,
                    now: float | None = None, deck: str = "", deck_owner: str = "") -> tuple[str, str]:
        """A new room: (its id, the owner token, shown once). ``starter``: the share and the client
        that start it, counted in the room's own transaction (a room the store cannot hold costs
        its client no start, and the starts held stay within the rooms created in the hour).
        ``deck``: the deck its photos are read with, ``deck_owner`` whose it is (checked by the caller)."""
        if mode not in MODES:
            raise Invalid(f"unknown room mode {mode!r}: one of {', '.join(MODES)}")
        room_id = "".join(secrets.choice(ROOM_ALPHABET) for _ in range(ROOM_ID_LENGTH))
        owner = secrets.token_urlsafe(18)
        now = time.time() if now is None else now
        # Counted in the write's transaction: SQLite's writes take turns; on PostgreSQL rooms started
        # at the very same moment may pass the cap by as many, which still bounds the store.
        with self._transaction() as db:
            # The client's own room that makes way first: a full store need not refuse a client
            # whose room untouched for a day can go (a review).
            if starter is not None:
                self._count_start(db, starter, now)
                self._make_way(db, starter.client, now)
            if db.execute("SELECT COUNT(*) FROM rooms").fetchone()[0] >= self.max_rooms and not self._make_way_in_full(db, now):
                raise Full(f"the service holds at most {self.max_rooms} rooms: no new one can be started now "
                           "(idle rooms are deleted after a while)")
            db.execute("INSERT INTO rooms (id, mode, created, updated, owner_hash, deck, deck_owner, starter) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                       (room_id, mode, now, now, token_hash(owner), deck, deck_owner, starter.client if starter else ""))
        return room_id, owner

    def _make_way_in_full(self, db, now: float) -> bool:
        """A full store's longest idle room that no one joined makes way; False if there is none.
        On PostgreSQL the candidates are held first, passing over rooms a writer holds, and each
        is checked for players once held: a delete by what its subquery saw removed a room a
        player had just joined (a 500, its players' rows in the way), and starts at the same
        moment all picked the one oldest room, the losers told the store was full (an attack)."""
        candidates = db.execute("SELECT id FROM rooms WHERE updated < ? AND id NOT IN (SELECT room_id FROM players) "
                                "ORDER BY updated LIMIT 4" + self.db.take_free_rows, (now - EMPTY_ROOM_KEPT,)).fetchall()
        for (room_id,) in candidates:
            if db.execute("SELECT 1 FROM players WHERE room_id = ? LIMIT 1", (room_id,)).fetchone() is None:
                self._drop_rooms(db, [room_id])
                return True
        return False

    def _make_way(self, db, client: str, now: float) -> None:
        """A client at its cap of rooms held: its room untouched longest goes, players and
        pictures too, if untouched for ``OWN_ROOM_KEPT``; else ``HoldsTooMany``."""
        held, oldest = db.execute("SELECT COUNT(*), MIN(updated) FROM rooms WHERE starter = ?", (client,)).fetchone()
        if held < self.rooms_per_client:
            return
        # Held while it goes (PostgreSQL): a player written into it meanwhile waits, then finds it
        # gone; one written just before makes it no longer idle, and it is not taken.
        row = db.execute("SELECT id FROM rooms WHERE starter = ? AND updated < ? ORDER BY updated LIMIT 1"
                         + self.db.lock_rows, (client, now - OWN_ROOM_KEPT)).fetchone()
        if row is None:
            raise HoldsTooMany(held, min(int(OWN_ROOM_KEPT), max(1, math.ceil(oldest + OWN_ROOM_KEPT - now))))
        self._drop_rooms(db, [row[0]])

    @staticmethod
    def _drop_rooms(db, room_ids: list[str]) -> tuple[int, int, int]:
        """The rooms go, their players and pictures with them: (overlays, players, rooms) deleted."""
        overlays = players = rooms = 0
        for first in range(0, len(room_ids), DROP_BATCH):
            batch = room_ids[first:first + DROP_BATCH]
            marks = ", ".join("?" * len(batch))
            overlays += db.execute(f"DELETE FROM overlays WHERE id IN (SELECT overlay_id FROM players "
                                   f"WHERE room_id IN ({marks}))", batch).rowcount
            players += db.execute(f"DELETE FROM players WHERE room_id IN ({marks})", batch).rowcount
            rooms += db.execute(f"DELETE FROM rooms WHERE id IN ({marks})", batch).rowcount
        return overlays, players, rooms

    def room(self, room_id: str) -> Room:
        with self.db.snapshot() as db:  # the room's version and its players as of one moment
            row = db.execute(
                "SELECT id, mode, created, neutral_streams, neutral_wolves, bot_grid, version, deck, deck_owner, neutral_given "
                "FROM rooms "
                "WHERE id = ?",
                (room_id,),
            ).fetchone()
            if row is None:
                raise NotFound(f"no room {room_id!r}")
            players = [
                PlayerRow(name, json.loads(grid), json.loads(read) if read else None, overlay, updated, version)
                for name, grid, read, overlay, updated, version in db.execute(
                    f"SELECT name, grid, read, overlay_id, updated, version FROM players WHERE room_id = ? "
                    f"ORDER BY {self.db.join_order}",
                    (room_id,),
                )
            ]
        return Room(row[0], row[1], row[2], (row[3], row[4]), json.loads(row[5]) if row[5] else None, row[6], players,
                    row[7], row[8], bool(row[9]))

    def room_head(self, room_id: str) -> tuple[int, str, str]:
        """The room's version and deck (name, owner) alone: a poll asking whether it moved on
        loads nothing else."""
        with self.db.snapshot() as db:
            row = db.execute("SELECT version, deck, deck_owner FROM rooms WHERE id = ?", (room_id,)).fetchone()
        if row is None:
            raise NotFound(f"no room {room_id!r}")
        return int(row[0]), row[1] or "", row[2] or ""

    def _bump(self, db, room_id: str) -> tuple[str, str | None, int]:
        """Count a write to the room (its version, its last use), holding the room until the
        transaction ends; returns its mode, owner hash and the version before this write."""
        row = db.execute("UPDATE rooms SET version = version + 1, updated = ? WHERE id = ? "
                         "RETURNING mode, owner_hash, version", (time.time(), room_id)).fetchall()
        if not row:
            raise NotFound(f"no room {room_id!r}")
        mode, owner_hash, version = row[0]
        return mode, owner_hash, version - 1

    def _as_owner(self, db, room_id: str, owner_token: str | None, if_match: int | None) -> str:
        # The room is bumped (and so held) before it is checked: a concurrent write cannot slip
        # in between; a refusal rolls the bump back.
        mode, owner_hash, version = self._bump(db, room_id)
        if not holds(owner_hash, owner_token):
            raise Forbidden("only the room's creator can change its settings (X-Room-Token)")
        if if_match not in (None, ANY_VERSION, version):
            raise Conflict(f"the room changed (version {version}, you had {if_match}); reload and try again", version)
        return mode

    def set_neutral(self, room_id: str, streams: int, wolves: int, owner_token: str | None = None,
                    if_match: int | None = None) -> None:
        with self._transaction() as db:
            if self._as_owner(db, room_id, owner_token, if_match) != "two-player":
                raise Invalid("the neutral pile is a two-player game's: this room is not one")
            db.execute("UPDATE rooms SET neutral_streams = ?, neutral_wolves = ?, neutral_given = 1 WHERE id = ?",
                       (streams, wolves, room_id))

    def set_bot(self, room_id: str, grid: list[list[str | None]], owner_token: str | None = None, if_match: int | None = None) -> None:
        with self._transaction() as db:
            if self._as_owner(db, room_id, owner_token, if_match) != "solo":
                raise Invalid("the bot plays a solo game: this room is not one")
            db.execute("UPDATE rooms SET bot_grid = ? WHERE id = ?", (json.dumps(grid), room_id))

    # players
    def _check_name(self, db, room_id: str, name: str, besides: str | None = None, mode: str = "game") -> None:
        """Refuse a name that clashes with another player's, and a player past the room's cap (a
        two-player room seats two, a solo room one: a third player left a two-player room with
        no score at all)."""
        others = [n for (n,) in db.execute("SELECT name FROM players WHERE room_id = ?", (room_id,)) if n != besides]
        clash = next((n for n in others if names.alike(n, name)), None)
        if clash == name:  # ("'Bob' is too like 'Bob'": an attack on a running server)
            raise Invalid(f"{name!r} is already in this room; choose another name")
        if clash is not None:
            raise Invalid(f"{name!r} is too like {clash!r}, already in this room; choose another name")
        seats = self.seats(mode)
        if besides is None and len(others) >= seats:
            if seats < self.max_players:
                raise Invalid(f"a {mode} room seats {seats}: it is full")
            raise Invalid(f"the room is full: at most {self.max_players} players")

    def seats(self, mode: str) -> int:
        """The players a room of ``mode`` takes at most, the solo bot aside."""
        return SEATS.get(mode, min(self.max_players, GAME_SEATS))

    def put_player(self, room_id: str, name: str, grid: list[list[str | None]], read: ReadDoc | None, overlay: bytes | None,
                   token: str | None, if_match: int | None = None) -> tuple[str, int]:
        """Add a player (a new secret token) or replace their tableau (their token and version).

        Returns (token, version). The tableau, its read and its overlay are written in one
        transaction: all or nothing."""
        with self._transaction() as db:
            mode, _, room_before = self._bump(db, room_id)
            existing = self._check_put(db, room_id, mode, name, token, if_match)
            overlay_id = self._put_overlay(db, overlay) if overlay else (existing[1] if existing else None)
            encoded = (json.dumps(grid), json.dumps(read) if read else None, overlay_id, time.time())
            if existing:
                db.execute("UPDATE players SET grid = ?, read = ?, overlay_id = ?, updated = ?, version = version + 1 "
                           "WHERE room_id = ? AND name = ?", (*encoded, room_id, name))
                # The photo replaced goes with it: it stayed public at its address for days (an attack).
                if existing[1] and existing[1] != overlay_id:
                    db.execute("DELETE FROM overlays WHERE id = ?", (existing[1],))
                assert token is not None  # the player's own: checked above
                return token, existing[2] + 1
            token = secrets.token_urlsafe(18)
            # A new player's first version is the room's, not 1: each player write bumps the room
            # too, so no later player of the same name can meet a version an earlier one had (a
            # stale If-Match "1" removed a newcomer who took a renamed player's name).
            version = room_before + 1
            db.execute("INSERT INTO players (room_id, name, token_hash, grid, read, overlay_id, updated, version) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", (room_id, name, token_hash(token), *encoded, version))
            return token, version

    def check_put(self, room_id: str, name: str, token: str | None, if_match: int | None = None) -> None:
        """``put_player``'s refusals, before a photo is read for it (a read is the costly part:
        a full room's, or another's name's, photos were read and then refused: an attack).
        ``put_player`` checks again as it writes."""
        with self.db.snapshot() as db:
            row = db.execute("SELECT mode FROM rooms WHERE id = ?", (room_id,)).fetchone()
            if row is None:
                raise NotFound(f"no room {room_id!r}")
            self._check_put(db, room_id, row[0], name, token, if_match)

    def _check_put(self, db, room_id: str, mode: str, name: str, token: str | None, if_match: int | None):
        """The player's row (token hash, overlay, version) if they are in the room, after the
        checks of a write to it: their token and version, or a new player's name and seat."""
        existing = db.execute(
            "SELECT token_hash, overlay_id, version FROM players WHERE room_id = ? AND name = ?", (room_id, name)
        ).fetchone()
        if existing:
            if token is None or not holds(existing[0], token):
                raise Forbidden(f"{name!r} already has a tableau in this room; only that player can replace it")
            self._check_version(name, existing[2], if_match)
        elif if_match is not None:
            # A correction made on a version of a player who has since been renamed or
            # removed: writing it would add the tableau again under the old name.
            raise _gone(name)
        else:
            self._check_name(db, room_id, name, mode=mode)
        return existing

    @staticmethod
    def _check_version(name: str, current: int, if_match: int | None) -> None:
        if if_match is None:
            raise PreconditionRequired(f"replacing {name!r}'s tableau needs If-Match with the version you saw "
                                       f"(now {current})")
        if if_match not in (ANY_VERSION, current):
            raise Conflict(f"{name!r}'s tableau changed meanwhile (version {current}, you had {if_match}); "
                           "reload it and correct again", current)

    def _player(self, db, room_id: str, name: str, if_match: int | None = None):
        row = db.execute("SELECT token_hash, version FROM players WHERE room_id = ? AND name = ?",
                         (room_id, name)).fetchone()
        if row is None and if_match is not None:  # as a correction on a gone player is answered (412)
            raise _gone(name)
        if row is None:
            raise NotFound(f"no player {name!r} in room {room_id!r}")
        return row

    def rename_player(self, room_id: str, name: str, new_name: str, token: str | None, if_match: int | None) -> int:
        with self._transaction() as db:
            _, _, room_before = self._bump(db, room_id)
            stored, version = self._player(db, room_id, name, if_match)
            if not holds(stored, token):
                raise Forbidden(f"only {name!r} can rename themselves (X-Player-Token)")
            self._check_version(name, version, if_match)
            self._check_name(db, room_id, new_name, besides=name)
            # Under the new name, a version no player of that name had (as a new player's: the
            # room's). Kept as it was, a stale If-Match for a player who left removed the one
            # renamed to their name (an attack on a running server).
            db.execute("UPDATE players SET name = ?, version = ?, updated = ? WHERE room_id = ? AND name = ?",
                       (new_name, room_before + 1, time.time(), room_id, name))
            return room_before + 1

    def remove_player(self, room_id: str, name: str, token: str | None, owner_token: str | None,
                      if_match: int | None = None) -> None:
        """A player leaves (their token) or is removed by the room's creator (the owner token);
        with ``if_match``, only the version of the player the remover saw."""
        with self._transaction() as db:
            _, owner, _ = self._bump(db, room_id)
            stored, version = self._player(db, room_id, name, if_match)
            if not (holds(stored, token) or holds(owner, owner_token)):
                raise Forbidden(f"only {name!r} or the room's creator can remove {name!r}")
            if if_match is not None:
                self._check_version(name, version, if_match)
            # The player's photo leaves with them (it stayed public at its address: an attack).
            db.execute("DELETE FROM overlays WHERE id IN (SELECT overlay_id FROM players WHERE room_id = ? AND name = ?)",
                       (room_id, name))
            db.execute("DELETE FROM players WHERE room_id = ? AND name = ?", (room_id, name))

    # overlays
    def _put_overlay(self, db, jpeg: bytes, client: str = "") -> str:
        overlay_id = secrets.token_urlsafe(12)
        db.execute("INSERT INTO overlays (id, created, jpeg, client) VALUES (?, ?, ?, ?)",
                   (overlay_id, time.time(), jpeg, client))
        unheld = "id NOT IN (SELECT overlay_id FROM players WHERE overlay_id IS NOT NULL)"
        # Its own client's oldest first (an address flooding uploads pushed out everyone's photos),
        db.execute(f"DELETE FROM overlays WHERE id IN (SELECT id FROM overlays WHERE client = ? AND {unheld} "
                   f"ORDER BY created DESC {self.db.all_rows} OFFSET ?)", (client, KEEP_OVERLAYS_PER_CLIENT))
        # then, the store bounded: the oldest picture no room refers to of the client holding most
        # of them. The oldest of all, whoever's, let ten addresses' uploads push out a player's
        # photo while its cards were still being named (an attack on a running server).
        # (A few a write at most: a store far over its bound, the bound lowered, drains over the next
        # writes rather than holding the write lock for one; a review.)
        for _ in range(EVICTIONS_PER_WRITE):
            if db.execute(f"SELECT COUNT(*) FROM overlays WHERE {unheld}").fetchone()[0] <= KEEP_OVERLAYS:
                break
            db.execute(f"DELETE FROM overlays WHERE id IN (SELECT id FROM overlays WHERE {unheld} AND client = "
                       f"(SELECT client FROM overlays WHERE {unheld} GROUP BY client ORDER BY COUNT(*) DESC, MIN(created) "
                       f"LIMIT 1) ORDER BY created LIMIT 1)")
        return overlay_id

    def put_overlay(self, jpeg: bytes, client: str = "") -> str:
        """Keep a picture (a photo, its overlay) for a while; ``client``: whose upload it is
        (``starts.client_key``), whose own pictures it may push out."""
        with self._transaction() as db:
            return self._put_overlay(db, jpeg, client)

    def overlay(self, overlay_id: str) -> bytes:
        with self._connect() as db:
            row = db.execute("SELECT jpeg FROM overlays WHERE id = ?", (overlay_id,)).fetchone()
        if row is None:
            raise NotFound(f"no overlay {overlay_id!r}")
        return row[0]

    # retention
    def prune(self, idle_days: float, now: float | None = None) -> dict[str, int]:
        """Delete rooms unwritten for ``idle_days`` with their players and overlays, overlays of
        single photos (no room) as old, and starts that left the hour. Returns what went."""
        now = now or time.time()
        cutoff = now - idle_days * 86400
        with self._transaction() as db:
            if self.dialect == "postgresql":  # workers prune on a timer: one at a time is enough
                if not db.execute("SELECT pg_try_advisory_xact_lock(?)", (migrations.PG_LOCK + 1,)).fetchone()[0]:
                    return {"rooms": 0, "players": 0, "overlays": 0, "starts": 0}
            # The idle rooms held first (on PostgreSQL), passing over those a writer holds: deleted
            # by what a subquery had seen, a room written meanwhile lost every player, the write
            # acknowledged (an attack). A writer that comes after waits, then finds the room gone.
            idle = [row[0] for row in db.execute("SELECT id FROM rooms WHERE updated < ?" + self.db.take_free_rows,
                                                 (cutoff,)).fetchall()]
            overlays, players, rooms = self._drop_rooms(db, idle)
            overlays += db.execute("DELETE FROM overlays WHERE created < ? AND id NOT IN "
                                   "(SELECT overlay_id FROM players WHERE overlay_id IS NOT NULL)", (cutoff,)).rowcount
            # Starts that left the hour (a client's own go at its next start).
            starts = db.execute("DELETE FROM starts WHERE at <= ?", (now - HOUR,)).rowcount
        return {"rooms": rooms, "players": players, "overlays": overlays, "starts": starts}
