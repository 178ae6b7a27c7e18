"""The card matcher against the classic ways to match a card to an art database, on decks no
training has seen: each unseen deck's cards, cut from its own rendered photos at their true
corners (so only the matching is measured), named by nearest reference (one flat face per type,
each at its four quarter turns):
  - perceptual hash (pHash: DCT of the grey 32 × 32 crop, 64 bits; Hamming distance), as card
    scanner apps match art;
  - colour histogram (HSV 8 × 8 × 4, correlation), the other cheap classic;
  - the matcher's embedding (cosine), of the reference alone and of its photo views;
  - the colour pattern (each channel's normalised cross-correlation at 16 px) alone;
  - the matcher by nearest reference (its probabilities): the embedding's views, alone and
    with the colour pattern;
  - the matcher as the pipeline runs it: in the deck's own metric (vision/deck_metric.py), alone
    and with the colour pattern.
    python bench/bench_matchers.py   (after bench/bench_decks.py has rendered the decks' photos)
    python bench/bench_matchers.py --tune --jitter 0.06   # the tuning decks, cut as the lattice errs
"""
from __future__ import annotations

import argparse
import json

import cv2
import numpy as np
from bench_decks import unseen_decks  # bench/ is on the path when a bench runs as a script
from render_bench_sets import tuning_decks

from ecoscore.paths import data_dir
from ecoscore.scoring import CardType
from ecoscore.vision.crops import CROP_SIZE, warp_quad
from ecoscore.vision.decode import decode
from ecoscore.vision.matcher import CardEmbedder, CardMatcher, References, colour_patterns

TYPES = list(CardType)


def phash(crop: np.ndarray) -> np.ndarray:
    grey = cv2.resize(cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY), (32, 32), interpolation=cv2.INTER_AREA)
    low = cv2.dct(grey.astype(np.float32))[:8, :8].reshape(-1)
    return low > np.median(low[1:])


def histogram(crop: np.ndarray) -> np.ndarray:
    hsv = cv2.cvtColor(crop, cv2.COLOR_BGR2HSV)
    h = cv2.calcHist([hsv], [0, 1, 2], None, [8, 8, 4], [0, 180, 0, 256, 0, 256]).reshape(-1)
    return h / max(float(np.linalg.norm(h)), 1e-6)


def cards(folder, limit: int, jitter: float = 0.0):
    """(crop at the true corners, type index) of every card of the fully visible tableaux; with
    ``jitter``, each corner moved at random by that much of the card's short side (σ)."""
    out = []
    rng = np.random.default_rng(0)
    for path in sorted((folder / "truth").glob("*.json"))[:limit]:
        truth = json.loads(path.read_text())
        photo = decode((folder / truth["image"]).read_bytes(), 10**6)
        h, w = photo.image.shape[:2]
        for tab in truth["tableaux"]:
            for cell in tab["cells"]:
                quad = np.array(cell["corners"] or [[-1, -1]] * 4) * photo.scale
                if cell["type"] is None or np.any(quad < 0) or np.any(quad > [w - 1, h - 1]):
                    continue
                side = min(np.linalg.norm(quad[1] - quad[0]), np.linalg.norm(quad[2] - quad[1]))
                quad = quad + rng.normal(0, jitter * side, quad.shape)
                crop = warp_quad(photo.image, quad, CROP_SIZE)
                out.append((np.ascontiguousarray(np.rot90(crop, len(out) % 4)), TYPES.index(CardType(cell["type"]))))
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tune", action="store_true", help="the tuning decks (to choose settings), not the held-out ones")
    parser.add_argument("--jitter", type=float, default=0.0, help="corner noise, σ as a share of the card's short side")
    args = parser.parse_args()
    root = data_dir() / ("tune-decks" if args.tune else "bench-decks")
    embedder = CardEmbedder()
    totals: dict[str, list[int]] = {}
    for deck in tuning_decks() if args.tune else unseen_decks():
        refs, labels = [], []
        for i, card in enumerate(TYPES):
            square = cv2.resize(deck.faces[card][0], (CROP_SIZE, CROP_SIZE), interpolation=cv2.INTER_AREA)
            for turn in range(4):
                refs.append(np.ascontiguousarray(np.rot90(square, turn)))
                labels.append(i)
        labels = np.array(labels)
        faces = {c: f[:1] for c, f in deck.faces.items()}
        enrolled = CardMatcher(embedder, References.embed(deck.name, embedder, faces, metric=False))
        own_metric = CardMatcher(embedder, References.embed(deck.name, embedder, faces))
        row = {}
        for split in ("normal", "hard"):
            crops, truth = zip(*cards(root / deck.name / split, 40, args.jitter))
            truth = np.array(truth)
            ref_hash, crop_hash = np.array([phash(r) for r in refs]), np.array([phash(c) for c in crops])
            by_hash = labels[(crop_hash[:, None, :] != ref_hash[None]).sum(-1).argmin(1)]
            ref_hist, crop_hist = np.array([histogram(r) for r in refs]), np.array([histogram(c) for c in crops])
            by_hist = labels[(crop_hist @ ref_hist.T).argmax(1)]
            vectors = embedder(list(crops))
            by_matcher = labels[(vectors @ embedder(refs).T).argmax(1)]
            by_pattern = labels[(colour_patterns(list(crops)) @ colour_patterns(refs).T).argmax(1)]
            types = slice(0, len(TYPES))  # of the matcher's 13 classes, the types
            by_views = enrolled.similarities(vectors)[:, types].argmax(1)
            by_both = enrolled(list(crops))[:, types].argmax(1)  # as the pipeline named a cell until 2026-11-27
            by_metric = own_metric.similarities(vectors)[:, types].argmax(1)
            as_read = own_metric(list(crops))[:, types].argmax(1)  # as the pipeline names a cell
            for method, named in (("phash", by_hash), ("histogram", by_hist), ("matcher", by_matcher),
                                  ("pattern", by_pattern), ("matcher_views", by_views),
                                  ("matcher_and_pattern", by_both), ("deck_metric", by_metric),
                                  ("deck_metric_and_pattern", as_read)):
                right = int((named == truth).sum())
                row[f"{method}_{split}"] = round(right / len(truth), 4)
                tot = totals.setdefault(f"{method}_{split}", [0, 0])
                tot[0] += right
                tot[1] += len(truth)
        print(deck.name, json.dumps(row), flush=True)
    print(json.dumps({k: {"top1": round(r / n, 4), "cards": n} for k, (r, n) in totals.items()}, indent=2))


if __name__ == "__main__":
    main()
