"""The card matcher at run time: names a straightened cell by comparing it with a deck's
enrolled references, so any deck's art is read without training (ONNX through OpenVINO).

The network maps a 64 px crop to a unit vector; crops of the same art lie close whatever
the deck (``vision/train_matcher.py``). A cell's belief in a type is its cosine with the
type's references (each at its four quarter turns) in the deck's own metric, fitted at
enrolment (``vision/deck_metric.py``), beside two more classes (the empty prototype's cosine
stays a plain one): ``empty`` (a learned prototype of "table, no card") and ``not ours`` (a constant: a
face-down card, a card of another game, a card of another deck stays below it). A softmax
at the trained scale turns them into probabilities, so the pipeline treats the matcher as it
treated the classifier: the same doubts, the same confidence threshold.

A second vote, not learned: each channel's normalised cross-correlation with the references
at 16 px (``colour_patterns``), blind to a lamp's cast. It helps name the type, never decides
whether a cell holds a card of this deck, and a cell is sure only when both votes agree.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from ecoscore.geometry import CROP_SIZE
from ecoscore.paths import models_dir
from ecoscore.scoring import CardType
from ecoscore.scoring.cards import NOT_OURS

from .deck_metric import METRIC_VERSION, DeckMetric, best_per_type, calibration_views, least_surprise
from .models import EMPTY, _metadata, _network
from .runtime import run_in_turns

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
        self.version = f"{hashlib.sha256(self.path.read_bytes()).hexdigest()[:16]}-v{REFERENCE_VIEWS}-m{METRIC_VERSION}"

    def __call__(self, crops: list[np.ndarray]) -> np.ndarray:
        if not crops:
            return np.zeros((0, len(self.empty)), np.float32)
        crops = [c if c.shape[:2] == (self.imgsz, self.imgsz) else
                 cv2.resize(c, (self.imgsz, self.imgsz), interpolation=cv2.INTER_AREA) for c in crops]
        vectors = run_in_turns(self.network, crops)  # in turns: a deck's 8,000 crops are not copied at once
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True).clip(1e-6)


REFERENCE_VIEWS = 4  # how references are embedded: bump when photo_views or colour_pattern changes
# How much the colour pattern's vote weighs beside the embedding's cosine (both in [-1, 1]).
# Chosen on the tuning decks' cards cut with corner noise as the lattice cuts (σ 6 % of the
# card's short side), ranking by the fused similarity: 0.5, 1 and 1.5 named 99.2, 99.2 and
# 99.2 % of normal cards and 94.6, 96.0 and 96.3 % of hard ones; the embedding alone 96.9
# and 90.7 %, the pattern alone 95.1 and 87.7 %. `python bench/bench_matchers.py --tune
# --jitter 0.06` draws its own noise and names as the pipeline does (the mean of the two
# probabilities): 99.3 / 96.1 % as read, the embedding 96.8 / 91.4 %, the pattern 94.6 / 88.0 %.
PATTERN_WEIGHT = 1.0
# The same with a deck's own metric (``deck_metric``): its whitened cosines tell types apart
# by more, so the pattern weighs less (tuning cards, hard / normal misnamed: 0.35 → 53 / 16,
# 0.5 → 46 / 19, 1.0 → 63 / 35).
METRIC_PATTERN_WEIGHT = 0.5
PATTERN_SIZE = 16  # px: the art's layout, not its detail; named as many tuning cards as 24 or 32 px
PATTERN_EDGE = 2  # px left out round it, where a cell's cut meets the table


def colour_patterns(crops: list[np.ndarray]) -> np.ndarray:
    """Each crop's colour layout as a unit vector: shrunk, blurred, each channel made zero-mean
    and unit-norm on its own, so that the dot product of two is their normalised
    cross-correlation, blind to a lamp's colour cast and to exposure, which the embedding is
    not (an unseen dark deck under a warm lamp: shapes any player tells apart were misnamed).
    All crops at once, stacked: at 16 px a cell's crop (CROP_SIZE, 64 px) shrinks by a whole
    factor (fast), and the blur reaches no further than the edge left out, so crops do not
    bleed into each other."""
    n, size, edge = len(crops), PATTERN_SIZE, PATTERN_EDGE
    if not n:
        return np.zeros((0, 3 * (size - 2 * edge) ** 2), np.float32)
    side = CROP_SIZE
    tall = np.concatenate([c if c.shape[:2] == (side, side) else cv2.resize(c, (side, side), interpolation=cv2.INTER_AREA)
                           for c in crops])
    small = cv2.resize(tall, (size, size * n), interpolation=cv2.INTER_AREA).astype(np.float32)
    blurred = np.asarray(cv2.GaussianBlur(small, (2 * edge + 1, 2 * edge + 1), size / 24), np.float32)
    x = blurred.reshape(n, size, size, 3)[:, edge:-edge, edge:-edge].reshape(n, -1, 3)
    x -= x.mean(1, keepdims=True)
    # A near-flat channel (the blue of a dark card under a warm lamp) is mostly noise: it is
    # raised to at most 2.5 × its strength, not to the others' (tuning cards, hard, patterns
    # at 24 px: 97.3 against 97.2 % named right with no such floor).
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    x /= np.maximum(norms, 0.4 * norms.max(2, keepdims=True) + 1e-3)
    flat = x.transpose(0, 2, 1).reshape(n, -1)
    return flat / np.linalg.norm(flat, axis=1, keepdims=True).clip(1e-6)


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
    """A deck as the matcher knows it: its own metric (``deck_metric``: how a cell is named), and,
    read without one (the benches' baseline), one embedding per reference view and quarter turn."""

    name: str
    vectors: np.ndarray  # R × D unit vectors: each reference's photo views at each turn (without a metric)
    types: np.ndarray  # R: index into TYPES
    patterns: np.ndarray  # P × K colour patterns of the references as given (no views), each turn
    pattern_types: np.ndarray  # P: index into TYPES
    metric: DeckMetric | None = None  # the deck's own metric, fitted at enrolment

    @classmethod
    def embed(cls, name: str, embedder: CardEmbedder, images: dict[CardType, list[np.ndarray]],
              metric: bool = True, partial: bool = False) -> References:
        """Embed reference crops (any size; squashed to a square as cells are), at every quarter
        turn, and fit the deck's metric; ``metric=False``: the nearest-reference reading instead
        (each reference in ``photo_views``, 20 crops a reference, which the metric does not read).

        A deck lacking a type is refused, unless ``partial`` (a deck the page is still being
        taught): then a type with no reference has no prototype and no pattern, its similarity
        is -1 in both votes (``best_per_type``), so a cell is never named so, and a card of that
        type goes to whichever answer is nearest, most often "not ours"."""
        missing = [card.value for card in TYPES if not images.get(card)]
        if missing and (not partial or len(missing) == len(TYPES)):
            raise ValueError(f"deck {name!r} has no reference for: {', '.join(missing)}")
        crops, types, plain, plain_types, squares = [], [], [], [], []
        for card in TYPES:
            for image in images.get(card, []):
                square = cv2.resize(image, (embedder.imgsz, embedder.imgsz), interpolation=cv2.INTER_AREA)
                squares.append((TYPES.index(card), square))
                for turn in range(4):
                    plain.append(np.ascontiguousarray(np.rot90(square, turn)))
                    plain_types.append(TYPES.index(card))
                for view in () if metric else photo_views(square):
                    for turn in range(4):
                        crops.append(np.ascontiguousarray(np.rot90(view, turn)))
                        types.append(TYPES.index(card))
        # The pattern is blind to exposure and blurs anyway: the plain reference is enough
        # (with its views too, grey patterns named 96.6 against 96.9 % of hard tuning cards).
        patterns = colour_patterns(plain)
        if metric:
            fitted = DeckMetric.fit(embedder, squares, len(TYPES))
            refs = cls(name, np.zeros((0, len(fitted.whiten)), np.float32), np.zeros(0, int), patterns,
                       np.array(plain_types), fitted)
            CardMatcher(embedder, refs).fit_type_scale(squares)
            return refs
        return cls(name, embedder(crops), np.array(types), patterns, np.array(plain_types))


class CardMatcher:
    """Names straightened cells by one deck's references; a drop-in for the classifier:
    ``names`` are the 11 types, ``empty`` and ``not ours``; calling gives probabilities."""

    names = [card.value for card in TYPES] + [EMPTY, NOT_OURS]
    # The reader reads a cell at its other quarter turns when its first read is not this sure
    # (``naming.name_cells``; the classifier's level is 0.999). The matcher's references are
    # enrolled at all four turns, so a turned cell mostly meets the same references again: at
    # 0.99 (not 0.999) 38 % fewer crops are embedded on the 12 MP photos, the tuning decks read
    # the same, and covered cards are named confidently wrong no more often (bench/covered_cards.py
    # --matcher: 4 and 4 of 432 either way; at 0.95, 5 and 8).
    sure_at_once = 0.99

    def __init__(self, embedder: CardEmbedder, references: References, min_confidence: float = MIN_CONFIDENCE):
        self.min_confidence = min_confidence
        self.embedder = embedder
        self.references = references
        self.imgsz = embedder.imgsz

    @property
    def deck(self) -> str:
        return self.references.name

    def similarities(self, vectors: np.ndarray, patterns: np.ndarray | None = None) -> np.ndarray:
        """N × 13: each type's similarity, the empty prototype, the not-ours level; with the
        cells' colour patterns, as ``with_patterns`` turns them. A type's similarity is its cosine
        in the deck's own metric where the deck has one (``deck_metric``), else its nearest
        reference's cosine. The metric decides whether a cell holds a card of this deck too: on
        the tuning decks its best cosine falls below the not-ours level for 1.1 % of the deck's
        own cards in hard photos against 2.5 % plain, and stays above it for 6.9 % of another
        deck's cards against 11.2 % and 1.3 % of another game's against 3.8 %."""
        refs = self.references
        per_type = (refs.metric.type_similarities(vectors, len(TYPES)) if refs.metric is not None
                    else _per_type(vectors @ refs.vectors.T, refs.types))
        empty = vectors @ self.embedder.empty
        sims = np.column_stack([per_type, empty, np.full(len(vectors), self.embedder.not_ours, np.float32)])
        return sims if patterns is None else self.with_patterns(sims, patterns)

    def with_patterns(self, sims: np.ndarray, patterns: np.ndarray) -> np.ndarray:
        """The embedding's N × 13 similarities with the pattern's vote: the types ranked by their
        similarity + the pattern's weight × its correlation, and the best of them keeps the best
        similarity. The pattern moves belief between types, never from "empty" or "not ours"."""
        n = len(TYPES)
        per_type = sims[:, :n]
        corr = _per_type(patterns @ self.references.patterns.T, self.references.pattern_types)
        weight = PATTERN_WEIGHT if self.references.metric is None else METRIC_PATTERN_WEIGHT
        fused = per_type + weight * corr
        # Which type: both votes; whether a card of this deck at all: the embedding's best
        # similarity alone, as before (the fused best is set to it).
        fused += per_type.max(1, keepdims=True) - fused.max(1, keepdims=True)
        return np.column_stack([fused, sims[:, n:]])

    def __call__(self, crops: list[np.ndarray]) -> np.ndarray:
        """Probabilities over ``names``: the mean of the embedding's alone and of the embedding
        with the colour pattern. Where the two disagree the mean is unsure, so a cell is named
        with confidence only when the embedding agrees: with the pattern's vote alone, one
        tableau of a deck enrolled from a photo came out confidently wrong (a near-blank card
        whose photo references differed mostly in their light)."""
        if not crops:
            return np.zeros((0, len(self.names)), np.float32)
        alone, both = self._votes(crops)
        type_scale = None if self.references.metric is None else self.references.metric.type_scale
        return self._probabilities(alone, both, type_scale)

    def _votes(self, crops: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """The crops' similarities by the embedding alone and with the colour pattern's vote (the
        cosines computed once, for both)."""
        alone = self.similarities(self.embedder(crops))
        return alone, self.with_patterns(alone, colour_patterns(crops))

    def _probabilities(self, alone: np.ndarray, both: np.ndarray, type_scale: float | None) -> np.ndarray:
        """The mean of both votes' softmax at the embedder's scale; at a deck's ``type_scale``,
        each vote that names a type shares its types' belief among them at that scale. Only how
        sure a cell is of its type changes: the type named is the best similarity's either way,
        and a vote that names *empty* or *not ours* is left as it is, so whether a cell holds a
        card of this deck stays the embedder's. A deck whose types all look alike (pale
        silhouettes on near-black cards) had its right names at 60-89 %, its belief spread thin
        over ten other types, and every read doubted."""
        votes = []
        for sims in (alone, both):
            probs = _softmax(self.embedder.scale * sims)
            if type_scale is not None:
                n = len(TYPES)
                a_type = probs.argmax(1) < n
                probs[a_type, :n] = probs[a_type, :n].sum(1, keepdims=True) * _softmax(type_scale * sims[a_type, :n])
            votes.append(probs)
        return ((votes[0] + votes[1]) / 2).astype(np.float32)

    def fit_type_scale(self, squares: list[tuple[int, np.ndarray]]) -> None:
        """Set the deck's type scale (``DeckMetric.type_scale``) at enrolment: the scale at which
        fresh corrupted views of its references (``deck_metric.calibration_views``) are named
        with the least surprise, their probabilities as the reader reads them (both votes)."""
        metric = self.references.metric
        if metric is None:
            return
        crops, labels = calibration_views(squares)
        alone, both = self._votes(crops)
        metric.type_scale = max(self.embedder.scale,
                                least_surprise(lambda scale: self._probabilities(alone, both, scale), labels))


def _softmax(logits: np.ndarray) -> np.ndarray:
    p = np.exp(logits - logits.max(1, keepdims=True))
    return p / p.sum(1, keepdims=True)


def _per_type(sims: np.ndarray, types: np.ndarray) -> np.ndarray:
    """N × 11: the best similarity among each type's references (−1 for a type with none)."""
    return best_per_type(sims, types, len(TYPES))
