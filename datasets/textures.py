"""Table surfaces: wood, cloth, stone, plain, busy patterns. Cheap to make at any size."""
from __future__ import annotations

import cv2
import numpy as np

KINDS = ("wood", "cloth", "stone", "plain", "pattern", "felt")


def value_noise(rng, h, w, scale) -> np.ndarray:
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
        warp = value_noise(rng, h, w, rng.uniform(60, 200)) * rng.uniform(20, 80)
        grain = 0.5 + 0.5 * np.sin((u + warp) / rng.uniform(3, 9))
        grain = 0.6 * grain + 0.4 * value_noise(rng, h, w, 8)
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
        gray = 0.7 * weave + 0.3 * value_noise(rng, h, w, 30)
        c = _random_color(rng)
        img = _colorize(gray, c * 0.6, np.minimum(c * 1.2, 255))
    elif kind == "stone":
        gray = 0.5 * value_noise(rng, h, w, 6) + 0.3 * value_noise(rng, h, w, 40) + 0.2 * value_noise(rng, h, w, 150)
        c = rng.uniform(90, 210) + rng.uniform(-15, 15, 3)
        img = _colorize(gray, c * 0.55, np.minimum(c * 1.25, 255))
        veins = (np.abs(value_noise(rng, h, w, 60) - 0.5) < 0.012).astype(np.float32)
        img = img * (1 - 0.3 * cv2.GaussianBlur(veins, (0, 0), 1.2)[..., None])
    elif kind == "felt":
        c = _random_color(rng, 20, 160)
        img = _colorize(value_noise(rng, h, w, 3) * 0.5 + 0.25, c * 0.85, c * 1.1)
    elif kind == "plain":
        c = _random_color(rng, 30, 245)
        img = _colorize(value_noise(rng, h, w, 200), c * 0.93, np.minimum(c * 1.05, 255))
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


# Surfaces drawn on the table plane itself (millimetres), then seen through the camera: their
# checks, stripes and printed card slots shrink with depth like the cards do. These are the
# patterns a card finder can mistake for cards, so they must carry true perspective.
WORLD_KINDS = ("checks", "stripes", "woodgrain", "mat")


