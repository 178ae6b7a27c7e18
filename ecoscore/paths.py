"""Where the project finds its shipped files and keeps its data.

Shipped files (models, fonts, the stand-in deck, the phone page) are package resources: found
through ``importlib.resources`` wherever the package is installed — a wheel in site-packages or
an editable install of a source checkout. Override the models with ``ECOSCORE_MODELS``.

Data (rendered sets, training runs, the service's store, enrolled decks, caches) goes to
``ECOSCORE_DATA``; else ``data/`` of a source checkout; else the user's data directory
(platformdirs where installed, else the XDG rule: ``$XDG_DATA_HOME/ecoscore`` or
``~/.local/share/ecoscore``).
"""
from __future__ import annotations

import os
from importlib.resources import files
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent  # the checkout, when running from one


def resource_dir(package: str, *parts: str) -> Path:
    """A folder shipped inside ``package`` (installed packages are plain folders: no zip)."""
    return Path(str(files(package).joinpath(*parts)))


def is_source_checkout() -> bool:
    return (REPO / "pyproject.toml").is_file() and (REPO / "scoring").is_dir()


def user_data_dir() -> Path:
    try:
        from platformdirs import user_data_path
    except ImportError:
        base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
        return Path(base) / "ecoscore"
    return user_data_path("ecoscore", appauthor=False)


def data_dir() -> Path:
    """Datasets, training runs, the service's store and Ultralytics' config live here."""
    if env := os.environ.get("ECOSCORE_DATA"):
        return Path(env)
    if is_source_checkout():
        return REPO / "data"
    return user_data_dir()


def models_dir() -> Path:
    """The shipped ONNX models and their sidecars (``models/`` of the repo, ``ecoscore.models``)."""
    if env := os.environ.get("ECOSCORE_MODELS"):
        return Path(env)
    return resource_dir("ecoscore.models")


def fonts_dir() -> Path:
    """The bundled DejaVu fonts (the stand-in deck's lettering, Ultralytics' offline font)."""
    return resource_dir("ecoscore.datasets", "fonts")


def decks_dir() -> Path:
    """The decks shipped with the package (the stand-in deck)."""
    return resource_dir("ecoscore.datasets", "decks")


def static_dir() -> Path:
    """The phone page's files."""
    return resource_dir("ecoscore.service", "static")
