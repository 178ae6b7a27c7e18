"""The scene renderer: a phone photo of a table with one or more Ecosystem tableaux on it.

Geometry is honest: cards are laid out on the table plane in millimetres and projected through
a pinhole camera (elevation, azimuth, roll, a wide phone lens), so perspective, foreshortening
and the labels all come from one homography per card. Every knob is a field of ``SceneParams``;
the same seed gives the same image.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import cv2
import numpy as np

from ecoscore.geometry import project
from ecoscore.scoring import COLS, ROWS, CardType
from ecoscore.truthfile import Truth

from . import effects, textures
from .deck import Deck
from .faces import card_back, photo_faces, random_face, wide_face
from .textures import table_surface


@dataclass
class SceneParams:
    """Every randomisation of a scene. Ranges are (low, high), probabilities in [0, 1]."""

    long_side: int = 640  # output width or height, whichever is larger
    aspects: tuple[float, ...] = (4 / 3, 4 / 3, 16 / 9, 1.0)
    p_portrait: float = 0.5
    # Layout of a tableau on the table (mm and degrees).
    gap_mm: tuple[float, float] = (0.0, 9.0)
    p_touching: float = 0.35  # gap exactly 0: cards edge to edge
    card_offset_mm: float = 2.5  # each card's own small shift (std)
    card_tilt_deg: float = 2.5  # each card's own small rotation (std)
    p_card_flipped: float = 0.03  # a card put down upside down
    p_hole: float = 0.25  # a tableau with empty cells (mid-game)
    max_holes: int = 6
    min_holes: int = 1  # (20 with max_holes 20: a tableau's place with no card at all, for tests)
    tableaux: tuple[int, int] = (1, 4)  # how many tableaux in one photo
    p_multi: float = 0.15  # chance of more than one tableau
    # Camera.
    elevation_deg: tuple[float, float] = (40.0, 90.0)  # 90: straight above
    fov_deg: tuple[float, float] = (62.0, 82.0)  # a wide phone lens, across the long side
    fill: tuple[float, float] = (0.25, 0.95)  # share of the frame's area the tableaux' box covers
    p_cut_off: float = 0.12  # the tableau runs off an edge of the frame
    # Faces.
    p_random_faces: float = 0.0  # a whole tableau of random faces (for the card finder)
    # Of those, the share drawn as cards of any art at all (``faces.wide_face``), from a random
    # stream of their own: at 0 every scene renders as before.
    p_wide_faces: float = 0.0
    # Of the random-faced tableaux not drawn of any art, the share whose cards are one deck of
    # photographic art (``faces.photo_faces``), from a stream of its own too.
    p_photo_faces: float = 0.0
    bend: float = 0.5  # strength of slightly bent cards, 0 to 1
    # Clutter and light (see effects.py for the photometric knobs).
    loose_cards: tuple[int, int] = (0, 4)
    p_face_down: float = 0.4
    clutter: tuple[int, int] = (0, 6)  # dice, coins, pens, a score pad
    light: effects.LightParams = field(default_factory=effects.LightParams)
    photometric: bool = True  # False: a clean render (no light, blur, noise; lossless)
    table: str | None = None  # a table surface kind (textures.KINDS); None: any
    # What players' tables add (the steep split). All off by default: these draw from their own
    # random stream, so the normal and hard splits render exactly as before.
    camera_mm: tuple[float, float] = (1000.0, 1000.0)  # camera to the tableaux' centre; closer: stronger perspective
    p_world_table: float = 0.0  # a patterned cloth, wood or play mat drawn on the table plane (in perspective)
    world_kinds: tuple[str, ...] = textures.WORLD_KINDS  # which of them
    p_sleeves: float = 0.0  # a tableau's cards in glossy sleeves (rims, sheen, a glare patch)
    p_lamp: float = 0.0  # a lamp off to one side: falloff, a warm or cold colour
    p_hard_shadow: float = 0.0  # a sharp shadow across the tableau
    p_neighbour: float = 0.0  # a neighbour's tableau beside the player's, often cut by the frame
    # ... placed first this far from the photo's centre (in tableau widths), then moved out until
    # it lies ``neighbour_gap_mm`` from the player's: players sitting close lay theirs a few mm off.
    neighbour_reach: tuple[float, float] = (0.75, 1.0)
    neighbour_gap_mm: float = 20.0
    p_occluder: float = 0.0  # a hand or phone reaching in over the edge of the grid
    occluder_cover: float = 0.12  # ... pulled back until it hides at most this share of any card
    # A table the colour of the cards' own edges (a white cloth under white-bordered cards, a dark
    # mat under a dark deck): where card and cloth meet, only the texture and the thin shadow tell
    # them apart. From a stream of its own, so that every scene that does not ask renders as before.
    p_table_like_cards: float = 0.0


@dataclass
class Placed:
    """A card on the table: world corners (mm), and the face drawn on it."""

    world: np.ndarray  # 4 × 2, the card's own TL, TR, BR, BL
    face: np.ndarray
    type: CardType | None  # None: a random face or a card back
    face_up: bool = True


def _rot(deg: float) -> np.ndarray:
    a = math.radians(deg)
    return np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])


def _card_corners(center, w, h, deg) -> np.ndarray:
    local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    return local @ _rot(deg).T + center


def camera_homography(rng, params: SceneParams, size: tuple[int, int], pose: dict | None = None) -> np.ndarray:
    """Table plane (mm, z = 0) to image pixels, for a random phone pose looking at the origin.
    ``pose``, when given, receives the camera's elevation (degrees) and distance (mm)."""
    w, h = size
    elev = math.radians(min(89.5, rng.uniform(*params.elevation_deg)))
    azim = rng.uniform(0, 2 * math.pi)
    lo, hi = params.camera_mm
    dist = lo if lo == hi else rng.uniform(lo, hi)  # no draw when fixed: older splits render as before
    if pose is not None:
        pose.update(elevation_deg=round(math.degrees(elev), 1), distance_mm=round(dist))
    cam = dist * np.array([math.cos(elev) * math.cos(azim), math.cos(elev) * math.sin(azim), math.sin(elev)])
    fwd = -cam / np.linalg.norm(cam)
    right = np.cross(fwd, [0.0, 0.0, 1.0])
    if np.linalg.norm(right) < 1e-6:
        right = np.array([1.0, 0.0, 0.0])
    right /= np.linalg.norm(right)
    down = np.cross(fwd, right)
    roll = rng.uniform(0, 2 * math.pi)  # the phone held at any angle
    c, s = math.cos(roll), math.sin(roll)
    right, down = c * right + s * down, -s * right + c * down
    R = np.stack([right, down, fwd])
    t = -R @ cam
    f = (max(w, h) / 2) / math.tan(math.radians(rng.uniform(*params.fov_deg)) / 2)
    K = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1]])
    # The layout works like an image seen from above (y runs towards the viewer, "down" the
    # table); the camera's world has y away from it. Flip y, or every photo is a mirror image.
    return K @ np.column_stack([R[:, 0], R[:, 1], t]) @ np.diag([1.0, -1.0, 1.0])


