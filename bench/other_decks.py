"""Decks drawn in styles the deck generator does not draw (never imported by training code):
stained-glass mosaics and silhouettes with a big initial, as tests of a matcher that must hold
for art it was never trained on; and plain lettered cards, a deck beyond it."""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from ecoscore.datasets.deck import CARD_MM, Deck
from ecoscore.paths import fonts_dir
from ecoscore.scoring import CardType

W, H = 240, 336
FONT = fonts_dir() / "DejaVuSans-Bold.ttf"


def _mosaic_face(rng: np.random.Generator, frame, hue_base: float) -> np.ndarray:
    """Voronoi cells in the type's hues, leaded in black, in a shared frame."""
    n = int(rng.integers(12, 40))
    seeds = rng.uniform([0, 0], [W, H], (n, 2)).astype(np.float32)
    hues = (hue_base + rng.normal(0, 12, n)) % 180
    colors = cv2.cvtColor(np.stack([hues, rng.uniform(90, 255, n), rng.uniform(90, 255, n)], 1)
                          .astype(np.uint8)[None], cv2.COLOR_HSV2BGR)[0]
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    d = (xx[..., None] - seeds[:, 0]) ** 2 + (yy[..., None] - seeds[:, 1]) ** 2
    nearest = d.argmin(-1)
    face = colors[nearest]
    edges = cv2.morphologyEx((nearest).astype(np.uint8), cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8)) > 0
    face[edges] = (20, 20, 20)
    cv2.rectangle(face, (0, 0), (W - 1, H - 1), frame, 10)
    return face


def _silhouette_face(rng: np.random.Generator, bg, ink, letter: str) -> np.ndarray:
    """A dark card with a blob silhouette and a large initial, like a minimalist poster."""
    img = Image.new("RGB", (W, H), tuple(int(v) for v in bg))
    draw = ImageDraw.Draw(img)
    cx, cy = W / 2 + rng.normal(0, 15), H * 0.45 + rng.normal(0, 15)
    for _ in range(int(rng.integers(3, 7))):
        rx, ry = rng.uniform(20, 70), rng.uniform(15, 60)
        ox, oy = rng.normal(0, 30), rng.normal(0, 30)
        draw.ellipse([cx + ox - rx, cy + oy - ry, cx + ox + rx, cy + oy + ry], fill=tuple(int(v) for v in ink))
    font = ImageFont.truetype(str(FONT), 64)
    draw.text((16, H - 92), letter, font=font, fill=tuple(int(v) for v in ink))
    draw.rectangle([4, 4, W - 5, H - 5], outline=tuple(int(v) for v in ink), width=3)
    return cv2.cvtColor(np.asarray(img), cv2.COLOR_RGB2BGR)


def mosaic_deck(seed: int) -> Deck:
    rng = np.random.default_rng((0x5A1, seed))
    frame = tuple(float(v) for v in rng.uniform(0, 255, 3))
    hues = rng.permutation(np.linspace(0, 180, len(CardType), endpoint=False))
    faces = {card: [_mosaic_face(rng, frame, h)] for card, h in zip(CardType, hues)}
    return Deck(f"mosaic-{seed}", CARD_MM, "bench/other_decks.py mosaic", faces, Path("."))


def silhouette_deck(seed: int) -> Deck:
    rng = np.random.default_rng((0x5A2, seed))
    bg = rng.uniform(0, 70, 3)
    faces = {card: [_silhouette_face(rng, bg, rng.uniform(140, 255, 3), card.value[0].upper())] for card in CardType}
    return Deck(f"silhouette-{seed}", CARD_MM, "bench/other_decks.py silhouette", faces, Path("."))


def lettered_deck() -> Deck:
    """Plain cards with only the type's name lettered on them: the finder boxes them, but no
    drawing tells the types apart, and the matcher reads them as no card of any deck."""
    font = ImageFont.truetype(str(FONT), 34)
    faces = {}
    for card in CardType:
        face = Image.new("RGB", (W, H), (200, 190, 160))
        draw = ImageDraw.Draw(face)
        draw.rectangle([6, 6, W - 7, H - 7], outline=(60, 50, 40), width=6)
        draw.text((W / 2, H / 2), card.value.upper(), font=font, fill=(40, 30, 20), anchor="mm")
        faces[card] = [cv2.cvtColor(np.asarray(face), cv2.COLOR_RGB2BGR)]
    return Deck("lettered", CARD_MM, "bench/other_decks.py lettered", faces, Path("."))
