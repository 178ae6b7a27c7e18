"""`ecoscore batch`: score every photo in a folder or a glob into a CSV or JSONL file."""
from __future__ import annotations

import argparse
import shlex
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from .common import BadInput, add_deck_option, cannot_read, cannot_write, open_reader_or_fail, positive_int
from .language import Words, add_lang_option, words_for

if TYPE_CHECKING:
    from ecoscore.batch.workbook import Wording


def run(args: argparse.Namespace) -> int:
    from ecoscore.batch.cluster import ClusterError, check_cluster
    from ecoscore.batch.results import CannotUse, Refused, Results
    from ecoscore.batch.run import collect, run_batch
    from ecoscore.batch.workbook import check_workbook, prepare_workbook, write_workbook
    from ecoscore.vision.deckstore import DEFAULT_DECK

    if len(args.target) > 1:
        # (an unquoted glob, the shell's: "unrecognized arguments: photos/b.jpg ..." said nothing of it)
        folder = shlex.quote(str(Path(args.target[0]).parent))
        raise BadInput(f"batch takes one folder or one glob, not {len(args.target)} paths: give the folder ({folder}), "
                       "or put the glob in quotes so that batch expands it, not the shell")
    args.target = args.target[0]
    if not collect(args.target).photos:
        looks_like_folder = not any(ch in args.target for ch in "*?[")
        if looks_like_folder and not Path(args.target).exists():
            raise BadInput(f"no such folder: {args.target!r}")
        raise BadInput(f"no photos in {args.target!r} (JPEG, PNG, WebP or HEIC files, or a glob that finds some)")
    if args.cluster is not None:
        try:
            check_cluster(args.cluster)
        except ClusterError as err:
            raise BadInput(str(err)) from None
    if args.xlsx is not None:
        try:
            check_workbook(args.xlsx, args.out, jsonl=args.jsonl)
        except Refused as err:
            raise BadInput(str(err)) from None
    words = words_for(args)

    def said(result):  # its doubts, the reasons for its points and its error in the player's language
        out = words.doc(result)
        return {**out, "error": words.say(out["error"])} if "error" in out else out

    try:
        # The results file first: a refusal comes before the models are loaded, and nothing is
        # written to an existing file until it is known to be ours.
        with Results(args.out, jsonl=args.jsonl, resume=args.resume, force=args.force,
                     deck=args.deck or DEFAULT_DECK, deck_named=args.deck is not None) as results:
            if args.xlsx is not None:
                try:
                    prepare_workbook(args.xlsx)
                except OSError as err:
                    results.take_back()
                    raise BadInput(cannot_write(args.xlsx, err)) from None
            open_reader_or_fail(args.deck)  # fail fast and clearly if the models or the deck are missing
            try:
                with _terminate_as_interrupt():
                    counts = run_batch(args.target, results, workers=args.workers, deck=args.deck, cluster=args.cluster,
                                       label=words.fill("cli.batch_progress"), said=None if words.lang == "en" else said)
            except ClusterError:
                # The scheduler could not be reached: a file this run made and wrote no row to is
                # taken back (it refused the next run as "exists already": an organiser's run).
                results.take_back()
                raise
            except KeyboardInterrupt as stop:
                # (with --force still in it, "the same command with --resume" was refused by its options)
                print(words.fill("cli.batch_interrupted_forced" if args.force else "cli.batch_interrupted", path=args.out),
                      file=sys.stderr)
                return 143 if isinstance(stop, Terminated) else 130
            # Read under the results file's lock: a --resume of it started meanwhile waits.
            try:
                workbook_rows = write_workbook(args.out, args.xlsx, _wording(words)) if args.xlsx is not None else None
            except OSError as err:
                raise BadInput(cannot_write(args.xlsx, err)) from None
    except Refused as err:
        raise BadInput(str(err)) from None
    except ClusterError as err:
        raise BadInput(str(err)) from None
    except CannotUse as err:
        raise BadInput(cannot_write(err.path, err.error) if err.writing else cannot_read(err.path, err.error)) from None
    print(summary(words, counts, args.out), file=sys.stderr)
    if workbook_rows is not None:
        print(words.fill("cli.batch_workbook", path=args.xlsx, n=workbook_rows), file=sys.stderr)
    return 0


