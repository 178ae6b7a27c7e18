"""The message catalogues: complete in every language, and every message the reader, the scorer
and the service send matched by a template (so it reaches the player translated)."""
import errno
import re
from pathlib import Path

import pytest

from ecoscore.scoring import CardType, parse_card
from ecoscore.service import i18n, translation
from ecoscore.service.routes.photos import for_the_page
from ecoscore.vision.refusals import not_this_deck

STATIC = Path(i18n.__file__).resolve().parent / "static"
CATEGORIES = {"en": {"one", "other"}, "it": {"one", "other"}, "cs": {"one", "few", "other"}, "ru": {"one", "few", "many"}}


def placeholders(value) -> set[str]:
    forms = value.values() if isinstance(value, dict) else [value]
    return {name for form in forms for name in re.findall(r"\{(\w+)\}", form)}


@pytest.mark.parametrize("lang", [lang for lang in i18n.LANGS if lang != "en"])
def test_every_message_has_a_translation_with_the_same_parameters(lang):
    en, other = i18n.catalogue("en"), i18n.catalogue(lang)
    assert sorted(set(en) - set(other)) == [], f"{lang} lacks these messages"
    assert sorted(set(other) - set(en)) == [], f"{lang} has messages English does not"
    for key, value in other.items():
        assert placeholders(value) == placeholders(en[key]), (lang, key)
        if isinstance(en[key], dict):
            assert isinstance(value, dict) and CATEGORIES[lang] <= set(value), (lang, key, "plural forms")
        assert value and value != "", (lang, key)


def test_the_page_uses_only_messages_of_the_catalogue():
    html = (STATIC / "index.html").read_text()
    js = (STATIC / "app.js").read_text()
    used = set(re.findall(r'data-i18n="([\w.]+)"', html)) | {k for pair in re.findall(r'data-i18n-attr="([^"]+)"', html)
                                                              for k in re.findall(r":([\w.]+)", pair)}
    used |= set(re.findall(r'\bt\("([\w.]+)"', js))
    missing = sorted(k for k in used if k not in i18n.catalogue("en"))
    assert not missing
    for prefix in ("rule.", "group.", "ui.outcome."):  # keys built at run time
        assert any(k.startswith(prefix) for k in i18n.catalogue("en"))


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_card_names_are_the_editions_and_the_scorer_reads_them(lang):
    cat = i18n.catalogue(lang)
    for card in CardType:
        assert parse_card(cat[f"card.{card.value}"]) is card, (lang, card)
    editions = {"cs": "zajíc pstruh liška medvěd vážka včela orel vlk jelen potok louka",
                "ru": "кролик форель лиса медведь стрекоза пчела орёл волк олень ручей луг",
                "it": "coniglio trota volpe orso libellula ape aquila lupo cervo ruscello prato"}
    if lang in editions:
        assert [cat[f"card.{c.value}"] for c in CardType] == editions[lang].split()


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_undo_and_back_to_what_was_read_are_told_apart(lang):
    # Side by side over the photo, Russian's "Вернуть назад" (Undo) and "Вернуть распознанное" (back
    # to what was read) began with the same verb: which takes back one step was not to be told (a walk).
    cat = i18n.catalogue(lang)
    undo, revert = (cat[key].split()[0].lower() for key in ("ui.undo", "ui.revert"))
    assert undo != revert, (cat["ui.undo"], cat["ui.revert"])


def test_plural_rules_match_cldr():
    assert [i18n.plural_category("ru", n) for n in (1, 2, 5, 11, 21, 22, 25)] == ["one", "few", "many", "many", "one", "few", "many"]
    assert [i18n.plural_category("cs", n) for n in (1, 2, 4, 5)] == ["one", "few", "few", "other"]
    assert [i18n.plural_category("it", n) for n in (1, 2)] == ["one", "other"]


def test_counts_are_written_in_ascii_digits_only():
    # int() reads "1_0" as 10, and Arabic-Indic or full-width digits: none is a count a player types
    # (an attack found /api/photo's others= taking them all)
    from ecoscore.options import parse_others, parse_pair

    assert parse_others("5:2, 3 : 1,") == [(5, 2), (3, 1)] and parse_pair(" 4,2 ", "neutral") == (4, 2)
    for odd in ("1_0:2", "\u0663:\u0662", "\uff15:\uff12", "5:2:1", "5", "five:two"):
        with pytest.raises(ValueError, match="expected two whole numbers"):
            parse_others(odd)
    with pytest.raises(ValueError, match="cannot be negative"):
        parse_pair("-1,2", "neutral")


def test_accept_language():
    assert i18n.negotiate("cs-CZ,cs;q=0.9,en;q=0.8") == "cs"
    assert i18n.negotiate("de-DE,ru;q=0.5,it;q=0.7") == "it"
    assert i18n.negotiate("de") == "en" and i18n.negotiate(None) == "en"
    # a q-value outside RFC 9110's grammar drops its tag (it counted as q=1: "cs;q=abc" won)
    assert i18n.negotiate("en;q=0.9, cs;q=abc") == "en" and i18n.negotiate("it;q=1e999, ru;q=0.2") == "ru"
    assert i18n.negotiate("cs;q=0.500, en;q=0.4") == "cs" and i18n.negotiate("ru; q=1.000") == "ru"
    # a POSIX locale's tag (it_IT) was English
    assert i18n.negotiate("it_IT") == "it" and i18n.negotiate("ru_RU, en;q=0.5") == "ru"
    # only a browser's worth of it is read: 9,000 tags held the event loop 20 ms a request (an attack)
    assert i18n.negotiate("x;q=0.5," * 9000 + "cs") == "en" and i18n.negotiate("x," * 40 + "cs") == "en"
    assert i18n.negotiate("x," * 30 + "cs") == "cs"
    # ?lang= read as a tag too, first (?lang=it-IT answered in English: an attack)
    assert i18n.request_lang("it-IT", "cs") == "it" and i18n.request_lang("RU_ru", None) == "ru"
    assert i18n.request_lang("de-DE", "cs") == "cs" and i18n.request_lang("", "ru") == "ru"
    assert i18n.request_lang("-it", "cs") == "cs" and i18n.request_lang(None, None) == "en"


