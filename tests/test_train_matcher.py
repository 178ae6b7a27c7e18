"""The matcher's training end to end on a tiny bank: it learns, resumes, and its ONNX export
gives the run time the same vectors torch computes."""
import json

import numpy as np
import pytest

pytestmark = [pytest.mark.training, pytest.mark.slow]
torch = pytest.importorskip("torch")


def test_tiny_training_resumes_exports_and_runs_without_torch(tmp_path, monkeypatch):
    from ecoscore.datasets.matchset import EMPTY, FOREIGN, build_bank
    from ecoscore.vision.train_matcher import MatcherRecipe, build_network, to_tensor, train_matcher

    bank = build_bank(tmp_path / "bank.npz", 8, range(0, 4), first=123, workers=1, progress=False)
    data = np.load(bank)
    assert data["crops"].shape[1:] == (64, 64, 3)
    assert {EMPTY, FOREIGN} & set(data["label"].tolist()) and (data["label"] < EMPTY).sum() > 50
    recipe = MatcherRecipe(steps=4, decks_per_step=3, queries_per_deck=4, foreign_per_step=2, empty_per_step=2)
    run = tmp_path / "run"
    short = MatcherRecipe(**{**recipe.__dict__, "steps": 2})
    train_matcher([bank], short, run, threads=1, ship=False, log_every=1)
    onnx = train_matcher([bank], recipe, run, threads=1, ship=False, log_every=1)  # resumes at step 2
    assert [line.split()[1] for line in (run / "log.txt").read_text().splitlines()] == ["1/2", "2/2", "3/4", "4/4"]
    # A fine-tune starts from the run's weights, not from its step: a cycle of its own, on two banks.
    dark = build_bank(tmp_path / "dark.npz", 4, range(4, 8), first=456, p_dark=1.0, workers=1, progress=False)
    fine = tmp_path / "fine"
    still = MatcherRecipe(**{**short.__dict__, "lr": 0.0})  # no step moves a weight: the init's must be there
    train_matcher([bank, dark], still, fine, init=run / "last.pt", threads=1, ship=False, log_every=1)
    assert [line.split()[1] for line in (fine / "log.txt").read_text().splitlines()] == ["1/2", "2/2"]
    started, tuned = torch.load(run / "last.pt", weights_only=False), torch.load(fine / "last.pt", weights_only=False)
    convs = [k for k in started["net"] if k.endswith("weight") and started["net"][k].dim() == 4]
    assert convs and all(torch.equal(started["net"][k], tuned["net"][k]) for k in convs)
    assert tuned["init"] == "run"
    with pytest.raises(ValueError, match="continues a run started from run"):  # not another run's checkpoint
        train_matcher([bank], short, fine, threads=1, ship=False, log_every=1)
    meta = json.loads(onnx.with_suffix(".json").read_text())
    assert meta["imgsz"] == 64 and len(meta["empty"]) == meta["dim"]

    monkeypatch.setenv("ECOSCORE_PRECISION", "f32")
    from ecoscore.vision.matcher import CardEmbedder

    state = torch.load(run / "last.pt", weights_only=False)
    net = build_network(recipe)
    net.load_state_dict(state["net"])
    net.eval()
    crops = data["crops"][:5]
    with torch.no_grad():
        expected = net(to_tensor(crops)).numpy()
    got = CardEmbedder(onnx)(list(crops))
    assert np.abs(got - expected).max() < 1e-4


def test_a_dark_bank_holds_dark_decks_and_names_them_again(tmp_path):
    from ecoscore.datasets.deckgen import generate_deck
    from ecoscore.datasets.matchset import DARK, build_bank, deck_for

    plain = build_bank(tmp_path / "plain.npz", 6, range(0, 4), first=7, workers=1, progress=False)
    dark = build_bank(tmp_path / "dark.npz", 6, range(0, 4), first=7, p_dark=1.0, workers=1, progress=False)
    plain_ids, dark_ids = np.load(plain)["deck"], np.load(dark)["deck"]
    generated = plain_ids >= 0  # the stand-in is never drawn dark
    assert generated.any() and (dark_ids[dark_ids >= 0] >= DARK).all()
    # The same photos and decks, drawn dark: the dark draws take a random stream of their own.
    assert np.array_equal(np.unique(np.where(dark_ids >= DARK, dark_ids - DARK, dark_ids)), np.unique(plain_ids))
    seed = int(dark_ids[dark_ids >= DARK][0]) - DARK
    assert deck_for(seed + DARK).name == generate_deck(seed, dark=True).name != deck_for(seed).name