def _wording(words: Words) -> Wording:
    """The workbook in the command's language, for people (the CSV keeps its English words: a
    record programs read, and --resume): an Italian player's workbook had English headings, "yes"
    and "no", and English card names in its grids."""
    from ecoscore.batch.results import CSV_FIELDS
    from ecoscore.batch.workbook import TOTAL, Wording

    if words.lang == "en":
        return Wording()
    columns = {name: words.fill(f"xlsx.{name}") for name in [*CSV_FIELDS, TOTAL] if name != "totals"}
    said = {"ok": words.fill("xlsx.ok"), "error": words.fill("xlsx.is_error"), "yes": words.fill("xlsx.yes"),
            "no": words.fill("xlsx.no")}
    return Wording(words.fill("xlsx.sheet"), columns, said, words.label)


class Terminated(KeyboardInterrupt):
    """SIGTERM (`kill PID`, a service manager stopping it), stopped as Ctrl-C stops it."""


@contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """SIGTERM to the command alone left its workers reading on for ever, the command gone: it
    stops now as a Ctrl-C does, its workers ended, the file whole for --resume."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, frame):
        raise Terminated()

    held = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, held)


def summary(words: Words, counts: dict[str, float], out: Path) -> str:
    """"ecoscore: 300 scored, 1 error; 6.95 photos/s", in the player's words."""
    n = {key: int(counts[key]) for key in ("ok", "error", "skipped")}
    # "0 skipped (already in results.csv)" of a first run read as something gone wrong (a newcomer's walk)
    skipped = words.fill("cli.batch_not_photos", n=int(counts["not_photos"])) if counts.get("not_photos") else ""
    if n["skipped"]:
        skipped += words.fill("cli.batch_skipped", n=n["skipped"], path=out)
    if counts.get("skipped_errors"):  # (a photo mended since is not read again: a newcomer took it for done)
        skipped += words.fill("cli.batch_skipped_failed", n=int(counts["skipped_errors"]))
    rate = counts["images_per_second"]
    speed = words.fill("cli.batch_speed", rate=words.decimal(f"{rate:.2f}")) if n["ok"] + n["error"] else ""
    return words.fill("cli.batch_done", scored=words.fill("cli.batch_scored", n=n["ok"]),
                      errors=words.fill("cli.batch_errors", n=n["error"]), skipped=skipped, speed=speed)


def register(sub) -> None:
    p = sub.add_parser("batch", help="score every photo in a folder (or a glob) into a CSV or JSONL file")
    # (one, said so when several come: a glob left unquoted, which the shell expands)
    p.add_argument("target", metavar="DIR|GLOB", nargs="+", help="a folder (its subfolders too) or a glob of photos "
                   "(quoted); files named as no photo (.txt, .json, .mov) are left out")
    p.add_argument("--out", type=Path, required=True, help="results file (CSV, or JSON lines with --jsonl)")
    p.add_argument("--jsonl", action="store_true", help="one JSON object per photo, with every detail")
    p.add_argument("--xlsx", type=Path, default=None, metavar="FILE",
                   help="also write the CSV's rows as an Excel workbook at the end (it opens alike in every "
                        "language's Excel; a CSV opens garbled in some)")
    existing = p.add_mutually_exclusive_group()
    existing.add_argument("--resume", action="store_true", help="skip photos already in --out, and add the others")
    existing.add_argument("--force", action="store_true", help="replace --out if it exists")
    p.add_argument("--workers", type=positive_int, default=None, help="processes (default: 2, one per core)")
    p.add_argument("--cluster", default=None, metavar="ADDRESS",
                   help="score on a Dask cluster: its scheduler's address (tcp://host:8786; the workers must see "
                        "the photos at the same path), or 'local' for --workers processes here "
                        "(the distributed extra)")
    add_deck_option(p)
    add_lang_option(p)  # the rows' doubts and errors; the columns, grids and numbers stay as they are
    p.set_defaults(run=run)
