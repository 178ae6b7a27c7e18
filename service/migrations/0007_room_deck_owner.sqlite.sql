-- Whose deck a room reads with (the deck's owner-token hash as the room was started; '' for one
-- enrolled on the server): a deck removed and its name taken by someone else no longer reads
-- the room's photos (an attack: a stranger's deck of that name, named wrong, read every card).
ALTER TABLE rooms ADD COLUMN deck_owner TEXT NOT NULL DEFAULT '';
