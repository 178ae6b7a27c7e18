"""A batch's CSV as an Excel workbook (`ecoscore batch --xlsx`).

The CSV is UTF-8 and comma-separated: a Czech, Russian or Italian Excel, whose list separator is
";" and whose encoding is the system's, opens it garbled and in one column. A workbook opens alike
in every Excel and LibreOffice: numbers as numbers, and every text as text (a photo named
"=HYPERLINK(...).jpg" is no formula). The CSV stays the record a run writes row by row (and
--resume reads), in its own words; the workbook is made from it whole, at the end of a run, for
people: in their language (``Wording``: its headings, "yes"/"no", the cards' names in the grids),
and a photo of several tableaux with a total and a confidence in a column of each (a text
"59;47;36" could not be summed: an Italian player's walk).
"""
from __future__ import annotations

import csv
import os
import re
import secrets
import stat
import zipfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .results import Refused

CREATOR = "ecoscore batch"  # the workbook's author: a workbook of ours may be replaced, no other
SHEET = "results"
NUMBERS = {"tableaux", "ms"}  # a number there is written as one (and in each APART column)
WORDED = {"status", "final", "provisional"}  # columns of a few English words ("ok", "yes"), said in the Wording's
WIDTHS = {"file": 40, "grids": 60, "doubts": 80, "error": 50}  # characters; the others 12
# XML 1.0 refuses these (a file name may hold them: U+FFFE is UTF-8 too, a review): written as
# Python writes them, "\x07", "\ufffe"
_ILLEGAL = re.compile(r"[\x00-\x08\x0b-\x1f\ud800-\udfff\ufffe\uffff]")  # (a CR too: XML reads it back as LF)


@dataclass(frozen=True)
class Wording:
    """The workbook's words in its reader's language: the sheet's name, a column's heading by its
    CSV name ("total": the totals' columns, numbered where a photo holds several tableaux), the
    few English words of the worded columns, and a card's name in a grid."""

    sheet: str = SHEET
    columns: Mapping[str, str] = field(default_factory=dict)
    words: Mapping[str, str] = field(default_factory=dict)
    card: Callable[[str], str] = str


def check_workbook(xlsx: Path, out: Path, *, jsonl: bool) -> None:
    """Refuse before anything is made or read: a workbook named otherwise, the results file
    itself, or a file that exists and is not a workbook of ours (a typo must not replace a
    spreadsheet). A workbook of ours is replaced whole at each run's end, edits in it too."""
    if jsonl:
        raise Refused("--xlsx goes with a CSV results file: leave out --jsonl")
    if xlsx.suffix.lower() != ".xlsx":
        raise Refused(f"--xlsx {xlsx}: a workbook's name ends in .xlsx (Excel opens it by that)")
    if os.path.realpath(xlsx) == os.path.realpath(out):  # (however spelled, through links too)
        raise Refused(f"--xlsx and --out name one file ({xlsx}): give the workbook a name of its own")
    if xlsx.exists() and not _ours(xlsx):
        raise Refused(f"{xlsx} exists and is not a workbook of ecoscore batch: give another --xlsx")


def prepare_workbook(xlsx: Path) -> None:
    """Its folder made (as --out's is) and a file tried there, once the results file is taken
    (a refused run left the folder behind: a review): OSError where the folder takes no file,
    said before the photos are read, not after."""
    target = _target(xlsx)
    target.parent.mkdir(parents=True, exist_ok=True)
    _Scratch(target).close()


def _target(xlsx: Path) -> Path:
    """The file a link names: replaced there (the link itself was replaced by a file: a review)."""
    return Path(os.path.realpath(xlsx))


def _ours(path: Path) -> bool:
    try:
        with zipfile.ZipFile(path) as book:
            core = book.read("docProps/core.xml").decode("utf-8", "replace")
    except (OSError, zipfile.BadZipFile, KeyError):
        return False
    return f"<dc:creator>{CREATOR}</dc:creator>" in core


class _Scratch:
    """A new file beside ``xlsx`` that becomes it (``keep``) or goes: a reader never sees half a
    workbook, and an interrupted write leaves the one before."""

    def __init__(self, xlsx: Path):
        self.xlsx, self.path = xlsx, xlsx.with_name(f".{xlsx.name}.{os.getpid()}.{secrets.token_hex(4)}")
        # A new file's mode as any new file's (0o666 less the umask); a workbook replaced keeps its own.
        try:
            mode = stat.S_IMODE(os.stat(xlsx).st_mode)
        except OSError:
            mode = None
        self.file = os.fdopen(os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), "wb")
        if mode is not None:
            os.chmod(self.path, mode)

    def keep(self) -> None:
        self.file.close()
        os.replace(self.path, self.xlsx)

    def close(self) -> None:
        self.file.close()
        self.path.unlink(missing_ok=True)


