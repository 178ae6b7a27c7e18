"""Procedurally generated decks: many card arts, so the card matcher learns to tell whether two
faces show the same art, not what our stand-in art looks like.

A generated deck shares what real decks share across types (a frame, a banner, a text box, a
typeface, a palette family per habitat) and differs per type where real decks differ (the
illustration, its colours, the name). Styles range from framed illustrations to full-bleed art,
big icons, photo-like textures and sparse minimal cards.

A deck may also be drawn *dark* (``dark=True``): near-black cards with light art and lettering,
as many real decks are; on a dark cloth their edges all but vanish. The same seed gives the same
layout either way, and a deck not drawn dark is exactly what it was before dark decks existed.

Seeds are split into families that never meet: training draws from ``TRAIN_SEEDS``; benchmarks
of unseen decks draw from ``HELD_OUT_SEEDS`` (a deck is a pure function of its seed and style).
"""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from ecoscore.scoring import CardType

from .deck import CARD_MM, Deck
from .faces import photo_faces

W, H = 200, 280  # faces are only ever seen at photo scale; ~3 px/mm is plenty
STYLES = ("framed", "fullart", "icon", "texture", "minimal")
TRAIN_SEEDS = range(0, 1_000_000)
HELD_OUT_SEEDS = range(9_000_000, 9_100_000)  # never passed to training (tests check the recipes)
FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX,
         cv2.FONT_HERSHEY_TRIPLEX, cv2.FONT_HERSHEY_PLAIN, cv2.FONT_ITALIC | cv2.FONT_HERSHEY_SIMPLEX)


Color = tuple[float, float, float]  # B, G, R in 0 ... 255


def _color(rng: np.random.Generator, lo: float = 0, hi: float = 255) -> Color:
    b, g, r = (float(v) for v in rng.uniform(lo, hi, 3))
    return b, g, r


def _near(rng: np.random.Generator, base: Color, spread: float) -> Color:
    b, g, r = (float(v) for v in np.clip(np.asarray(base) + rng.normal(0, spread, 3), 0, 255))
    return b, g, r


def _noise(rng, h, w, scale) -> np.ndarray:
    sh, sw = max(2, int(h / scale) + 2), max(2, int(w / scale) + 2)
    return cv2.resize(rng.random((sh, sw), dtype=np.float32), (w, h), interpolation=cv2.INTER_CUBIC).clip(0, 1)


def _gradient(h, w, top, bottom, angle: float) -> np.ndarray:
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    t = (np.cos(angle) * yy / h + np.sin(angle) * xx / w)
    t = ((t - t.min()) / max(1e-6, t.max() - t.min()))[..., None]
    return (1 - t) * np.float32(top) + t * np.float32(bottom)


def _word(rng, lo=3, hi=9) -> str:
    return "".join(rng.choice(list("ABCDEFGHIKLMNOPRSTUVWYZ"), int(rng.integers(lo, hi + 1))))


def _shapes(rng, img: np.ndarray, palette: list, n: int, scale: float) -> None:
    """An "illustration": ellipses, polygons, strokes and stars in the type's palette."""
    h, w = img.shape[:2]
    for _ in range(n):
        color = palette[int(rng.integers(len(palette)))]
        kind = rng.random()
        cx, cy = int(rng.uniform(0, w)), int(rng.uniform(0, h))
        size = max(3, int(rng.uniform(0.08, 0.45) * scale))
        if kind < 0.35:
            cv2.ellipse(img, (cx, cy), (size, max(2, int(size * rng.uniform(0.3, 1.2)))), rng.uniform(0, 180),
                        0, 360, color, -1, cv2.LINE_AA)
        elif kind < 0.6:
            k = int(rng.integers(3, 8))
            ang = np.sort(rng.uniform(0, 2 * np.pi, k))
            rad = size * rng.uniform(0.4, 1.2, k)
            pts = np.stack([cx + rad * np.cos(ang), cy + rad * np.sin(ang)], 1).astype(np.int32)
            cv2.fillPoly(img, [pts], color, cv2.LINE_AA)
        elif kind < 0.8:
            pts = np.cumsum(rng.normal(0, size / 2, (int(rng.integers(3, 7)), 2)), 0) + [cx, cy]
            cv2.polylines(img, [pts.astype(np.int32)], False, color, int(rng.integers(1, 6)), cv2.LINE_AA)
        elif kind < 0.9:
            k = int(rng.integers(5, 9))
            ang = np.linspace(0, 2 * np.pi, 2 * k, endpoint=False) + rng.uniform(0, np.pi)
            rad = np.where(np.arange(2 * k) % 2 == 0, size, size * 0.45)
            pts = np.stack([cx + rad * np.cos(ang), cy + rad * np.sin(ang)], 1).astype(np.int32)
            cv2.fillPoly(img, [pts], color, cv2.LINE_AA)
        else:
            x0, y0 = cx - size, cy - size // 2
            cv2.rectangle(img, (x0, y0), (x0 + 2 * size, y0 + size), color, -1)


