"""The card matcher at run time: names a straightened cell by comparing it with a deck's
enrolled references, so any deck's art is read without training (ONNX through OpenVINO).

The network maps a 64 px crop to a unit vector; crops of the same art lie close whatever
the deck (``vision/train_matcher.py``). A cell's belief in a type is its cosine with the
type's nearest reference (each reference enrolled at its four quarter turns), beside two more
classes: ``empty`` (a learned prototype of "table, no card") and ``not ours`` (a constant: a
face-down card, a card of another game, a card of another deck stays below it). A softmax
at the trained scale turns them into probabilities, so the pipeline treats the matcher as it
treated the classifier: the same doubts, the same confidence threshold.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from ecoscore.paths import models_dir
from ecoscore.scoring import CardType

from .models import EMPTY, _blob, _metadata, _network, _round_up

NOT_OURS = "not ours"  # a card, but none of this deck's types
# A cell the matcher names with less belief is flagged (the reader's threshold for the
# classifier does not carry over: the two are calibrated differently). On the tuning decks
# (bench/tune_matcher.py, 176 tableaux) no tableau was confidently wrong from 0.5 up; 0.9 keeps
# the margin the classifier's threshold has, for art less like the generator's.
MIN_CONFIDENCE = 0.9
TYPES = list(CardType)


class CardEmbedder:
    """The matcher's network: crops -> unit vectors."""

    def __init__(self, path: Path | None = None, concurrent: int = 1, threads: int | None = None):
        self.path = path or models_dir() / "matcher.onnx"
        self.meta = _metadata(self.path)
        self.imgsz = int(self.meta["imgsz"])
        self.scale = float(self.meta["scale"])
        self.not_ours = float(self.meta["not_ours"])
        self.empty = np.asarray(self.meta["empty"], np.float32)
        self.network = _network(self.path, concurrent, threads)
        # References embedded by another model (or another way: REFERENCE_VIEWS) are embedded
        # again: the version names both.
        self.version = f"{hashlib.sha256(self.path.read_bytes()).hexdigest()[:16]}-v{REFERENCE_VIEWS}"

    def __call__(self, crops: list[np.ndarray]) -> np.ndarray:
        if not crops:
            return np.zeros((0, len(self.empty)), np.float32)
        crops = [c if c.shape[:2] == (self.imgsz, self.imgsz) else
                 cv2.resize(c, (self.imgsz, self.imgsz), interpolation=cv2.INTER_AREA) for c in crops]
        blob = _blob(crops)
        padded = np.zeros((_round_up(len(blob), 8), *blob.shape[1:]), np.float32)  # see CardClassifier
        padded[:len(blob)] = blob
        out = self.network(padded)[:len(blob)]
        return out / np.linalg.norm(out, axis=1, keepdims=True).clip(1e-6)


REFERENCE_VIEWS = 2  # how references are embedded: bump when photo_views changes


def photo_views(square: np.ndarray) -> list[np.ndarray]:
    """A reference as photos show it: as given, blurred, darker, and cut a little tight or
    loose (the lattice's cell is rarely the card's exact edge). On the tuning decks these views
    read 100 of 123 normal and 43 of 72 hard tableaux exactly, against 96 and 41 for the
    reference alone, with no confident wrong either way."""
    n = square.shape[0]
    m = max(1, round(0.06 * n))
    tight = cv2.resize(square[m:n - m, m:n - m], (n, n), interpolation=cv2.INTER_LINEAR)
    loose = cv2.resize(cv2.copyMakeBorder(square, m, m, m, m, cv2.BORDER_REPLICATE), (n, n), interpolation=cv2.INTER_AREA)
    return [square, cv2.GaussianBlur(square, (0, 0), 1.2), (square * 0.6).astype(np.uint8), tight, loose]


@dataclass
class References:
    """A deck as the matcher knows it: one embedding per reference and quarter turn."""

    name: str
    vectors: np.ndarray  # R × D unit vectors
    types: np.ndarray  # R: index into TYPES

    @classmethod
    def embed(cls, name: str, embedder: CardEmbedder, images: dict[CardType, list[np.ndarray]]) -> References:
        """Embed reference crops (any size; squashed to a square as cells are), at every quarter turn."""
        missing = [card.value for card in TYPES if not images.get(card)]
        if missing:
            raise ValueError(f"deck {name!r} has no reference for: {', '.join(missing)}")
        crops, types = [], []
        for card in TYPES:
            for image in images[card]:
                square = cv2.resize(image, (embedder.imgsz, embedder.imgsz), interpolation=cv2.INTER_AREA)
                for view in photo_views(square):
                    for turn in range(4):
                        crops.append(np.ascontiguousarray(np.rot90(view, turn)))
                        types.append(TYPES.index(card))
        return cls(name, embedder(crops), np.array(types))



class CardMatcher:
    """Names straightened cells by one deck's references; a drop-in for the classifier:
    ``names`` are the 11 types, ``empty`` and ``not ours``; calling gives probabilities."""

    names = [card.value for card in TYPES] + [EMPTY, NOT_OURS]

    def __init__(self, embedder: CardEmbedder, references: References, min_confidence: float = MIN_CONFIDENCE):
        self.min_confidence = min_confidence
        self.embedder = embedder
        self.references = references
        self.imgsz = embedder.imgsz

    @property
    def deck(self) -> str:
        return self.references.name

    def similarities(self, vectors: np.ndarray) -> np.ndarray:
        """N × 13 cosines: each type's nearest reference, the empty prototype, the not-ours level."""
        sims = vectors @ self.references.vectors.T
        per_type = np.full((len(vectors), len(TYPES)), -1.0, np.float32)
        for i in range(len(TYPES)):
            mine = self.references.types == i
            if mine.any():
                per_type[:, i] = sims[:, mine].max(1)
        empty = vectors @ self.embedder.empty
        return np.column_stack([per_type, empty, np.full(len(vectors), self.embedder.not_ours, np.float32)])

    def __call__(self, crops: list[np.ndarray]) -> np.ndarray:
        if not crops:
            return np.zeros((0, len(self.names)), np.float32)
        logits = self.embedder.scale * self.similarities(self.embedder(crops))
        logits -= logits.max(1, keepdims=True)
        p = np.exp(logits)
        return (p / p.sum(1, keepdims=True)).astype(np.float32)
