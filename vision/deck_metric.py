"""A deck's own metric, fitted at enrolment from its references alone (NumPy, no torch, ~1.5 s).

The matcher's embedding is trained once, on many decks; what a photo does to *this* deck's
cards (a lamp, blur, noise, glare, a cut a few per cent off) moves its embeddings along
directions that tell none of its types apart. Each reference is shown in many such corrupted
views; the spread of their embeddings around each reference's own mean is that nuisance, and
whitening by it (shrunk towards the identity: a few hundred views estimate a 128 × 128 matrix
poorly) leaves the directions that do tell this deck's types apart. A cell is then compared with
each reference's mean view in the whitened space (linear discriminant analysis, the classic
few-shot move). The fourteen tuning decks' cards cut from their own photos with the
lattice's corner noise (``bench/tune_deck_metric.py``), named as the reader names them: 135 of
3,620 cards in hard photos misnamed and 9 of them surely, against 193 and 17 by nearest
reference; 37 of 5,944 in normal photos against 52.

The references of a dark deck (``dark_deck``) are shown under a sheen too, and each has a second
mean view, a prototype of its own, for it: a glossy card or a sleeve mirrors the bright room over the whole
card, and on near-black stock that added light is no small nuisance (sRGB 33 comes out ~85 in
the second renderer's photos, while the ink hardly moves). A light deck is left as it was: its
sheen hardly shows, and learning one cost the light decks' photos (held out, 2 tableaux gained
and 12 lost).

Fresh views of the references, corrupted twice over (``calibration_views``, 264 crops for a deck
of one reference a type, about 0.3 s more), give the deck its type scale: how sharply the
matcher tells its types apart (``CardMatcher.fit_type_scale``, by ``least_surprise``).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

# Bump when anything below changes how a deck is fitted: decks cached with the old metric are
# fitted again (it names the cache, through ``CardEmbedder.version``).
METRIC_VERSION = 4
# Views per type, spread over its references and their four turns (at least 4 a turn for each):
# one reference a type is 24 views a turn, 1,056 crops for a deck, about 1.5 s on this machine
# (two thirds of it drawing the views; a dark deck's views under a sheen double that). A deck of
# many references is held to MAX_VIEWS crops in all (at least 2 a turn each): 3,200 for the
# store's largest, 400 references (twice that for a dark deck's, its sheen's views).
VIEWS_PER_TYPE = 96
MIN_VIEWS = 4
MAX_VIEWS = 2 * 11 * VIEWS_PER_TYPE
# Of the within-type covariance, the share replaced by the identity (seven tuning decks' cards
# misnamed, hard / normal, with the pattern: 0.01 → 47 / 23, 0.1 → 46 / 19, 0.2 → 48 / 18).
SHRINK = 0.1
SEED = 20261127  # a deck is fitted the same way every time it is enrolled
# Each corner of a view moved by this share of the side (σ), as the lattice errs. 0.08 named more
# cards cut off (tuning, as read: hard 127 against 135 misnamed) but read fewer whole tableaux
# through the pipeline (403 of 448 against 407) and, held out, lost the minimal deck enrolled
# from a photo 3 tableaux: 0.04 kept.
CUT_SIGMA = 0.04
# Fresh views a type for a deck's type scale (``calibration_views``), and the scales tried: from
# the embedder's trained scale (20) up, so a deck's scale only ever sharpens.
CALIBRATION_VIEWS = 24
SCALES = tuple(range(20, 81, 2))
# A sheen's light, added to the card's own in linear light: up to 0.15 of white. The second
# renderer's glossy dark cards show their near-black stock lifted about that much (sRGB 33 to
# 85); their pale ink hardly moves.
SHEEN_MAX = 0.15
# A reference darker than this (median grey level), and than this share of its lightest part,
# is a dark card (``dark_card``); a deck of mostly such cards gets the sheen's prototypes. The
# benches' silhouette decks' faces lie at 14-39 and 0.06-0.25, every other deck's at 62 or more
# and 0.28 or more. Both: a light deck's cards cut from a dim photo lie under 60 too (held out,
# the texture deck enrolled from a photo lost 2 tableaux).
DARK_CARD = 60
DARK_AGAINST_INK = 0.3


def photo_like(square: np.ndarray, rng: np.random.Generator, sheen: bool = False) -> np.ndarray:
    """``square`` as a photo may show it: cut a little off, defocused or shaken, under a
    coloured lamp, dark or bright, with glare, sensor noise and JPEG. Wider than the renderer's
    hard split in light (gain 0.3–1.2 per photo, ±20 % per channel) so the metric does not
    learn one renderer's lamps. ``sheen``: under a sheen too (``SHEEN_MAX``): a glossy card or a
    sleeve mirrors the bright room over the whole card, adding light that lifts a dark card's
    stock far more than its ink."""
    n = square.shape[0]
    src = np.array([[0, 0], [n - 1, 0], [n - 1, n - 1], [0, n - 1]], np.float32)
    dst = (src + rng.normal(0, CUT_SIGMA * n, src.shape)).astype(np.float32)
    x: np.ndarray = cv2.warpPerspective(square.astype(np.float32), cv2.getPerspectiveTransform(dst, src), (n, n),
                                        borderMode=cv2.BORDER_REFLECT)
    if rng.random() < 0.7:
        x = cv2.GaussianBlur(x, (0, 0), rng.uniform(0.4, 1.6))
    if rng.random() < 0.3:  # shaken: a line kernel at any angle
        k = int(rng.integers(2, 5))
        line = np.zeros((2 * k + 1, 2 * k + 1), np.float32)
        line[k, :] = 1
        kernel = cv2.warpAffine(line, cv2.getRotationMatrix2D((k, k), rng.uniform(0, 180), 1), line.shape)
        x = cv2.filter2D(x, -1, kernel / kernel.sum())
    x = x * (rng.uniform(0.3, 1.2) * rng.uniform(0.8, 1.2, 3)) + rng.uniform(-10, 20)
    if sheen:
        added = rng.uniform(0.02, SHEEN_MAX) * rng.uniform(0.75, 1.0, 3)
        x = 255 * linear_to_srgb(srgb_to_linear(x / 255) + added)
    if rng.random() < 0.3:  # glare: a soft white patch
        cy, cx = rng.uniform(0, n, 2)
        yy, xx = np.mgrid[:n, :n]
        r = rng.uniform(0.1, 0.35) * n
        x += (rng.uniform(80, 200) * np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * r * r)))[..., None]
    x += rng.normal(0, rng.uniform(2, 12), x.shape)
    out = np.clip(x, 0, 255).astype(np.uint8)
    encoded = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(40, 90))])[1]
    return np.asarray(cv2.imdecode(encoded, cv2.IMREAD_COLOR))


def dark_card(square: np.ndarray) -> bool:
    """Whether a reference is a dark card: mostly dark (its median grey below ``DARK_CARD``),
    and dark against its own lightest part (a light card cut from a dim photo is dark all over).
    A sheen lifts such a card's look far from its face's, a light card's hardly at all."""
    grey = cv2.cvtColor(square, cv2.COLOR_BGR2GRAY)
    median = float(np.median(grey))
    return median < DARK_CARD and median < DARK_AGAINST_INK * float(np.percentile(grey, 98))


