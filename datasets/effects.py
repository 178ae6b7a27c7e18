"""What a phone and a room do to a photo: light, colour casts, shadows, glare, blur, noise,
JPEG; and the clutter people leave on a game table. Sizes scale with the image."""
from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from ecoscore.geometry import project
from ecoscore.truthfile import TruthClutter


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
    field: np.ndarray = 1 + p.uneven * rng.uniform(0, 1) * (xx * math.cos(a) + yy * math.sin(a))
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
    out: np.ndarray = img.astype(np.float32) * light[..., None] * gains.astype(np.float32)
    if rng.random() < p.p_glare:
        glare: np.ndarray = np.zeros((h, w), np.float32)
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
        kernel: np.ndarray = np.zeros((length, length), np.float32)
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
    decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    assert decoded is not None  # the JPEG just encoded
    return decoded, buf.tobytes()


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


def clutter_on_table(canvas, rng, Himg, hull, extent, count_range) -> list[TruthClutter]:
    """Dice, coins, pens and a score pad, drawn in perspective around (not on) the tableaux."""
    drawn: list[TruthClutter] = []
    for _ in range(int(rng.integers(count_range[0], count_range[1] + 1))):
        kind = ["die", "coin", "pen", "pad"][rng.integers(4)]
        for _attempt in range(10):
            center = rng.uniform(-extent, extent, 2)
            if _outside(hull, center, 60 if kind == "pad" else 25):
                break
        else:
            continue
        w0 = (Himg @ [0.0, 0.0, 1.0])[2]
        if (Himg @ [center[0], center[1], 1.0])[2] / w0 < 0.2:  # under or behind a close, steep camera
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


# --- What players' tables add (the steep split): lamps, hard shadows, sleeves, hands -------------


def _world_poly(Himg, pts_mm: np.ndarray) -> np.ndarray:
    return project(Himg, pts_mm).astype(np.float32)


def _ellipse_mm(center, rx, ry, angle, n=48) -> np.ndarray:
    t = np.linspace(0, 2 * math.pi, n, endpoint=False)
    local = np.stack([rx * np.cos(t), ry * np.sin(t)], 1)
    c, s = math.cos(angle), math.sin(angle)
    return local @ np.array([[c, s], [-s, c]]) + center


def _mask(h, w, polys, blur_px: float) -> np.ndarray:
    m = np.zeros((h, w), np.float32)
    cv2.fillPoly(m, [np.round(p).astype(np.int32) for p in polys], 1.0, cv2.LINE_AA)
    return cv2.GaussianBlur(m, (0, 0), blur_px) if blur_px > 0.3 else m


def lamp(canvas: np.ndarray, rng, Himg: np.ndarray, focus_mm: np.ndarray, table_xy) -> dict:
    """A lamp over the table, off to one side: light falling off with distance from its foot
    (warm bulb or cold LED), normalised to 1 at the tableaux' centre. ``table_xy``: table
    coordinates (X, Y, sees) on a coarse pixel grid (textures.table_to_image_grid)."""
    X, Y, sees = table_xy
    h, w = canvas.shape[:2]
    height = rng.uniform(350, 900)
    foot = focus_mm + rng.uniform(-1, 1, 2) * rng.uniform(100, 500)
    r2 = (X - foot[0]) ** 2 + (Y - foot[1]) ** 2
    field = (height**2 / (height**2 + r2)) ** 1.5
    at_focus = (height**2 / (height**2 + float(np.sum((focus_mm - foot) ** 2)))) ** 1.5
    field = np.where(sees, field / at_focus, 0.6).astype(np.float32)
    field = cv2.resize(np.clip(field, 0.15, 1.6), (w, h), interpolation=cv2.INTER_CUBIC)
    warm = rng.random() < 0.6
    gains = np.array([0.72, 0.9, 1.1]) if warm else np.array([1.12, 1.02, 0.86])  # BGR
    gains = gains * (1 + rng.uniform(-0.06, 0.06, 3))
    canvas[:] = (canvas * field[..., None] * gains).clip(0, 255).astype(np.uint8)
    return {"kind": "warm" if warm else "cold", "height_mm": round(height), "foot_mm": np.round(foot, 1).tolist()}


