"""Where the project keeps data, runs and models. Override with ECOSCORE_DATA / ECOSCORE_MODELS."""
from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def data_dir() -> Path:
    """Datasets, training runs, the service's store and Ultralytics' config live here."""
    if env := os.environ.get("ECOSCORE_DATA"):
        return Path(env)
    if (REPO / "pyproject.toml").is_file():
        return REPO / "data"
    return Path.home() / ".local" / "share" / "ecoscore"


def models_dir() -> Path:
    """The shipped ONNX models (``models/`` of the repo)."""
    if env := os.environ.get("ECOSCORE_MODELS"):
        return Path(env)
    return REPO / "models"
