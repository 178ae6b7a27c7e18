"""Colour-normalised crops (``vision.crops.colour_normalised``): what a classifier trained on them
is blind to, and that the runtime reads them the way its recipe trained. No training here."""
import json
import shutil

import numpy as np
from conftest import needs_models
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from ecoscore.paths import models_dir
from ecoscore.vision.crops import MAX_GAIN, SPREAD, colour_normalised
from ecoscore.vision.models import CardClassifier


def _card(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    base = rng.integers(40, 200, (8, 8, 3)).astype(np.float32)  # coarse art, mid-grey levels
    return np.kron(base, np.ones((8, 8, 1))).astype(np.uint8)  # 64 x 64


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), gains=st.tuples(*[st.floats(0.5, 1.2)] * 3), offset=st.floats(-15, 15))
def test_a_lamps_cast_and_the_exposure_leave_the_normalised_crop_as_it_was(seed, gains, offset):
    card = _card(seed)
    lit = np.clip(card.astype(np.float32) * np.array(gains) + offset, 0, 255).astype(np.uint8)
    assume(not ((lit == 0).any() or (lit == 255).any()))  # a channel burnt out is not a gain
    # nor one dimmed so far that the gain's cap holds it (a flat channel is not raised fully)
    assume((lit.reshape(-1, 3).std(0) > SPREAD / MAX_GAIN * 1.05).all())
    a, b = colour_normalised(card).astype(int), colour_normalised(lit).astype(int)
    assert np.abs(a - b).max() <= 3  # rounding of the lit copy's own uint8 levels


def test_shape_type_and_spread_and_a_flat_crop_is_not_blown_up():
    card = _card(1)
    out = colour_normalised(card)
    assert out.shape == card.shape and out.dtype == np.uint8
    assert np.allclose(out.reshape(-1, 3).mean(0), 128, atol=2)
    assert np.allclose(out.reshape(-1, 3).std(0), SPREAD, rtol=0.05)
    cloth = np.full((64, 64, 3), 90, np.uint8)
    cloth[::2] += 4  # a faint weave: spread 2 grey levels
    spread = colour_normalised(cloth).reshape(-1, 3).std(0)
    assert (spread <= 2 * MAX_GAIN + 0.5).all()


@needs_models
def test_the_classifier_reads_normalised_crops_only_when_its_recipe_trained_on_them(tmp_path):
    for name in ("classifier.onnx", "classifier.json"):
        shutil.copy(models_dir() / name, tmp_path / name)
    plain = CardClassifier(tmp_path / "classifier.onnx", partner=False)
    meta = json.loads((tmp_path / "classifier.json").read_text())
    meta["recipe"]["normalise_crops"] = True
    (tmp_path / "classifier.json").write_text(json.dumps(meta))
    normalising = CardClassifier(tmp_path / "classifier.onnx", partner=False)
    assert not plain.normalise_crops and normalising.normalise_crops
    crops = [_card(k) for k in range(4)]
    np.testing.assert_allclose(normalising(crops), plain([colour_normalised(c) for c in crops]), atol=1e-5)
    assert not np.allclose(normalising(crops), plain(crops), atol=1e-3)


@needs_models
def test_the_shipped_classifiers_partner_is_asked_only_about_unsure_crops(photo_set):
    from ecoscore.geometry import warp_quad

    paired, alone = CardClassifier(), CardClassifier(partner=False)
    assert paired.partner is not None and paired.partner.normalise_crops and not paired.normalise_crops
    scene = photo_set[0]
    crops = [warp_quad(scene.image, np.array(c["corners"]), paired.imgsz)
             for c in scene.truth["tableaux"][0]["cells"] if c["corners"]]
    # two cards seen through each other, or half of one beside half of another: unsure
    crops += [((a.astype(np.uint16) + b) // 2).astype(np.uint8) for a, b in zip(crops[:8], crops[8:16])]
    crops += [np.concatenate([a[:, :32], b[:, 32:]], 1) for a, b in zip(crops[:8], crops[8:16])]
    first, mixed = alone(crops), paired(crops)
    sure = first.max(1) >= paired.partner_below
    assert sure.any() and (~sure).any()
    np.testing.assert_allclose(mixed[sure], first[sure], atol=1e-6)
    w = paired.partner_weight
    second = paired.partner([c for c, s in zip(crops, sure) if not s])
    np.testing.assert_allclose(mixed[~sure], (1 - w) * first[~sure] + w * second, atol=1e-5)
