"""The truth file: what the renderer knows about a photo it drew (``truth/NNNNNN.json`` beside
``images/NNNNNN.jpg``). One definition, written by ``datasets/synth.py`` (from
``datasets/scene.py``'s ``Scene.truth``) and read by the evaluation, the dataset writers, the
benchmarks and the tests through ``read_truth`` / ``truth_files``.

Points are image pixels (x, y); corners are TL, TR, BR, BL of the card as it lies (see
``ecoscore.geometry`` for the project's coordinate convention). Card types are the values of
``ecoscore.scoring.CardType`` (``None``: a hole).
"""
from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NotRequired, TypedDict

Corners = list[list[float]]  # 4 × (x, y)


class TruthCell(TypedDict):
    row: int
    col: int
    type: str | None
    corners: Corners | None  # the card's own corners; None for a hole
    cell_corners: Corners  # where the lattice puts the cell (a hole has them too)


class TruthTableau(TypedDict):
    grid: list[list[str | None]]  # 4 rows of 5, as a grid file reads
    angle_deg: float
    random_faces: bool  # faces drawn at random (finder training), not the deck's
    neighbour: NotRequired[bool]  # another player's tableau beside the photographed one (steep split)
    cells: list[TruthCell]  # reading order, row by row


class TruthLooseCard(TypedDict):
    type: str | None
    face_up: bool
    corners: Corners


class TruthClutter(TypedDict):
    kind: str
    center_mm: list[float]


class Truth(TypedDict, total=False):
    width: int
    height: int
    seed: int | list[int]
    deck: str
    tableaux: list[TruthTableau]
    loose_cards: list[TruthLooseCard]
    clutter: list[TruthClutter]
    homography: list[list[float]]  # table millimetres to image pixels
    params: dict[str, Any]  # the renderer's SceneParams
    camera: dict[str, float]  # elevation_deg, distance_mm of the camera over the tableaux' centre
    table_extras: dict[str, Any]  # what the steep split added: table kind, sleeves, lamp, neighbour, hand
    image: str  # the photo, relative to the set's folder (written files only)


def read_truth(path: Path) -> Truth:
    truth: Truth = json.loads(Path(path).read_text(encoding="utf-8"))
    return truth


def write_truth(path: Path, truth: Truth) -> None:
    Path(path).write_text(json.dumps(truth), encoding="utf-8")


def truth_files(folder: Path, limit: int | None = None) -> list[Path]:
    """The truth files of a rendered set, in order (``folder/truth/*.json``)."""
    return sorted((Path(folder) / "truth").glob("*.json"))[:limit]


def read_set(folder: Path, limit: int | None = None) -> Iterator[tuple[Path, Truth]]:
    """(truth file, truth) of each photo of a rendered set."""
    for path in truth_files(folder, limit):
        yield path, read_truth(path)