def hard_shadow(canvas: np.ndarray, rng, Himg: np.ndarray, focus_mm: np.ndarray, reach_mm: float) -> None:
    """A sharp shadow across the table and cards: an arm, a bottle, the phone itself under a lamp."""
    h, w = canvas.shape[:2]
    width = rng.uniform(40, 140)
    angle = rng.uniform(0, math.pi)
    along = np.array([math.cos(angle), math.sin(angle)])
    side = np.array([-along[1], along[0]])
    center = focus_mm + side * rng.uniform(-0.6, 0.6) * reach_mm
    ends = [center - along * 2 * reach_mm, center + along * rng.uniform(-0.3, 0.8) * reach_mm]
    quad = np.array([ends[0] - side * width / 2, ends[1] - side * width / 2, ends[1] + side * width / 2,
                     ends[0] + side * width / 2])
    m = _mask(h, w, [_world_poly(Himg, quad)], max(0.6, _scale(canvas) * rng.uniform(0.5, 1.5)))
    canvas[:] = (canvas * (1 - rng.uniform(0.3, 0.6) * m[..., None])).astype(np.uint8)


def sleeve_rims(canvas: np.ndarray, rng, Himg: np.ndarray, cards_mm: list[np.ndarray]) -> None:
    """Clear plastic sleeves stick out 1–3 mm round each card: a faint glossy rim on the table.
    Drawn before the cards, which then cover the sleeve's middle."""
    h, w = canvas.shape[:2]
    margin = rng.uniform(1.0, 3.0)
    polys = []
    for quad in cards_mm:
        center = quad.mean(0)
        grow = 1 + 2 * margin / np.linalg.norm(quad[1] - quad[0])
        polys.append(_world_poly(Himg, (quad - center) * grow + center))
    m = _mask(h, w, polys, 0)
    a = rng.uniform(0.08, 0.25)
    canvas[:] = (canvas * (1 - a * m[..., None]) + 235 * a * m[..., None]).astype(np.uint8)


def sleeve_glare(canvas: np.ndarray, rng, Himg: np.ndarray, sleeved_px: list[np.ndarray], focus_mm: np.ndarray,
                 reach_mm: float) -> dict:
    """The lamp mirrored in glossy sleeves: a broad sheen and a bright patch that washes out part
    of a few cards. Only the sleeves shine (the table is matte)."""
    h, w = canvas.shape[:2]
    on = _mask(h, w, sleeved_px, 0)
    center = focus_mm + rng.uniform(-0.5, 0.5, 2) * reach_mm
    angle = rng.uniform(0, math.pi)
    broad = _ellipse_mm(center, rng.uniform(80, 220), rng.uniform(50, 150), angle)
    r = rng.uniform(12, 45)  # the patch: a quarter of a card to about a card and a half wide
    patch = _ellipse_mm(center + rng.uniform(-30, 30, 2), r * rng.uniform(1, 2.2), r, angle)
    size = math.sqrt(abs(cv2.contourArea(_world_poly(Himg, patch))) + 1)
    g = rng.uniform(0.12, 0.35) * _mask(h, w, [_world_poly(Himg, broad)], size * 0.8)
    strength = rng.uniform(0.55, 0.97)
    g = np.maximum(g, strength * _mask(h, w, [_world_poly(Himg, patch)], size * 0.15 + 0.5)) * on
    canvas[:] = (canvas + (255 - canvas.astype(np.float32)) * g[..., None]).clip(0, 255).astype(np.uint8)
    return {"center_mm": np.round(center, 1).tolist(), "radius_mm": round(r, 1), "strength": round(strength, 2)}