def _fit_to_frame(rng, H, world_pts, params: SceneParams, size) -> np.ndarray:
    """Scale and shift the image so the tableaux' box covers ``fill`` of the frame, maybe cut off."""
    w, h = size
    img = project(H, world_pts)
    x0, y0 = img.min(0)
    x1, y1 = img.max(0)
    target = math.sqrt(rng.uniform(*params.fill) * w * h)
    k = target / math.sqrt(max((x1 - x0) * (y1 - y0), 1e-9))
    k = min(k, 0.98 * w / (x1 - x0), 0.98 * h / (y1 - y0))  # keep the box within the frame
    bw, bh = (x1 - x0) * k, (y1 - y0) * k
    if rng.random() < params.p_cut_off:
        ox = rng.uniform(-0.25 * bw, w - 0.75 * bw)
        oy = rng.uniform(-0.25 * bh, h - 0.75 * bh)
    else:
        ox, oy = rng.uniform(0, w - bw), rng.uniform(0, h - bh)
    S = np.array([[k, 0, ox - k * x0], [0, k, oy - k * y0], [0, 0, 1]])
    return S @ H


class FaceCache:
    """Faces pre-shrunk by powers of two, so warping never aliases, plus their alpha masks."""

    def __init__(self) -> None:
        self._levels: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}

    def get(self, face: np.ndarray, target_px: float) -> tuple[np.ndarray, np.ndarray]:
        level = 0
        while face.shape[1] / 2 ** (level + 1) >= max(target_px, 8) * 1.2 and level < 6:
            level += 1
        key = (id(face), level)
        if key not in self._levels:
            small = face
            for _ in range(level):
                small = cv2.pyrDown(small)
            hh, ww = small.shape[:2]
            alpha = np.zeros((hh, ww), np.uint8)
            r = max(1, int(round(ww * 0.045)))  # rounded card corners
            cv2.rectangle(alpha, (r, 0), (ww - 1 - r, hh - 1), 255, -1)
            cv2.rectangle(alpha, (0, r), (ww - 1, hh - 1 - r), 255, -1)
            for cx, cy in ((r, r), (ww - 1 - r, r), (r, hh - 1 - r), (ww - 1 - r, hh - 1 - r)):
                cv2.circle(alpha, (cx, cy), r, 255, -1, cv2.LINE_AA)
            self._levels[key] = (small, alpha)
        return self._levels[key]


