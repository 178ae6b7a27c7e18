"""Score a folder of photos on all cores: one row per file (its grid, score and doubts, or its
error), written and flushed as each finishes, so an interrupted run loses nothing and
``resume`` skips what is done. With ``cluster`` the same rows come from a Dask cluster
(ecoscore/batch/cluster.py) instead of this machine's process pool."""
from __future__ import annotations

import errno
import glob
import multiprocessing
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Generator
from concurrent.futures import ProcessPoolExecutor
from contextlib import closing
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Literal, NamedTuple, NotRequired, TypedDict

from tqdm import tqdm

from ecoscore.scoring import GameDoc, PlayerDoc, game_to_dict
from ecoscore.scoring.gridfile import UNKNOWN_TOKEN
from ecoscore.vision.deckstore import DEFAULT_DECK, open_reader
from ecoscore.vision.decode import ImageError, sniff

from .results import Results, same_file
from .signals import sigint_ignored

if TYPE_CHECKING:
    from ecoscore.vision.pipeline import Reader

_reader: Reader | None = None
# A worker's reader failing on this many photos in a row is broken: the run stops (``score_file``).
FAILURES_TO_STOP = 3
_failed_in_a_row = 0
ORPHAN_CHECK_S = 1.0  # how often a worker looks for its parent


class FileResult(TypedDict):
    """One file's line of ``--jsonl`` (and what its CSV row is made from)."""

    file: str
    status: Literal["ok", "error"]
    game: NotRequired[GameDoc]  # the JSON answer, when read
    error: NotRequired[str]  # why not, when not
    ms: float
    deck: NotRequired[str]  # the deck it was read with (``run_batch`` says it)


# Photos by their names. A folder of photos holds a phone's sidecars (.AAE, .MOV), Thumbs.db, a
# labeller's .txt and .json: each was an error row "not an image", and a photo cut short was
# lost among a hundred of them (a newcomer's batch). A file named otherwise is read where its
# first bytes are an image's ("IMG_1.jpg.1", "Game 2024.05.01": a review).
PHOTO_SUFFIXES = frozenset({".jpg", ".jpeg", ".jpe", ".jfif", ".png", ".webp", ".heic", ".heif", ".hif"})


class Listed(NamedTuple):
    photos: list[Path]  # sorted
    others: list[Path]  # files left out: neither named as a photo nor beginning as an image


def _a_photo(path: Path) -> bool:
    """Whether a listed file is to be read: named as a photo, beginning as an image, or not a
    plain file at all (a link to nowhere or to a folder, a pipe: its row says what it is)."""
    if path.suffix.lower() in PHOTO_SUFFIXES or not path.is_file():
        return True
    try:
        with path.open("rb") as handle:
            return sniff(handle.read(32)) is not None
    except OSError:
        return True  # (its row says why it cannot be read)


def collect(target: str, leave_out: Path | None = None) -> Listed:
    """Every photo in a folder and its subfolders, or matching a glob (a folder it matches, as a
    folder), sorted; hidden files and folders left out, and files whose names say they are no
    photo (``PHOTO_SUFFIXES``), listed apart. A link is listed as it is: to a file, it is read; to
    nothing, round in a loop or to a folder (not followed: a loop of folders has no end), its row
    says so. ``leave_out``: the results file, when it lies among the photos (it had a row of its
    own, "not an image")."""
    if Path(target).is_dir():
        found = _walk(target)
    else:
        found = [p for match in glob.glob(target, recursive=True)
                 for p in (_walk(match) if os.path.isdir(match) and not os.path.islink(match) else [match])]
    skip = same_file(str(leave_out)) if leave_out is not None else None
    listed = sorted({Path(p) for p in found if skip is None or same_file(os.path.abspath(p)) != skip})
    photos = [p for p in listed if _a_photo(p)]
    kept = set(photos)
    return Listed(photos, [p for p in listed if p not in kept])


def _walk(folder: str) -> list[str]:
    found: list[str] = []

    def unlisted(err: OSError) -> None:  # a subfolder that cannot be listed: a row says why
        found.append(str(err.filename))

    for root, folders, files in os.walk(folder, onerror=unlisted):
        folders[:] = [name for name in folders if not name.startswith(".")]
        found += [os.path.join(root, name) for name in folders if os.path.islink(os.path.join(root, name))]
        found += [os.path.join(root, name) for name in files if not name.startswith(".")]
    return found


def _init(deck: str | None = None) -> None:
    global _reader
    import cv2

    cv2.setNumThreads(1)
    _reader = open_reader(deck, threads=1)  # one process per core


