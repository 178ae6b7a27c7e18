"""Photos as players take them (issue #15): the steep split's renderer, the lattice under strong
perspective, no phantom tableaux, and retake advice."""
from pathlib import Path

import cv2
import numpy as np
import pytest
from conftest import needs_models

from ecoscore.datasets.deck import load_deck
from ecoscore.datasets.scene import SceneParams, hard_params, render_scene, steep_params
from ecoscore.datasets.truth import detections_from_truth, fully_visible
from ecoscore.vision import advice
from ecoscore.vision.lattice import fit_tableaux


@pytest.fixture(scope="module")
def deck():
    return load_deck("standin")


def test_normal_and_hard_splits_render_as_before(deck):
    """The steep split's effects draw from their own stream: the held-out normal and hard sets
    (and every figure measured on them) stay what they were. Photo 3 of each test set, as
    rendered before the steep split existed: byte for byte with OpenCV up to 5.0 (sha256
    fdc47a7e… and baa1acfb…); OpenCV 5.1 rounds a few pixels differently (at most 7 levels, 0.001
    on average), so a fresh install failed on the bytes. Compared now with the picture, kept
    small in tests/data: another stream's draws move cards and light by far more."""
    for name, params, seed in (("normal-2001-3", SceneParams(long_side=1600), (2001, 3)),
                               ("hard-2002-3", hard_params(long_side=1600), (2002, 3))):
        photo = cv2.imdecode(np.frombuffer(render_scene(deck, seed, params).jpeg, np.uint8), cv2.IMREAD_COLOR)
        small = cv2.resize(photo, (200, 150), interpolation=cv2.INTER_AREA).astype(int)
        before = cv2.imread(str(Path(__file__).parent / "data" / f"render-{name}.png")).astype(int)
        off = np.abs(small - before)
        assert off.mean() < 0.5 and np.percentile(off, 99.9) <= 8, (name, off.mean(), off.max())


def test_steep_split_has_low_cameras_strong_foreshortening_and_neighbours(deck):
    elevations, squeeze, neighbours, sleeves = [], [], 0, 0
    for i in range(16):
        truth = render_scene(deck, (15, i), steep_params(long_side=480)).truth
        elevations.append(truth["camera"]["elevation_deg"])
        tab = truth["tableaux"][0]
        areas = [abs(cv2.contourArea(np.float32(c["cell_corners"]))) for c in tab["cells"]]
        squeeze.append(max(areas) / min(areas))
        neighbours += any(t["neighbour"] for t in truth["tableaux"])
        sleeves += "sleeves" in truth["table_extras"]
    assert 25 <= min(elevations) and max(elevations) <= 55 and min(elevations) < 35
    # Near cells several times the far ones' area: true perspective (normal and hard test sets: at most 2.9)
    assert max(squeeze) > 4 and np.median(squeeze) > 2.5
    assert neighbours >= 3 and sleeves >= 4


def test_a_neighbour_can_be_laid_as_close_as_players_sit(deck):
    """``neighbour_gap_mm``: the neighbour's tableau, placed near (``neighbour_reach``), moved out
    only until it lies that far from the player's (2 cm in the splits). The same scene, the same
    camera and neighbour: laid 3 mm off, it lies nearer in the photo, never farther."""
    def apart(gap):
        truth = render_scene(deck, (4017, k), steep_params(long_side=640, p_neighbour=1.0, neighbour_gap_mm=gap,
                                                           neighbour_reach=(0.4, 0.6))).truth
        if len(truth["tableaux"]) < 2:  # (a neighbour behind the camera is not drawn)
            return None
        mine, theirs = ([np.array(c["cell_corners"]).reshape(-1, 2) for c in tab["cells"]] for tab in truth["tableaux"][:2])
        a, b = np.concatenate(mine), np.concatenate(theirs)
        return np.linalg.norm(a[:, None] - b[None], axis=2).min()

    nearer = 0
    for k in range(10):
        close, usual = apart(3.0), apart(20.0)
        if close is None or usual is None:
            continue
        assert close <= usual + 1e-6
        nearer += close < usual
    assert nearer >= 5


def test_perfect_boxes_of_steep_tableaux_fit_their_lattice(deck):
    """Given each card's true oriented box, the fit puts every card of a steep tableau in its
    own cell. (With cells allowed to differ at most 4x in area, as before: 12 of the 22 in view.)"""
    ok = total = 0
    params = steep_params(long_side=960, p_neighbour=0.0, p_occluder=0.0, photometric=False, loose_cards=(0, 0),
                          clutter=(0, 0))
    for i in range(24):
        truth = render_scene(deck, (1515, i), params).truth
        tab = truth["tableaux"][0]
        if not fully_visible(tab, truth["width"], truth["height"]):
            continue
        total += 1
        det = detections_from_truth(truth)
        fits, _ = fit_tableaux(det, (truth["width"], truth["height"]))
        if not fits:
            continue
        centres = {(c["row"], c["col"]): np.mean(c["corners"], 0) for c in tab["cells"] if c["corners"]}
        placed = {}
        for key, cell in fits[0].cells.items():
            if cell.detection is not None:
                p = det.centers[cell.detection]
                placed[key] = min(centres, key=lambda k: np.linalg.norm(centres[k] - p))
        # each truth card in exactly one cell, and neighbours kept as neighbours
        same_shape = all((abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1) == (abs(placed[a][0] - placed[b][0])
                         + abs(placed[a][1] - placed[b][1]) == 1) for a in placed for b in placed)
        ok += len(set(placed.values())) == len(centres) == len(placed) and same_shape
    assert total >= 18 and ok >= total - 2, f"{ok} of {total}"


