"""Training recipes: what data a recipe trains on (no training here: that is test_ultralytics)."""
import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from ecoscore.vision.train import RECIPES, prepare_data

pytestmark = pytest.mark.slow  # models, renders or a server: the full suite only

TINY = dict(train_scenes=2, val_scenes=1, render_long_side=160)


def test_a_replayed_recipe_trains_and_validates_beside_the_new_photos(tmp_path, monkeypatch):
    monkeypatch.setenv("ECOSCORE_DATA", str(tmp_path))
    loose = replace(RECIPES["finder-loose"], **TINY)
    base = replace(RECIPES[loose.replay], **TINY)
    own = tmp_path / "own"
    written = prepare_data(loose, "standin", own, 1, replay=base).read_text()
    data = {key: json.loads(value) for key, _, value in (line.partition(": ") for line in written.splitlines())
            if key in ("train", "val")}

    # The replayed recipe's photos are rendered (or reused) where that recipe keeps its own data.
    replayed = Path(data["train"][-1]).parent.parent
    assert replayed.parent == (tmp_path / "datasets").resolve() and replayed != own.resolve()
    for split in ("train", "val"):
        assert data[split] == [str((root / part / "images").resolve())
                               for root in (own, replayed) for part in (split, f"{split}-hard")]
        assert all(any(Path(folder).glob("*.jpg")) for folder in data[split])
    # The new photos are rendered with the recipe's loose cards; the replayed ones are the base recipe's own.
    for truth in (own / "train" / "truth").glob("*.json"):
        assert json.loads(truth.read_text())["params"]["loose_cards"] == list(loose.loose_cards)
    assert json.loads((replayed / "train" / ".complete.json").read_text())["seed"] == base.train_seed


def test_every_recipe_starts_from_and_replays_recipes_that_exist():
    for recipe in RECIPES.values():
        for other in (recipe.init, recipe.replay):
            assert other is None or (other in RECIPES and RECIPES[other].kind == recipe.kind)


def test_the_shipped_finder_trains_on_decks_of_any_art_dark_ones_too_and_on_steep_photos(tmp_path, monkeypatch):
    monkeypatch.setenv("ECOSCORE_DATA", str(tmp_path))
    recipe = replace(RECIPES["finder"], train_scenes=12, val_scenes=1, render_long_side=160)
    base = replace(RECIPES[recipe.replay], **TINY)
    own = tmp_path / "own"
    written = prepare_data(recipe, "standin", own, 1, replay=base).read_text()
    train = json.loads(next(line for line in written.splitlines() if line.startswith("train:")).partition(": ")[2])
    assert train[:3] == [str((own / part / "images").resolve()) for part in ("train", "train-hard", "train-steep")]
    decks = [json.loads(t.read_text())["deck"] for t in sorted((own / "train" / "truth").glob("*.json"))]
    assert "standin" in decks and any(name.startswith("generated-") for name in decks)
    assert any("-dark-" in name for name in decks)  # dark card stock: what finder-steep lost
    steep = [json.loads(t.read_text())["params"] for t in (own / "train-steep" / "truth").glob("*.json")]
    assert steep and all(p["elevation_deg"][0] < 40 and p["p_multi"] == 0.0 for p in steep)


def test_a_recipe_can_take_its_steep_photos_from_lower_cameras_with_more_neighbours(tmp_path, monkeypatch):
    monkeypatch.setenv("ECOSCORE_DATA", str(tmp_path))
    recipe = replace(RECIPES["finder-low"], train_scenes=4, val_scenes=1, render_long_side=160, hard_share=0.0, replay=None)
    prepare_data(recipe, "standin", tmp_path / "own", 1)
    steep = [json.loads(t.read_text()) for t in (tmp_path / "own" / "train-steep" / "truth").glob("*.json")]
    assert len(steep) == 12  # three steep photos a normal one
    assert all(t["params"]["elevation_deg"] == [25.0, 38.0] and t["params"]["p_neighbour"] == 0.8 for t in steep)
    assert all(25.0 <= t["camera"]["elevation_deg"] <= 38.0 for t in steep)
    normal = [json.loads(t.read_text())["params"] for t in (tmp_path / "own" / "train" / "truth").glob("*.json")]
    assert normal and all(p["elevation_deg"] == [40.0, 90.0] for p in normal)  # the rest as the split has it


def test_a_classifier_recipe_renders_its_crops_at_its_own_size(tmp_path, monkeypatch):
    import cv2

    monkeypatch.setenv("ECOSCORE_DATA", str(tmp_path))
    recipe = replace(RECIPES["classifier-96"], **TINY, hard_share=0.0, steep_share=0.0)
    folder = prepare_data(recipe, "standin", tmp_path / "own", 1)
    crops = list((folder / "train").rglob("*.png"))
    assert crops and {cv2.imread(str(c)).shape[:2] for c in crops} == {(96, 96)}
    assert recipe.imgsz == recipe.crop_size  # the network sees the crops as they were cut


