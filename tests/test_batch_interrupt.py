"""Ctrl-C during `ecoscore batch`: it stops at once, its workers with it, exits 130 saying so in
the player's language, and leaves a results file that --resume finishes. It hung after
"interrupted" until its workers were killed, or ended in a SIGSEGV (a user's run)."""
import csv
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from conftest import needs_models

pytestmark = [needs_models, pytest.mark.slow]
PHOTOS = 300


def _ctrl_c_as_a_terminal_has_it() -> None:
    """SIGINT as a terminal leaves it to a command: a job started in the background by a shell
    without job control (a CI's runner) starts its children with SIGINT ignored, and Python then
    never raises KeyboardInterrupt: the batch read on, signalled, and exited 0."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (its workers, the resource tracker)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def _running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize("to", ["group", "main", "twice", "term", "cluster", "kill", "forced"])
def test_ctrl_c_stops_the_batch_and_its_workers_and_the_file_resumes(tmp_path, photo_set, to):
    # "group": a terminal's Ctrl-C, sent to every process of the command (a SIGSEGV now and then);
    # "cluster": the same to a batch on a local Dask cluster (each worker printed its
    # KeyboardInterrupt's traceback, and its nanny an error, over the batch's word: an organiser's run);
    # "main": `kill -INT`; "twice": to the command, then to its group, as `timeout -s INT` sends
    # it, or a Ctrl-C pressed again (the command hung after "interrupted", its workers idle);
    # "term": `kill PID` (SIGTERM), to the command alone (its workers read on for ever, it gone);
    # "kill": `kill -9` (or the out-of-memory killer), which no command can catch: its workers
    # waited on its queue for ever, 600 MB each (a newcomer's batch); "forced": a run with --force,
    # whose "the same command with --resume" was refused by its options (the same newcomer).
    folder = tmp_path / "night"
    folder.mkdir()
    # Enough photos to be still reading when the signal comes: a fresh clone's CI read 60 of them
    # at 17 a second, all done before its rows were seen, and the batch exited 0 unsignalled.
    for k in range(PHOTOS):
        (folder / f"{k:03d}.jpg").write_bytes(photo_set[k % len(photo_set)].jpeg)
    out, log = tmp_path / "part.csv", tmp_path / "stderr.txt"
    command = [sys.executable, "-m", "ecoscore", "batch", str(folder), "--out", str(out), "--workers", "2"]
    forced = ["--force"] if to == "forced" else []
    if to == "cluster":
        pytest.importorskip("distributed", reason="the distributed extra is not installed")
        command += ["--cluster", "local"]
    lang = ["--lang", "it"] if to == "main" else []
    with log.open("w") as stderr:  # (a file: a worker left behind would hold a pipe open)
        run = subprocess.Popen([*command, *lang, *forced], stderr=stderr, start_new_session=True,
                               preexec_fn=_ctrl_c_as_a_terminal_has_it)
    try:
        deadline = time.monotonic() + 240
        while not (out.is_file() and len(out.read_bytes().splitlines()) >= 3):  # the header and two rows
            assert run.poll() is None and time.monotonic() < deadline, "the batch ended or stalled before its rows"
            time.sleep(0.1)
        workers = _children(run.pid)
        assert workers
        sent = time.monotonic()
        if to == "term":
            run.send_signal(signal.SIGTERM)
        if to in ("main", "twice"):
            run.send_signal(signal.SIGINT)
        if to in ("group", "twice", "cluster", "forced"):
            os.killpg(run.pid, signal.SIGINT)
        if to == "kill":
            run.send_signal(signal.SIGKILL)
        code = run.wait(timeout=120)
        took = time.monotonic() - sent
        err = log.read_text()
        assert code == {"term": 143, "kill": -signal.SIGKILL}.get(to, 130), err[-2000:]
        assert took < 5, took
        # (the resource tracker ends by itself once its pipe closes; a killed command's workers
        # each see it gone within a second or so)
        deadline = time.monotonic() + (6 if to == "kill" else 0.5)
        while [pid for pid in workers if _running(pid)] and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [pid for pid in workers if _running(pid)]
    finally:
        try:
            os.killpg(run.pid, signal.SIGKILL)  # whatever is left of it, if the test failed
        except ProcessLookupError:
            pass
        run.wait()
    assert "Traceback" not in err
    if to != "kill":  # (killed, it says nothing)
        said = err.strip().splitlines()[-1]
        assert said == (
            f"ecoscore: interrotto; {out} contiene tutte le righe scritte finora: lo stesso comando con --resume "
            "valuta le restanti" if lang else
            f"ecoscore: interrupted; {out} holds every row written so far: the same command with --resume in place of "
            "--force scores the rest" if forced else
            f"ecoscore: interrupted; {out} holds every row written so far: the same command with --resume scores the rest")
    written = len(list(csv.DictReader(out.open())))
    assert 2 <= written < PHOTOS
    again = subprocess.run([*command, "--resume"], capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr[-2000:]
    assert f"{written} skipped" in again.stderr
    rows = [row["file"] for row in csv.DictReader(out.open())]
    assert sorted(rows) == sorted(str(p) for p in folder.iterdir())  # each photo once


JOB = textwrap.dedent(
    """
    import gc, signal, sys, threading, time
    from ecoscore.vision.deckstore import open_reader
    open_reader()  # opened and dropped, as `ecoscore batch` checks the models before its workers start
    gc.collect()
    try:
        # To the main thread, whose stack the dropped core's plugin had set: a signal to the
        # process may land on one of OpenVINO's threads, and a pause() after it waits for ever.
        signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)
        time.sleep(30)
    except KeyboardInterrupt:
        sys.exit(130)
    sys.exit(1)
    """
)


def test_ctrl_c_after_a_reader_is_dropped_is_a_keyboard_interrupt_not_a_crash(tmp_path):
    # Each OpenVINO core's CPU plugin set the thread an alternate signal stack, and a core dropped
    # put back one another had unmapped: Python's SIGINT handler runs on it (SA_ONSTACK), so the
    # next Ctrl-C was a SIGSEGV, every time.
    r = subprocess.run([sys.executable, "-c", JOB], capture_output=True, text=True, timeout=300,
                       preexec_fn=_ctrl_c_as_a_terminal_has_it,
                       env=dict(os.environ, ECOSCORE_DATA=str(tmp_path)))
    assert r.returncode == 130, (r.returncode, r.stderr[-2000:])
