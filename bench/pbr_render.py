"""A second renderer: photos of tableaux path-traced by Mitsuba 3, for benchmarks only.

Our own renderer (datasets/scene.py) warps card faces onto a photo and paints light, glare and
blur over them; every model here was trained on its looks, and a bench read on its photos can
flatter the reader. This one shares nothing with it but the deck and the truth format: cards
are thin boxes with a printed face under a real light transport (a lamp bulb and its soft
shadow, a window or a ceiling panel, the room's ambient light, light bounced between the cards
and the cloth), glossy sleeves are a smooth coating that mirrors the lamp, the lens is a thin lens
with its depth of field, and the camera's exposure, noise and JPEG come after. A reader that
holds only on our renderer's photos shows it here (issue #15: "renders from a different
renderer"; issue #14: unseen decks).

    pip install mitsuba  # the `pbr` extra: BSD-licensed, ~60 MB, CPU only
    python bench/pbr_render.py --deck standin --n 30 --seed 1 --out data/pbr/standin
    python bench/pbr_render.py --deck standin --n 30 --seed 2 --steep --out data/pbr/standin-steep
    python bench/pbr_render.py --other mosaic --n 30 --seed 3 --out data/pbr/mosaic

It writes ``images/*.jpg`` and ``truth/*.json`` as ``ecoscore synth`` does, so ``evaluate`` and
the benches read it as any rendered set (``bench/bench_pbr.py``). Units are metres; the table is
the plane z = 0, the camera looks down at it.
"""
from __future__ import annotations

import argparse
import json
import math
import time
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from ecoscore.datasets.deck import Deck, load_deck
from ecoscore.scoring import COLS, ROWS, CardType
from ecoscore.vision.deck_metric import srgb_to_linear  # the reader's sheen uses the same transfer

CARD_T = 0.0003  # a card's thickness (a sleeve's about as much again)


@dataclass
class Camera:
    origin: np.ndarray
    target: np.ndarray
    up: np.ndarray
    fov_x_deg: float
    width: int
    height: int

    def project(self, points: np.ndarray) -> np.ndarray:
        """Table points (N, 3) to pixels (N, 2), as Mitsuba's perspective sensor maps them
        (``look_at``: camera x to the left, y up, z forward; ``fov`` across the film's width)."""
        forward = _unit(self.target - self.origin)
        left = _unit(np.cross(self.up, forward))
        up = np.cross(forward, left)
        rel = points - self.origin
        x, y, z = rel @ left, rel @ up, rel @ forward
        f = (self.width / 2) / math.tan(math.radians(self.fov_x_deg) / 2)
        return np.stack([self.width / 2 - f * x / z, self.height / 2 - f * y / z], 1)


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v)


# --- surfaces: drawn here, not by datasets/textures.py ------------------------------------------

