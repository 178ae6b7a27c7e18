"""`ecoscore batch` over a folder: one row per file, errors included; resume after an interruption."""
import csv
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import cut_through_right_column, needs_models

pytestmark = [needs_models, pytest.mark.slow]


def make_folder(tmp_path, photo_set):
    folder = tmp_path / "photos"
    folder.mkdir()
    for k, scene in enumerate(photo_set[:3]):
        (folder / f"table{k}.jpg").write_bytes(scene.jpeg)
    (folder / "corrupt.jpg").write_bytes(photo_set[0].jpeg[:5000])  # cut short
    (folder / "notes.jpg").write_text("not a photo")  # named as one
    return folder


def batch(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "ecoscore", "batch", *args], capture_output=True, text=True, cwd=cwd)


def test_one_row_per_file_with_errors(tmp_path, photo_set):
    folder = make_folder(tmp_path, photo_set)
    # Files named as no photo are left out, and said: a phone's sidecars, a labeller's notes
    # (each was an error row "not an image", a photo cut short lost among them: a newcomer's batch)
    for name in ("IMG_0001.AAE", "labels.txt", "truth.json", "clip.MOV"):
        (folder / name).write_text("not a photo")
    # ... but a photo named otherwise is read by its first bytes (wget's ".1", a date's dots)
    (folder / "table0.jpg.1").write_bytes(photo_set[0].jpeg)
    (folder / "Game 2024.05.01").write_bytes(photo_set[1].jpeg)
    out = folder / "results.csv"  # among the photos: not a row of its own
    r = batch(str(folder), "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert "ecoscore: 5 scored, 2 errors, 4 files left out (not photos by their names or first bytes); " in r.stderr
    assert "scoring" not in r.stderr  # the progress bar is for a terminal: to a pipe or a log, a line a step
    rows = {row["file"].rsplit("/", 1)[1]: row for row in csv.DictReader(out.open())}
    assert set(rows) == {"table0.jpg", "table1.jpg", "table2.jpg", "corrupt.jpg", "notes.jpg", "table0.jpg.1",
                         "Game 2024.05.01"}
    assert rows["corrupt.jpg"]["status"] == "error" and "truncated" in rows["corrupt.jpg"]["error"]
    assert rows["notes.jpg"]["status"] == "error" and "not an image" in rows["notes.jpg"]["error"]
    for name in ("table0.jpg", "table1.jpg", "table2.jpg"):
        assert rows[name]["status"] == "ok" and int(rows[name]["totals"]) > 0
        assert rows[name]["final"] == ("no" if rows[name]["doubts"] else "yes")
        assert len(rows[name]["grids"].split("/")) == 4
        # one tableau scored alone: its majorities without the other players (said in a column)
        assert rows[name]["tableaux"] == "1" and rows[name]["provisional"] == "yes"
    assert rows["notes.jpg"]["provisional"] == ""
    assert oct(out.stat().st_mode & 0o777) == oct(0o666 & ~_umask())  # (it was made executable)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_a_file_named_in_another_encoding_is_a_row_and_resumes(tmp_path, photo_set):
    # A zip made on a Czech Windows names its files in cp1250: not UTF-8. The batch stopped at
    # the first (UnicodeEncodeError), the rows after it never written, and --resume with it.
    folder = tmp_path / "zip"
    folder.mkdir()
    odd = os.fsdecode(b"hra_\xe8\xed\xb9\xeb.jpg")
    (folder / odd).write_bytes(photo_set[0].jpeg)
    (folder / "plain.jpg").write_bytes(photo_set[1].jpeg)
    for out, extra in ((tmp_path / "r.csv", ()), (tmp_path / "r.jsonl", ("--jsonl",))):
        r = batch(str(folder), "--out", str(out), *extra)
        assert r.returncode == 0 and "2 scored, 0 errors" in r.stderr, r.stderr[-2000:]
        out.read_bytes().decode("utf-8")  # UTF-8 text for any reader: the name's bytes escaped as Python does
        if extra:
            files = [json.loads(line)["file"] for line in out.read_text().splitlines()]
        else:
            files = [row["file"] for row in csv.DictReader(out.open(encoding="utf-8"))]
        assert sorted(files) == sorted([f"{folder}/hra_\\xe8\\xed\\xb9\\xeb.jpg", str(folder / "plain.jpg")])
        again = batch(str(folder), "--out", str(out), "--resume", *extra)
        assert again.returncode == 0 and "2 skipped" in again.stderr and "0 scored" in again.stderr, again.stderr


def test_a_cell_the_photo_did_not_show_is_a_question_not_an_empty_cell(tmp_path, photo_set):
    # The CSV wrote such a cell "." (empty), as `ecoscore read` did: the JSON says it is not known.
    folder = tmp_path / "photos"
    folder.mkdir()
    scene = next(s for s in photo_set if len(s.truth["tableaux"]) == 1)
    (folder / "cut.jpg").write_bytes(cut_through_right_column(scene))
    out = tmp_path / "results.csv"
    assert batch(str(folder), "--out", str(out)).returncode == 0
    row, = csv.DictReader(out.open())
    rows = row["grids"].split("/")
    assert len(rows) == 4 and sum(r.split().count("?") for r in rows) >= 1
    assert row["final"] == "no"  # a cell not known: the total is not final, said in a column of its own
    jsonl = tmp_path / "results.jsonl"
    assert batch(str(folder), "--out", str(jsonl), "--jsonl").returncode == 0
    player, = json.loads(jsonl.read_text())["game"]["players"]
    unknown = [cell for r in player["cells"] for cell in r if cell["unknown"]]
    assert unknown and all(cell["type"] is None and cell["doubts"] for cell in unknown)
    assert sum(r.split().count("?") for r in rows) == len(unknown)


def test_resume_skips_what_is_done_and_repairs_a_cut_line(tmp_path, photo_set):
    folder = make_folder(tmp_path, photo_set)
    out = tmp_path / "results.jsonl"
    first = batch(str(folder), "--out", str(out), "--jsonl")
    assert first.returncode == 0 and "skipped" not in first.stderr, first.stderr  # nothing to skip: not said
    lines = out.read_text().splitlines()
    # simulate an interruption: keep two results and half of the third line
    out.write_text("\n".join(lines[:2]) + "\n" + lines[2][: len(lines[2]) // 2])
    r = batch(str(folder), "--out", str(out), "--jsonl", "--resume")
    assert r.returncode == 0 and "2 skipped" in r.stderr
    results = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(x["file"] for x in results) == sorted(str(p) for p in folder.iterdir())
    ok = [x for x in results if x["status"] == "ok"]
    assert all("grid" in x["game"]["players"][0] and "doubts" in x["game"]["players"][0] for x in ok)


def test_glob_and_empty_target(tmp_path, photo_set):
    folder = make_folder(tmp_path, photo_set)
    out = tmp_path / "r.csv"
    assert batch(str(folder / "table*.jpg"), "--out", str(out)).returncode == 0
    assert len(list(csv.DictReader(out.open()))) == 3
    r = batch(str(tmp_path / "nothing*"), "--out", str(out))
    assert r.returncode == 2 and "no photos in" in r.stderr


def _rows(out):
    """The rows without their timings (the only thing two runs may differ in)."""
    return [{k: v for k, v in row.items() if k != "ms"} for row in csv.DictReader(out.open())]


def test_a_two_worker_local_cluster_writes_the_same_rows_and_resumes(tmp_path, photo_set):
    """Issue 19: the batch on Dask (a local cluster of two worker processes) scores the same rows,
    in the same order, as the plain batch, errors included, and resumes a cut run."""
    import pytest

    pytest.importorskip("distributed", reason="the distributed extra is not installed")
    folder = make_folder(tmp_path, photo_set)
    plain, spread = tmp_path / "plain.csv", tmp_path / "spread.csv"
    assert batch(str(folder), "--out", str(plain), "--workers", "2").returncode == 0
    r = batch(str(folder), "--out", str(spread), "--workers", "2", "--cluster", "local")
    assert r.returncode == 0, r.stderr
    assert _rows(spread) == _rows(plain) and len(_rows(plain)) == 5
    # cut after two rows and half a third: --resume on the cluster finishes it, the same rows again
    lines = spread.read_text().splitlines(keepends=True)
    spread.write_text("".join(lines[:3]) + lines[3][:10])
    r = batch(str(folder), "--out", str(spread), "--cluster", "local", "--resume")
    assert r.returncode == 0 and "2 skipped" in r.stderr, r.stderr
    assert _rows(spread) == _rows(plain)


def test_a_local_clusters_workers_keep_their_dask_logs_below_critical_to_themselves():
    # A worker whose heartbeat met the scheduler closing (a batch stopped by Ctrl-C) logged the
    # comm's traceback over the batch's word (a fresh clone's CI, now and then): LocalCluster's
    # silence_logs quiets a worker's handlers only until the worker starts closing.
    import logging

    import pytest

    pytest.importorskip("distributed", reason="the distributed extra is not installed")
    from ecoscore.batch.cluster import scores

    levels = list(scores(["a", "b"], lambda path: __import__("logging").getLogger("distributed.worker").getEffectiveLevel(),
                         lambda path, why: why, lambda: None, cluster="local", workers=1))
    assert levels == [logging.CRITICAL, logging.CRITICAL], levels


def test_a_photo_of_several_tableaux_names_each_doubts_tableau_in_the_csv():
    # "row 1, col 2: ..." of which tableau, the doubts column did not say (a newcomer's walk).
    from ecoscore.batch.run import csv_row

    def player(name, doubts):
        return {"name": name, "total": 40, "doubts": doubts, "confidence": 0.9, "grid": [], "cells": []}

    two = {"file": "a.jpg", "status": "ok", "ms": 1.0,
           "game": {"final": False, "provisional_majorities": False,
                    "players": [player("a-1", []), player("a-2", ["row 1, col 2: low confidence"])]}}
    assert csv_row(two)["doubts"] == "a-2: row 1, col 2: low confidence"
    one = {**two, "game": {"final": False, "provisional_majorities": True,
                           "players": [player("a", ["row 1, col 2: low confidence"])]}}
    assert csv_row(one)["doubts"] == "row 1, col 2: low confidence"  # one tableau: its file names it
    assert (csv_row(two)["provisional"], csv_row(one)["provisional"]) == ("no", "yes")
    # a doubt of the photo itself, which each tableau carries: once, first (copied under each: a walk)
    side = "11 cards lie side by side outside every tableau read"
    both = {**two, "game": {**two["game"], "players": [player("a-1", [side]), player("a-2", [side, "row 1, col 2: low"])]}}
    assert csv_row(both)["doubts"] == f"{side} | a-2: row 1, col 2: low"


def test_an_existing_results_file_is_kept_unless_resumed_or_replaced(tmp_path, photo_set):
    # A user's run: `batch dirA --out res.csv`, then `batch 'dirA/table*.jpg' --out res.csv` left
    # only the second run's rows.
    folder = make_folder(tmp_path, photo_set)
    out = tmp_path / "res.csv"
    assert batch(str(folder), "--out", str(out)).returncode == 0
    first = out.read_bytes()
    r = batch(str(folder / "table*.jpg"), "--out", str(out))
    assert r.returncode == 2 and r.stderr.strip() == (
        f"ecoscore: error: {out} exists already: --resume to score only the photos it lacks, --force to replace "
        "it, or give another file name")
    assert out.read_bytes() == first
    r = batch(str(folder), "--out", str(out), "--resume", "--force")  # one or the other
    assert r.returncode == 2 and "--force: not allowed with argument --resume" in r.stderr
    assert batch(str(folder / "table*.jpg"), "--out", str(out), "--force").returncode == 0
    assert sorted(Path(row["file"]).name for row in csv.DictReader(out.open())) == [
        "table0.jpg", "table1.jpg", "table2.jpg"]
    # --force replaces a results file, not a photo ("--out photos/table0.jpg --force": a newcomer's)
    photo = folder / "table0.jpg"
    kept = photo.read_bytes()
    r = batch(str(folder), "--out", str(photo), "--force")
    assert r.returncode == 2 and r.stderr.strip() == (
        f"ecoscore: error: {photo} is not a results file of ecoscore batch: --force replaces only a results file of "
        "batch; give another --out")
    assert photo.read_bytes() == kept
    # ... nor a labeller's JSON lines; but ours of any version, a spreadsheet's byte-order mark before it
    labels = tmp_path / "labels.jsonl"
    labels.write_text('{"file": "a.jpg", "label": "bear"}\n')
    assert batch(str(folder), "--out", str(labels), "--force", "--jsonl").returncode == 2
    first = tmp_path / "first.csv"
    first.write_bytes(b"\xef\xbb\xbffile,status,tableaux,totals,grids,doubts,confidence,error,ms\r\nx.jpg,ok,1,40,,,,,\r\n")
    assert batch(str(folder / "table0.jpg"), "--out", str(first), "--force").returncode == 0
    assert first.read_text().startswith("file,status,tableaux,totals,final,")
    # An unquoted glob, expanded by the shell: said so (it was "unrecognized arguments")
    r = batch(*sorted(str(p) for p in folder.glob("table*.jpg")), "--out", str(tmp_path / "g.csv"))
    assert r.returncode == 2 and "not 3 paths: give the folder (" + str(folder) + ")" in r.stderr, r.stderr
    assert not (tmp_path / "g.csv").exists()


def test_a_resumed_run_says_how_many_of_the_rows_it_skips_are_errors(tmp_path, photo_set):
    # A photo mended after its error row is not read again: "36 skipped" said nothing of it.
    folder = make_folder(tmp_path, photo_set)
    out = tmp_path / "r.csv"
    assert batch(str(folder), "--out", str(out)).returncode == 0
    r = batch(str(folder), "--out", str(out), "--resume", "--lang", "cs")
    assert r.returncode == 0 and ", 5 přeskočeno (už je v " in r.stderr and (
        ", z toho 2 chyby: smažte jejich řádky a soubory se přečtou znovu") in r.stderr, r.stderr


def test_resume_knows_the_folder_however_it_is_spelled_or_wherever_it_runs(tmp_path, photo_set):
    # `batch messy --out r.csv`, then `batch /abs/path/messy --out r.csv --resume` scored every
    # photo again and wrote each twice.
    make_folder(tmp_path, photo_set)
    out = tmp_path / "r.csv"
    assert batch("photos", "--out", "r.csv", cwd=tmp_path).returncode == 0
    rows = list(csv.DictReader(out.open()))
    # each file named by its absolute path: the same row whatever the spelling
    assert [row["file"] for row in rows] == [str(p) for p in sorted((tmp_path / "photos").iterdir())]
    for spelling, cwd in ((f"{tmp_path}/photos/", tmp_path), (".", tmp_path / "photos"),
                          ("../photos/*", tmp_path / "photos")):
        r = batch(spelling, "--out", str(out), "--resume", cwd=cwd)
        assert r.returncode == 0 and "5 skipped" in r.stderr and "0 scored" in r.stderr, (spelling, r.stderr)
    assert list(csv.DictReader(out.open())) == rows


def test_an_earlier_versions_relative_rows_resume_from_the_results_files_folder(tmp_path, photo_set):
    # Results files of earlier versions name each file as given ("photos/table0.jpg"): resumed
    # from another folder (`--out /abs/r.csv`), every photo was scored again.
    make_folder(tmp_path, photo_set)
    out = tmp_path / "r.csv"
    assert batch("photos", "--out", "r.csv", cwd=tmp_path).returncode == 0
    text = out.read_text().replace(f"{tmp_path}/", "")  # as an earlier version wrote it
    out.write_text(text)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    r = batch(str(tmp_path / "photos"), "--out", str(out), "--resume", cwd=elsewhere)
    assert r.returncode == 0 and "5 skipped" in r.stderr and "0 scored" in r.stderr, r.stderr
    assert out.read_text() == text


def test_a_results_file_another_run_is_writing_is_refused_and_each_photo_written_once(tmp_path, photo_set):
    # An organiser's two terminals: two `--resume` runs on one file each scored the photos it
    # lacked and wrote them twice (54 rows for 30 photos), and one cut a row of the other's off.
    folder = tmp_path / "photos"
    folder.mkdir()
    for k in range(60):
        (folder / f"t{k:02d}.jpg").write_bytes(photo_set[k % 3].jpeg)
    out = tmp_path / "r.csv"
    first = subprocess.Popen([sys.executable, "-m", "ecoscore", "batch", str(folder), "--out", str(out), "--workers", "1"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and (not out.exists() or out.read_text().count("\n") < 2):
            time.sleep(0.1)
        for extra in (["--resume"], ["--force"]):
            r = batch(str(folder), "--out", str(out), *extra)
            assert r.returncode == 2 and "is being written by another ecoscore batch" in r.stderr, r.stderr
    finally:
        _, err = first.communicate(timeout=600)
    assert first.returncode == 0, err
    rows = [row["file"] for row in csv.DictReader(out.open())]
    assert sorted(rows) == sorted(str(p) for p in folder.iterdir())  # each once, none lost
    r = batch(str(folder), "--out", str(out), "--resume")  # the lock goes with the run
    assert r.returncode == 0 and "60 skipped" in r.stderr, r.stderr


def test_a_cluster_that_cannot_be_used_is_said_and_leaves_no_file(tmp_path, photo_set):
    # A typo or an unreachable scheduler was a Dask traceback, exit 1, and left a results file
    # of only its header that refused the next run as "exists already" (an organiser's run).
    pytest.importorskip("distributed")
    folder = tmp_path / "photos"
    folder.mkdir()
    (folder / "a.jpg").write_bytes(photo_set[0].jpeg)
    out = tmp_path / "r.csv"
    r = batch(str(folder), "--out", str(out), "--cluster", "lokal", "--lang", "it")
    assert r.returncode == 2 and r.stderr.startswith("ecoscore: errore: --cluster accetta 'local' o ") and not out.exists()
    with socket.socket() as s:  # a port no scheduler listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "2s"}
    r = subprocess.run([sys.executable, "-m", "ecoscore", "batch", str(folder), "--out", str(out), "--cluster",
                        f"tcp://127.0.0.1:{port}"], capture_output=True, text=True, env=env)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr[-2000:]
    assert f"ecoscore: error: cannot reach the Dask scheduler at tcp://127.0.0.1:{port}: " in r.stderr
    assert not out.exists()
    assert batch(str(folder), "--out", str(out)).returncode == 0  # and the next run is not refused


def test_a_results_file_that_cannot_be_used_is_said_and_left_as_it_was(tmp_path, photo_set):
    # Each was a traceback: a folder that cannot be written, a full disk, a folder for --out, a
    # CSV resumed as JSON lines and JSON lines as a CSV.
    folder = tmp_path / "photos"
    folder.mkdir()
    (folder / "a.jpg").write_bytes(photo_set[0].jpeg)

    def refused(out, *extra) -> str:
        r = batch(str(folder), "--out", str(out), *extra)
        assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr[-2000:]
        return r.stderr.strip()

    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    if os.geteuid() != 0:  # (root writes anyway)
        assert refused(locked / "r.csv") == f"ecoscore: error: cannot write {locked / 'r.csv'}: permission denied"
    if Path("/dev/full").exists():
        assert refused("/dev/full") == "ecoscore: error: cannot write /dev/full: No space left on device"
    assert refused(tmp_path, "--force") == (
        f"ecoscore: error: {tmp_path} is a folder: give the results a file name, such as {tmp_path / 'results.csv'}")
    done_csv, done_jsonl = tmp_path / "done.csv", tmp_path / "done.jsonl"
    assert batch(str(folder), "--out", str(done_csv)).returncode == 0
    assert batch(str(folder), "--out", str(done_jsonl), "--jsonl").returncode == 0
    kept = {path: path.read_bytes() for path in (done_csv, done_jsonl)}
    assert refused(done_csv, "--resume", "--jsonl") == (
        f"ecoscore: error: cannot resume {done_csv}: it is a CSV file (leave out --jsonl)")
    assert refused(done_jsonl, "--resume") == (
        f"ecoscore: error: cannot resume {done_jsonl}: it holds JSON lines (add --jsonl)")
    notes = tmp_path / "notes.txt"
    notes.write_text("not ours")
    kept[notes] = notes.read_bytes()
    for out, extra in ((notes, ()), (notes, ("--jsonl",))):
        assert refused(out, "--resume", *extra) == (
            f"ecoscore: error: cannot resume {out}: it is not a results file of ecoscore batch (give another --out)")
    assert all(path.read_bytes() == data for path, data in kept.items())


def test_subfolders_are_scored_and_a_link_that_leads_nowhere_is_a_row_saying_so(tmp_path, photo_set):
    # A night's photos in DIR/sub/deeper/x.jpg got no row, and broken or looping links were left
    # out, the summary saying nothing of them.
    folder = make_folder(tmp_path, photo_set)
    (folder / "sub" / "deeper").mkdir(parents=True)
    (folder / "sub" / "deeper" / "x.jpg").write_bytes(photo_set[3].jpeg)
    (folder / ".thumbnails").mkdir()
    (folder / ".thumbnails" / "t.jpg").write_bytes(photo_set[4].jpeg)  # hidden: not a photo of the night
    (folder / "gone.jpg").symlink_to("nothere.jpg")
    (folder / "loop1").symlink_to("loop2")
    (folder / "loop2").symlink_to("loop1")
    (folder / "alias.jpg").symlink_to("table0.jpg")
    (folder / "elsewhere").symlink_to(tmp_path)  # a folder: not followed (it holds this folder too)
    out = tmp_path / "r.csv"
    r = batch(str(folder), "--out", str(out))
    assert r.returncode == 0, r.stderr
    rows = {os.path.relpath(row["file"], folder): row for row in csv.DictReader(out.open())}
    assert set(rows) == {"table0.jpg", "table1.jpg", "table2.jpg", "corrupt.jpg", "notes.jpg", "sub/deeper/x.jpg",
                         "gone.jpg", "loop1", "loop2", "alias.jpg", "elsewhere"}
    assert rows["sub/deeper/x.jpg"]["status"] == rows["alias.jpg"]["status"] == "ok"
    assert rows["gone.jpg"]["error"] == "a link to nowhere: nothere.jpg does not exist"
    assert rows["loop1"]["error"] == rows["loop2"]["error"] == "a link that leads round in a loop, to no file"
    assert rows["elsewhere"]["error"] == "a link to a folder, not followed: give batch that folder itself"
    ok = sum(row["status"] == "ok" for row in rows.values())
    assert r.stderr.strip().splitlines()[-1].startswith(f"ecoscore: {ok} scored, {len(rows) - ok} errors; ")


def test_a_run_resumed_with_another_deck_is_refused_and_an_earlier_versions_file_keeps_its_columns(tmp_path, photo_set):
    # Resumed with another deck, the rows read with the first were taken as done, and the file
    # mixed the two decks without a word (a newcomer's run). Each row now says its deck.
    folder = make_folder(tmp_path, photo_set)
    out = tmp_path / "r.csv"
    assert batch(str(folder), "--out", str(out)).returncode == 0
    rows = list(csv.DictReader(out.open()))
    assert {row["deck"] for row in rows} == {"standin"}
    before = out.read_text()
    r = batch(str(folder), "--out", str(out), "--resume", "--deck", "kitchen")
    assert r.returncode == 2 and "read with the deck 'standin', not 'kitchen'" in r.stderr, r.stderr
    assert "--deck standin" in r.stderr and out.read_text() == before
    # A file of an earlier version has no deck column: resumed in its own columns once the deck
    # its rows were read with is named (that version had --deck too, and could mix them so).
    lines = before.splitlines()
    # The version before this one, with a deck and no provisional column: resumed in its columns.
    previous = [line.rsplit(",", 1)[0] for line in lines[:3]]
    out.write_text("\r\n".join(previous) + "\r\n")
    r = batch(str(folder), "--out", str(out), "--resume")
    assert r.returncode == 0 and "2 skipped" in r.stderr, r.stderr
    resumed = list(csv.reader(out.open()))
    assert len(resumed) == 6 and all(len(row) == 11 for row in resumed) and "provisional" not in resumed[0]
    earlier = [line.rsplit(",", 2)[0] for line in lines[:3]]  # its header and two rows, no deck
    out.write_text("\r\n".join(earlier) + "\r\n")
    kept = out.read_bytes()
    r = batch(str(folder), "--out", str(out), "--resume")
    assert r.returncode == 2 and "written by an earlier version" in r.stderr and "--deck standin" in r.stderr, r.stderr
    assert out.read_bytes() == kept
    r = batch(str(folder), "--out", str(out), "--resume", "--deck", "standin")
    assert r.returncode == 0 and "2 skipped" in r.stderr, r.stderr
    resumed = list(csv.reader(out.open()))
    assert len(resumed) == 6 and all(len(row) == 10 for row in resumed) and "deck" not in resumed[0]


def test_an_earlier_versions_json_lines_resume_only_with_their_deck_named(tmp_path):
    # Rows of an earlier version say no deck: resumed with the default deck unnamed, a file read
    # with another could take in rows of two decks without a word (as a CSV could).
    from ecoscore.batch.results import Refused, Results
    out = tmp_path / "r.jsonl"
    text = json.dumps({"file": str(tmp_path / "a.jpg"), "status": "ok"}) + "\n"
    out.write_text(text)
    with pytest.raises(Refused, match="written by an earlier version.*--deck standin if none was given"):
        Results(out, jsonl=True, resume=True, deck="standin", deck_named=False)
    with Results(out, jsonl=True, resume=True, deck="kitchen", deck_named=True) as results:
        assert results.done == {str(tmp_path / "a.jpg")}
    # rows that say their deck resume with it unnamed, as before
    out.write_text(json.dumps({"file": str(tmp_path / "a.jpg"), "status": "ok", "deck": "standin"}) + "\n")
    with Results(out, jsonl=True, resume=True, deck="standin", deck_named=False) as results:
        assert results.done == {str(tmp_path / "a.jpg")}
    assert out.read_text().count("\n") == 1


def test_a_reader_failing_on_one_photo_is_that_photo_s_row_not_the_run_s_end(tmp_path, monkeypatch, capsys):
    # Only a bad image or no tableau were rows: any other error of the reader came back through
    # the pool and stopped every worker with a traceback (a review). It is the photo's row now,
    # the traceback kept on stderr for whoever reports it.
    from ecoscore.batch import run as batch

    class Failing:
        def read(self, data):
            raise RuntimeError("boom")

    photo = tmp_path / "a.jpg"
    photo.write_bytes(b"\xff\xd8 not much of a photo")
    monkeypatch.setattr(batch, "_reader", Failing())
    monkeypatch.setattr(batch, "_failed_in_a_row", 0)
    result = batch.score_file(str(photo))
    assert result["status"] == "error" and result["file"] == str(photo)
    assert result["error"] == "the reader failed on this photo (RuntimeError: boom): please report it with the photo"
    assert "RuntimeError: boom" in capsys.readouterr().err
    # ... but a reader failing on every photo is broken, not the photos: the run stops at the
    # third in a row (an error row for each photo left, which --resume skips, would lose them: a review)
    assert batch.score_file(str(photo))["status"] == "error"
    with pytest.raises(RuntimeError, match="boom"):
        batch.score_file(str(photo))
