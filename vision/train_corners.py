"""Train the corner refiner (``vision/corners.py``) on rendered photos' cards, and export it to ONNX.

Each card of a training photo gets a box as the finder would give it: the rectangle along its
long sides or, as the finder sometimes does for a card seen at a slant, along its short ones,
moved, grown or shrunk and turned a little. The box's upright crop is the input; the card's
true corners in that crop, top left first and clockwise, are the target. The photos are the
corner finder recipe's training photos (rendered on first use), never a tuning or test set.

Needs torch (the train extra); the result runs without it.
"""
from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np

from ecoscore.datasets.yolo import card_quads, clockwise
from ecoscore.geometry import Detections
from ecoscore.paths import data_dir, models_dir
from ecoscore.truthfile import Truth, read_set

from .corners import REFINE_SIZE, SPAN, box_crops, crop_transforms


@dataclass
class CornerRecipe:
    name: str = "corners"  # its run folder: data/runs/<name>
    # Whose training photos (vision.train RECIPES) it learns from: the corner finder recipe's
    # (the stand-in, generated decks, dark ones) and, for ``corners-any``, cards of any art.
    photo_recipes: tuple[str, ...] = ("finder-corners",)
    crops_per_photo: int = 24
    epochs: int = 20
    batch: int = 256
    lr: float = 3e-3
    width: int = 16
    seed: int = 0
    shift: float = 0.05  # the box's centre moved, in its long sides (sd)
    grow: float = 0.08  # its sides scaled by up to this
    turn_deg: float = 3.0  # and turned (sd)
    p_short_sides: float = 0.35  # boxed along the card's short sides instead of its long ones


# The shipped refiner's recipe, and a candidate that also learns from photos of cards of any art
# (finder-any's: full-bleed surfaces, painted noise, shards, posters, dark stock), where unseen
# decks' cards were cut 0.2 of a card off (dark cards' boxes run into their shadow, touching
# full-bleed cards' edges are thin lines like the art's own).
RECIPES = {
    "corners": CornerRecipe(),
    "corners-any": CornerRecipe(name="corners-any", photo_recipes=("finder-corners", "finder-any"), seed=1),
}


def _box_along(quad: np.ndarray, long_sides: bool) -> tuple[np.ndarray, float, float]:
    """The rectangle round ``quad`` along its long sides (1-2, 3-0) or its short ones, as a box:
    centre, its longer side and that side's angle."""
    if long_sides:
        along = (quad[2] - quad[1]) + (quad[3] - quad[0])
        angle = np.arctan2(along[1], along[0])
    else:
        across = (quad[1] - quad[0]) + (quad[2] - quad[3])
        angle = np.arctan2(across[1], across[0]) + np.pi / 2
    axes = np.array([[np.cos(angle), np.sin(angle)], [-np.sin(angle), np.cos(angle)]])
    local = quad @ axes.T
    lo, hi = local.min(0), local.max(0)
    extent = hi - lo
    # A box's long side is the longer in the photo, which far off is not always the card's.
    turn = 0.0 if extent[0] >= extent[1] else np.pi / 2
    return ((lo + hi) / 2) @ axes, float(extent.max()), float(angle + turn)