def _pool_init(deck: str | None = None, parent: int | None = None) -> None:
    # The main process stops the workers (``_stop``). A terminal's Ctrl-C reaches the whole
    # process group, and a KeyboardInterrupt raised inside a worker's queue handling left the
    # pool unable to shut down: the command hung after "interrupted" until they were killed.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if parent is not None:
        _end_with(parent)
    _init(deck)


def _end_with(parent: int) -> None:
    """End this worker once its parent is gone. Killed (``kill -9``, the out-of-memory killer), the
    command cannot stop its workers, and they waited on its queue for ever, 600 MB each (a
    newcomer's batch). ``parent``: the command's own pid, as it started the worker: one killed
    before the worker starts is gone already (a review)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(ORPHAN_CHECK_S)
        os._exit(1)

    threading.Thread(target=watch, name="ecoscore-parent-watch", daemon=True).start()


def score_file(path: str) -> FileResult:
    """One file's result (never raises for a bad photo: the error is the result)."""
    from ecoscore.vision.refusals import NoTableauError
    from ecoscore.vision.report import score_reads

    assert _reader is not None, "score_file runs in a worker set up by _init"
    start = time.perf_counter()

    def ms() -> float:
        return round((time.perf_counter() - start) * 1e3, 1)

    try:
        if os.path.isdir(path):  # listed as a link to a folder, or as a folder that could not be listed
            if os.path.islink(path):
                return error_result(path, "a link to a folder, not followed: give batch that folder itself", ms())
            os.listdir(path)  # (raises why)
        data = Path(path).read_bytes()
    except OSError as err:
        return error_result(path, unreadable(path, err), ms())
    global _failed_in_a_row
    try:
        read = _reader.read(data)
        game, read_docs = score_reads([(Path(path).stem, read)])
        _failed_in_a_row = 0
        return {"file": path, "status": "ok", "game": game_to_dict(game, read_docs), "ms": ms()}
    except (ImageError, NoTableauError) as err:
        _failed_in_a_row = 0  # (the reader at work: the photo is the trouble)
        return error_result(path, str(err), ms())
    except MemoryError:
        raise  # the machine's, not the photo's: the run stops, and --resume reads the rest
    except Exception as err:  # noqa: BLE001 - a reader's bug on one photo is that photo's row, not the run's end
        _failed_in_a_row += 1
        if _failed_in_a_row >= FAILURES_TO_STOP:
            # Every photo failing is the reader broken, not the photos: the run stops as it did,
            # rather than write an error row (which --resume skips) for each photo left (a review).
            raise
        traceback.print_exc(file=sys.stderr)
        return error_result(path, f"the reader failed on this photo ({type(err).__name__}: {err}): please report it "
                                  "with the photo", ms())


def unreadable(path: str, err: OSError) -> str:
    """Why a listed file could not be read, as its row says it (it was "[Errno 2] No such file or
    directory: '...'", or a broken link was left out without a word)."""
    if os.path.islink(path) and err.errno == errno.ELOOP:
        return "a link that leads round in a loop, to no file"
    if os.path.islink(path) and isinstance(err, FileNotFoundError):
        return f"a link to nowhere: {os.readlink(path)} does not exist"
    if isinstance(err, PermissionError):
        return "cannot be read: permission denied"
    return f"cannot be read: {(err.strerror or str(err)).lower()}"


def error_result(path: str, why: str, ms: float = 0.0) -> FileResult:
    return {"file": path, "status": "error", "error": why, "ms": ms}


def grid_text(player: PlayerDoc) -> str:
    """A read player's grid on one line, rows split by "/", its cells as the text grid format
    writes them: "." empty, "?" not known (not shown by the photo), never an unknown cell as empty."""
    return "/".join(" ".join(UNKNOWN_TOKEN if cell["unknown"] else name or "." for name, cell in zip(names, cells))
                    for names, cells in zip(player["grid"], player["cells"]))


def csv_row(result: FileResult) -> dict[str, object]:
    row: dict[str, object] = {"file": result["file"], "status": result["status"], "error": result.get("error", ""),
                              "ms": result["ms"], "deck": result.get("deck", "")}
    if "game" in result:
        players = result["game"]["players"]
        row.update(
            tableaux=len(players),
            totals=";".join(str(p["total"]) for p in players),
            final="yes" if result["game"]["final"] else "no",
            # A photo of one tableau is scored alone: its majorities (the largest stream, the
            # wolves) are a guess without the other players, though read right ("final": yes). The
            # JSON lines said so; the CSV did not (a newcomer's batch).
            provisional="yes" if result["game"]["provisional_majorities"] else "no",
            grids=";".join(grid_text(p) for p in players),
            doubts=_doubts_text(players),
            confidence=";".join(f"{p['confidence']:.3f}" for p in players),
        )
    return row


