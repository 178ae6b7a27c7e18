"""`ecoscore eval`: measure the reader on a rendered set with truth files."""
from __future__ import annotations

import argparse
from pathlib import Path

from .common import BadInput, add_deck_option, open_reader_or_fail, positive_int


def run(args: argparse.Namespace) -> int:
    import json

    from ecoscore.vision.evaluate import evaluate

    if not args.folder.is_dir():
        raise BadInput(f"no such folder: {args.folder} (render a test set with `ecoscore synth --out {args.folder}`)")
    if not (args.folder / "truth").is_dir():
        raise BadInput(f"{args.folder} has no truth/ folder: render one with `ecoscore synth --out DIR`")
    ev = evaluate(open_reader_or_fail(args.deck), args.folder, args.limit)
    summary = ev.summary()
    if args.json:
        print(json.dumps(summary | {"confident_wrong_images": ev.wrong}, indent=2))
    else:
        # The rates are over the tableaux whole in the frame (a newcomer read "tableaux: 5" of 8
        # rendered as tableaux missed); those cut by it are counted on their own, last.
        labels = {"tableaux": "tableaux whole in view"}
        for key, value in summary.items():
            key = labels.get(key, key)
            print(f"{key:>22}: {value:.4f}" if isinstance(value, float) else f"{key:>22}: {value}")
        if ev.wrong:
            print(f"{'confident wrong':>22}: {', '.join(ev.wrong)}")
    return 0


def register(sub) -> None:
    p = sub.add_parser("eval", help="measure the reader on a rendered set with truth files")
    p.add_argument("folder", type=Path, help="a folder written by `ecoscore synth`")
    p.add_argument("--limit", type=positive_int, default=None)
    p.add_argument("--json", action="store_true")
    add_deck_option(p)
    p.set_defaults(run=run)

