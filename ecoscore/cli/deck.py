"""`ecoscore deck`: enrol your own deck's cards; list, show, remove, export or import decks."""
from __future__ import annotations

import argparse
import re
import shlex
import sys
from collections import Counter
from pathlib import Path

from .common import BadInput, cannot_read, cannot_write, deck_called, open_reader_or_fail, read_grid, read_photos, with_decks
from .language import Words, add_first_lang_option, add_lang_option, words_for

MANY_CLASHES = 6  # cells of a grid that disagree with a deck's own cards beyond a slip or two
MANY_STRANGERS = 3  # a photo's cards a deck reads as none of its own, half of them at least, before it is said


def run(args: argparse.Namespace) -> int:
    from ecoscore.vision.deck_archive import import_deck
    from ecoscore.vision.deckstore import DeckStoreError, NoSuchDeck, default_store

    store = default_store()
    words = words_for(args)
    try:
        if args.action == "list":
            for name in store.names():
                info = store.info(name)
                print(f"{name:<20} {_references(words, info, width=4)}{_called(info, words, '  ')}"
                      f"{'  ' + words.fill('cli.deck_default') if info.builtin else ''}"
                      f"{'  ' + _reads_nothing(words, info) if info.missing else ''}")
        elif args.action == "show":
            info = store.info(args.name)
            print(words.fill("cli.deck_head", name=info.name) + _called(info, words)
                  + (" " + words.fill("cli.deck_builtin") if info.builtin else ""))
            for card, n in info.counts.items():
                print(f"  {words.label(card.value):<10} {words.fill('cli.deck_refs', n=n)}")
            # Each source once, with how many adds it made: the page's photos are all "photo.jpg
            # from the page", said twice over (a newcomer's run).
            for source, n in Counter(info.sources).items():
                print("  " + words.fill("cli.deck_from", source=_source(words, source)) + (f" (× {n})" if n > 1 else ""))
            if args.sheet is not None:
                print(words.fill("cli.wrote", path=_sheet(store, args.name, args.sheet)), file=sys.stderr)
        elif args.action == "remove":
            store.remove(args.name)
            print(words.fill("cli.deck_removed", name=args.name), file=sys.stderr)
        elif args.action == "forget-last":
            left = store.forget_last(args.name)
            print(words.fill("cli.deck_forgot", name=args.name, n=sum(left.counts.values())) if left is not None
                  else words.fill("cli.deck_forgot_all", name=args.name), file=sys.stderr)
        elif args.action == "export":
            print(words.fill("cli.wrote", path=_export(store, args.name, args.file, args.force)), file=sys.stderr)
        elif args.action == "import":
            if _special(args.file):  # (/dev/zero was "no such file")
                raise BadInput(f"{args.file} is not a plain file (a device, a pipe or a socket): give a deck export, a .zip file")
            if not args.file.is_file():  # (a folder was "no such file": a run, in Italian)
                raise BadInput(cannot_read(args.file, IsADirectoryError() if args.file.is_dir() else FileNotFoundError()))
            info = import_deck(store, args.file, args.name)
            print(words.fill("cli.deck_imported", name=info.name, title=_called(info, words), refs=_references(words, info))
                  + (" " + _reads_nothing(words, info) if info.missing else ""), file=sys.stderr)
            if info.title_kept_by:  # (dropped without a word: a newcomer's run)
                kept = store.info(info.title_kept_by)
                print(words.fill("cli.deck_title_kept", title=kept.shown, other=kept.name, name=info.name),
                      file=sys.stderr)
        else:
            _deck_add(args, store, words)
    except NoSuchDeck as err:
        raise BadInput(with_decks(err)) from None
    except DeckStoreError as err:
        raise BadInput(str(err)) from None
    return 0


def _sheet(store, name: str, file: Path) -> Path:
    """``deck show --sheet``: the deck's references, a row a type, written to ``file`` as a PNG."""
    import cv2

    from ecoscore.vision.deck_sheet import contact_sheet

    if file.is_dir():
        raise BadInput(f"{file} is a folder: give the sheet a file name, such as {file / 'cards.png'}")
    if _special(file):  # (not a device replaced, nor a pipe waited on)
        raise BadInput(cannot_write(file, PermissionError()))
    try:
        file.write_bytes(cv2.imencode(".png", contact_sheet(store.images(name)))[1].tobytes())
    except OSError as err:
        raise BadInput(cannot_write(file, err)) from None
    return file


