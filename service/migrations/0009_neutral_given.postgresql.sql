-- Whether a two-player room's creator has given the neutral pile: 0 streams and 0 wolves was the
-- pile before anyone said, and the game was final with the majorities the pile may take (an
-- attack on a running server). A room with a pile other than 0 and 0 has had it given.
ALTER TABLE rooms ADD COLUMN IF NOT EXISTS neutral_given INTEGER NOT NULL DEFAULT 0;
UPDATE rooms SET neutral_given = 1 WHERE neutral_streams <> 0 OR neutral_wolves <> 0;