def test_a_recipe_starting_from_the_shipped_model_starts_from_its_weights_in_models():
    from ecoscore.paths import models_dir
    from ecoscore.vision.train import shipped_weights

    shipped = json.loads((models_dir() / "classifier.json").read_text())["recipe"]["name"]
    assert shipped_weights(shipped, "standin") == models_dir() / "classifier.pt"
    assert shipped_weights(shipped, "my-deck") is None  # another deck trains its own chain
    assert shipped_weights("classifier-base", "standin") is None  # not shipped: its run is trained first
    partner = json.loads((models_dir() / "classifier-norm.json").read_text())["recipe"]["name"]
    assert shipped_weights(partner, "standin") == models_dir() / "classifier-norm.pt"  # the classifier's partner


def test_a_normalising_recipe_renders_its_crops_normalised(tmp_path, monkeypatch):
    import cv2

    monkeypatch.setenv("ECOSCORE_DATA", str(tmp_path))
    recipe = replace(RECIPES["classifier-norm"], **TINY, hard_share=0.0, steep_share=0.0)
    assert recipe.normalise_crops
    folder = prepare_data(recipe, "standin", tmp_path / "own", 1)
    crops = list((folder / "train").rglob("*.png"))
    assert crops
    for crop in crops[:10]:
        means = cv2.imread(str(crop)).reshape(-1, 3).mean(0)
        assert np.allclose(means, 128, atol=6), means  # each channel centred (clipping moves it a little)


def test_a_corner_finder_recipe_writes_corner_labels_and_says_how_a_mirror_reorders_them(tmp_path, monkeypatch):
    monkeypatch.setenv("ECOSCORE_DATA", str(tmp_path))
    recipe = replace(RECIPES["finder-corners"], **TINY)
    assert recipe.corners and recipe.kind == "finder" and not RECIPES[recipe.init].corners  # a new head on the box finder
    written = prepare_data(recipe, "standin", tmp_path / "own", 1).read_text()
    assert "kpt_shape: [4, 3]" in written and "flip_idx: [1, 0, 3, 2]" in written
    labels = [line.split() for path in (tmp_path / "own" / "train" / "labels").glob("*.txt")
              for line in path.read_text().splitlines() if line]
    assert labels and all(len(values) == 1 + 4 + 4 * 3 for values in labels)
    with pytest.raises(ValueError, match="boxes, the other corners"):
        prepare_data(recipe, "standin", tmp_path / "again", 1, replay=replace(RECIPES["finder"], **TINY))


def test_the_shipped_classifiers_partner_is_named_by_its_recipe_so_a_retrained_one_keeps_it(tmp_path):
    from ecoscore.paths import models_dir
    from ecoscore.vision.train import write_sidecar

    shipped = json.loads((models_dir() / "classifier.json").read_text())
    recipe = RECIPES[shipped["recipe"]["name"]]
    write_sidecar(tmp_path / "classifier.onnx", recipe, shipped["deck"])
    assert json.loads((tmp_path / "classifier.json").read_text())["partner"] == shipped["partner"]
    assert (models_dir() / shipped["partner"]["model"]).is_file()


def test_training_without_the_train_extra_says_so_before_any_work(monkeypatch, capsys, tmp_path):
    # A runtime-only install (scripts/serve.sh's) rendered a recipe's photos, then stopped on a
    # ModuleNotFoundError traceback.
    from ecoscore.cli import main
    from ecoscore.cli import train as train_cli

    monkeypatch.setenv("ECOSCORE_DATA", str(tmp_path))
    monkeypatch.setattr(train_cli, "TRAINING_PACKAGES", ("torch", "no_such_package_ecoscore"))
    assert main(["train", "finder-gaps", "--no-ship"]) == 2
    err = capsys.readouterr().err
    assert "training needs the train extra (no_such_package_ecoscore not installed)" in err
    assert not any(tmp_path.iterdir())  # nothing rendered


def test_a_classifier_recipe_trains_on_crops_cut_from_another_renderers_labelled_photos(tmp_path, monkeypatch):
    import cv2

    from ecoscore.datasets.scene import SceneParams
    from ecoscore.datasets.synth import synthesize
    from ecoscore.truthfile import read_set, write_truth

    monkeypatch.setenv("ECOSCORE_DATA", str(tmp_path))
    # Photos with truth files, as bench/pbr_render.py writes them (here our own renderer's), and
    # one photo of another deck in the same set: it is no photo of the stand-in's cards.
    photos = tmp_path / "pbr" / "train" / "set"
    synthesize("standin", 3, photos, seed=5, workers=1, progress=False,
               params=SceneParams(long_side=480, p_multi=0.0, p_cut_off=0.0))
    stray, truth = next(iter(read_set(photos)))
    write_truth(stray, {**truth, "deck": "someone-elses"})
    recipe = replace(RECIPES["classifier-pbr"], **TINY, hard_share=0.0, steep_share=0.0,
                     photo_sets=("pbr/train/set",), photo_set_views=3)
    folder = prepare_data(recipe, "standin", tmp_path / "own", 1)

    # Linked into the mix as "<part>-<crop>": the part's crops are named "<K>-<set>_<photo>_<cut>_<cell>".
    cut = sorted((folder / "train").rglob("train-photos-0-set_*.png"))
    stems = {c.name.split("_")[1] for c in cut}
    assert stems == {p.stem for p, _ in read_set(photos)} - {stray.stem}
    # Every cell of each photo, three cuts each, filed under the type its truth names.
    expected = {}
    for path, truth in read_set(photos):
        if path.stem != stray.stem:
            for cell in truth["tableaux"][0]["cells"]:
                expected[cell["type"] or "empty"] = expected.get(cell["type"] or "empty", 0) + 3
    found = {}
    for c in cut:
        found[c.parent.name] = found.get(c.parent.name, 0) + 1
    assert found == expected
    assert {cv2.imread(str(c)).shape[:2] for c in cut} == {(recipe.crop_size, recipe.crop_size)}
    # The rendered crops are still there beside them.
    assert any(not c.name.startswith("train-photos-") for c in (folder / "train").rglob("*.png"))