def table_texture(rng: np.random.Generator, extent: float, size: int = 1024) -> tuple[np.ndarray, str]:
    """A table's look as an sRGB image (RGB floats 0-1): wood, a checked or striped cloth, felt,
    a printed play mat with card-sized frames, or stone; and its name."""
    kind = str(rng.choice(["wood", "checks", "stripes", "felt", "playmat", "stone"]))
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32) / size
    base = rng.uniform(0.15, 0.85, 3)
    if kind == "wood":
        warp = cv2.GaussianBlur(rng.normal(0, 1, (size, size)).astype(np.float32), (0, 0), size / 40) * 30
        rings = 0.5 + 0.5 * np.sin((yy * rng.uniform(20, 60) + warp) * math.pi)
        tone = np.array([0.55, 0.36, 0.2]) * rng.uniform(0.5, 1.3)
        img = tone * (0.7 + 0.3 * rings[..., None])
    elif kind in ("checks", "stripes"):
        period = rng.uniform(0.02, 0.09)
        a = (np.floor(xx / period) % 2)
        b = (np.floor(yy / period) % 2) if kind == "checks" else np.zeros_like(a)
        other = rng.uniform(0.1, 0.95, 3)
        mix = (a + b)[..., None] / 2
        img = base * (1 - mix) + other * mix
    elif kind == "playmat":
        img = np.ones((size, size, 3)) * base * 0.6
        cell = rng.uniform(0.08, 0.11) / extent  # frames about a card's size (``extent``: the tile, metres)
        line = rng.uniform(0.7, 1.0, 3)
        for gx in np.arange(0.05, 0.95, cell * 0.8):
            for gy in np.arange(0.05, 0.95, cell):
                p0 = (int(gx * size), int(gy * size))
                p1 = (int((gx + cell * 0.65) * size), int((gy + cell * 0.9) * size))
                cv2.rectangle(img, p0, p1, tuple(float(v) for v in line), max(1, size // 300))
    else:  # felt, stone: noise at two scales
        fine = rng.normal(0, 1, (size, size)).astype(np.float32)
        coarse = cv2.GaussianBlur(fine, (0, 0), size / 25)
        amount = 0.04 if kind == "felt" else 0.25
        img = base * (1 + amount * (cv2.GaussianBlur(fine, (0, 0), 1.2) + 8 * coarse)[..., None])
    return np.clip(img, 0, 1).astype(np.float32), kind


def _bitmap(rgb: np.ndarray):
    """A texture drawn as a picture (sRGB, 0-1), as Mitsuba's reflectance: linear light. Mitsuba
    takes a float bitmap as linear already, so without this every card was printed paler than
    drawn: a near-black card came out mid-purple, its pastel ink washed to white."""
    import mitsuba as mi
    return mi.Bitmap(np.ascontiguousarray(srgb_to_linear(rgb), dtype=np.float32))


def _face_rgb(face_bgr: np.ndarray) -> np.ndarray:
    """The face as the rectangle's texture: Mitsuba's v runs up the rectangle (local +y) from the
    bitmap's first row, so the image is turned upside down to stand upright at +y."""
    return np.flipud(cv2.cvtColor(face_bgr, cv2.COLOR_BGR2RGB)).astype(np.float32) / 255


# --- one scene --------------------------------------------------------------------------------

@dataclass
class Look:
    """What a photo's scene may hold (one draw per photo)."""
    steep: bool = False
    p_sleeved: float = 0.5
    p_neighbour: float = 0.3
    p_holes: float = 0.3
    p_mug: float = 0.5  # a mug or a bottle beside the grid, its shadow over it


def _card(mi, center, size, angle_deg, z, face_rgb, sleeved: bool, rng) -> dict:
    """A card as a flat rectangle, its face up (no edge or thickness is drawn)."""
    T = mi.ScalarTransform4f
    w, h = size
    to_world = (T().translate([float(center[0]), float(center[1]), z]) @ T().rotate([0, 0, 1], angle_deg)
                @ T().scale([w / 2, h / 2, 1]))
    face_tex = {"type": "bitmap", "bitmap": _bitmap(face_rgb), "raw": False, "filter_type": "bilinear"}
    if sleeved:  # a smooth coating over the print: it mirrors the lamp (glare)
        bsdf = {"type": "plastic", "diffuse_reflectance": face_tex, "int_ior": 1.49, "nonlinear": True}
    else:  # printed card stock: a faint sheen
        bsdf = {"type": "roughplastic", "diffuse_reflectance": face_tex, "alpha": float(rng.uniform(0.2, 0.4)),
                "int_ior": 1.5, "distribution": "ggx"}
    return {"type": "rectangle", "to_world": to_world, "bsdf": bsdf}


def _corners(center, size, angle_deg) -> np.ndarray:
    """A card's corners on the table, in the face's own order (its top left first, clockwise
    as seen from above the face), as the truth files give them."""
    w, h = size
    # The face stands upright along local +y (``_face_rgb``); tests/test_pbr_render.py checks it.
    local = np.array([[-w / 2, h / 2], [w / 2, h / 2], [w / 2, -h / 2], [-w / 2, -h / 2]])
    return local @ _rotation(angle_deg).T + np.asarray(center)[:2]


def _rotation(deg: float) -> np.ndarray:
    """Turns table points by ``deg`` about the table's z axis (as Mitsuba's ``rotate`` does)."""
    a = math.radians(deg)
    return np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])


