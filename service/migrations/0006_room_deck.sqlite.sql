-- The deck every photo of a room is read with, chosen by the phone that started it: a player's
-- own deck, taught on one phone, was unknown to every other phone in the room (a walk), and
-- each would have had to teach it again.
ALTER TABLE rooms ADD COLUMN deck TEXT NOT NULL DEFAULT '';
