"""`ecoscore read`: print the grid read from a photo, in the text grid format (``?`` where the
photo did not show what lies in a cell)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .common import add_deck_option, open_reader_or_fail, read_or_fail, read_photos


def run(args: argparse.Namespace) -> int:
    from ecoscore.scoring.gridfile import format_text, tableau_header

    (_, data), = read_photos([args.photo])
    read = read_or_fail(open_reader_or_fail(args.deck), args.photo.name, data)
    for doubt in read.doubts:
        print(f"# doubt: {doubt}")
    for k, tab in enumerate(read.tableaux):
        if len(read.tableaux) > 1:
            print(tableau_header(k + 1, len(read.tableaux)))
        # The weakest cell named, and why: "confidence 0%" alone read as a read of nothing, for a
        # tableau read right but for two cells outside the photo (a newcomer's run).
        weakest = min(tab.cells, key=lambda cell: cell.confidence)
        why = f": {weakest.doubts[0]}" if weakest.doubts else ""
        print(f"# read from {args.photo}: confidence {tab.confidence:.0%}, its least sure cell's "
              f"(row {weakest.row + 1}, col {weakest.col + 1}{why})")
        for doubt in tab.doubts:
            print(f"# doubt: {doubt}")
        # A cell not shown (or a card of no type of the deck) is written "?", which `ecoscore
        # grid` refuses until the player fills it in: never an empty cell scored by default.
        sys.stdout.write(format_text(tab.tableau, frozenset((c.row, c.col) for c in tab.cells if c.unknown)))
    return 0


def register(sub) -> None:
    p = sub.add_parser("read", help="print the grid read from a photo, in the text grid format")
    p.add_argument("photo", type=Path)
    add_deck_option(p)
    p.set_defaults(run=run)