def _one_card_note(info) -> str | None:
    """Types a deck built from photos knows by one card each, named by a typed grid: a slip that
    swaps two of them is what the deck then knows, and no check can see it (a newcomer's fox and
    bee swapped: every later photo of theirs read confidently wrong)."""
    lone = [card.value for card, n in info.counts.items() if n == 1]
    if not lone:
        return None
    return (f"{', '.join(lone)}: one card each in deck {info.name}, named by the grid: two of them swapped in the grid "
            f"cannot be seen by any check; look at the deck's cards: ecoscore deck show {info.name} --sheet cards.png")


def _swapped_pair(disagree: list) -> tuple[str, str] | None:
    """The two types a photo's clashes with a deck swap both ways (every fox seen as a bee and
    every bee as a fox), or None. A slip in this grid swaps two cells; a deck whose own two types
    are swapped (an earlier grid's slip) disagrees on every card of both."""
    pairs = {(clash.named.value, clash.seen) for clash in disagree}
    if len(disagree) < 2 or len(pairs) != 2:
        return None
    (a, b), other = sorted(pairs)
    return (a, b) if other == (b, a) else None


def _special(path: Path) -> bool:
    """A device, a pipe or a socket: neither a file to read or replace nor a folder."""
    return path.exists() and not path.is_file() and not path.is_dir()


def _export(store, name: str, file: Path, force: bool) -> Path:
    """``deck export``: the deck written to ``file`` (whole or not at all: ``export_deck``)."""
    from ecoscore.vision.deck_archive import export_deck

    if file.is_dir():  # (a traceback: IsADirectoryError, a newcomer's run)
        raise BadInput(f"{file} is a folder: give the export a file name, such as {file / (name + '.zip')}")
    # Not even with --force: run as root, /dev/full was replaced by a zip file (an attack).
    if _special(file):
        raise BadInput(f"{file} is not a plain file (a device, a pipe or a socket): give the export a file name, "
                       f"such as {Path.cwd() / (name + '.zip')}")
    if file.exists() and not force:  # (it overwrote a friend's export without a word)
        raise BadInput(f"{file} exists already: give another file name, or --force to replace it")
    try:
        return export_deck(store, name, file)
    except OSError as err:  # its folder missing or not writable, a disk full (a traceback: a newcomer's run)
        raise BadInput(cannot_write(file, err)) from None


# The sources a deck's adds record (here, vision/deck_archive.py, vision/deckstore.py, the page's
# route), each said in the player's words; a name in them stays as written.
_SOURCES = [(re.compile(pattern), key) for pattern, key in (
    (r"built in \(the stand-in deck's faces\)", "cli.source_builtin"),
    (r"folder (?P<path>.+)", "cli.source_folder"),
    (r"photo (?P<photo>.+) with grid (?P<grid>.+)", "cli.source_photo"),
    (r"photo (?P<photo>.*) from the page", "cli.source_page"),
    (r"imported from (?P<file>.+)", "cli.source_import"),
)]


def _source(words: Words, recorded: str) -> str:
    """An add's recorded source ("folder cards; photo t.jpg with grid t.txt") in ``words``."""
    said = []
    for part in recorded.split("; "):
        found = next(((m, key) for pattern, key in _SOURCES if (m := pattern.fullmatch(part))), None)
        said.append(words.fill(found[1], **found[0].groupdict()) if found else part)
    return "; ".join(said)


def _references(words: Words, info, width: int = 0) -> str:
    """"21 references" (the number right-aligned in ``width``, as `deck list`'s column)."""
    n = sum(info.counts.values())
    return words.fill("cli.deck_refs", n=n).replace(str(n), f"{n:>{width}}", 1)


def _reads_nothing(words: Words, info) -> str:
    return words.fill("cli.deck_reads_nothing", types=", ".join(words.label(card) for card in info.missing))