# Every English message the reader, the scorer and the service can send today (vision/pipeline.py,
# vision/naming.py, vision/decode.py, scoring/, service/): each must match a template, or it reaches players in English.
MESSAGES = [
    "a form field of more than 16 KB: a photo is sent as a file (its form part with a filename), and text fields are short",
    "Too many fields. Maximum number of fields is 64.",
    "Too many files. Maximum number of files is 64.",
    "row 2, col 3: low confidence: deer 40–61%, or fox 30%",
    "row 1, col 5: low confidence: empty 80%, or stream 12%",
    "row 4, col 1: a card was detected here (92%) but the cell reads as empty",
    "row 3, col 3: no card was detected here, yet the cell reads as bee",
    "row 1, col 1: 2 cards detected in one cell",
    "row 1, col 2: cell lies partly outside the photo: not read",
    "1 empty cell (row 1 col 1): a mid-game tableau, or a card missed",
    "2 empty cells (row 1 col 1, row 4 col 5): a mid-game tableau, or a card missed",
    "13 wolf cards read, but a deck holds only 12: a misread card?",
    "the cards do not sit on a regular grid (fit error 0.31 card widths)",
    "a whole edge row or column is empty: where the grid ends is a guess",
    "no card was found along one edge of the grid: its cards there were read where the grid puts them; check that "
    "edge against the table",
    "the grid was found only on a small copy of the photo: where it lies is a guess, so check every cell, or "
    "photograph the tableau from higher up",
    "its cards were found only by a second, less sure look at the photo: check every cell",
    "1 card in line with the grid but outside its 5 × 4 was left out",
    "3 cards in line with the grid but outside its 5 × 4 were left out",
    "6 cards lie side by side outside every tableau read: if they are a player's tableau, it was not read (photograph it alone, or closer)",
    "photo.jpg: no tableau found: 1 card detected, but no 5 × 4 grid of at least 5 aligned cards",
    "photo.jpg: no tableau found: no card detected in the photo",
    "photo.jpg: too many tableaux in one photo (grids of cards found: 42; a game has at most 8): photograph the "
    "tableaux of one game",
    "photo.jpg: no tableau read: a grid of 18 cards was found, but they do not read as cards of this deck: if it is "
    "your own deck, teach the page its cards (Name the cards of my deck); if no cards lie there (a play "
    "mat's printed slots, a pattern on the table), photograph the tableau itself",
    "photo.jpg: no tableau read: a grid of 19 cards was found, but none reads as a card of the deck kitchen: if they "
    "are its cards, this photo shows them unlike its references (another light, another edition): teach the deck this "
    "photo's cards too (Name the cards of my deck), or choose the right deck (Deck); if no cards "
    "lie there (a play mat's printed slots, a pattern on the table), photograph the tableau itself",
    "this photo holds 2 tableaux: the one with the most cards was taken as yours (photograph yours alone to be sure)",
    "this photo holds 3 tableaux: tableau 2 was taken as yours, those with more cards being other players' (photograph yours alone to be sure)",
    "ann: not an image (JPEG, PNG, WebP or HEIC expected)",
    "ann: the file is empty",
    "ann: the JPEG file is truncated (no end-of-image marker): its upload or copy stopped early",
    "ann: the JPEG file holds 3000 scans (a photo has at most a few dozen): not a camera's photo",
    "more names (3) than photos: one name a photo, in the photos' order (a photo of several tableaux names its "
    "players after it: Ann-1, Ann-2)",
    "the JPEG file holds more than 1000 segments before its image (a camera writes a few dozen): not a camera's photo",
    "the JPEG file holds more than 1 MB of bytes that belong to no segment before its image: damaged, or not a camera's "
    "photo",
    "the PNG file holds more than 1000 chunks (a PNG writer makes a handful, and its image data a few thousand at "
    "most): not a photo or a screenshot",
    "ann: the HEIC file is damaged and cannot be read",
    "ann: the image claims 70 MP; the limit is 60 MP",
    "ann: the image is 1 × 1 pixels: too small or too narrow to hold a tableau (at least 64 pixels across, at most 8:1)",
    "photo.jpg: no tableau read: a grid of 12 cards was found, but none of them reads as a card of the deck: this photo "
    "may be too blurred or too dark to name them (take it again), or they are another deck's cards (choose their deck)",
    "upload too large: the limit is 40 MB a photo",
    "p.jpg: upload too large: the limit is 40 MB",
    "at most 8 photos per game",
    "the neutral pile is for a game of two players, not of 3",
    "the service keeps at most 200 decks: no new one can be started (its keeper can remove some)",
    "deck 'kitchen' was enrolled on the server: change it there (`ecoscore deck add`)",
    "only the phone that started deck 'kitchen' can add cards to it (its X-Deck-Token)",
    "the neutral pile is a two-player game's: this room is not one",
    "the bot plays a solo game: this room is not one",
    "neutral: at most 20 streams and 12 wolves",
    "neutral pile: streams 5, wolves 2 (its streams one group): in the stream and wolf majorities, scoring nothing",
    "another player: largest stream 3, wolves 0: in the majorities",
    "the address holds a control character: no address of ecoscore does",
    "others: at most 100 streams or wolves a player",
    "at most 8 players in a game: the photos hold 12 tableaux",
    "'alice' already has a tableau in this room; only that player can replace it",
    "no room 'abc'",
    "alice has 13 wolf cards but a deck holds only 12: a misread card or a second deck",
    "the game has 21 stream cards but a deck holds only 20: a misread card or a second deck",
    "bot, row 1, cell 2: unknown card 'unicorn' (use a type name such as 'meadow', an alias such as 'louka', a code such as 'MD', or '.' for an empty cell)",
    "row 2, col 2: not a card of this deck (nearest: fox 31%), counted as empty: right if nothing lies here, else another "
    "game's card, a card face down, or the wrong deck chosen",
    "row 2, col 2: washed out by glare (nearest: fox 31%): take the photo again without the lamp's reflection on it",
    "no deck 'kitchen'; enrol one with `ecoscore deck add`",
    "no deck 'kitchen' on this server: choose one of its decks, or teach it yours from a photo of its cards",
    "the built-in deck cannot learn cards: name your own deck",
    "the built-in deck has learnt no cards: there is nothing to take back",
    "table.jpg: the grid and the cards found disagree at row 2 col 3, row 4 col 5: check the grid there, or photograph the tableau again, whole in the frame and from nearer above",
    "photo.jpg: cards were found at row 1 col 1, row 2 col 3, row 4 col 5 where the grid names none: name each of them, or where no card lies there, photograph the tableau again",
    "table.jpg: cannot tell which way the grid lies in the photo (it reads alike as written and turned 180°); photograph it from the side the grid was written from",
    "table.jpg: cannot tell where the grid lies on the cards found (only 12 cards were found; it reads alike as written, where the cards found put it and as written, 1 row off where the cards found put it): photograph the tableau again, whole in the frame, in even light and from nearer above",
    "row 2 col 3, row 4 col 1: the grid names a card there, but the card's edges were not found in the photo: no picture of it taken for the deck",
    "the service is busy reading photos; try again in 4 s",
    "the database is busy; try again in a moment",
    "the database is busy or unreachable; try again in a moment",
    "only the room's creator can change its settings (X-Room-Token)",
    "the room changed (version 5, you had 4); reload and try again",
    "'Аlice' is too like 'alice', already in this room; choose another name",
    "'Bob' is already in this room; choose another name",
    "the body is sent as it is, not compressed (Content-Encoding: gzip)",
    "the room is full: at most 8 players",
    "a two-player room seats 2: it is full",
    "a game room seats 6: it is full",
    "player names must differ; repeated: Ann",
    "the HEIC file is truncated: its upload or copy stopped early",
    "a name cannot stack more than two accents or marks on a letter",
    "a name cannot begin with an accent or a mark: type its letter first",
    "IMG_0001.jpg: the point 99999,99999 lies far outside the photo (1600 × 1200 pixels): give a point on the tableau to take",
    "the body is sent as JSON, with Content-Type: application/json (a browser's fetch or `curl -H 'Content-Type: "
    "application/json'` sends it so)",
    "player names must differ: the photo ann holds 3 tableaux, its players numbered ann-1 to ann-3, and ann-1 is too "
    "like another player's name: name the photos apart",
    "the solo bot plays against exactly one player",
    "others: expected two whole numbers like 5:2, got 'x'",
    "request too large: the limit is 40 MB",
    "the request body came slower than 16 KB/s",
    "the service is busy reading photos; try again in 3 s",
    "a tableau is 4 rows of 5 cards (or 5 rows of 4); got 3 rows, holding 5, 5, 5 cards",
    "a tableau is 4 rows of 5 cards (or 5 rows of 4); got 1 row, holding 3 cards",
    "a tableau is 4 rows of 5 cards (or 5 rows of 4); got 1 card",
    "a grid of 8 cards was found, but 13 of its 20 cells are in doubt, so it was not scored as a player: if it is a player's "
    "tableau, photograph it alone, or closer",
    "a solo room seats 1: it is full",
    "the service holds at most 2000 rooms: no new one can be started now (idle rooms are deleted after a while)",
    "'ann''s tableau changed meanwhile (version 3, you had 2); reload it and correct again",
    "'ann' is no longer in this room (renamed or removed meanwhile); reload the room",
    "a name cannot be empty",
    "a name has at most 40 characters; this one has 41",
    "a name cannot hold control or invisible characters",
    "a name cannot hold '/'",
    "a name cannot be only dots",
    "a name needs a letter or a digit",
    "'Аlice' mixes scripts with look-alike letters; type it in one script",
    "replacing 'ann''s tableau needs If-Match with the version you saw (now 3)",
    "no player 'ann' in room 'abc'",
    "only 'ann' can rename themselves (X-Player-Token)",
    "only 'ann' or the room's creator can remove 'ann'",
    "'bot' is reserved (the solo bot's seat); choose another name",
    "the client went away before its photo was read",
    "the JSON body nests too deeply or holds too many arrays and objects (at most 256)",
    "the JSON body holds a number that is not finite (NaN, Infinity or too big): JSON allows none",
    "taken at a low angle (the far cards look 4.2 times smaller than the near ones): hold the phone higher, more over the cards",
    "the cards are small in the photo (about 31 px wide): come closer so the tableau fills the frame",
    "the tableau is cut by the frame (3 of 20 cells outside the photo): step back or turn the phone so all 20 cards are in view",
    "the photo is too dark (its brightest cards at 48 of 255): add light, or keep shadows off the cards",
    "photograph the whole tableau from above, all its cards in view, in even light",
    "glare washes out row 1 col 2, row 3 col 4: tilt the phone or move the lamp so its reflection leaves the cards",
    "the photo is blurred (the cards' edges and pictures are soft): hold the phone still, tap the cards on the screen to focus, and add light so the shutter is quicker",
    "17 cards are of none of this deck's types: is the photo read against the wrong deck? Choose your deck (Deck, on the start page)",
    "deck 'kitchen' would have no reference for: wolf, eagle (give at least one card of every type)",
    "row 3, col 2: a card no deck has read: name it, and your deck learns it",
    "row 1, col 1: no card found here: name it if one lies there, else keep it empty",
    "a deck named 'kitchen' exists already, started on another phone or on the server: give yours another name",
    "deck 'kitchen' has no last cards to forget (they were forgotten already)",
    "only the phone that started deck 'kitchen' can make it forget cards (its X-Deck-Token)",
    "row 3, col 4: most cells of this photo are in doubt: check this card too",
    "a grid of 20 card-like shapes, all read as stream and none surely, was taken for a pattern on the table, not a "
    "tableau: if they are a player's cards, photograph them alone, or closer",
    "row 2, col 4: reads as empty, but looks like none of the table around the tableau (empty 68%): taken for trout",
    "row 3, col 2: reads as empty (97%), but looks like none of the table around the tableau: check that no card lies here",
    "the form (multipart/form-data) cannot be read: its parts do not start with the boundary its Content-Type names, or a part's headers are broken or too long (a file name of a few hundred characters at most)",
    "the PNG image is 7000 × 8400 = 59 MP; a PNG is read at most 25 MP (send the camera's JPEG or HEIC)",
    "the HEIC image is 8000 × 7400 = 59 MP; a HEIC is read at most 52 MP (a phone's largest): send a smaller photo, or its JPEG",
    "the JPEG file holds 64 scans of 58 MP (a camera's photo has about 10): too costly to read, not a camera's photo",
    "the same 20 cards in the same places as ann's tableau: one tableau photographed twice? Photograph each player's own tableau",
    "all but 1 of its 20 cards in the same places as ann's tableau: one tableau photographed twice? Photograph each "
    "player's own tableau",
    "this device holds 100 rooms used in the last day (the most it may): try again in 5 h, or go on in one of them",
    "too many cards in one photo (271 found; the tableaux of a game hold at most 160): photograph the tableaux of one game",
    "a solo game is one player against the bot: no neutral pile and no other players' figures",
    "this device has started 20 decks, the most it may keep: add your cards to one of them (the service's keeper can remove some)",
    "the form field 'name' was sent more than once: send it once",
    "the form field 'name' is not valid UTF-8 text",
    "the file name in form field 'photo' is not valid UTF-8 text",
    "the upload is incomplete: the form ended before its closing boundary (the body was cut short); send it again",
    "a deck called 'Naše kuchyň' exists already on this server: give yours another name",
    # An attack on a running server found these reaching Czech, Russian and Italian players in English:
    "kitchen.jpg: no grid of at least 5 aligned cards found (cards found: 3): lay at least 5 cards out in their grid, "
    "whole in the frame, or photograph each card alone",
    "table.jpg: cannot tell where the grid lies on the cards found (all its 11 cards were found, and it fits them alike "
    "as written, where the cards found put it and turned 180°, 1 row off where the cards found put it): check "
    "that the grid is this photo's, its empty cells where no card lies",
    "kitchen.jpg: 3 tableaux found; photograph the one tableau alone",
    "kitchen.jpg: too many tableaux in one photo (grids of cards found: 9; a game has at most 8): photograph the "
    "tableaux of one game; photograph the one tableau alone",
    "kitchen.jpg: no card found in the tableau's cells",
    "kitchen.jpg: the grid given with it names no card in the cells found (a grid of another photo?)",
    "If-Match: expected a version like \"3\", got 'xyz'",
    "deck 'kitchen' would hold more than 400 references",
    "Not Found",
    "Method Not Allowed",
    "the form (multipart/form-data) names no boundary in its Content-Type: send it as a browser or `curl -F` does",
    "a part of the form has no name in its Content-Disposition: name each part (name=\"photo\")",
    "the form (multipart/form-data) holds its boundary more than 128 times, more than the parts a form of this API has: "
    "a file holding the form's boundary cannot be sent in it (send it as a browser or `curl -F` does)",
    # `ecoscore deck`'s refusals (said in the player's language since 2026-12-04)
    "friend.zip exists already: give another file name, or --force to replace it",
    "give a FOLDER of card images, or --photo P.jpg --grid G.txt",
    "2 --photo but 1 --grid: give one grid per photo",
    "table.jpg: the grid and deck mine's own cards disagree: row 1 col 2: the grid says fox, this deck's cards say bee "
    "(87%): check the grid there (two cards swapped?); nothing was added (--force adds it as its grid says)",
    "table.jpg: the grid and deck mine's own cards disagree: row 1 col 2: the grid says fox, this deck's cards say bee "
    "(87%); row 2 col 2: the grid says deer, this deck's cards say not ours (12%): check the grid there (g.txt is the "
    "grid of another photo?); nothing was added (--force adds it as its grid says)",
    "table.jpg: the grid and deck mine's own cards disagree: row 1 col 5: the grid says fox, this deck's cards say bee "
    "(100%); row 2 col 4: the grid says bee, this deck's cards say fox (100%): every bee read as fox and every fox as bee: "
    "check the grid there, or the deck's own two may be swapped (a slip in an earlier grid: ecoscore deck forget-last mine "
    "takes its last add back); nothing was added (--force adds it as its grid says)",
    "/home/jana/decks is a folder: give the sheet a file name, such as /home/jana/decks/cards.png",
    "table.jpg: 19 of its 20 cards do not look like deck mine's cards: if they are another deck's, not this deck's in "
    "another edition or another light, ecoscore deck forget-last mine takes this add back",
    "fox, bee, eagle: one card each in deck mine, named by the grid: two of them swapped in the grid cannot be seen by any "
    "check; look at the deck's cards: ecoscore deck show mine --sheet cards.png",
    "deck 'mine' would have no reference for: wolf, eagle (give at least one card of every type): add another photo that "
    "holds them with its grid (--photo P --grid G, repeatable), or a folder of them",
    "'standin' is the built-in deck's name: give yours another",
    "deck kitchen is called 'Naše kuchyň' already: give deck other another name or --title (two decks of one title are "
    "not told apart where players choose a deck)",
    "deck kitchen is called 'Naše kuchyň' already: give deck other another name (--name NAME) (two decks of one title "
    "are not told apart where players choose a deck)",
    "no card to add to deck 'mine'",
    "no enrolled deck 'mine'",
    "'standin' is the built-in deck: it cannot be removed",
    "a deck 'mine' exists already: remove it first, or import it under another name (--name NAME)",
    "friend.zip: larger than 64 MB, not a deck export",
    "friend.zip: not a deck export (not a zip file)",
    "friend.zip: too many or too large members for a deck export",
    "friend.zip: a member compressed other than a deck export is (deflate), not a deck export",
    "friend.zip: a member is encrypted (a password), not a deck export",
    "friend.zip: a member is named twice, not a deck export",
    "friend.zip: its deck.toml claims 900 KB, not a deck export's",
    "friend.zip: no readable deck.toml in it, not a deck export",
    "friend.zip: its deck.toml gives no name as text, not a deck export",
    "friend.zip: fox/1.png claims 70 MB, more than a reference image holds: not a deck export",
    "friend.zip: fox/1.png is damaged in the zip file",
    "friend.zip: fox/1.png is not a readable reference image (a PNG of at most 4000000 pixels)",
    "cards/fox/1.jpg: the card is small in it (about 40 px wide): come closer, the card filling much of the frame",
    "cards/fox/1.jpg: no card found in it (photograph one card alone, all of it in the frame, or give a scan cut to the "
    "card's edges)",
    "cards/fox/1.jpg: 3 cards in it: photograph one card alone",
    "cards: not a folder (expected cards/<type>/*.png for each of the 11 types)",
    "table.jpg: the grid names 13 fox cards, but a deck holds only 12: check the grid",
    "a, row 1, col 1: expected a card name or null, got int 5",
    'a: expected a list of rows (or {"grid": [...]})',
    "table.jpg: the cards the grid names as one type do not look alike in the photo (a grid of another photo? or art "
    "too fine or pale to tell apart from this far): check that the grid is this photo's, card by card, or enrol the deck "
    "from scans or photos of single cards",
    "not a database URL ecoscore knows: 'foo://bar' (sqlite:///PATH or postgresql://USER@HOST/NAME)",
    "cannot reach the database 'postgresql://u:***@127.0.0.1:1/x': connection failed: connection to server at "
    "\"127.0.0.1\", port 1 failed: Connection refused",
    "no database at /srv/ecoscore/romos.sqlite3: check the --db URL (sqlite:///PATH, postgresql://…)",
    "sqlite:////tmp/notes.txt: not the service's database (file is not a database)",
    "cannot read photos: it is a folder",
    "cannot read loop.jpg: its links loop back on themselves",
    "r2.txt, row 4, cell 5: '?' marks a cell the photo did not show; write the card that lies there, or '.' if the cell is empty",
    "g.json: invalid JSON (Expecting ',' delimiter: line 1 column 12 (char 11))",
    "give one --name for each grid file (names: 1, grid files: 2)",
    "row 1 col 4, row 1 col 5: the grid names a card there, but the cell lies outside the photo: left out of the deck",
    "row 2 col 3: a card was found where the grid has an empty place: nothing taken from it (check the grid there: a "
    "card written as '.'?)",
    "a deck needs a name: use 1-40 lower-case letters, digits, '-' or '_'",
    "deck name 'kuchyň': use 1-40 lower-case letters, digits, '-' or '_' (such as kuchyn, with --title kuchyň for "
    "the name players see)",
    "photos of one name are one player: IMG_0001; players are named by their photos' files: rename one, such as "
    "IMG_0001-2.jpg",
    "cards: no image for fox, wolf",
    "cards: no image for fox, wolf (folders not named after a type: lisky)",
    "cards: images in folders not named after a type: fxo (rename each after its card's type, or move it out of the deck's folder)",
    "no such folder: 'night'",
    "no photos in 'night/*.png' (JPEG, PNG, WebP or HEIC files, or a glob that finds some)",
    "--overlay notes.txt is a file: give a folder to write the pictures into",
    "r.csv exists already: --resume to score only the photos it lacks, --force to replace it, or give another file name",
    "night is a folder: give the results a file name, such as night/results.csv",
    "cannot resume r.csv: it is a CSV file (leave out --jsonl)",
    "cannot resume r.jsonl: it holds JSON lines (add --jsonl)",
    "cannot resume notes.txt: it is not a results file of ecoscore batch (give another --out)",
    "photos/a.jpg is not a results file of ecoscore batch: --force replaces only a results file of batch; give "
    "another --out",
    "batch takes one folder or one glob, not 12 paths: give the folder ('my photos'), or put the glob in quotes so "
    "that batch expands it, not the shell",
    "cannot resume r.csv: its photos were read with the deck 'standin', not 'kitchen': resume with --deck standin, or "
    "--force to read them all again with 'kitchen'",
    "cannot resume r.csv: it was written by an earlier version, whose rows do not say the deck their photos were read "
    "with: resume with --deck and that deck's name (--deck standin if none was given), or --force to read them all again",
    "--xlsx goes with a CSV results file: leave out --jsonl",
    "--xlsx r.csv: a workbook's name ends in .xlsx (Excel opens it by that)",
    "--xlsx and --out name one file (r.csv): give the workbook a name of its own",
    "budget.xlsx exists and is not a workbook of ecoscore batch: give another --xlsx",
    "a link to a folder, not followed: give batch that folder itself",
    "a link that leads round in a loop, to no file",
    "a link to nowhere: IMG_0001.jpg does not exist",
    "cannot be read: permission denied",
    "the reader failed on this photo (RuntimeError: boom): please report it with the photo",
    "cannot be read: input/output error",
    "14 cards read as none of this deck's types, though this photo's other cards read as its own (27 surely): too small, "
    "dark or blurred to tell, or another game's cards. Photograph them closer, in better light",
    "cannot write /media/card/night.csv: No space left on device",
    "cannot read /media/card/IMG_0001.jpg: Input/output error",
    "me.txt: holds 3 tableaux (12 rows), as `ecoscore read` writes a photo of several: put each grid in a file of its own (one file a player)",
    "/tmp/night.csv is being written by another ecoscore batch: let it finish (then --resume adds what it lacks), or give another --out",
    "--cluster takes 'local' or a Dask scheduler's address with its port, such as tcp://scheduler:8786, not 'lokal'",
    "--cluster needs the distributed extra: pip install -e '.[distributed]' in a checkout (pip install 'ecoscore[distributed]' else)",
    "cannot reach the Dask scheduler at tcp://127.0.0.1:8619: Timed out trying to connect to tcp://127.0.0.1:8619 after 30 s",
    "a postgresql:// database needs the postgres extra: pip install -e '.[service,postgres]' in a checkout (pip install 'ecoscore[service,postgres]' else)",
    "this photo holds 2 tableaux: it has no tableau 3",
    "this photo holds 1 tableau: it has no tableau 2",
    "a name cannot hold bytes that are not UTF-8 text",
    "a: a tableau is 4 rows of 5 cards (or 5 rows of 4); got 4 rows, the longest of 6 cards",
    "bot: a tableau is 4 rows of 5 cards (or 5 rows of 4); got 1 row of 9 cards",
    "grid, row 1, cell 1: unknown card 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…' (use a type name such as 'meadow', an alias such as 'louka', a code such as 'MD', or '.' for an empty cell)",
]


