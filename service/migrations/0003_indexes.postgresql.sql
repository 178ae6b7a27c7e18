-- Retention looks rooms up by their last write, and overlays by age.
CREATE INDEX IF NOT EXISTS rooms_updated ON rooms (updated);
CREATE INDEX IF NOT EXISTS overlays_created ON overlays (created);
CREATE INDEX IF NOT EXISTS players_overlay ON players (overlay_id);
