"""A deck is data: a folder of face images per card type, plus ``deck.toml``.

    decks/<deck>/deck.toml          name, card size in mm, source
    decks/<deck>/<type>/*.png       one or more faces per type (portrait, any resolution)

Any folder in this layout is a deck; no code knows a particular deck's look.
"""
from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from ecoscore.paths import decks_dir
from ecoscore.scoring import CardType

DECKS_DIR = decks_dir()  # the shipped decks, a package resource
IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".webp"}
CARD_MM = (63.5, 88.9)  # a standard card, portrait


class DeckError(ValueError):
    """A deck folder that cannot be used; the message says what is missing."""


@dataclass
class Deck:
    name: str
    card_mm: tuple[float, float]  # width, height
    source: str
    faces: dict[CardType, list[np.ndarray]]  # BGR uint8, portrait
    path: Path


def resolve_deck_path(deck: str | Path) -> Path:
    """A deck name (a folder under ``datasets/decks``) or a path to a deck folder. A shipped
    deck's bare name is that deck whatever the current folder holds: a folder of photos named
    "standin" was taken for the built-in deck, and the service's deck list answered 500 (a walk).
    A folder of such a name is given as a path (``./standin``)."""
    named = DECKS_DIR / str(deck)
    if isinstance(deck, str) and "/" not in deck and "\\" not in deck and named.is_dir():
        return named
    path = Path(deck)
    if path.is_dir():
        return path
    if named.is_dir():
        return named
    known = ", ".join(sorted(p.name for p in DECKS_DIR.iterdir() if p.is_dir())) if DECKS_DIR.is_dir() else "none"
    raise DeckError(f"no deck {str(deck)!r}: not a folder, and not a shipped deck (shipped: {known})")


def load_deck(deck: str | Path) -> Deck:
    path = resolve_deck_path(deck)
    meta = {}
    if (path / "deck.toml").is_file():
        try:
            meta = tomllib.loads((path / "deck.toml").read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as err:
            raise DeckError(f"{path / 'deck.toml'}: {err}") from None
    faces: dict[CardType, list[np.ndarray]] = {}
    missing = []
    for card in CardType:
        files = sorted(f for f in (path / card.value).glob("*") if f.suffix.lower() in IMAGE_SUFFIXES)
        images = []
        for f in files:
            image = cv2.imread(str(f), cv2.IMREAD_COLOR)
            if image is None:
                raise DeckError(f"{f}: not a readable image")
            if image.shape[0] < image.shape[1]:  # landscape scan: stand it up
                image = cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE)
            images.append(image)
        if not images:
            missing.append(card.value)
        faces[card] = images
    if missing:
        raise DeckError(
            f"deck {path} has no face image for: {', '.join(missing)} "
            f"(expected {path}/<type>/*.png for each of the 11 types)"
        )
    size = meta.get("card_mm", CARD_MM)
    return Deck(
        name=str(meta.get("name", path.name)),
        card_mm=(float(size[0]), float(size[1])),
        source=str(meta.get("source", "")),
        faces=faces,
        path=path,
    )
