"""Table surfaces: wood, cloth, stone, plain, busy patterns. Cheap to make at any size."""
from __future__ import annotations

import cv2
import numpy as np

KINDS = ("wood", "cloth", "stone", "plain", "pattern", "felt")


def _noise(rng, h, w, scale) -> np.ndarray:
    """Smooth value noise in [0, 1] with features about ``scale`` pixels wide."""
    sh, sw = max(2, int(h / scale) + 2), max(2, int(w / scale) + 2)
    small = rng.random((sh, sw), dtype=np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC).clip(0, 1)


def _colorize(gray: np.ndarray, dark, light) -> np.ndarray:
    g = gray[..., None]
    return (np.array(dark, np.float32) * (1 - g) + np.array(light, np.float32) * g).clip(0, 255)


def _random_color(rng, lo=20, hi=235):
    return rng.uniform(lo, hi, 3)


def table_surface(rng: np.random.Generator, h: int, w: int, kind: str | None = None) -> np.ndarray:
    """A BGR uint8 table surface of the given kind (random kind if None)."""
    kind = kind or KINDS[rng.integers(len(KINDS))]
    if kind == "wood":
        angle = rng.uniform(0, np.pi)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        u = xx * np.cos(angle) + yy * np.sin(angle)
        warp = _noise(rng, h, w, rng.uniform(60, 200)) * rng.uniform(20, 80)
        grain = 0.5 + 0.5 * np.sin((u + warp) / rng.uniform(3, 9))
        grain = 0.6 * grain + 0.4 * _noise(rng, h, w, 8)
        base = rng.uniform(0.3, 1.0)
        dark = np.array([30, 60, 100]) * base
        light = np.array([90, 150, 200]) * base + rng.uniform(-20, 20, 3)
        img = _colorize(grain, dark, light)
        plank = rng.uniform(80, 300)  # plank seams across the grain
        v = -xx * np.sin(angle) + yy * np.cos(angle)
        img *= (1 - 0.35 * (np.abs(((v / plank) % 1) - 0.5) > 0.49))[..., None]
    elif kind == "cloth":
        period = rng.uniform(2.5, 6)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        weave = 0.5 + 0.25 * np.sin(xx * 2 * np.pi / period) * np.sin(yy * 2 * np.pi / period)
        gray = 0.7 * weave + 0.3 * _noise(rng, h, w, 30)
        c = _random_color(rng)
        img = _colorize(gray, c * 0.6, np.minimum(c * 1.2, 255))
    elif kind == "stone":
        gray = 0.5 * _noise(rng, h, w, 6) + 0.3 * _noise(rng, h, w, 40) + 0.2 * _noise(rng, h, w, 150)
        c = rng.uniform(90, 210) + rng.uniform(-15, 15, 3)
        img = _colorize(gray, c * 0.55, np.minimum(c * 1.25, 255))
        veins = (np.abs(_noise(rng, h, w, 60) - 0.5) < 0.012).astype(np.float32)
        img = img * (1 - 0.3 * cv2.GaussianBlur(veins, (0, 0), 1.2)[..., None])
    elif kind == "felt":
        c = _random_color(rng, 20, 160)
        img = _colorize(_noise(rng, h, w, 3) * 0.5 + 0.25, c * 0.85, c * 1.1)
    elif kind == "plain":
        c = _random_color(rng, 30, 245)
        img = _colorize(_noise(rng, h, w, 200), c * 0.93, np.minimum(c * 1.05, 255))
    else:  # busy pattern: stripes, checks, blobs and printed shapes in random colours
        img = np.zeros((h, w, 3), np.float32) + _random_color(rng)
        for _ in range(rng.integers(10, 40)):
            color = _random_color(rng).tolist()
            shape = rng.integers(4)
            x, y = int(rng.uniform(0, w)), int(rng.uniform(0, h))
            size = int(rng.uniform(0.02, 0.2) * max(h, w))
            if shape == 0:
                cv2.circle(img, (x, y), size, color, -1, cv2.LINE_AA)
            elif shape == 1:
                cv2.rectangle(img, (x, y), (x + size, y + size // 2), color, -1)
            elif shape == 2:
                cv2.line(img, (x, 0), (x + int(rng.uniform(-w, w)), h), color, max(1, size // 6), cv2.LINE_AA)
            else:
                pts = rng.uniform(0, 1, (5, 2)) * size + (x, y)
                cv2.fillPoly(img, [pts.astype(np.int32)], color, cv2.LINE_AA)
    return img.clip(0, 255).astype(np.uint8)
