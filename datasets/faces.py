"""Card faces the renderer draws besides a deck's: random faces (so the card finder learns
"card", not our art) and card backs (face-down distractors)."""
from __future__ import annotations

import cv2
import numpy as np

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