def _called(info, words: Words, before: str = " ") -> str:
    """The name a deck's player typed when it is not its key (a deck started on the page: "Náš stůl"),
    in the language's quotes, as its messages quote it (ASCII quotes beside an error's «», and
    two spaces in a sentence: an Italian walk)."""
    return before + words.fill("cli.deck_called", title=info.title) if info.title and info.title != info.name else ""


def _deck_add(args: argparse.Namespace, store, words: Words) -> None:
    import time

    from ecoscore.vision.deckstore import NAME, DeckStoreError, MissingTypes, TitleTaken, check_name, name_for
    from ecoscore.vision.enrol import (
        AS_WRITTEN_NOTE,
        EnrolError,
        clashes,
        from_folder,
        from_photo,
        gap_note,
        left_out_note,
        outside_note,
        strangers,
        strangers_note,
    )
    from ecoscore.vision.matcher import CardEmbedder, CardMatcher

    start = time.perf_counter()
    try:
        check_name(args.name)
    except DeckStoreError as err:  # "kuchyň" refused with no key to use instead (a Czech walk)
        if NAME.fullmatch(key := name_for(args.name)) and not args.title:
            raise BadInput(f"{err} (such as {key}, with --title {shlex.quote(args.name)} for the name players see)") from None
        raise
    clash = store.title_taken(args.name, args.title)
    if clash is not None:  # before any card is read (the store's add refuses it too)
        raise BadInput(str(TitleTaken(args.name, clash, "another name or --title")))
    if not args.folder and not args.photo:
        raise BadInput("give a FOLDER of card images, or --photo P.jpg --grid G.txt")
    if len(args.photo) != len(args.grid):
        raise BadInput(f"{len(args.photo)} --photo but {len(args.grid)} --grid: give one grid per photo")
    reader = open_reader_or_fail()
    embedder = CardEmbedder()
    existing = store.info(args.name) if store.exists(args.name) else None
    # A deck that reads already judges a photo's grid before it learns from it (``clashes``).
    known = (CardMatcher(embedder, store.references(args.name, embedder))
             if existing is not None and existing.complete and not existing.builtin else None)
    crops: dict = {}
    sources = []
    notes = []  # cells left out, said before the deck is written
    try:
        if args.folder:
            # A deck that exists takes a folder of some types only (more cards), as it takes a
            # photo that lacks some; a new one needs every type, from the folder alone or with
            # its photos (a scan of 9 cards, the other 2 scanned one by one: the store says
            # which types none of them gave).
            every_type = existing is None and not args.photo
            for card, images in from_folder(reader, args.folder, every_type=every_type).items():
                crops.setdefault(card, []).extend(images)
            sources.append(f"folder {args.folder}")
        for photo, grid in zip(args.photo, args.grid):
            tableau = read_grid(grid)
            (name, data), = read_photos([photo])
            taken = from_photo(reader, embedder, data, tableau, str(photo))
            disagree = clashes(known, taken) if known is not None else []
            if disagree and not args.force:
                if (pair := _swapped_pair(disagree)) is not None:
                    # Every card of two types, both ways: the deck's own two may be swapped, not this
                    # grid (it blamed the new, right grid alone: a newcomer's run)
                    advice = (f"every {pair[0]} read as {pair[1]} and every {pair[1]} as {pair[0]}: check the grid there, "
                              f"or the deck's own two may be swapped (a slip in an earlier grid: ecoscore deck forget-last "
                              f"{args.name} takes its last add back)")
                else:
                    # Most of the cells: likelier the grid of another photo than a slip (a newcomer's run).
                    slip = f"{grid} is the grid of another photo?" if len(disagree) > MANY_CLASHES else "two cards swapped?"
                    advice = f"check the grid there ({slip})"
                raise BadInput(f"{photo}: the grid and deck {args.name}'s own cards disagree: {'; '.join(map(str, disagree))}: "
                               f"{advice}; nothing was added (--force adds it as its grid says)")
            for card, images in taken.crops.items():
                crops.setdefault(card, []).extend(images)
            k, n = strangers(known, taken) if known is not None else (0, 0)
            if k >= max(MANY_STRANGERS, n / 2):
                notes.append(f"{photo}: {strangers_note(args.name, k, n)}")
            if taken.left_out:
                notes.append(f"{photo}: {left_out_note(taken.left_out)}")
            if taken.gaps:
                notes.append(f"{photo}: {gap_note(list(taken.gaps))}")
            if taken.outside:
                notes.append(f"{photo}: {outside_note(taken.outside)}")
            if taken.taken_as_written:
                notes.append(f"{photo}: {AS_WRITTEN_NOTE}")
            notes.extend(f"{photo}: {tip}" for tip in taken.advice)
            sources.append(f"photo {photo.name} with grid {grid.name}")
    except EnrolError as err:
        raise BadInput(str(err)) from None
    for note in notes:  # before the deck is written: they may say why it lacks a type
        # marked as a warning: mixed with the deck's lines on stderr, a bare "the photo is blurred"
        # read as a failure (an Italian walk)
        print(f"{words.label('warning')}: {words.say(note)}", file=sys.stderr)
    try:
        info = store.add(args.name, crops, "; ".join(sources), title=args.title)
    except MissingTypes as err:
        if not args.photo:
            raise
        # One tableau seldom holds all 11 types: say how to give the rest (a newcomer's walk).
        raise BadInput(f"{err}: add another photo that holds them with its grid (--photo P --grid G, "
                       "repeatable), or a folder of them") from None
    store.references(args.name, embedder)  # embed now: the first read with the deck is then quick
    # (a new deck's: an older deck's lone cards may be scans, named by their folders)
    if existing is None and args.photo and not args.folder and (lone := _one_card_note(info)):
        print(f"{words.label('warning')}: {words.say(lone)}", file=sys.stderr)
    print(words.fill("cli.deck_added", name=info.name, refs=_references(words, info),
                     counts=", ".join(f"{words.label(c.value)} {n}" for c, n in info.counts.items()),
                     secs=words.decimal(f"{time.perf_counter() - start:.1f}")), file=sys.stderr)