def _bent(face: np.ndarray, rng, strength: float) -> np.ndarray:
    """A slightly bent card: interior displaced, corners fixed, light falling off across the bend."""
    if strength <= 0 or rng.random() > 0.5:
        return face
    h, w = face.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    amp = rng.uniform(0, 0.02) * strength * w
    bulge = np.sin(np.pi * yy / (h - 1)) * np.sin(np.pi * xx / (w - 1))
    mapx = (xx + amp * bulge * float(rng.choice([-1, 1]))).astype(np.float32)
    mapy = (yy + amp * bulge * float(rng.choice([-1, 1]))).astype(np.float32)
    out = cv2.remap(face, mapx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    shade = 1 + strength * rng.uniform(-0.12, 0.12) * np.cos(np.pi * xx / (w - 1))
    return (out * shade[..., None]).clip(0, 255).astype(np.uint8)


def draw_card(canvas: np.ndarray, Himg: np.ndarray, card: Placed, cache: FaceCache, rng, bend: float) -> np.ndarray:
    """Warp one card onto ``canvas`` in place; return its image corners."""
    corners = project(Himg, card.world)
    ch, cw = canvas.shape[:2]
    x0, y0 = np.floor(corners.min(0)).astype(int) - 1
    x1, y1 = np.ceil(corners.max(0)).astype(int) + 2
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, cw), min(y1, ch)
    if x1 <= x0 or y1 <= y0:
        return corners
    side = float(np.linalg.norm(corners[1] - corners[0]))
    face, alpha = cache.get(card.face, side)
    face = _bent(face, rng, bend)
    fh, fw = face.shape[:2]
    src = np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], np.float32)
    M = cv2.getPerspectiveTransform(src, (corners - [x0, y0]).astype(np.float32))
    size = (x1 - x0, y1 - y0)
    warped = cv2.warpPerspective(face, M, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    a = cv2.warpPerspective(alpha, M, size, flags=cv2.INTER_LINEAR).astype(np.float32)[..., None] / 255
    roi = canvas[y0:y1, x0:x1]
    roi[:] = (roi * (1 - a) + warped * a).astype(np.uint8)
    return corners


@dataclass
class TableauLayout:
    origin: np.ndarray  # centre on the table, mm
    angle: float  # degrees
    grid: list[list[CardType | None]]
    cards: dict[tuple[int, int], Placed]
    cells: dict[tuple[int, int], np.ndarray]  # ideal cell rectangles (card size), world mm
    neighbour: bool = False  # another player's tableau beside the photographed one


def random_grid(rng, deck_counts: dict[CardType, int], holes: int) -> list[list[CardType | None]]:
    """20 cards drawn from a shuffled deck (so counts stay legal), with ``holes`` empty cells."""
    pool = [card for card, n in deck_counts.items() for _ in range(n)]
    picks = [pool[i] for i in rng.choice(len(pool), ROWS * COLS, replace=False)]
    for i in rng.choice(ROWS * COLS, holes, replace=False) if holes else []:
        picks[i] = None
    return [picks[r * COLS : (r + 1) * COLS] for r in range(ROWS)]


def layout_tableau(rng, deck: Deck, params: SceneParams, origin, angle, grid, random_faces) -> TableauLayout:
    cw, ch = deck.card_mm
    gap = 0.0 if rng.random() < params.p_touching else rng.uniform(*params.gap_mm)
    px, py = cw + gap, ch + gap
    R = _rot(angle)
    cards, cells = {}, {}
    for r in range(ROWS):
        for c in range(COLS):
            local = np.array([(c - (COLS - 1) / 2) * px, (r - (ROWS - 1) / 2) * py])
            center = local @ R.T + origin
            cells[(r, c)] = _card_corners(center, cw, ch, angle)
            card = grid[r][c]
            if card is None:
                continue
            jitter = rng.normal(0, params.card_offset_mm, 2) if gap > 0 else rng.normal(0, params.card_offset_mm / 3, 2)
            tilt = rng.normal(0, params.card_tilt_deg if gap > 0 else params.card_tilt_deg / 3)
            flipped = rng.random() < params.p_card_flipped
            corners = _card_corners(center + jitter, cw, ch, angle + tilt + (180 if flipped else 0))
            if flipped:  # keep labels in the tableau's reading orientation
                corners = corners[[2, 3, 0, 1]]
            faces = deck.faces[card]
            face = random_faces[rng.integers(len(random_faces))] if random_faces else faces[rng.integers(len(faces))]
            if flipped:
                face = cv2.rotate(face, cv2.ROTATE_180)
            cards[(r, c)] = Placed(corners, face, card)
    return TableauLayout(np.asarray(origin, float), angle, grid, cards, cells)


def _tableau_extent(deck: Deck) -> float:
    cw, ch = deck.card_mm
    return math.hypot(COLS * (cw + 9), ROWS * (ch + 9))


@dataclass
class Scene:
    image: np.ndarray  # BGR, as decoded from ``jpeg``
    truth: Truth
    jpeg: bytes  # the photo file, compressed once (re-encoding would compress twice)


def _side_stream(seed: int | tuple, tag: int) -> np.random.Generator:
    """A random stream of its own for one optional kind of face (``tag``): drawing from it leaves
    the scene's main stream, and so every scene that does not ask for that kind, as before."""
    return np.random.default_rng([*(seed if isinstance(seed, tuple) else (seed,)), tag])


def render_scene(deck: Deck, seed: int | tuple, params: SceneParams | None = None) -> Scene:
    """Render one photo with its truth: grids, card corners, cell corners, clutter, settings."""
    params = params or SceneParams()
    rng = np.random.default_rng(seed)
    aspect = params.aspects[rng.integers(len(params.aspects))]
    long_side = params.long_side
    size = (long_side, int(round(long_side / aspect)))
    if rng.random() < params.p_portrait:
        size = size[::-1]
    w, h = size

    counts = {card: card.deck_count for card in CardType}
    n_tab = int(rng.integers(params.tableaux[0], params.tableaux[1] + 1)) if rng.random() < params.p_multi else 1
    extent = _tableau_extent(deck)
    layouts = []
    use_random = rng.random() < params.p_random_faces
    random_pool = [random_face(rng) for _ in range(6)] if use_random else None
    if use_random and params.p_wide_faces > 0:
        wide = _side_stream(seed, 0x5DE)
        if wide.random() < params.p_wide_faces:
            random_pool = [wide_face(wide) for _ in range(6)]
    if use_random and params.p_photo_faces > 0:
        photo = _side_stream(seed, 0x5DF)
        if photo.random() < params.p_photo_faces:
            random_pool = photo_faces(photo, 8)
    base_angle = rng.uniform(0, 360)
    for k in range(n_tab):
        # Tableaux sit in a 2 × 2 block, each facing its own player (quarter turns plus a little).
        origin = np.array([(k % 2) * extent * rng.uniform(0.95, 1.2), (k // 2) * extent * rng.uniform(0.95, 1.2)])
        angle = base_angle + 90 * rng.integers(4) * (k > 0) + rng.normal(0, 4) * (k > 0)
        holes = int(rng.integers(params.min_holes, params.max_holes + 1)) if rng.random() < params.p_hole else 0
        grid = random_grid(rng, counts, holes)
        for row in grid:
            for card in row:
                if card is not None:
                    counts[card] -= 1  # one deck across the photo
        layouts.append(layout_tableau(rng, deck, params, origin, angle, grid, random_pool))
    center = np.mean([lay.origin for lay in layouts], axis=0)
    for lay in layouts:
        lay.origin -= center
        for key in lay.cards:
            lay.cards[key].world = lay.cards[key].world - center
        for key in lay.cells:
            lay.cells[key] = lay.cells[key] - center

    all_world = np.concatenate([cell for lay in layouts for cell in lay.cells.values()])
    pose: dict = {}
    Himg = camera_homography(rng, params, size, pose)
    Himg = _fit_to_frame(rng, Himg, all_world, params, size)

    # The steep split's additions draw from their own stream (older splits stay as they were).
    rng2 = np.random.default_rng([*(seed if isinstance(seed, tuple) else (seed,)), 15])
    extras: dict = {}
    if params.p_neighbour and rng2.random() < params.p_neighbour:
        neighbour = _neighbour(rng2, deck, params, layouts, counts, extent, base_angle, random_pool, Himg)
        if neighbour is not None:
            layouts.append(neighbour)
            extras["neighbour"] = True
    hull_world = np.concatenate([cell for lay in layouts for cell in lay.cells.values()])

    # Loose cards and clutter lie on the table around the tableaux, never on them.
    hull = cv2.convexHull(hull_world.astype(np.float32))
    loose = [card for card in _loose_cards(rng, deck, params, hull, extent) if in_front(Himg, card.world)]
    world_kind = None
    if params.p_world_table and rng2.random() < params.p_world_table:
        world_kind = params.world_kinds[rng2.integers(len(params.world_kinds))]
        extras["table"] = world_kind
    canvas = _table(rng, rng2, Himg, w, h, params, world_kind, deck, extent)
    if params.p_table_like_cards:
        camo = _side_stream(seed, 0x5E0)
        if camo.random() < params.p_table_like_cards:
            faces = [card.face for lay in layouts for card in lay.cards.values()]
            if faces:  # (a tableau's place with no card on it: the table as it is)
                canvas = _tinted_like(canvas, faces[camo.integers(len(faces))], camo)
                extras["table_like_cards"] = True
    clutter_world = effects.clutter_on_table(canvas, rng, Himg, hull, extent, params.clutter)

    placed = [card for lay in layouts for card in lay.cards.values()] + loose
    effects.drop_shadows(canvas, rng, [project(Himg, card.world) for card in placed])
    sleeved = [lay for lay in layouts if params.p_sleeves and rng2.random() < params.p_sleeves]
    if sleeved:
        effects.sleeve_rims(canvas, rng2, Himg, [card.world for lay in sleeved for card in lay.cards.values()])
    cache = FaceCache()
    image_corners: dict[int, np.ndarray] = {}  # id of a Placed -> its corners in the image
    for one in placed:
        image_corners[id(one)] = draw_card(canvas, Himg, one, cache, rng, params.bend)
    extras.update(_players_table(canvas, rng2, params, Himg, layouts, sleeved, image_corners, extent))

    if params.photometric:
        canvas, jpeg = effects.photometric(canvas, rng, params.light)
    else:
        jpeg = cv2.imencode(".png", canvas)[1].tobytes()

    truth: Truth = {
        "width": w,
        "height": h,
        "seed": list(seed) if isinstance(seed, tuple) else seed,
        "deck": deck.name,
        "tableaux": [
            {
                "grid": [[_name(card) for card in row] for row in lay.grid],
                "angle_deg": float(lay.angle % 360),
                "neighbour": lay.neighbour,
                "random_faces": use_random,
                "cells": [
                    {
                        "row": r,
                        "col": c,
                        "type": _name(lay.grid[r][c]),
                        "corners": _round(image_corners[id(lay.cards[(r, c)])]) if (r, c) in lay.cards else None,
                        "cell_corners": _round(project(Himg, lay.cells[(r, c)])),
                    }
                    for r in range(ROWS)
                    for c in range(COLS)
                ],
            }
            for lay in layouts
        ],
        "loose_cards": [
            {"type": _name(card.type), "face_up": card.face_up, "corners": _round(image_corners[id(card)])}
            for card in loose
        ],
        "clutter": clutter_world,
        "table_extras": extras,
        "camera": pose,
        "homography": _round(Himg, 8),
        "params": _params_dict(params),
    }
    return Scene(canvas, truth, jpeg)


def _name(card: CardType | None) -> str | None:
    return card.value if card else None


def _round(a: np.ndarray, nd: int = 2) -> list:
    return np.round(np.asarray(a, np.float64), nd).tolist()


def _params_dict(params: SceneParams) -> dict:
    d = asdict(params)
    return {k: list(v) if isinstance(v, tuple) else v for k, v in d.items()}


def _loose_cards(rng, deck: Deck, params: SceneParams, hull, extent) -> list[Placed]:
    cw, ch = deck.card_mm
    out: list[Placed] = []
    for _ in range(int(rng.integers(params.loose_cards[0], params.loose_cards[1] + 1))):
        for _attempt in range(10):
            center = rng.uniform(-extent, extent, 2)
            corners = _card_corners(center, cw, ch, rng.uniform(0, 360))
            if all(cv2.pointPolygonTest(hull, tuple(map(float, p)), True) < -10 for p in [*corners, center]) and all(
                np.linalg.norm(center - o.world.mean(0)) > ch for o in out
            ):
                break
        else:
            continue
        if rng.random() < params.p_face_down:
            out.append(Placed(corners, card_back(rng), None, face_up=False))
        elif rng.random() < 0.5:
            card = list(CardType)[rng.integers(len(CardType))]
            out.append(Placed(corners, deck.faces[card][rng.integers(len(deck.faces[card]))], card))
        else:
            out.append(Placed(corners, random_face(rng), None))
    return out


def clean_params(**overrides: Any) -> SceneParams:
    """A clean render: plain table, no clutter, no light or lens effects (label checks)."""
    base = SceneParams(photometric=False, loose_cards=(0, 0), clutter=(0, 0), bend=0.0, p_multi=0.0, p_cut_off=0.0,
                       table="plain", p_card_flipped=0.0)
    return replace(base, **overrides)


def hard_params(**overrides: Any) -> SceneParams:
    """The hard split: steep angles, strong blur, dark light, clutter."""
    light = effects.LightParams(
        uneven=0.7, brightness=(0.3, 0.6), p_shadow=0.7, p_glare=0.5, p_defocus=0.8,
        defocus_sigma=(1.2, 2.5), p_motion=0.5, motion_px=(4.0, 10.0), noise_sigma=(4.0, 12.0),
        jpeg_quality=(40, 70),
    )
    base = SceneParams(elevation_deg=(40.0, 55.0), loose_cards=(2, 5), clutter=(4, 8), light=light, bend=1.0)
    return replace(base, **overrides)


def in_front(Himg: np.ndarray, world: np.ndarray, margin: float = 0.2) -> bool:
    """Whether table points lie well in front of the camera (a close, steep camera has the near
    table under and behind it: such points would project to nonsense)."""
    w0 = (Himg @ [0.0, 0.0, 1.0])[2]
    depth = (np.column_stack([world, np.ones(len(world))]) @ Himg.T)[:, 2] / w0
    return bool(np.all(depth > margin))


def _table(rng, rng2, Himg, w, h, params: SceneParams, world_kind, deck: Deck, extent) -> np.ndarray:
    """The table surface. Big photos get it drawn at 1200 px and scaled: texture detail is not
    the point. A world kind is drawn on the table plane, so its pattern has the cards' perspective."""
    k = min(1.0, 1200 / max(w, h)) if max(w, h) > 1600 else 1.0
    sw, sh = int(round(w * k)), int(round(h * k))
    if world_kind is None:
        small = table_surface(rng, sh, sw, params.table)
    else:
        S = np.diag([sw / w, sh / h, 1.0])
        small = textures.world_surface(rng2, S @ Himg, sh, sw, world_kind, deck.card_mm, extent * rng2.uniform(1.2, 2.5))
    return small if (sw, sh) == (w, h) else cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def _tinted_like(table: np.ndarray, face: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The table recoloured to the mean colour of a card face's outer rim (what lies against
    the table), its own texture kept as a relative shading, a little off the exact colour."""
    fh, fw = face.shape[:2]
    m = max(2, int(0.06 * min(fh, fw)))
    rim = np.concatenate([face[:m].reshape(-1, 3), face[-m:].reshape(-1, 3),
                          face[:, :m].reshape(-1, 3), face[:, -m:].reshape(-1, 3)]).astype(np.float32)
    target = rim.mean(0) * rng.uniform(0.9, 1.1, 3)
    grey = table.astype(np.float32).mean(2, keepdims=True)
    shading = 1.0 + rng.uniform(0.3, 1.0) * (grey / max(float(grey.mean()), 1.0) - 1.0)
    return (shading * target).clip(0, 255).astype(np.uint8)


def _neighbour(rng2, deck: Deck, params: SceneParams, layouts, counts, extent, base_angle, random_pool, Himg):
    """Another player's tableau beside the first, turned to face its player: placed after the
    frame is fitted to the photographed tableaux, so it is often cut by the frame's edge."""
    toward = rng2.uniform(0, 2 * math.pi)
    direction = np.array([math.cos(toward), math.sin(toward)])
    distance = extent * rng2.uniform(*params.neighbour_reach)
    angle = base_angle + 90 * rng2.integers(4) + rng2.normal(0, 4)
    holes = int(rng2.integers(params.min_holes, params.max_holes + 1)) if rng2.random() < params.p_hole else 0
    grid = random_grid(rng2, counts, holes)
    mine = cv2.convexHull(np.concatenate([c for lay in layouts for c in lay.cells.values()]).astype(np.float32))
    state = rng2.bit_generator.state
    for _ in range(12):  # move it out until the two tableaux lie apart (2 cm in the splits)
        rng2.bit_generator.state = state  # the same cards at each try
        lay = layout_tableau(rng2, deck, params, direction * distance, angle, grid, random_pool)
        theirs = cv2.convexHull(np.concatenate(list(lay.cells.values())).astype(np.float32))
        if cv2.intersectConvexConvex(mine, theirs)[0] == 0 and _hull_gap(mine, theirs) > params.neighbour_gap_mm:
            break
        distance *= 1.08
    lay.neighbour = True
    corners = np.concatenate(list(lay.cells.values()))
    if not in_front(Himg, corners):
        return None
    for row in grid:
        for card in row:
            if card is not None:
                counts[card] -= 1
    return lay


def _players_table(canvas, rng2, params: SceneParams, Himg, layouts, sleeved, image_corners, extent) -> dict:
    """Glare on sleeves, a hand or phone, a lamp and its hard shadow: drawn on the finished
    table, in that order (the lamp lights the hand too)."""
    out: dict = {}
    focus = np.mean([lay.origin for lay in layouts if not lay.neighbour], axis=0)
    if sleeved:
        quads = [image_corners[id(card)] for lay in sleeved for card in lay.cards.values()]
        out["sleeves"] = effects.sleeve_glare(canvas, rng2, Himg, quads, focus, extent / 2)
    if params.p_occluder and rng2.random() < params.p_occluder:
        quads = [image_corners[id(card)] for lay in layouts for card in lay.cards.values()]
        hand = effects.occluder(canvas, rng2, quads, params.occluder_cover)
        if hand:
            # which cards it hides, and how much of each: [tableau, row, col, share] (truth's indices)
            where = [(t, r, c) for t, lay in enumerate(layouts) for (r, c) in lay.cards]
            hand["covered"] = [[t, r, c, share] for (t, r, c), share in zip(where, hand["covered"]) if share > 0]
            out["occluder"] = hand
    if params.p_lamp and rng2.random() < params.p_lamp:
        h, w = canvas.shape[:2]
        k = 160 / max(w, h)
        coarse = textures.table_to_image_grid(np.diag([k, k, 1.0]) @ Himg, max(2, int(h * k)), max(2, int(w * k)))
        out["lamp"] = effects.lamp(canvas, rng2, Himg, focus, coarse)
    if params.p_hard_shadow and rng2.random() < params.p_hard_shadow:
        effects.hard_shadow(canvas, rng2, Himg, focus, extent / 2)
        out["hard_shadow"] = True
    return out


def steep_params(**overrides: Any) -> SceneParams:
    """The steep split: photos as players take them sitting at the table. The phone 25–55°
    above the table and close (45–90 cm: far cards a third to a half the height of near ones),
    cards in glossy sleeves under a warm or cold lamp with hard shadows, patterned cloths, wood
    and play mats, a neighbour's tableau at the edge of the frame, a hand or phone over the grid.
    Blur and noise as in everyday photos (the hard split covers the worst of those)."""
    light = effects.LightParams(brightness=(0.6, 1.2), p_glare=0.15)
    base = SceneParams(elevation_deg=(25.0, 55.0), camera_mm=(450.0, 900.0), fov_deg=(62.0, 78.0), fill=(0.3, 0.85),
                       gap_mm=(0.0, 15.0), p_multi=0.0, p_cut_off=0.03, loose_cards=(0, 3), light=light,
                       p_world_table=0.6, p_sleeves=0.6, p_lamp=0.6, p_hard_shadow=0.4, p_neighbour=0.5,
                       p_occluder=0.25)
    return replace(base, **overrides)


def _hull_gap(a: np.ndarray, b: np.ndarray) -> float:
    """Smallest distance (mm) from a vertex of one convex hull to the other hull."""
    d1 = min(-cv2.pointPolygonTest(b, tuple(map(float, p[0])), True) for p in a)
    d2 = min(-cv2.pointPolygonTest(a, tuple(map(float, p[0])), True) for p in b)
    return min(d1, d2)
