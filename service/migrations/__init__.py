"""The store's schema, as numbered steps: ``NNNN_what.<dialect>.sql``, one file per database kind.

``upgrade`` applies, in one transaction, every step a database has not had yet and records each
in ``schema_migrations``; a database made before this table existed (the SQLite store of issues
10-17) is taken from the start, every step being safe to repeat on it: tables are created only
if missing, and a column that is there already is skipped. Add a step by adding both files with
the next number; never edit a step that has shipped.
"""
from __future__ import annotations

import re
import time
from importlib import resources

STEP = re.compile(r"^(\d{4})_([a-z0-9_]+)\.(sqlite|postgresql)\.sql$")
TABLE = "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied {real} NOT NULL)"
PG_LOCK = 0x65636F73  # the advisory lock that keeps two workers starting at once from both migrating


def steps(dialect: str) -> list[tuple[int, str, str]]:
    """(number, name, SQL) of every step for ``dialect``, in order."""
    found = []
    for entry in resources.files(__package__).iterdir():
        m = STEP.match(entry.name)
        if m and m.group(3) == dialect:
            found.append((int(m.group(1)), m.group(2), entry.read_text(encoding="utf-8")))
    found.sort()
    numbers = [n for n, _, _ in found]
    assert numbers == list(range(1, len(found) + 1)), f"migration steps out of sequence: {numbers}"
    return found


def statements(sql: str) -> list[str]:
    """A step's statements (no step has a ';' inside a string literal)."""
    lines = [line.split("--", 1)[0] for line in sql.splitlines()]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]


def head(dialect: str) -> int:
    return len(steps(dialect))


def upgrade(db, dialect: str) -> list[int]:
    """Bring the database behind ``db`` (the store's connection wrapper, inside a transaction)
    up to date; returns the steps applied."""
    if dialect == "postgresql":
        db.execute("SELECT pg_advisory_xact_lock(?)", (PG_LOCK,))
    db.execute(TABLE.format(real="DOUBLE PRECISION" if dialect == "postgresql" else "REAL"))
    done = {v for (v,) in db.execute("SELECT version FROM schema_migrations")}
    applied = []
    for number, name, sql in steps(dialect):
        if number in done:
            continue
        for statement in statements(sql):
            if dialect == "sqlite" and (m := re.match(r"ALTER TABLE (\w+) ADD COLUMN (\w+)", statement, re.I)):
                table, column = m.groups()
                if column in {row[1] for row in db.execute(f"PRAGMA table_info({table})")}:
                    continue  # a store from before migrations that has this column already
            db.execute(statement)
        db.execute("INSERT INTO schema_migrations (version, name, applied) VALUES (?, ?, ?)",
                   (number, name, time.time()))
        applied.append(number)
    return applied
