"""Train the lattice refiner (``vision/lattice_refiner.py``) on rendered photos' tableaux, and export it to ONNX.

Each tableau of a training photo has a true lattice: the homography from lattice units to the
photo fitted on its 20 cells' centres (a missing card's cell where it would lie), as
``window.lattice_of`` fits one on the cells read. The lattice the refiner is shown is that one
moved: each outer corner by up to 0.8 of a cell (a spread drawn per example, and a shift shared
by all four), labelled from either end. The photo straightened through it is the input; where the
true lattice's outer corners then lie on the canvas (less where they would lie unmoved, in cells)
is the target. The photos are the recipe's own (rendered on first use: generated decks of every
style, random faces of any art, touching cards, hard and steep photos), never a test set.

Needs torch (the train extra); the result runs without it.
"""
from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np

from ecoscore.geometry import project
from ecoscore.paths import data_dir, models_dir
from ecoscore.scoring import COLS, ROWS
from ecoscore.truthfile import Truth, TruthTableau

from .lattice_refiner import View, lattice_canvas, moved_by
from .train_corners import as_tensor, conv_block, regressor_epochs
from .window import centre


@dataclass
class LatticeRecipe:
    name: str = "lattice"  # its run folder (data/runs/<name>) and its shipped file (models/<name>.onnx)
    photo_set: str = "lattice"  # its photos' folder (data/datasets/<photo_set>): refiners share one
    train_scenes: int = 1200  # and hard and steep ones beside them (``photos``)
    val_scenes: int = 150
    views: int = 4  # moved lattices per tableau
    epochs: int = 25
    batch: int = 128
    lr: float = 3e-3
    width: int = 16
    seed: int = 0
    spread: tuple[float, float] = (0.03, 0.3)  # each corner's move (sd, in cells), drawn per example
    shift: float = 0.15  # a move shared by the four corners (sd, cells)
    most_moved: float = 0.8  # no corner moved further (cells)
    whole_cell: float = 0.0  # share of lattices also moved a whole row or column, or one side a whole cell out or in
    cell_px: int = 32  # the view it sees (``lattice_refiner.View``)
    margin: float = 0.5

    @property
    def view(self) -> View:
        return View(self.cell_px, self.margin, self.most_moved)


RECIPES = {
    "lattice": LatticeRecipe(),
    # The wide refiner: a lattice fitted a whole row or column off (boxes on the art's own
    # patches, an edge column boxed on the table) brought back within the fine one's reach.
    "lattice-wide": LatticeRecipe(name="lattice-wide", epochs=14, spread=(0.03, 0.4), shift=0.3, most_moved=1.8,
                                  whole_cell=0.4, cell_px=24, margin=1.5),
}


def photos(recipe: LatticeRecipe):
    """The photo recipe its tableaux come from (``vision.train.Recipe``: only its rendering
    settings are used): generated decks of every style, dark ones, random faces of any art, half
    the tableaux laid edge to edge, and hard and steep photos beside the normal ones."""
    from .train import Recipe

    return Recipe(recipe.name, "finder", "yolo11n-obb.yaml", imgsz=512, epochs=1, batch=16,
                  train_scenes=recipe.train_scenes, val_scenes=recipe.val_scenes, render_long_side=800,
                  train_seed=301, val_seed=1301, p_random_faces=0.3, p_wide_faces=0.5, p_hole=0.4, p_multi=0.3,
                  hard_share=0.3, steep_share=0.4, generated_decks=0.8, dark_decks=0.3, p_touching=0.5)


def true_lattice(tab: TruthTableau) -> np.ndarray | None:
    """The homography from lattice units (col, row) to the photo fitted on the tableau's 20 cell
    centres (least squares), or None."""
    grid = np.array([(cell["col"] + 0.5, cell["row"] + 0.5) for cell in tab["cells"]], np.float64)
    photo = np.array([centre(np.array(cell["corners"] or cell["cell_corners"], np.float64)) for cell in tab["cells"]])
    H, _ = cv2.findHomography(grid, photo, 0)
    return H if H is not None and np.isfinite(H).all() else None


# The same lattice labelled from the other end (a reader may fit either).
_TURNED = np.array([[-1, 0, COLS], [0, -1, ROWS], [0, 0, 1]], np.float64)


def photo_examples(image: np.ndarray, truth: Truth, rng: np.random.Generator, recipe: LatticeRecipe
                   ) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """``views`` canvases of each tableau whose middle lies in the photo, and the targets (8 numbers each)."""
    canvases: list[np.ndarray] = []
    targets: list[np.ndarray] = []
    h, w = image.shape[:2]
    for tab in truth["tableaux"]:
        true_H = true_lattice(tab)
        if true_H is None:
            continue
        x, y = project(true_H, [(COLS / 2, ROWS / 2)])[0]
        if not (0 <= x < w and 0 <= y < h):
            continue
        for _ in range(recipe.views):
            labelled = true_H @ _TURNED if rng.random() < 0.5 else true_H
            move = rng.normal(0, rng.uniform(*recipe.spread), (4, 2)) + rng.normal(0, recipe.shift, (1, 2))
            if rng.random() < recipe.whole_cell:
                move += whole_cell_move(rng)
            move = np.clip(move, -recipe.most_moved, recipe.most_moved)
            # The lattice shown is the true one moved back: on its canvas the true corners lie at
            # OUTER + move, which the refiner is to say.
            canvas = lattice_canvas(image, labelled @ np.linalg.inv(moved_by(move)), recipe.view)
            if canvas is not None:
                canvases.append(canvas)
                targets.append(move.reshape(8))
    return canvases, targets


