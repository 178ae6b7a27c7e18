"""The commands in the player's language: the score pad, the reason for every point, the doubts
and the errors, as the page and the API say them (one catalogue); chosen by --lang or the shell."""
import argparse
import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers import EXAMPLES

from ecoscore.cli.common import positive_int
from ecoscore.cli.language import Words, chosen_lang
from ecoscore.scoring import CardType, Tableau, explain, score_game, score_pad
from ecoscore.service import i18n, translation

# English words of the pad and the explanation that no translation keeps (player names here are
# "p0".."p3", so none of them is one; "solo" is also Italian, for "only").
_ENGLISH = re.compile(r"\b(winners?|leading|not final|check|doubts?|cells?|unknown|scored|photo|grid|tableau|"
                      r"incomplete|empty|warning|note|provisional|ahead|behind|level|lost|win|remarkable|"
                      r"legendary|types?|nothing|none|biodiversity|total|adjacent|meadows?|wolf|wolves|bears?|"
                      r"bees?|trout|streams?|dragonfl\w+|rabbits?|deer|cards?|row|col|place)\b|^solo:", re.M)

_ENGLISH_ARGPARSE = re.compile(r"\b(arguments|invalid|choice|choose|expected|one|required|unrecognized|"
                               r"ambiguous|could|match|whole|number|give|more)\b")