def occluder(canvas: np.ndarray, rng, card_quads: list[np.ndarray], max_cover: float = 0.12) -> dict | None:
    """A hand or a phone reaching in from an edge of the frame towards the tableau, pulled back
    until it hides at most ``max_cover`` of any card (a reader should still read every card)."""
    h, w = canvas.shape[:2]
    if not card_quads:
        return None
    card_w = float(np.median([np.linalg.norm(q[1] - q[0]) for q in card_quads]))
    target = card_quads[rng.integers(len(card_quads))].mean(0)
    edge = rng.integers(4)
    start = np.array([[rng.uniform(0, w), 0], [w, rng.uniform(0, h)], [rng.uniform(0, w), h], [0, rng.uniform(0, h)]][edge])
    direction = (target - start) / max(np.linalg.norm(target - start), 1)
    side = np.array([-direction[1], direction[0]])
    kind = "hand" if rng.random() < 0.6 else "phone"
    width = card_w * (rng.uniform(1.3, 2.2) if kind == "hand" else rng.uniform(1.1, 1.6))
    card_masks = []
    for q in card_quads:
        m = np.zeros((h, w), np.uint8)
        cv2.fillPoly(m, [np.round(q).astype(np.int32)], 1)
        card_masks.append((m, max(int(m.sum()), 1)))
    reach = float(np.linalg.norm(target - start))
    for frac in (1.0, 0.85, 0.7, 0.55, 0.4, 0.25):
        tip = start + direction * reach * frac
        shapes = _hand(start, tip, direction, side, width) if kind == "hand" else _phone(start, tip, side, width)
        m = np.zeros((h, w), np.uint8)
        for poly in shapes:
            cv2.fillPoly(m, [np.round(poly).astype(np.int32)], 1)
        if all((m & cm).sum() / area <= max_cover for cm, area in card_masks):
            break
    else:
        return None
    if kind == "hand":
        skin = np.array([rng.uniform(60, 150), rng.uniform(90, 180), rng.uniform(140, 235)])  # BGR
        color = skin
    else:
        color = np.array([rng.uniform(10, 60)] * 3)
    shade = cv2.GaussianBlur(m.astype(np.float32), (0, 0), width * 0.15)  # rounded, lit from above
    body = color[None, None] * (0.7 + 0.3 * shade[..., None])
    soft = cv2.GaussianBlur(m.astype(np.float32), (0, 0), 1.0)[..., None]
    canvas[:] = (canvas * (1 - soft) + body * soft).clip(0, 255).astype(np.uint8)
    covered = [round(float((m & cm).sum() / area), 3) for cm, area in card_masks]  # per card, in order
    return {"kind": kind, "tip": np.round(tip, 1).tolist(), "covered": covered}


def _hand(start, tip, direction, side, width) -> list[np.ndarray]:
    palm_c = tip - direction * width * 0.9
    palm = np.array([palm_c + side * width / 2 * math.cos(t) * 1.0 + direction * width * 0.6 * math.sin(t)
                     for t in np.linspace(0, 2 * math.pi, 24)])
    arm = np.array([start - side * width * 0.4, palm_c - side * width * 0.4, palm_c + side * width * 0.4,
                    start + side * width * 0.4])
    fingers = []
    for k, length in zip(range(4), (0.75, 0.9, 0.85, 0.65)):
        base = palm_c + side * width * (-0.36 + 0.24 * k) + direction * width * 0.4
        end = base + direction * width * length
        fw = width * 0.1
        fingers.append(np.array([base - side * fw, end - side * fw, end + side * fw, base + side * fw]))
    return [arm, palm, *fingers]


def _phone(start, tip, side, width) -> list[np.ndarray]:
    return [np.array([start - side * width / 2, tip - side * width / 2, tip + side * width / 2, start + side * width / 2])]


COVER_KINDS = ("skin", "phone", "noise", "solid", "blurred")