def dark_deck(squares: list[tuple[int, np.ndarray]]) -> bool:
    """Whether a deck is of dark cards: most of its references are (``dark_card``). Decided for
    the deck, not card by card: a card's test hangs on how light its ink is, and a deck whose
    types were split (some with a sheen's prototype, some without) pulled reads towards the
    types that had one (a review: 3 of 30 silhouette decks split so)."""
    return 2 * sum(dark_card(square) for _, square in squares) > len(squares)


def srgb_to_linear(srgb: np.ndarray) -> np.ndarray:
    """sRGB values (0-1) as linear light (the second renderer's reflectances use it too)."""
    srgb = np.clip(srgb, 0, 1)
    return np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)


def linear_to_srgb(linear: np.ndarray) -> np.ndarray:
    linear = np.clip(linear, 0, 1)
    return np.where(linear <= 0.0031308, 12.92 * linear, 1.055 * linear ** (1 / 2.4) - 0.055)


def views_per_turn(of_its_type: int, references: int) -> int:
    """How many corrupted views each turn of a reference gets, with ``of_its_type`` references of
    its type and ``references`` in the deck."""
    wanted = max(MIN_VIEWS, -(-VIEWS_PER_TYPE // (4 * of_its_type)))
    return max(2, min(wanted, MAX_VIEWS // (4 * references)))


@dataclass
class DeckMetric:
    """The whitening and, in its space, each reference's mean view at each turn."""

    whiten: np.ndarray  # D × D
    prototypes: np.ndarray  # P × D unit vectors (whitened)
    types: np.ndarray  # P: index into the deck's types
    # How sharply this deck's types are told apart: the logit scale among its types alone
    # (``CardMatcher.fit_type_scale``, at enrolment); None: the embedder's own scale.
    type_scale: float | None = None

    @classmethod
    def fit(cls, embed: Callable[[list[np.ndarray]], np.ndarray], squares: list[tuple[int, np.ndarray]],
            n_types: int) -> DeckMetric:
        """``squares``: (type index, reference crop at the matcher's size) for every reference."""
        rng = np.random.default_rng(SEED)
        per_type = np.bincount([t for t, _ in squares], minlength=n_types)
        crops: list[np.ndarray] = []
        groups: list[int] = []
        group_types: list[int] = []
        # A dark card under a sheen is its own group, with its own prototype: its lifted stock
        # is no small spread round the plain views' mean.
        sheens = (False, True) if dark_deck(squares) else (False,)
        for t, square in squares:
            views = views_per_turn(int(per_type[t]), len(squares))
            for turn in range(4):
                turned = np.ascontiguousarray(np.rot90(square, turn))
                for sheen in sheens:
                    crops += [photo_like(turned, rng, sheen) for _ in range(views)]
                    groups += [len(group_types)] * views
                    group_types.append(t)
        vectors = embed(crops)
        labels = np.array(groups)
        means = np.stack([vectors[labels == g].mean(0) for g in range(len(group_types))])
        centred = vectors - means[labels]
        dim = vectors.shape[1]
        cov = centred.T @ centred / len(centred)
        cov = (1 - SHRINK) * cov + SHRINK * np.trace(cov) / dim * np.eye(dim)
        values, axes = np.linalg.eigh(cov)
        whiten = ((axes / np.sqrt(values.clip(1e-9))) @ axes.T).astype(np.float32)
        return cls(whiten, _unit(means @ whiten), np.array(group_types))

    def type_similarities(self, vectors: np.ndarray, n_types: int) -> np.ndarray:
        """N × n_types: each type's best cosine in the whitened space (−1 for a type with none)."""
        return best_per_type(_unit(vectors @ self.whiten) @ self.prototypes.T, self.types, n_types)


def calibration_views(squares: list[tuple[int, np.ndarray]]) -> tuple[list[np.ndarray], np.ndarray]:
    """Fresh views of a deck's references for its type scale (``CardMatcher.fit_type_scale``):
    ``CALIBRATION_VIEWS`` a type, at random turns, each corrupted twice over by ``photo_like``
    (not the views the metric is fitted on); and each view's type index. Views corrupted once
    are easier than photos: fitted on them, most tuning decks came out at the largest scale
    tried; twice, at 24-80."""
    rng = np.random.default_rng(SEED + 1)
    by_type: dict[int, list[np.ndarray]] = {}
    for t, square in squares:
        by_type.setdefault(t, []).append(square)
    crops, labels = [], []
    for t, mine in by_type.items():
        for _ in range(CALIBRATION_VIEWS):
            square = mine[int(rng.integers(len(mine)))]
            turned = np.ascontiguousarray(np.rot90(square, int(rng.integers(4))))
            crops.append(photo_like(photo_like(turned, rng), rng))
            labels.append(t)
    return crops, np.array(labels)


def least_surprise(probabilities_at: Callable[[float], np.ndarray], labels: np.ndarray) -> float:
    """Of ``SCALES``, the one at which ``probabilities_at(scale)`` (N × classes) gives the
    views' true ``labels`` the least negative log-likelihood: temperature scaling."""
    best, best_loss = float(SCALES[0]), np.inf
    for scale in SCALES:
        p = probabilities_at(float(scale))[np.arange(len(labels)), labels]
        loss = float(-np.mean(np.log(np.clip(p, 1e-12, 1.0))))
        if loss < best_loss:
            best, best_loss = float(scale), loss
    return best


def best_per_type(sims: np.ndarray, types: np.ndarray, n_types: int) -> np.ndarray:
    """N × n_types: the best of each type's columns of ``sims`` (−1 for a type with none)."""
    out = np.full((len(sims), n_types), -1.0, np.float32)
    for t in range(n_types):
        mine = types == t
        if mine.any():
            out[:, t] = sims[:, mine].max(1)
    return out


def _unit(x: np.ndarray) -> np.ndarray:
    return (x / np.linalg.norm(x, axis=1, keepdims=True).clip(1e-9)).astype(np.float32)
