"""`ecoscore read`: print the grid read from a photo, in the text grid format (``?`` where the
photo did not show what lies in a cell)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .common import add_deck_option, open_reader_or_fail, read_or_fail, read_photos
from .language import add_lang_option, words_for


def run(args: argparse.Namespace) -> int:
    from ecoscore.scoring.gridfile import format_text
    from ecoscore.scoring.tableau import cell_at

    words = words_for(args)
    (_, data), = read_photos([args.photo])
    read = read_or_fail(open_reader_or_fail(args.deck), args.photo.name, data)
    for doubt in read.doubts:
        print(words.fill("cli.doubt", doubt=words.say(doubt)))
    for k, tab in enumerate(read.tableaux):
        if len(read.tableaux) > 1:
            print(words.fill("cli.tableau_header", k=k + 1, n=len(read.tableaux)))
        # The weakest cell named, and why: "confidence 0%" alone read as a read of nothing, for a
        # tableau read right but for two cells outside the photo (a newcomer's run).
        weakest = min(tab.cells, key=lambda cell: cell.confidence)
        why = f": {words.say(weakest.doubts[0])}" if weakest.doubts else ""
        print(words.fill("cli.read_from", photo=args.photo, pct=words.percent(tab.confidence),
                         cell=words.say(cell_at(weakest.row, weakest.col)), why=why))
        for doubt in tab.doubts:
            print(words.fill("cli.doubt", doubt=words.say(doubt)))
        # A cell not shown (or a card of no type of the deck) is written "?", which `ecoscore
        # grid` refuses until the player fills it in: never an empty cell scored by default.
        sys.stdout.write(format_text(tab.tableau, frozenset((c.row, c.col) for c in tab.cells if c.unknown)))
    return 0


def register(sub) -> None:
    p = sub.add_parser("read", help="print the grid read from a photo, in the text grid format")
    p.add_argument("photo", type=Path)
    add_deck_option(p)
    add_lang_option(p)
    p.set_defaults(run=run)

