"""Subcommands beyond `grid`: parsers here, the work in the package each one drives."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .cli import BadInput


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
    from ecoscore.vision.train import train

    try:
        load_deck(args.deck)
    except DeckError as err:
        raise BadInput(str(err)) from None
    path = train(args.model, args.deck, epochs=args.epochs, threads=args.threads, workers=args.workers, ship=not args.no_ship)
    print(f"exported {path}")
    return 0


def register_train(sub) -> None:
    p = sub.add_parser("train", help="train the card finder or the card classifier (needs the train extra)")
    p.add_argument("model", choices=["finder", "classifier"])
    p.add_argument("--deck", default="standin")
    p.add_argument("--epochs", type=int, default=None, help="override the recipe's epochs")
    p.add_argument("--threads", type=int, default=1, help="torch threads (1 is safest on a busy 2-core machine)")
    p.add_argument("--workers", type=int, default=None, help="rendering processes")
    p.add_argument("--no-ship", action="store_true", help="do not copy the result into models/")
    p.set_defaults(run=_train)


REGISTER = [register_synth, register_train]