def cover_part(crop: np.ndarray, rng, area: tuple[float, float] = (0.15, 0.6)) -> np.ndarray:
    """The crop with part of it covered (a finger, a phone's edge, a coin, a sticker, anything
    over the card): a band in from one side, a share ``area`` of the crop deep, or a blob whose
    half-axes are each 0.7-1.4 times the radius of a disc of that share (drawn apart, as the
    shipped classifier trained: 0.5-2 times the area, clipped by the crop; in all, 11-94 % of the
    crop covered, 41 % the median), filled with skin, a phone's dark grey, noise, one colour or
    blurred noise. A classifier trained on such
    crops, labelled with the card beneath, names a card from what is left of it, or doubts:
    without them, a patch of noise over a card's middle was read confidently as a stream."""
    h, w = crop.shape[:2]
    share = rng.uniform(*area)
    mask = np.zeros((h, w), np.uint8)
    if rng.random() < 0.5:  # a blob (fingertip, coin, sticker) anywhere on the card
        r = math.sqrt(share * h * w / math.pi)
        ry, rx = r * rng.uniform(0.7, 1.4), r / rng.uniform(0.7, 1.4)  # (two draws: see above)
        centre = (int(rng.uniform(0.2, 0.8) * w), int(rng.uniform(0.2, 0.8) * h))
        cv2.ellipse(mask, centre, (max(1, int(rx)), max(1, int(ry))), float(rng.uniform(0, 180)), 0, 360, 1, -1)
    else:  # a band in from one side (a hand or a phone reaching over)
        depth = int(round(share * h))
        mask[:depth] = 1
        mask = np.ascontiguousarray(np.rot90(mask, int(rng.integers(4))))
    kind = COVER_KINDS[int(rng.integers(len(COVER_KINDS)))]
    if kind == "skin":
        fill = np.array([rng.uniform(60, 150), rng.uniform(90, 180), rng.uniform(140, 235)])[None, None] \
            * rng.uniform(0.75, 1.05, (h, 1, 1))
    elif kind == "phone":
        fill = np.full((h, w, 3), rng.uniform(10, 60))
    elif kind == "noise":
        fill = rng.integers(0, 256, (h, w, 3)).astype(np.float64)
    elif kind == "solid":
        fill = np.broadcast_to(rng.uniform(0, 255, 3), (h, w, 3))
    else:
        fill = cv2.GaussianBlur(rng.integers(0, 256, (h, w, 3)).astype(np.float32), (0, 0), rng.uniform(1, 4)) \
            .astype(np.float64)
    soft = cv2.GaussianBlur(mask.astype(np.float32), (0, 0), 0.8)[..., None]
    return (crop * (1 - soft) + np.broadcast_to(fill, crop.shape) * soft).clip(0, 255).astype(np.uint8)


def cover_cards(image: np.ndarray, quads: list[np.ndarray], kind: str, scale: float, rng) -> np.ndarray:
    """A photo with the middle of each card (``quads``: its corners, shrunk to ``scale`` a side)
    covered by ``kind``: "noise", "grey" (grey noise) or "solid" (one colour): what the reader
    must name right or doubt (``bench/covered_cards.py``)."""
    img = image.copy()
    for q in quads:
        mask = np.zeros(img.shape[:2], np.uint8)
        cv2.fillConvexPoly(mask, np.round(q.mean(0) + (q - q.mean(0)) * scale).astype(np.int32), 255)
        if kind == "noise":
            fill = rng.integers(0, 256, img.shape, dtype=np.uint8)
        elif kind == "grey":
            fill = np.repeat(rng.integers(0, 256, img.shape[:2] + (1,), dtype=np.uint8), 3, 2)
        elif kind == "solid":
            fill = np.broadcast_to(rng.integers(0, 256, 3).astype(np.uint8), img.shape)
        else:
            raise ValueError(f"cover_cards: no cover {kind!r} (noise, grey, solid)")
        img[mask > 0] = fill[mask > 0]
    return img
