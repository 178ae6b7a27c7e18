"""The synthetic photo renderer: label geometry, determinism, truth files, deck folders."""
import json
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from ecoscore.datasets.deck import DeckError, load_deck
from ecoscore.datasets.scene import SceneParams, clean_params, hard_params, render_scene
from ecoscore.datasets.standin import FAMILY, TYPE_FAMILY
from ecoscore.datasets.synth import synthesize
from ecoscore.datasets.truth import truth_tableau
from ecoscore.datasets.yolo import card_quads, obb_label_lines, pose_label_lines
from ecoscore.scoring import CardType
from ecoscore.scoring.gridfile import parse_grid

pytestmark = pytest.mark.slow  # models, renders or a server: the full suite only


@pytest.fixture(scope="module")
def deck():
    return load_deck("standin")


def test_labelled_corners_lie_on_the_drawn_card_border(deck):
    checked = 0
    for seed in range(6):
        # Cards apart and square: touching or tilted cards overlap a little, hiding a neighbour's border.
        scene = render_scene(deck, (5, seed), clean_params(long_side=1600, p_hole=0.0, p_touching=0.0, gap_mm=(4.0, 9.0),
                                                         card_tilt_deg=0.5, card_offset_mm=0.5))
        img = scene.image.astype(int)
        for cell in scene.truth["tableaux"][0]["cells"]:
            quad = np.array(cell["corners"])
            border = np.array(FAMILY[TYPE_FAMILY[CardType(cell["type"])]][0])
            for k in range(4):
                a, b, c = quad[k], quad[(k + 1) % 4], quad[(k + 2) % 4]
                # the border band is 10 px of a 320 × 448 face: sample the middle of it
                depth = (10 / 2) / (320 if k % 2 else 448) * np.linalg.norm(c - b)
                normal = np.array([-(b - a)[1], (b - a)[0]]) / np.linalg.norm(b - a)
                if normal @ (quad.mean(0) - a) < 0:
                    normal = -normal
                for t in (0.2, 0.8):  # near each end of each edge
                    x, y = (a + t * (b - a) + normal * depth).round().astype(int)
                    assert np.abs(img[y, x] - border).max() < 50, (seed, cell["row"], cell["col"], k)
                    checked += 1
    assert checked == 6 * 20 * 8


def test_same_seed_same_image_different_seed_different(deck):
    a = render_scene(deck, (9, 1))
    b = render_scene(deck, (9, 1))
    c = render_scene(deck, (9, 2))
    assert a.jpeg == b.jpeg and a.truth == b.truth
    assert a.jpeg != c.jpeg


def test_dataset_has_a_truth_file_and_labels_for_every_image(tmp_path, deck):
    out = tmp_path / "set"
    synthesize("standin", 12, out, seed=3, workers=2, progress=False, params=SceneParams(long_side=480, p_multi=0.5))
    images = sorted(p.stem for p in (out / "images").glob("*.jpg"))
    assert images == [f"{i:06d}" for i in range(12)]
    assert sorted(p.stem for p in (out / "truth").glob("*.json")) == images
    assert sorted(p.stem for p in (out / "labels").glob("*.txt")) == images
    assert (out / "data.yaml").is_file()
    for stem in images:
        truth = json.loads((out / "truth" / f"{stem}.json").read_text())
        lines = (out / "labels" / f"{stem}.txt").read_text().split()
        assert truth["image"] == f"images/{stem}.jpg"
        for k, tab in enumerate(truth["tableaux"]):
            # each tableau's grid file, for `deck add --photo --grid`, reads back as its truth
            assert parse_grid((out / "truth" / f"{stem}_{k + 1}.txt").read_text()).cells == truth_tableau(tab).cells
            # grid truth matches the cells: a type exactly where a card was drawn
            for cell in tab["cells"]:
                assert (cell["type"] is None) == (cell["corners"] is None)
                assert tab["grid"][cell["row"]][cell["col"]] == cell["type"]
        assert len(lines) % 9 == 0  # class + 8 coordinates per card
        assert len(lines) // 9 == len(obb_label_lines(truth))


def test_labels_are_normalised_and_cut_off_cards_are_clipped(deck):
    for seed in range(20):
        scene = render_scene(deck, (11, seed), SceneParams(long_side=480, p_cut_off=1.0))
        for line in obb_label_lines(scene.truth):
            values = [float(v) for v in line.split()[1:]]
            assert all(-1e-6 <= v <= 1 + 1e-6 for v in values)


