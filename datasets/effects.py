"""What a phone and a room do to a photo: light, colour casts, shadows, glare, blur, noise,
JPEG; and the clutter people leave on a game table. Sizes scale with the image."""
from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from ecoscore.geometry import project


@dataclass
class LightParams:
    uneven: float = 0.45  # strength of a smooth light gradient and vignette
    brightness: tuple[float, float] = (0.45, 1.25)  # overall exposure (dark rooms to bright)
    cast: float = 0.18  # warm / cold colour cast, per-channel gain spread
    p_shadow: float = 0.35  # a soft shadow (a hand, a phone, a lamp) across the scene
    shadow_depth: tuple[float, float] = (0.35, 0.8)
    p_glare: float = 0.25  # a bright specular patch
    p_defocus: float = 0.35
    defocus_sigma: tuple[float, float] = (0.3, 2.2)  # px at 640 long side
    p_motion: float = 0.2
    motion_px: tuple[float, float] = (2.0, 9.0)  # px at 640 long side
    noise_sigma: tuple[float, float] = (0.0, 9.0)  # sensor noise, grey levels
    jpeg_quality: tuple[int, int] = (40, 95)


def _scale(img) -> float:
    return max(img.shape[:2]) / 640


def photometric(img: np.ndarray, rng: np.random.Generator, p: LightParams) -> tuple[np.ndarray, bytes]:
    """Apply light, blur, noise and JPEG to a clean render: (decoded image, the JPEG file)."""
    h, w = img.shape[:2]
    s = _scale(img)
    # Light: a low-resolution field, upsampled (cheap at any size).
    lh, lw = 24, 24 * w // h if w >= h else 24
    lh = 24 if w >= h else 24 * h // w
    yy, xx = np.mgrid[0:lh, 0:lw].astype(np.float32)
    xx, yy = xx / (lw - 1) - 0.5, yy / (lh - 1) - 0.5
    a = rng.uniform(0, 2 * math.pi)
    field = 1 + p.uneven * rng.uniform(0, 1) * (xx * math.cos(a) + yy * math.sin(a))
    field *= 1 - p.uneven * rng.uniform(0, 0.8) * (xx**2 + yy**2)
    field *= rng.uniform(*p.brightness)
    if rng.random() < p.p_shadow:
        mask = np.zeros((lh * 8, lw * 8), np.float32)
        pts = (rng.uniform(0, 1, (int(rng.integers(3, 7)), 2)) * [lw * 8, lh * 8] * 1.4 - [lw * 1.6, lh * 1.6])
        cv2.fillPoly(mask, [cv2.convexHull(pts.astype(np.int32))], 1.0)
        mask = cv2.GaussianBlur(mask, (0, 0), rng.uniform(1.5, 8))
        field = field * cv2.resize(1 - rng.uniform(*p.shadow_depth) * mask, (lw, lh), interpolation=cv2.INTER_AREA)
    gains = 1 + rng.uniform(-p.cast, p.cast) * np.array([1.0, 0.15, -1.0])  # BGR: cold ... warm
    gains *= 1 + rng.uniform(-p.cast / 3, p.cast / 3, 3)
    light = cv2.resize(field, (w, h), interpolation=cv2.INTER_CUBIC)
    out = img.astype(np.float32) * light[..., None] * gains.astype(np.float32)
    if rng.random() < p.p_glare:
        glare = np.zeros((h, w), np.float32)
        center = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
        axes = (int(rng.uniform(0.03, 0.15) * w), int(rng.uniform(0.02, 0.1) * h))
        cv2.ellipse(glare, center, axes, rng.uniform(0, 180), 0, 360, 1.0, -1)
        glare = cv2.GaussianBlur(glare, (0, 0), max(axes) * 0.4 + 1)
        out += glare[..., None] * rng.uniform(80, 220)
    out = out.clip(0, 255)
    # Optics: defocus, then camera shake.
    if rng.random() < p.p_defocus:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(*p.defocus_sigma) * s)
    if rng.random() < p.p_motion:
        length = max(2, int(rng.uniform(*p.motion_px) * s))
        kernel = np.zeros((length, length), np.float32)
        kernel[length // 2, :] = 1 / length
        rot = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), rng.uniform(0, 180), 1)
        kernel = cv2.warpAffine(kernel, rot, (length, length))
        out = cv2.filter2D(out, -1, kernel / max(kernel.sum(), 1e-6))
    sigma = rng.uniform(*p.noise_sigma)
    if sigma > 0:  # sensor noise: stronger in the shadows' relative terms, as on a phone
        out += rng.standard_normal(out.shape, dtype=np.float32) * sigma
    out = out.clip(0, 255).astype(np.uint8)
    quality = int(rng.integers(p.jpeg_quality[0], p.jpeg_quality[1] + 1))
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR), buf.tobytes()


