"""The service's store: game rooms, their players' tableaux, and overlay pictures.

SQLite by default (a file in the data folder), one short transaction per change, so a failure
leaves nothing half-written and a restart finds every room as it was. ``--db`` takes a URL so a
server database can be added later; only ``sqlite:///PATH`` is implemented.
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


class StoreError(ValueError):
    """A request the store refuses (unknown room, wrong token ...); the message says why."""


class Forbidden(StoreError):
    pass


class NotFound(StoreError):
    pass


@dataclass
class PlayerRow:
    name: str
    grid: list
    read: dict | None
    overlay_id: str | None
    updated: float


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


def path_from_url(url: str) -> Path:
    if not url.startswith("sqlite:///"):
        raise StoreError(f"unsupported database URL {url!r}: only sqlite:///PATH is implemented")
    return Path(url[len("sqlite:///"):])


class Store:
    def __init__(self, url: str):
        self.path = path_from_url(url)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as db:
            db.executescript(SCHEMA)

    @contextmanager
    def _connect(self):
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA foreign_keys=ON")
        try:
            yield db
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
    def create_room(self, mode: str = "game") -> str:
        if mode not in MODES:
            raise StoreError(f"unknown room mode {mode!r}: one of {', '.join(MODES)}")
        room_id = "".join(secrets.choice(ROOM_ALPHABET) for _ in range(ROOM_ID_LENGTH))
        with self._transaction() as db:
            db.execute("INSERT INTO rooms (id, mode, created) VALUES (?, ?, ?)", (room_id, mode, time.time()))
        return room_id

    def room(self, room_id: str) -> Room:
        with self._connect() as db:
            row = db.execute(
                "SELECT id, mode, created, neutral_streams, neutral_wolves, bot_grid, version FROM rooms WHERE id = ?",
                (room_id,),
            ).fetchone()
            if row is None:
                raise NotFound(f"no room {room_id!r}")
            players = [
                PlayerRow(name, json.loads(grid), json.loads(read) if read else None, overlay, updated)
                for name, grid, read, overlay, updated in db.execute(
                    "SELECT name, grid, read, overlay_id, updated FROM players WHERE room_id = ? ORDER BY rowid",
                    (room_id,),
                )
            ]
        return Room(row[0], row[1], row[2], (row[3], row[4]), json.loads(row[5]) if row[5] else None, row[6], players)

    def set_neutral(self, room_id: str, streams: int, wolves: int) -> None:
        with self._transaction() as db:
            self._bump(db, room_id)
            db.execute("UPDATE rooms SET neutral_streams = ?, neutral_wolves = ? WHERE id = ?", (streams, wolves, room_id))

    def set_bot(self, room_id: str, grid: list) -> None:
        with self._transaction() as db:
            self._bump(db, room_id)
            db.execute("UPDATE rooms SET bot_grid = ? WHERE id = ?", (json.dumps(grid), room_id))

    def _bump(self, db, room_id: str) -> None:
        if db.execute("UPDATE rooms SET version = version + 1 WHERE id = ?", (room_id,)).rowcount == 0:
            raise NotFound(f"no room {room_id!r}")

    # players
    def put_player(self, room_id: str, name: str, grid: list, read: dict | None, overlay: bytes | None,
                   token: str | None) -> str:
        """Add a player (returns a new secret token) or replace their tableau (needs their token).

        The tableau, its read and its overlay are written in one transaction: all or nothing."""
        with self._transaction() as db:
            self._bump(db, room_id)
            existing = db.execute(
                "SELECT token_hash, overlay_id FROM players WHERE room_id = ? AND name = ?", (room_id, name)
            ).fetchone()
            if existing and not (token and hmac.compare_digest(existing[0], _hash(token))):
                raise Forbidden(f"{name!r} already has a tableau in this room; only that player can replace it")
            overlay_id = self._put_overlay(db, overlay) if overlay else (existing[1] if existing else None)
            if existing:
                db.execute(
                    "UPDATE players SET grid = ?, read = ?, overlay_id = ?, updated = ? WHERE room_id = ? AND name = ?",
                    (json.dumps(grid), json.dumps(read) if read else None, overlay_id, time.time(), room_id, name),
                )
                return token
            token = secrets.token_urlsafe(18)
            db.execute(
                "INSERT INTO players (room_id, name, token_hash, grid, read, overlay_id, updated) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (room_id, name, _hash(token), json.dumps(grid), json.dumps(read) if read else None, overlay_id, time.time()),
            )
            return token

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
