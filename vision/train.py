"""Train the card finder and the card classifier with Ultralytics on the CPU, resumably, and
export them to ONNX for the torch-free runtime.

    ecoscore train finder --deck standin        # 1-class oriented-box detector
    ecoscore train classifier --deck standin    # 11 types + empty on 64 × 64 cell crops

Datasets are rendered on first use and reused after (each split records how many items it
holds once complete). A run interrupted at any point resumes from its last checkpoint.
"""
from __future__ import annotations

import json
import shutil
import time
from dataclasses import dataclass, replace
from pathlib import Path

from ecoscore.datasets.scene import SceneParams
from ecoscore.datasets.synth import CLASSIFIER_CLASSES, synthesize
from ecoscore.paths import data_dir, models_dir

from .offline import import_ultralytics


@dataclass
class Recipe:
    """Everything that decides a model: data, architecture, schedule. Recorded in the model card."""

    kind: str
    architecture: str
    imgsz: int
    epochs: int
    batch: int
    train_scenes: int
    val_scenes: int
    render_long_side: int
    train_seed: int
    val_seed: int
    p_random_faces: float = 0.0
    p_hole: float = 0.25


RECIPES = {
    "finder": Recipe("finder", "yolo11n-obb.yaml", imgsz=320, epochs=12, batch=16, train_scenes=2000,
                     val_scenes=200, render_long_side=416, train_seed=1, val_seed=1001, p_random_faces=0.3),
    "classifier": Recipe("classifier", "yolo11n-cls.yaml", imgsz=64, epochs=12, batch=128, train_scenes=1800,
                         val_scenes=150, render_long_side=960, train_seed=2, val_seed=1002, p_hole=0.6),
}


def _render_split(deck: str, out: Path, n: int, seed: int, params: SceneParams, kind: str, workers: int | None) -> None:
    marker = out / ".complete.json"
    if marker.is_file() and json.loads(marker.read_text()).get("scenes") == n:
        return
    if out.exists():
        shutil.rmtree(out)  # a half-written split is re-rendered from scratch (same seed, same data)
    count = synthesize(deck, n, out, seed=seed, workers=workers, params=params, kind=kind)
    marker.write_text(json.dumps({"scenes": n, "items": count, "seed": seed, "deck": str(deck)}))


def prepare_data(recipe: Recipe, deck: str, root: Path, workers: int | None = None) -> Path:
    """Render (or reuse) the train and val splits; return what Ultralytics' ``data=`` takes."""
    params = SceneParams(long_side=recipe.render_long_side, p_random_faces=recipe.p_random_faces, p_hole=recipe.p_hole)
    kind = "finder" if recipe.kind == "finder" else "classifier"
    _render_split(deck, root / "train", recipe.train_scenes, recipe.train_seed, params, kind, workers)
    _render_split(deck, root / "val", recipe.val_scenes, recipe.val_seed, params, kind, workers)
    if recipe.kind == "classifier":
        return root  # a classification folder: root/train/<class>, root/val/<class>
    data = root / "data.yaml"
    data.write_text(
        f"path: {root.resolve()}\ntrain: train/images\nval: val/images\nnames:\n  0: card\n", encoding="utf-8"
    )
    return data


def train(
    kind: str,
    deck: str = "standin",
    *,
    epochs: int | None = None,
    threads: int = 1,
    workers: int | None = None,
    run_root: Path | None = None,
    ship: bool = True,
    overrides: dict | None = None,
) -> Path:
    """Train (or resume) one model; export it to ONNX; copy it to ``models/`` if ``ship``."""
    recipe = replace(RECIPES[kind], **(overrides or {}))
    if epochs is not None:
        recipe = replace(recipe, epochs=epochs)
    run_root = run_root or data_dir() / "runs"
    data = prepare_data(recipe, deck, data_dir() / "datasets" / f"{kind}-{deck}-{recipe.train_scenes}", workers)

    ultralytics = import_ultralytics()
    from ultralytics.utils import torch_utils

    torch_utils.NUM_THREADS = threads  # Ultralytics pins the CPU to 1 thread by default here
    run_dir = run_root / kind
    last = run_dir / "weights" / "last.pt"
    started = time.time()
    if last.is_file() and not (run_dir / "finished.json").is_file():
        model = ultralytics.YOLO(str(last))
        model.train(resume=True, device="cpu", workers=0)
    else:
        if run_dir.exists():
            shutil.rmtree(run_dir)
        model = ultralytics.YOLO(recipe.architecture, task="obb" if kind == "finder" else "classify")
        model.train(
            data=str(data),
            imgsz=recipe.imgsz,
            epochs=recipe.epochs,
            batch=recipe.batch,
            device="cpu",
            workers=0,
            amp=False,
            pretrained=False,
            project=str(run_root),
            name=kind,
            exist_ok=True,
            plots=False,
            save_period=1,
            patience=max(5, recipe.epochs),
            seed=recipe.train_seed,
            deterministic=False,
            **(
                dict(close_mosaic=max(1, recipe.epochs // 4), cache="ram")
                if kind == "finder"
                else dict(fliplr=0.0, scale=0.1, erasing=0.1)
            ),
        )
    best = run_dir / "weights" / "best.pt"
    onnx_path = export_onnx(best, recipe)
    (run_dir / "finished.json").write_text(
        json.dumps({"recipe": recipe.__dict__, "seconds_this_session": round(time.time() - started)}, indent=2)
    )
    if ship:
        ship_model(onnx_path, recipe, deck)
    return onnx_path


def export_onnx(weights: Path, recipe: Recipe) -> Path:
    ultralytics = import_ultralytics()
    model = ultralytics.YOLO(str(weights))
    return Path(model.export(format="onnx", imgsz=recipe.imgsz, dynamic=recipe.kind == "classifier", simplify=True, device="cpu"))


def ship_model(onnx_path: Path, recipe: Recipe, deck: str) -> Path:
    """Copy the ONNX file to ``models/`` with a sidecar JSON the runtime reads (no torch)."""
    target = models_dir() / f"{recipe.kind}.onnx"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(onnx_path, target)
    names = ["card"] if recipe.kind == "finder" else sorted(CLASSIFIER_CLASSES)  # Ultralytics sorts class folders
    target.with_suffix(".json").write_text(
        json.dumps({"kind": recipe.kind, "imgsz": recipe.imgsz, "names": names, "deck": deck, "recipe": recipe.__dict__}, indent=2)
        + "\n"
    )
    return target