def test_every_advice_is_one_template_whose_parameters_come_back():
    filled = {a.key: a(**{name: 7 for name in a.fields}) for a in advice.ALL}
    assert len(filled) == len(advice.ALL)  # keys are unique
    for a in advice.ALL:
        found, params = advice.which(filled[a.key])
        assert found is a and params == {name: "7" for name in a.fields}
    assert advice.which("row 1, col 2: low confidence: bear 50 %, or fox 40 %") is None


@needs_models
def test_a_play_mat_with_no_cards_is_no_tableau(reader, deck):
    """Printed card slots, checks and stripes in perspective, with every cell of the tableau
    empty: whatever the finder boxes, no player's tableau is reported; a refusal for a grid of
    boxes that read as no card says that no cards may lie there, not only "enrol your deck"."""
    from ecoscore.vision.refusals import NoTableauError

    params = steep_params(long_side=1600, p_world_table=1.0, world_kinds=("mat", "checks"), p_hole=1.0, min_holes=20, max_holes=20,
                          p_neighbour=0.0, loose_cards=(0, 0))
    grids = 0
    for i in range(6):
        scene = render_scene(deck, (2121, i), params)
        assert all(c["type"] is None for c in scene.truth["tableaux"][0]["cells"])
        try:
            read = reader.read(scene.jpeg)
        except NoTableauError as err:
            if "a grid of" in str(err):
                grids += 1
                assert "if no cards lie there (a play mat's printed slots" in str(err)
            continue
        assert read.tableaux == [], (i, [t.doubts for t in read.tableaux])
    assert grids >= 1  # seeds 2, 3 and 5 box the slots as a grid: the message above is exercised


def test_a_lattice_of_one_look_never_named_surely_is_a_pattern():
    """A pattern's repeats read alike: 20 cells of one type, none sure, is no player; a real
    tableau shows several types or names some card surely, and a handful of cards of one type
    may be a mid-game tableau."""
    from ecoscore.vision.photo_doubts import ONE_LOOK_CELLS, ONE_LOOK_SURE, PatternGrid, one_look

    assert one_look([("stream", 0.6)] * 20) == PatternGrid(20, "stream")
    assert one_look([("stream", ONE_LOOK_SURE - 0.01)] * ONE_LOOK_CELLS) == PatternGrid(ONE_LOOK_CELLS, "stream")
    assert one_look([("stream", 0.6)] * (ONE_LOOK_CELLS - 1)) is None
    assert one_look([("stream", 0.6)] * 19 + [("stream", ONE_LOOK_SURE)]) is None
    assert one_look([("stream", 0.6)] * 19 + [("trout", 0.6)]) is None
    assert one_look([]) is None


def test_a_lattice_set_aside_is_said_only_with_boxes_enough_and_some_cards_named_surely():
    from ecoscore.vision.lattice import MIN_CARDS
    from ecoscore.vision.photo_doubts import UNREAD_GRID_SURE, UnreadGrid, unread_grid

    assert unread_grid(MIN_CARDS, UNREAD_GRID_SURE) == UnreadGrid(MIN_CARDS, UNREAD_GRID_SURE)
    assert unread_grid(MIN_CARDS - 1, UNREAD_GRID_SURE) is None  # a few boxes: loose cards
    assert unread_grid(20, UNREAD_GRID_SURE - 1) is None  # a cloth's checks, a mat's slots: no card named surely


def test_a_tableau_beside_one_read_well_is_set_aside_when_few_of_its_cards_are_boxed_and_most_cells_doubted():
    from ecoscore.vision.photo_doubts import MISREAD_BOXES, MISREAD_DOUBTED, UnreadGrid, misread_beside, unread_doubt

    assert misread_beside(MISREAD_BOXES - 1, MISREAD_DOUBTED, 2 * (MISREAD_BOXES - 1))
    assert not misread_beside(MISREAD_BOXES, 20, 20)  # boxes enough: read, with its doubts
    assert not misread_beside(8, MISREAD_DOUBTED - 1, 20)  # mostly sure: read
    assert not misread_beside(8, 20, 15)  # beside nothing read much better: read (a photo of two far ones)
    assert unread_doubt(UnreadGrid(8, 6, 13)) == ("a grid of 8 cards was found, but 13 of its 20 cells are in doubt, so it "
                                                  "was not scored as a player: if it is a player's tableau, photograph it "
                                                  "alone, or closer")


