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
from .language import LANG_CHOICES, add_first_lang_option, unspoken_env_lang, words_for
from .parser import Parser

COMMANDS = [grid, synth, train, score, read, eval, serve, rooms, batch, deck]


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="ecoscore", description="Score Ecosystem tableaux from grids or photos.")
    add_first_lang_option(parser)  # `ecoscore --lang cs deck list` as well as `ecoscore deck list --lang cs`
    sub = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.register(sub)
    return parser


def chosen_parser(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.ArgumentParser:
    """The parser of the (sub)command ``args`` were parsed for: ``deck add``'s, not ``ecoscore``'s."""
    while True:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        name = getattr(args, subs[0].dest, None) if subs else None
        if name not in (subs[0].choices if subs else {}):
            return parser
        parser = subs[0].choices[name]


def main(argv: list[str] | None = None) -> int:
    Parser.argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        # Said by the command's own parser, with its usage: argparse's top-level one printed
        # "usage: ecoscore [-h] ... {grid,synth,...}" for `ecoscore score --expalin x.jpg`.
        chosen_parser(parser, args).error(f"unrecognized arguments: {' '.join(unknown)}")
    if (unspoken := unspoken_env_lang()) and not (getattr(args, "lang", None) or getattr(args, "lang_first", None)):
        print(words_for(args).fill("cli.lang_unspoken", value=unspoken, choices=", ".join(LANG_CHOICES)), file=sys.stderr)
    try:
        return args.run(args)
    except BadInput as err:
        words = words_for(args)
        print(words.fill("cli.error", error=words.say(str(err))), file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print(words_for(args).fill("cli.interrupted"), file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader of the output went away (`ecoscore grid ... | head`): stop quietly, as a
        # shell tool does, and keep Python from failing again when it flushes stdout at exit.
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, what the shell reports for such a stop