def render_photo(deck: Deck, rng: np.random.Generator, look: Look, size: tuple[int, int], spp: int
                 ) -> tuple[np.ndarray, dict]:
    import mitsuba as mi
    T = mi.ScalarTransform4f
    cw, ch = (v / 1000 for v in deck.card_mm)
    scene: dict = {"type": "scene", "integrator": {"type": "path", "max_depth": 4}}

    # The tableau: a 5 × 4 grid, a gap of its own, each card a little off its cell.
    gap = 0.0 if rng.random() < 0.3 else float(rng.uniform(0.001, 0.02))
    tab_angle = float(rng.uniform(0, 360))
    tableaux = [_tableau(rng, deck, (0.0, 0.0), tab_angle, gap, look, False)]
    if rng.random() < look.p_neighbour:  # a neighbour's tableau beside it, often cut by the frame
        side = math.radians(tab_angle + rng.choice([0, 90, 180, 270]))
        reach = (COLS * (cw + gap) + rng.uniform(0.05, 0.25))
        tableaux.append(_tableau(rng, deck, (reach * math.cos(side), reach * math.sin(side)),
                                 tab_angle + rng.normal(0, 8), float(rng.uniform(0.0, 0.015)), look, True))
    k = 0
    for tab in tableaux:
        for card in tab["placed"]:
            face = deck.faces[card["type"]][int(rng.integers(len(deck.faces[card["type"]])))]
            scene[f"card{k}"] = _card(mi, card["center"], (cw, ch), card["angle"], CARD_T * (1 + 0.05 * (k % 7)),
                                      _face_rgb(face), card["sleeved"], rng)
            k += 1

    extent = float(rng.uniform(1.2, 3.0))  # the texture's tile on the table, metres
    texture, table_kind = table_texture(rng, extent)
    scene["table"] = {"type": "rectangle", "to_world": T().scale([3.0, 3.0, 1]),
                      "bsdf": {"type": "roughplastic", "alpha": float(rng.uniform(0.3, 0.8)),
                               "diffuse_reflectance": {"type": "bitmap", "bitmap": _bitmap(texture), "raw": False,
                                                       "to_uv": mi.ScalarTransform3f().scale([3.0 / extent, 3.0 / extent])}}}

    # The phone: from 40-88° above the table (steep: 25-55°), far enough for the grid's diagonal
    # to span about half to nine tenths of the frame's short side, aimed near the grid's centre.
    elev = math.radians(rng.uniform(25, 55) if look.steep else rng.uniform(40, 88))
    cam_az = rng.uniform(0, 2 * math.pi)
    w_px, h_px = size if rng.random() < 0.5 else size[::-1]
    fov = float(rng.uniform(60, 72)) if w_px >= h_px else float(rng.uniform(45, 55))
    grid_span = math.hypot(COLS * (cw + gap), ROWS * (ch + gap))
    fill = rng.uniform(0.55, 0.95) if not look.steep else rng.uniform(0.45, 0.8)  # of the frame's short side
    dist = grid_span / fill / (2 * math.tan(math.radians(fov) / 2) * min(w_px, h_px) / w_px)
    target = np.array([*rng.normal(0, 0.03, 2), 0.0])
    origin = target + dist * np.array([math.cos(elev) * math.cos(cam_az), math.cos(elev) * math.sin(cam_az),
                                       math.sin(elev)])
    roll = rng.normal(0, 0.08)
    fwd = _unit(target - origin)
    up0 = _unit(np.array([0, 0, 1.0]) - fwd * fwd[2]) if abs(fwd[2]) < 0.999 else np.array([1.0, 0, 0])
    up = up0 * math.cos(roll) + np.cross(fwd, up0) * math.sin(roll)
    cam = Camera(origin, target, up, fov, w_px, h_px)
    sensor_to_world = T().look_at(origin=origin.tolist(), target=target.tolist(), up=up.tolist())
    aperture = float(rng.uniform(0.0003, 0.0015)) if look.steep or rng.random() < 0.5 else 0.0
    scene["sensor"] = {
        "type": "thinlens" if aperture else "perspective", "fov": fov, "fov_axis": "x", "to_world": sensor_to_world,
        **({"aperture_radius": aperture, "focus_distance": float(dist * rng.uniform(0.9, 1.1))} if aperture else {}),
        "film": {"type": "hdrfilm", "width": w_px, "height": h_px, "rfilter": {"type": "gaussian"}},
        "sampler": {"type": "independent", "sample_count": spp, "seed": int(rng.integers(2**31))}}

    # Light: the room's ambient light, and a lamp bulb or a panel (window, ceiling). A mug or a
    # bottle stands beyond the grid as the phone sees it (so it hides no card: a card no one can
    # see is no test of the reader), and in two of three such photos the lamp stands beyond it,
    # casting its shadow across the grid.
    mug_at = None
    if rng.random() < look.p_mug:
        off = float(np.clip(rng.normal(0, 0.35), -0.8, 0.8))
        mug_dir = cam_az + math.pi + off
        radius = float(rng.uniform(0.03, 0.05))
        # Far enough along the line of sight that every ray to a card passes before it.
        d = (grid_span / 2 + radius + rng.uniform(0.02, 0.12)) / math.cos(off)
        mug_at = (d * math.cos(mug_dir), d * math.sin(mug_dir))
        hgt = float(rng.uniform(0.08, 0.25))
        on_neighbour = any(math.hypot(mug_at[0] - x, mug_at[1] - y) < radius + ch
                           for tab in tableaux[1:] for x, y in tab["cells"].values())
        if on_neighbour:
            mug_at = None
    if mug_at is not None:
        scene["mug"] = {"type": "cylinder", "p0": [*mug_at, 0], "p1": [*mug_at, hgt], "radius": radius,
                        "bsdf": {"type": "diffuse", "reflectance": {"type": "rgb", "value": rng.uniform(0.1, 0.9, 3).tolist()}}}
    warmth = float(rng.uniform(-1, 1))  # < 0 cold, > 0 warm
    tint = np.array([1 + 0.35 * warmth, 1.0, 1 - 0.4 * warmth])
    scene["ambient"] = {"type": "constant", "radiance": {"type": "rgb", "value": (tint * rng.uniform(0.05, 0.4)).tolist()}}
    az = rng.uniform(0, 2 * math.pi)
    if mug_at is not None and rng.random() < 2 / 3:
        az = math.atan2(mug_at[1], mug_at[0]) + rng.normal(0, 0.2)
    if rng.random() < 0.6:
        r, height = rng.uniform(0.2, 0.9), rng.uniform(0.35, 1.2)
        if mug_at is not None:
            r = max(r, math.hypot(*mug_at) + 0.1)
        power = rng.uniform(4, 18) * height ** 2
        scene["lamp"] = {"type": "sphere", "center": [r * math.cos(az), r * math.sin(az), height],
                         "radius": float(rng.uniform(0.01, 0.05)),
                         "emitter": {"type": "area", "radiance": {"type": "rgb", "value": (tint * power * 40).tolist()}}}
        light = "bulb"
    else:
        height = rng.uniform(0.8, 2.0)
        scene["panel"] = {"type": "rectangle",
                          "to_world": T().look_at(origin=[1.2 * math.cos(az), 1.2 * math.sin(az), height],
                                                  target=[0, 0, 0], up=[0, 0, 1]) @ T().scale([0.4, 0.4, 1]),
                          "emitter": {"type": "area", "radiance": {"type": "rgb",
                                                                   "value": (tint * rng.uniform(2, 8)).tolist()}}}
        light = "panel"

    hdr = np.array(mi.render(mi.load_dict(scene)))
    image = develop(hdr, rng)

    truth_tabs = []
    for tab in tableaux:
        cells = []
        for r in range(ROWS):
            for c in range(COLS):
                placed = tab["at"].get((r, c))
                cell_quad = cam.project(np.c_[_corners(tab["cells"][(r, c)], (cw, ch), tab["angle"]), np.zeros(4)])
                quad = None if placed is None else cam.project(
                    np.c_[_corners(placed["center"], (cw, ch), placed["angle"]), np.full(4, CARD_T)])
                cells.append({"row": r, "col": c, "type": placed["type"].value if placed else None,
                              "corners": None if quad is None else np.round(quad, 2).tolist(),
                              "cell_corners": np.round(cell_quad, 2).tolist()})
        truth_tabs.append({"grid": [[(tab["at"][(r, c)]["type"].value if (r, c) in tab["at"] else None)
                                     for c in range(COLS)] for r in range(ROWS)],
                           "angle_deg": tab["angle"] % 360, "neighbour": tab["neighbour"], "random_faces": False,
                           "cells": cells})
    truth = {"width": w_px, "height": h_px, "deck": deck.name, "tableaux": truth_tabs, "loose_cards": [],
             "clutter": [], "table_extras": {}, "renderer": "mitsuba3",
             "camera": {"elevation_deg": round(math.degrees(elev), 1), "distance_mm": round(dist * 1000)},
             "params": {"table": table_kind, "light": light, "warmth": round(warmth, 2), "aperture_m": aperture,
                        "sleeved": any(p["sleeved"] for t in tableaux for p in t["placed"]), "steep": look.steep}}
    return image, truth