def drop_shadows(canvas: np.ndarray, rng, quads: list[np.ndarray]) -> None:
    """Soft shadows that cards cast on the table (one light, one direction for the scene)."""
    if not quads:
        return
    s = _scale(canvas)
    h, w = canvas.shape[:2]
    small = 4  # draw at quarter size: shadows are soft anyway
    mask = np.zeros((h // small + 1, w // small + 1), np.float32)
    shift = rng.uniform(-3, 3, 2) * s
    for q in quads:
        cv2.fillPoly(mask, [((q + shift) / small).astype(np.int32)], 1.0)
    mask = cv2.GaussianBlur(mask, (0, 0), max(0.8, rng.uniform(1, 4) * s / small))
    mask = cv2.resize(mask, (w, h), interpolation=cv2.INTER_LINEAR)
    canvas[:] = (canvas * (1 - rng.uniform(0.15, 0.45) * mask[..., None])).astype(np.uint8)


def _outside(hull, pt, margin) -> bool:
    return cv2.pointPolygonTest(hull, (float(pt[0]), float(pt[1])), True) < -margin


def clutter_on_table(canvas, rng, Himg, hull, extent, count_range) -> list[dict]:
    """Dice, coins, pens and a score pad, drawn in perspective around (not on) the tableaux."""
    drawn = []
    for _ in range(int(rng.integers(count_range[0], count_range[1] + 1))):
        kind = ["die", "coin", "pen", "pad"][rng.integers(4)]
        for _attempt in range(10):
            center = rng.uniform(-extent, extent, 2)
            if _outside(hull, center, 60 if kind == "pad" else 25):
                break
        else:
            continue
        angle = rng.uniform(0, 2 * math.pi)
        R = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])

        def quad(wd, ht):
            local = np.array([[-wd / 2, -ht / 2], [wd / 2, -ht / 2], [wd / 2, ht / 2], [-wd / 2, ht / 2]])
            return project(Himg, local @ R.T + center).astype(np.int32)

        color = rng.uniform(0, 255, 3).tolist()
        if kind == "die":
            q = quad(16, 16)
            cv2.fillPoly(canvas, [q], color, cv2.LINE_AA)
            cv2.polylines(canvas, [q], True, [c * 0.6 for c in color], 1, cv2.LINE_AA)
            pip = (0, 0, 0) if sum(color) > 380 else (255, 255, 255)
            for _ in range(int(rng.integers(1, 7))):
                p = project(Himg, (rng.uniform(-5, 5, 2) @ R.T + center)[None])[0]
                cv2.circle(canvas, tuple(int(v) for v in p), max(1, int(abs(q[1] - q[0]).max() / 10)), pip, -1, cv2.LINE_AA)
        elif kind == "coin":
            ring = np.array([[12 * math.cos(t), 12 * math.sin(t)] for t in np.linspace(0, 2 * math.pi, 24)])
            q = project(Himg, ring + center).astype(np.int32)
            metal = [(60, 160, 200), (180, 180, 185), (50, 110, 160)][rng.integers(3)]
            cv2.fillPoly(canvas, [q], metal, cv2.LINE_AA)
            cv2.polylines(canvas, [q], True, [c * 0.7 for c in metal], 1, cv2.LINE_AA)
        elif kind == "pen":
            cv2.fillPoly(canvas, [quad(140, 9)], color, cv2.LINE_AA)
        else:  # a score pad: white paper, ruled, with scribbled numbers
            q = quad(100, 150)
            cv2.fillPoly(canvas, [q], (235, 240, 242), cv2.LINE_AA)
            for k in range(1, 14):
                y = -75 + k * 150 / 14
                a, b = project(Himg, np.array([[-50, y], [50, y]]) @ R.T + center).astype(int)
                cv2.line(canvas, tuple(a), tuple(b), (150, 130, 120), 1, cv2.LINE_AA)
                if rng.random() < 0.7:
                    p = project(Himg, (np.array([rng.uniform(-30, 30), y - 3]) @ R.T + center)[None])[0]
                    cv2.putText(canvas, str(rng.integers(0, 30)), tuple(int(v) for v in p), cv2.FONT_HERSHEY_SCRIPT_SIMPLEX,
                                max(0.2, float(np.abs(q[1] - q[0]).max()) / 250), (120, 60, 30), 1, cv2.LINE_AA)
        drawn.append({"kind": kind, "center_mm": [round(float(v), 1) for v in center]})
    return drawn
