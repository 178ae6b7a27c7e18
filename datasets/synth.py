"""Render a dataset of synthetic photos on all cores: images, labels, truth files, a preview.

Layout of ``out`` (Ultralytics): ``images/NNNNNN.jpg``, ``labels/NNNNNN.txt`` (OBB, class
``card``; with ``kind="corners"`` pose labels, a card's four corners), ``truth/NNNNNN.json``,
``truth/NNNNNN_K.txt`` (the K-th tableau's grid, as a grid file) and ``data.yaml``. With ``kind="classifier"`` it writes
``<class>/NNNNNN_K.png`` crops instead (an Ultralytics classification folder).
"""
from __future__ import annotations

import hashlib
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

from ecoscore.geometry import CROP_SIZE
from ecoscore.scoring import CardType
from ecoscore.scoring.gridfile import format_text
from ecoscore.truthfile import read_set, truth_files, write_truth

from .deck import Deck, load_deck
from .deckgen import TRAIN_SEEDS, generate_deck
from .scene import SceneParams, render_scene
from .truth import truth_tableau
from .yolo import CORNER_FLIP, EMPTY, cell_crops, obb_label_lines, pose_label_lines

CLASSIFIER_CLASSES = [card.value for card in CardType] + [EMPTY]

_worker: dict = {}


def _init(deck_ref: str, params: SceneParams, out: str, kind: str, seed: int, crop_jitter: float,
          generated_decks: float = 0.0, dark_decks: float = 0.0, crop_size: int = CROP_SIZE,
          normalise_crops: bool = False, p_cover: float = 0.0) -> None:
    cv2.setNumThreads(1)  # one process per core already
    _worker.update(deck=load_deck(deck_ref), params=params, out=Path(out), kind=kind, seed=seed, crop_jitter=crop_jitter,
                   generated_decks=generated_decks, dark_decks=dark_decks, crop_size=crop_size,
                   normalise_crops=normalise_crops, p_cover=p_cover)


def scene_deck(deck: Deck, generated_decks: float, seed: int, index: int, dark_decks: float = 0.0) -> Deck:
    """The deck scene ``index`` is drawn with: ``deck``, or with probability ``generated_decks`` a
    deck of the generator's training family (so a finder learns "card", whatever the art), of
    which a share ``dark_decks`` is drawn on near-black card stock."""
    rng = np.random.default_rng((seed, index, 0xDEC))  # its own stream: the scene's draws stay as they were
    if generated_decks <= 0 or rng.random() >= generated_decks:
        return deck
    seed_of_deck = int(rng.integers(TRAIN_SEEDS.start, TRAIN_SEEDS.stop))
    return generate_deck(seed_of_deck, dark=dark_decks > 0 and rng.random() < dark_decks)


def _render_one(index: int) -> int:
    deck, params, out, kind, seed = (_worker[k] for k in ("deck", "params", "out", "kind", "seed"))
    scene = render_scene(scene_deck(deck, _worker["generated_decks"], seed, index, _worker["dark_decks"]), (seed, index), params)
    stem = f"{index:06d}"
    if kind in ("finder", "corners"):
        (out / "images" / f"{stem}.jpg").write_bytes(scene.jpeg)
        lines = obb_label_lines(scene.truth) if kind == "finder" else pose_label_lines(scene.truth)
        (out / "labels" / f"{stem}.txt").write_text("\n".join(lines) + "\n")
        write_truth(out / "truth" / f"{stem}.json", {**scene.truth, "image": f"images/{stem}.jpg"})
        # Each tableau's grid as a player writes it, for `ecoscore deck add --photo P --grid G`
        # (a newcomer wrote a script to make one from the truth file).
        for k, tab in enumerate(scene.truth["tableaux"]):
            (out / "truth" / f"{stem}_{k + 1}.txt").write_text(format_text(truth_tableau(tab)), encoding="utf-8")
        return 1
    crops = cell_crops(scene.image, scene.truth, np.random.default_rng((seed, index, 7)), _worker["crop_jitter"],
                       _worker["crop_size"], _worker["normalise_crops"], _worker["p_cover"])
    for k, (crop, name) in enumerate(crops):
        cv2.imwrite(str(out / name / f"{stem}_{k:02d}.png"), crop)
    return len(crops)