def photo_examples(image: np.ndarray, truth: Truth, rng: np.random.Generator, recipe: CornerRecipe
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Crops of up to ``crops_per_photo`` cards lying whole in the photo, and their corners in
    each crop (N × 4 × 2, top left first, clockwise, in crop pixels)."""
    h, w = image.shape[:2]
    quads = [clockwise(q.astype(np.float64)) for q in card_quads(truth)
             if np.all(q >= 0) and np.all(q <= [w - 1, h - 1])]
    if not quads:
        return np.zeros((0, REFINE_SIZE, REFINE_SIZE, 3), np.uint8), np.zeros((0, 4, 2))
    picked = rng.permutation(len(quads))[:recipe.crops_per_photo]
    centers, longs, angles = [], [], []
    for k in picked:
        center, long_side, angle = _box_along(quads[k], rng.random() >= recipe.p_short_sides)
        centers.append(center + rng.normal(0, recipe.shift * long_side, 2))
        longs.append(long_side * rng.uniform(1 - recipe.grow, 1 + recipe.grow))
        angles.append(angle + np.radians(rng.normal(0, recipe.turn_deg)) + np.pi * rng.integers(2))
    det = Detections(np.array(centers), np.stack([longs, np.array(longs) / 1.4], 1), np.array(angles),
                     np.ones(len(picked)))
    crops, maps = box_crops(image, det)
    targets = np.stack([_named_in_crop(quads[k], m) for k, m in zip(picked, maps)])
    return crops, targets


def _named_in_crop(quad: np.ndarray, affine: np.ndarray) -> np.ndarray:
    """``quad`` (clockwise) in crop pixels, starting at the corner that makes it lie nearest the
    crop's upright card (top left first)."""
    points = quad @ affine[:, :2].T + affine[:, 2]
    half = np.array([REFINE_SIZE / SPAN / 1.4 / 2, REFINE_SIZE / SPAN / 2])
    upright = REFINE_SIZE / 2 + np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * half
    return min((np.roll(points, -k, 0) for k in range(4)), key=lambda p: float(np.linalg.norm(p - upright, axis=1).sum()))


def examples(folders: list[Path], recipe: CornerRecipe, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    crops, targets = [], []
    for folder in folders:
        for _, truth in read_set(folder):
            image = cv2.imread(str(folder / truth["image"]))
            if image is None:
                raise FileNotFoundError(f"{folder / truth['image']} is missing or not an image")
            c, t = photo_examples(image, truth, rng, recipe)
            crops.append(c)
            targets.append(t)
    return np.concatenate(crops), np.concatenate(targets).astype(np.float32)


def conv_block(cin: int, cout: int, stride: int):
    """A 3 × 3 convolution, batch norm and SiLU: the refiners' one building block."""
    from torch import nn

    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.SiLU())


def build_network(width: int):
    import torch
    from torch import nn

    block = conv_block

    class Refiner(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            w = width
            # 64 -> 4 × 4, no full-width layer at 32 × 32: a photo's 20-60 boxes cost ~1 ms.
            self.features = nn.Sequential(block(3, w, 2), block(w, 2 * w, 2), block(2 * w, 2 * w, 1),
                                          block(2 * w, 4 * w, 2), block(4 * w, 4 * w, 1), block(4 * w, 8 * w, 2))
            self.head = nn.Sequential(nn.Flatten(), nn.Linear(16 * 8 * w, 256), nn.SiLU(), nn.Linear(256, 8))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.head(self.features(x)) + 0.5  # corners in crop sides, around the centre

    return Refiner()


def as_tensor(images: np.ndarray):
    """BGR images (N × H × W × 3, uint8) as the networks take them: RGB, NCHW, float in [0, 1]."""
    import torch

    return torch.from_numpy(np.ascontiguousarray(images[..., ::-1].transpose(0, 3, 1, 2))).float() / 255.0


def regressor_epochs(net, images: np.ndarray, targets: np.ndarray, recipe, beta: float):
    """The refiners' training loop: ``recipe.epochs`` epochs (AdamW, one-cycle at ``recipe.lr``)
    of shuffled batches of ``recipe.batch`` images, their brightness and colour jittered, fitting
    ``targets`` (N × 8, float32) by smooth L1 (``beta``). Yields each epoch's number (from 0) and
    its last batch's loss, the network as trained so far."""
    import torch

    steps = recipe.epochs * (len(images) // recipe.batch)
    optimiser = torch.optim.AdamW(net.parameters(), lr=recipe.lr, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, recipe.lr, total_steps=steps, pct_start=0.1)
    rng = np.random.default_rng(recipe.seed)
    for epoch in range(recipe.epochs):
        net.train()
        order = rng.permutation(len(images))
        for k in range(len(images) // recipe.batch):
            idx = order[k * recipe.batch:(k + 1) * recipe.batch]
            x = as_tensor(images[idx])
            x = x * torch.empty(len(x), 1, 1, 1).uniform_(0.6, 1.4) + torch.empty(len(x), 3, 1, 1).uniform_(-0.1, 0.1)
            loss = torch.nn.functional.smooth_l1_loss(net(x.clamp(0, 1)), torch.from_numpy(targets[idx]), beta=beta)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
        yield epoch, float(loss.detach())


def train(threads: int = 2, ship: bool = True, recipe: CornerRecipe | None = None, run_dir: Path | None = None) -> Path:
    import torch

    from .train import RECIPES as PHOTO_RECIPES
    from .train import _dataset_dir, prepare_data

    recipe = recipe or CornerRecipe()
    torch.set_num_threads(threads)
    torch.manual_seed(recipe.seed)
    roots = []
    for name in recipe.photo_recipes:
        photos = PHOTO_RECIPES[name]
        roots.append(_dataset_dir(photos, "standin"))
        prepare_data(photos, "standin", roots[-1])
    train_x, train_y = examples([f for root in roots for f in sorted(root.glob("train*"))], recipe, recipe.seed)
    val_x, val_y = examples([f for root in roots for f in sorted(root.glob("val*"))], recipe, recipe.seed + 1)
    net = build_network(recipe.width)
    run_dir = run_dir or data_dir() / "runs" / recipe.name
    run_dir.mkdir(parents=True, exist_ok=True)
    started, log = time.time(), []
    targets = train_y.reshape(len(train_y), 8) / REFINE_SIZE  # corners as shares of the crop
    for epoch, loss in regressor_epochs(net, train_x, targets, recipe, beta=0.02):
        error = validation_error(net, val_x, val_y)
        log.append({"epoch": epoch + 1, "loss": loss, "val_corner_px": error, "seconds": round(time.time() - started)})
        print(json.dumps(log[-1]), flush=True)
    onnx_path = export(net, recipe, run_dir, log)
    if ship:
        for suffix in (".onnx", ".json"):
            (models_dir() / f"corners{suffix}").write_bytes(onnx_path.with_suffix(suffix).read_bytes())
    return onnx_path


def validation_error(net, x: np.ndarray, y: np.ndarray) -> float:
    """Median distance of a predicted corner from the true one, in crop pixels."""
    import torch

    net.eval()
    with torch.no_grad():
        pred = np.concatenate([net(as_tensor(x[k:k + 512])).numpy() for k in range(0, len(x), 512)])
    return float(np.median(np.linalg.norm(pred.reshape(-1, 4, 2) * REFINE_SIZE - y, axis=2)))


def export(net, recipe: CornerRecipe, run_dir: Path, log: list[dict]) -> Path:
    import torch

    net.eval()
    path = run_dir / "corners.onnx"
    torch.onnx.export(net, (torch.zeros(1, 3, REFINE_SIZE, REFINE_SIZE),), str(path), input_names=["crops"],
                      output_names=["corners"], dynamic_axes={"crops": {0: "batch"}, "corners": {0: "batch"}},
                      opset_version=17, dynamo=False)
    path.with_suffix(".json").write_text(json.dumps({"kind": "corners", "imgsz": REFINE_SIZE, "span": SPAN,
                                                     "recipe": asdict(recipe), "log": log}, indent=2) + "\n")
    return path


__all__ = ["RECIPES", "CornerRecipe", "crop_transforms", "train"]
