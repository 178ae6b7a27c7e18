"""A dim photo looked at stretched to the full range of light too (vision/dim_light.py): the
finder boxes dark, low-contrast cards it missed, and a photo in good light is read as before."""
import numpy as np
import pytest
from conftest import needs_models

from ecoscore.datasets.deck import load_deck
from ecoscore.datasets.scene import SceneParams, hard_params, render_scene
from ecoscore.geometry import points_in_quads
from ecoscore.vision.decode import decode
from ecoscore.vision.dim_light import DIM_BELOW, is_dim, stretched
from ecoscore.vision.fits import MAX_PHOTO_CARDS
from ecoscore.vision.models import Detections
from ecoscore.vision.pipeline import Reader


def _photo(grey_low: int, grey_high: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.integers(grey_low, grey_high + 1, (300, 400, 3)).astype(np.uint8)


def test_a_photo_is_dim_when_even_its_brightest_part_stays_low():
    assert is_dim(_photo(0, DIM_BELOW - 20))
    assert not is_dim(_photo(0, 255))
    lamp_lit = _photo(0, 60)
    lamp_lit[:60, :80] = 240  # a lit corner: the photo's light spans the range
    assert not is_dim(lamp_lit)


def test_stretching_spans_the_range_and_keeps_the_colours_in_balance():
    dim = _photo(10, 70).astype(np.float32)
    dim[..., 2] *= 1.5  # a warm cast: more red than blue
    dim = dim.astype(np.uint8)
    out = stretched(dim).astype(np.float32)
    assert out.min() == 0 and out.max() == 255
    # One table for all channels: red stays above blue as much, in proportion to the stretch.
    assert out[..., 2].mean() > 1.3 * out[..., 0].mean()
    order = np.argsort(dim[..., 1].ravel(), kind="stable")
    assert np.all(np.diff(out[..., 1].ravel()[order]) >= 0)  # monotonic: no level swaps places


@pytest.fixture(scope="module")
def deck():
    return load_deck("standin")


def _boxed(reader, scene) -> int:
    photo = decode(scene.jpeg)
    centres = np.array([np.mean(cell["corners"], 0) for tab in scene.truth["tableaux"] for cell in tab["cells"]
                        if cell["type"]]) * photo.scale
    return int(points_in_quads(centres, reader.find(photo.image).quads).any(1).sum())


@needs_models
def test_the_dark_cards_of_a_dim_photo_are_found_on_its_stretched_look_too(reader, deck, monkeypatch):
    # A tuning photo of the hard split (seed 4002, photo 7): three tableaux in a dim room, 56
    # cards. Boxed as it is, 41 of them; with its stretched look too, 52.
    scene = render_scene(deck, (4002, 7), hard_params(long_side=1600))
    assert is_dim(decode(scene.jpeg).image)
    monkeypatch.setattr(reader, "dim_look", False)
    plain = _boxed(reader, scene)
    monkeypatch.setattr(reader, "dim_look", True)
    assert _boxed(reader, scene) >= plain + 8


class _Counting:
    """A finder that counts its looks."""

    def __init__(self, finder):
        self.finder, self.looks = finder, 0

    def __call__(self, *args, **kwargs):
        self.looks += 1
        return self.finder(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.finder, name)


@needs_models
def test_a_photo_in_good_light_is_looked_at_as_before(reader, deck, monkeypatch):
    # A tuning photo of the normal split (seed 4001, photo 2): three tableaux in good light.
    image = decode(render_scene(deck, (4001, 2), SceneParams(long_side=1600)).jpeg).image
    assert not is_dim(image)
    looks = {}
    for dim_look in (False, True):
        counting = _Counting(reader.finder)
        monkeypatch.setattr(reader, "finder", counting)
        monkeypatch.setattr(reader, "dim_look", dim_look)
        boxes = reader.find(image)
        looks[dim_look] = (counting.looks, boxes.quads.round(3).tolist())
    assert looks[True] == looks[False]


class _PatternLifted:
    """A finder that boxes 20 cards in a dim photo and, once its light is stretched, a cloth's
    pattern too: more boxes than a game's tableaux and loose cards hold."""

    imgsz, iou, rect = 512, 0.45, False

    def __call__(self, image, size=None):
        n = MAX_PHOTO_CARDS + 10 if image.max() > 200 else 20
        centres = [(60 + (i % 15) * 130, 80 + (i // 15) * 180) for i in range(n)]
        return Detections(np.array(centres, float), np.tile([170.0, 120.0], (n, 1)), np.full(n, np.pi / 2),
                          np.full(n, 0.8))


def test_a_stretched_look_boxing_too_many_leaves_the_photo_as_it_is_not_refused():
    dim = _photo(0, 60)
    assert is_dim(dim)
    found = Reader(finder=_PatternLifted(), classifier=object()).find(np.tile(dim, (7, 5, 1)))
    assert len(found) == 20
