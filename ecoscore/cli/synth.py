"""`ecoscore synth`: render synthetic photos of tableaux with labels (the renderer, ecoscore.datasets)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .common import BadInput, positive_int


def run(args: argparse.Namespace) -> int:
    import cv2

    from ecoscore.datasets.deck import DeckError
    from ecoscore.datasets.scene import SceneParams, hard_params, steep_params
    from ecoscore.datasets.synth import contact_sheet, synthesize

    if args.hard and args.steep:
        raise BadInput("--hard and --steep are two splits: choose one")
    split = hard_params if args.hard else steep_params if args.steep else SceneParams
    params = split(long_side=args.size)
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


def register(sub) -> None:
    p = sub.add_parser("synth", help="render synthetic photos of tableaux with labels")
    p.add_argument("--deck", default="standin", help="deck name under datasets/decks, or a deck folder")
    p.add_argument("--n", type=positive_int, default=100, help="number of scenes")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=positive_int, default=None, help="processes (default: all cores)")
    p.add_argument("--size", type=positive_int, default=640, help="long side of each photo in pixels")
    p.add_argument("--kind", choices=["finder", "classifier"], default="finder",
                   help="finder: photos + OBB labels + truth; classifier: straightened cell crops")
    p.add_argument("--hard", action="store_true", help="the hard split: steep angles, blur, dark light, clutter")
    p.add_argument("--steep", action="store_true",
                   help="the steep split: phone 25-55° above the table, sleeves, lamps, patterned cloths, neighbours")
    p.add_argument("--preview", action="store_true", help="write a contact sheet with labels drawn on instead")
    p.set_defaults(run=run)

