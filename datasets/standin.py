"""Draw the stand-in deck: our own art for the 11 types, in the look of real game cards.

Each face has a border, a name banner, an illustration and a rules text box. Types share
colour families (stream / dragonfly / trout are watery; bear / deer / fox brown-orange;
meadow / bee / rabbit green-yellow; wolf / eagle grey-blue), so a model must learn shapes,
not a hue. Run ``python -m ecoscore.datasets.standin`` to redraw ``decks/standin``.
"""
from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from ecoscore.paths import fonts_dir
from ecoscore.scoring import CardType

from .deck import DECKS_DIR

FONTS = fonts_dir()
W, H = 320, 448  # 63.5 × 88.9 mm at ~5 px/mm
VARIANTS = 2

FAMILY = {  # BGR: (border, banner, habitat top, habitat bottom)
    "water": ((90, 60, 20), (150, 110, 40), (215, 190, 140), (170, 130, 60)),
    "earth": ((30, 60, 110), (40, 100, 170), (170, 210, 235), (60, 120, 150)),
    "field": ((40, 110, 50), (60, 160, 90), (220, 235, 200), (80, 170, 110)),
    "sky": ((90, 80, 70), (130, 115, 100), (230, 215, 200), (160, 150, 140)),
}
TYPE_FAMILY = {
    CardType.STREAM: "water", CardType.DRAGONFLY: "water", CardType.TROUT: "water",
    CardType.BEAR: "earth", CardType.DEER: "earth", CardType.FOX: "earth",
    CardType.MEADOW: "field", CardType.BEE: "field", CardType.RABBIT: "field",
    CardType.WOLF: "sky", CardType.EAGLE: "sky",
}
RULE_TEXT = {
    CardType.RABBIT: "1 point. May swap two cards during play.",
    CardType.TROUT: "2 for each adjacent stream or dragonfly.",
    CardType.FOX: "3 if no wolf or bear is adjacent.",
    CardType.BEAR: "2 for each adjacent bee or trout.",
    CardType.DRAGONFLY: "1 per card of each adjacent stream.",
    CardType.BEE: "3 for each adjacent meadow.",
    CardType.EAGLE: "2 for each rabbit or trout within two.",
    CardType.WOLF: "Most wolves 12, second 8, third 4.",
    CardType.DEER: "2 per row and per column with deer.",
    CardType.STREAM: "Largest stream 8, second 5.",
    CardType.MEADOW: "Groups of 1-5+: 0, 3, 6, 10, 15.",
}
ILLU = (18, 62, W - 18, 300)  # x0, y0, x1, y1 of the illustration


def _gradient(top, bottom, h, w) -> np.ndarray:
    t = np.linspace(0, 1, h, dtype=np.float32)[:, None, None]
    img = (1 - t) * np.array(top, np.float32) + t * np.array(bottom, np.float32)
    return np.repeat(img, w, axis=1)


def _poly(img, pts, color, thickness=-1):
    pts = np.array(pts, np.int32).reshape(-1, 1, 2)
    if thickness < 0:
        cv2.fillPoly(img, [pts], color, cv2.LINE_AA)
    else:
        cv2.polylines(img, [pts], False, color, thickness, cv2.LINE_AA)


def _waves(img, rng, color, n, amp, y0, y1, thick):
    h, w = img.shape[:2]
    xs = np.arange(0, w, 4)
    for k in range(n):
        y = y0 + (y1 - y0) * (k + 0.5) / n
        phase = rng.uniform(0, 2 * np.pi)
        ys = y + amp * np.sin(xs / rng.uniform(18, 30) + phase)
        _poly(img, np.stack([xs, ys], 1), color, thick)


