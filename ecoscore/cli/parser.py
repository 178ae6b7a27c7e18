"""The command line's parser, its usage errors said in the player's language.

argparse words its errors in English (its gettext domain has no Czech, Russian or Italian
catalogue on any system we know), so a player who mistyped a command read "the following
arguments are required" under a Czech locale. ``Parser.error`` matches argparse's own wordings
(a test has this Python's argparse raise each) and says them with the catalogue's ``cli.arg_*``
entries; a wording it does not know is said as argparse wrote it. Help (-h) stays English: it is the reference, as the README.
"""
from __future__ import annotations

import argparse
import re
import sys
from typing import NoReturn

from .language import LANG_CHOICES, Words, chosen_lang

_INVALID_CHOICE = re.compile(r"argument (?P<arg>\S+): invalid choice: (?P<value>.+) \(choose from (?P<choices>.+)\)", re.S)
# argparse's messages (its ``_()`` calls), the catalogue key each is said with, and its parameters.
_ARGPARSE = [
    (re.compile(r"the following arguments are required: (?P<args>.+)", re.S), "cli.arg_required"),
    (re.compile(r"unrecognized arguments: (?P<args>.+)", re.S), "cli.arg_unknown"),
    (_INVALID_CHOICE, "cli.arg_choice"),
    (re.compile(r"argument (?P<arg>\S+): expected one argument"), "cli.arg_one"),
    (re.compile(r"argument (?P<arg>\S+): expected at least one argument"), "cli.arg_at_least_one"),
    (re.compile(r"argument (?P<arg>\S+): invalid (?P<type>\w+) value: (?P<value>.+)", re.S), "cli.arg_type"),
    (re.compile(r"ambiguous option: (?P<option>\S+) could match (?P<matches>.+)", re.S), "cli.arg_ambiguous"),
    (re.compile(r"argument (?P<arg>\S+): not allowed with argument (?P<other>\S+)"), "cli.arg_not_with"),
]
# What our own argument types raise (common.positive_int), said after "argument X: ".
_OURS = [
    (re.compile(r"(?P<value>.+) is not a whole number", re.S), "cli.not_whole"),
    (re.compile(r"(?P<value>-?\d+): give 1 or more"), "cli.one_or_more"),
    (re.compile(r"(?P<value>.+) is not a number", re.S), "cli.not_number"),
    (re.compile(r"(?P<value>.+): give 0 days or more", re.S), "cli.days"),
    (re.compile(r"(?P<value>-?\d+): a port is 0 to 65535"), "cli.port"),
]
# The subcommands' own argument names (``add_subparsers``' dests): said as "command", not as a name.
_COMMANDS = {"command", "action"}
_ARGUMENT = re.compile(r"argument (?P<arg>\S+): (?P<error>.+)", re.S)


def said(message: str, words: Words, commands: list[str] | None = None) -> str:
    """An argparse error message in ``words``' language (as it is where no wording fits);
    ``commands``: the subcommands the parser that raised it takes, if any ("command" or
    "action" is missing: they are named instead)."""
    if commands and re.fullmatch(rf"the following arguments are required: ({'|'.join(_COMMANDS)})", message):
        return words.fill("cli.no_command", choices=", ".join(commands))
    choice = _INVALID_CHOICE.fullmatch(message)
    if choice and choice["arg"] in _COMMANDS:  # ("argument command: invalid choice": a newcomer's run)
        return words.fill("cli.unknown_command", value=choice["value"], choices=choice["choices"])
    for pattern, key in _ARGPARSE:
        if m := pattern.fullmatch(message):
            return words.fill(key, **m.groupdict())
    if m := _ARGUMENT.fullmatch(message):
        for pattern, key in _OURS:
            if inner := pattern.fullmatch(m["error"]):
                return words.fill("cli.arg_said", arg=m["arg"], error=words.fill(key, **inner.groupdict()))
    return message


def lang_in(argv: list[str]) -> str | None:
    """The ``--lang`` an unparsed command line gives, if it gives one we speak."""
    for i, arg in enumerate(argv):
        if arg == "--lang" and i + 1 < len(argv):
            value = argv[i + 1]
        elif arg.startswith("--lang="):
            value = arg.removeprefix("--lang=")
        else:
            continue
        if value in LANG_CHOICES:
            return value
    return None


class Parser(argparse.ArgumentParser):
    """``argparse.ArgumentParser`` whose usage errors are said in the player's language (its
    subcommands' parsers are of this class too: ``add_subparsers`` makes them of the parent's)."""

    argv: list[str] = []  # the command line being parsed (``main`` sets it): for its --lang

    def error(self, message: str) -> NoReturn:
        words = Words(chosen_lang(lang_in(Parser.argv)))
        self._usage_prefix = words.fill("cli.usage")
        self.print_usage(sys.stderr)
        commands = [name for action in self._actions if isinstance(action, argparse._SubParsersAction)
                    for name in action.choices]
        self.exit(2, words.fill("cli.parse_error", prog=self.prog, error=said(message, words, commands)) + "\n")

    def format_usage(self) -> str:
        formatter = self._get_formatter()
        formatter.add_usage(self.usage, self._actions, self._mutually_exclusive_groups,
                            getattr(self, "_usage_prefix", None))
        return formatter.format_help()
