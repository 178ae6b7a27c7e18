"""Decks as data: the generator, the deck store, and exports passed between players."""
import os
import time
import warnings
import zipfile

import cv2
import numpy as np
import pytest

from ecoscore.datasets.deck import load_deck
from ecoscore.datasets.deckgen import HELD_OUT_SEEDS, STYLES, TRAIN_SEEDS, generate_deck, write_deck
from ecoscore.scoring import CardType
from ecoscore.vision.deck_archive import export_deck, import_deck
from ecoscore.vision.deckstore import (
    DEFAULT_DECK,
    MAX_REFERENCES,
    DeckStore,
    DeckStoreError,
    IncompleteDeck,
    NoSuchDeck,
    NotDeckOwner,
)

pytestmark = pytest.mark.slow  # models, renders or a server: the full suite only


def test_a_generated_deck_is_a_function_of_its_seed():
    a, b, c = generate_deck(5), generate_deck(5), generate_deck(6)
    for card in CardType:
        assert np.array_equal(a.faces[card][0], b.faces[card][0])
    assert any(not np.array_equal(a.faces[card][0], c.faces[card][0]) for card in CardType)


def test_every_style_draws_eleven_different_faces():
    for style in STYLES:
        deck = generate_deck(1, style)
        faces = [deck.faces[card][0].astype(np.int16) for card in CardType]
        for i in range(len(faces)):
            for j in range(i + 1, len(faces)):
                assert np.abs(faces[i] - faces[j]).mean() > 2, f"{style}: two types drawn alike"


def test_held_out_decks_are_never_trained_on():
    from ecoscore.datasets.matchset import DARK, PHOTO
    from ecoscore.vision.train_matcher import STAGES, MatcherFineTune, MatcherOffCuts, MatcherRecipe

    banks = [TRAIN_SEEDS[: MatcherRecipe().bank_decks], MatcherFineTune().decks, MatcherOffCuts().decks,
             *(stage().decks for stage in STAGES.values())]
    for trained in banks:
        assert not set(trained) & set(HELD_OUT_SEEDS[:1000])
        assert trained.start >= TRAIN_SEEDS.start and trained.stop <= min(TRAIN_SEEDS.stop, HELD_OUT_SEEDS.start)
    # Each later bank draws decks no bank before it drew (a "fresh bank" is fresh).
    assert sum(len(b) for b in banks) == len(set().union(*banks))
    assert TRAIN_SEEDS.stop <= DARK and DARK + TRAIN_SEEDS.stop <= PHOTO  # a dark or photo deck's id names no other


def test_a_written_deck_loads_back(tmp_path):
    deck = generate_deck(HELD_OUT_SEEDS[3])
    loaded = load_deck(write_deck(deck, tmp_path / "d"))
    assert loaded.name == deck.name
    assert all(np.array_equal(loaded.faces[c][0], deck.faces[c][0]) for c in CardType)


def _crops(n=1, value=0):
    return {card: [np.full((90, 60, 3), (value + 20 * i) % 255, np.uint8) for _ in range(n)]
            for i, card in enumerate(CardType)}


def test_store_adds_lists_shows_and_removes(tmp_path):
    store = DeckStore(tmp_path)
    assert store.names() == [DEFAULT_DECK]
    info = store.add("kitchen-table", _crops(), "test")
    assert info.complete and sum(info.counts.values()) == 11
    store.add("kitchen-table", {CardType.BEAR: [np.zeros((90, 60, 3), np.uint8)]}, "one more bear")
    info = store.info("kitchen-table")
    assert info.counts[CardType.BEAR] == 2 and info.sources == ["test", "one more bear"]
    assert store.names() == [DEFAULT_DECK, "kitchen-table"]
    store.remove("kitchen-table")
    assert store.names() == [DEFAULT_DECK]
    with pytest.raises(DeckStoreError, match="no deck"):
        store.info("kitchen-table")


def test_a_reference_removed_by_hand_leaves_the_others_whole(tmp_path):
    # The refusal of a card image tells the owner to remove the file; the next add numbered its
    # files from the count and overwrote the last reference (a review).
    store = DeckStore(tmp_path)
    three = {**_crops(), CardType.BEAR: [np.full((90, 60, 3), v, np.uint8) for v in (10, 60, 110)]}
    store.add("kitchen-table", three, "test")
    bears = store.root / "kitchen-table" / "bear"
    last = (bears / "0002.png").read_bytes()
    (bears / "0001.png").unlink()
    store = DeckStore(tmp_path)  # (a server started again: nothing remembered of the deck)
    store.add("kitchen-table", {CardType.BEAR: [np.full((90, 60, 3), 200, np.uint8)]}, "one more bear")
    assert sorted(f.name for f in bears.glob("*.png")) == ["0000.png", "0002.png", "0003.png"]
    assert (bears / "0002.png").read_bytes() == last
    assert store.info("kitchen-table").counts[CardType.BEAR] == 3
    store.forget_last("kitchen-table")
    assert sorted(f.name for f in bears.glob("*.png")) == ["0000.png", "0002.png"]