def data_yaml_text(root: Path, train: str, val: str, kind: str = "finder") -> str:
    """Ultralytics' ``data=`` file: one class, ``card``; a corner finder's keypoints besides."""
    text = f"path: {root.resolve()}\ntrain: {train}\nval: {val}\nnames:\n  0: card\n"
    if kind == "corners":
        text += f"kpt_shape: [4, 3]\nflip_idx: {CORNER_FLIP}\n"
    return text


def write_data_yaml(out: Path, train: str = "images", val: str = "images", kind: str = "finder") -> Path:
    path = out / "data.yaml"
    path.write_text(data_yaml_text(out, train, val, kind), encoding="utf-8")
    return path


def synthesize(
    deck: str | Path,
    n: int,
    out: Path,
    *,
    seed: int = 0,
    workers: int | None = None,
    params: SceneParams | None = None,
    kind: str = "finder",
    progress: bool = True,
    crop_jitter: float = 0.04,
    generated_decks: float = 0.0,
    dark_decks: float = 0.0,
    crop_size: int = CROP_SIZE,
    normalise_crops: bool = False,
    p_cover: float = 0.0,
) -> int:
    """Render ``n`` scenes into ``out``; returns the number of items written.

    ``crop_jitter``: classifier crops only, corner noise in card widths (``yolo.cell_crops``).
    ``generated_decks``: the share of scenes drawn with a generated deck instead of ``deck``;
    ``dark_decks``: the share of those drawn dark; ``crop_size``: classifier crops' side (px);
    ``normalise_crops``: classifier crops colour-normalised (``vision.crops.colour_normalised``);
    ``p_cover``: the share of classifier crops partly covered (``effects.cover_part``)."""
    load_deck(deck)  # fail here, clearly, before any worker starts
    params = params or SceneParams()
    out.mkdir(parents=True, exist_ok=True)
    if kind in ("finder", "corners"):
        for sub in ("images", "labels", "truth"):
            (out / sub).mkdir(exist_ok=True)
        write_data_yaml(out, kind=kind)
    else:
        for name in CLASSIFIER_CLASSES:
            (out / name).mkdir(exist_ok=True)
    workers = workers or os.cpu_count() or 1
    bar = tqdm(total=n, desc=f"rendering {out.name}", unit="img", disable=not progress)
    written = 0
    if workers == 1:
        _init(str(deck), params, str(out), kind, seed, crop_jitter, generated_decks, dark_decks, crop_size,
              normalise_crops, p_cover)
        for i in range(n):
            written += _render_one(i)
            bar.update()
    else:
        # spawn, not fork: a forked child can deadlock on OpenCV's thread pool of its parent.
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"), initializer=_init,
                                 initargs=(str(deck), params, str(out), kind, seed, crop_jitter, generated_decks,
                                           dark_decks, crop_size, normalise_crops, p_cover)) as pool:
            for count in pool.map(_render_one, range(n), chunksize=8):
                written += count
                bar.update()
    bar.close()
    return written


# Tags the photo-set crops' random streams apart from the rendered scenes' own, which are seeded
# (seed, index[, tag]): NumPy pads a shorter seed with zeros, so an untagged (seed, k, i, 0)
# would draw scene k's stream again.
PHOTO_SET_STREAM = 0x9B07


