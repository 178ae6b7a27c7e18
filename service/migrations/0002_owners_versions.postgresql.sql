-- Owners, retention and per-player versions (issue 17).
ALTER TABLE rooms ADD COLUMN IF NOT EXISTS owner_hash TEXT;
ALTER TABLE rooms ADD COLUMN IF NOT EXISTS updated DOUBLE PRECISION;
ALTER TABLE players ADD COLUMN IF NOT EXISTS version INTEGER NOT NULL DEFAULT 1;
UPDATE rooms SET updated = created WHERE updated IS NULL;
