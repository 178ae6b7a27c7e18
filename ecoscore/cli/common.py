"""What the commands share: the user-error exception and exit codes, the game options of the
commands that score a game (grid, score), and opening photos and the reader."""
from __future__ import annotations

import argparse
import errno
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ecoscore.options import parse_others, parse_pair

from .language import add_lang_option, words_for

if TYPE_CHECKING:
    from ecoscore.scoring import GameScore, ReadDoc, Tableau

EXIT_OK, EXIT_BAD_INPUT = 0, 2


class BadInput(Exception):
    """A user error: printed on stderr, exit code 2."""


def _whole(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1 (``--n -1`` wrote 0 images and exited 0)."""
    value = _whole(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value}: give 1 or more")
    return value


def port_number(text: str) -> int:
    """An argparse type: a TCP port, 0 to 65535 (99999 was a traceback from the settings' check)."""
    value = _whole(text)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{value}: a port is 0 to 65535")
    return value


def days(text: str) -> float:
    """An argparse type: a number of days, 0 or more (-1 was a traceback from the settings' check)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value >= 0 or value == float("inf"):  # (NaN fails the first)
        raise argparse.ArgumentTypeError(f"{text}: give 0 days or more")
    return value


def settings_or_fail(**flags):
    """The service's settings from the command's flags (unset ones from ECOSCORE_* variables); a
    setting out of range (an environment variable's: the flags are checked as parsed) is bad input."""
    from pydantic import ValidationError

    from ecoscore.service.settings import Settings

    try:
        return Settings(**{k: v for k, v in flags.items() if v is not None})
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise BadInput(f"the setting {where} (ECOSCORE_{where.upper()}): {first['msg']}") from None


def cannot_write(path: Path, err: OSError) -> str:
    """Why a file named on the command line could not be written."""
    if isinstance(err, FileNotFoundError):
        return f"cannot write {path}: its folder {path.parent} does not exist"
    if isinstance(err, PermissionError):
        return f"cannot write {path}: permission denied"
    return f"cannot write {path}: {err.strerror or err}"


def cannot_read(path: object, err: OSError) -> str:
    """Why a file named on the command line could not be read (each wording is in the message
    catalogue, so it is said in the player's language)."""
    if isinstance(err, FileNotFoundError):
        return f"no such file: {path}"
    if isinstance(err, PermissionError):
        return f"cannot read {path}: permission denied"
    if isinstance(err, IsADirectoryError):
        return f"cannot read {path}: it is a folder"
    if err.errno == errno.ELOOP:  # a symbolic link that leads back to itself
        return f"cannot read {path}: its links loop back on themselves"
    return f"cannot read {path}: {err.strerror or err}"


def not_text(path: object) -> str:
    return f"{path}: not a text file (a grid is 4 lines of 5 card names)"


def read_grid(path: Path, what: str = "") -> Tableau:
    """A grid file's tableau; a file that cannot be read, is no text, or holds no grid is a
    ``BadInput`` naming it (``what``: the option it came with, "--bot: ")."""
    from ecoscore.scoring import GridError, parse_grid

    try:
        return parse_grid(path.read_text(encoding="utf-8"), str(path))
    except OSError as err:
        raise BadInput(f"{what}{cannot_read(path, err)}") from None
    except UnicodeDecodeError:  # a photo given for the grid: a traceback before
        raise BadInput(f"{what}{not_text(path)}") from None
    except GridError as err:
        raise BadInput(f"{what}{err}") from None


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
    add_lang_option(parser)


def game_options(args: argparse.Namespace) -> dict:
    options: dict = {}
    try:
        if args.neutral:
            options["neutral"] = parse_pair(args.neutral, "--neutral")
        if args.others is not None:
            options["others"] = parse_others(args.others)
    except ValueError as err:
        raise BadInput(str(err)) from None
    if args.bot:
        options["bot"] = read_grid(args.bot, "--bot: ")
    return options


def print_game(game: GameScore, args: argparse.Namespace, reads: Sequence[ReadDoc] = ()) -> None:
    """Print a scored game as the score pad or the JSON answer; ``reads``: what each player's
    photo read adds (``score``; none for ``grid``)."""
    from ecoscore.scoring import explain, game_to_dict, score_pad

    words = words_for(args)
    if args.json:
        json.dump(words.doc(game_to_dict(game, reads)), sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return
    sys.stdout.write(score_pad(game, reads, say=words.say, label=words.label))
    # Two players play with a neutral pile (the rules), which takes part in the majorities: scored
    # without one, the pad named a winner the pile may change (a game room waits for a third
    # player or takes the pile for the same reason).
    if len(game.players) == 2 and not (args.neutral or args.bot or args.others):
        print(words.fill("cli.two_without_neutral"), file=sys.stderr)
    if args.explain:
        for player in game.players:
            sys.stdout.write("\n" + explain(player, say=words.say, label=words.label))


def read_photos(paths: list[Path]) -> list[tuple[str, bytes]]:
    photos = []
    for path in paths:
        try:
            photos.append((path.stem, path.read_bytes()))
        except OSError as err:
            raise BadInput(cannot_read(path, err)) from None
    return photos


def open_reader_or_fail(deck: str | None = None):
    from ecoscore.vision.deckstore import DeckStoreError, NoSuchDeck, open_reader
    from ecoscore.vision.models import ModelError
    from ecoscore.vision.runtime import RuntimeSettingError

    try:
        return open_reader(deck)
    except NoSuchDeck as err:
        raise BadInput(with_decks(err)) from None
    except (ModelError, DeckStoreError, RuntimeSettingError) as err:
        raise BadInput(str(err)) from None


def with_decks(err: Exception) -> str:
    """An unknown deck's refusal with the decks this machine has (the store's own message does
    not list them: over the service they are other players' names)."""
    from ecoscore.vision.deckstore import default_store

    return f"{err} (the decks here: {', '.join(default_store().names())})"


def deck_called(text: str) -> str:
    """A deck as the player names it: its key, or its title as `deck list` shows it (``DeckStore.called``)."""
    from ecoscore.vision.deckstore import DeckStoreError, default_store

    try:
        return default_store().called(text)
    except (DeckStoreError, OSError):  # no store to look in: the name is refused, or found, as given
        return text


def add_deck_option(p) -> None:
    p.add_argument("--deck", default=None, metavar="NAME", type=deck_called,
                   help="the enrolled deck the cards belong to, by its name or title (`ecoscore deck list`; "
                        "default: standin)")


def read_or_fail(reader, name: str, data: bytes):
    from ecoscore.vision.decode import ImageError
    from ecoscore.vision.refusals import NoTableauError

    try:
        return reader.read(data)
    except (ImageError, NoTableauError) as err:
        raise BadInput(f"{name}: {err}") from None

