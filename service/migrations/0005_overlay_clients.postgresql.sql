-- Whose upload each overlay came from (starts.py's client key), so one client's uploads can push
-- out only its own pictures: with one cap for all, ~1,000 uploads from one address took every
-- other player's photo away (an attack on a running server).
ALTER TABLE overlays ADD COLUMN IF NOT EXISTS client TEXT NOT NULL DEFAULT '';
CREATE INDEX IF NOT EXISTS overlays_by_client ON overlays (client, created);
