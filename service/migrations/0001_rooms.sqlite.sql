-- The first store: rooms, players, overlays (as the service made them before owners and versions).
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