def _tableau(rng, deck: Deck, origin, angle: float, gap: float, look: Look, neighbour: bool) -> dict:
    cw, ch = (v / 1000 for v in deck.card_mm)
    R = _rotation(angle)
    holes = int(rng.integers(1, 6)) if rng.random() < look.p_holes else 0
    empty = set(rng.choice(ROWS * COLS, holes, replace=False).tolist()) if holes else set()
    sleeved = rng.random() < look.p_sleeved
    types = list(CardType)
    cells, at, placed = {}, {}, []
    for r in range(ROWS):
        for c in range(COLS):
            # Row 0 is the far edge of the grid as its player reads it: the face's top is +y.
            local = np.array([(c - (COLS - 1) / 2) * (cw + gap), ((ROWS - 1) / 2 - r) * (ch + gap)])
            center = local @ R.T + np.asarray(origin)
            cells[(r, c)] = center
            if r * COLS + c in empty:
                continue
            jitter = rng.normal(0, 0.0015 if gap else 0.0004, 2)
            card = {"type": types[int(rng.integers(len(types)))], "center": center + jitter,
                    "angle": angle + float(rng.normal(0, 1.5 if gap else 0.4)), "sleeved": sleeved}
            at[(r, c)] = card
            placed.append(card)
    return {"cells": cells, "at": at, "placed": placed, "angle": angle, "neighbour": neighbour}


