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


def _photo_art(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """A picture with a photograph's statistics, float32 BGR: a "dead leaves" scene (occluding
    shapes whose sizes follow a power law, as objects in photos do), textured, in two or three
    depths of field, over a graded background; or a close-up texture filling the frame (grass,
    gravel, coins, fur: many small shapes). No real photograph is drawn or needed."""
    hues = rng.uniform(0, 180, int(rng.integers(2, 5)))
    def colour() -> list[float]:
        hsv = np.array([[[rng.choice(hues) + rng.normal(0, 8), rng.uniform(20, 230), rng.uniform(25, 250)]]])
        return cv2.cvtColor((hsv % [180, 256, 256]).astype(np.uint8), cv2.COLOR_HSV2BGR)[0, 0].astype(float).tolist()
    top, bottom = np.array(colour(), np.float32), np.array(colour(), np.float32)
    ramp = np.linspace(0, 1, h, dtype=np.float32)[:, None, None]
    art = np.broadcast_to(top * (1 - ramp) + bottom * ramp, (h, w, 3)).copy()
    close_up = rng.random() < 0.3
    layers = 1 if close_up else int(rng.integers(2, 4))
    for layer in range(layers):
        r_min, r_max = (1.5, w * 0.12) if close_up else (2.0, w * rng.uniform(0.3, 0.8))
        n = int(rng.integers(150, 500)) if close_up else int(rng.integers(8, 40))
        # Pareto sizes: a few big shapes, many small ones (fewer and bigger away from a close-up).
        alpha = rng.uniform(1.5, 2.5) if close_up else rng.uniform(0.6, 1.2)
        radii = np.minimum(r_min * (1 - rng.random(n)) ** (-1 / alpha), r_max)
        for r in radii[np.argsort(-radii)]:  # big ones behind
            c = (int(rng.uniform(-0.1, 1.1) * w), int(rng.uniform(-0.1, 1.1) * h))
            if rng.random() < 0.6:
                cv2.ellipse(art, c, (max(1, int(r)), max(1, int(r * rng.uniform(0.3, 1.0)))), rng.uniform(0, 180), 0,
                            360, colour(), -1, cv2.LINE_AA)
            else:
                pts = np.array(c) + rng.normal(0, r, (int(rng.integers(3, 7)), 2))
                cv2.fillPoly(art, [pts.astype(np.int32)], colour(), cv2.LINE_AA)
        grain = rng.uniform(0.1, 0.5)  # the surfaces' fine texture (fur, grass, stone), strong or faint
        art *= (1 - grain / 2 + grain * value_noise(rng, h, w, rng.uniform(1.5, 6)))[..., None]
        if layer < layers - 1:  # what lies behind the subject is out of focus
            art = cv2.GaussianBlur(art, (0, 0), rng.uniform(1.0, 4.0))
    if not close_up and rng.random() < 0.7:  # a subject in focus: a shaded body of a few parts
        centre = np.array([w, h]) * rng.uniform(0.3, 0.7, 2)
        tone = np.array(colour(), np.float32)
        for _ in range(int(rng.integers(2, 6))):
            part = centre + rng.normal(0, w * 0.12, 2)
            axes = (int(w * rng.uniform(0.06, 0.25)), int(w * rng.uniform(0.05, 0.2)))
            body = np.zeros((h, w), np.float32)
            cv2.ellipse(body, (int(part[0]), int(part[1])), axes, rng.uniform(0, 180), 0, 360, 1.0, -1, cv2.LINE_AA)
            shade = 0.6 + 0.6 * value_noise(rng, h, w, rng.uniform(8, 30))
            art = art * (1 - body[..., None]) + (tone * shade[..., None]) * body[..., None]
    art *= (0.8 + 0.4 * value_noise(rng, h, w, w * 0.7))[..., None]  # light across the scene
    return art.clip(0, 255)


def photo_faces(rng: np.random.Generator, n: int) -> list[np.ndarray]:
    """``n`` faces of one deck whose art is photographs or detailed paintings (a real edition's
    kind of art, which neither the generated decks nor ``wide_face`` draw): one design shared by
    all, as a deck's is (the picture to the card's edges with or without a thin border and a name
    plate; or a printed card with a banner, the picture in a window and a text panel)."""
    design = rng.choice(3, p=[0.4, 0.3, 0.3])
    border = (255.0, 255.0, 255.0) if rng.random() < 0.4 else rng.uniform(0, 255, 3).tolist()
    border_px = int(rng.integers(0, 9))
    plate = rng.uniform(0, 255, 3).tolist()
    stock = rng.uniform(120, 245, 3)
    dark = rng.random() < 0.2
    faces = []
    for _ in range(n):
        if design == 2:  # printed: stock, a banner, the picture in a window, a text panel
            face = np.zeros((H, W, 3), np.float32) + stock
            cv2.rectangle(face, (6, 6), (W - 7, 30), plate, -1)
            face[36:36 + int(H * 0.5), 10:W - 10] = _photo_art(rng, int(H * 0.5), W - 20)
            for k in range(3):
                y = int(H * 0.5) + 50 + 12 * k
                cv2.line(face, (14, y), (int(rng.uniform(W * 0.4, W - 14)), y), (40, 40, 40), 2)
        else:
            face = _photo_art(rng, H, W)
            if design == 1:  # a name plate across the foot, or a title band across the top
                y0 = int(H * 0.8) if rng.random() < 0.6 else 0
                band = face[y0:y0 + int(H * 0.12)]
                band[:] = band * 0.35 + np.array(plate, np.float32) * 0.65
        if dark:
            face *= rng.uniform(0.2, 0.5)
        if border_px:
            cv2.rectangle(face, (0, 0), (W - 1, H - 1), border, border_px)
        faces.append(face.clip(0, 255).astype(np.uint8))
    return faces