@pytest.mark.parametrize("lang", ["cs", "ru", "it"])
def test_every_message_is_translated(lang):
    for text in MESSAGES:
        assert translation.match(text) is not None, text
        out = translation.translate(text, lang)
        assert out != text, (lang, text)
        assert not re.search(r"\{\w+\}", out), out
    grid_text = i18n.catalogue("en")["api.unknown_card"].format(where="bot, row 2, cell 3", token="x")
    # "line 2, cell 3" of a grid's text in the page's words for a row and a column ("riga 1,
    # casella 1" beside the page's "riga 1, colonna 1": a walk, in Italian)
    assert translation.translate(grid_text, "cs").startswith("mřížka bota, řada 2, sloupec 3: neznámá karta „x“")
    assert translation.translate(grid_text, "ru").startswith("сетка бота, ряд 2, столбец 3: ")  # "bot, строка 2" (a walk)
    assert translation.translate(grid_text, "it").startswith("griglia del bot, riga 2, colonna 3: ")
    assert translation.translate(MESSAGES[3], "cs") == "řada 2, sloupec 3: nejisté čtení: jelen 40–61\u00a0% nebo liška 30\u00a0%"
    assert translation.translate(MESSAGES[10], "ru").startswith("2 пустые ячейки (ряд 1 столбец 1, ряд 4 столбец 5)")
    pattern = next(text for text in MESSAGES if text.startswith("a grid of 20 card-like shapes"))
    assert {"cs": "potok", "ru": "ручей", "it": "ruscello"}[lang] in translation.translate(pattern, lang)