# In the meter, nothing counts brighter than this many times the frame's median: a lamp in the
# frame is hundreds of times the table, a white card on a dark table tens (at 8 the cards were
# capped too, and their ink clipped).
LAMP_IN_METER = 64


def develop(hdr: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A phone's development of the linear render: auto exposure (a little off), a tone curve,
    sRGB, sensor noise, and a touch of sharpening; BGR uint8.

    The exposure is metered as a phone meters: the frame's centre-weighted mean brought to middle
    grey, then held down so that its brightest part is not blown out (highlight protection),
    except in about one photo in six, exposed up to half a stop too bright. (Until 2026-11-28 it
    put the frame's 90th percentile at white: on a dark table every card's light half was
    clipped, a pale ink washed out to white.)"""
    lum = hdr @ np.array([0.2126, 0.7152, 0.0722])
    h, w = lum.shape
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    centre = np.exp(-(((xx - w / 2) / (0.4 * w)) ** 2 + ((yy - h / 2) / (0.4 * h)) ** 2))
    seen = np.minimum(lum, LAMP_IN_METER * float(np.median(lum)))  # a lamp in the frame counts as merely bright
    metered = float((seen * centre).sum() / centre.sum()) + 1e-6
    error = rng.uniform(0.55, 1.15)  # the meter's error, ±half a stop about 0.85
    exposure = 0.18 / metered * error / 0.85
    if error < 1.05:  # highlight protection: the brightest 0.5 % at most at the shoulder's knee,
        # by 1.5 stops at most: a lamp in the frame is let clip, as a phone lets it (protected
        # fully, the photo came out black round the lamp)
        exposure = max(exposure / 2.8, min(exposure, 1.0 / (float(np.percentile(lum, 99.5)) + 1e-6)))
    lin = np.clip(hdr * exposure, 0, None)
    lin = lin / (1 + lin / rng.uniform(2.0, 6.0))  # a soft shoulder instead of a hard clip
    srgb = np.where(lin <= 0.0031308, 12.92 * lin, 1.055 * np.power(lin, 1 / 2.4) - 0.055)
    noise = rng.uniform(0.003, 0.02) * math.sqrt(max(1.0, exposure * metered / 0.09))
    srgb = srgb + rng.normal(0, noise, srgb.shape)
    img = np.clip(srgb * 255, 0, 255).astype(np.uint8)
    bgr = cv2.cvtColor(img, cv2.COLOR_RGB2BGR)
    soft = cv2.GaussianBlur(bgr, (0, 0), 1.0)
    return cv2.addWeighted(bgr, 1.4, soft, -0.4, 0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--deck", help="a deck folder or name (standin)")
    which.add_argument("--other", choices=["mosaic", "silhouette", "lettered"], help="a bench deck of another style")
    parser.add_argument("--deck-seed", type=int, default=1, help="which deck of --other's style")
    parser.add_argument("--n", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--steep", action="store_true", help="25-55° above the table, sleeves and a lens' depth of field")
    parser.add_argument("--size", type=int, nargs=2, default=(1600, 1200), metavar=("LONG", "SHORT"))
    parser.add_argument("--spp", type=int, default=32, help="samples a pixel (noise against time)")
    parser.add_argument("--out", type=Path, required=True)
    # scalar_rgb: the LLVM variants abort inside LLVM 15's code generator on this machine.
    parser.add_argument("--variant", default="scalar_rgb", help="Mitsuba variant")
    args = parser.parse_args()
    if args.deck_seed != 1 and args.other in (None, "lettered"):
        parser.error("--deck-seed picks a deck of --other mosaic or --other silhouette")

    import mitsuba as mi
    mi.set_variant(args.variant)
    if args.deck:
        deck = load_deck(args.deck)
    else:  # written beside the photos, so the bench enrols the deck the photos show
        import other_decks  # bench/ is on the path when a bench runs as a script

        from ecoscore.datasets.deckgen import write_deck
        made = {"mosaic": other_decks.mosaic_deck, "silhouette": other_decks.silhouette_deck,
                "lettered": lambda _: other_decks.lettered_deck()}[args.other](args.deck_seed)  # one lettered deck
        deck = load_deck(write_deck(made, args.out / "deck"))
    (args.out / "images").mkdir(parents=True, exist_ok=True)
    (args.out / "truth").mkdir(parents=True, exist_ok=True)
    look = Look(steep=args.steep, p_sleeved=0.7 if args.steep else 0.4, p_neighbour=0.5 if args.steep else 0.2)
    for i in range(args.n):
        t0 = time.perf_counter()
        rng = np.random.default_rng([args.seed, i])
        image, truth = render_photo(deck, rng, look, tuple(args.size), args.spp)
        name = f"{i:06d}"
        quality = int(rng.integers(70, 93))
        cv2.imwrite(str(args.out / "images" / f"{name}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, quality])
        truth |= {"image": f"images/{name}.jpg", "seed": [args.seed, i], "homography": None,
                  "deck_path": str(deck.path.resolve())}
        (args.out / "truth" / f"{name}.json").write_text(json.dumps(truth), encoding="utf-8")
        print(f"{name}: {time.perf_counter() - t0:.1f} s, {truth['params']}", flush=True)


if __name__ == "__main__":
    main()
