"""`ecoscore batch --xlsx`: the CSV's rows as a workbook that opens alike in every Excel."""
import csv
import subprocess
import sys
import zipfile

import pytest
from conftest import needs_models
from openpyxl import Workbook, load_workbook

from ecoscore.batch.results import Refused
from ecoscore.batch.workbook import CREATOR, check_workbook, write_workbook


def batch(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "ecoscore", "batch", *args], capture_output=True, text=True, cwd=cwd)


def _one_photo(tmp_path, photo_set):
    folder = tmp_path / "photos"
    folder.mkdir()
    (folder / "a.jpg").write_bytes(photo_set[0].jpeg)
    return folder


def _csv(path, rows):
    with path.open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerows(rows)


def test_numbers_are_numbers_and_every_text_is_text(tmp_path):
    out = tmp_path / "r.csv"
    _csv(out, [["file", "status", "tableaux", "totals", "confidence", "ms", "doubts"],
               ["=HYPERLINK(\"http://x\")1.jpg", "ok", "1", "37", "0.768", "533.9", "řada 1, sloupec 2: ёж"],
               ["two.jpg", "ok", "2", "50;36", "0.912;0.700", "61.0", ""],
               ["bell\x07.jpg", "error", "", "", "", "nan", "not an image"],
               ["odd\ufffe.jpg", "error", "", "", "", "", "not an image"],  # (UTF-8, not XML: a review)
               ["cr\rlf\n.jpg", "error", "", "", "", "", "not an image"]])  # (a CR read back as LF: a review)
    assert write_workbook(out, tmp_path / "r.xlsx") == 5
    book = load_workbook(tmp_path / "r.xlsx")
    rows = list(book["results"].iter_rows(values_only=True))
    # a total and a confidence a column for each tableau, a number each (a text "50;36" could not
    # be summed: an Italian walk)
    assert rows[0] == ("file", "status", "tableaux", "total 1", "total 2", "confidence 1", "confidence 2", "ms", "doubts")
    assert rows[1] == ('=HYPERLINK("http://x")1.jpg', "ok", 1, 37, None, 0.768, None, 533.9, "řada 1, sloupec 2: ёж")
    assert book["results"]["A2"].data_type == "s"  # a name, not a formula Excel would run
    assert rows[2][3:7] == (50, 36, 0.912, 0.7)
    assert rows[3][0] == "bell\\x07.jpg" and rows[3][7] == "nan"  # XML takes no bell; NaN is no number
    assert rows[4][0] == "odd\\ufffe.jpg" and rows[5][0] == "cr\\rlf\n.jpg"
    assert book.properties.creator == CREATOR and book["results"].freeze_panes == "A2"


def test_a_workbook_is_in_its_readers_words(tmp_path):
    # An Italian player's workbook had English headings, "yes"/"no" and card names: the CSV keeps
    # them (a record programs read), the workbook says them in the player's language.
    from ecoscore.batch.workbook import Wording

    out = tmp_path / "r.csv"
    _csv(out, [["file", "status", "totals", "final", "grids"],
               ["one.jpg", "ok", "37", "yes", "bear . fox/? meadow"], ["bad.jpg", "error", "", "", ""]])
    words = Wording("risultati", {"file": "file", "status": "stato", "total": "totale", "final": "definitivo"},
                    {"ok": "ok", "error": "errore", "yes": "sì"}, {"bear": "orso", "fox": "volpe", "meadow": "prato"}.get)
    assert write_workbook(out, tmp_path / "r.xlsx", words) == 2
    rows = list(load_workbook(tmp_path / "r.xlsx")["risultati"].iter_rows(values_only=True))
    assert rows == [("file", "stato", "totale", "definitivo", "grids"), ("one.jpg", "ok", 37, "sì", "orso . volpe/? prato"),
                    ("bad.jpg", "errore", None, None, None)]