def table_to_image_grid(Himg: np.ndarray, h: int, w: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Table coordinates (mm) under every pixel, and which pixels see the table at all (in front
    of the camera, below the horizon)."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    Hinv = np.linalg.inv(Himg)
    q = np.stack([xx, yy, np.ones_like(xx)], -1) @ Hinv.T
    # A pixel sees the plane when its back-projected ray meets it in front of the camera: the
    # sign of the third coordinate is that of the plane's own points (checked at the origin).
    front = np.sign((Himg @ [0.0, 0.0, 1.0])[2])
    sees = q[..., 2] * front > 1e-12
    z = np.where(sees, q[..., 2], 1.0)
    return (q[..., 0] / z).astype(np.float32), (q[..., 1] / z).astype(np.float32), sees


def _square_wave(t: np.ndarray, footprint: np.ndarray) -> np.ndarray:
    """A 0/1 square wave of period 1 with edges as soft as one pixel's footprint (in periods),
    fading to grey where a period spans under ~3 pixels (no moiré far away)."""
    s = np.sin(2 * np.pi * t)
    soft = np.clip(s / np.maximum(2 * np.pi * footprint, 1e-6), -1, 1)
    fade = np.clip(1.5 - 3 * footprint, 0, 1)
    return 0.5 + 0.5 * soft * fade


def _world_noise(rng, X, Y, scale_mm: float, extent: float) -> np.ndarray:
    """Value noise in [0, 1] on the table, features ``scale_mm`` wide, sampled at (X, Y)."""
    n = int(2 * extent / scale_mm) + 3
    grid = rng.random((n, n), dtype=np.float32)
    mx = ((X + extent) / scale_mm).astype(np.float32)
    my = ((Y + extent) / scale_mm).astype(np.float32)
    return cv2.remap(grid, mx, my, cv2.INTER_CUBIC, borderMode=cv2.BORDER_REFLECT).clip(0, 1)


def world_surface(rng: np.random.Generator, Himg: np.ndarray, h: int, w: int, kind: str, card_mm,
                  table_mm: float) -> np.ndarray:
    """A BGR table of ``kind`` (WORLD_KINDS) seen through ``Himg``: the table is a square
    ``2 * table_mm`` wide around the origin; past its edge, or above the horizon, is the room."""
    X, Y, sees = table_to_image_grid(Himg, h, w)
    # One pixel's footprint on the table (mm): how fine a pattern this pixel can still show.
    dXx, dXy = np.gradient(X)
    dYx, dYy = np.gradient(Y)
    footprint = np.sqrt(np.abs(dXx * dYy - dXy * dYx)).astype(np.float32)
    footprint = np.where(sees, np.minimum(footprint, 1e4), 1e4)
    angle = rng.uniform(0, np.pi)
    u = X * np.cos(angle) + Y * np.sin(angle)
    v = -X * np.sin(angle) + Y * np.cos(angle)
    c1, c2 = _random_color(rng), _random_color(rng)
    if kind == "checks":  # gingham or a checkerboard, checks a few mm to about a card wide
        period = rng.uniform(12, 70)
        a = _square_wave(u / period, footprint / period)
        b = _square_wave(v / period, footprint / period)
        gray = (a + b) / 2 if rng.random() < 0.5 else np.abs(a - b)
        img = _colorize(gray, c1, c2)
    elif kind == "stripes":
        period = rng.uniform(8, 80)
        gray = _square_wave(u / period, footprint / period)
        img = _colorize(gray, c1, c2)
    elif kind == "woodgrain":
        warp = _world_noise(rng, X, Y, rng.uniform(60, 200), table_mm) * rng.uniform(10, 40)
        period = rng.uniform(2.5, 8)
        grain = 0.5 + 0.5 * np.sin(2 * np.pi * (u + warp) / period) * np.clip(1.5 - 3 * footprint / period, 0, 1)
        grain = 0.65 * grain + 0.35 * _world_noise(rng, X, Y, 12, table_mm)
        base = rng.uniform(0.35, 1.0)
        img = _colorize(grain, np.array([30, 60, 100]) * base, np.array([90, 150, 200]) * base)
        plank = rng.uniform(90, 250)  # plank seams across the grain
        img *= (1 - 0.3 * (((v / plank) % 1) < 2 / plank))[..., None]  # a seam 2 mm wide
    else:  # "mat": a play mat, dark cloth with card-sized slots printed on it
        cw, ch = card_mm
        pitch_x, pitch_y = cw + rng.uniform(4, 20), ch + rng.uniform(4, 20)
        ox, oy = rng.uniform(0, pitch_x), rng.uniform(0, pitch_y)
        fx, fy = ((u + ox) % pitch_x) - pitch_x / 2, ((v + oy) % pitch_y) - pitch_y / 2
        # distance (mm) outside the slot's rectangle, negative inside
        dist = np.maximum(np.abs(fx) - cw / 2, np.abs(fy) - ch / 2)
        line = rng.uniform(1.0, 3.0)
        soft = np.maximum(footprint, 0.5)
        if rng.random() < 0.5:  # outlined slots
            gray = np.clip(1 - (np.abs(dist) - line / 2) / soft, 0, 1)
        else:  # filled slots, a shade lighter than the mat
            gray = 0.6 * np.clip(0.5 - dist / soft, 0, 1)
        dark = _random_color(rng, 10, 90)
        img = _colorize(gray * 0.9 + 0.1 * _world_noise(rng, X, Y, 4, table_mm), dark, _random_color(rng, 120, 240))
    # Past the table's edge, or above the horizon: the room, dim and plain.
    room = _colorize(value_noise(rng, h, w, 80), _random_color(rng, 10, 60), _random_color(rng, 40, 120))
    on_table = sees & (np.abs(X) < table_mm) & (np.abs(Y) < table_mm)
    img = np.where(on_table[..., None], img, room)
    return img.clip(0, 255).astype(np.uint8)
