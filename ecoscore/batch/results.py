"""A batch's results file (ecoscore/batch/run.py): a CSV or JSON lines, a row a photo, each on disk as
it is written. An existing file is replaced only when asked (``force``), or continued
(``resume``) if it is one of ours in the format asked; it is left as it was until that is known."""
from __future__ import annotations

import csv
import fcntl
import io
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple, TextIO

# "final": "yes" where no card of the photo is in doubt (a CSV reader had to tell it from the free
# text of the doubts: a newcomer's find; the JSON lines carry it as the game's "final").
# "deck": the deck the photo was read with (a run resumed with another deck took the rows read
# with the first as done, and the file mixed the two without a word: a newcomer's run). A file
# of an earlier version, without it, is resumed in its own columns, once the player names the
# deck its rows were read with (that version had --deck too: it could mix them the same way).
# "provisional": "yes" where a photo of one tableau scores its majorities without the other
# players (``run.csv_row``). A file of the version before it is resumed in its columns.
CSV_FIELDS = ["file", "status", "tableaux", "totals", "final", "grids", "doubts", "confidence", "error", "ms", "deck",
              "provisional"]
CSV_HEADER = ",".join(CSV_FIELDS)
PREVIOUS_CSV_FIELDS = CSV_FIELDS[:-1]
EARLIER_CSV_FIELDS = CSV_FIELDS[:-2]
JSONL_START = '{"file": '  # how every line of ours begins (json.dumps of a FileResult)


def escaped(text: str) -> str:
    """``text`` as a results file writes it: a file's name that is not UTF-8 (a zip made on a
    Czech Windows: cp1250) is a string with lone surrogates, which UTF-8 cannot write: the batch
    stopped at the first, and --resume with it (a newcomer's batch). Its bytes are written as
    Python writes them, "hra_\\xe8.jpg", so that every results file stays UTF-8 text for any
    reader; a resumed run compares names so escaped (``Results.key``)."""
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # (a surrogate no file name holds)
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _escaped_all(row: Any) -> Any:
    if isinstance(row, str):
        return escaped(row)
    if isinstance(row, Mapping):
        return {key: _escaped_all(value) for key, value in row.items()}
    if isinstance(row, list):
        return [_escaped_all(value) for value in row]
    return row


class Refused(Exception):
    """The results file cannot be used as asked: the message says why and what to do."""


class CannotUse(Exception):
    """The results file could not be written (or, ``writing`` False, read): the system's ``error``."""

    def __init__(self, path: Path, error: OSError, writing: bool = True):
        super().__init__(f"{path}: {error}")
        self.path, self.error, self.writing = path, error, writing


def same_file(path: str) -> str:
    """A file's path however it was spelled ("photos/a.jpg", "./photos/a.jpg", "/abs/photos/a.jpg"),
    so that a resumed run knows what is done: its folder resolved, its own name kept (a link in
    the folder is a file of its own: it has a row of its own)."""
    folder, name = os.path.split(path)
    return os.path.join(os.path.realpath(folder or "."), name)


def _both_ways(files: set[str], out: Path) -> set[str]:
    """The rows' files as ``same_file`` says them. A relative path (a results file of an earlier
    version, which wrote them as given) is taken from the working folder and from the results
    file's own: it was written from one of them, most often the second (``--out res.csv`` beside
    the photos' folder), and resumed from the other it had every photo scored again."""
    said = {same_file(f) for f in files}
    said |= {same_file(os.path.join(out.parent, f)) for f in files if not os.path.isabs(f)}
    return said


def _not_ours(out: Path) -> Refused:
    return Refused(f"cannot resume {out}: it is not a results file of ecoscore batch (give another --out)")


def _ours(head: bytes) -> bool:
    """Whether a file that begins so (its first line, or part of it) is empty or a results file of
    ``batch`` of any version: a CSV whose columns begin as ours do (the first version's too, and one
    saved again by a spreadsheet, with a byte-order mark), or JSON lines of a row's keys."""
    line = head.split(b"\n", 1)[0].rstrip(b"\r").removeprefix(b"\xef\xbb\xbf")
    if not line or line.startswith(b"file,status,"):
        return True
    try:
        row = json.loads(line)
    except ValueError:
        return False
    return isinstance(row, dict) and "file" in row and row.get("status") in ("ok", "error")