def draw_illustration(card: CardType, rng: np.random.Generator) -> np.ndarray:
    """The picture in the middle of the card: a habitat and the creature or landscape."""
    x0, y0, x1, y1 = ILLU
    w, h = x1 - x0, y1 - y0
    fam = FAMILY[TYPE_FAMILY[card]]
    tint = rng.uniform(-18, 18, 3)
    img = np.clip(_gradient(np.add(fam[2], tint), np.add(fam[3], tint), h, w), 0, 255).astype(np.uint8)
    cx, cy = int(w * rng.uniform(0.42, 0.58)), int(h * rng.uniform(0.45, 0.58))
    s = rng.uniform(0.85, 1.1) * w / 280

    def P(dx, dy):
        return (int(cx + dx * s), int(cy + dy * s))

    def E(dx, dy, ax, ay, ang, color, th=-1):
        cv2.ellipse(img, P(dx, dy), (max(1, int(ax * s)), max(1, int(ay * s))), ang, 0, 360, color, th, cv2.LINE_AA)

    if card is CardType.STREAM:
        _waves(img, rng, (160, 100, 30), 7, 9, 10, h - 10, 10)
        _waves(img, rng, (240, 220, 190), 6, 7, 20, h - 20, 3)
        for _ in range(6):
            E(rng.uniform(-120, 120), rng.uniform(-100, 100), 14, 8, 0, (120, 130, 120))
    elif card is CardType.DRAGONFLY:
        _waves(img, rng, (190, 150, 90), 4, 6, h * 0.6, h - 10, 5)
        for ang, dy in ((-20, -30), (20, -30), (-160, -30), (160, -30)):
            E(math.cos(math.radians(ang)) * 55, dy + (10 if abs(ang) > 90 else -5), 58, 13, ang, (235, 225, 200))
            E(math.cos(math.radians(ang)) * 55, dy + (10 if abs(ang) > 90 else -5), 58, 13, ang, (120, 90, 60), 2)
        cv2.line(img, P(0, -60), P(0, 80), (90, 140, 30), max(2, int(9 * s)), cv2.LINE_AA)
        E(0, -62, 11, 11, 0, (60, 90, 20))
    elif card is CardType.TROUT:
        _waves(img, rng, (200, 160, 100), 5, 5, 5, h - 5, 3)
        E(0, 0, 95, 36, rng.uniform(-15, 15), (110, 140, 150))
        E(0, 8, 80, 18, 0, (140, 160, 220))
        _poly(img, [P(85, 0), P(135, -38), P(135, 38)], (100, 130, 140))
        for _ in range(14):
            E(rng.uniform(-70, 60), rng.uniform(-20, 15), 4, 4, 0, (40, 50, 60))
        E(-65, -6, 6, 6, 0, (20, 20, 20))
    elif card is CardType.BEAR:
        E(0, 60, 110, 70, 0, (30, 45, 70))
        E(0, -10, 70, 62, 0, (35, 55, 85))
        E(-52, -62, 20, 20, 0, (35, 55, 85))
        E(52, -62, 20, 20, 0, (35, 55, 85))
        E(0, 12, 28, 20, 0, (90, 120, 150))
        E(0, 2, 10, 7, 0, (10, 10, 10))
        E(-25, -22, 6, 6, 0, (10, 10, 10))
        E(25, -22, 6, 6, 0, (10, 10, 10))
    elif card is CardType.DEER:
        E(0, 70, 70, 55, 0, (50, 100, 150))
        E(0, 0, 32, 50, 0, (60, 115, 170))
        for side in (-1, 1):
            pts = [(side * 15, -45), (side * 45, -95), (side * 80, -110)]
            for a, b in zip(pts, pts[1:]):
                cv2.line(img, P(*a), P(*b), (40, 70, 100), max(2, int(7 * s)), cv2.LINE_AA)
            for t in (0.5, 0.9):
                bx = side * (15 + 30 * t * 1.5)
                by = -45 - 50 * t
                cv2.line(img, P(bx, by), P(bx + side * 5, by - 35), (40, 70, 100), max(2, int(6 * s)), cv2.LINE_AA)
        E(-14, -8, 5, 5, 0, (10, 10, 10))
        E(14, -8, 5, 5, 0, (10, 10, 10))
        E(0, 38, 9, 7, 0, (20, 20, 20))
    elif card is CardType.FOX:
        E(10, 75, 100, 40, -10, (30, 110, 210))
        _poly(img, [P(-70, -55), P(70, -55), P(0, 55)], (40, 120, 225))
        _poly(img, [P(-70, -55), P(-50, -110), P(-25, -55)], (40, 120, 225))
        _poly(img, [P(70, -55), P(50, -110), P(25, -55)], (40, 120, 225))
        _poly(img, [P(-55, -30), P(-5, -5), P(0, 55), P(-30, 0)], (235, 240, 245))
        _poly(img, [P(55, -30), P(5, -5), P(0, 55), P(30, 0)], (235, 240, 245))
        E(0, 50, 8, 7, 0, (20, 20, 20))
        E(-25, -25, 6, 4, 0, (20, 20, 20))
        E(25, -25, 6, 4, 0, (20, 20, 20))
    elif card is CardType.MEADOW:
        for k in range(4):
            E(rng.uniform(-150, 150), 60 + k * 30, 190, 60, 0, (60 + 15 * k, 150 + 10 * k, 80 + 10 * k))
        colors = [(200, 120, 230), (60, 220, 250), (250, 250, 250), (80, 80, 230)]
        for _ in range(70):
            E(rng.uniform(-130, 130), rng.uniform(-10, 120), 5, 5, 0, colors[rng.integers(len(colors))])
        for _ in range(25):
            x = rng.uniform(-130, 130)
            cv2.line(img, P(x, 120), P(x + rng.uniform(-8, 8), rng.uniform(20, 90)), (40, 110, 40), 2, cv2.LINE_AA)
    elif card is CardType.BEE:
        for k in range(3):
            E(rng.uniform(-110, 110), rng.uniform(-90, 100), 10, 10, 0, (60, 210, 250))
        E(-28, -40, 45, 26, -35, (240, 235, 225))
        E(28, -40, 45, 26, 35, (240, 235, 225))
        E(0, 10, 70, 44, 0, (30, 200, 245))
        for dx in (-30, 0, 30):
            cv2.line(img, P(dx, -30), P(dx, 50), (20, 20, 20), max(3, int(14 * s)), cv2.LINE_AA)
        E(-80, 10, 20, 18, 0, (20, 20, 20))
        E(0, 10, 70, 44, 0, (20, 20, 20), 3)
    elif card is CardType.RABBIT:
        E(0, 70, 120, 35, 0, (70, 160, 90))
        E(10, 35, 70, 50, 0, (140, 160, 175))
        E(-40, -10, 36, 32, 0, (150, 170, 185))
        E(-58, -80, 11, 50, -12, (150, 170, 185))
        E(-28, -82, 11, 50, 12, (150, 170, 185))
        E(-58, -80, 5, 38, -12, (170, 170, 230))
        E(-28, -82, 5, 38, 12, (170, 170, 230))
        E(78, 40, 16, 16, 0, (245, 245, 245))
        E(-52, -14, 5, 5, 0, (20, 20, 20))
    elif card is CardType.WOLF:
        E(rng.uniform(-80, 80), -80, 30, 30, 0, (210, 240, 245))
        _poly(img, [P(-75, -50), P(75, -50), P(0, 70)], (110, 110, 115))
        _poly(img, [P(-75, -50), P(-60, -115), P(-25, -50)], (100, 100, 105))
        _poly(img, [P(75, -50), P(60, -115), P(25, -50)], (100, 100, 105))
        _poly(img, [P(-30, 0), P(30, 0), P(0, 70)], (190, 190, 195))
        E(0, 64, 9, 7, 0, (20, 20, 20))
        _poly(img, [P(-38, -22), P(-14, -16), P(-36, -12)], (40, 200, 230))
        _poly(img, [P(38, -22), P(14, -16), P(36, -12)], (40, 200, 230))
    elif card is CardType.EAGLE:
        for _ in range(3):
            E(rng.uniform(-120, 120), rng.uniform(-110, 110), 40, 12, 0, (245, 240, 240))
        _poly(img, [P(0, 0), P(-140, -70), P(-120, -40), P(-130, -20), P(-40, 25)], (40, 60, 90))
        _poly(img, [P(0, 0), P(140, -70), P(120, -40), P(130, -20), P(40, 25)], (40, 60, 90))
        E(0, 20, 28, 50, 0, (50, 70, 100))
        E(0, -40, 22, 22, 0, (245, 245, 245))
        _poly(img, [P(-6, -36), P(12, -32), P(-2, -20)], (40, 190, 240))
        _poly(img, [P(-20, 65), P(0, 100), P(20, 65)], (245, 245, 245))
    return img


