-- Rooms and decks each client started in the last hour, for its share (starts.py): kept in the
-- database so that every worker and machine counts one share, not one each.
CREATE TABLE IF NOT EXISTS starts (
    kind TEXT NOT NULL,
    client TEXT NOT NULL,
    at DOUBLE PRECISION NOT NULL
);
CREATE INDEX IF NOT EXISTS starts_by_client ON starts (kind, client, at);
CREATE INDEX IF NOT EXISTS starts_at ON starts (at);