def test_a_photo_set_of_another_deck_alone_is_refused_by_name(tmp_path):
    from ecoscore.datasets.scene import SceneParams
    from ecoscore.datasets.synth import crops_from_photos, synthesize

    synthesize("standin", 1, tmp_path / "set", seed=5, workers=1, progress=False, params=SceneParams(long_side=320))
    with pytest.raises(ValueError, match="holds no photo of the deck 'my-deck'"):
        crops_from_photos([tmp_path / "set"], "my-deck", tmp_path / "out", views=1, seed=0)


def test_photo_set_crops_are_cut_again_when_a_photo_is_added_and_each_cut_differs(tmp_path, monkeypatch):
    import cv2

    from ecoscore.datasets.scene import SceneParams
    from ecoscore.datasets.synth import synthesize

    monkeypatch.setenv("ECOSCORE_DATA", str(tmp_path))
    photos = tmp_path / "sets" / "a"
    synthesize("standin", 1, photos, seed=5, workers=1, progress=False,
               params=SceneParams(long_side=480, p_multi=0.0, p_cut_off=0.0))
    recipe = replace(RECIPES["classifier-pbr"], **TINY, hard_share=0.0, steep_share=0.0, photo_sets=("sets/a",),
                     photo_set_views=2)
    folder = prepare_data(recipe, "standin", tmp_path / "own", 1)
    first = sorted((folder / "train").rglob("train-photos-*.png"))
    # The two cuts of one cell are two crops, not one crop twice.
    cell = [c for c in first if c.name.endswith("_00.png")]
    assert len(cell) == 2 and not np.array_equal(cv2.imread(str(cell[0])), cv2.imread(str(cell[1])))
    # A photo added to the set: its crops are there on the next run (the marker said "done" before).
    synthesize("standin", 2, photos, seed=5, workers=1, progress=False,
               params=SceneParams(long_side=480, p_multi=0.0, p_cut_off=0.0))
    again = sorted((prepare_data(recipe, "standin", tmp_path / "own", 1) / "train").rglob("train-photos-*.png"))
    assert len(again) > len(first) and {c.name.split("_")[1] for c in again} == {"000000", "000001"}


def test_a_recipe_whose_photo_sets_are_missing_says_so_before_rendering(tmp_path, monkeypatch):
    monkeypatch.setenv("ECOSCORE_DATA", str(tmp_path))
    recipe = replace(RECIPES["classifier-pbr"], **TINY, photo_sets=("pbr/train/nowhere",))
    with pytest.raises(FileNotFoundError, match="pbr/train/nowhere"):
        prepare_data(recipe, "standin", tmp_path / "own", 1)
    assert not (tmp_path / "own").exists()  # nothing rendered first


def test_the_lattice_refiner_learns_from_tableaux_of_any_art_laid_edge_to_edge_never_from_held_out_decks(
        tmp_path, monkeypatch):
    from ecoscore.datasets.deckgen import HELD_OUT_SEEDS
    from ecoscore.vision.train_lattice import RECIPES as LATTICE
    from ecoscore.vision.train_lattice import photos

    monkeypatch.setenv("ECOSCORE_DATA", str(tmp_path))
    recipe = replace(photos(LATTICE["lattice"]), train_scenes=16, val_scenes=1, render_long_side=160)
    prepare_data(recipe, "standin", tmp_path / "own", 1)
    truths = [json.loads(t.read_text()) for part in ("train", "train-hard", "train-steep")
              for t in sorted((tmp_path / "own" / part / "truth").glob("*.json"))]
    decks = [truth["deck"] for truth in truths]
    assert any(name.startswith("generated-") for name in decks) and "standin" in decks
    seeds = [int(name.rsplit("-", 1)[1]) for name in decks if name.startswith("generated-")]
    assert not set(seeds) & set(HELD_OUT_SEEDS)
    assert all(truth["params"]["p_touching"] == 0.5 for truth in truths)
    assert any(truth["params"]["elevation_deg"][0] < 40 for truth in truths)  # the steep part
