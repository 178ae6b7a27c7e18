"""`ecoscore grid`: score one game from text/JSON grid files."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .common import EXIT_OK, BadInput, add_game_options, cannot_read, game_options, not_text, print_game


def run(args: argparse.Namespace) -> int:
    from ecoscore.scoring import GridError, parse_grid, score_game

    if args.name and len(args.name) != len(args.grids):
        raise BadInput(f"give one --name for each grid file (names: {len(args.name)}, grid files: {len(args.grids)})")
    players = []
    for k, path in enumerate(args.grids):
        try:
            text = sys.stdin.read() if str(path) == "-" else path.read_text(encoding="utf-8")
        except OSError as err:
            raise BadInput(cannot_read(path, err)) from None
        except UnicodeDecodeError:
            raise BadInput(not_text(path)) from None
        try:
            tableau = parse_grid(text, str(path))
        except GridError as err:
            raise BadInput(str(err)) from None
        players.append((args.name[k] if args.name else path.stem, tableau))
    try:
        game = score_game(players, **game_options(args))
    except ValueError as err:
        raise BadInput(str(err)) from None
    print_game(game, args)
    return EXIT_OK


def register(sub) -> None:
    grid = sub.add_parser("grid", help="score one game from text/JSON grid files (one per player)")
    grid.add_argument("grids", nargs="+", type=Path, metavar="PLAYER.txt", help="grid file per player ('-' for stdin)")
    grid.add_argument("--name", action="append", help="player name (repeat per file; default: the file stem)")
    add_game_options(grid)
    grid.set_defaults(run=run)

