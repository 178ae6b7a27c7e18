"""`ecoscore score`: score photos of tableaux: several photos are the players of one game."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .common import (
    BadInput,
    add_deck_option,
    add_game_options,
    cannot_write,
    game_options,
    open_reader_or_fail,
    print_game,
    read_or_fail,
    read_photos,
)
from .language import words_for


def run(args: argparse.Namespace) -> int:
    from ecoscore.scoring.report import twins_said
    from ecoscore.vision.overlay import overlay_jpeg
    from ecoscore.vision.report import score_reads

    words = words_for(args)
    # Each photo is a player, named by its file: two phones' IMG_0001.jpg were refused as "player
    # names must differ", which said nothing of the files (an organiser's run).
    stems = [path.stem for path in args.photos]
    twice = sorted({stem for stem in stems if stems.count(stem) > 1})
    if twice:
        raise BadInput(f"photos of one name are one player: {', '.join(twice)}; players are named by their photos' files: "
                       f"rename one, such as {twice[0]}-2.jpg")
    if args.overlay is not None and args.overlay.exists() and not args.overlay.is_dir():  # (a FileExistsError traceback)
        raise BadInput(f"--overlay {args.overlay} is a file: give a folder to write the pictures into")
    photos = read_photos(args.photos)
    reader = open_reader_or_fail(args.deck)
    # Named by the file in messages ("bad.jpg: not an image"), by its stem as a player.
    reads = [(name, read_or_fail(reader, path.name, data)) for (name, data), path in zip(photos, args.photos)]
    try:
        game, read_docs = score_reads(reads, **game_options(args))
    except ValueError as err:
        raise BadInput(str(err)) from None
    if args.overlay:
        players = iter(game.players)
        for name, read in reads:
            scored = [next(players) for _ in read.tableaux]
            path = args.overlay / f"{name}.overlay.jpg"
            try:
                args.overlay.mkdir(parents=True, exist_ok=True)
                path.write_bytes(overlay_jpeg(read, scored))
            except OSError as err:
                raise BadInput(cannot_write(path, err)) from None
            print(words.fill("cli.overlay", path=path), file=sys.stderr)
    read_docs = [doc for doc in twins_said(game, read_docs) if doc is not None]  # said below with the others
    print_game(game, args, read_docs)
    for name, read in reads:
        if len(read.tableaux) > 1:
            print(words.fill("cli.several", name=name, n=len(read.tableaux)), file=sys.stderr)
    if not args.json:
        # What a photo says of itself (cards outside every tableau, a grid set aside) is every
        # player's of it, and said once, under the photo's name (it was said under each).
        docs = iter(zip(read_docs, game.players))
        for name, read in reads:
            of_photo = read.doubts if len(read.tableaux) > 1 else []  # (one player: said as theirs)
            for doubt in of_photo:
                print(words.fill("cli.doubt_of", name=name, doubt=words.say(doubt)))
            for read_doc, player in [next(docs) for _ in read.tableaux]:
                for doubt in read_doc["doubts"]:
                    if doubt not in of_photo:
                        print(words.fill("cli.doubt_of", name=player.name, doubt=words.say(doubt)))
    return 0


def register(sub) -> None:
    p = sub.add_parser("score", help="score photos of tableaux (several photos: the players of one game)")
    p.add_argument("photos", nargs="+", type=Path, metavar="PHOTO")
    add_game_options(p)
    add_deck_option(p)
    p.add_argument("--overlay", type=Path, metavar="DIR", help="write a picture of each read into DIR")
    p.set_defaults(run=run)

