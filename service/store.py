"""The service's store: game rooms, their players' tableaux, and overlay pictures.

SQLite by default (a file in the data folder), one short transaction per change, so a failure
leaves nothing half-written and a restart finds every room as it was. ``--db`` takes a URL so a
server database can be added later; only ``sqlite:///PATH`` is implemented.

Who may write what: a room's creator holds its owner token (room-wide settings, removing any
player); each player holds a token for their own tableau (replace, rename, leave). Tokens are
kept hashed. Every player carries a version, and replacing or renaming needs the version the
writer last saw, so two corrections at once cannot silently undo each other. Methods here are
blocking: the app calls them from a worker thread, never on the event loop.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import sqlite3
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from . import names

ROOM_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"  # no 0/o, 1/l/i: easy to read out and type
ROOM_ID_LENGTH = 10  # 31^10 ≈ 2^49: not guessable, still short enough to type
MODES = ("game", "two-player", "solo")
KEEP_OVERLAYS = 2000

SCHEMA = """
CREATE TABLE IF NOT EXISTS rooms (
    id TEXT PRIMARY KEY,
    mode TEXT NOT NULL,
    created REAL NOT NULL,
    neutral_streams INTEGER NOT NULL DEFAULT 0,
    neutral_wolves INTEGER NOT NULL DEFAULT 0,
    bot_grid TEXT,
    version INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS players (
    room_id TEXT NOT NULL REFERENCES rooms(id),
    name TEXT NOT NULL,
    token_hash TEXT NOT NULL,
    grid TEXT NOT NULL,
    read TEXT,
    overlay_id TEXT,
    updated REAL NOT NULL,
    PRIMARY KEY (room_id, name)
);
CREATE TABLE IF NOT EXISTS overlays (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    jpeg BLOB NOT NULL
);
"""
# Columns added since the first release: (table, column, declaration). Old stores gain them on start.
MIGRATIONS = [
    ("rooms", "owner_hash", "TEXT"),  # NULL: a room made before owners; its settings are closed
    ("rooms", "updated", "REAL"),  # last write, for retention
    ("players", "version", "INTEGER NOT NULL DEFAULT 1"),
]


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


class PreconditionRequired(StoreError):
    """Replacing a tableau needs the version the writer saw (If-Match)."""


class Busy(StoreError):
    """The database stayed locked longer than the configured wait."""


@dataclass
class PlayerRow:
    name: str
    grid: list
    read: dict | None
    overlay_id: str | None
    updated: float
    version: int = 1


@dataclass
class Room:
    id: str
    mode: str
    created: float
    neutral: tuple[int, int]
    bot_grid: list | None
    version: int
    players: list[PlayerRow]


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _holds(token_hash: str | None, token: str | None) -> bool:
    return bool(token_hash and token and hmac.compare_digest(token_hash, _hash(token)))


def path_from_url(url: str) -> Path:
    if not url.startswith("sqlite:///"):
        raise StoreError(f"unsupported database URL {url!r}: only sqlite:///PATH is implemented")
    return Path(url[len("sqlite:///"):])


class Store:
    def __init__(self, url: str, *, lock_timeout: float = 5.0, max_players: int = 8):
        self.path = path_from_url(url)
        self.lock_timeout = lock_timeout
        self.max_players = max_players
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as db:
            db.executescript(SCHEMA)
            for table, column, decl in MIGRATIONS:
                if column not in {row[1] for row in db.execute(f"PRAGMA table_info({table})")}:
                    db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {decl}")
            db.execute("UPDATE rooms SET updated = created WHERE updated IS NULL")

    @contextmanager
    def _connect(self):
        # A short lock wait: a writer queued behind a long one is answered 503, not held for 30 s.
        db = sqlite3.connect(self.path, timeout=self.lock_timeout, isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA foreign_keys=ON")
            yield db
        except sqlite3.OperationalError as err:
            if "locked" in str(err) or "busy" in str(err):
                raise Busy("the database is busy; try again in a moment") from None
            raise
        finally:
            db.close()

    @contextmanager
    def _transaction(self):
        with self._connect() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    # rooms
    def create_room(self, mode: str = "game") -> tuple[str, str]:
        """A new room: (its id, the owner token, shown once)."""
        if mode not in MODES:
            raise Invalid(f"unknown room mode {mode!r}: one of {', '.join(MODES)}")
        room_id = "".join(secrets.choice(ROOM_ALPHABET) for _ in range(ROOM_ID_LENGTH))
        owner = secrets.token_urlsafe(18)
        now = time.time()
        with self._transaction() as db:
            db.execute("INSERT INTO rooms (id, mode, created, updated, owner_hash) VALUES (?, ?, ?, ?, ?)",
                       (room_id, mode, now, now, _hash(owner)))
        return room_id, owner

    def room(self, room_id: str) -> Room:
        with self._connect() as db:
            row = db.execute(
                "SELECT id, mode, created, neutral_streams, neutral_wolves, bot_grid, version FROM rooms WHERE id = ?",
                (room_id,),
            ).fetchone()
            if row is None:
                raise NotFound(f"no room {room_id!r}")
            players = [
                PlayerRow(name, json.loads(grid), json.loads(read) if read else None, overlay, updated, version)
                for name, grid, read, overlay, updated, version in db.execute(
                    "SELECT name, grid, read, overlay_id, updated, version FROM players WHERE room_id = ? ORDER BY rowid",
                    (room_id,),
                )
            ]
        return Room(row[0], row[1], row[2], (row[3], row[4]), json.loads(row[5]) if row[5] else None, row[6], players)

    def _bump(self, db, room_id: str) -> str:
        """Count a write to the room (its version, its last use); returns its mode."""
        if db.execute("UPDATE rooms SET version = version + 1, updated = ? WHERE id = ?",
                      (time.time(), room_id)).rowcount == 0:
            raise NotFound(f"no room {room_id!r}")
        return db.execute("SELECT mode FROM rooms WHERE id = ?", (room_id,)).fetchone()[0]

    def _as_owner(self, db, room_id: str, owner_token: str | None, if_match: int | None) -> str:
        row = db.execute("SELECT owner_hash, version FROM rooms WHERE id = ?", (room_id,)).fetchone()
        if row is None:
            raise NotFound(f"no room {room_id!r}")
        if not _holds(row[0], owner_token):
            raise Forbidden("only the room's creator can change its settings (X-Room-Token)")
        if if_match is not None and if_match != row[1]:
            raise Conflict(f"the room changed (version {row[1]}, you had {if_match}); reload and try again", row[1])
        return self._bump(db, room_id)

    def set_neutral(self, room_id: str, streams: int, wolves: int, owner_token: str | None = None,
                    if_match: int | None = None) -> None:
        with self._transaction() as db:
            self._as_owner(db, room_id, owner_token, if_match)
            db.execute("UPDATE rooms SET neutral_streams = ?, neutral_wolves = ? WHERE id = ?", (streams, wolves, room_id))

    def set_bot(self, room_id: str, grid: list, owner_token: str | None = None, if_match: int | None = None) -> None:
        with self._transaction() as db:
            self._as_owner(db, room_id, owner_token, if_match)
            db.execute("UPDATE rooms SET bot_grid = ? WHERE id = ?", (json.dumps(grid), room_id))

    # players
    def _check_name(self, db, room_id: str, name: str, besides: str | None = None) -> None:
        """Refuse a name that clashes with another player's, and a player past the room's cap."""
        others = [n for (n,) in db.execute("SELECT name FROM players WHERE room_id = ?", (room_id,)) if n != besides]
        clash = next((n for n in others if names.key(n) == names.key(name)), None)
        if clash is not None:
            raise Invalid(f"{name!r} is too like {clash!r}, already in this room; choose another name")
        if besides is None and len(others) >= self.max_players:
            raise Invalid(f"the room is full: at most {self.max_players} players")

    def put_player(self, room_id: str, name: str, grid: list, read: dict | None, overlay: bytes | None,
                   token: str | None, if_match: int | None = None) -> tuple[str, int]:
        """Add a player (a new secret token) or replace their tableau (their token and version).

        Returns (token, version). The tableau, its read and its overlay are written in one
        transaction: all or nothing."""
        with self._transaction() as db:
            self._bump(db, room_id)
            existing = db.execute(
                "SELECT token_hash, overlay_id, version FROM players WHERE room_id = ? AND name = ?", (room_id, name)
            ).fetchone()
            if existing:
                if not _holds(existing[0], token):
                    raise Forbidden(f"{name!r} already has a tableau in this room; only that player can replace it")
                self._check_version(name, existing[2], if_match)
            else:
                self._check_name(db, room_id, name)
            overlay_id = self._put_overlay(db, overlay) if overlay else (existing[1] if existing else None)
            encoded = (json.dumps(grid), json.dumps(read) if read else None, overlay_id, time.time())
            if existing:
                db.execute("UPDATE players SET grid = ?, read = ?, overlay_id = ?, updated = ?, version = version + 1 "
                           "WHERE room_id = ? AND name = ?", (*encoded, room_id, name))
                return token, existing[2] + 1
            token = secrets.token_urlsafe(18)
            db.execute("INSERT INTO players (room_id, name, token_hash, grid, read, overlay_id, updated, version) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, 1)", (room_id, name, _hash(token), *encoded))
            return token, 1

    @staticmethod
    def _check_version(name: str, current: int, if_match: int | None) -> None:
        if if_match is None:
            raise PreconditionRequired(f"replacing {name!r}'s tableau needs If-Match with the version you saw "
                                       f"(now {current})")
        if if_match != current:
            raise Conflict(f"{name!r}'s tableau changed meanwhile (version {current}, you had {if_match}); "
                           "reload it and correct again", current)

    def _player(self, db, room_id: str, name: str):
        row = db.execute("SELECT token_hash, version FROM players WHERE room_id = ? AND name = ?",
                         (room_id, name)).fetchone()
        if row is None:
            raise NotFound(f"no player {name!r} in room {room_id!r}")
        return row

    def rename_player(self, room_id: str, name: str, new_name: str, token: str | None, if_match: int | None) -> int:
        with self._transaction() as db:
            self._bump(db, room_id)
            token_hash, version = self._player(db, room_id, name)
            if not _holds(token_hash, token):
                raise Forbidden(f"only {name!r} can rename themselves (X-Player-Token)")
            self._check_version(name, version, if_match)
            self._check_name(db, room_id, new_name, besides=name)
            db.execute("UPDATE players SET name = ?, version = version + 1, updated = ? WHERE room_id = ? AND name = ?",
                       (new_name, time.time(), room_id, name))
            return version + 1

    def remove_player(self, room_id: str, name: str, token: str | None, owner_token: str | None) -> None:
        """A player leaves (their token) or is removed by the room's creator (the owner token)."""
        with self._transaction() as db:
            self._bump(db, room_id)
            token_hash, _ = self._player(db, room_id, name)
            owner = db.execute("SELECT owner_hash FROM rooms WHERE id = ?", (room_id,)).fetchone()[0]
            if not (_holds(token_hash, token) or _holds(owner, owner_token)):
                raise Forbidden(f"only {name!r} or the room's creator can remove {name!r}")
            db.execute("DELETE FROM players WHERE room_id = ? AND name = ?", (room_id, name))

    # overlays
    def _put_overlay(self, db, jpeg: bytes) -> str:
        overlay_id = secrets.token_urlsafe(12)
        db.execute("INSERT INTO overlays (id, created, jpeg) VALUES (?, ?, ?)", (overlay_id, time.time(), jpeg))
        # Keep the store bounded: drop the oldest overlays no room refers to.
        db.execute(
            "DELETE FROM overlays WHERE id IN (SELECT id FROM overlays WHERE id NOT IN "
            "(SELECT overlay_id FROM players WHERE overlay_id IS NOT NULL) ORDER BY created DESC LIMIT -1 OFFSET ?)",
            (KEEP_OVERLAYS,),
        )
        return overlay_id

    def put_overlay(self, jpeg: bytes) -> str:
        with self._transaction() as db:
            return self._put_overlay(db, jpeg)

    def overlay(self, overlay_id: str) -> bytes:
        with self._connect() as db:
            row = db.execute("SELECT jpeg FROM overlays WHERE id = ?", (overlay_id,)).fetchone()
        if row is None:
            raise NotFound(f"no overlay {overlay_id!r}")
        return row[0]

    # retention
    def prune(self, idle_days: float, now: float | None = None) -> dict[str, int]:
        """Delete rooms unwritten for ``idle_days`` with their players and overlays, and overlays of
        single photos (no room) as old. Returns what went."""
        cutoff = (now or time.time()) - idle_days * 86400
        idle = "SELECT id FROM rooms WHERE updated < ?"
        with self._transaction() as db:
            overlays = db.execute(f"DELETE FROM overlays WHERE id IN (SELECT overlay_id FROM players "
                                  f"WHERE room_id IN ({idle}))", (cutoff,)).rowcount
            players = db.execute(f"DELETE FROM players WHERE room_id IN ({idle})", (cutoff,)).rowcount
            rooms = db.execute("DELETE FROM rooms WHERE updated < ?", (cutoff,)).rowcount
            overlays += db.execute("DELETE FROM overlays WHERE created < ? AND id NOT IN "
                                   "(SELECT overlay_id FROM players WHERE overlay_id IS NOT NULL)", (cutoff,)).rowcount
        return {"rooms": rooms, "players": players, "overlays": overlays}