class _Rows(NamedTuple):
    files: set[str]  # the files the rows are of, as ``same_file`` says them
    failed: set[str]  # ... those of them whose row is an error
    decks: set[str]  # the decks they were read with
    unsaid: bool  # some row says no deck (an earlier version's)
    fields: list[str]  # a CSV's columns


def _done(text: str, cut: str, jsonl: bool, out: Path) -> _Rows:
    """What the whole lines ``text`` of ``out`` have a row for (``cut``: a last line cut short);
    refused where the file is not ours, or not in the format asked."""
    if not text and not cut:
        return _Rows(set(), set(), set(), False, CSV_FIELDS)  # (empty: as new)
    first = (text.splitlines() or [cut])[0]
    if CSV_HEADER.startswith(first[:len(CSV_HEADER)]) and first[:5] == CSV_HEADER[:5]:
        if jsonl:
            raise Refused(f"cannot resume {out}: it is a CSV file (leave out --jsonl)")
        fields = first.split(",")
        if text and fields not in (CSV_FIELDS, PREVIOUS_CSV_FIELDS, EARLIER_CSV_FIELDS):
            raise _not_ours(out)  # (another version's columns, say)
        rows = list(csv.DictReader(io.StringIO(text)))
        return _Rows(_both_ways({row["file"] for row in rows}, out),
                     _both_ways({row["file"] for row in rows if row["status"] == "error"}, out),
                     {row["deck"] for row in rows if row.get("deck")},
                     any(not row.get("deck") for row in rows), fields if text else CSV_FIELDS)
    if not (JSONL_START.startswith(first[:len(JSONL_START)]) and first):
        raise _not_ours(out)
    try:
        rows = [json.loads(line) for line in text.splitlines() if line.strip()]
        files = _both_ways({row["file"] for row in rows}, out)
        failed = _both_ways({row["file"] for row in rows if row.get("status") == "error"}, out)
        decks = {row["deck"] for row in rows if isinstance(row.get("deck"), str)}
        unsaid = any(not isinstance(row.get("deck"), str) for row in rows)
    except (ValueError, TypeError, KeyError, AttributeError):
        raise _not_ours(out) from None
    if not jsonl:
        raise Refused(f"cannot resume {out}: it holds JSON lines (add --jsonl)")
    return _Rows(files, failed, decks, unsaid, CSV_FIELDS)