@pytest.mark.parametrize("lang", ["cs", "ru", "it"])
def test_every_cell_doubt_the_reader_words_is_translated_not_ours_and_all(lang):
    # A deck's matcher names a cell "not ours" (two words) beside the types and "empty": as the
    # runner-up ("bee 79%, or not ours 18%") no template matched, and the doubt reached Czech,
    # Russian and Italian players in English, on the page and through ?lang=.
    from helpers import cell_doubts

    doubts = cell_doubts()
    assert any(", or a foreign card " in d for d in doubts) and any("low confidence: empty " in d for d in doubts)
    assert not any("not ours" in d for d in doubts)  # the code's word, never the player's
    english = re.compile(r"\b(low confidence|not ours|foreign card|not a card|least sure|row|col|empty|or)\b|"
                         + "|".join(rf"\b{card.value}\b" for card in CardType))
    for text in doubts:
        assert translation.match(text) is not None, text
        assert translation.translate(text, "en") == text
        out = translation.translate(text, lang)
        assert not english.search(out), (lang, text, out)
    said = {"cs": "řada 2, sloupec 1: nejisté čtení: včela 79\u00a0% nebo cizí karta 18\u00a0%",
            "ru": "ряд 2, столбец 1: недостаточно уверенно: пчела 79\u00a0% или чужая карта 18\u00a0%",
            "it": "riga 2, colonna 1: lettura incerta: ape 79%, oppure carta estranea 18%"}
    assert translation.translate("row 2, col 1: low confidence: bee 79%, or a foreign card 18%", lang) == said[lang]
    assert translation.translate("row 2, col 1: low confidence: bee 79%, or not ours 18%", lang) == said[lang]  # a read stored before