def _doubts_text(players: list[PlayerDoc]) -> str:
    """A photo's doubts in one cell: each named by its tableau where the photo holds several
    (whose "row 2, col 3" it was, the CSV did not say: a newcomer's walk), but a doubt of the
    photo itself, which every tableau carries ("11 cards lie side by side outside every
    tableau"), once and first (it was copied under each: a newcomer's walk)."""
    if len(players) == 1:
        return " | ".join(players[0]["doubts"])
    shared = [d for d in dict.fromkeys(players[0]["doubts"]) if all(d in p["doubts"] for p in players[1:])]
    return " | ".join([*shared, *(f"{p['name']}: {d}" for p in players for d in p["doubts"] if d not in shared)])


def _scores(todo: list[str], workers: int, deck: str | None, cluster: str | None) -> Generator[FileResult, None, None]:
    if not todo:
        return
    if cluster:
        from .cluster import scores

        yield from scores(todo, score_file, error_result, partial(_init, deck), cluster=cluster, workers=workers)
    else:
        yield from _pool_scores(todo, workers, deck)


def _pool_scores(todo: list[str], workers: int, deck: str | None) -> Generator[FileResult, None, None]:
    # spawn, not fork: a forked child can deadlock on OpenCV's or OpenVINO's threads.
    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"), initializer=_pool_init,
                               initargs=(deck, os.getpid()))
    finished = False
    try:
        # The workers start here, and inherit SIGINT blocked: no Ctrl-C reaches one before ``_pool_init``.
        old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            results = pool.map(score_file, todo)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)
        yield from results
        finished = True
    finally:
        if finished:
            pool.shutdown()
        else:  # interrupted (Ctrl-C, a full disk): not one more photo
            with sigint_ignored():  # (a second Ctrl-C cut the stopping short, and it hung)
                _stop(pool)
                pool.shutdown(cancel_futures=True)


def _stop(pool: ProcessPoolExecutor) -> None:
    """The workers ended now: ``shutdown`` alone waits for every photo queued to be read (minutes),
    and what they are reading has no row yet (``resume`` reads it again)."""
    if hasattr(pool, "terminate_workers"):  # Python 3.14
        pool.terminate_workers()
        return
    for process in list((pool._processes or {}).values()):  # (the executor's own: 3.11-3.13)
        process.terminate()


def run_batch(target: str, results: Results, *, workers: int | None = None, progress: bool = True,
              label: str = "scoring", deck: str | None = None, cluster: str | None = None,
              said: Callable[[FileResult], FileResult] | None = None) -> dict[str, float]:
    """Score every photo of ``target`` not ``results.done`` into ``results``; ``said``: each result
    as the rows say it (the command line's: its messages in the player's language), in this
    process as it is written; ``label``: the progress bar's."""
    results.open()
    # Each file by its absolute path: the same row however the folder was given, or from where
    # (a resumed run's; and a cluster's workers, which have no working folder of ours).
    listed = collect(target, leave_out=results.out)
    keys = {f: results.key(f) for f in (os.path.abspath(p) for p in listed.photos)}
    todo = [f for f, key in keys.items() if key not in results.done]
    counts: dict[str, float] = {"ok": 0, "error": 0, "skipped": len(keys) - len(todo),
                                "skipped_errors": sum(key in results.failed for key in keys.values()),
                                "not_photos": len(listed.others)}
    workers = workers or min(os.cpu_count() or 1, 2)
    start = time.perf_counter()
    scored = _scores(todo, workers, deck, cluster)
    # (No rate in the bar: tqdm writes its unit and decimals in English; the summary says it.)
    # (drawn on a terminal only: to a log it wrote a line for every step, a newcomer's batch)
    with closing(scored), tqdm(total=len(todo), desc=label, disable=None if progress and todo else True,
                               bar_format="{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}]"
                               ) as bar:
        for result in scored:
            counts[result["status"]] += 1
            if said is not None:
                result = said(result)
            result = {**result, "deck": deck or DEFAULT_DECK}
            results.write(result if results.jsonl else csv_row(result))
            bar.update()
    elapsed = time.perf_counter() - start
    counts["seconds"] = round(elapsed, 2)
    counts["images_per_second"] = round(len(todo) / elapsed, 2) if todo else 0.0
    return counts