def test_corner_labels_go_clockwise_from_a_short_side_and_leave_out_corners_off_the_frame(deck):
    cut_corners = 0
    for seed in range(12):
        scene = render_scene(deck, (13, seed), SceneParams(long_side=480, p_cut_off=0.5, elevation_deg=(70, 89)))
        w, h = scene.truth["width"], scene.truth["height"]
        lines = pose_label_lines(scene.truth)
        assert len(lines) == len(obb_label_lines(scene.truth))  # the same cards as the box finder's
        truth_quads = [q for q in card_quads(scene.truth)]
        for line in lines:
            values = np.array([float(v) for v in line.split()[1:]])
            corners = values[4:].reshape(4, 3)
            places = np.concatenate([values[:4], corners[:, :2].ravel()])
            assert values.shape == (16,) and np.all((places >= -1e-6) & (places <= 1 + 1e-6))
            assert set(corners[:, 2]) <= {0.0, 2.0}  # unseen or seen
            seen = corners[:, 2] > 0
            cut_corners += int((~seen).sum())
            assert np.all(corners[~seen] == 0)
            if seen.all():
                quad = corners[:, :2] * [w, h]
                x, y = quad[:, 0], quad[:, 1]
                assert np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y) > 0  # clockwise, y down
                sides = np.linalg.norm(np.roll(quad, -1, 0) - quad, axis=1)
                assert sides[0] < sides[1] and sides[2] < sides[3]  # seen from above: short, long, short, long
                assert min(np.abs(q - quad).max() for q in truth_quads) < 1e-3 * max(w, h)  # a card's true corners
    assert cut_corners > 0  # some photo was cut through a card


def test_hard_split_is_harder(deck):
    """Measured on the photos, not the settings: the hard split's are blurrier and darker."""
    import cv2

    def sharpness_and_light(params):
        photos = [render_scene(deck, (12, k), params).image for k in range(8)]
        grey = [cv2.cvtColor(p, cv2.COLOR_BGR2GRAY) for p in photos]
        return (np.median([cv2.Laplacian(g, cv2.CV_64F).var() for g in grey]),
                np.median([g.mean() for g in grey]))

    normal_sharp, normal_light = sharpness_and_light(SceneParams())
    hard_sharp, hard_light = sharpness_and_light(hard_params())
    assert hard_sharp < 0.7 * normal_sharp
    assert hard_light < normal_light


def test_deck_missing_a_type_is_a_clear_error(tmp_path):
    shutil.copytree(load_deck("standin").path, tmp_path / "mydeck")
    shutil.rmtree(tmp_path / "mydeck" / "wolf")
    with pytest.raises(DeckError, match="no face image for: wolf"):
        load_deck(tmp_path / "mydeck")
    with pytest.raises(DeckError, match="no deck 'nonexistent'"):
        load_deck("nonexistent")


def test_any_deck_folder_renders(tmp_path, deck):
    """A user's own deck: any folder in the layout, any image size."""
    import cv2

    for card in CardType:
        folder = tmp_path / "user" / card.value
        folder.mkdir(parents=True)
        face = np.full((700, 500, 3), 30 + 20 * list(CardType).index(card), np.uint8)
        cv2.imwrite(str(folder / "scan.jpg"), face)
    user = load_deck(tmp_path / "user")
    scene = render_scene(user, 1)
    assert scene.truth["deck"] == "user" and scene.image.shape[2] == 3


def test_photos_are_never_mirror_images():
    """The table seen through the camera keeps its handedness (a mirrored card is not a card)."""
    from ecoscore.datasets.scene import camera_homography, project

    for seed in range(300):
        H = camera_homography(np.random.default_rng(seed), SceneParams(), (640, 480))
        o, x, y = project(H, [[0, 0], [1, 0], [0, 1]])
        assert (x - o)[0] * (y - o)[1] - (x - o)[1] * (y - o)[0] > 0


def test_cards_of_any_art_change_the_faces_only_never_the_layout(deck):
    """The finder's cards of any art (``p_wide_faces``) draw from a stream of their own: the
    same scene lays out the same cards, truth and all, and only what is drawn on them differs;
    with none asked for, every scene renders byte for byte as before."""
    base = SceneParams(long_side=480, p_random_faces=1.0)
    plain, wide = (render_scene(deck, (31, k), replace(base, p_wide_faces=p)) for k, p in ((0, 0.0), (0, 1.0)))
    assert plain.truth["tableaux"] == wide.truth["tableaux"] and plain.truth["tableaux"][0]["random_faces"]
    assert plain.jpeg != wide.jpeg
    unasked = render_scene(deck, (31, 1), SceneParams(long_side=480, p_random_faces=1.0))
    assert unasked.jpeg == render_scene(deck, (31, 1), replace(base, p_wide_faces=0.0)).jpeg


