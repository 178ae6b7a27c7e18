"""`ecoscore grid` as a user runs it: a real process, real files."""
import json
import subprocess
import sys

from conftest import needs_models
from helpers import EXAMPLES

from ecoscore.scoring import CardType


def run(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "ecoscore", *args], capture_output=True, text=True, input=stdin)


def test_example_game_json_matches_schema_and_rulebook():
    r = run("grid", *(str(EXAMPLES / f"{n}.txt") for n in ("alice", "bruno", "chiara")), "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert [p["name"] for p in doc["players"]] == ["alice", "bruno", "chiara"]
    assert [p["total"] for p in doc["players"]] == [50, 36, 43]
    assert doc["winners"] == ["alice"]
    for p in doc["players"]:
        assert set(p["cards"]) == {c.value for c in CardType}
        assert p["bot"] is False
        assert p["total"] == sum(p["cards"].values()) + p["biodiversity"]
        assert len(p["grid"]) == 4 and all(len(row) == 5 for row in p["grid"])


def test_two_players_without_a_neutral_pile_are_told_the_rules_give_them_one():
    # Scored alone against each other, two grids named a winner the neutral pile may change (the
    # rules' two-player game has one): said, in the player's language; not with a pile, or three.
    alice, bruno = str(EXAMPLES / "alice.txt"), str(EXAMPLES / "bruno.txt")
    r = run("grid", alice, bruno, "--lang", "cs")
    assert r.returncode == 0 and r.stderr.strip() == (
        "poznámka: dva hráči hrají s neutrálním hráčem, který se účastní většin potoků a vlků: zadejte --neutral "
        "POTOKY,VLCI (jeho karty potoků a vlků) pro hru dvou hráčů podle pravidel"), r.stderr
    for extra in (["--neutral", "4,2"], [str(EXAMPLES / "chiara.txt")]):
        r = run("grid", alice, bruno, *extra)
        assert r.returncode == 0 and r.stderr == "", r.stderr


def test_score_pad_text_and_explanations():
    r = run("grid", str(EXAMPLES / "alice.txt"), "--explain")
    assert r.returncode == 0
    assert "total" in r.stdout and "provisional" in r.stdout
    # Her two dragonflies: one on the largest stream (3 cards), one between it and a lone stream.
    assert "row 1, col 3:   3  an adjacent stream group of 3 cards (row 1, col 4; row 1, col 5; row 2, col 4)" in r.stdout
    assert "row 2, col 3:   4  adjacent stream groups of 1 + 3 cards" in r.stdout


def test_explanations_say_where_each_group_lies(tmp_path):
    grid = tmp_path / "meadows.txt"  # six lone meadows, one pair, two wolves
    grid.write_text("meadow stream meadow wolf fox\nbear meadow trout stream meadow\n"
                    "rabbit eagle deer bee dragonfly\nmeadow wolf stream meadow meadow\n")
    r = run("grid", str(grid), "--explain")
    assert r.returncode == 0
    lone = [line for line in r.stdout.splitlines() if "1 meadow in a group: 0" in line]
    assert [line.split(":")[0].split("meadow", 1)[1].strip() for line in lone] == [
        "row 1, col 1", "row 1, col 3", "row 2, col 2", "row 2, col 5", "row 4, col 1"]
    assert "2 meadows in a group: 3 (row 4, col 4; row 4, col 5)" in r.stdout
    assert "2 wolves: 1st place for most wolves, 12 (provisional: the other players are not known) " \
           "(row 1, col 4; row 4, col 2)" in r.stdout


def test_names_neutral_others_and_bot(tmp_path):
    a = str(EXAMPLES / "alice.txt")
    r = run("grid", a, str(EXAMPLES / "bruno.txt"), "--name", "Ann", "--name", "Ben", "--neutral", "6,3", "--json")
    doc = json.loads(r.stdout)
    assert [p["name"] for p in doc["players"]] == ["Ann", "Ben"]
    assert doc["neutral"] == {"streams": 6, "wolves": 3}
    assert [p["cards"]["stream"] for p in doc["players"]] == [0, 5]  # the pile's 6 streams take first
    r = run("grid", a, "--others", "5:2,3:0", "--json")
    doc = json.loads(r.stdout)
    assert doc["provisional_majorities"] is False and doc["players"][0]["cards"]["stream"] == 5
    bot = tmp_path / "bot.txt"
    bot.write_text("RB . . . .\n. . . . .\n. . . . .\n. . . . .\n")
    doc = json.loads(run("grid", a, "--bot", str(bot), "--json").stdout)
    assert doc["players"][-1]["bot"] is True and doc["players"][-1]["name"] == "bot"
    assert doc["solo"] == {"margin": 52, "outcome": "remarkable"}


def test_the_pad_names_what_else_ranked_in_the_majorities():
    # Two players and the neutral pile: Bruno's 3 streams were "2nd place" and Alice's "3rd" with
    # no one shown in 1st (a rules check): the pile's figures are said under the pad.
    a, b = str(EXAMPLES / "alice.txt"), str(EXAMPLES / "bruno.txt")
    r = run("grid", a, b, "--neutral", "5,2")
    assert ("neutral pile: streams 5, wolves 2 (its streams one group): in the stream and wolf majorities, "
            "scoring nothing") in r.stdout
    r = run("grid", a, b, "--neutral", "5,2", "--lang", "cs")
    assert "neutrální hráč: potoky 5, vlci 2 (jeho potoky jako jedna oblast)" in r.stdout
    r = run("grid", a, "--others", "5:2,3:0", "--lang", "it")
    assert r.stdout.count("un altro giocatore: ruscello più lungo") == 2 and "ruscello più lungo 3, lupi 0" in r.stdout
    assert "neutral" not in run("grid", a, "--others", "5:2").stdout


def test_stdin_grid():
    r = run("grid", "-", "--json", stdin="RB RB . . .\n. . . . .\n. . . . .\n. . . . .\n")
    assert r.returncode == 0 and json.loads(r.stdout)["players"][0]["cards"]["rabbit"] == 2


def test_bad_input_exits_2_with_a_message(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("RB RB RB RB RB\nRB XX RB RB RB\n. . . . .\n. . . . .\n")
    r = run("grid", str(bad))
    assert r.returncode == 2 and "row 2, cell 2: unknown card 'XX'" in r.stderr and not r.stdout
    r = run("grid", str(tmp_path / "missing.txt"))
    assert r.returncode == 2 and r.stderr == f"ecoscore: error: no such file: {tmp_path / 'missing.txt'}\n"
    r = run("grid", str(EXAMPLES / "alice.txt"), "--neutral", "three")
    assert r.returncode == 2 and "--neutral" in r.stderr
    r = run("grid", str(EXAMPLES / "alice.txt"), str(EXAMPLES / "alice.txt"))
    assert r.returncode == 2 and "repeated: alice" in r.stderr
    # A photo given where a grid file goes (the bot's; `deck add --grid` reads grids the same way):
    # a UnicodeDecodeError's traceback before
    photo = tmp_path / "bot.jpg"
    photo.write_bytes(b"\xff\xd8\xff\xe0" + bytes(range(256)))
    r = run("grid", str(EXAMPLES / "alice.txt"), "--bot", str(photo))
    assert r.returncode == 2 and "--bot: " in r.stderr and "bot.jpg: not a text file" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def test_output_cut_short_by_its_reader_stops_quietly():
    # `ecoscore grid ... --json | head -c 200` ended in a BrokenPipeError traceback.
    game = [str(EXAMPLES / f"{name}.txt") for name in ("alice", "bruno")]
    p = subprocess.Popen([sys.executable, "-m", "ecoscore", "grid", *game, "--json"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdout.close()  # the reader is gone before the first line is written
    err = p.stderr.read().decode()
    assert p.wait() == 141 and "Traceback" not in err, err


def test_batch_and_eval_say_when_the_folder_does_not_exist(tmp_path, capsys):
    # They said "no files in ..." and "has no truth/ folder" for a folder that is not there.
    from ecoscore.cli import main

    assert main(["batch", str(tmp_path / "nosuch"), "--out", str(tmp_path / "r.csv")]) == 2
    assert "no such folder" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main(["batch", str(tmp_path / "empty"), "--out", str(tmp_path / "r.csv")]) == 2
    assert "no photos in" in capsys.readouterr().err
    assert main(["eval", str(tmp_path / "nosuch")]) == 2
    assert "no such folder" in capsys.readouterr().err


def test_counts_below_one_and_a_busy_port_exit_2_at_once(tmp_path):
    # `synth --n -1` wrote 0 images and exited 0; `serve` on a taken port loaded the models for
    # ~20 s, then exited 3 with uvicorn's error (a newcomer's run).
    import socket

    r = run("synth", "--n", "-1", "--out", str(tmp_path / "x"))
    assert r.returncode == 2 and "--n: -1: give 1 or more" in r.stderr and not (tmp_path / "x").exists()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        r = run("serve", "--port", str(port))
    assert r.returncode == 2 and f"cannot serve on 127.0.0.1:{port}" in r.stderr and "--port" in r.stderr
    assert "starting on" not in r.stderr


def test_a_solo_game_says_its_outcome_not_a_winner_over_the_higher_total():
    # "winner: bot" above alice's 50 and the bot's 36 read as a bug (a newcomer's walk): a solo
    # game is won by 30 or more ahead of the bot, and its own line says so.
    out = run("grid", str(EXAMPLES / "alice.txt"), "--bot", str(EXAMPLES / "bruno.txt")).stdout
    assert "winner" not in out
    assert "solo: 14 points ahead of the bot: lost (a win needs 30 or more ahead)" in out


def test_score_with_an_overlay_onto_a_file_says_so_and_leaves_the_file(tmp_path, photo_set):
    # `ecoscore score a.jpg --overlay some_file` was a FileExistsError traceback.
    photo, mine = tmp_path / "a.jpg", tmp_path / "notes.txt"
    photo.write_bytes(photo_set[0].jpeg)
    mine.write_text("mine")
    r = run("score", str(photo), "--overlay", str(mine))
    assert r.returncode == 2 and r.stderr == (
        f"ecoscore: error: --overlay {mine} is a file: give a folder to write the pictures into\n")
    r = run("score", str(photo), "--overlay", str(mine), "--lang", "it")
    assert r.returncode == 2 and r.stderr == (
        f"ecoscore: errore: --overlay {mine} è un file: indica una cartella in cui scrivere le immagini\n")
    assert mine.read_text() == "mine"


@needs_models
def test_score_with_an_overlay_under_a_file_says_it_cannot_write_there(tmp_path, photo_set):
    # (a NotADirectoryError traceback, after the photo was read)
    photo, mine = tmp_path / "a.jpg", tmp_path / "notes.txt"
    photo.write_bytes(photo_set[0].jpeg)
    mine.write_text("mine")
    r = run("score", str(photo), "--overlay", str(mine / "pictures"))
    assert r.returncode == 2 and r.stderr.splitlines()[-1] == (
        f"ecoscore: error: cannot write {mine / 'pictures' / 'a.overlay.jpg'}: Not a directory")