def write_workbook(results_csv: Path, xlsx: Path, wording: Wording = Wording()) -> int:
    """Every row of ``results_csv`` (a resumed run's earlier rows too) into ``xlsx``, replacing it
    whole, in ``wording``'s words. Returns the rows written."""
    from openpyxl import Workbook
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.utils import get_column_letter

    with results_csv.open(encoding="utf-8-sig", newline="") as f:  # (a spreadsheet's BOM, if saved by one)
        rows = list(csv.reader(f))
    header, body = (rows[0], rows[1:]) if rows else ([], [])
    header, body = _apart(header, body)
    target = _Scratch(_target(xlsx))  # before the workbook: openpyxl's writer, left unsaved, complains when collected
    try:
        book = Workbook(write_only=True)
        book.properties.creator = CREATOR
        sheet = book.create_sheet(wording.sheet)
        sheet.freeze_panes = "A2"
        for i, name in enumerate(header, start=1):
            sheet.column_dimensions[get_column_letter(i)].width = WIDTHS.get(name, 12)

        def cell(name: str, text: str) -> WriteOnlyCell:
            if (name in NUMBERS or _stem(name)) and (number := _number(text)) is not None:
                return WriteOnlyCell(sheet, value=number)
            if name in WORDED:
                text = wording.words.get(text, text)
            elif name == "grids":
                text = _grids_named(text, wording.card)
            item = WriteOnlyCell(sheet, value=_ILLEGAL.sub(lambda m: repr(m.group())[1:-1], text))
            item.data_type = "s"  # text, even where it begins with "=" (openpyxl would take a formula)
            return item

        sheet.append([cell("", _heading(name, wording)) for name in header])
        for row in body:
            sheet.append([cell(name, text) for name, text in zip(header, row, strict=False)])
        book.save(target.file)
        target.keep()
    except BaseException:
        target.close()
        raise
    return len(body)


TOTAL = "total"  # the totals' columns: "total" for one tableau a photo, "total 1", "total 2"... for more
# The CSV's columns of a value a tableau ("59;47;36", "0.998;0.870;0.912"), each split into a
# column a tableau under its stem: a text of several numbers cannot be summed or sorted.
APART = {"totals": TOTAL, "confidence": "confidence"}


def _apart(header: list[str], body: list[list[str]]) -> tuple[list[str], list[list[str]]]:
    """Each of the CSV's APART columns as a column a tableau, each value a number; one column
    (named by its stem) where no photo holds more than one."""
    for joined, stem in APART.items():
        if joined in header:
            header, body = _split(header, body, header.index(joined), stem)
    return header, body


def _split(header: list[str], body: list[list[str]], at: int, stem: str) -> tuple[list[str], list[list[str]]]:
    most = max((len(row[at].split(";")) for row in body if len(row) > at and row[at]), default=1)
    names = [stem] if most == 1 else [f"{stem} {k}" for k in range(1, most + 1)]

    def apart(row: list[str]) -> list[str]:
        if len(row) <= at:
            return row
        values = row[at].split(";") if row[at] else []
        return row[:at] + values + [""] * (most - len(values)) + row[at + 1:]

    return header[:at] + names + header[at + 1:], [apart(row) for row in body]


def _stem(name: str) -> str | None:
    """The stem of a split column ("total 2": "total"), or None."""
    return next((stem for stem in APART.values() if name == stem or name.startswith(stem + " ")), None)


def _heading(name: str, wording: Wording) -> str:
    """A column's heading: the wording's, a split column's numbered as the CSV name is."""
    if (stem := _stem(name)) is not None:
        return wording.columns.get(stem, stem) + name[len(stem):]
    return wording.columns.get(name, name)


def _grids_named(text: str, card: Callable[[str], str]) -> str:
    """A grids cell ("bear . fox/..." a tableau, tableaux split by ";") with each card's name as
    ``card`` says it; "." (empty) and "?" (not known) as they are."""
    if not text:
        return text
    return ";".join("/".join(" ".join(token if token in (".", "?") else card(token) for token in line.split(" "))
                             for line in grid.split("/")) for grid in text.split(";"))


def _number(text: str) -> int | float | None:
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        return None
    return value if value == value and abs(value) != float("inf") else None  # (no NaN or inf: not a number to Excel)
