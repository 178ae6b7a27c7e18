"""The card matcher's training bank: straightened cells of rendered photos of many decks.

Each scene is rendered with its own generated deck (``deckgen``; a few with the stand-in), and
every cell in the frame is cut the way the pipeline cuts it (perspective-warped to a square,
corners perturbed as the lattice fit errs, turned a random quarter). Loose cards are cut too:
face-down cards and cards of other games are the "not a card of this deck" examples.

The bank is one ``.npz``: ``crops`` (N × S × S × 3 uint8, BGR), ``deck`` (N: the deck's seed,
``STANDIN`` for the stand-in), ``label`` (N: a type's index in ``CardType`` order, ``EMPTY`` or
``FOREIGN``). A deck drawn dark (near-black stock, ``deckgen``'s ``dark``) is stored as its seed
plus ``DARK``, so a bank says which decks were dark and ``deck_for`` draws the same deck again; a
deck of photographic art (``deckgen.photo_deck``) as its seed plus ``PHOTO``.
"""
from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

from ecoscore.scoring import CardType
from ecoscore.truthfile import Truth
from ecoscore.vision.crops import CROP_SIZE, warp_quad

from .deck import Deck, load_deck
from .deckgen import generate_deck, photo_deck
from .scene import SceneParams, hard_params, render_scene, steep_params

TYPES = list(CardType)
EMPTY = len(TYPES)  # 11
FOREIGN = EMPTY + 1  # 12: a face-down card, a card of another game
STANDIN = -1
P_STANDIN = 0.1
DARK = 100_000_000  # deck id = seed + DARK: the seed's deck drawn dark (training seeds stay far below)
PHOTO = 200_000_000  # deck id = seed + PHOTO: the seed's deck of photographic art


def deck_for(deck_id: int) -> Deck:
    if deck_id == STANDIN:
        return load_deck("standin")
    if deck_id >= PHOTO:
        return photo_deck(deck_id - PHOTO)
    if deck_id >= DARK:
        return generate_deck(deck_id - DARK, dark=True)
    return generate_deck(deck_id)


def _perturbed(quad: np.ndarray, rng, jitter: float, shift: float = 0.0) -> np.ndarray:
    """The corners moved as the lattice errs: each by ``jitter`` of the card's width, and with
    ``shift`` the whole cut moved too (a lattice off by a fraction of a card: the cut holds a
    strip of the neighbour or the table, and the cell still shows its card)."""
    side = np.linalg.norm(quad[1] - quad[0])
    center = quad.mean(0)
    quad = center + (quad - center) * rng.uniform(0.98, 1.12)
    quad = quad + rng.normal(0, jitter * side, quad.shape)
    if shift:  # drawn only then: a bank without it is the one it always was
        quad = quad + rng.normal(0, shift * side, 2)
    return quad


def scene_crops(image: np.ndarray, truth: Truth, rng, jitter: float = 0.04,
                shift: float = 0.0) -> list[tuple[np.ndarray, int]]:
    """(crop, label) of each cell and loose card wholly in the frame (``_perturbed``)."""
    h, w = image.shape[:2]
    items = []
    for tab in truth["tableaux"]:
        for cell in tab["cells"]:
            if cell["type"] is None:
                label = EMPTY
            else:
                label = FOREIGN if tab["random_faces"] else TYPES.index(CardType(cell["type"]))
            items.append((np.array(cell["corners"] or cell["cell_corners"], np.float64), label))
    for card in truth["loose_cards"]:
        label = TYPES.index(CardType(card["type"])) if card["type"] else FOREIGN
        items.append((np.array(card["corners"], np.float64), label))
    out = []
    for quad, label in items:
        if np.any(quad < 0) or np.any(quad > [w - 1, h - 1]):
            continue
        crop = warp_quad(image, _perturbed(quad, rng, jitter, shift), CROP_SIZE)
        out.append((np.ascontiguousarray(np.rot90(crop, int(rng.integers(4)))), label))
    return out


def _render(job: tuple[int, int, str, int, bool]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    index, deck_seed, split, long_side, off_cuts = job
    cv2.setNumThreads(1)
    deck = deck_for(deck_seed)
    base = hard_params() if split == "hard" else steep_params() if split == "steep" else SceneParams()
    # Random-face tableaux and loose cards of other games: the matcher must learn to say "not ours".
    params = replace(base, long_side=long_side, p_random_faces=0.08, p_multi=0.25, p_hole=0.5)
    scene = render_scene(deck, (7, index), params)
    rng = np.random.default_rng((8, index))
    if off_cuts:  # cut as far off as the lattice's misses (a corner ~0.2 of a card from its place)
        crops = scene_crops(scene.image, scene.truth, rng, jitter=rng.choice([0.04, 0.07, 0.10]),
                            shift=rng.choice([0.06, 0.10, 0.15]))
    else:
        crops = scene_crops(scene.image, scene.truth, rng, jitter=rng.choice([0.02, 0.04, 0.07]))
    if not crops:
        return np.zeros((0, CROP_SIZE, CROP_SIZE, 3), np.uint8), np.zeros(0, np.int32), np.zeros(0, np.int32)
    images, labels = zip(*crops)
    return np.stack(images), np.full(len(images), deck_seed, np.int32), np.array(labels, np.int32)


def build_bank(out: Path, scenes: int, decks: range | list[int], *, first: int = 0, p_hard: float = 0.35,
               p_steep: float = 0.0, p_dark: float = 0.0, long_side: int = 960, workers: int = 2,
               off_cuts: bool = False, p_photo: float = 0.0, progress: bool = True) -> Path:
    """Render ``scenes`` photos (scene indices from ``first``), each of a deck drawn from ``decks``
    (or the stand-in; a ``p_dark`` share of the generated ones drawn dark), a ``p_steep`` share with
    the steep split's settings and ``p_hard`` of the others with the hard split's, and save their
    crops to ``out``; ``off_cuts``: cut further off (``_render``); ``p_photo``: a share of the
    generated decks drawn as decks of photographic art instead (``deckgen.photo_deck``)."""
    rng = np.random.default_rng((9, first))
    extra = np.random.default_rng((10, first))  # its own stream: p_dark = p_steep = 0 draws the same bank as before
    photo = np.random.default_rng((11, first))  # and p_photo = 0 the same again
    decks = list(decks)
    jobs = []
    for i in range(scenes):
        deck = STANDIN if rng.random() < P_STANDIN else int(decks[rng.integers(len(decks))])
        hard = bool(rng.random() < p_hard)
        steep, dark = extra.random() < p_steep, extra.random() < p_dark
        if deck != STANDIN and photo.random() < p_photo:
            deck += PHOTO
        elif dark and deck != STANDIN:
            deck += DARK
        jobs.append((first + i, deck, "steep" if steep else "hard" if hard else "normal", long_side, off_cuts))
    parts = []
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        for part in tqdm(pool.map(_render, jobs, chunksize=4), total=len(jobs), disable=not progress, desc="bank"):
            parts.append(part)
    crops, deck_ids, labels = (np.concatenate(p) for p in zip(*parts))
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(out, crops=crops, deck=deck_ids, label=labels)
    return out