def register(sub) -> None:
    p = sub.add_parser("deck", help="enrol your own deck's cards, list, show, remove, export or import decks")
    add_first_lang_option(p)  # `ecoscore deck --lang cs list`
    actions = p.add_subparsers(dest="action", required=True)
    add = actions.add_parser("add", help="enrol cards: a folder <type>/*.png|jpg, or photos of tableaux with their grids")
    add.add_argument("name", type=deck_called, help="the deck's name (lower-case letters, digits, - or _), or an "
                                                     "enrolled deck's title")
    add.add_argument("folder", nargs="?", type=Path, help="a folder in the deck layout: <type>/*.png|jpg")
    add.add_argument("--photo", type=Path, action="append", default=[], help="a photo of one tableau (repeatable)")
    add.add_argument("--grid", type=Path, action="append", default=[], help="the grid that photo shows (one per --photo)")
    add.add_argument("--force", action="store_true", help="add a photo whose grid the deck's own cards disagree with, "
                                                          "as its grid says")
    add.add_argument("--title", help='what the deck is called where players see it ("Náš stůl"), as the page asks; '
                                     "kept from the deck's first add")
    add_lang_option(add)  # its refusals and notes: the page's words (what is wrong with a photo or a grid)
    add_lang_option(actions.add_parser("list", help="the decks you can read with --deck"))
    for action, what in (("show", "what a deck holds"), ("remove", "forget an enrolled deck"),
                         ("forget-last", "take back a deck's last add (a photo with a mistake in its grid)")):
        one = actions.add_parser(action, help=what)
        one.add_argument("name", type=deck_called)
        if action == "show":
            one.add_argument("--sheet", type=Path, help="also write the deck's cards to this PNG file, a row a type, "
                                                        "to check each is named right")
        add_lang_option(one)
    export = actions.add_parser("export", help="write a deck to one .zip file, to pass to a friend")
    export.add_argument("name", type=deck_called)
    export.add_argument("file", type=Path)
    export.add_argument("--force", action="store_true", help="replace the file if it exists")
    add_lang_option(export)
    imp = actions.add_parser("import", help="add a deck from a file written by `deck export`")
    imp.add_argument("file", type=Path)
    imp.add_argument("--name", default=None, help="store it under another name")
    add_lang_option(imp)
    p.set_defaults(run=run)

