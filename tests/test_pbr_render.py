"""The second renderer's truth (bench/pbr_render.py): each card is rendered where its truth
corners say, upright as its corners' order says. A truth a few pixels off, or a face mirrored,
would make every figure the bench prints on these photos wrong."""
from pathlib import Path

import cv2
import numpy as np
import pytest

from ecoscore.datasets.deck import CARD_MM, Deck
from ecoscore.scoring import CardType

mi = pytest.importorskip("mitsuba")  # the pbr extra, in the test install (scripts/setup.sh)
import pbr_render  # noqa: E402  (bench/ is on the path: conftest; it needs mitsuba)


def quadrant_face() -> np.ndarray:
    """Red top left, green top right, blue bottom half (BGR)."""
    face = np.zeros((336, 240, 3), np.uint8)
    face[:168, :120] = (0, 0, 255)
    face[:168, 120:] = (0, 255, 0)
    face[168:] = (255, 0, 0)
    return face


def mean_bgr(image: np.ndarray, quad: np.ndarray) -> np.ndarray:
    mask = np.zeros(image.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, np.round(quad).astype(np.int32), 1)
    assert mask.sum() > 10, "the region is too small to judge"
    return image[mask > 0].mean(0)


def sub_quad(quad: np.ndarray, u0: float, u1: float, v0: float, v1: float) -> np.ndarray:
    """The part of a card between u0-u1 across (corner 0 to 1) and v0-v1 down (corner 0 to 3),
    by bilinear interpolation of its corners."""
    def at(u, v):
        top = quad[0] + (quad[1] - quad[0]) * u
        bottom = quad[3] + (quad[2] - quad[3]) * u
        return top + (bottom - top) * v
    return np.array([at(u0, v0), at(u1, v0), at(u1, v1), at(u0, v1)])


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_every_card_is_rendered_where_and_as_its_truth_says(seed):
    """Seeds 2 and 3 stand a mug beside the grid (its shadow may cross it): it hides no card."""
    mi.set_variant("scalar_rgb")
    deck = Deck("quadrants", CARD_MM, "test", {card: [quadrant_face()] for card in CardType}, Path("."))
    look = pbr_render.Look(steep=bool(seed), p_sleeved=0.0, p_neighbour=0.0, p_holes=0.0, p_mug=float(seed >= 2))
    image, truth = pbr_render.render_photo(deck, np.random.default_rng(seed), look, (480, 360), spp=8)
    assert image.shape[:2] == (truth["height"], truth["width"])
    judged = 0
    for cell in truth["tableaux"][0]["cells"]:
        quad = np.array(cell["corners"])
        if quad.min() < 0 or (quad[:, 0] >= truth["width"]).any() or (quad[:, 1] >= truth["height"]).any():
            continue  # cut by the frame
        red = mean_bgr(image, sub_quad(quad, 0.1, 0.4, 0.1, 0.4))
        green = mean_bgr(image, sub_quad(quad, 0.6, 0.9, 0.1, 0.4))
        blue = mean_bgr(image, sub_quad(quad, 0.1, 0.9, 0.6, 0.9))
        assert red[2] > red[[0, 1]].max() + 20, (cell["row"], cell["col"], red)
        assert green[1] > green[[0, 2]].max() + 20, (cell["row"], cell["col"], green)
        assert blue[0] > blue[[1, 2]].max() + 20, (cell["row"], cell["col"], blue)
        judged += 1
    assert judged >= 10


def test_a_dark_card_is_rendered_dark_not_washed_out():
    """A card of near-black stock (30 of 255) with light ink (220): in the photo its stock is
    about a third as bright as its ink (0.34; its sheen lifts it). It came out at 0.61, the ink
    clipped and the stock mid-grey, while faces were taken as linear light (they are sRGB
    pictures) and the exposure put the frame's 90th percentile at white (a dark table's)."""
    mi.set_variant("scalar_rgb")
    face = np.full((336, 240, 3), 30, np.uint8)
    face[168:] = 220
    deck = Deck("halves", CARD_MM, "test", {card: [face] for card in CardType}, Path("."))
    look = pbr_render.Look(steep=False, p_sleeved=0.0, p_neighbour=0.0, p_holes=0.0, p_mug=0.0)
    image, truth = pbr_render.render_photo(deck, np.random.default_rng(5), look, (480, 360), spp=8)
    ratios = []
    for cell in truth["tableaux"][0]["cells"]:
        quad = np.array(cell["corners"])
        if quad.min() < 0 or (quad[:, 0] >= truth["width"]).any() or (quad[:, 1] >= truth["height"]).any():
            continue
        dark = mean_bgr(image, sub_quad(quad, 0.15, 0.85, 0.1, 0.4)).mean()
        light = mean_bgr(image, sub_quad(quad, 0.15, 0.85, 0.6, 0.9)).mean()
        ratios.append(dark / light)
    assert len(ratios) >= 10
    assert float(np.median(ratios)) < 0.45, ratios


def test_faces_are_handed_over_as_linear_light_and_the_meter_neither_clips_the_ink_nor_blacks_out_round_a_lamp():
    # The two faults the photos showed, each checked without a render: sRGB pictures were
    # handed to Mitsuba as if linear, and the exposure put the frame's 90th percentile at white
    # (a lamp in the frame then made the whole photo black).
    assert pbr_render.srgb_to_linear(np.array([30 / 255, 0.5, 1.0])) == pytest.approx([0.0130, 0.214, 1.0], abs=1e-3)
    hdr = np.full((300, 400, 3), 0.02, np.float32)  # a dark table
    hdr[100:200, 150:200] = 0.012  # a card's near-black stock
    hdr[100:200, 200:250] = 0.7  # its pale ink
    hdr[10:30, 10:30] = 500.0  # a lamp in the frame
    unclipped = 0
    for seed in range(24):
        photo = pbr_render.develop(hdr, np.random.default_rng(seed))
        ink, stock = photo[110:190, 210:240].mean(), photo[110:190, 160:190].mean()
        unclipped += ink < 250
        assert stock < 0.5 * ink  # the stock dark against the ink
        assert np.median(photo) > 15  # not black round the lamp
    # The ink clips only in the photos exposed too bright (about 1 in 6). With the meter counting
    # anything over 8 × the median as merely bright, the cards on this dark table were capped
    # too, and the ink clipped in 20 of 24.
    assert unclipped >= 18
