"""The second renderer's truth (bench/pbr_render.py): each card is rendered where its truth
corners say, upright as its corners' order says. A truth a few pixels off, or a face mirrored,
would make every figure the bench prints on these photos wrong."""
from pathlib import Path

import cv2
import mitsuba as mi  # the pbr extra, in the test install
import numpy as np
import pbr_render  # bench/ is on the path (conftest)
import pytest

from ecoscore.datasets.deck import CARD_MM, Deck
from ecoscore.scoring import CardType


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
