-- Owners, retention and per-player versions (issue 17). A store opened by the service between
-- issue 17 and migrations has these columns already: the runner skips a column that exists.
ALTER TABLE rooms ADD COLUMN owner_hash TEXT;  -- NULL: a room made before owners; its settings are closed
ALTER TABLE rooms ADD COLUMN updated REAL;  -- last write, for retention
ALTER TABLE players ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
UPDATE rooms SET updated = created WHERE updated IS NULL;