class _Style:
    """What one deck keeps the same on every card."""

    def __init__(self, rng: np.random.Generator, style: str):
        self.style = style
        self.frame = _color(rng)
        self.frame_width = int(rng.uniform(3, 16))
        self.banner = rng.random() < 0.8
        self.banner_top = rng.random() < 0.6
        self.banner_height = int(rng.uniform(0.08, 0.12) * H)
        self.banner_color = _color(rng) if rng.random() < 0.5 else None  # None: per type
        self.text_box = rng.random() < 0.6
        self.text_color = _color(rng, 0, 90) if rng.random() < 0.7 else _color(rng, 160, 255)
        self.font = FONTS[int(rng.integers(len(FONTS)))]
        self.corner_icon = rng.random() < 0.5
        # Habitat families: types of one family share a background (real decks do), so the
        # matcher must look at the picture, not only the hue.
        families = int(rng.integers(2, 6))
        bases = [_color(rng, 30, 230) for _ in range(families)]
        self.background = {card: _near(rng, bases[i % families], 18) for i, card in enumerate(rng.permutation(list(CardType)))}
        self.names = {card: _word(rng) for card in CardType}
        self.paper = (235.0, 235.0, 235.0)  # the minimal style's card stock
        self.outline: Color | None = None  # a thin line round the card's edge (dark decks, often)
        self.edition: np.random.Generator | None = None  # another edition's words (``in_edition``)

    def in_edition(self, rng: np.random.Generator) -> None:
        """Another edition of the deck (a language's): the same art, its own names and rules text,
        drawn from a stream of their own (``rng``) so the art stays the seed's."""
        self.names = {card: _word(rng) for card in CardType}
        self.edition = rng

    def darken(self, rng: np.random.Generator) -> None:
        """Near-black card stock, light lettering: drawn from a stream of its own (``rng``) so
        the deck's layout, art and names stay those of its seed."""
        self.frame = _color(rng, 0, 35)
        self.paper = _color(rng, 5, 35)
        self.background = {card: tuple(float(v) * rng.uniform(0.08, 0.3) for v in bg)  # type: ignore[misc]
                           for card, bg in self.background.items()}
        self.text_color = _color(rng, 170, 255)
        self.text_box = self.text_box and rng.random() < 0.3
        self.outline = _color(rng, 90, 230) if rng.random() < 0.5 else None


