"""Training crops with part of the card covered (``datasets.effects.cover_part``): how much is
covered, that the rest is left as it was, and that a recipe without covers renders the same
crops as before (the covers draw from the random stream only when asked for)."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ecoscore.datasets.deck import load_deck
from ecoscore.datasets.effects import cover_part
from ecoscore.datasets.scene import SceneParams, render_scene
from ecoscore.datasets.yolo import cell_crops


def _art(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.kron(rng.integers(0, 256, (8, 8, 3)), np.ones((8, 8, 1))).astype(np.uint8)  # 64 x 64


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 100_000))
def test_a_cover_hides_a_part_of_the_card_and_leaves_the_rest(seed):
    card = _art(seed)
    out = cover_part(card, np.random.default_rng(seed))
    assert out.shape == card.shape and out.dtype == np.uint8
    changed = np.abs(out.astype(int) - card.astype(int)).max(2) > 0
    # 15-60 % asked; the soft edge and a blob's ellipse at the crop's border give or take a little
    # (a cover the colour of the card beneath changes nothing where they match: at least some of it)
    assert 0.02 <= changed.mean() <= 0.75
    assert (~changed).mean() >= 0.25  # always some card left to read or doubt


def test_crops_without_covers_are_the_crops_they_were():
    scene = render_scene(load_deck("standin"), (5, 1), SceneParams(long_side=800, p_multi=0.0))
    plain = cell_crops(scene.image, scene.truth, np.random.default_rng(3))
    asked_none = cell_crops(scene.image, scene.truth, np.random.default_rng(3), p_cover=0.0)
    assert len(plain) == len(asked_none) == 20
    assert all(np.array_equal(a, b) and na == nb for (a, na), (b, nb) in zip(plain, asked_none))
    covered = cell_crops(scene.image, scene.truth, np.random.default_rng(3), p_cover=1.0)
    assert [name for _, name in covered] == [name for _, name in plain]  # labelled with the card beneath
    assert sum(not np.array_equal(a, b) for (a, _), (b, _) in zip(plain, covered)) >= 18