def test_doubts_of_real_reads_are_all_matched(reader, photo_set):
    from helpers import spoil

    from ecoscore.vision.report import read_to_dict

    seen = 0
    for jpeg in [s.jpeg for s in photo_set] + [spoil(photo_set[0].jpeg, reader, 6)]:
        read = reader.read(jpeg)
        for tab in read.tableaux:
            doc = read_to_dict(tab, read.doubts)
            for text in doc["doubts"] + [d for row in doc["cells"] for cell in row for d in cell["doubts"]]:
                assert translation.match(text) is not None, text
                seen += 1
    assert seen  # the photo set has doubts to check


def test_the_api_speaks_the_players_language(reader, tmp_path):
    import cv2
    import numpy as np
    from fastapi.testclient import TestClient

    from ecoscore.service.app import Settings, create_app

    blank = cv2.imencode(".jpg", np.full((900, 1200, 3), 90, np.uint8))[1].tobytes()
    with TestClient(create_app(Settings(db_url=f"sqlite:///{tmp_path / 'db.sqlite3'}"), reader=reader)) as client:
        r = client.post("/api/photo", files={"photo": ("x.jpg", blank, "image/jpeg")}, headers={"Accept-Language": "cs-CZ,cs;q=0.9"})
        assert r.status_code == 422 and r.headers["content-language"] == "cs"
        assert r.json()["detail"].startswith("x: žádný ekosystém nenalezen")
        assert r.json()["detail"].endswith("; vyfoťte celou mřížku shora, všechny karty v záběru, při rovnoměrném světle")
        r = client.post("/api/photo?lang=ru", files={"photo": ("x.jpg", b"GIF89a", "image/gif")})
        assert "это не изображение" in r.json()["detail"]
        r = client.post("/api/photo", files={"photo": ("x.jpg", blank, "image/jpeg")})
        assert "no tableau found" in r.json()["detail"]