def _face(rng: np.random.Generator, st: _Style, card: CardType) -> np.ndarray:
    bg = st.background[card]
    palette = [_color(rng) for _ in range(int(rng.integers(2, 6)))]
    face = np.empty((H, W, 3), np.uint8)
    face[:] = np.array(st.frame, np.uint8)
    m = st.frame_width
    inner = face[m:H - m, m:W - m]
    ih, iw = inner.shape[:2]
    if st.style == "fullart" or st.style == "texture":
        art = _gradient(ih, iw, _near(rng, bg, 40), _color(rng), rng.uniform(0, np.pi))
        if st.style == "texture":  # photo-like: layered smooth noise through the type's colours
            for scale in (rng.uniform(20, 60), rng.uniform(5, 15)):
                n = _noise(rng, ih, iw, scale)[..., None]
                art = art * (1 - 0.6 * n) + 0.6 * n * np.array(palette[int(rng.integers(len(palette)))], np.float32)
        art = art.clip(0, 255).astype(np.uint8)
        _shapes(rng, art, palette, int(rng.integers(3, 14)), iw)
        inner[:] = art
    else:
        inner[:] = np.array(bg if st.style != "minimal" else _near(rng, st.paper, 10), np.uint8)
        y0, y1 = int(ih * rng.uniform(0.12, 0.22)), int(ih * rng.uniform(0.55, 0.72))
        pic = inner[y0:y1, 4:iw - 4]
        if st.style == "framed":
            pic[:] = _gradient(pic.shape[0], pic.shape[1], _near(rng, bg, 50), _color(rng), rng.uniform(0, np.pi)).astype(np.uint8)
            _shapes(rng, pic, palette, int(rng.integers(4, 16)), pic.shape[1])
        elif st.style == "icon":  # one big symbol on the type's colour
            icon = np.zeros_like(pic)
            _shapes(rng, icon, [(255, 255, 255)], int(rng.integers(1, 4)), pic.shape[1] * 1.6)
            mask = icon[..., 0] > 0
            pic[mask] = np.array(palette[0], np.uint8)
        else:  # minimal: a small drawing on white
            sub = pic[pic.shape[0] // 5:, pic.shape[1] // 5: 4 * pic.shape[1] // 5]
            _shapes(rng, sub, palette, int(rng.integers(2, 6)), sub.shape[1] * 0.6)
    if st.banner:
        bh = st.banner_height
        y = m + 2 if st.banner_top else H - m - bh - 2
        color = st.banner_color or _near(rng, bg, 60)
        cv2.rectangle(face, (m + 2, y), (W - m - 3, y + bh), color, -1)
        cv2.putText(face, st.names[card], (m + 8, y + bh - 7), st.font, bh / 34, st.text_color, 1, cv2.LINE_AA)
    if st.text_box:
        ty = int(H * 0.74)
        cv2.rectangle(face, (m + 6, ty), (W - m - 7, H - m - 6), _near(rng, (225, 225, 215), 15), -1)

        def text_lines(r: np.random.Generator) -> list[float]:
            return [r.uniform(W * 0.45, W - m - 14) for k in range(int(r.integers(1, 4))) if ty + 12 + 11 * k < H - m - 10]

        ends = text_lines(rng)  # drawn in every edition: the art after it stays the seed's
        for k, end in enumerate(text_lines(st.edition) if st.edition is not None else ends):
            cv2.line(face, (m + 12, ty + 12 + 11 * k), (int(end), ty + 12 + 11 * k), st.text_color, 2)
    if st.corner_icon:
        cv2.circle(face, (m + 14, m + 14), 10, palette[-1], -1, cv2.LINE_AA)
        cv2.putText(face, str(int(rng.integers(1, 13))), (m + 8, m + 19), cv2.FONT_HERSHEY_SIMPLEX, 0.4,
                    (255, 255, 255), 1, cv2.LINE_AA)
    if st.outline is not None:
        cv2.rectangle(face, (1, 1), (W - 2, H - 2), st.outline, 1, cv2.LINE_AA)
    return face


def generate_deck(seed: int, style: str | None = None, dark: bool = False, edition: int = 0) -> Deck:
    """One deck: a face per type, all drawn from ``seed`` (and ``style``, else one chosen by the
    seed); ``dark``: on near-black card stock; ``edition``: another edition of it (1, 2, ...), as
    a language's edition of a real deck is: the same art, other names and rules text."""
    rng = np.random.default_rng((0xDEC4, seed))  # a seed space of its own
    style = style or STYLES[int(rng.integers(len(STYLES)))]
    st = _Style(rng, style)
    if dark:
        st.darken(np.random.default_rng((0xDA4C, seed)))
    if edition:
        st.in_edition(np.random.default_rng((0xED17, seed, edition)))
    faces = {card: [_face(rng, st, card)] for card in CardType}
    name = f"generated-{style}{'-dark' if dark else ''}-{seed}" + (f"-edition-{edition}" if edition else "")
    return Deck(name=name, card_mm=CARD_MM, source=f"ecoscore.datasets.deckgen seed {seed}" + (f" edition {edition}" if edition else ""),
                faces=faces, path=Path("."))


def photo_deck(seed: int) -> Deck:
    """A deck whose art has a photograph's statistics (``faces.photo_faces``: one design, a picture
    per type), the kind of art a real edition prints and none of ``STYLES`` draws."""
    faces = photo_faces(np.random.default_rng((0xF070, seed)), len(CardType))
    return Deck(name=f"generated-photo-{seed}", card_mm=CARD_MM, source=f"ecoscore.datasets.faces photo seed {seed}",
                faces={card: [face] for card, face in zip(CardType, faces)}, path=Path("."))


def write_deck(deck: Deck, out: Path) -> Path:
    """Write a deck in the deck-folder layout (``deck.toml`` and ``<type>/*.png``)."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "deck.toml").write_text(f'name = "{deck.name}"\ncard_mm = [{deck.card_mm[0]}, {deck.card_mm[1]}]\n'
                                   f'source = "{deck.source}"\n', encoding="utf-8")
    for card, faces in deck.faces.items():
        (out / card.value).mkdir(exist_ok=True)
        for i, face in enumerate(faces):
            cv2.imwrite(str(out / card.value / f"{i}.png"), face)
    return out