def test_store_refuses_what_it_cannot_use(tmp_path):
    store = DeckStore(tmp_path)
    for bad in ("", "Caps", "../up", "a" * 41, "sp ace"):
        with pytest.raises(DeckStoreError, match="deck name|a deck needs a name"):
            store.add(bad, _crops(), "test")
    partial = _crops()
    del partial[CardType.WOLF]
    with pytest.raises(DeckStoreError, match="no reference for: wolf"):
        store.add("partial", partial, "test")
    with pytest.raises(DeckStoreError, match=f"more than {MAX_REFERENCES}"):
        store.add("huge", _crops(n=MAX_REFERENCES // 11 + 1), "test")
    with pytest.raises(DeckStoreError, match="cannot be removed"):
        store.remove(DEFAULT_DECK)
    # nor shadowed: a stored "standin" was listed, and its photos read by the built-in classifier
    with pytest.raises(DeckStoreError, match="the built-in deck's name"):
        store.add(DEFAULT_DECK, _crops(), "test")
    assert store.names() == [DEFAULT_DECK] and store.info(DEFAULT_DECK).builtin


def test_a_deck_half_built_travels_as_it_is(tmp_path):
    # Exported while still being taught, it was refused on import ("would have no reference for").
    store = DeckStore(tmp_path / "a")
    half = {card: crops for card, crops in _crops().items() if card is not CardType.EAGLE}
    store.add("half", half, "the page", partial=True)
    friend = DeckStore(tmp_path / "b")
    info = import_deck(friend, export_deck(store, "half", tmp_path / "half.zip"))
    assert info.missing == ["eagle"] and not info.complete


def test_a_deck_a_phone_left_unfinished_is_pruned_after_its_idle_days(tmp_path):
    # Never pruned, half-built decks from one client kept every place of max_decks for good (an
    # attack). A whole deck, or one enrolled on the machine, stays however old.
    store = DeckStore(tmp_path / "s")
    half = {card: crops for card, crops in _crops().items() if card is not CardType.EAGLE}
    store.add("left", half, "the page", owner="phone-a", partial=True)
    store.add("fresh", half, "the page", owner="phone-b", partial=True)
    store.add("machine", half, "a folder", partial=True)
    store.add("whole", _crops(), "the page", owner="phone-c")
    old = time.time() - 8 * 86400
    for name in ("left", "machine", "whole"):
        os.utime(store.root / name / "deck.toml", (old, old))
    assert store.prune_unfinished(7) == ["left"]
    assert store.names() == [DEFAULT_DECK, "fresh", "machine", "whole"]
    assert store.prune_unfinished(7, now=time.time() + 8 * 86400) == ["fresh"]


def test_export_and_import_pass_a_deck_whole(tmp_path):
    store = DeckStore(tmp_path / "a")
    store.add("ours", _crops(n=2, value=7), "test")
    path = export_deck(store, "ours", tmp_path / "ours.zip")
    friend = DeckStore(tmp_path / "b")
    info = import_deck(friend, path)
    assert info.name == "ours" and info.counts == store.info("ours").counts
    mine, theirs = store.images("ours"), friend.images("ours")
    assert all(np.array_equal(a, b) for card in CardType for a, b in zip(mine[card], theirs[card]))
    with pytest.raises(DeckStoreError, match="exists already"):
        import_deck(friend, path)
    assert import_deck(friend, path, "ours-copy").name == "ours-copy"


def test_import_reads_only_a_deck_and_says_why_not(tmp_path):
    store = DeckStore(tmp_path / "s")
    junk = tmp_path / "junk.zip"
    junk.write_bytes(b"not a zip at all")
    with pytest.raises(DeckStoreError, match="not a zip"):
        import_deck(store, junk)
    bare = tmp_path / "bare.zip"
    with zipfile.ZipFile(bare, "w") as z:
        z.writestr("bear/0.png", cv2.imencode(".png", np.zeros((8, 8, 3), np.uint8))[1].tobytes())
    with pytest.raises(DeckStoreError, match="no readable deck.toml"):
        import_deck(store, bare)
    sneaky = tmp_path / "sneaky.zip"
    good = DeckStore(tmp_path / "g")
    good.add("ok", _crops(), "test")
    export_deck(good, "ok", sneaky)
    with zipfile.ZipFile(sneaky, "a") as z:  # entries outside the layout are never written anywhere
        z.writestr("../../escaped.png", b"x")
        z.writestr("bear/../../escaped2.png", b"x")
    import_deck(store, sneaky)
    assert not list(tmp_path.rglob("escaped*"))
    broken = tmp_path / "broken.zip"
    with zipfile.ZipFile(broken, "w") as z:
        z.writestr("deck.toml", 'name = "broken"\n')
        z.writestr("bear/0.png", b"not a png")
    with pytest.raises(DeckStoreError, match="bear/0.png is not a readable reference image"):
        import_deck(store, broken)
    for name, member in [('name = "evil\\n"\n', None),  # "$" let a trailing newline into a folder name
                         ('name = "bomb"\n', _png_header(60000, 60000))]:  # a header claiming 3.6 gigapixels
        hostile = tmp_path / "hostile.zip"
        with zipfile.ZipFile(hostile, "w") as z:
            z.writestr("deck.toml", name)
            z.writestr("bear/0.png", member or cv2.imencode(".png", np.zeros((8, 8, 3), np.uint8))[1].tobytes())
        with pytest.raises(DeckStoreError):
            import_deck(store, hostile)
    assert store.names() == [DEFAULT_DECK, "ok"] and not (tmp_path / "s" / "evil\n").exists()


def test_an_export_of_endless_members_is_refused_before_its_directory_is_read(tmp_path):
    # 300,000 empty members in a 26 MB zip took 6 s and 227 MB to be refused as too many:
    # ``zipfile`` read its whole directory first (an attack). The end record's counts are read.
    import tracemalloc

    store = DeckStore(tmp_path / "s")
    crowd = tmp_path / "crowd.zip"
    with zipfile.ZipFile(crowd, "w") as z:
        z.writestr("deck.toml", 'name = "crowd"\n')
        for i in range(20000):
            z.writestr(f"{i}", b"")
    tracemalloc.start()
    with pytest.raises(DeckStoreError, match="too many or too large members"):
        import_deck(store, crowd)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 2**20, peak  # (zipfile's directory of 20,000 members: about 10 MB)
    assert store.names() == [DEFAULT_DECK]


def _lie_about_size(path, member: str, claimed: int) -> None:
    """Write ``claimed`` as ``member``'s inflated size in the zip's local and central headers."""
    import struct

    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as z:
        local = z.getinfo(member).header_offset
    data[local + 22:local + 26] = struct.pack("<I", claimed)
    central = data.index(b"PK\x01\x02")  # the central directory's entries, the member's among them
    while data[central + 46:central + 46 + len(member)] != member.encode():
        central = data.index(b"PK\x01\x02", central + 4)
    data[central + 24:central + 28] = struct.pack("<I", claimed)
    path.write_bytes(bytes(data))


def _say_encrypted(path, member: str, flag: int = 0x1) -> None:
    """Set the "encrypted" flag (or another ``flag`` bit) of ``member`` in the zip's local and
    central headers (zipfile writes no encrypted member)."""
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as z:
        local = z.getinfo(member).header_offset
    data[local + 6] |= flag
    central = data.index(b"PK\x01\x02")
    while data[central + 46:central + 46 + len(member)] != member.encode():
        central = data.index(b"PK\x01\x02", central + 4)
    data[central + 8] |= flag
    path.write_bytes(bytes(data))


def test_an_export_that_lies_about_its_sizes_or_nests_without_end_is_refused_in_little_memory(tmp_path):
    # An attack on the command line: a 1.5 MB zip whose member claims 1,000 bytes and inflates to
    # 1.5 GB took 2.1 GB of memory before its CRC was checked; a deck.toml of brackets nested
    # 200,000 deep ended in a RecursionError's traceback.
    import tracemalloc

    store = DeckStore(tmp_path / "s")
    liar = tmp_path / "liar.zip"
    with zipfile.ZipFile(liar, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("deck.toml", 'name = "liar"\n')
        with z.open("bear/0.png", "w") as f:
            f.write(b"\x89PNG\r\n\x1a\n")
            for _ in range(64):
                f.write(bytes(2**20))  # 64 MB of zeros, a few kB deflated
    _lie_about_size(liar, "bear/0.png", 1000)
    tracemalloc.start()
    with pytest.raises(DeckStoreError, match="bear/0.png is damaged"):
        import_deck(store, liar)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 8 * 2**20, peak
    honest = tmp_path / "honest.zip"  # the same, its size said: refused before a byte is inflated (359 MB read)
    with zipfile.ZipFile(honest, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("deck.toml", 'name = "honest"\n')
        with z.open("bear/0.png", "w", force_zip64=True) as f:
            for _ in range(64):
                f.write(bytes(2**20))
    tracemalloc.start()
    with pytest.raises(DeckStoreError, match="bear/0.png claims 64 MB"):
        import_deck(store, honest)
    assert tracemalloc.get_traced_memory()[1] < 8 * 2**20
    tracemalloc.stop()
    squeezed = tmp_path / "squeezed.zip"  # bzip2 inflates a read whole: refused before any is read
    with zipfile.ZipFile(squeezed, "w", zipfile.ZIP_BZIP2) as z:
        z.writestr("deck.toml", 'name = "squeezed"\n')
        z.writestr("bear/0.png", bytes(1000))
    with pytest.raises(DeckStoreError, match="compressed other than a deck export"):
        import_deck(store, squeezed)
    nested = tmp_path / "nested.zip"
    with zipfile.ZipFile(nested, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("deck.toml", "x = " + "[" * 200_000)
    with pytest.raises(DeckStoreError, match="no readable deck.toml"):
        import_deck(store, nested)
    # A second attack: a deck.toml inflating to 78 MB was parsed for 56 s; an encrypted member
    # ended in a RuntimeError's traceback.
    long_toml = tmp_path / "long-toml.zip"
    with zipfile.ZipFile(long_toml, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("deck.toml", 'name = "long"\n' + "# " * 2**20)
    started = time.monotonic()
    with pytest.raises(DeckStoreError, match="deck.toml claims 2048 KB"):
        import_deck(store, long_toml)
    assert time.monotonic() - started < 1.0
    # a member claiming a zip version past what zipfile reads: NotImplementedError on opening the zip
    future = tmp_path / "future.zip"
    with zipfile.ZipFile(future, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("deck.toml", 'name = "future"\n')
    data = bytearray(future.read_bytes())
    data[data.index(b"PK\x01\x02") + 6] = 99  # "version needed to extract": 9.9
    future.write_bytes(bytes(data))
    with pytest.raises(DeckStoreError, match="not a deck export"):
        import_deck(store, future)
    # encrypted by a password or strongly (bit 6), or "patched data" (bit 5): zipfile cannot read
    # the last two (NotImplementedError, a traceback: an attack)
    for flag, said in ((0x1, "encrypted"), (0x40, "encrypted"), (0x20, "compressed other than a deck export")):
        locked = tmp_path / f"locked-{flag}.zip"
        with zipfile.ZipFile(locked, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("deck.toml", 'name = "locked"\n')
            z.writestr("bear/0.png", b"\x89PNG")
        _say_encrypted(locked, "bear/0.png", flag)  # opening it asks for a password, or cannot be done
        with pytest.raises(DeckStoreError, match=said):
            import_deck(store, locked)
    # A third: a second deck.toml behind a small first one was read unchecked (100 MB, 105 s and
    # 573 MB); a name of 5,000 dotted keys, or a number too long to read, a traceback.
    png = cv2.imencode(".png", np.zeros((128, 128, 3), np.uint8))[1].tobytes()
    twice = tmp_path / "twice.zip"
    with warnings.catch_warnings(), zipfile.ZipFile(twice, "w", zipfile.ZIP_DEFLATED) as z:
        warnings.simplefilter("ignore")  # (zipfile warns of a name written twice)
        z.writestr("deck.toml", 'name = "twice"\n')
        z.writestr("deck.toml", b"a = [" + b"1," * 2**20 + b"1]\n")
    started = time.monotonic()
    with pytest.raises(DeckStoreError, match="a member is named twice"):
        import_deck(store, twice)
    assert time.monotonic() - started < 1.0
    for k, toml in enumerate(["name" + ".a" * 5000 + " = 1\n", "name = " + "7" * 5000 + "\n",
                              "name = 0x" + "f" * 5000 + "\n", "name = 7\n"]):
        odd = tmp_path / f"odd{k}.zip"
        with zipfile.ZipFile(odd, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("deck.toml", toml)
            z.writestr("bear/0000.png", png)
        with pytest.raises(DeckStoreError, match="no readable deck.toml|gives no name as text"):
            import_deck(store, odd, name="odd")
    assert store.names() == [DEFAULT_DECK]


def _png_header(width: int, height: int) -> bytes:
    import struct
    import zlib

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))


def test_a_source_no_toml_can_hold_is_kept_printable_and_a_broken_deck_toml_breaks_no_listing(tmp_path):
    # An upload's filename went into deck.toml as it came: DEL made the file unreadable, and then
    # every listing of the decks (GET /api/decks, `deck list`) failed for everyone.
    store = DeckStore(tmp_path)
    store.add("table", _crops(), "x\x7fy.jpg \ud800 \u200b" + "z" * 5000)
    (source,) = store.info("table").sources
    assert source.startswith("xy.jpg  ") and len(source) == 200
    store.add("table", _crops(), "the same cards again")  # adds nothing: no new source either
    assert len(store.info("table").sources) == 1
    (tmp_path / "table" / "deck.toml").write_bytes(b'name = "table"\nsources = ["\x7f"]\n')  # broken by hand
    assert store.names() == [DEFAULT_DECK, "table"]
    assert store.info("table").sources == ["(deck.toml unreadable: sources unknown)"] and store.info("table").complete
    store.add("table", _crops(value=5), "more")  # writes it whole again
    assert store.info("table").sources == ["(deck.toml unreadable: sources unknown)", "more"]


def test_the_same_cards_added_twice_are_kept_once(tmp_path):
    store = DeckStore(tmp_path)
    store.add("twice", _crops(), "first")
    info = store.add("twice", _crops(), "the same folder again")
    assert sum(info.counts.values()) == 11
    info = store.add("twice", _crops(value=3), "other cards")
    assert sum(info.counts.values()) == 22


def test_a_dark_deck_is_its_seed_drawn_on_near_black_stock():
    from ecoscore.datasets.deck import load_deck as load
    from ecoscore.datasets.synth import scene_deck

    for style in ("framed", "icon", "minimal"):
        light, dark = generate_deck(7, style), generate_deck(7, style, dark=True)
        assert dark.name == f"generated-{style}-dark-7"
        for card in CardType:
            grey = cv2.cvtColor(dark.faces[card][0], cv2.COLOR_BGR2GRAY)
            frame = np.concatenate([grey[2], grey[-3], grey[:, 2], grey[:, -3]])  # inside any outline
            assert np.median(frame) < 45 and np.median(grey) < 100, f"{style} {card.value}: not dark"
            assert not np.array_equal(dark.faces[card][0], light.faces[card][0])
    # A share of dark decks changes which decks are dark, never which deck a scene draws.
    standin = load("standin")
    plain = [scene_deck(standin, 0.8, 81, i).name for i in range(60)]
    some_dark = [scene_deck(standin, 0.8, 81, i, dark_decks=0.4).name for i in range(60)]
    assert [n.replace("-dark", "") for n in some_dark] == plain
    assert 10 <= sum("-dark-" in n for n in some_dark) <= 35


def test_another_edition_keeps_the_art_and_prints_other_words():
    # A language's edition of a deck (bench/bench_editions.py): its names and rules text differ,
    # its art and layout do not; the first edition is the seed's deck as it always was.
    from ecoscore.datasets.deckgen import H

    for style in STYLES:
        first, second = generate_deck(9, style), generate_deck(9, style, edition=1)
        assert second.name == f"generated-{style}-9-edition-1"
        assert generate_deck(9, style, edition=0).name == first.name
        changed = 0
        for card in CardType:
            a, b = first.faces[card][0], second.faces[card][0]
            rows = np.flatnonzero((a != b).any(axis=(1, 2)))
            changed += bool(rows.size)
            # only the banner (a tenth of the card, top or bottom) and the text box (its lowest quarter)
            assert all(r < 0.16 * H or r > 0.72 * H for r in rows), (style, card, rows)
        assert changed >= 6, style  # the words differ on most cards (a minimal card may have neither)


def test_off_cuts_move_the_whole_cut_and_leave_the_other_banks_as_they_were():
    from ecoscore.datasets.matchset import _perturbed

    card = np.array([[0, 0], [100, 0], [100, 140], [0, 140]], float)
    assert np.array_equal(_perturbed(card, np.random.default_rng(1), 0.04),
                          _perturbed(card, np.random.default_rng(1), 0.04, shift=0.0))

    def centre_moved(shift: float) -> float:
        moved = [_perturbed(card, np.random.default_rng(k), 0.04, shift).mean(0) - card.mean(0) for k in range(400)]
        return float(np.median(np.linalg.norm(moved, axis=1)))

    # Corner noise alone barely moves the cut's centre; a shift of σ 0.15 moves it ~18 px of 100.
    assert centre_moved(0.0) < 4 and 12 < centre_moved(0.15) < 25


def test_a_deck_started_over_the_service_takes_cards_only_with_its_token(tmp_path):
    # A deck's name is public (GET /api/decks): anyone could add a photo with a wrong grid to it
    # and teach it wrong pictures, or fill it to its cap (an attack on a running server).
    store = DeckStore(tmp_path)
    store.add("ours", _crops(), "the page", owner="secret")
    with pytest.raises(NotDeckOwner, match="only the phone that started deck 'ours'"):
        store.add("ours", _crops(value=9), "an attacker", owner="guess")
    store.add("ours", _crops(value=9), "the page again", owner="secret")
    store.add("ours", _crops(value=18), "the command line")  # the machine's own user: no token needed
    assert store.info("ours").sources == ["the page", "the page again", "the command line"]
    store.add("mine", _crops(), "the command line")
    with pytest.raises(NotDeckOwner, match="enrolled on the server"):
        store.add("mine", _crops(value=9), "the page", owner="anything")
    export = export_deck(store, "ours", tmp_path / "ours.zip")
    with zipfile.ZipFile(export) as z:
        assert "owner" not in z.read("deck.toml").decode()  # a friend's copy is theirs


def test_no_new_deck_past_the_cap_whoever_asks_and_a_damaged_export_is_refused(tmp_path):
    store = DeckStore(tmp_path / "s")
    store.add("one", _crops(), "test", owner="a", max_decks=1)
    with pytest.raises(DeckStoreError, match="at most 1 decks"):  # any token: the cap is on new decks
        store.add("two", _crops(), "test", owner="b", max_decks=1)
    store.add("one", _crops(value=9), "more", owner="a", max_decks=1)  # an existing deck still learns
    path = export_deck(store, "one", tmp_path / "one.zip")
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as z:
        member = z.getinfo("bear/0000.png")
    start = member.header_offset + 30 + len(member.filename) + len(member.extra)
    data[start + member.compress_size // 2] ^= 0xFF  # a bad CRC (a traceback, exit 1, before)
    damaged = tmp_path / "damaged.zip"
    damaged.write_bytes(bytes(data))
    with pytest.raises(DeckStoreError, match="damaged"):
        import_deck(DeckStore(tmp_path / "t"), damaged)


class ConstantEmbedder:
    """An embedder that says every crop is the same: for what the store does with its cache."""
    version, imgsz, scale, not_ours, empty = "test", 64, 20.0, 0.45, np.zeros(4, np.float32)

    def __call__(self, crops):
        return np.ones((len(crops), 4), np.float32)


def test_a_cache_written_by_a_read_that_raced_an_add_is_never_loaded(tmp_path):
    # A read embedding the deck while cards were added wrote its cache after the add had cleared
    # the old one: the new cards went unread until the next add (an attack on a running server).
    store = DeckStore(tmp_path)
    store.add("d", _crops(), "first")
    before = store.references("d", ConstantEmbedder())
    (stale,) = tmp_path.glob("d/embedded-*.npz")
    kept = stale.read_bytes()
    store.add("d", _crops(value=9), "more")
    stale.write_bytes(kept)  # the racing read's late write
    after = store.references("d", ConstantEmbedder())
    assert len(after.metric.prototypes) == 2 * len(before.metric.prototypes)  # each reference at each turn


def test_two_adds_at_once_in_one_process_take_turns(tmp_path, monkeypatch):
    # The store's POSIX lock is the process's: two requests of one server both held it. Two new
    # decks of one name both "started" (only one token worked after), and an owner's two photos
    # at once overwrote each other's cards (an attack on a running server).
    import threading
    import time

    import ecoscore.vision.deckstore as deckstore

    slow = deckstore.reference_crop
    monkeypatch.setattr(deckstore, "reference_crop", lambda image: (time.sleep(0.02), slow(image))[1])
    store = DeckStore(tmp_path)
    crops = [{CardType.BEAR: [np.full((120, 90, 3), 10 * k + i, np.uint8) for i in range(4)]} for k in range(2)]
    outcomes: list = [None, None]

    def add(k: int, owner: str) -> None:
        try:
            outcomes[k] = DeckStore(tmp_path).add("kitchen", crops[k], f"photo {k}", owner, partial=True)
        except NotDeckOwner as err:
            outcomes[k] = err

    threads = [threading.Thread(target=add, args=(k, f"token-{k}")) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(isinstance(o, NotDeckOwner) for o in outcomes) == 1  # one started the deck, the other is refused
    assert store.info("kitchen").counts[CardType.BEAR] == 4

    owner = next(f"token-{k}" for k, o in enumerate(outcomes) if not isinstance(o, NotDeckOwner))
    more = [{CardType.BEAR: [np.full((120, 90, 3), 100 + 10 * k + i, np.uint8) for i in range(5)]} for k in range(2)]
    threads = [threading.Thread(target=lambda k=k: store.add("kitchen", more[k], f"more {k}", owner, partial=True))
               for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert store.info("kitchen").counts[CardType.BEAR] == 4 + 5 + 5  # every acknowledged card kept


def test_a_deck_forgotten_while_a_read_embeds_it_stays_gone(tmp_path):
    # A read embedding a deck while its only photo was forgotten wrote its cache into a new
    # folder of the deck's name (a folder no listing or cap counted: disk without bound), and
    # the forget could fail "directory not empty" (an attack on a running server).
    store = DeckStore(tmp_path)

    class Embedder:
        version, imgsz, scale, not_ours, empty = "test", 64, 20.0, 0.45, np.zeros(4, np.float32)

        def __call__(self, crops):
            if (tmp_path / "d").exists():
                assert store.forget_last("d") is None  # its first add: the deck goes with it
            return np.ones((len(crops), 4), np.float32)

    store.add("d", _crops(), "first")
    store.references("d", Embedder())
    assert not (tmp_path / "d").exists() and store.names() == [DEFAULT_DECK]
    assert [p.name for p in tmp_path.iterdir() if p.name != ".lock"] in ([], [p.name for p in tmp_path.glob(".gone-*")])
    store.add("d", _crops(), "again")  # a new deck of that name starts clean; leftovers go at the next drop
    store.remove("d")
    assert not list(tmp_path.glob(".gone-*")) and store.names() == [DEFAULT_DECK]


def test_a_type_forgotten_while_a_read_checks_the_deck_is_a_refusal_not_an_error(tmp_path):
    # A read checked the deck whole, then read its crops after its owner took back the photo that
    # gave its last type: embedding ten types failed as a ValueError, a 500 (an attack on a
    # running server: photos read with a deck while its owner forgot and re-added one).
    store = DeckStore(tmp_path)
    crops = _crops()
    store.add("d", {card: faces for card, faces in crops.items() if card is not CardType.FOX}, "ten types", partial=True)
    store.add("d", {CardType.FOX: crops[CardType.FOX]}, "the fox")
    checked = store._state

    def forgotten_meanwhile(name, builtin):
        store._state = checked
        assert store.forget_last("d") is not None
        return checked(name, builtin)

    store._state = forgotten_meanwhile
    with pytest.raises(IncompleteDeck, match="no reference yet for: fox"):
        store.references("d", ConstantEmbedder())
    store.add("d", {CardType.FOX: crops[CardType.FOX]}, "the fox again")
    assert len(store.references("d", ConstantEmbedder()).metric.prototypes)  # whole again: read


def test_the_last_add_is_forgotten_once_and_a_damaged_crop_names_no_server_path(tmp_path):
    store = DeckStore(tmp_path)
    store.add("d", _crops(), "first")
    store.add("d", _crops(value=9), "second")
    info = store.forget_last("d")
    assert info is not None and sum(info.counts.values()) == len(CardType) and info.sources == ["first"]
    with pytest.raises(DeckStoreError, match="no last cards to forget"):
        store.forget_last("d")
    (tmp_path / "d" / "fox" / "0000.png").write_bytes(b"garbage")
    with pytest.raises(DeckStoreError) as err:
        store.images("d")
    assert str(err.value).startswith("deck 'd': fox/0000.png: not a readable image") and str(tmp_path) not in str(err.value)


def test_a_decks_info_is_kept_until_its_deck_changes_in_this_process_or_another(tmp_path):
    # Each listing counted 11 folders a deck (120-160 ms for 200 decks: an attack looped on it).
    store, other = DeckStore(tmp_path), DeckStore(tmp_path)  # another process's store, on the same folder
    store.add("d", _crops(), "first")
    seen = store.info("d")
    seen.counts[CardType.BEAR] = 99  # a caller's copy: the store's is its own
    assert store.info("d").counts[CardType.BEAR] == 1
    for k, change in enumerate((lambda: other.add("d", _crops(value=9), "second"), lambda: other.forget_last("d"),
                                lambda: other.add("d", _crops(value=7), "third"))):
        change()  # at once after the last: every write of deck.toml is told apart
        assert store.info("d") == other.info("d") and sum(store.info("d").counts.values()) == len(CardType) * (
            1 + (k != 1)), k
    other.remove("d")
    with pytest.raises(NoSuchDeck):
        store.info("d")


def test_each_writing_of_a_decks_toml_is_told_apart_however_soon_and_alike(tmp_path):
    # A file system's clock ticks coarsely and a new file may take the old one's inode back: two
    # writings alike within a tick looked the same to another process (a review).
    from ecoscore.vision import deckstore

    store = DeckStore(tmp_path)
    store.add("d", _crops(), "first")
    keys, stamps = [], []
    for _ in range(50):
        deckstore._write_toml(tmp_path / "d", "d", ["first"])
        keys.append(deckstore._info_key(tmp_path / "d"))
        stamps.append(store.stamp("d"))
    assert len(set(keys)) == len(set(stamps)) == 50


def test_an_add_of_nothing_new_is_the_last_add_and_taking_it_back_takes_back_nothing(tmp_path):
    # A photo remembered twice (a retry, a double tap) added nothing the second time, and
    # "forget these cards" then took back the add before it: of a deck's first, the whole deck
    # (an attack on a running server).
    store = DeckStore(tmp_path)
    store.add("d", _crops(), "first")
    again = store.add("d", _crops(), "first again")
    assert sum(again.counts.values()) == len(CardType) and again.added == 0
    with pytest.raises(DeckStoreError, match="learned no card from its last photo"):
        store.forget_last("d")
    assert sum(store.info("d").counts.values()) == len(CardType) and store.info("d").sources == ["first"]
    store.add("d", _crops(value=9), "second")
    assert store.forget_last("d").sources == ["first"]  # a later add is taken back as before


class ChannelStats:
    """A stand-in embedder: each channel's mean and spread (any deterministic embedding will do),
    with a matcher's scale, not-ours level and empty prototype (a deck's type scale is fitted on
    its probabilities)."""
    version, imgsz, scale, not_ours, empty = "test", 64, 20.0, 0.45, np.zeros(8, np.float32)

    def __call__(self, crops):
        x = np.asarray(crops, np.float32).reshape(len(crops), -1, 3)
        return np.concatenate([x.mean(1), x.std(1), np.ones((len(crops), 2))], 1).astype(np.float32)


def test_a_decks_own_metric_is_kept_with_its_cached_embedding(tmp_path):
    # A deck is fitted once (vision/deck_metric.py) and its metric cached beside the vectors:
    # read from the cache, it names cells exactly as when it was fitted.
    store = DeckStore(tmp_path)
    store.add("d", _crops(), "first")
    fitted = store.references("d", ChannelStats())
    cached = store.references("d", ChannelStats())
    assert fitted.metric is not None and cached.metric is not None
    cells = ChannelStats()([np.full((64, 64, 3), v, np.uint8) for v in (0, 40, 200)])
    assert np.allclose(fitted.metric.type_similarities(cells, len(CardType)),
                       cached.metric.type_similarities(cells, len(CardType)))
    assert cached.metric.type_scale == fitted.metric.type_scale is not None  # how sharply its types are told apart
    # A cache damaged on disk (cut short by a full disk) is fitted again and rewritten, not a
    # failed read of the deck on every request until its next add.
    (cache,) = tmp_path.glob("d/embedded-*.npz")
    cache.write_bytes(cache.read_bytes()[:100])
    again = store.references("d", ChannelStats())
    assert again.metric is not None and np.allclose(again.metric.whiten, fitted.metric.whiten)
    assert store.references("d", ChannelStats()).metric is not None and cache.stat().st_size > 100
    # A new model or metric version fits the deck again; the old version's cache, never read
    # again, is not left on disk for good: deleted once a day old (two versions serving one data
    # folder a while must not delete each other's caches on every read).
    old = cache.with_name("embedded-matcher-0123456789ab-v2.npz")
    cache.rename(old)
    store.references("d", ChannelStats())
    assert sorted(p.name for p in tmp_path.glob("d/embedded-*.npz")) == sorted([cache.name, old.name])
    day_ago = time.time() - 2 * 24 * 3600
    os.utime(old, (day_ago, day_ago))
    cache.unlink()
    store.references("d", ChannelStats())
    assert [p.name for p in tmp_path.glob("d/embedded-*.npz")] == [cache.name]


def test_a_decks_title_is_the_name_its_player_typed_kept_printable_and_it_travels_with_the_deck(tmp_path):
    # The page's menu showed the deck's key ("nas-stul") where the player had typed "Náš stůl":
    # the name as typed is kept beside the key (deck.toml), bounded and printable as the sources.
    store = DeckStore(tmp_path / "a")
    info = store.add("nas-stul", _crops(), "the page", title="  Náš\u2028stůl\x7f ")
    assert info.name == "nas-stul" and info.title == "Náš stůl" and info.shown == "Náš stůl"
    assert 'title = "Náš stůl"' in (tmp_path / "a" / "nas-stul" / "deck.toml").read_text(encoding="utf-8")
    info = store.add("nas-stul", _crops(value=9), "the page again", title="Another")  # started as it was named
    assert info.title == "Náš stůl" and store.forget_last("nas-stul").title == "Náš stůl"
    friend = DeckStore(tmp_path / "b")
    assert import_deck(friend, export_deck(store, "nas-stul", tmp_path / "d.zip"), "ours").title == "Náš stůl"
    # ... but a copy imported beside it is called by its own name: not two decks called "Náš stůl"
    copy = import_deck(store, tmp_path / "d.zip", "copy")
    assert copy.title is None and store.info("copy").shown == "copy"
    assert copy.title_kept_by == "nas-stul"  # said by the command line (it was dropped without a word)
    # A title of nothing visible is no title, kept by no deck (it named an untitled deck as keeping it: an attack)
    import zipfile

    store.add("plain-one", _crops(), "test")
    plain = export_deck(store, "plain-one", tmp_path / "p.zip")
    crafted = tmp_path / "blank.zip"
    with zipfile.ZipFile(plain) as z, zipfile.ZipFile(crafted, "w", zipfile.ZIP_DEFLATED) as out:
        for m in z.infolist():
            out.writestr(m, 'name = "x"\ntitle = "\u200b"\nsources = []\n' if m.filename == "deck.toml" else z.read(m))
    assert import_deck(store, crafted, "blank-copy").title_kept_by is None
    # A line break in a title is a space (it glued the words: an attack)
    assert store.add("lines", _crops(), "test", title="line1\nline2\ttab").title == "line1 line2 tab"
    # Old decks, and a title of nothing visible, are shown by their key; a long one is cut.
    assert store.add("plain", _crops(), "test").title is None and store.info("plain").shown == "plain"
    assert store.add("blank", _crops(), "test", title="\u200b \x00\n").title is None
    # Blank letters are nothing visible too; marks past a few on one letter go (an attack: a
    # title of Hangul fillers, one of 40 stacked marks)
    assert store.add("fillers", _crops(), "test", title="\u3164\u3164\u2800").title is None
    assert store.add("stacked", _crops(), "test", title="Z" + "\u0301" * 40 + "oo").title == "\u0179" + "\u0301" * 3 + "oo"  # (Ź: composed)
    assert store.add("viet", _crops(), "test", title="Bàn của tôi").title == "Bàn của tôi"  # a real script's marks kept
    assert store.add("long", _crops(), "test", title='"Q" \\ ' + "x" * 100).title == '"Q" \\ ' + "x" * 34
    (tmp_path / "a" / "plain" / "deck.toml").write_text('name = "plain"\ntitle = 7\nsources = []\n', encoding="utf-8")
    assert store.info("plain").title is None  # not a string: no title, the listing unbroken


def test_a_deck_half_built_is_read_only_for_guesses_and_never_names_a_type_it_lacks(tmp_path):
    # The page's second teaching photo came back with all 20 cells to name: a deck without every
    # type read nothing. It may now be read for the page's guesses (``partial``), never for a
    # score; a type with no reference is never named.
    from ecoscore.service.decks import Decks
    from ecoscore.vision.matcher import TYPES

    store = DeckStore(tmp_path)
    half = {card: crops for card, crops in _crops().items() if card not in (CardType.WOLF, CardType.EAGLE)}
    store.add("half", half, "the page", partial=True)
    with pytest.raises(DeckStoreError, match="no reference yet for: eagle, wolf"):
        store.references("half", ChannelStats())
    refs = store.references("half", ChannelStats(), partial=True)
    assert set(refs.pattern_types) == {TYPES.index(card) for card in half}
    cells = ChannelStats()([np.full((64, 64, 3), v, np.uint8) for v in range(0, 250, 10)])
    sims = refs.metric.type_similarities(cells, len(TYPES))
    lacking = [TYPES.index(CardType.WOLF), TYPES.index(CardType.EAGLE)]
    assert (sims[:, lacking] == -1).all() and not np.isin(sims.argmax(1), lacking).any()
    decks = Decks(store)
    decks._embedder = ChannelStats()
    with pytest.raises(DeckStoreError, match="no reference yet"):  # never for reading a score
        decks.matcher("half")
    assert decks.guesser("half").references.name == "half"
    with pytest.raises(DeckStoreError, match="no reference yet"):  # nor kept for one by a guess
        decks.matcher("half")


def test_deck_list_and_show_name_a_deck_as_its_player_typed_it(tmp_path, monkeypatch, capsys):
    from ecoscore.cli import main

    monkeypatch.setenv("ECOSCORE_DATA", str(tmp_path))
    store = DeckStore(tmp_path / "decks")
    store.add("nas-stul", _crops(), "the page", title="Náš stůl")
    store.add("plain", _crops(), "the command line")
    assert main(["deck", "list"]) == 0
    listed = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()}
    assert '"Náš stůl"' in listed["nas-stul"] and '"' not in listed["plain"]
    assert main(["deck", "show", "nas-stul"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == 'deck nas-stul "Náš stůl"'  # (two spaces in it: an Italian walk)
    store.add("nas-stul", _crops(value=9), "the page")  # a second photo from the page: said once, counted
    assert main(["deck", "show", "nas-stul"]) == 0
    assert [line for line in capsys.readouterr().out.splitlines() if "from:" in line] == ["  from: the page (× 2)"]


def test_deck_add_refuses_a_title_another_deck_is_called_already(tmp_path, monkeypatch, capsys):
    # Two decks both called "Naše kuchyň" stood side by side in the page's menu and `deck list`,
    # one not told from the other: a title is compared as it is kept (clean_title), whatever its case.
    from ecoscore.cli import main

    monkeypatch.setenv("ECOSCORE_DATA", str(tmp_path))
    store = DeckStore(tmp_path / "decks")
    store.add("kitchen", _crops(), "the command line", title="Naše kuchyň")
    store.add("plain", _crops(), "the command line")
    faces = write_deck(generate_deck(HELD_OUT_SEEDS[3]), tmp_path / "faces")  # cards it would enrol
    capsys.readouterr()
    # ... nor by its accents, its width or letters of another script that look alike (an attack on a
    # running server: each came in as a deck of its own)
    for title, clash in (("  NAŠE\tkuchyň ", "kitchen"), ("Plain", "plain"), ("Nase kuchyn", "kitchen"),
                         ("Ｎａše ｋｕｃｈｙň", "kitchen"), ("Naše kuсhyň", "kitchen")):
        assert main(["deck", "add", "other", str(faces), "--title", title]) == 2
        said = capsys.readouterr().err
        assert f"deck {clash} is called {store.info(clash).shown!r} already" in said and "--title" in said, said
    assert store.names() == [DEFAULT_DECK, "kitchen", "plain"]  # nothing enrolled


def test_a_late_read_of_a_deck_changed_since_keeps_the_current_cache(tmp_path, monkeypatch):
    # A read that began before an add wrote its cache (named by the old state) after the add;
    # deleting every other cache then would delete the current one, and the next read would
    # embed the deck again (a review's finding). It deletes others only for the current state,
    # and names its cache by the state it read the crops in (under the store's lock, with them).
    store = DeckStore(tmp_path)
    store.add("d", _crops(), "first")
    stamp = store.stamp("d")
    store.add("d", _crops(value=9), "more")
    store.references("d", ConstantEmbedder())  # the current state's cache
    (current,) = tmp_path.glob("d/embedded-*.npz")
    real, calls = store.stamp, []

    def seen_before_the_add(name):  # the read's first look saw the deck before the add
        calls.append(name)
        return stamp if len(calls) == 1 else real(name)

    monkeypatch.setattr(store, "stamp", seen_before_the_add)
    store.references("d", ConstantEmbedder())
    monkeypatch.undo()
    assert current.exists() and list(tmp_path.glob("d/embedded-*.npz")) == [current]


def test_the_store_refuses_a_taken_title_under_its_lock_and_an_import_compares_titles_as_an_add_does(tmp_path):
    # The service and the command line check a title before reading a photo; two adds at once both
    # passed that check (a helper's note): the store's add refuses it under its lock. An import
    # compared titles exactly, so "NAŠE KUCHYŇ" came in beside "Naše kuchyň".
    from ecoscore.vision.deckstore import TitleTaken

    store = DeckStore(tmp_path / "a")
    store.add("kitchen", _crops(), "test", title="Naše kuchyň")
    with pytest.raises(TitleTaken, match="deck kitchen is called 'Naše kuchyň' already"):
        store.add("other", _crops(), "test", title=" naše  KUCHYŇ")
    assert store.names() == [DEFAULT_DECK, "kitchen"]
    assert store.add("kitchen", _crops(value=9), "more", title="NAŠE KUCHYŇ").title == "Naše kuchyň"  # its own: no clash
    # A new deck of no title is shown by its key: "foo" beside a deck called "Foo" (a helper's attack)
    store.add("bar", _crops(), "test", title="Foo")
    with pytest.raises(TitleTaken, match="deck bar is called 'Foo' already"):
        store.add("foo", _crops(), "test")
    friend = DeckStore(tmp_path / "b")
    friend.add("theirs", _crops(), "test", title="NAŠE KUCHYŇ")
    copy = import_deck(store, export_deck(friend, "theirs", tmp_path / "t.zip"))
    assert copy.title is None and copy.title_kept_by == "kitchen" and store.info("theirs").shown == "theirs"
    # ... and where its key is a title here too, it is refused, saying how to import it (it failed
    # with the advice of an add: a review)
    friend.add("foo", _crops(), "test", title="Foo")
    with pytest.raises(TitleTaken, match=r"deck bar is called 'Foo' already: give deck foo another name \(--name NAME\)"):
        import_deck(store, export_deck(friend, "foo", tmp_path / "f.zip"))
    assert import_deck(store, tmp_path / "f.zip", "foo-copy").title_kept_by == "bar"


def test_a_deck_is_named_on_the_command_line_by_its_key_or_by_the_title_players_see(tmp_path, monkeypatch):
    # `deck list` and the page show a deck's title; `--deck "Naše kuchyň"` was refused as no
    # deck's name (a newcomer's run). A title names its one deck; a key is never read as a title.
    from ecoscore.cli import build_parser

    store = DeckStore(tmp_path / "decks")
    store.add("kitchen", _crops(), "test", title="Naše kuchyň")
    store.add("nase-kuchyn", _crops(), "test")  # a key that reads as the title, unaccented
    assert store.called("Naše kuchyň") == store.called("naše KUCHYŇ") == store.called("Nase kuchyn") == "kitchen"
    assert store.called("nase-kuchyn") == "nase-kuchyn" and store.called("kitchen") == "kitchen"
    assert store.called("Cizí stůl") == "Cizí stůl"  # no such title: refused later as it was typed
    store.add("k1", _crops(), "test", title="garden")  # a title written as a key is a title (a review's find)
    assert store.called("garden") == "k1" and store.called("k1") == "k1"
    monkeypatch.setenv("ECOSCORE_DATA", str(tmp_path))
    parser = build_parser()
    assert parser.parse_args(["score", "p.jpg", "--deck", "Naše kuchyň"]).deck == "kitchen"
    assert parser.parse_args(["deck", "show", "Naše kuchyň"]).name == "kitchen"
    assert parser.parse_args(["deck", "add", "Naše kuchyň", "--photo", "p.jpg", "--grid", "g.txt"]).name == "kitchen"


# Each title's key as the page's deckSlug (service/static/app.js) makes it, read off it with node.
PAGE_KEYS = {"Naše kuchyň": "nase-kuchyn", "Мой лес": "moj-les", "Ёжик": "ezhik", "Deck_": "deck_", "_x_": "x_",
             "Łódź": "odz", "Straße": "stra-e", "İstanbul": "istanbul", "ǅemal": "dzemal", "Ⅻ ﬁ": "xii-fi",
             "a" * 39 + " b": "a" * 39 + "-", "日本": ""}


@pytest.mark.parametrize("title", sorted(PAGE_KEYS))
def test_a_title_becomes_the_key_the_page_makes_of_it(title):
    from ecoscore.vision.deckstore import NAME, name_for

    assert name_for(title) == PAGE_KEYS[title]
    assert not name_for(title) or NAME.fullmatch(name_for(title))  # a key the deck store takes


def test_an_accented_name_given_to_deck_add_is_refused_with_a_key_to_use_and_its_title_quoted_for_a_shell(
        tmp_path, monkeypatch, capsys):
    from ecoscore.cli import main

    monkeypatch.setenv("ECOSCORE_DATA", str(tmp_path))
    assert main(["deck", "add", 'Naše "velká" kuchyň', str(tmp_path)]) == 2
    said = capsys.readouterr().err.strip()
    assert said.endswith("""(such as nase-velka-kuchyn, with --title 'Naše "velká" kuchyň' for the name players see)"""), said
    assert not (tmp_path / "decks" / "nase-velka-kuchyn").exists()


def test_a_photos_clashes_that_swap_two_types_both_ways_are_told_as_possibly_the_decks_own():
    # A deck enrolled with its only fox and bee swapped, given a right photo: every fox read as a
    # bee and every bee as a fox, and the refusal blamed the new grid alone (a newcomer's run).
    from ecoscore.cli.deck import _swapped_pair
    from ecoscore.vision.enrol import Clash

    fox, bee, deer = CardType.FOX, CardType.BEE, CardType.DEER
    both_ways = [Clash((0, 4), fox, "bee", 1.0), Clash((1, 3), bee, "fox", 1.0), Clash((2, 0), fox, "bee", 0.99)]
    assert _swapped_pair(both_ways) == ("bee", "fox")
    assert _swapped_pair(both_ways[:1]) is None  # one card: a slip in this grid
    assert _swapped_pair([*both_ways, Clash((3, 3), deer, "fox", 0.98)]) is None  # a third type: not a pair
    assert _swapped_pair([Clash((0, 4), fox, "bee", 1.0), Clash((1, 3), fox, "bee", 1.0)]) is None  # one way only