def test_a_refusal_with_retake_advice_is_translated_whole():
    # The reader joins a refusal and its retake tips with "; " (issue #15's advice); no one
    # template holds them all, and the whole message reached Czech players in English.
    refusal = ("no tableau found: 12 cards detected, but no 5 × 4 grid of at least 5 aligned cards; taken at a "
               "low angle (the far cards look 2.5 times smaller than the near ones): hold the phone higher, "
               "more over the cards; the photo is too dark (its brightest cards at 40 of 255): add light, "
               "or keep shadows off the cards")
    for lang in ("cs", "ru", "it"):
        parts = translation.translate(refusal, lang).split("; ")
        assert len(parts) == 3
        assert parts[0] == translation.translate(refusal.split("; ")[0], lang) != refusal.split("; ")[0]
        assert "hold the phone" not in parts[1] and "add light" not in parts[2]
    # Text that is not all messages is left as it came.
    assert translation.translate("no tableau found: 12 cards detected, but no 5 × 4 grid of at least 5 aligned cards; "
                          "something else", "cs").endswith("; something else")


@pytest.mark.parametrize("refusal", [for_the_page(not_this_deck(18)), for_the_page(not_this_deck(19, "kitchen"))])
def test_a_refusal_holding_a_semicolon_is_translated_with_its_advice(refusal):
    # "Not this deck" says why, then "; " what to do: with retake advice after it, no split into
    # messages at every "; " matched, and such refusals reached players in English.
    dark = "the photo is too dark (its brightest cards at 40 of 255): add light, or keep shadows off the cards"
    for lang in ("cs", "ru", "it"):
        whole = translation.translate(f"{refusal}; {dark}", lang)
        assert whole == f"{translation.translate(refusal, lang)}; {translation.translate(dark, lang)}"
        assert "add light" not in whole and "no tableau read" not in whole