def _font(size: int, bold: bool = False):
    return ImageFont.truetype(str(FONTS / ("DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf")), size)


def draw_face(card: CardType, variant: int = 0) -> np.ndarray:
    """One full card face, BGR, W × H."""
    rng = np.random.default_rng([list(CardType).index(card), variant, 2020])
    border, banner, _, _ = FAMILY[TYPE_FAMILY[card]]
    face = np.full((H, W, 3), border, np.uint8)
    cv2.rectangle(face, (10, 10), (W - 11, H - 11), (235, 240, 243), -1)  # inner frame
    cv2.rectangle(face, (14, 14), (W - 15, 56), banner, -1)
    x0, y0, x1, y1 = ILLU
    face[y0:y1, x0:x1] = draw_illustration(card, rng)
    cv2.rectangle(face, (x0, y0), (x1 - 1, y1 - 1), border, 2)
    cv2.rectangle(face, (18, 308), (W - 19, H - 18), (205, 225, 235), -1)
    cv2.rectangle(face, (18, 308), (W - 19, H - 18), border, 2)
    # Text with a real font (PIL), drawn in RGB.
    pil = Image.fromarray(cv2.cvtColor(face, cv2.COLOR_BGR2RGB))
    draw = ImageDraw.Draw(pil)
    title = card.value.upper()
    font = _font(30, bold=True)
    tw = draw.textlength(title, font=font)
    draw.text(((W - tw) / 2, 17), title, font=font, fill=(255, 255, 255))
    body = _font(17)
    words, lines, line = RULE_TEXT[card].split(), [], ""
    for word in words:
        if draw.textlength(f"{line} {word}".strip(), font=body) > W - 60:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    lines.append(line)
    for k, text in enumerate(lines):
        draw.text((30, 322 + 24 * k), text, font=body, fill=(40, 40, 40))
    draw.ellipse((W - 62, H - 62, W - 26, H - 26), fill=tuple(int(c) for c in banner[::-1]))
    draw.text((W - 52, H - 58), str(card.deck_count), font=_font(18, True), fill=(255, 255, 255))
    return cv2.cvtColor(np.asarray(pil), cv2.COLOR_RGB2BGR)


def write_standin(out: Path = DECKS_DIR / "standin") -> None:
    for card in CardType:
        folder = out / card.value
        folder.mkdir(parents=True, exist_ok=True)
        for v in range(VARIANTS):
            cv2.imwrite(str(folder / f"{card.value}-{v + 1}.png"), draw_face(card, v))
    (out / "deck.toml").write_text(
        'name = "standin"\n'
        "card_mm = [63.5, 88.9]\n"
        'source = "drawn by ecoscore.datasets.standin (our own art, AGPL-3.0-or-later)"\n',
        encoding="utf-8",
    )


if __name__ == "__main__":
    write_standin()
