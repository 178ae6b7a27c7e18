"""The `ecoscore` command. Each subcommand imports its heavy parts only when it runs."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ecoscore.errors import BadInput
from ecoscore.options import parse_others, parse_pair

EXIT_OK, EXIT_BAD_INPUT = 0, 2


def add_game_options(parser: argparse.ArgumentParser) -> None:
    """Options shared by every command that scores a game (grid, score)."""
    parser.add_argument("--neutral", metavar="STREAMS,WOLVES", help="2-player game: the neutral pile's stream and wolf cards")
    parser.add_argument("--bot", metavar="BOT.txt", type=Path, help="solo game: the bot's grid file")
    parser.add_argument(
        "--others",
        metavar="S:W,S:W",
        help="largest stream and wolf count of each player not given here (majorities are provisional without them)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the score pad")
    parser.add_argument("--explain", action="store_true", help="also print the reason for every point")


def game_options(args: argparse.Namespace) -> dict:
    from ecoscore.scoring import GridError, parse_grid

    options: dict = {}
    try:
        if args.neutral:
            options["neutral"] = parse_pair(args.neutral, "--neutral")
        if args.others is not None:
            options["others"] = parse_others(args.others)
    except ValueError as err:
        raise BadInput(str(err)) from None
    if args.bot:
        try:
            options["bot"] = parse_grid(args.bot.read_text(encoding="utf-8"), str(args.bot))
        except OSError as err:
            raise BadInput(f"--bot: cannot read {args.bot}: {err.strerror}") from None
        except GridError as err:
            raise BadInput(str(err)) from None
    return options


def print_game(game, args: argparse.Namespace, extra: list[dict] | None = None) -> None:
    """Print a scored game as the score pad or JSON; ``extra`` merges per-player fields."""
    from ecoscore.scoring import explain, game_to_dict, score_pad

    if args.json:
        json.dump(game_to_dict(game, extra), sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return
    sys.stdout.write(score_pad(game))
    if args.explain:
        for player in game.players:
            sys.stdout.write("\n" + explain(player))


def cmd_grid(args: argparse.Namespace) -> int:
    from ecoscore.scoring import GridError, parse_grid, score_game

    if args.name and len(args.name) != len(args.grids):
        raise BadInput(f"--name given {len(args.name)} times for {len(args.grids)} grid files")
    players = []
    for k, path in enumerate(args.grids):
        try:
            text = sys.stdin.read() if str(path) == "-" else path.read_text(encoding="utf-8")
        except OSError as err:
            raise BadInput(f"cannot read {path}: {err.strerror}") from None
        except UnicodeDecodeError:
            raise BadInput(f"{path}: not a text file (a grid is 4 lines of 5 card names)") from None
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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ecoscore", description="Score Ecosystem tableaux from grids or photos.")
    sub = parser.add_subparsers(dest="command", required=True)

    grid = sub.add_parser("grid", help="score one game from text/JSON grid files (one per player)")
    grid.add_argument("grids", nargs="+", type=Path, metavar="PLAYER.txt", help="grid file per player ('-' for stdin)")
    grid.add_argument("--name", action="append", help="player name (repeat per file; default: the file stem)")
    add_game_options(grid)
    grid.set_defaults(run=cmd_grid)

    for register in _plugins():
        register(sub)
    return parser


def _plugins():
    """Subcommands living beside the parts they drive (vision, datasets, service)."""
    from ecoscore import commands

    return commands.REGISTER


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except BadInput as err:
        print(f"ecoscore: error: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("ecoscore: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