def test_the_empty_cells_doubt_is_translated_cells_and_all():
    # Its cells were written "row 1, col 5; row 4, col 1", which no catalogue wording matches:
    # they reached Czech, Russian and Italian players in English.
    import numpy as np

    from ecoscore.scoring import CardType
    from ecoscore.vision.lattice import TableauFit
    from ecoscore.vision.naming import tableau_doubts
    from ecoscore.vision.reads import CellRead

    empty = {(0, 4), (3, 0)}
    cells = [CellRead(r, c, None if (r, c) in empty else CardType.BEAR, 1.0, "", 0.0, (r, c) not in empty, np.zeros((4, 2)))
             for r in range(4) for c in range(5)]
    (doubt,) = [d for d in tableau_doubts(cells, TableauFit({}, 0.0, False)) if "empty" in d]
    for lang in ("cs", "ru", "it"):
        out = translation.translate(doubt, lang)
        assert out != doubt and not re.search(r"\b(row|col),? \d", out), (lang, out)


@pytest.mark.parametrize("lang", ["cs", "ru", "it"])
def test_a_grid_refused_for_a_player_whose_name_holds_a_semicolon_is_translated(lang):
    # "Ann; Bo, row 4, cell 5: unknown card 'xyz' ..." reached a Czech player in English: the
    # cells' parameter never spans "; " (two joined messages), and the name before them held one.
    from ecoscore.scoring.gridfile import parse_text

    with pytest.raises(ValueError) as refused:
        parse_text("bear bear bear bear bear\n" * 3 + "bear bear bear bear xyz", "Ann; Bo")
    said = str(refused.value)
    assert said.startswith("Ann; Bo, row 4, cell 5: unknown card 'xyz'"), said
    out = translation.translate(said, lang)
    assert out.startswith("Ann; Bo, ") and "unknown card" not in out and "row 4" not in out, out


@pytest.mark.parametrize("n", [290, 340, 600])
def test_a_message_holding_a_crafted_name_is_left_as_it_is_not_matched_for_ever(n):
    # A file name of "a: b; " repeated, inside a refusal: the matcher recursed once per ": " and
    # tried every "; " split (290: 5 s on the event loop; 340: a RecursionError, an HTTP 500).
    text = f"{'a: b; ' * n}: not an image (bytes start 6a756e6b)"
    assert translation.translate(text, "cs") == text
    assert translation.match(text) is None


def test_the_service_says_what_to_do_about_the_wrong_deck_in_the_pages_words_in_every_language():
    # The reader's refusals and its wrong-deck doubt name the command line too ("--deck on the
    # command line", "deck add NAME --photo ..."): on the page they named nothing a player can do.
    # The service's words name the page's controls, and every language has them.
    import numpy as np

    from ecoscore.vision.lattice import TableauFit
    from ecoscore.vision.naming import tableau_doubts
    from ecoscore.vision.reads import CellRead

    cells = [CellRead(r, c, None, 0.9, "fox", 0.05, True, np.zeros((4, 2)), ["not ours"], not_ours=True)
             for r in range(4) for c in range(5)]
    (wrong_deck,) = [d for d in tableau_doubts(cells, TableauFit({}, 0.0, False)) if "wrong deck" in d]
    said = [for_the_page(not_this_deck(18)), for_the_page(not_this_deck(19, "nas-stul"), "nas-stul", "Náš stůl"),
            for_the_page(wrong_deck)]
    assert all("command line" not in text and "--deck" not in text and "deck add" not in text for text in said), said
    assert "Name the cards of my deck" in said[0] and "the deck Náš stůl: " in said[1] and "nas-stul" not in said[1]
    assert said[2].endswith("Choose your deck (Deck, on the start page)")
    for lang in ("cs", "ru", "it"):
        for text in said:
            out = translation.translate(text, lang)
            assert out != text and "no tableau read" not in out and "wrong deck" not in out, (lang, out)


@pytest.mark.parametrize("lang", ["cs", "ru", "it"])
def test_the_readers_own_words_of_the_wrong_deck_are_translated_for_the_command_line(lang):
    # The command line says the reader's messages as the reader words them ("--deck on the command
    # line"), not the page's: "ecoscore: errore: x.jpg: no tableau read: a grid of 20 cards was
    # found, but they do not read as cards of this deck: ..." stood in English, with its Italian
    # advice after it (an organiser's run, in Italian).
    from ecoscore.vision.naming import wrong_deck_doubt

    blurred = "the photo is blurred (the cards' edges and pictures are soft): hold the phone still, tap the cards on " \
              "the screen to focus, and add light so the shutter is quicker"
    for text in (f"x.jpg: {not_this_deck(20)}; {blurred}", not_this_deck(1), not_this_deck(19, "mine"), wrong_deck_doubt(6)):
        out = translation.translate(text, lang)
        assert not re.search(r"no tableau read|read against the wrong deck|command line|if it is", out), (lang, out)
        assert ("deck add mine --photo P.jpg" if "mine" in text else "--deck") in out, (lang, out)


def test_a_decimal_is_written_as_the_players_language_writes_it():
    # Italian, Czech and Russian write "0,29": the page showed "errore 0.29".
    doubt = "the cards do not sit on a regular grid (fit error 0.29 card widths)"
    for lang in ("cs", "ru", "it"):
        out = translation.translate(doubt, lang)
        assert "0,29" in out and "0.29" not in out, (lang, out)
    assert translation.translate(doubt, "en") == doubt


def test_a_tableau_of_one_row_is_said_in_the_singular():
    from ecoscore.service.translation import translate

    said = "a tableau is 4 rows of 5 cards (or 5 rows of 4); got 1 row, holding 3 cards"
    assert translate(said, "it").endswith("ricevuta 1 riga, con 3 carte")
    assert translate(said, "cs").endswith("zadána 1 řada, v ní 3 karet")
    assert translate(said.replace("1 row,", "2 rows,"), "cs").endswith("zadány 2 řady, v nich 3 karet")