def _run(*args, env=None, terminal=False):
    """The command's run; ``terminal``: its stderr a terminal's (a pseudo-terminal), as a player's is,
    where the batch draws its progress bar (to a pipe or a log it draws none)."""
    if not terminal:
        return subprocess.run([sys.executable, "-m", "ecoscore", *args], capture_output=True, text=True, env=env,
                              timeout=300)
    import fcntl
    import os
    import pty
    import struct
    import termios

    main, side = pty.openpty()
    fcntl.ioctl(side, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # (0 columns: no bar drawn)
    try:
        run = subprocess.run([sys.executable, "-m", "ecoscore", *args], stdout=subprocess.PIPE, stderr=side,
                             env=env, timeout=300)
        os.close(side)
        said = b""
        while True:
            try:
                chunk = os.read(main, 65536)
            except OSError:  # (the terminal's other side closed: all is read)
                break
            if not chunk:
                break
            said += chunk
    finally:
        os.close(main)
    return subprocess.CompletedProcess(run.args, run.returncode, run.stdout.decode(), said.decode())


def test_the_language_is_the_option_then_ours_then_the_shells():
    from ecoscore.cli.language import LANG_CHOICES

    assert set(LANG_CHOICES) == set(i18n.LANGS)  # every language the page speaks, the commands speak
    assert chosen_lang("it", {"ECOSCORE_LANG": "cs", "LANG": "ru_RU.UTF-8"}) == "it"
    assert chosen_lang(None, {"ECOSCORE_LANG": "cs", "LANG": "ru_RU.UTF-8"}) == "cs"
    assert chosen_lang(None, {"LANG": "ru_RU.UTF-8"}) == "ru"
    assert chosen_lang(None, {"LC_ALL": "it_IT.UTF-8", "LANG": "cs_CZ.UTF-8"}) == "it"  # LC_ALL first
    assert chosen_lang(None, {"LC_MESSAGES": "cs_CZ.UTF-8", "LANG": "en_GB.UTF-8"}) == "cs"
    assert chosen_lang(None, {"LANGUAGE": "de:ru", "LANG": "de_DE.UTF-8"}) == "ru"  # gettext's list, first spoken
    assert chosen_lang(None, {"LANGUAGE": "ru", "LANG": "C.UTF-8"}) == "en"  # ... but not under the C locale
    assert chosen_lang(None, {"LANG": "de_DE.UTF-8"}) == "en"  # a language we do not speak
    assert chosen_lang(None, {"ECOSCORE_LANG": "xx", "LANG": "cs_CZ"}) == "cs"
    assert chosen_lang(None, {}) == "en"


def _random_game(rng: random.Random):
    """A game of 1-4 players, or solo, with reads that doubt some cells, know none of others, doubt
    the photo, and a deck over-full (three tableaux of 20 wolves)."""
    kind = rng.choice(["game", "game", "solo", "alone", "overfull"])
    n = {"game": rng.randint(2, 4), "solo": 1, "alone": 1, "overfull": 3}[kind]
    cards = [*CardType, None]
    players = [(f"p{i}", Tableau([CardType.WOLF] * 20 if kind == "overfull" else [rng.choice(cards) for _ in range(20)]))
               for i in range(n)]
    bot = Tableau([rng.choice(cards) for _ in range(20)]) if kind == "solo" else None
    game = score_game(players, bot=bot)
    reads = []
    for _ in players:
        doubted = rng.sample(range(20), rng.choice([0, 0, 1, 3]))
        unknown = set(rng.sample(doubted, min(len(doubted), rng.choice([0, 1, 2]))))
        cells = [[{"doubts": ["row 1, col 1: low confidence"] if r * 5 + c in doubted else [],
                   "unknown": r * 5 + c in unknown} for c in range(5)] for r in range(4)]
        reads.append({"cells": cells, "doubts": ["the photo is blurred"] if rng.random() < 0.3 else []})
    return game, reads


@pytest.mark.parametrize("lang", ["cs", "ru", "it"])
def test_every_line_of_the_pad_and_every_point_explained_is_said_in_the_players_language(lang):
    """Random games: each line the pad and the explanation say is a message of the catalogue
    (none passes in English), and what comes out holds no English word; the numbers stay."""
    rng = random.Random(11)
    words = Words(lang)
    said: set[str] = set()

    def say(text: str) -> str:
        found = translation.match(text)
        assert found is not None, text
        said.add(found[0])
        return words.say(text)

    for _ in range(120):
        game, reads = _random_game(rng)
        for k, text in enumerate([score_pad(game, reads, say=say, label=words.label),
                                  *(explain(p, say=say, label=words.label) for p in game.players)]):
            out = re.sub(r"\bp\d\b|\bbot\b", "", text)  # player names, and the solo bot's column
            assert not _ENGLISH.search(out), (lang, _ENGLISH.search(out), text)
            numbers = re.findall(r"-?\d+", score_pad(game, reads) if k == 0 else explain(game.players[k - 1]))
            assert re.findall(r"-?\d+", text) == numbers  # the same points, in the same places
    pad_keys = {key for key in said if key.startswith("api.pad_")}
    assert len(pad_keys) >= 15, sorted(pad_keys)  # the winner, the leader, the doubts, solo, notes, warnings...


def test_a_game_from_grid_files_in_czech_as_the_player_reads_it():
    english = _run("grid", *(str(EXAMPLES / f"{n}.txt") for n in ("alice", "bruno")), "--explain")
    czech = _run("grid", *(str(EXAMPLES / f"{n}.txt") for n in ("alice", "bruno")), "--explain", "--lang", "cs")
    assert english.returncode == czech.returncode == 0, czech.stderr
    lines = czech.stdout.splitlines()
    assert lines[2].split() == ["medvěd", "4", "0"] and "celkem            50      36" in lines
    assert "vítěz: alice" in lines
    assert "  jelen      3 karty          :  12  2 × (3 + 3; řady s jelenem: 1, 2, 4; " \
           "sloupce s jelenem: 1, 2, 3) (řada 1, sloupec 2; řada 2, sloupec 1; řada 4, sloupec 3)" in lines
    assert "  zajíc      řada 2, sloupec 1:   1  1 bod za zajíce" in lines
    assert re.findall(r"-?\d+", czech.stdout) == re.findall(r"-?\d+", english.stdout)


def test_the_shells_locale_chooses_the_language_and_an_error_is_said_in_it(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("ECOSCORE_LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES")}
    r = _run("grid", str(EXAMPLES / "alice.txt"), str(tmp_path / "nothere.txt"), env={**env, "LANG": "ru_RU.UTF-8"})
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.strip() == f"ecoscore: ошибка: нет такого файла: {tmp_path / 'nothere.txt'}"
    photo = tmp_path / "photo.jpg"
    photo.write_bytes(b"\xff\xd8 not a photo")
    r = _run("grid", str(EXAMPLES / "alice.txt"), "--bot", str(photo), env={**env, "LANG": "it_IT.UTF-8"})
    assert r.returncode == 2
    assert r.stderr.strip() == (f"ecoscore: errore: --bot: {photo}: non è un file di testo "
                                "(una griglia è fatta di 4 righe di 5 nomi di carte)")
    r = _run("grid", str(EXAMPLES / "alice.txt"), env={**env, "LANG": "C.UTF-8"})
    assert r.returncode == 0 and "total" in r.stdout  # the C locale is English


def test_a_photo_scored_and_read_in_italian_with_its_doubts(tmp_path, photo_set):
    path = tmp_path / "anna.jpg"
    path.write_bytes(photo_set[0].jpeg)
    english = _run("score", str(path), "--json")
    italian = _run("score", str(path), "--json", "--lang", "it")
    assert english.returncode == italian.returncode == 0, italian.stderr
    en, it = json.loads(english.stdout), json.loads(italian.stdout)
    assert [p["total"] for p in it["players"]] == [p["total"] for p in en["players"]]
    assert it["players"][0]["doubts"] == [translation.translate(d, "it") for d in en["players"][0]["doubts"]]
    assert set(it["players"][0]) == set(en["players"][0])  # the keys stay: a JSON answer is data
    pad = _run("score", str(path), "--lang", "it")
    assert pad.returncode == 0, pad.stderr
    assert "totale" in pad.stdout and "total " not in pad.stdout
    for doubt in en["players"][0]["doubts"]:
        assert f"dubbio (anna): {translation.translate(doubt, 'it')}" in pad.stdout
    read = _run("read", str(path), "--lang", "it")
    assert read.returncode == 0, read.stderr
    comment = next(line for line in read.stdout.splitlines() if line.startswith("# letto da "))
    assert re.search(r"sicurezza \d+%, quella della casella meno sicura \(riga \d, colonna \d", comment)
    grid = tmp_path / "anna.txt"
    grid.write_text(read.stdout, encoding="utf-8")  # the grid itself stays in the format `grid` reads
    again = _run("grid", str(grid), "--json")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["players"][0]["total"] == en["players"][0]["total"]


def test_a_batch_writes_its_doubts_and_errors_in_the_players_language(tmp_path, photo_set):
    import csv

    folder = tmp_path / "photos"
    folder.mkdir()
    (folder / "a.jpg").write_bytes(photo_set[1].jpeg)
    (folder / "broken.jpg").write_bytes(b"not a photo at all")
    english, czech = tmp_path / "en.csv", tmp_path / "cs.csv"
    assert _run("batch", str(folder), "--out", str(english), "--workers", "1").returncode == 0
    r = _run("batch", str(folder), "--out", str(czech), "--workers", "1", "--lang", "cs")
    assert r.returncode == 0, r.stderr
    en, cs = (list(csv.DictReader(path.open(encoding="utf-8"))) for path in (english, czech))
    assert [row["file"] for row in cs] == [row["file"] for row in en] and list(cs[0]) == list(en[0])  # columns stay
    for a, b in zip(en, cs):
        assert (b["totals"], b["grids"], b["final"]) == (a["totals"], a["grids"], a["final"])  # data stays
        assert b["error"] == translation.translate(a["error"], "cs")
        assert b["doubts"] == " | ".join(translation.translate(d, "cs") for d in a["doubts"].split(" | ")) if a["doubts"] else True
    broken = next(row for row in cs if row["file"].endswith("broken.jpg"))
    assert broken["status"] == "error" and broken["error"] and broken["error"] != next(
        row for row in en if row["file"].endswith("broken.jpg"))["error"]


# What `batch` said in English in a run in Italian (a user's run): its progress bar, its summary,
# its refusals. Options (--resume) and paths are left out before looking ("file" is Italian too).
_ENGLISH_BATCH = re.compile(r"\b(scor\w*|errors?|photos?|skipped|already|such|folder|glob|finds|exists|"
                            r"give|replace|lacks|another|name)\b")
_BATCH_SAID = {
    "en": (r"1 scored, 1 error; \d+\.\d\d photos/s", "0 scored, 0 errors, 2 skipped (already in OUT), 1 of them an "
           "error: delete its row to read that file again"),
    "cs": (r"1 fotka vyhodnocena, 1 chyba; \d+,\d\d fotky/s", "0 fotek vyhodnoceno, 0 chyb, 2 přeskočeny (už jsou v OUT), "
           "z toho 1 chyba: smažte její řádek a soubor se přečte znovu"),
    "ru": (r"посчитано 1 фото, 1 ошибка; \d+,\d\d фото/с", "посчитано 0 фото, 0 ошибок, пропущено 2 (уже есть в OUT), "
           "из них с ошибкой: 1 — удалите строки с ошибками, чтобы прочитать эти файлы заново"),
    "it": (r"1 foto valutata, 1 errore; \d+,\d\d foto/s", "0 foto valutate, 0 errori, 2 saltate (già in OUT), di cui 1 "
           "con errore: cancella la sua riga per rileggere il file"),
}


@pytest.mark.parametrize("lang", ["en", "cs", "ru", "it"])
def test_a_batchs_own_lines_are_said_in_the_players_language(tmp_path, photo_set, lang):
    folder, out = tmp_path / "night", tmp_path / "r.csv"
    folder.mkdir()
    (folder / "a.jpg").write_bytes(photo_set[1].jpeg)
    (folder / "broken.jpg").write_bytes(b"not a photo at all")

    def said(*args: str, code: int = 0, terminal: bool = False) -> list[str]:
        r = _run("batch", *args, "--workers", "1", "--lang", lang, terminal=terminal)
        assert r.returncode == code, r.stderr[-2000:]
        text = r.stderr.replace(str(folder), "DIR").replace(str(out), "OUT").replace(str(tmp_path), "TMP")
        lines = [line for line in re.split(r"[\r\n]+", text) if line]
        if lang != "en":
            assert not [line for line in lines if _ENGLISH_BATCH.search(re.sub(r"--\w+", "", line))], lines
        return lines

    scoring, done = said(str(folder), "--out", str(out), terminal=True), _BATCH_SAID[lang]
    label = {"en": "scoring", "cs": "vyhodnocuji", "ru": "подсчёт", "it": "valutazione"}[lang]
    assert scoring[:-1] and all(f"{label}: " in line for line in scoring[:-1])  # the progress bar
    assert re.fullmatch(f"ecoscore: {done[0]}", scoring[-1]), scoring[-1]  # "1 errors" was wrong in English too
    assert said(str(folder), "--out", str(out), "--resume")[-1] == f"ecoscore: {done[1]}"
    for refused in (said(str(tmp_path / "nic"), "--out", str(out), code=2),
                    said(str(tmp_path / "nic*"), "--out", str(out), code=2),
                    said(str(folder), "--out", str(out), code=2)):
        assert len(refused) == 1 and refused[0].startswith(i18n.fill(lang, "cli.error", error=""))


def test_the_deck_commands_speak_the_players_language_and_their_refusals_too(tmp_path, monkeypatch, capsys):
    from ecoscore.cli import main
    from ecoscore.vision.deckstore import DeckStore

    monkeypatch.setenv("ECOSCORE_DATA", str(tmp_path))
    store = DeckStore(tmp_path / "decks")
    crops = {card: [np.full((90, 60, 3), 20 * i + k, np.uint8) for k in range(2 if card is CardType.FOX else 1)]
             for i, card in enumerate(CardType)}
    store.add("kuchyn", crops, "folder karty", title="Naše kuchyň")
    store.add("half", {CardType.FOX: crops[CardType.FOX]}, "the page", partial=True)

    def said(*args: str, code: int = 0) -> list[str]:
        assert main([*args]) == code
        out = capsys.readouterr()
        return (out.out + out.err).splitlines()

    listed = said("deck", "list", "--lang", "cs")
    assert listed[0].split() == ["standin", "22", "předloh", "(vestavěný,", "výchozí)"]
    assert listed[1].split()[:3] == ["half", "2", "předlohy"] and listed[1].endswith(
        "(zatím nic nepřečte: chybí zajíc, pstruh, medvěd, vážka, včela, orel, vlk, jelen, potok, louka)")
    assert listed[2] == 'kuchyn                 12 předloh  „Naše kuchyň“'  # in the language's quotes, as its messages
    shown = said("deck", "show", "kuchyn", "--lang", "ru")
    assert shown[0] == 'колода kuchyn «Naše kuchyň»'
    assert "  лиса       2 образца" in shown and "  орёл       1 образец" in shown
    assert shown[-1] == "  откуда: папка karty"  # the folder's name as written
    zipped = tmp_path / "kuchyn.zip"
    assert said("deck", "export", "kuchyn", str(zipped), "--lang", "it") == [f"scritto: {zipped}"]
    assert said("deck", "export", "kuchyn", str(zipped), "--lang", "it", code=2) == [
        f"ecoscore: errore: {zipped} esiste già: indica un altro nome di file, oppure --force per sostituirlo"]
    assert said("deck", "import", str(zipped), "--lang", "cs", code=2) == [
        "ecoscore: chyba: balíček „kuchyn“ už existuje: nejdřív ho odstraňte, nebo ho importujte pod jiným názvem (--name NÁZEV)"]
    assert said("deck", "import", str(zipped), "--name", "druhy", "--lang", "cs") == [
        'importován balíček druhy: 12 předloh',
        "jeho jméno „Naše kuchyň“ už tu má balíček kuchyn: tato kopie se jmenuje druhy"]
    assert said("deck", "forget-last", "druhy", "--lang", "ru") == [
        "колода druhy: последнее добавление отменено; оно было первым, поэтому колода удалена"]
    assert said("deck", "remove", "kuchyn", "--lang", "it") == ["mazzo kuchyn rimosso"]
    assert said("deck", "remove", "standin", "--lang", "cs", code=2) == [
        "ecoscore: chyba: „standin“ je vestavěný balíček: odstranit ho nelze"]
    # ... with the key to use instead, and the name as typed for its title (a Czech walk: "kuchyň" refused, no more said)
    assert said("deck", "add", "Kuchyn", str(tmp_path), "--lang", "ru", code=2) == [
        "ecoscore: ошибка: имя колоды «Kuchyn»: используйте от 1 до 40 строчных латинских букв, цифр, «-» или «_» "
        '(например kuchyn, с --title Kuchyn для названия, которое видят игроки)']
    assert said("deck", "add", "Naše kuchyň", str(tmp_path), "--lang", "cs", code=2) == [
        "ecoscore: chyba: název balíčku „Naše kuchyň“: použijte 1–40 malých písmen bez diakritiky (a–z), číslic, „-“ nebo "
        "„_“ (třeba nase-kuchyn, s --title 'Naše kuchyň' pro jméno, které uvidí hráči)"]
    assert said("deck", "add", "日本", str(tmp_path), "--lang", "it", code=2) == [  # nothing to make a key of: no key
        "ecoscore: errore: nome del mazzo «日本»: usa da 1 a 40 lettere minuscole senza accenti (a–z), cifre, «-» o «_»"]
    assert said("deck", "add", "ok", "--lang", "it", code=2) == [
        "ecoscore: errore: indica una CARTELLA di immagini delle carte, oppure --photo P.jpg --grid G.txt"]
    assert said("deck", "list")[0].split()[1:3] == ["22", "references"]  # English, as before


def test_a_grid_and_a_decks_own_cards_disagreeing_is_said_cell_by_cell():
    english = ("kitchen.jpg: the grid and deck mine's own cards disagree: row 1 col 2: the grid says fox, this deck's "
               "cards say bee (87%); row 3 col 4: the grid says deer, this deck's cards say not ours (40%): check the "
               "grid there (two cards swapped?); nothing was added (--force adds it as its grid says)")
    assert translation.translate(english, "cs") == (
        "kitchen.jpg: mřížka nesouhlasí s vlastními kartami balíčku mine: řada 1 sloupec 2: mřížka říká liška, karty tohoto "
        "balíčku včela (87\u00a0%); řada 3 sloupec 4: mřížka říká jelen, karty tohoto balíčku cizí karta (40\u00a0%): "
        "zkontrolujte tam mřížku (dvě karty prohozené?); nic nebylo přidáno (--force fotku přidá podle její mřížky)")


def test_a_mistyped_command_is_told_in_the_players_language_with_its_usage(monkeypatch, capsys):
    from ecoscore.cli import main

    def refused(*argv: str) -> list[str]:
        with pytest.raises(SystemExit) as stop:
            main(list(argv))
        assert stop.value.code == 2
        out = capsys.readouterr()
        assert out.out == ""
        return out.err.splitlines()

    said = refused("score", "--lang", "cs")
    assert said[0].startswith("použití: ecoscore score [-h]") and said[-1] == "ecoscore score: chyba: chybí tyto argumenty: PHOTO"
    said = refused("synth", "--out", "x", "--n", "0", "--lang=it")
    assert said[-1] == "ecoscore synth: errore: argomento --n: 0: indica 1 o più"
    monkeypatch.setenv("ECOSCORE_LANG", "ru")
    said = refused("scor")
    assert said[0].startswith("использование: ecoscore [-h]")
    assert said[-1].startswith("ecoscore: ошибка: неизвестная команда 'scor' (выберите из: 'grid', ")
    assert refused("deck")[-1] == (
        "ecoscore deck: ошибка: укажите команду: add, list, show, remove, forget-last, export, import")
    monkeypatch.setenv("ECOSCORE_LANG", "en")
    said = refused("score", "--lang", "cs", "--bogus", "x.jpg")  # --lang is read before the line is parsed
    # ... by the command's own parser, with its usage (not ecoscore's list of commands)
    assert said[0].startswith("použití: ecoscore score [-h]") and said[-1] == "ecoscore score: chyba: neznámé argumenty: --bogus"
    said = refused("deck", "add", "mine", "--potho", "p.jpg")
    assert said[0].startswith("usage: ecoscore deck add [-h]") and said[-1] == (
        "ecoscore deck add: error: unrecognized arguments: --potho p.jpg")
    said = refused("score")  # English as argparse says it
    assert said[0].startswith("usage: ecoscore score") and said[-1] == (
        "ecoscore score: error: the following arguments are required: PHOTO")


def test_every_usage_error_argparse_words_is_matched():
    # Each of argparse's wordings, as this Python words it: a new wording would pass in English.
    from ecoscore.cli.parser import said

    class Caught(Exception):
        pass

    class Recording(argparse.ArgumentParser):
        def error(self, message):
            raise Caught(message)

    parser = Recording(prog="p")
    parser.add_argument("--colour", choices=["red"])
    parser.add_argument("--count", type=int)
    parser.add_argument("--alpha")
    parser.add_argument("--alps")
    parser.add_argument("--many", nargs="+")
    parser.add_argument("--n", type=positive_int)
    parser.add_argument("need")
    either = parser.add_mutually_exclusive_group()
    either.add_argument("--resume", action="store_true")
    either.add_argument("--force", action="store_true")
    czech = Words("cs")
    for argv in (["--colour", "blue", "x"], ["--count", "x", "y"], ["--al", "1", "x"], ["--many"], ["--alpha"],
                 [], ["x", "y"], ["--n", "two", "x"], ["--n", "-3", "x"], ["--resume", "--force", "x"]):
        with pytest.raises(Caught) as caught:
            parser.parse_args(argv)
        message = str(caught.value)
        assert said(message, czech) != message and not _ENGLISH_ARGPARSE.search(said(message, czech)), message
    assert said("something argparse never said", czech) == "something argparse never said"


def test_the_keepers_commands_say_what_they_did_and_why_not_in_the_players_language(tmp_path, monkeypatch, capsys):
    import socket

    from ecoscore.cli import main
    from ecoscore.service.store import Store

    monkeypatch.setenv("ECOSCORE_DATA", str(tmp_path))
    db = f"sqlite:///{tmp_path / 'rooms.sqlite3'}"
    Store(db).close()  # the service's database, as its first start makes it
    assert main(["rooms", "prune", "--db", db, "--days", "1.5", "--lang", "ru"]) == 0
    assert capsys.readouterr().err.strip() == (  # which database is said: the default may not be the one meant
        f"ecoscore: из {db} удалено 0 комнат, неактивных 1,5 дн. и дольше (игроков: 0, изображений распознавания: 0)")
    # Without --db, where the service never ran (it serves on PostgreSQL): refused, no file made
    monkeypatch.delenv("ECOSCORE_DB_URL", raising=False)
    assert main(["rooms", "prune", "--lang", "it"]) == 2
    assert capsys.readouterr().err.startswith("ecoscore: errore: nessun database in ")
    assert not list((tmp_path / "service").glob("*.sqlite3")) if (tmp_path / "service").exists() else True
    # A database the line names wrongly is said, not made (a mistyped path made a folder and an
    # empty database, and "deleted 0 rooms"), nor a traceback (an organiser's run, in Italian)
    (tmp_path / "notes.txt").write_text("not a database")
    for url, said in ((f"sqlite:///{tmp_path / 'romos' / 'rooms.sqlite3'}", f"nessun database in {tmp_path / 'romos' / 'rooms.sqlite3'}: "
                       "controlla l'URL di --db (sqlite:///PERCORSO, postgresql://…)"),
                      ("foo://bar", "non è l'URL di un database che ecoscore conosce: 'foo://bar' (sqlite:///PERCORSO o postgresql://UTENTE@HOST/NOME)"),
                      (f"sqlite:///{tmp_path / 'notes.txt'}", f"sqlite:///{tmp_path / 'notes.txt'}: non è il database del servizio "
                       "(file is not a database)")):
        assert main(["rooms", "prune", "--db", url, "--lang", "it"]) == 2
        assert capsys.readouterr().err.strip() == f"ecoscore: errore: {said}"
    assert not (tmp_path / "romos").exists()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--host", "127.0.0.1", "--port", str(port), "--lang", "cs"]) == 2
    said = capsys.readouterr().err.strip()
    assert said.startswith(f"ecoscore: chyba: na 127.0.0.1:{port} nelze spustit službu: ") and said.endswith(
        "(běží na tom portu jiný server? zvolte jiný přes --port)")


def test_the_language_may_come_before_the_command_and_a_bad_setting_or_file_is_said_not_a_traceback(
        tmp_path, monkeypatch, capsys):
    # A newcomer's run: `ecoscore --lang ru deck list` was refused ("invalid choice: 'ru'"), and
    # an export into a folder that does not exist, onto a folder, a port of 99999 and -1 days
    # were tracebacks.
    from ecoscore.cli import main
    from ecoscore.vision.deckstore import DeckStore

    monkeypatch.setenv("ECOSCORE_DATA", str(tmp_path))
    store = DeckStore(tmp_path / "decks")
    store.add("kuchyn", {card: [np.full((90, 60, 3), 20 * i, np.uint8)] for i, card in enumerate(CardType)}, "test")
    assert main(["--lang", "ru", "deck", "list"]) == 0
    assert capsys.readouterr().out.splitlines()[0].split()[1:3] == ["22", "образца"]
    assert main(["deck", "--lang", "it", "show", "kuchyn"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "mazzo kuchyn"

    def refused(*argv: str) -> str:
        try:
            code = main(list(argv))
        except SystemExit as stop:
            code = stop.code
        assert code == 2
        return capsys.readouterr().err.strip().splitlines()[-1]

    assert refused("deck", "export", "kuchyn", str(tmp_path / "nothere" / "k.zip"), "--lang", "cs") == (
        f"ecoscore: chyba: {tmp_path / 'nothere' / 'k.zip'} nelze zapsat: jeho složka {tmp_path / 'nothere'} neexistuje")
    assert refused("deck", "export", "kuchyn", str(tmp_path), "--force") == (
        f"ecoscore: error: {tmp_path} is a folder: give the export a file name, such as {tmp_path / 'kuchyn.zip'}")
    # A device, a pipe: refused even with --force (as root, /dev/full was replaced by a zip: an attack)
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    assert refused("deck", "export", "kuchyn", str(pipe), "--force", "--lang", "ru") == (
        f"ecoscore: ошибка: {pipe} — не обычный файл (устройство, канал или сокет): укажите для экспорта имя файла, "
        f"например {Path.cwd() / 'kuchyn.zip'}")
    assert pipe.exists() and not pipe.is_file()
    assert refused("deck", "import", str(pipe), "--lang", "it") == (  # (it was "no such file")
        f"ecoscore: errore: {pipe} non è un file normale (un dispositivo, una pipe o un socket): indica un'esportazione "
        "di un mazzo, un file .zip")
    assert refused("deck", "show", "nic", "--lang", "it") == (
        "ecoscore: errore: nessun mazzo «nic»; aggiungilo con `ecoscore deck add` (i mazzi qui: standin, kuchyn)")
    friend = tmp_path / "friend.zip"
    friend.write_bytes(b"a friend's export")
    monkeypatch.setattr("ecoscore.vision.deck_archive.cv2.imencode", _full_disk)  # the disk fills mid-export
    assert refused("deck", "export", "kuchyn", str(friend), "--force").endswith("No space left on device")
    assert friend.read_bytes() == b"a friend's export" and [p.name for p in tmp_path.iterdir() if ".part" in p.name] == []
    assert refused("rooms", "prune", "--days", "-1", "--lang", "ru") == (
        "ecoscore rooms prune: ошибка: аргумент --days: -1: укажите 0 дней или больше")
    assert refused("serve", "--port", "99999", "--lang", "it") == (
        "ecoscore serve: errore: argomento --port: 99999: una porta va da 0 a 65535")
    monkeypatch.setenv("ECOSCORE_PORT", "99999")
    assert refused("serve", "--lang", "cs").startswith("ecoscore: chyba: nastavení port (ECOSCORE_PORT): ")


def _full_disk(*args):
    raise OSError(28, "No space left on device")


def test_a_photo_that_is_a_folder_or_a_looping_link_is_said_in_the_players_words(tmp_path, monkeypatch, capsys):
    # "cannot read messy: Is a directory", "...: Too many levels of symbolic links": the system's
    # English words after Italian ones (an organiser's run, in Italian)
    from ecoscore.cli import main

    monkeypatch.setenv("ECOSCORE_DATA", str(tmp_path / "data"))
    (tmp_path / "photos").mkdir()
    (tmp_path / "one.jpg").symlink_to(tmp_path / "two.jpg")
    (tmp_path / "two.jpg").symlink_to(tmp_path / "one.jpg")
    for path, said in ((tmp_path / "photos", "è una cartella"), (tmp_path / "one.jpg", "i suoi collegamenti rimandano in cerchio")):
        assert main(["score", str(path), "--lang", "it"]) == 2
        assert capsys.readouterr().err.strip() == f"ecoscore: errore: impossibile leggere {path}: {said}" + (
            "" if "cartella" in said else " a se stessi")


def test_two_phones_photos_of_one_file_name_are_told_to_be_renamed(tmp_path, monkeypatch, capsys):
    # "player names must differ; repeated: IMG_0001": two phones' photos, and nothing said of
    # their files (an organiser's run, in Italian); a folder given to `deck import`: "no such file"
    from ecoscore.cli import main

    monkeypatch.setenv("ECOSCORE_DATA", str(tmp_path / "data"))
    for phone in ("a", "b"):
        (tmp_path / phone).mkdir()
        (tmp_path / phone / "IMG_0001.jpg").write_bytes(b"\xff\xd8 not read")
    assert main(["score", str(tmp_path / "a" / "IMG_0001.jpg"), str(tmp_path / "b" / "IMG_0001.jpg"), "--lang", "it"]) == 2
    assert capsys.readouterr().err.strip() == (
        "ecoscore: errore: le foto con lo stesso nome sono un solo giocatore: IMG_0001; i giocatori prendono il nome dai "
        "file delle loro foto: rinominane una, ad esempio IMG_0001-2.jpg")
    assert main(["deck", "import", str(tmp_path / "a"), "--lang", "it"]) == 2
    assert capsys.readouterr().err.strip() == f"ecoscore: errore: impossibile leggere {tmp_path / 'a'}: è una cartella"


def test_days_are_written_as_a_person_writes_them(tmp_path, monkeypatch, capsys):
    # "da 1e+11 giorni" (an organiser's run, in Italian)
    from ecoscore.cli import main
    from ecoscore.service.store import Store

    monkeypatch.setenv("ECOSCORE_DATA", str(tmp_path))
    db = f"sqlite:///{tmp_path / 'rooms.sqlite3'}"
    Store(db).close()
    for days, said in (("99999999999", "99999999999"), ("1.5", "1,5"), ("0", "0")):
        assert main(["rooms", "prune", "--db", db, "--days", days, "--lang", "it"]) == 0
        assert f" da {said} giorni o più " in capsys.readouterr().err


def test_an_ecoscore_lang_we_do_not_speak_is_said_not_passed_over(monkeypatch, capsys):
    """ECOSCORE_LANG=de: the command speaks the shell's language, and says why, once."""
    from ecoscore.cli import main

    monkeypatch.setenv("ECOSCORE_LANG", "de")
    monkeypatch.setenv("LANG", "it_IT.UTF-8")
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    assert main(["deck", "list"]) == 0
    out = capsys.readouterr()
    assert "riferimenti" in out.out  # the shell's Italian
    assert out.err.splitlines() == [
        "ecoscore: ECOSCORE_LANG=de non è una lingua che ecoscore parla (en, cs, ru, it): parla quella della shell, altrimenti inglese"]
    assert main(["deck", "list", "--lang", "en"]) == 0  # a language chosen on the line: nothing to say
    assert capsys.readouterr().err == ""
    monkeypatch.setenv("ECOSCORE_LANG", "cs_CZ.UTF-8")
    assert main(["deck", "list"]) == 0
    assert capsys.readouterr().err == ""