def photo_set_fingerprint(folder: Path) -> str:
    """What a photo set holds, as its truth files' names, sizes and times: crops cut from it are
    cut again when a photo is added, removed or labelled again."""
    digest = hashlib.sha1()
    for path in truth_files(folder):
        st = path.stat()
        digest.update(f"{path.name} {st.st_size} {st.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def crops_from_photos(folders: list[Path], deck: str, out: Path, *, views: int, seed: int, crop_jitter: float = 0.04,
                      crop_size: int = CROP_SIZE, normalise_crops: bool = False, p_cover: float = 0.0) -> int:
    """Classifier crops cut from photos someone else made, with truth files of their cells'
    corners (``read_set``): another renderer's photos (bench/pbr_render.py), or players' photos
    once read and corrected. Each cell is cut ``views`` times, each cut as ``cell_crops`` errs.
    Written as ``synthesize`` writes crops (``<class>/<K>-<set>_<photo>_<view>_<cell>.png``, K the
    set's place in ``folders``, so two sets of one name do not overwrite each other); returns how many.

    Only photos of ``deck`` are taken: a photo of another deck's cards would teach the classifier
    this deck's names for that deck's art. Raises ValueError on a set that holds none, and on a
    truth file that names no image or one that cannot be read."""
    for name in CLASSIFIER_CLASSES:
        (out / name).mkdir(parents=True, exist_ok=True)
    written = 0
    for k, folder in enumerate(folders):
        taken = 0
        for i, (path, truth) in enumerate(read_set(folder)):
            if truth.get("deck") != deck:
                continue
            if "image" not in truth:
                raise ValueError(f"{path}: the truth file names no image")
            image = cv2.imread(str(Path(folder) / truth["image"]), cv2.IMREAD_COLOR)
            if image is None:
                raise ValueError(f"{folder}: {truth['image']} cannot be read as an image")
            for view in range(views):
                rng = np.random.default_rng((seed, PHOTO_SET_STREAM, k, i, view + 1))
                for j, (crop, name) in enumerate(cell_crops(image, truth, rng, crop_jitter, crop_size, normalise_crops,
                                                            p_cover)):
                    target = out / name / f"{k}-{Path(folder).name}_{path.stem}_{view}_{j:02d}.png"
                    if not cv2.imwrite(str(target), crop):
                        raise OSError(f"{target} could not be written")
                    written += 1
            taken += 1
        if not taken:
            raise ValueError(f"{folder} holds no photo of the deck {deck!r} with a truth file")
    return written


def contact_sheet(deck: str | Path, n: int, seed: int, params: SceneParams | None = None, tile: int = 480) -> np.ndarray:
    """Sample scenes with their labels drawn on: card outlines (green: first corner), grid
    types at cell centres, loose cards in magenta, so a person can check labels by eye."""
    deck_obj = load_deck(deck)
    tiles = []
    for i in range(n):
        scene = render_scene(deck_obj, (seed, i), params or SceneParams())
        img = scene.image.copy()
        thick = max(1, img.shape[1] // 400)
        for tab in scene.truth["tableaux"]:
            for cell in tab["cells"]:
                quad = np.array(cell["corners"] or cell["cell_corners"])
                color = (0, 255, 255) if cell["corners"] else (0, 0, 255)
                cv2.polylines(img, [quad.astype(np.int32)], True, color, thick, cv2.LINE_AA)
                cv2.circle(img, tuple(quad[0].astype(int)), 2 * thick + 1, (0, 255, 0), -1)
                label = (cell["type"] or "EMPTY")[:4]
                org = tuple((quad.mean(0) - [12 * thick, 0]).astype(int))
                cv2.putText(img, label, org, cv2.FONT_HERSHEY_SIMPLEX, 0.35 * thick, (0, 0, 0), 3 * thick, cv2.LINE_AA)
                cv2.putText(img, label, org, cv2.FONT_HERSHEY_SIMPLEX, 0.35 * thick, (255, 255, 255), thick, cv2.LINE_AA)
        for card in scene.truth["loose_cards"]:
            cv2.polylines(img, [np.array(card["corners"], np.int32)], True, (255, 0, 255), thick, cv2.LINE_AA)
        scale = tile / max(img.shape[:2])
        img = cv2.resize(img, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        canvas = np.full((tile, tile, 3), 40, np.uint8)
        canvas[: img.shape[0], : img.shape[1]] = img
        tiles.append(canvas)
    cols = min(4, n)
    rows = [np.hstack(tiles[k : k + cols] + [np.full((tile, tile, 3), 40, np.uint8)] * (cols - len(tiles[k : k + cols])))
            for k in range(0, n, cols)]
    return np.vstack(rows)
