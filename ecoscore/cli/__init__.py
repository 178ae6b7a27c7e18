"""The `ecoscore` command: one module per subcommand, each with ``register(sub)`` (its parser)
and ``run(args)`` (its work). A command imports its heavy parts only when it runs, so
``ecoscore grid`` loads the rules and nothing else.

Adding a command: a module here with ``register`` and ``run``, listed in ``COMMANDS``.
"""
from __future__ import annotations

import argparse
import sys

from . import batch, deck, eval, grid, read, rooms, score, serve, synth, train
from .common import EXIT_BAD_INPUT, BadInput

COMMANDS = [grid, synth, train, score, read, eval, serve, rooms, batch, deck]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ecoscore", description="Score Ecosystem tableaux from grids or photos.")
    sub = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.register(sub)
    return parser


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