def test_a_file_that_is_not_ours_is_refused_before_anything_is_read(tmp_path):
    out = tmp_path / "r.csv"
    theirs = tmp_path / "budget.xlsx"
    Workbook().save(theirs)
    before = theirs.read_bytes()
    for xlsx, jsonl, said in ((theirs, False, "budget.xlsx exists and is not a workbook of ecoscore batch"),
                              (tmp_path / "r.xls", False, "a workbook's name ends in .xlsx"),
                              (out, False, "a workbook's name ends in .xlsx"),
                              (tmp_path / "r.xlsx", True, "leave out --jsonl"),
                              (tmp_path / "r.xlsx", False, None)):
        if said is None:  # --out named as a workbook: the results file is not replaced by one
            xlsx, out = tmp_path / "r.xlsx", tmp_path / "." / "r.xlsx"
            said = r"--xlsx and --out name one file"
        with pytest.raises(Refused, match=said):
            check_workbook(xlsx, out, jsonl=jsonl)
    assert theirs.read_bytes() == before
    out = tmp_path / "r.csv"
    (tmp_path / "r.csv.xlsx").write_bytes(b"PK\x03\x04 not a zip")  # half a file: not ours either
    with pytest.raises(Refused, match="not a workbook of ecoscore batch"):
        check_workbook(tmp_path / "r.csv.xlsx", out, jsonl=False)
    # ours is replaced, whole: no scratch file left beside it
    _csv(out, [["file", "status"], ["a.jpg", "ok"]])
    write_workbook(out, tmp_path / "ours.xlsx")
    check_workbook(tmp_path / "ours.xlsx", out, jsonl=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["budget.xlsx", "ours.xlsx", "r.csv", "r.csv.xlsx"]
    with zipfile.ZipFile(tmp_path / "ours.xlsx") as z:
        assert z.testzip() is None
    # a workbook replaced keeps its mode; one behind a link is replaced where the link leads (the
    # link itself was replaced by a file: a review)
    (tmp_path / "ours.xlsx").chmod(0o640)
    write_workbook(out, tmp_path / "ours.xlsx")
    assert (tmp_path / "ours.xlsx").stat().st_mode & 0o777 == 0o640
    shared = tmp_path / "shared"
    shared.mkdir()
    (tmp_path / "ours.xlsx").rename(shared / "book.xlsx")
    (tmp_path / "link.xlsx").symlink_to(shared / "book.xlsx")
    _csv(out, [["file", "status"], ["a.jpg", "ok"], ["b.jpg", "ok"]])
    check_workbook(tmp_path / "link.xlsx", out, jsonl=False)
    assert write_workbook(out, tmp_path / "link.xlsx") == 2
    assert (tmp_path / "link.xlsx").is_symlink() and len(list(load_workbook(shared / "book.xlsx")["results"].rows)) == 3


@needs_models
@pytest.mark.slow
def test_a_batch_writes_its_rows_as_a_workbook_and_a_resumed_run_all_of_them(tmp_path, photo_set):
    folder = _one_photo(tmp_path, photo_set)
    (folder / "notes.jpg").write_text("not a photo")
    out, xlsx = tmp_path / "r.csv", tmp_path / "book" / "r.xlsx"  # its folder made, as --out's is
    r = batch(str(folder), "--out", str(out), "--xlsx", str(xlsx), "--workers", "1", "--lang", "cs")
    assert r.returncode == 0, r.stderr
    assert f"ecoscore: {xlsx}: tytéž řádky jako sešit pro Excel (řádků: 2)" in r.stderr
    (folder / "b.jpg").write_bytes(photo_set[1].jpeg)
    r = batch(str(folder), "--out", str(out), "--xlsx", str(xlsx), "--workers", "1", "--resume")
    assert r.returncode == 0, r.stderr
    assert f"ecoscore: {xlsx}: the same 3 rows as a workbook for Excel" in r.stderr
    with out.open(encoding="utf-8", newline="") as f:
        want = {row["file"]: row for row in csv.DictReader(f)}
    got = list(load_workbook(xlsx)["results"].iter_rows(values_only=True))
    header, rows = got[0], {row[0]: dict(zip(got[0], row, strict=True)) for row in got[1:]}
    assert list(header) == [name if name != "totals" else "total" for name in next(iter(want.values()))]
    assert set(rows) == set(want)
    for name, row in want.items():
        assert rows[name]["status"] == row["status"]
        if row["status"] == "ok":
            assert rows[name]["total"] == int(row["totals"]) and rows[name]["grids"] == row["grids"]
        else:
            assert rows[name]["error"] == row["error"] == "není to obrázek (očekává se JPEG, PNG, WebP nebo HEIC)"


@needs_models
@pytest.mark.slow
def test_a_workbook_that_cannot_be_written_is_said_before_the_photos_are_read(tmp_path, photo_set):
    folder = _one_photo(tmp_path, photo_set)
    (tmp_path / "file").write_text("a file, not a folder")
    out = tmp_path / "r.csv"
    r = batch(str(folder), "--out", str(out), "--xlsx", str(tmp_path / "file" / "r.xlsx"))
    assert r.returncode == 2 and "ecoscore: error: cannot write" in r.stderr, r.stderr
    assert not out.exists()  # nothing read, nothing written
    # a run refused for its results file makes no folder for its workbook (a review)
    out.write_text("file,status\n")
    r = batch(str(folder), "--out", str(out), "--xlsx", str(tmp_path / "new" / "deeper" / "r.xlsx"))
    assert r.returncode == 2 and "exists already" in r.stderr and not (tmp_path / "new").exists(), r.stderr
