-- Who started a room (``starts.client_key``; '' for one started from the command line): a client
-- holds at most ``rooms_per_client`` rooms at once. Rooms that each keep one player are never
-- taken for new ones, so a client at its hourly share of starts filled the store in days and kept
-- it with a write a month (an attack on a running server).
ALTER TABLE rooms ADD COLUMN starter TEXT NOT NULL DEFAULT '';
CREATE INDEX IF NOT EXISTS rooms_by_starter ON rooms (starter, updated);
