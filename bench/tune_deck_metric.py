"""Choose the deck metric's settings (vision/deck_metric.py) card by card: each tuning deck's
cards cut from its own photos at their true corners moved as the lattice errs (σ 6 % of a
card's short side), one flat face per type enrolled, named
  - by nearest reference (the embedding's photo views), and with the colour pattern as read;
  - in the deck's metric at several shrinkages, alone and with the pattern at several weights;
and, as the pipeline reads (``CardMatcher``), with and without the metric: cards misnamed, and
cards misnamed at the reader's confidence (0.9) or more.
    python bench/tune_deck_metric.py [--held-out]     (after bench/render_bench_sets.py)
"""
from __future__ import annotations

import argparse
import json

import numpy as np
from bench_decks import unseen_decks  # bench/ is on the path when a bench runs as a script
from bench_matchers import cards
from render_bench_sets import tuning_decks

import ecoscore.vision.deck_metric as deck_metric
from ecoscore.paths import data_dir
from ecoscore.vision.matcher import MIN_CONFIDENCE, TYPES, CardEmbedder, CardMatcher, References, _per_type, colour_patterns

SHRINKS = (0.01, 0.1, 0.2)
WEIGHTS = (0.35, 0.5, 1.0)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--held-out", action="store_true", help="the unseen decks (to confirm, never to choose)")
    parser.add_argument("--jitter", type=float, default=0.06)
    parser.add_argument("--cut", type=float, default=deck_metric.CUT_SIGMA, help="the views' corner noise (σ)")
    parser.add_argument("--quick", action="store_true", help="shrink 0.1 and pattern weight 0.5 only")
    args = parser.parse_args()
    deck_metric.CUT_SIGMA = args.cut
    shipped_shrink = deck_metric.SHRINK
    shrinks, weights = ((shipped_shrink,), (0.5,)) if args.quick else (SHRINKS, WEIGHTS)
    root = data_dir() / ("bench-decks" if args.held_out else "tune-decks")
    embedder = CardEmbedder()
    n = len(TYPES)
    misnamed: dict[str, int] = {}
    counted: dict[str, int] = {}
    for deck in unseen_decks() if args.held_out else tuning_decks(more=True):
        faces = {c: f[:1] for c, f in deck.faces.items()}
        fitted = {}
        for shrink in shrinks:
            deck_metric.SHRINK = shrink
            fitted[shrink] = References.embed(deck.name, embedder, faces)
        deck_metric.SHRINK = shipped_shrink
        refs = fitted[shipped_shrink] if shipped_shrink in fitted else References.embed(deck.name, embedder, faces)
        plain = References.embed(deck.name, embedder, faces, metric=False)
        for split in ("normal", "hard"):
            crops, truth = map(list, zip(*cards(root / deck.name / split, 40, args.jitter)))
            vectors = embedder(crops)
            corr = _per_type(colour_patterns(crops) @ refs.patterns.T, refs.pattern_types)
            named = {"nearest": CardMatcher(embedder, plain).similarities(vectors)[:, :n].argmax(1)}
            for shrink, r in fitted.items():
                sims = r.metric.type_similarities(vectors, n)
                named[f"metric {shrink}"] = sims.argmax(1)
                for w in weights:
                    named[f"metric {shrink} + pattern {w}"] = (sims + w * corr).argmax(1)
            for name, r in (("as read, nearest", plain), ("as read, metric", refs)):
                probs = CardMatcher(embedder, r)(crops)
                named[name] = probs.argmax(1)
                sure_wrong = (probs.max(1) >= MIN_CONFIDENCE) & (probs.argmax(1) != truth)
                key = f"{name}, sure and wrong/{split}"
                misnamed[key] = misnamed.get(key, 0) + int(sure_wrong.sum())
                counted[key] = counted.get(key, 0) + len(truth)
            for name, labels in named.items():
                key = f"{name}/{split}"
                misnamed[key] = misnamed.get(key, 0) + int((labels != np.array(truth)).sum())
                counted[key] = counted.get(key, 0) + len(truth)
        print(deck.name, "done", flush=True)
    print(json.dumps({k: f"{misnamed[k]} of {counted[k]}" for k in sorted(misnamed)}, indent=1))


if __name__ == "__main__":
    main()