@needs_models
def test_a_far_dark_tableau_set_aside_is_said_and_no_score_of_the_photo_is_final(reader, deck, tmp_path):
    """Hard tuning photo 4002/59: four tableaux, the far dark one boxed as 8 cards of which 4 named
    surely, set aside (too few for a tableau) without a word. The other three were scored as the
    whole game: majorities without a player. Now the photo says so, and the game is not final.
    (The counts are the finder's and the classifier's on the edge: 9 boxes and 3 sure in float32,
    8 and 4 in bfloat16; a fresh clone's run on a CPU without bfloat16 failed on the exact text.)"""
    import re

    from fastapi.testclient import TestClient

    from ecoscore.service.app import Settings, create_app

    scene = render_scene(deck, (4002, 59), hard_params(long_side=1600))
    assert len(scene.truth["tableaux"]) == 4
    read = reader.read(scene.jpeg)
    said = [d for d in read.doubts if d.startswith("a grid of ")]
    # On the edge the CPU and the classifier decide: the far tableau boxed as 8-13 cards of which 2-4
    # named surely (set aside for too few sure cards; 12 and 3 in float32 since the classifier
    # shown the second renderer's photos, 13 and 4 since the dim photo's stretched look finds
    # more of its cards), or as 10-12 with most cells in doubt beside
    # three read well (set aside for that, bfloat16), or as 12 and read (a fourth tableau full of
    # doubts); the classifier shown the second renderer's photos sets a second dim tableau aside
    # too (10 cards, 4 sure; with its partner shown them too, 11 cards, 2 sure). Never dropped in
    # silence: every tableau is read or said.
    if len(read.tableaux) == 4:
        assert said == [] and any(sum(c.confidence < 0.9 for c in t.cells) >= 10 for t in read.tableaux)
    else:
        assert len(read.tableaux) + len(said) == 4 and len(said) in (1, 2), read.doubts
        for doubt in said:
            assert re.fullmatch(r"a grid of (?:(?:[89]|1[0-3]) cards was found, but only [2-4] of them read surely as "
                                r"cards|1[0-1] cards was found, but 1[2-9] of its 20 cells are in doubt), so "
                                r"it was not scored as a player: if it is a player's tableau, photograph "
                                r"it alone, or closer", doubt), read.doubts
    with TestClient(create_app(Settings(db_url=f"sqlite:///{tmp_path / 's.sqlite3'}"), reader=reader)) as client:
        answer = client.post("/api/photo?lang=cs", files={"photo": ("table.jpg", scene.jpeg, "image/jpeg")}).json()
    assert not answer["final"]
    if said:
        assert all(re.search(r"byla nalezena mřížka (?:(?:[89]|1[0-3]) karet, ale jistě se jako karty přečetla jen část z nich \([2-4]\)|"
                             r"1[0-1] karet, ale nejistých je 1[2-9] z jejích 20 políček)", " ".join(p["doubts"]))
                   for p in answer["players"])
    # The command line says it once, of the photo (it said it under each of its three players).
    import subprocess
    import sys

    photo = tmp_path / "game.jpg"
    photo.write_bytes(scene.jpeg)
    r = subprocess.run([sys.executable, "-m", "ecoscore", "score", str(photo)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert [line for line in r.stdout.splitlines() if line.startswith("doubt (game): a grid of ")] == \
        ["doubt (game): " + d for d in said]
    assert "not final: game-1" in r.stdout


@needs_models
def test_a_play_mats_slots_beside_a_tableau_are_not_a_second_player(reader, deck):
    """Steep tuning photo 4016/93: a tableau on a play mat whose printed slots, dark green, were
    boxed as 20 cards and read as a second player of 20 doubted streams (50-65 %). One player."""
    from ecoscore.datasets.truth import truth_tableau
    from ecoscore.vision.evaluate import match_read

    scene = render_scene(deck, (4016, 93), steep_params(long_side=1600))
    assert len(scene.truth["tableaux"]) == 1
    read = reader.read(scene.jpeg)
    assert len(read.tableaux) == 1
    truth = truth_tableau(scene.truth["tableaux"][0])
    placed = match_read(read.tableaux[0], scene.truth["tableaux"][0])  # the read may be the grid turned
    assert placed is not None and len(placed) == 20
    assert all(read.tableaux[0].cells[i].type == truth.at(*rc) for i, rc in placed.items())
    # ... and where the slots' grid is read as one card throughout, it is said, not dropped
    # silently: were they a player's cards, the game would lack a player. In the player's language
    # too. (The classifier shown the second renderer's photos, 2026-12-03, names no card in them at
    # all: no card, nothing to say; the pattern rule itself is tested on its own.)
    from ecoscore.service import translation

    said = [d for d in read.doubts if d.startswith("a grid of ")]
    assert len(said) <= 1, read.doubts
    for doubt in said:
        assert "all read as stream and none surely" in doubt, read.doubts
        assert translation.translate(doubt, "it").startswith("una griglia di ") and "ruscello" in translation.translate(doubt, "it")
    assert not read.pattern_grids or said


@needs_models
def test_a_photo_of_only_a_grid_taken_for_a_pattern_is_refused_saying_so(reader, deck, monkeypatch):
    """Where no tableau is left, the refusal says both what may be wrong (the deck, or no cards
    there) and that a grid was taken for a pattern, in the player's language. The rule itself
    is tested above; here, that the refusal carries what it found."""
    from ecoscore.service import translation
    from ecoscore.service.routes.photos import for_the_page
    from ecoscore.vision.photo_doubts import PatternGrid
    from ecoscore.vision.pipeline import JudgedGrids, Reader
    from ecoscore.vision.refusals import NoTableauError

    monkeypatch.setattr(Reader, "_doubt_the_photo", staticmethod(lambda *a: JudgedGrids([], [PatternGrid(20, "stream")], [])))
    scene = render_scene(deck, (4016, 93), steep_params(long_side=1600))
    with pytest.raises(NoTableauError) as refused:
        reader.read(scene.jpeg)
    said = str(refused.value)
    assert said.startswith("no tableau read: a grid of ") and "; a grid of 20 card-like shapes, all read as stream" in said
    page = translation.translate(for_the_page(said), "cs")  # as the page shows it, in Czech
    assert "potok" in page and "no tableau" not in page and "card-like" not in page


def _sharp_and_blurred(deck, seed, sigma):
    """The same scene rendered sharp and defocused by ``sigma`` px at 640 px (the renderer's unit)."""
    from dataclasses import replace

    base = SceneParams(long_side=1600, p_multi=0.0, p_cut_off=0.0)
    return [render_scene(deck, seed, replace(base, light=replace(base.light, p_defocus=float(s > 0),
                                                                  defocus_sigma=(s, s), p_motion=0.0)))
            for s in (0.0, sigma)]


def test_sharpness_tells_a_defocused_tableau_from_a_sharp_one_whatever_its_art(deck):
    """Each cell cut at its true corners at the reader's size: a sharp tableau's median stays above
    the blur level and the same tableau defocused as the hard split's worst (2.5 px at 640 px)
    falls below it, for art drawn in unlike styles (the level is set under the sharp photos' least,
    so the advice is never given a sharp photo: a smooth full-bleed deck's is the lowest)."""
    from ecoscore.datasets.deckgen import HELD_OUT_SEEDS, generate_deck
    from ecoscore.vision.photo_doubts import cell_grey, median_sharpness

    decks = [deck] + [generate_deck(HELD_OUT_SEEDS[20 + i], style) for i, style in enumerate(("framed", "fullart", "minimal"))]
    for i, d in enumerate(decks):
        scenes = _sharp_and_blurred(d, (4243, i), 2.5)
        medians = [median_sharpness(scene.image, [np.float64(c["cell_corners"]) for c in scene.truth["tableaux"][0]["cells"]])
                   for scene in scenes]
        assert not medians[0].blurred and medians[1].blurred, (d.name, medians)
        assert medians[1].fine < medians[0].fine and medians[1].coarse < medians[0].coarse
        # cut as the reader cuts a cell, averaged down: the grey copy and the colour photo alike
        quad = np.float64(scenes[1].truth["tableaux"][0]["cells"][0]["cell_corners"])
        grey = cv2.cvtColor(scenes[1].image, cv2.COLOR_BGR2GRAY)
        assert np.abs(cell_grey(grey, quad).astype(int) - cell_grey(scenes[1].image, quad)).max() <= 2


def test_blur_is_advised_only_for_a_doubtful_read_whose_cards_are_big_enough_to_judge():
    from ecoscore.vision.photo_doubts import BLURRED_COARSE, BLURRED_FINE, Look, Sharpness, retake_advice

    sharp = Sharpness(BLURRED_FINE * 2, BLURRED_COARSE * 2)
    blurred = Look(squeeze=1.2, card_px=200, brightest=200, glare=[], cells_outside=0, sharpness=sharp._replace(fine=BLURRED_FINE / 2))
    assert advice.BLURRED() in retake_advice(blurred, doubtful=True)
    assert retake_advice(blurred, doubtful=False) == []  # a good read needs no lecture
    from dataclasses import replace
    assert retake_advice(replace(blurred, sharpness=None), doubtful=True) == []  # not measured: cards too small
    assert retake_advice(replace(blurred, sharpness=sharp), doubtful=True) == []
    # either scale says it: a noisy photo's fine detail is its grain
    assert advice.BLURRED() in retake_advice(replace(blurred, sharpness=sharp._replace(coarse=BLURRED_COARSE / 2)), doubtful=True)


def test_a_refused_photo_of_blurred_cards_is_told_it_is_blurred_not_only_to_retake_from_above(deck):
    from ecoscore.vision.photo_doubts import photo_advice

    said = []
    for scene in _sharp_and_blurred(deck, (4243, 0), 2.5):
        quads = [np.float64(c["corners"]) for c in scene.truth["tableaux"][0]["cells"] if c["corners"]]
        widths = [float(np.linalg.norm(q[1] - q[0])) for q in quads]
        said.append(photo_advice(scene.image, widths, 1.0, no_grid=True, card_quads=np.stack(quads)))
    assert said[0] == [advice.NO_GRID()] and said[1] == [advice.BLURRED()]


def test_blur_is_not_judged_on_cards_too_small_to_tell_nor_on_empty_cells(deck):
    """Cards under MIN_BLUR_PX in the decoded photo hold too little to judge ("come closer" says
    it); a plain cloth's empty cells have no detail: neither is judged."""
    from ecoscore.geometry import CROP_SIZE
    from ecoscore.vision.lattice import CellFit, TableauFit
    from ecoscore.vision.photo_doubts import MIN_BLUR_PX, look, photo_advice

    blurred = _sharp_and_blurred(deck, (4243, 0), 2.5)[1]
    cells = {(c["row"], c["col"]): CellFit(np.float64(c["cell_corners"]), k, True)
             for k, c in enumerate(blurred.truth["tableaux"][0]["cells"])}
    fit = TableauFit(cells, 0.0, False)
    every = set(cells)
    assert look(blurred.image, fit, [CROP_SIZE + 1.0], 1.0, every).sharpness.blurred
    assert look(blurred.image, fit, [MIN_BLUR_PX - 1.0], 1.0, every).sharpness is None
    quads = np.stack([cell.quad for cell in cells.values()])
    assert advice.BLURRED() in photo_advice(blurred.image, [CROP_SIZE + 1.0] * 20, 1.0, card_quads=quads)
    assert advice.BLURRED() not in photo_advice(blurred.image, [MIN_BLUR_PX - 1.0] * 20, 1.0, card_quads=quads)
    # no card found in its cells (a grid on a cloth): nothing to judge
    empty = TableauFit({rc: CellFit(cell.quad, None, True) for rc, cell in cells.items()}, 0.0, False)
    assert look(blurred.image, empty, [CROP_SIZE + 1.0], 1.0, every).sharpness is None


def test_a_whole_games_far_small_cards_are_judged_at_their_own_size(deck):
    """Cards under the reader's cut (a photo of 3-4 tableaux) were never judged for blur: magnified
    into the cut, a sharp card looks soft. At their own size a sharp game reads sharp and the same
    game defocused reads blurred (a player's walk: a dark, blurred whole game got no blur advice)."""
    from dataclasses import replace

    from ecoscore.geometry import CROP_SIZE
    from ecoscore.vision.photo_doubts import MIN_BLUR_PX, median_sharpness

    base = SceneParams(long_side=1600, p_multi=1.0, tableaux=(3, 4), p_cut_off=0.0, fill=(0.3, 0.45))
    for seed in range(2):
        scenes = [render_scene(deck, (5151, 9, seed), replace(base, light=replace(
            base.light, p_defocus=float(s > 0), defocus_sigma=(s, s) if s else (0.3, 0.3), p_motion=0.0))) for s in (0.0, 2.5)]
        quads = [np.float64(c["corners"]) for t in scenes[0].truth["tableaux"] for c in t["cells"] if c["corners"] is not None]
        small = [q for q in quads if MIN_BLUR_PX <= min(np.linalg.norm(q[1] - q[0]), np.linalg.norm(q[3] - q[0])) < CROP_SIZE]
        assert len(small) >= 20
        sharp, blurred = (median_sharpness(scene.image, small[:40]) for scene in scenes)
        assert not sharp.blurred and blurred.blurred, (sharp, blurred)


@needs_models
def test_a_defocused_photo_read_with_doubts_says_it_is_blurred_and_its_sharp_twin_does_not(reader, deck):
    # 2.5 px, the hard split's worst: at 1.5 this CPU's bfloat16 read every cell surely, and a
    # sure read is given no advice (a fresh clone's run failed on it; float32 had doubted one)
    sharp, blurred = _sharp_and_blurred(deck, (4242, 5), 2.5)
    said = {name: [advice.which(d)[0] for t in reader.read(scene.jpeg).tableaux for d in t.doubts if advice.which(d)]
            for name, scene in (("sharp", sharp), ("blurred", blurred))}
    assert advice.BLURRED in said["blurred"] and advice.BLURRED not in said["sharp"], said


@needs_models
def test_a_warm_lamps_glare_that_is_not_clipped_white_is_still_glare(deck):
    """A lamp's reflection in sleeves, warm and not clipped (value ~226, saturation ~35, as another
    renderer's photo had it), washes out the cells it lies on: those cells are said, the rest not;
    where every card is as pale, none stands out and none is said."""
    from ecoscore.vision.decode import decode
    from ecoscore.vision.photo_doubts import LookCopy, _light
    from ecoscore.vision.pipeline import Reader

    scene = render_scene(deck, (31, 4), SceneParams(long_side=1200, p_multi=0.0, p_cut_off=0.0, loose_cards=(0, 0),
                                                   clutter=(0, 0), p_hole=0.0))
    photo = decode(scene.jpeg)
    _, fits, _ = Reader().locate(photo)
    fit = fits[0]
    every = set(fit.cells)
    assert _light(LookCopy.of(photo.image), fit, every)[1] == []
    glared = [(1, 1), (2, 1)]
    image = photo.image.copy()
    for key in glared:
        cv2.fillPoly(image, [np.round(fit.cells[key].quad).astype(np.int32)], (196, 218, 228))  # BGR: warm, V 228, S 36
    assert _light(LookCopy.of(image), fit, every)[1] == glared
    # Every card as pale (a bright photo of pale-panelled cards): no cell stands out, no glare.
    for key in every:
        cv2.fillPoly(image, [np.round(fit.cells[key].quad).astype(np.int32)], (196, 218, 228))
    assert _light(LookCopy.of(image), fit, every)[1] == []


@needs_models
def test_a_sleeves_veil_over_most_of_a_tableau_is_glare_and_not_the_wrong_deck(deck):
    """A sleeve's sheen at a low angle is a grey veil, not a bright patch: its cards lifted to a
    median value of ~175 and a third of their colour (another renderer's sleeved tableau: 12 of
    its cards read "not a card of this deck", the player told to choose another deck). Told as
    glare where the tableau's sure cards show what its cards look like unveiled; a lone doubt
    among sure cards of the same pale look is not."""
    from ecoscore.vision.decode import decode
    from ecoscore.vision.naming import NOT_OURS_DOUBT, WRONG_DECK_CARDS, without_glared_foreigners, wrong_deck_doubt
    from ecoscore.vision.photo_doubts import LookCopy, _light
    from ecoscore.vision.pipeline import Reader
    from ecoscore.vision.reads import CellRead

    scene = render_scene(deck, (31, 4), SceneParams(long_side=1200, p_multi=0.0, p_cut_off=0.0, loose_cards=(0, 0),
                                                   clutter=(0, 0), p_hole=0.0))
    photo = decode(scene.jpeg)
    fit = Reader().locate(photo)[1][0]
    veiled = sorted(rc for rc in fit.cells if rc[1] < 3)  # 12 cells; the 8 of the last two columns clear
    image = photo.image.copy()
    for rc in veiled:
        mask = np.zeros(image.shape[:2], np.uint8)
        cv2.fillPoly(mask, [np.round(fit.cells[rc].quad).astype(np.int32)], 1)
        veil = (0.35 * image + 0.65 * np.array([178, 172, 182])).astype(np.uint8)  # grey-pink, as the sheen was
        image[mask > 0] = veil[mask > 0]
    assert _light(LookCopy.of(photo.image), fit, set(veiled))[1] == []  # unveiled, those cells doubtful: no glare
    assert _light(LookCopy.of(image), fit, set(veiled))[1] == veiled
    assert _light(LookCopy.of(image), fit, set(fit.cells))[1] == []  # no sure card to tell a veil from the deck's look
    assert _light(LookCopy.of(image), fit, {(0, 3)})[1] == []  # a doubtful clear card is no glare
    # The wrong-deck doubt yields to the glare where glare washes out enough of the foreign cards.
    def cells():
        return [CellRead(r, c, None, 0.0, "", 0.0, True, fit.cells[(r, c)].quad, not_ours=(r, c) in veiled,
                         doubts=[NOT_OURS_DOUBT.format(nearest="fox 31%")] if (r, c) in veiled else [])
                for r, c in sorted(fit.cells)]

    doubts = ["row 1, col 1: " + NOT_OURS_DOUBT.format(nearest="fox 31%"), wrong_deck_doubt(len(veiled))]
    read = cells()
    glared = "row 1, col 1: washed out by glare (nearest: fox 31%): take the photo again without the lamp's reflection on it"
    assert without_glared_foreigners(doubts, read, set(veiled)) == [glared]
    assert read[0].doubts == [glared.removeprefix("row 1, col 1: ")]
    assert without_glared_foreigners(doubts, cells(), set(veiled[1:len(veiled) - WRONG_DECK_CARDS])) == doubts


@needs_models
def test_a_tableau_cut_by_the_frame_says_so_and_how_to_retake(reader, deck):
    from ecoscore.vision.refusals import NoTableauError

    params = SceneParams(long_side=1600, p_multi=0.0, p_cut_off=1.0, p_hole=0.0, elevation_deg=(70, 90), loose_cards=(0, 0),
                         clutter=(0, 0))
    told = cut = 0
    for i in range(8):
        scene = render_scene(deck, (3131, i), params)
        tab = scene.truth["tableaux"][0]
        if fully_visible(tab, scene.truth["width"], scene.truth["height"]):
            continue
        cut += 1
        try:
            read = reader.read(scene.jpeg)
        except NoTableauError:
            continue
        doubts = [d for t in read.tableaux for d in t.doubts]
        told += any(advice.which(d) and advice.which(d)[0] is advice.CUT_BY_FRAME for d in doubts)
    assert cut >= 4 and told >= cut - 1, f"{told} of {cut}"


def _blurred_far_apart(deck):
    """A tableau laid with 2-3.5 cm gaps, photographed at 33° through blur on a striped cloth: the
    finder boxes 10 of its cards on the quick look's small canvas and 4 on the first look's."""
    scene = render_scene(deck, (77, 19), steep_params(long_side=1600, p_touching=0.0, gap_mm=(15.0, 35.0)))
    assert sum(c["type"] is not None for c in scene.truth["tableaux"][0]["cells"]) > 10
    return scene


@needs_models
def test_big_blurred_cards_far_apart_at_a_slant_are_fitted_on_the_small_canvas(reader, deck):
    """Only the small canvas fits a grid on them; it is taken, not refused as before. Whether the
    grid is then a tableau of the deck is the classifier's: the one shown the second renderer's
    photos (2026-12-03) names 4 of its 12 cards surely, too few, and the photo is refused saying
    it is blurred (the classifier before named enough; the read itself is tested below)."""
    from ecoscore.vision.decode import decode
    from ecoscore.vision.pipeline import Reader
    from ecoscore.vision.refusals import NoTableauError

    scene = _blurred_far_apart(deck)
    with pytest.raises(NoTableauError):  # the first look alone finds no grid
        Reader(reader.finder, reader.classifier, quick_look=False).read(scene.jpeg)
    _, fits, _ = reader.locate(decode(scene.jpeg))  # where the cards lie: no classifier in it
    assert len(fits) == 1 and fits[0].small_canvas and len(fits[0].detections) >= 10
    try:
        reader.read(scene.jpeg)
    except NoTableauError as refused:
        assert "the photo is blurred" in str(refused)


@needs_models
def test_a_grid_too_blurred_to_name_is_refused_for_the_photo_not_for_the_deck(reader, deck, monkeypatch):
    """The photo above: a grid of 12 cards, too few named surely. Its refusal was "they do not
    read as cards of this deck: if it is your own deck, enrol it", the blur last, and the page
    offered to teach the deck its cards. Blurred, the photo is what to change: said first, and no
    "not this deck" (its code sends the page the wrong way). The same grid in a photo judged
    sharp is still "not this deck". (The shipped classifier names 4 of its cards surely on one
    CPU and 5 on another, at the edge of what a tableau asks: the test asks for more, so that
    what it tests is the refusal, not the CPU's arithmetic.)"""
    from ecoscore.vision import photo_doubts
    from ecoscore.vision.refusals import NoTableauError, NotThisDeckError, cannot_name

    scene = _blurred_far_apart(deck)
    monkeypatch.setattr(photo_doubts, "MIN_CARD_CELLS", 13)  # no grid of these 12 cards is a tableau
    with pytest.raises(NoTableauError) as refused:
        reader.read(scene.jpeg)
    said = str(refused.value)
    assert not isinstance(refused.value, NotThisDeckError)
    assert said.startswith(cannot_name(12) + "; ") and advice.BLURRED() in said, said
    monkeypatch.setattr(photo_doubts, "median_sharpness", lambda *a, **k: None)  # judged sharp
    with pytest.raises(NotThisDeckError) as refused:
        reader.read(scene.jpeg)
    assert "do not read as cards of this deck" in str(refused.value)


@needs_models
def test_a_grid_only_the_small_canvas_fits_is_read_saying_its_place_is_a_guess(reader, deck):
    """The same photo read by a classifier sure of what it names (the shipped one's beliefs
    sharpened): the small canvas's grid is read as one tableau, and says that where it lies is a
    guess, not that the frame cuts it (its cells outside the photo follow the guessed grid)."""
    from helpers import sharpened

    from ecoscore.vision.naming import SMALL_CANVAS_DOUBT

    read = sharpened(reader).read(_blurred_far_apart(deck).jpeg)
    assert len(read.tableaux) == 1
    tableau = read.tableaux[0]
    assert sum(cell.type is not None for cell in tableau.cells) >= 10
    assert SMALL_CANVAS_DOUBT in tableau.doubts
    assert not any(advice.which(d) and advice.which(d)[0] is advice.CUT_BY_FRAME for d in tableau.doubts)


def test_a_far_neighbours_tableau_boxed_as_a_few_small_cards_is_looked_at_closer_and_read(reader, deck):
    """A neighbour's tableau behind the player's at 30°: the first look boxes only a few of its
    small cards, which lie in one group with the player's big ones, so no grid was fitted on them
    and the tableau was missed. A closer look round the small loose cards finds the rest; the
    far tableau is read, and the player's own as before (a scene of the steep
    tuning set, seed 4016)."""
    from ecoscore.vision.pipeline import Reader

    scene = render_scene(deck, (4016, 12), steep_params(long_side=1600))
    near, far = (t for t in scene.truth["tableaux"])
    assert not near["neighbour"] and far["neighbour"]
    # The table look finds this tableau too (its own test is below): the far look alone here.
    without = Reader(reader.finder, reader.classifier, far_look=False, table_look=False).read(scene.jpeg)
    read = Reader(reader.finder, reader.classifier, table_look=False).read(scene.jpeg)
    assert len(without.tableaux) == 1 and len(read.tableaux) == 2
    assert len(reader.read(scene.jpeg).tableaux) == 2  # both looks
    types = [[c.type.value if c.type else None for c in t.cells] for t in read.tableaux]
    assert [c.type for c in read.tableaux[0].cells] == [c.type for c in without.tableaux[0].cells]
    # Its cards found and named, every one right or doubted: (one stream, 30 px wide, is read
    # surely on one CPU and doubted as empty on another).
    truth = [c["type"] for c in far["cells"]]
    assert sum(a == b for a, b in zip(types[1], truth)) >= 18, (types[1], truth)
    assert all(a == b or cell.doubts for a, b, cell in zip(types[1], truth, read.tableaux[1].cells))
    # Neither grid says the other's cards were "left out" beside it (the far grid named two of
    # the near tableau's edge cards so, and the near grid a far card).
    assert not [d for t in read.tableaux for d in t.doubts if "left out" in d]
    # The far grid's cards are its own (renumbered into all the detections), and none is loose too.
    from ecoscore.geometry import points_in_quads
    from ecoscore.vision.decode import decode

    det, fits, loose = Reader(reader.finder, reader.classifier, second_look=False, table_look=False).locate(decode(scene.jpeg))
    assert len(fits) == 2
    for cell in fits[1].cells.values():
        assert cell.detection is None or points_in_quads(det.centers[cell.detection], cell.quad).all()
    cells = np.array([cell.quad for fit in fits for cell in fit.cells.values()])
    assert not points_in_quads(det.centers[loose], cells).any()


@needs_models
def test_a_far_tableau_s_poor_first_boxes_give_way_to_the_closer_look_s(deck, monkeypatch):
    """A blurred photo of two tableaux at 42° (hard test set, 000054): the far one's cards are
    small and dark, and the first look boxed 7 of them, several badly (114 × 34 px beside its
    neighbours' 66 × 46). The closer look round them boxed 13 well, but its boxes that lay on a
    first-look card were dropped, and the lattice fitted on none of the mix: the tableau was
    neither read nor mentioned. The closer look's box now stands for a far card it boxes again,
    and the tableau is read, on its cards, and doubted where it may be wrong.

    In float32, whatever the CPU: in bfloat16 (AVX-512 BF16 or AMX) the far tableau is placed on
    its cells exactly, 3 of them misnamed and doubted; in float32 its lattice lies a column off,
    4 cells on the table, which the read doubts ("a card missed"). Both are what the closer look
    is for: found, on the far cards, and never a confident read (a fresh clone's run on a CPU
    without bfloat16 failed on the exact placement)."""
    from ecoscore.scoring.tableau import cell_at
    from ecoscore.vision.evaluate import lies_on, match_read
    from ecoscore.vision.pipeline import Reader

    monkeypatch.setenv("ECOSCORE_PRECISION", "f32")
    reader = Reader()
    scene = render_scene(deck, (2002, 54), hard_params(long_side=1600))
    near, far = scene.truth["tableaux"]
    without = Reader(reader.finder, reader.classifier, far_look=False).read(scene.jpeg)
    read = reader.read(scene.jpeg)
    assert len(without.tableaux) == 1 and len(read.tableaux) == 2
    (near_read,) = [t for t in read.tableaux if match_read(t, near) is not None]
    assert _same(_types(near_read), [c["type"] for c in near["cells"]])
    (far_read,) = [t for t in read.tableaux if t is not near_read]
    width, height = scene.truth["width"], scene.truth["height"]
    assert lies_on(far_read, far, width, height) and not lies_on(far_read, near, width, height)
    assert far_read.doubts  # never a confident read
    if match_read(far_read, far) is not None:  # placed exactly: each cell read wrong is doubted, by its place
        truth_far = [c["type"] for c in far["cells"]]
        turned = truth_far if sum(a == b for a, b in zip(_types(far_read), truth_far)) >= 10 else truth_far[::-1]
        wrong = [k for k, (a, b) in enumerate(zip(_types(far_read), turned)) if a != b]
        assert len(wrong) <= 3
        for k in wrong:
            cell = far_read.cells[k]
            where = cell_at(cell.row, cell.col)
            assert any(d.startswith(where + ":") for d in far_read.doubts), (where, far_read.doubts)


def _types(tableau) -> list:
    return [c.type.value if c.type else None for c in tableau.cells]


def _same(read: list, truth: list) -> bool:
    """A read grid is the truth's, as it lies or turned half round (which way up a tableau
    lies on the table, a photo cannot say; the score is the same)."""
    return read in (truth, truth[::-1])


def test_a_neighbours_tableau_the_finder_boxes_none_of_is_found_on_the_tables_straightened_plane(reader, deck):
    """A neighbour's tableau behind the player's at 28°, under a lamp on a checked cloth: its
    cards are slivers, and the finder boxes none of them in the photo (nor on any magnified
    window of it), so neither the closer look nor the far look can start. Straightened on the
    plane of the player's grid, the table shows them upright, and they are boxed, fitted and
    read card for card; the player's own tableau is read as before (steep tuning set, 4016)."""
    from ecoscore.vision.pipeline import Reader

    scene = render_scene(deck, (4016, 125), steep_params(long_side=1600))
    near, far = scene.truth["tableaux"]
    assert not near["neighbour"] and far["neighbour"]
    without = Reader(reader.finder, reader.classifier, table_look=False).read(scene.jpeg)
    read = reader.read(scene.jpeg)
    assert len(without.tableaux) == 1 and len(read.tableaux) == 2
    assert _types(read.tableaux[0]) == _types(without.tableaux[0])
    assert _same(_types(read.tableaux[0]), [c["type"] for c in near["cells"]])
    assert _same(_types(read.tableaux[1]), [c["type"] for c in far["cells"]])


def test_a_steep_grid_placed_on_a_few_of_its_cards_is_fitted_again_on_the_tables_plane(reader, deck, monkeypatch):
    """At 27° with a phone over the grid, each remedy alone puts the grid on its cards: the
    table's straightened plane (every card boxed there, and that grid, holding every card of the
    first and more, stands for it), and cutting each card boxed off its cell at the lattice's
    cell (``window.cut_on_the_lattice``). Where this was written the first look boxed 15 of the
    20 cards and, with neither remedy, the grid lay off its far cards. On another machine (the
    same code, its own packages) the first look boxes 18 to 20 of them, in bfloat16 or float32,
    and the grid is right either way: that premise hangs on a few borderline boxes, so it is not
    asserted here (the lattice cut's own test, in test_window.py, builds it)."""
    from ecoscore.vision import pipeline
    from ecoscore.vision.evaluate import match_read
    from ecoscore.vision.pipeline import Reader

    scene = render_scene(deck, (4016, 20), steep_params(long_side=1600))
    (truth,) = scene.truth["tableaux"]
    without_table = Reader(reader.finder, reader.classifier, table_look=False)
    read = reader.read(scene.jpeg)
    assert len(read.tableaux) == 1 and match_read(read.tableaux[0], truth) is not None
    assert _same(_types(read.tableaux[0]), [c["type"] for c in truth["cells"]])
    lattice_cut = without_table.read(scene.jpeg)  # the lattice cut alone
    assert len(lattice_cut.tableaux) == 1 and match_read(lattice_cut.tableaux[0], truth) is not None
    monkeypatch.setattr(pipeline, "LATTICE_CUT", 0.0)  # no cut is ever made again
    read = reader.read(scene.jpeg)  # the table look alone
    assert len(read.tableaux) == 1 and match_read(read.tableaux[0], truth) is not None


@needs_models
def test_a_photo_refused_on_the_finders_sure_boxes_is_read_on_its_unsure_ones_and_says_so(monkeypatch):
    # A mosaic deck (full-bleed art laid edge to edge: a style the generator does not draw) seen
    # across the table: the finder boxes its cards at 0.40-0.63, too few of them at 0.6 for a
    # grid, and the photo was refused (first found on mosaic-2's steep tuning photo 000004).
    # Looked at again from 0.45, its tableau is read, every cell right, and it says its cards are
    # less sure. In float32, whatever the CPU: the finder's scores on such a photo lie on the
    # edge, and in bfloat16 (a CPU with AVX-512 BF16 or AMX) they differ a little (000004 passed
    # there and was refused outright in float32: a fresh clone's run on a CPU without bfloat16).
    from other_decks import mosaic_deck  # bench/ is on the path (conftest)

    from ecoscore.datasets.truth import truth_tableau
    from ecoscore.vision import pipeline
    from ecoscore.vision.evaluate import match_read
    from ecoscore.vision.matcher import CardEmbedder, CardMatcher, References
    from ecoscore.vision.refusals import NoTableauError

    monkeypatch.setenv("ECOSCORE_PRECISION", "f32")
    reader = pipeline.Reader()
    deck = mosaic_deck(2)
    embedder = CardEmbedder()
    matcher = CardMatcher(embedder, References.embed(deck.name, embedder, {c: f[:1] for c, f in deck.faces.items()}))
    scene = render_scene(deck, (8550, 18), steep_params(long_side=1600))
    truth = scene.truth["tableaux"][0]  # the player's (a neighbour's may lie at the frame's edge)
    read = reader.read(scene.jpeg, matcher)
    (tableau,) = [t for t in read.tableaux if match_read(t, truth) is not None]
    placed = match_read(tableau, truth)
    assert len(placed) == 20 and all(tableau.cells[i].type == truth_tableau(truth).at(*rc) for i, rc in placed.items())
    assert all(pipeline.UNSURE_DOUBT in t.doubts for t in read.tableaux)
    monkeypatch.setattr(pipeline, "UNSURE_CONF", None)
    with pytest.raises(NoTableauError, match="no 5 × 4 grid"):
        reader.read(scene.jpeg, matcher)
