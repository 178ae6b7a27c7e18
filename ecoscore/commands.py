"""Subcommands beyond `grid`: parsers here, the work in the package each one drives."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .errors import BadInput


def _synth(args: argparse.Namespace) -> int:
    import cv2

    from ecoscore.datasets.deck import DeckError
    from ecoscore.datasets.scene import SceneParams, hard_params
    from ecoscore.datasets.synth import contact_sheet, synthesize

    params = hard_params(long_side=args.size) if args.hard else SceneParams(long_side=args.size)
    try:
        if args.preview:
            args.out.mkdir(parents=True, exist_ok=True)
            sheet = contact_sheet(args.deck, min(args.n, 16), args.seed, params)
            path = args.out / "preview.png"
            cv2.imwrite(str(path), sheet)
            print(f"wrote {path}")
            return 0
        count = synthesize(args.deck, args.n, args.out, seed=args.seed, workers=args.workers, params=params, kind=args.kind)
    except DeckError as err:
        raise BadInput(str(err)) from None
    print(f"wrote {count} {'images' if args.kind == 'finder' else 'crops'} to {args.out}", file=sys.stderr)
    return 0


def register_synth(sub) -> None:
    p = sub.add_parser("synth", help="render synthetic photos of tableaux with labels")
    p.add_argument("--deck", default="standin", help="deck name under datasets/decks, or a deck folder")
    p.add_argument("--n", type=int, default=100, help="number of scenes")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=None, help="processes (default: all cores)")
    p.add_argument("--size", type=int, default=640, help="long side of each photo in pixels")
    p.add_argument("--kind", choices=["finder", "classifier"], default="finder",
                   help="finder: photos + OBB labels + truth; classifier: straightened cell crops")
    p.add_argument("--hard", action="store_true", help="the hard split: steep angles, blur, dark light, clutter")
    p.add_argument("--preview", action="store_true", help="write a contact sheet with labels drawn on instead")
    p.set_defaults(run=_synth)


def _train(args: argparse.Namespace) -> int:
    from ecoscore.datasets.deck import DeckError, load_deck

    if args.model == "matcher":  # trained on many generated decks, not on one: no --deck
        from ecoscore.vision import train_matcher

        print(f"exported {train_matcher.train(threads=max(args.threads, 2), ship=not args.no_ship)}")
        return 0
    from ecoscore.vision.train import RECIPES, train

    if args.model not in RECIPES:
        raise BadInput(f"no recipe {args.model!r}: choose one of {', '.join(RECIPES)}")
    try:
        load_deck(args.deck)
    except DeckError as err:
        raise BadInput(str(err)) from None
    path = train(args.model, args.deck, epochs=args.epochs, threads=args.threads, workers=args.workers, ship=not args.no_ship)
    print(f"exported {path}")
    return 0


def register_train(sub) -> None:
    p = sub.add_parser("train", help="train the card finder, the card matcher or a classifier (needs the train extra)")
    # Recipes are not listed as argparse choices: that would import the training code (and
    # its dependencies) for every command.
    p.add_argument("model", help="matcher, or a recipe of vision/train.py RECIPES: finder, classifier, or a stage "
                                 "of their chains (a stage's starting run is trained first if needed)")
    p.add_argument("--deck", default="standin")
    p.add_argument("--epochs", type=int, default=None, help="override the recipe's epochs")
    p.add_argument("--threads", type=int, default=1, help="torch threads (1 is safest on a busy 2-core machine)")
    p.add_argument("--workers", type=int, default=None, help="rendering processes")
    p.add_argument("--no-ship", action="store_true", help="do not copy the result into models/")
    p.set_defaults(run=_train)


def _read_photos(paths: list[Path]) -> list[tuple[str, bytes]]:
    photos = []
    for path in paths:
        try:
            photos.append((path.stem, path.read_bytes()))
        except OSError as err:
            raise BadInput(f"cannot read {path}: {err.strerror}") from None
    return photos


def _reader(deck: str | None = None):
    from ecoscore.vision.deckstore import DeckStoreError, open_reader
    from ecoscore.vision.models import ModelError

    try:
        return open_reader(deck)
    except (ModelError, DeckStoreError) as err:
        raise BadInput(str(err)) from None


def add_deck_option(p) -> None:
    p.add_argument("--deck", default=None, metavar="NAME",
                   help="the enrolled deck the cards belong to (`ecoscore deck list`; default: standin)")


def _read_or_fail(reader, name: str, data: bytes):
    from ecoscore.vision.decode import ImageError
    from ecoscore.vision.pipeline import NoTableauError

    try:
        return reader.read(data)
    except (ImageError, NoTableauError) as err:
        raise BadInput(f"{name}: {err}") from None


def _score(args: argparse.Namespace) -> int:
    from ecoscore.cli import game_options, print_game
    from ecoscore.vision.overlay import overlay_jpeg
    from ecoscore.vision.report import score_reads

    photos = _read_photos(args.photos)
    reader = _reader(args.deck)
    reads = [(name, _read_or_fail(reader, name, data)) for name, data in photos]
    try:
        game, extras = score_reads(reads, **game_options(args))
    except ValueError as err:
        raise BadInput(str(err)) from None
    if args.overlay:
        args.overlay.mkdir(parents=True, exist_ok=True)
        players = iter(game.players)
        for name, read in reads:
            scored = [next(players) for _ in read.tableaux]
            path = args.overlay / f"{name}.overlay.jpg"
            path.write_bytes(overlay_jpeg(read, scored))
            print(f"overlay: {path}", file=sys.stderr)
    print_game(game, args, extras)
    for name, read in reads:
        if len(read.tableaux) > 1:
            print(f"note: {name} holds {len(read.tableaux)} tableaux, scored as players "
                  f"{name}-1 to {name}-{len(read.tableaux)}", file=sys.stderr)
    if not args.json:
        for extra, player in zip(extras, game.players):
            for doubt in extra["doubts"]:
                print(f"doubt ({player.name}): {doubt}")
    return 0


def register_score(sub) -> None:
    from ecoscore.cli import add_game_options

    p = sub.add_parser("score", help="score photos of tableaux (several photos: the players of one game)")
    p.add_argument("photos", nargs="+", type=Path, metavar="PHOTO")
    add_game_options(p)
    add_deck_option(p)
    p.add_argument("--overlay", type=Path, metavar="DIR", help="write a picture of each read into DIR")
    p.set_defaults(run=_score)


def _read(args: argparse.Namespace) -> int:
    from ecoscore.scoring import format_text

    (name, data), = _read_photos([args.photo])
    read = _read_or_fail(_reader(args.deck), name, data)
    for doubt in read.doubts:
        print(f"# doubt: {doubt}")
    for k, tab in enumerate(read.tableaux):
        if len(read.tableaux) > 1:
            print(f"# tableau {k + 1} of {len(read.tableaux)}")
        print(f"# read from {args.photo}: confidence {tab.confidence:.0%}")
        for doubt in tab.doubts:
            print(f"# doubt: {doubt}")
        sys.stdout.write(format_text(tab.tableau))
    return 0


def register_read(sub) -> None:
    p = sub.add_parser("read", help="print the grid read from a photo, in the text grid format")
    p.add_argument("photo", type=Path)
    add_deck_option(p)
    p.set_defaults(run=_read)


def _eval(args: argparse.Namespace) -> int:
    import json

    from ecoscore.vision.evaluate import evaluate

    if not (args.folder / "truth").is_dir():
        raise BadInput(f"{args.folder} has no truth/ folder: render one with `ecoscore synth --out DIR`")
    ev = evaluate(_reader(args.deck), args.folder, args.limit)
    summary = ev.summary()
    if args.json:
        print(json.dumps(summary | {"confident_wrong_images": ev.wrong}, indent=2))
    else:
        for key, value in summary.items():
            print(f"{key:>22}: {value:.4f}" if isinstance(value, float) else f"{key:>22}: {value}")
        if ev.wrong:
            print(f"{'confident wrong':>22}: {', '.join(ev.wrong)}")
    return 0


def register_eval(sub) -> None:
    p = sub.add_parser("eval", help="measure the reader on a rendered set with truth files")
    p.add_argument("folder", type=Path, help="a folder written by `ecoscore synth`")
    p.add_argument("--limit", type=int, default=None)
    p.add_argument("--json", action="store_true")
    add_deck_option(p)
    p.set_defaults(run=_eval)


def _serve(args: argparse.Namespace) -> int:
    from ecoscore.service.app import serve

    print(f"ecoscore: serving on http://{args.host or '127.0.0.1'}:{args.port or 8000}/ (API docs at /docs)",
          file=sys.stderr)
    _reader(args.deck)  # an unknown deck is refused before the server starts
    serve(host=args.host, port=args.port, db_url=args.db, workers=args.workers, reads=args.reads,
          public_url=args.public_url, room_idle_days=args.room_idle_days, deck=args.deck)
    return 0


def register_serve(sub) -> None:
    # Unset flags fall back to ECOSCORE_* environment variables, then to service/settings.py.
    p = sub.add_parser("serve", help="run the upload service and phone page (settings: service/settings.py)")
    p.add_argument("--host", default=None, help="0.0.0.0 to reach it from a phone on the same network")
    p.add_argument("--port", type=int, default=None, help="default 8000")
    p.add_argument("--db", default=None, help="database URL: sqlite:///PATH (default <data>/service/ecoscore.sqlite3) "
                                               "or postgresql://USER:PASSWORD@HOST/NAME")
    p.add_argument("--workers", type=int, default=None, help="processes over one database (default 1)")
    p.add_argument("--reads", type=int, default=None,
                   help="photos read at once in each worker (default: the cores shared out among the workers)")
    p.add_argument("--public-url", default=None, help="the address phones use, for room links and QR codes")
    p.add_argument("--room-idle-days", type=float, default=None, help="rooms idle this long are deleted (default 30)")
    add_deck_option(p)
    p.set_defaults(run=_serve)


def _rooms_prune(args: argparse.Namespace) -> int:
    from ecoscore.service.settings import Settings
    from ecoscore.service.store import Store

    settings = Settings(**{k: v for k, v in (("db_url", args.db), ("room_idle_days", args.days)) if v is not None})
    store = Store(settings.database_url())
    try:
        gone = store.prune(settings.room_idle_days)
    finally:
        store.close()
    print(f"ecoscore: deleted {gone['rooms']} rooms idle for {settings.room_idle_days:g} days or more, "
          f"{gone['players']} players, {gone['overlays']} overlays", file=sys.stderr)
    return 0


def register_rooms(sub) -> None:
    p = sub.add_parser("rooms", help="look after the service's game rooms")
    actions = p.add_subparsers(dest="action", required=True)
    prune = actions.add_parser("prune", help="delete rooms idle for N days, with their players and overlays")
    prune.add_argument("--days", type=float, default=None, help="default: ECOSCORE_ROOM_IDLE_DAYS or 30")
    prune.add_argument("--db", default=None, help="database URL (default: the service's)")
    prune.set_defaults(run=_rooms_prune)


def _batch(args: argparse.Namespace) -> int:
    from ecoscore.vision.batch import collect, run_batch

    if not collect(args.target):
        raise BadInput(f"no files in {args.target!r}")
    _reader(args.deck)  # fail fast and clearly if the models or the deck are missing
    counts = run_batch(args.target, args.out, jsonl=args.jsonl, resume=args.resume, workers=args.workers,
                       deck=args.deck, cluster=args.cluster)
    print(f"ecoscore: {counts['ok']} scored, {counts['error']} errors, {counts['skipped']} skipped (already in "
          f"{args.out}); {counts['images_per_second']} photos/s", file=sys.stderr)
    return 0


def register_batch(sub) -> None:
    p = sub.add_parser("batch", help="score every photo in a folder (or a glob) into a CSV or JSONL file")
    p.add_argument("target", metavar="DIR|GLOB")
    p.add_argument("--out", type=Path, required=True, help="results file (CSV, or JSON lines with --jsonl)")
    p.add_argument("--jsonl", action="store_true", help="one JSON object per photo, with every detail")
    p.add_argument("--resume", action="store_true", help="skip photos already in --out")
    p.add_argument("--workers", type=int, default=None, help="processes (default: 2, one per core)")
    p.add_argument("--cluster", default=None, metavar="ADDRESS",
                   help="score on a Dask cluster: its scheduler's address (tcp://host:8786; the workers must see "
                        "the photos at the same path), or 'local' for --workers processes here "
                        "(the distributed extra)")
    add_deck_option(p)
    p.set_defaults(run=_batch)


def _deck(args: argparse.Namespace) -> int:
    from ecoscore.vision.deckstore import DeckStoreError, default_store

    store = default_store()
    try:
        if args.action == "list":
            for name in store.names():
                info = store.info(name)
                print(f"{name:<20} {sum(info.counts.values()):>4} references"
                      f"{'  (built in, the default)' if info.builtin else ''}")
        elif args.action == "show":
            info = store.info(args.name)
            print(f"deck {info.name}{' (built in)' if info.builtin else ''}")
            for card, n in info.counts.items():
                print(f"  {card.value:<10} {n} reference{'s' if n != 1 else ''}")
            for source in info.sources:
                print(f"  from: {source}")
        elif args.action == "remove":
            store.remove(args.name)
            print(f"removed deck {args.name}", file=sys.stderr)
        elif args.action == "export":
            out = store.export(args.name, args.file)
            print(f"wrote {out}", file=sys.stderr)
        elif args.action == "import":
            if not args.file.is_file():
                raise BadInput(f"{args.file}: no such file")
            info = store.import_(args.file, args.name)
            print(f"imported deck {info.name}: {sum(info.counts.values())} references", file=sys.stderr)
        else:
            _deck_add(args, store)
    except DeckStoreError as err:
        raise BadInput(str(err)) from None
    return 0


def _deck_add(args: argparse.Namespace, store) -> None:
    import time

    from ecoscore.scoring import GridError, parse_grid
    from ecoscore.vision.deckstore import check_name
    from ecoscore.vision.enrol import EnrolError, from_folder, from_photo
    from ecoscore.vision.matcher import CardEmbedder

    start = time.perf_counter()
    check_name(args.name)
    if not args.folder and not args.photo:
        raise BadInput("give a FOLDER of card images, or --photo P.jpg --grid G.txt")
    if len(args.photo) != len(args.grid):
        raise BadInput(f"{len(args.photo)} --photo but {len(args.grid)} --grid: give one grid per photo")
    reader = _reader()
    embedder = CardEmbedder()
    crops: dict = {}
    sources = []
    try:
        if args.folder:
            for card, images in from_folder(reader, args.folder).items():
                crops.setdefault(card, []).extend(images)
            sources.append(f"folder {args.folder}")
        for photo, grid in zip(args.photo, args.grid):
            try:
                tableau = parse_grid(grid.read_text(encoding="utf-8"), str(grid))
            except OSError as err:
                raise BadInput(f"cannot read {grid}: {err.strerror}") from None
            except GridError as err:
                raise BadInput(str(err)) from None
            (name, data), = _read_photos([photo])
            for card, images in from_photo(reader, embedder, data, tableau, str(photo)).items():
                crops.setdefault(card, []).extend(images)
            sources.append(f"photo {photo.name} with grid {grid.name}")
    except EnrolError as err:
        raise BadInput(str(err)) from None
    info = store.add(args.name, crops, "; ".join(sources))
    store.references(args.name, embedder)  # embed now: the first read with the deck is then quick
    print(f"deck {info.name}: {sum(info.counts.values())} references "
          f"({', '.join(f'{c.value} {n}' for c, n in info.counts.items())}) in {time.perf_counter() - start:.1f} s",
          file=sys.stderr)


def register_deck(sub) -> None:
    p = sub.add_parser("deck", help="enrol your own deck's cards, list, show, remove, export or import decks")
    actions = p.add_subparsers(dest="action", required=True)
    add = actions.add_parser("add", help="enrol cards: a folder <type>/*.png|jpg, or photos of tableaux with their grids")
    add.add_argument("name", help="the deck's name (lower-case letters, digits, - or _)")
    add.add_argument("folder", nargs="?", type=Path, help="a folder in the deck layout: <type>/*.png|jpg")
    add.add_argument("--photo", type=Path, action="append", default=[], help="a photo of one tableau (repeatable)")
    add.add_argument("--grid", type=Path, action="append", default=[], help="the grid that photo shows (one per --photo)")
    actions.add_parser("list", help="the decks you can read with --deck")
    for action, what in (("show", "what a deck holds"), ("remove", "forget an enrolled deck")):
        actions.add_parser(action, help=what).add_argument("name")
    export = actions.add_parser("export", help="write a deck to one .zip file, to pass to a friend")
    export.add_argument("name")
    export.add_argument("file", type=Path)
    imp = actions.add_parser("import", help="add a deck from a file written by `deck export`")
    imp.add_argument("file", type=Path)
    imp.add_argument("--name", default=None, help="store it under another name")
    p.set_defaults(run=_deck)


REGISTER = [register_synth, register_train, register_score, register_read, register_eval, register_serve, register_rooms,
            register_batch, register_deck]