def test_a_deck_of_photographic_art_changes_the_faces_only_and_shares_one_design(deck):
    """The finder's decks of photographic art (``p_photo_faces``) draw from a stream of their own
    too: the same layout and truth, other faces; none asked for, the scene as before. One deck's
    faces share their design (the same border on every card) and differ in their pictures."""
    from ecoscore.datasets.faces import H, W, photo_faces

    base = SceneParams(long_side=480, p_random_faces=1.0)
    plain, photo = (render_scene(deck, (31, 0), replace(base, p_photo_faces=p)) for p in (0.0, 1.0))
    assert plain.truth["tableaux"] == photo.truth["tableaux"] and plain.jpeg != photo.jpeg
    assert render_scene(deck, (31, 1), base).jpeg == render_scene(deck, (31, 1), replace(base, p_photo_faces=0.0)).jpeg
    shared_edge = 0
    for seed in range(12):
        faces = photo_faces(np.random.default_rng(seed), 6)
        assert all(f.shape == (H, W, 3) and f.dtype == np.uint8 for f in faces)
        centres = np.array([f[H // 2 - 20:H // 2 + 20, W // 2 - 20:W // 2 + 20].mean((0, 1)) for f in faces])
        assert np.ptp(centres, 0).max() > 10  # the pictures differ
        shared_edge += np.ptp(np.array([f[0, W // 2] for f in faces]).astype(int), 0).max() == 0
    assert 3 <= shared_edge < 12  # most decks have a border or a printed card's stock; some none


def test_a_table_like_the_cards_changes_the_table_only_and_takes_the_cards_edge_colour(deck):
    """A table the colour of the cards' edges (``p_table_like_cards``, the finder's camouflage
    photos) draws from a stream of its own: the same layout and truth; none asked for, the scene
    byte for byte as before. Round the tableau the table is then nearer the cards' rim colour."""
    import cv2

    base = SceneParams(long_side=480, photometric=False, loose_cards=(0, 0), clutter=(0, 0), p_multi=0.0)
    assert render_scene(deck, (32, 1), base).jpeg == render_scene(deck, (32, 1), replace(base, p_table_like_cards=0.0)).jpeg
    nearer = 0
    for k in range(6):
        plain, camo = (render_scene(deck, (32, k), replace(base, p_table_like_cards=p)) for p in (0.0, 1.0))
        assert plain.truth["tableaux"] == camo.truth["tableaux"]
        assert camo.truth["table_extras"].get("table_like_cards") and not plain.truth["table_extras"].get("table_like_cards")
        quads = [np.array(c["corners"], np.float32) for c in plain.truth["tableaux"][0]["cells"] if c["corners"]]
        cards = np.zeros(plain.image.shape[:2], np.uint8)
        for q in quads:
            cv2.fillConvexPoly(cards, q.astype(np.int32), 255)
        inside = cv2.erode(cards, np.ones((5, 5), np.uint8))
        rim = (cards > 0) & ~(cv2.erode(cards, np.ones((9, 9), np.uint8)) > 0)  # the cards' outer few pixels
        table = cv2.dilate(cards, np.ones((31, 31), np.uint8)) > 0
        table &= cards == 0
        assert inside.any() and table.any()
        far = [np.linalg.norm(img.image[table].mean(0) - img.image[rim].mean(0)) for img in (plain, camo)]
        nearer += far[1] < far[0]
    assert nearer >= 5
    # A tableau's place with no card on it: no card's colour to take, the table as it is.
    bare = render_scene(deck, (32, 9), replace(base, p_table_like_cards=1.0, p_hole=1.0, min_holes=20, max_holes=20))
    assert "table_like_cards" not in bare.truth["table_extras"]


def test_cards_of_any_art_are_of_every_kind():
    from ecoscore.datasets.faces import H, W, wide_face

    rng = np.random.default_rng(0)
    faces = [wide_face(rng) for _ in range(60)]
    assert all(f.shape == (H, W, 3) and f.dtype == np.uint8 for f in faces)
    # Light and dark stock, flat and busy art: not one look.
    assert min(f.mean() for f in faces) < 60 < 160 < max(f.mean() for f in faces)
    assert min(float(f.std()) for f in faces) < 20 < 50 < max(float(f.std()) for f in faces)


def test_a_folder_named_as_a_shipped_deck_in_the_current_folder_is_not_taken_for_it(tmp_path, monkeypatch):
    # `ecoscore synth --out standin` (photos), then the service started in that folder: the
    # built-in deck was read from ./standin, and the deck list answered 500 (a walk).
    from ecoscore.datasets.deck import DECKS_DIR, resolve_deck_path

    (tmp_path / "standin" / "images").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    assert resolve_deck_path("standin") == DECKS_DIR / "standin"
    assert load_deck("standin").faces  # the shipped faces
    assert resolve_deck_path("./standin") == Path("./standin")  # asked for by its path: the folder
    with pytest.raises(DeckError, match="no face image"):
        load_deck("./standin")
