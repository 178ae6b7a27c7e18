"""Card faces the renderer draws besides a deck's: random faces (so the card finder learns
"card", not our art) and card backs (face-down distractors)."""
from __future__ import annotations

import cv2
import numpy as np

from .textures import table_surface, value_noise

W, H = 160, 224  # random faces are small: they are only ever seen small


def random_face(rng: np.random.Generator) -> np.ndarray:
    """A plausible card of some other game: border, banner, picture, text lines, in random colours."""
    border = rng.uniform(0, 255, 3)
    face = np.empty((H, W, 3), np.uint8)
    face[:] = border.astype(np.uint8)
    inner = rng.uniform(120, 255, 3) if rng.random() < 0.7 else rng.uniform(0, 255, 3)
    m = int(rng.uniform(3, 10))
    cv2.rectangle(face, (m, m), (W - m - 1, H - m - 1), inner.tolist(), -1)
    if rng.random() < 0.8:  # banner
        bh = int(rng.uniform(14, 30))
        cv2.rectangle(face, (m + 2, m + 2), (W - m - 3, m + bh), rng.uniform(0, 255, 3).tolist(), -1)
        cv2.putText(face, "".join(rng.choice(list("ABCDEFGHKLMNOPRSTUVW"), int(rng.integers(3, 9)))),
                    (m + 8, m + bh - 6), cv2.FONT_HERSHEY_SIMPLEX, rng.uniform(0.35, 0.6),
                    rng.uniform(0, 255, 3).tolist(), 1, cv2.LINE_AA)
    y0, y1 = int(H * rng.uniform(0.18, 0.3)), int(H * rng.uniform(0.55, 0.75))
    pic = face[y0:y1, m + 4 : W - m - 4]
    pic[:] = rng.uniform(0, 255, 3)
    for _ in range(rng.integers(2, 10)):  # a "picture": a few shapes
        color = rng.uniform(0, 255, 3).tolist()
        c = (int(rng.uniform(0, pic.shape[1])), int(rng.uniform(0, pic.shape[0])))
        axes = (int(rng.uniform(4, 40)), int(rng.uniform(4, 40)))
        cv2.ellipse(pic, c, axes, rng.uniform(0, 180), 0, 360, color, -1, cv2.LINE_AA)
    for k in range(rng.integers(0, 5)):  # text lines
        y = y1 + 12 + 12 * k
        if y < H - m - 6:
            x1 = int(rng.uniform(W * 0.4, W - m - 8))
            cv2.line(face, (m + 8, y), (x1, y), rng.uniform(0, 120, 3).tolist(), 2)
    return face