class Results:
    """The results file: ``done`` the files it has a row for (as ``same_file`` says them), known
    and checked when made; ``open`` (as the batch starts) before ``write``."""

    def __init__(self, out: Path, *, jsonl: bool = False, resume: bool = False, force: bool = False,
                 deck: str | None = None, deck_named: bool = True):
        """``deck``: the deck this run reads with; ``deck_named``: whether the player named it
        (``--deck``) rather than left it to the default, which resuming an earlier version's
        file needs: its rows do not say their deck."""
        self.out, self.jsonl = out, jsonl
        if out.is_dir():  # (an IsADirectoryError traceback)
            example = out / ("results.jsonl" if jsonl else "results.csv")
            raise Refused(f"{out} is a folder: give the results a file name, such as {example}")
        self.resume = resume and out.is_file()
        if out.is_file() and not (resume or force):  # (it replaced a finished run's rows without a word)
            raise Refused(f"{out} exists already: --resume to score only the photos it lacks, --force to replace "
                          "it, or give another file name")
        self.done: set[str] = set()
        self.failed: set[str] = set()  # those of ``done`` whose row is an error
        self.fields = CSV_FIELDS  # a resumed CSV's own columns
        self._whole = 0  # bytes of the whole lines kept
        self._handle: TextIO | None = None
        self._held: int | None = None  # the file's descriptor whose lock this run holds
        self._made = not out.exists()  # this run makes the file (``take_back``)
        self._rows = 0
        if out.is_file():
            self._hold(os.O_RDONLY)  # before its rows are read: another run may be adding to them
            if force and not self.resume:
                self._replace_only_ours()
        if self.resume:
            try:
                rows = self._read_done()
                if deck is not None and (others := sorted(rows.decks - {deck})):
                    raise Refused(f"cannot resume {out}: its photos were read with the deck '{others[0]}', not "
                                  f"'{deck}': resume with --deck {others[0]}, or --force to read them all again "
                                  f"with '{deck}'")
                if deck is not None and rows.unsaid and not deck_named:
                    raise Refused(f"cannot resume {out}: it was written by an earlier version, whose rows do not say "
                                  f"the deck their photos were read with: resume with --deck and that deck's name "
                                  f"(--deck {deck} if none was given), or --force to read them all again")
                self.done, self.failed, self.fields = rows.files, rows.failed, rows.fields
            except BaseException:
                self.close()  # (its lock)
                raise

    def key(self, path: str) -> str:
        """How ``done`` and ``failed`` name a file of the folder (``same_file``, ``escaped``)."""
        return escaped(same_file(path))

    def _replace_only_ours(self) -> None:
        """--force replaces a results file, not any file: ``--out photos/000000.jpg --force`` wrote
        a CSV over a photo (a newcomer's batch)."""
        assert self._held is not None
        try:
            first = os.pread(self._held, 4096, 0)  # (the file locked, not whatever the name holds by then)
        except OSError as err:
            self.close()
            raise CannotUse(self.out, err, writing=False) from None
        if not _ours(first):
            self.close()
            raise Refused(f"{self.out} is not a results file of ecoscore batch: --force replaces only a results "
                          "file of batch; give another --out")

    def _read_done(self) -> _Rows:
        try:
            data = self.out.read_bytes()
        except OSError as err:
            raise CannotUse(self.out, err, writing=False) from None
        self._whole = data.rfind(b"\n") + 1  # a last line cut short by an interruption is dropped
        try:
            return _done(data[:self._whole].decode("utf-8"), data[self._whole:].decode("utf-8", "replace"),
                         self.jsonl, self.out)
        except UnicodeDecodeError:
            raise _not_ours(self.out) from None

    def _hold(self, flags: int) -> None:
        """Lock the file for this run (``flock``, released when the run ends, however it ends):
        two runs resuming one file each scored the photos it lacked and wrote them twice, and
        one cut the other's rows off (an organiser's two terminals)."""
        try:
            fd = os.open(self.out, flags, 0o666)  # (a new file's mode: it was made executable)
        except OSError as err:
            raise CannotUse(self.out, err, writing=bool(flags & os.O_WRONLY)) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise Refused(f"{self.out} is being written by another ecoscore batch: let it finish (then --resume adds "
                          "what it lacks), or give another --out") from None
        if self._held is not None:
            os.close(self._held)
        self._held = fd

    def open(self) -> None:
        try:
            self.out.parent.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise CannotUse(self.out, err) from None
        if self._held is None:
            # A new file is made without truncating it, then locked: a second run starting at the
            # same moment must find it locked, not empty it first.
            self._hold(os.O_WRONLY | os.O_CREAT)
        try:
            if self.resume and self._whole < self.out.stat().st_size:
                os.truncate(self.out, self._whole)  # (not rewritten whole: a disk full midway would lose its rows)
            elif not self.resume and self.out.is_file():  # (not a device: /dev/full has no length to cut)
                os.truncate(self.out, 0)
            self._handle = self.out.open("a", encoding="utf-8", newline="")
        except OSError as err:
            raise CannotUse(self.out, err) from None
        if not self.jsonl and not self._whole:
            self._put(CSV_HEADER + "\r\n")  # (a full disk is said here, before any worker starts)

    def write(self, row: Mapping[str, object]) -> None:
        """One photo's row (a FileResult, or for a CSV its ``csv_row``), on disk before the next."""
        said = _escaped_all(row)
        if self.jsonl:
            self._put(json.dumps(said, ensure_ascii=False) + "\n")
        else:
            line = io.StringIO()
            csv.DictWriter(line, self.fields, extrasaction="ignore").writerow(said)  # (an earlier file: no deck)
            self._put(line.getvalue())
        self._rows += 1

    def take_back(self) -> None:
        """Remove the file if this run made it and wrote no row to it (a run that could not start)."""
        if self._made and not self._rows:
            self.close()
            self.out.unlink(missing_ok=True)

    def _put(self, text: str) -> None:
        assert self._handle is not None, "open() first"
        try:
            self._handle.write(text)
            self._handle.flush()
        except OSError as err:
            raise CannotUse(self.out, err) from None

    def close(self) -> None:
        if self._handle is not None:
            try:
                self._handle.close()
            except OSError:
                pass  # (what could not be flushed, the write that failed has said)
            self._handle = None
        if self._held is not None:
            os.close(self._held)  # (and its lock)
            self._held = None

    def __enter__(self) -> Results:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