def test_a_bank_of_photographic_decks_names_them_again_and_leaves_other_banks_as_they_were(tmp_path):
    from ecoscore.datasets.deckgen import photo_deck
    from ecoscore.datasets.matchset import PHOTO, build_bank, deck_for

    plain = build_bank(tmp_path / "plain.npz", 6, range(0, 4), first=7, workers=1, progress=False)
    unset = build_bank(tmp_path / "unset.npz", 6, range(0, 4), first=7, p_photo=0.0, workers=1, progress=False)
    photo = build_bank(tmp_path / "photo.npz", 6, range(0, 4), first=7, p_photo=1.0, workers=1, progress=False)
    assert all(np.array_equal(np.load(plain)[k], np.load(unset)[k]) for k in ("crops", "deck", "label"))
    ids = np.load(photo)["deck"]
    assert (ids[ids >= 0] >= PHOTO).any() and (ids[ids >= 0] >= PHOTO).all()
    seed = int(ids[ids >= PHOTO][0]) - PHOTO
    deck = deck_for(seed + PHOTO)
    assert deck.name == photo_deck(seed).name == f"generated-photo-{seed}"
    # Its types differ: a matcher cannot learn to tell them apart otherwise.
    faces = [deck.faces[t][0].astype(np.int16) for t in deck.faces]
    assert all(np.abs(a - b).mean() > 5 for i, a in enumerate(faces) for b in faces[i + 1:])


def test_the_shipped_matcher_is_trained_on_from_its_onnx(tmp_path):
    """Its checkpoint is not shipped: the ONNX's folded convolutions become the network again
    (the same vectors), and a run from it holds the batch norms, so with no step taken (rate 0)
    its export gives the shipped vectors still."""
    from ecoscore.datasets.matchset import build_bank
    from ecoscore.paths import models_dir
    from ecoscore.vision.matcher import CardEmbedder
    from ecoscore.vision.train_matcher import MatcherRecipe, net_from_onnx, to_tensor, train_matcher

    shipped = models_dir() / "matcher.onnx"
    meta = json.loads(shipped.with_suffix(".json").read_text())
    recipe = MatcherRecipe(**{k: v for k, v in meta["recipe"].items() if k in MatcherRecipe.__dataclass_fields__})
    net, empty = net_from_onnx(shipped, recipe)
    crops = np.random.default_rng(0).integers(0, 256, (6, 64, 64, 3), dtype=np.uint8)
    with torch.no_grad():
        vectors = net.eval()(to_tensor(crops)).numpy()
    np.testing.assert_allclose(vectors, CardEmbedder(shipped)(list(crops)), atol=0.02)  # bfloat16 on some CPUs
    np.testing.assert_allclose(empty.numpy(), meta["empty"], atol=1e-6)
    bank = build_bank(tmp_path / "bank.npz", 8, range(0, 4), first=321, workers=1, progress=False)
    still = MatcherRecipe(**{**recipe.__dict__, "steps": 2, "lr": 0.0, "decks_per_step": 3, "queries_per_deck": 4,
                             "foreign_per_step": 2, "empty_per_step": 2, "p_cover": 0.5})
    onnx = train_matcher([bank], still, tmp_path / "run", init=shipped, threads=1, ship=False, log_every=1)
    np.testing.assert_allclose(CardEmbedder(onnx)(list(crops)), CardEmbedder(shipped)(list(crops)), atol=1e-3)


def test_covered_queries_keep_their_type_or_become_not_ours(tmp_path):
    from ecoscore.datasets.matchset import build_bank
    from ecoscore.vision.train_matcher import Episodes, MatcherRecipe

    bank = build_bank(tmp_path / "bank.npz", 8, range(0, 4), first=654, workers=1, progress=False)
    small = dict(decks_per_step=3, queries_per_deck=4, foreign_per_step=2, empty_per_step=2)
    plain = Episodes([bank], MatcherRecipe(**small)).step(np.random.default_rng(1))
    kept = Episodes([bank], MatcherRecipe(**small, p_cover=1.0)).step(np.random.default_rng(1))
    doubted = Episodes([bank], MatcherRecipe(**small, p_cover=1.0, cover_unreadable=0.0)).step(np.random.default_rng(1))
    cards = 3 * 4
    n_classes = plain[4]
    assert np.array_equal(plain[1], kept[1])  # covered, still its own type
    assert not np.array_equal(plain[0][:cards], kept[0][:cards])
    assert np.array_equal(plain[0][cards:], kept[0][cards:])  # foreign and empty cells are not covered
    assert (doubted[1][:cards] == n_classes + 1).all() and np.array_equal(doubted[1][cards:], plain[1][cards:])