def card_back(rng: np.random.Generator) -> np.ndarray:
    """A card back: a repeating pattern with a central emblem."""
    c1, c2 = rng.uniform(0, 255, 3), rng.uniform(0, 255, 3)
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    period = rng.uniform(6, 20)
    t = (0.5 + 0.5 * np.sin(xx / period) * np.cos(yy / period))[..., None]
    face = c1 * t + c2 * (1 - t)
    cv2.rectangle(face, (0, 0), (W - 1, H - 1), (235, 235, 235), 6)
    cv2.ellipse(face, (W // 2, H // 2), (W // 4, H // 5), 0, 0, 360, rng.uniform(0, 255, 3).tolist(), -1, cv2.LINE_AA)
    return face.clip(0, 255).astype(np.uint8)


def wide_face(rng: np.random.Generator) -> np.ndarray:
    """A card of any art at all, so the finder learns a card by its outline and its place in a
    grid, not by what is drawn on it: full-bleed surfaces (wood, cloth, checks: the table's own
    look), painted noise, shards of colour, posters, dark stock; with or without a frame, a
    title band, a text panel. Real editions are full-bleed illustrations the finder never saw."""
    family = rng.integers(5)
    face: np.ndarray
    if family == 0:  # any table surface as the art: the card differs from the table by its edge only
        face = table_surface(rng, H, W).astype(np.float32)
    elif family == 1:  # a painting: colour fields over several scales of noise
        palette = rng.uniform(0, 255, (int(rng.integers(2, 5)), 3)).astype(np.float32)
        paint = value_noise(rng, H, W, 6) * 0.2 + value_noise(rng, H, W, 25) * 0.4 + value_noise(rng, H, W, 80) * 0.4
        idx = paint * (len(palette) - 1)
        lo = np.floor(idx).astype(int).clip(0, len(palette) - 2)
        frac = (idx - lo)[..., None]
        face = palette[lo] * (1 - frac) + palette[lo + 1] * frac
    elif family == 2:  # shards: overlapping polygons, outlined or not
        face = np.zeros((H, W, 3), np.float32) + rng.uniform(0, 255, 3)
        outline = rng.uniform(0, 60, 3).tolist() if rng.random() < 0.5 else None
        for _ in range(int(rng.integers(8, 40))):
            pts = (rng.uniform(-0.1, 1.1, 2) * (W, H) + rng.normal(0, rng.uniform(15, 60), (int(rng.integers(3, 6)), 2)))
            cv2.fillPoly(face, [pts.astype(np.int32)], rng.uniform(0, 255, 3).tolist(), cv2.LINE_AA)
            if outline is not None:
                cv2.polylines(face, [pts.astype(np.int32)], True, outline, int(rng.integers(1, 4)), cv2.LINE_AA)
    elif family == 3:  # a poster: a plain or graded field, a few big shapes, a big glyph
        top, bottom = rng.uniform(0, 255, 3), rng.uniform(0, 255, 3)
        ramp = np.linspace(0, 1, H, dtype=np.float32)[:, None, None]
        face = np.broadcast_to(top * (1 - ramp) + bottom * ramp, (H, W, 3)).copy()
        for _ in range(int(rng.integers(1, 6))):
            cv2.ellipse(face, (int(rng.uniform(0, W)), int(rng.uniform(0, H))),
                        (int(rng.uniform(10, 70)), int(rng.uniform(10, 70))), rng.uniform(0, 180), 0, 360,
                        rng.uniform(0, 255, 3).tolist(), -1, cv2.LINE_AA)
        face = face.astype(np.uint8)  # putText draws on 8-bit images only
        cv2.putText(face, str(rng.choice(list("ABCDEFGHKLMNOPRSTUVW0123456789"))),
                    (int(rng.uniform(5, W / 2)), int(rng.uniform(H / 3, H - 10))), cv2.FONT_HERSHEY_SIMPLEX,
                    rng.uniform(1.5, 4), rng.uniform(0, 255, 3).tolist(), int(rng.integers(2, 8)), cv2.LINE_AA)
    else:  # a scene: sky, ground, blurred blobs (a painted landscape or animal)
        horizon = int(rng.uniform(0.2, 0.8) * H)
        face = np.zeros((H, W, 3), np.float32)
        face[:horizon], face[horizon:] = rng.uniform(60, 255, 3), rng.uniform(0, 200, 3)
        for _ in range(int(rng.integers(3, 12))):
            cv2.ellipse(face, (int(rng.uniform(0, W)), int(rng.uniform(0, H))),
                        (int(rng.uniform(5, 50)), int(rng.uniform(5, 50))), rng.uniform(0, 180), 0, 360,
                        rng.uniform(0, 255, 3).tolist(), -1, cv2.LINE_AA)
        face = cv2.GaussianBlur(face, (0, 0), rng.uniform(0.5, 4))
    face = face.astype(np.float32)
    if rng.random() < 0.3:  # dark stock
        face *= rng.uniform(0.15, 0.5)
    if rng.random() < 0.3:  # a title band
        bh = int(rng.uniform(14, 34))
        cv2.rectangle(face, (0, 0), (W, bh), rng.uniform(0, 255, 3).tolist(), -1)
    if rng.random() < 0.4:  # a text panel
        y0 = int(rng.uniform(0.6, 0.8) * H)
        cv2.rectangle(face, (6, y0), (W - 7, H - 7), rng.uniform(150, 255, 3).tolist(), -1)
        for k in range(int(rng.integers(1, 4))):
            y = y0 + 10 + 10 * k
            if y < H - 12:
                cv2.line(face, (12, y), (int(rng.uniform(W * 0.4, W - 14)), y), rng.uniform(0, 100, 3).tolist(), 2)
    frame = rng.random()
    if frame > 0.35:  # no frame at all in a third: the art runs to the card's edge
        width = int(rng.integers(2, 6)) if frame < 0.7 else int(rng.integers(6, 16))
        color = (255.0, 255.0, 255.0) if rng.random() < 0.3 else rng.uniform(0, 255, 3).tolist()
        cv2.rectangle(face, (0, 0), (W - 1, H - 1), color, width)
    return face.clip(0, 255).astype(np.uint8)