# An explanation's English words, any of which left in a translation is a reason untranslated.
_REASON_ENGLISH = re.compile(r"\b(adjacent|meadows?|wolf|wolves|bears?|bees?|trout|streams?|dragonfl\w+|rabbits?|within|"
                             r"group|place|places|columns?|rows?|cards?|provisional|largest|spoils|deer|score)\b")


@pytest.mark.parametrize("lang", ["cs", "ru", "it"])
def test_every_reason_the_scorer_gives_is_translated(lang):
    """The reason for every point (the API's ``explanation``) reached Czech, Russian and Italian
    players in English while all else was theirs. Random games of 1-4 players (with the
    provisional majorities of a lone player), every card's and group's reason: each matched by a
    template, and nothing English left in it."""
    import random

    from ecoscore.scoring import Tableau, score_game

    rng = random.Random(7)
    kinds: set[str] = set()
    for _ in range(150):
        players = [(f"p{i}", Tableau([rng.choice([*CardType, None]) for _ in range(20)]))
                   for i in range(rng.randint(1, 4))]
        for p in score_game(players).players:
            for text in [c.reason for c in p.cards] + [g.reason for g in p.groups]:
                found = translation.match(text)
                assert found is not None, text
                kinds.add(found[0])
                out = translation.translate(text, lang)
                assert not _REASON_ENGLISH.search(out) and not re.search(r"\{\w+\}", out), (text, out)
    assert len(kinds) >= 22, sorted(kinds)  # every kind of reason was met
    said = {"cs": "2 × 2 sousední včely/pstruzi (řada 1, sloupec 2; řada 2, sloupec 1)",
            "ru": "2 × 2 соседние пчелы/форели (ряд 1, столбец 2; ряд 2, столбец 1)",
            "it": "2 × 2 api/trote adiacenti (riga 1, colonna 2; riga 2, colonna 1)"}
    assert translation.translate("2 × 2 adjacent bees/trout (row 1, col 2; row 2, col 1)", lang) == said[lang]
    place = {"cs": "3 vlci: 2. místo v počtu vlků, 8", "ru": "3 волка: 2-е место по числу волков, 8", "it": "3 lupi: 2° posto per il numero di lupi, 8"}
    assert translation.translate("3 wolves: 2nd place for most wolves, 8", lang) == place[lang]


def test_the_api_explains_every_point_in_the_players_language(reader, tmp_path):
    from fastapi.testclient import TestClient
    from helpers import EXAMPLES

    from ecoscore.service.app import Settings, create_app

    players = [{"name": n, "grid": (EXAMPLES / f"{n}.txt").read_text()} for n in ("alice", "bruno")]
    with TestClient(create_app(Settings(db_url=f"sqlite:///{tmp_path / 'db.sqlite3'}"), reader=reader)) as client:
        english = client.post("/api/grid", json={"players": players}).json()
        czech = client.post("/api/grid", json={"players": players}, headers={"Accept-Language": "cs"}).json()
    assert [p["total"] for p in czech["players"]] == [p["total"] for p in english["players"]]
    for en, cs in zip(english["players"], czech["players"]):
        for part in ("cards", "groups"):
            for a, b in zip(en["explanation"][part], cs["explanation"][part]):
                assert {k: v for k, v in a.items() if k != "reason"} == {k: v for k, v in b.items() if k != "reason"}
                assert b["reason"] == translation.translate(a["reason"], "cs") and not _REASON_ENGLISH.search(b["reason"])


def test_where_an_enrolments_grid_may_lie_is_said_in_the_players_words():
    # "stejně dobře sedí as written, 1 row off where the cards found put it i turned 180°": the
    # ways a grid may lie on the cards found stayed English inside a translated refusal.
    refusal = ("table.jpg: cannot tell where the grid lies on the cards found (all its 11 cards were found, and it fits "
               "them alike as written, 1 row off where the cards found put it and turned 180°, 2 rows and 1 column off "
               "where the cards found put it): check that the grid is this photo's, its empty cells where no card lies")
    assert translation.translate(refusal, "cs") == (
        "table.jpg: nelze poznat, kde na nalezených kartách mřížka leží (nalezeny byly všechny její karty, 11, a stejně "
        "dobře sedí v zapsané podobě, posunutá o 1 řadu od místa určeného nalezenými kartami i otočená o 180°, "
        "posunutá o 2 řady a 1 sloupec od místa určeného nalezenými kartami): zkontrolujte, že mřížka patří k této "
        "fotce a její prázdná políčka jsou tam, kde neleží žádná karta")
    which_way = ("table.jpg: cannot tell which way the grid lies in the photo (it reads alike as written and turned 180°); "
                 "photograph it from the side the grid was written from")
    assert "(va bene sia come è scritta sia girata di 180°)" in translation.translate(which_way, "it")
    assert "(одинаково подходят в записанном виде и с поворотом на 180°)" in translation.translate(which_way, "ru")
    # every way enrol.py words (vision/enrol.py: _SYMMETRIES, _moved_by) is one the pattern knows
    from ecoscore.vision.enrol import _SYMMETRIES, _moved_by

    for way in _SYMMETRIES:
        for move in [(0, 0), (1, 0), (0, 2), (2, 1), (-1, -3)]:
            label = way if move == (0, 0) else f"{way}, {_moved_by(move)}"
            said = translation.translate(which_way.replace("as written and", f"{label} and"), "cs")
            assert "written" not in said and "off where" not in said and "turned" not in said, (label, said)



@pytest.mark.parametrize("lang", ["cs", "ru", "it"])
def test_the_systems_reason_for_a_failed_read_or_write_is_said_in_the_players_words(lang):
    """strerror is English whatever the locale: "No space left on device" stood in an Italian line."""
    from ecoscore.cli.common import cannot_read, cannot_write

    for text in (cannot_write(Path("/media/card/night.csv"), OSError(errno.ENOSPC, "No space left on device")),
                 cannot_read("/media/card/IMG_0001.jpg", OSError(errno.EIO, "Input/output error")),
                 "cannot be read: read-only file system"):
        said = translation.translate(text, lang)
        assert said != text and not re.search(r"[Ss]pace left|[Ii]nput/output error|read-only file", said), said
    assert translation.translate("cannot write x: Something odd", lang).endswith(": Something odd")  # unknown: as the system said
