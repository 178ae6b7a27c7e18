"""Read and write a tableau as text or JSON.

Text: 4 lines of 5 whitespace-separated tokens (names in any of the four languages, aliases or
two-letter codes, any case; ``.`` or ``-`` for an empty cell); ``#`` starts a comment; blank
lines are ignored. ``?`` marks a cell a photo did not show (``ecoscore read`` writes it): it is
refused until the player writes what lies there, never scored as empty. 5 lines of 4 (a
sideways reading) are transposed. JSON: ``{"grid": [[...]]}`` or a bare list of rows, with
``null`` for an empty cell.
"""
from __future__ import annotations

import json
import re
from collections.abc import Sequence

from ecoscore.text import cut

from .cards import CardType, parse_card
from .tableau import Tableau

EMPTY_TOKENS = frozenset({".", "-"})
UNKNOWN_TOKEN = "?"  # a cell the photo did not show: the player must say what lies there


class GridError(ValueError):
    """A grid that cannot be read; the message says what and where."""


def _parse_token(token: str | None, where: str) -> CardType | None:
    if token is None:
        return None
    if not isinstance(token, str):  # before the set lookup below: a list or dict is unhashable
        raise GridError(f"{where}: expected a card name or null, got {type(token).__name__} {_clip(token)}")
    if token in EMPTY_TOKENS:
        return None
    if token == UNKNOWN_TOKEN:
        raise GridError(f"{where}: '?' marks a cell the photo did not show; write the card that lies there, "
                        "or '.' if the cell is empty")
    try:
        return parse_card(token)
    except KeyError:
        raise GridError(
            f"{where}: unknown card {cut(token, 40)!r} (use a type name such as 'meadow', an alias "
            f"such as 'louka', a code such as 'MD', or '.' for an empty cell)"
        ) from None


def _clip(value: object, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


def _tableau_from(rows: Sequence[Sequence[CardType | None]], source: str) -> Tableau:
    try:
        return Tableau.from_rows(rows)
    except ValueError as err:
        raise GridError(f"{source}: {err}") from None


def tableau_header(k: int, n: int) -> str:
    """The comment line ``ecoscore read`` writes above the ``k``-th of ``n`` grids of one photo
    (in English; the command says it in the player's language: "# ecosistema 1 di 3")."""
    return f"# tableau {k} of {n}"


# tableau_header's lines in any language: "# <word> K <word> N" ("# tablo 1 z 3", "# таблица 1 из 3").
_TABLEAU_HEADER = re.compile(r"^#\s*\w+ \d+ \w+ (\d+)\s*$", re.MULTILINE)


def parse_text(text: str, source: str = "grid") -> Tableau:
    rows: list[list[CardType | None]] = []
    for line in text.splitlines():
        tokens = line.split("#", 1)[0].split()
        if tokens:
            # Said by the grid's row, as a read's doubts say a cell ("row 1, col 5"), not by the
            # file's line: `ecoscore read` writes comments above its grid, and one cell was "line 4"
            # in the error and "row 1" in the doubt beside it (an organiser's run).
            rows.append(
                [_parse_token(tok, f"{source}, row {len(rows) + 1}, cell {k + 1}") for k, tok in enumerate(tokens)]
            )
    # `ecoscore read` writes a photo of several tableaux one grid after another, each under a
    # ``tableau_header`` line: fed to `grid` whole, "got 12 rows" said nothing of why.
    several = _TABLEAU_HEADER.search(text)
    if several and len(rows) > 5:
        raise GridError(f"{source}: holds {several.group(1)} tableaux ({len(rows)} rows), as `ecoscore read` writes a "
                        "photo of several: put each grid in a file of its own (one file a player)")
    return _tableau_from(rows, source)


def parse_json(data: object, source: str = "grid") -> Tableau:
    if isinstance(data, dict):
        data = data.get("grid")
    if not isinstance(data, list) or not all(isinstance(row, list) for row in data):
        raise GridError(f"{source}: expected a list of rows (or {{\"grid\": [...]}})")
    if len(data) > 5 or any(len(row) > 5 for row in data):  # refuse before parsing every token of a huge list
        longest = max(map(len, data))  # (in the catalogue: it was said in English to every player)
        got = f"1 row of {longest} cards" if len(data) == 1 else f"{len(data)} rows, the longest of {longest} cards"
        raise GridError(f"{source}: a tableau is 4 rows of 5 cards (or 5 rows of 4); got {got}")
    rows = [
        [_parse_token(tok, f"{source}, row {r + 1}, cell {c + 1}") for c, tok in enumerate(row)]
        for r, row in enumerate(data)
    ]
    return _tableau_from(rows, source)


def parse_grid(text: str, source: str = "grid") -> Tableau:
    """Parse either format: JSON if it looks like JSON, text otherwise."""
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        try:
            data = json.loads(stripped)
        except json.JSONDecodeError as err:
            raise GridError(f"{source}: invalid JSON ({err})") from None
        except RecursionError:  # thousands of nested brackets: no grid is nested more than twice
            raise GridError(f"{source}: invalid JSON (nested too deeply; a grid is a list of rows)") from None
        return parse_json(data, source)
    return parse_text(text, source)


def format_text(tableau: Tableau, unknown: frozenset[tuple[int, int]] = frozenset()) -> str:
    """The text format, columns aligned; ``parse_text`` reads it back to an equal tableau.
    ``unknown``: cells (row, col) written as ``?`` (not shown by a photo), which ``parse_text``
    refuses until they are filled in."""
    width = max(len(c.value) for c in CardType)
    lines = [
        " ".join((UNKNOWN_TOKEN if (r, c) in unknown else cell.value if cell else ".").ljust(width)
                 for c, cell in enumerate(row)).rstrip()
        for r, row in enumerate(tableau.rows())
    ]
    return "\n".join(lines) + "\n"


def to_json(tableau: Tableau) -> list[list[str | None]]:
    return [[cell.value if cell else None for cell in row] for row in tableau.rows()]