def whole_cell_move(rng: np.random.Generator) -> np.ndarray:
    """A whole cell's move of the outer corners (4 × 2, clockwise from (0, 0)'s): the lattice a
    row or column off, or one side of it a cell out or in (a grid of six columns' span, or four)."""
    move = np.zeros((4, 2))
    axis, sign = rng.integers(2), rng.choice([-1.0, 1.0])
    if rng.random() < 0.5:
        move[:, axis] = sign
    else:
        # The corners of one side: left (0, 3), right (1, 2), top (0, 1) or bottom (2, 3).
        sides = ((0, 3), (1, 2)) if axis == 0 else ((0, 1), (2, 3))
        move[list(sides[rng.integers(2)]), axis] = sign
    return move


def examples(folders: list[Path], recipe: LatticeRecipe, seed: int) -> tuple[np.ndarray, np.ndarray]:
    from ecoscore.truthfile import read_set

    rng = np.random.default_rng(seed)
    canvases: list[np.ndarray] = []
    targets: list[np.ndarray] = []
    for folder in folders:
        for _, truth in read_set(folder):
            image = cv2.imread(str(folder / truth["image"]))
            if image is None:
                raise FileNotFoundError(f"{folder / truth['image']} is missing or not an image")
            c, t = photo_examples(image, truth, rng, recipe)
            canvases += c
            targets += t
    return np.stack(canvases), np.array(targets, np.float32)


def build_network(width: int, view: View):
    import torch
    from torch import nn

    block = conv_block
    # After five halvings: about one place per cell and margin.
    rows, cols = (-(-side // 32) for side in (view.canvas[1], view.canvas[0]))

    class Refiner(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            w = width
            self.features = nn.Sequential(block(3, w, 2), block(w, 2 * w, 2), block(2 * w, 2 * w, 1),
                                          block(2 * w, 4 * w, 2), block(4 * w, 4 * w, 1), block(4 * w, 8 * w, 2),
                                          block(8 * w, 8 * w, 1), block(8 * w, 8 * w, 2))
            # A dense head, not a pooled one: where on the canvas a feature lies is the answer.
            self.head = nn.Sequential(nn.Flatten(), nn.Linear(8 * w * rows * cols, 256), nn.SiLU(), nn.Linear(256, 8))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.head(self.features(x))

    return Refiner()


def train(threads: int = 2, ship: bool = True, recipe: LatticeRecipe | None = None, run_dir: Path | None = None) -> Path:
    import torch

    from .train import prepare_data

    recipe = recipe or LatticeRecipe()
    torch.set_num_threads(threads)
    torch.manual_seed(recipe.seed)
    root = data_dir() / "datasets" / recipe.photo_set
    prepare_data(photos(recipe), "standin", root)
    train_x, train_y = examples(sorted(root.glob("train*")), recipe, recipe.seed)
    val_x, val_y = examples(sorted(root.glob("val*")), recipe, recipe.seed + 1)
    net = build_network(recipe.width, recipe.view)
    run_dir = run_dir or data_dir() / "runs" / recipe.name
    run_dir.mkdir(parents=True, exist_ok=True)
    started, log = time.time(), []
    for epoch, loss in regressor_epochs(net, train_x, train_y, recipe, beta=0.05):
        error = validation_error(net, val_x, val_y)
        log.append({"epoch": epoch + 1, "loss": loss, "val_corner_cells": error,
                    "val_unmoved_cells": float(np.median(np.linalg.norm(val_y.reshape(-1, 4, 2), axis=2))),
                    "seconds": round(time.time() - started)})
        print(json.dumps(log[-1]), flush=True)
        torch.save(net.state_dict(), run_dir / "last.pt")  # a checkpoint to look at while it runs
    onnx_path = export(net, recipe, run_dir, log)
    if ship:
        for suffix in (".onnx", ".json"):
            (models_dir() / f"{recipe.name}{suffix}").write_bytes(onnx_path.with_suffix(suffix).read_bytes())
    return onnx_path


def validation_error(net, x: np.ndarray, y: np.ndarray) -> float:
    """Median distance of a predicted outer corner from the true one, in cells (one run)."""
    import torch

    net.eval()
    with torch.no_grad():
        pred = np.concatenate([net(as_tensor(x[k:k + 256])).numpy() for k in range(0, len(x), 256)])
    return float(np.median(np.linalg.norm((pred - y).reshape(-1, 4, 2), axis=2)))


def export(net, recipe: LatticeRecipe, run_dir: Path, log: list[dict]) -> Path:
    import torch

    net.eval()
    path = run_dir / f"{recipe.name}.onnx"
    view = recipe.view
    torch.onnx.export(net, (torch.zeros(1, 3, view.canvas[1], view.canvas[0]),), str(path), input_names=["canvas"],
                      output_names=["corners"], dynamic_axes={"canvas": {0: "batch"}, "corners": {0: "batch"}},
                      opset_version=17, dynamo=False)
    path.with_suffix(".json").write_text(json.dumps({"kind": "lattice", "cell_px": view.cell_px, "margin": view.margin,
                                                     "canvas": list(view.canvas), "recipe": asdict(recipe), "log": log},
                                                    indent=2) + "\n")
    return path


__all__ = ["RECIPES", "LatticeRecipe", "train", "true_lattice"]
