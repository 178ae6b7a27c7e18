"""Choose between card finders on the tuning material only (never the test sets): tableaux read
exactly, and confidently wrong, with each finder in the pipeline as shipped —
  - decks of other art (bench/render_bench_sets.py's tuning decks), each enrolled from one
    face per type and read by the matcher, on their normal and hard photos;
  - the stand-in deck's tuning sets (normal, hard, steep) read by the classifier.
    python bench/compare_finders.py models/finder.onnx data/runs/finder-standin/weights/best.onnx
    python bench/compare_finders.py models/finder.onnx --no-second-look   # what the second look buys
    python bench/compare_finders.py models/finder.onnx --refiner data/runs/corners/corners.onnx  # cards' own corners
    python bench/compare_finders.py models/finder.onnx --no-quick-look    # ... and the quick look costs
    python bench/compare_finders.py models/finder.onnx --no-lattice-refiner  # ... and the lattice refiner buys
    python bench/compare_finders.py models/finder.onnx --matcher data/runs/matcher-off-cuts/matcher.onnx --decks-only
    python bench/compare_finders.py models/finder.onnx --classifier data/runs/classifier-96-standin/weights/best.onnx --standin-only
    python bench/compare_finders.py models/finder.onnx --outcomes a.json   # then bench/paired.py a.json b.json
    python bench/compare_finders.py models/finder.onnx --more-decks --mosaics   # six more mosaic decks, pooled apart
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from bench_decks import rendered, summary  # bench/ is on the path when a bench runs as a script
from other_decks import mosaic_deck
from render_bench_sets import tuning_decks

from ecoscore.paths import data_dir, models_dir
from ecoscore.vision.corners import CornerRefiner
from ecoscore.vision.evaluate import evaluate
from ecoscore.vision.matcher import CardEmbedder, CardMatcher, References
from ecoscore.vision.models import CardClassifier, CardFinder
from ecoscore.vision.pipeline import Reader

STANDIN_SETS = ("normal", "hard", "steep")  # data/tune/<name>: see bench/tune_confidence.py and the README
# Six more decks of mosaic art (never in bench_decks.py), 24 normal photos each: cards of busy
# hard-edged art laid edge to edge, which the fourteen tuning decks' two mosaics read too well to
# show (vision/outline_grid.py was chosen on them). Pooled apart, so the tuning decks' figure stays
# comparable with the sessions before.
MORE_MOSAICS = range(4, 10)


def read_all(finder: CardFinder, embedder: CardEmbedder, second_look: bool = True, quick_look: bool = True,
             standin: bool = True, decks: bool = True, classifier: CardClassifier | None = None,
             outcomes: dict | None = None, more_decks: bool = False, deck_metric: bool = True,
             mosaics: bool = False, refine_lattice: bool = True) -> dict:
    """Each set's summary; ``outcomes``, if given, gets each set's tableau by tableau (bench/paired.py)."""
    rows = {}
    outcomes = {} if outcomes is None else outcomes
    for i, deck in enumerate(tuning_decks(more_decks) if decks else ()):
        refs = References.embed(deck.name, embedder, {card: [f[0]] for card, f in deck.faces.items()}, metric=deck_metric)
        reader = Reader(finder, CardMatcher(embedder, refs), second_look=second_look, quick_look=quick_look,
                        refine_lattice=refine_lattice)
        for split, n in (("normal", 20), ("hard", 12)):
            folder = rendered(deck, data_dir() / "tune-decks", split, n, 8000 + 10 * i)
            ev = evaluate(reader, folder, progress=False)
            rows[f"{deck.name}/{split}"], outcomes[f"{deck.name}/{split}"] = summary(ev), ev.outcomes
    for seed in MORE_MOSAICS if mosaics else ():
        deck = mosaic_deck(seed)
        refs = References.embed(deck.name, embedder, {card: [f[0]] for card, f in deck.faces.items()}, metric=deck_metric)
        reader = Reader(finder, CardMatcher(embedder, refs), second_look=second_look, quick_look=quick_look,
                        refine_lattice=refine_lattice)
        ev = evaluate(reader, rendered(deck, data_dir() / "tune-mosaics", "normal", 24, 9100 + 10 * seed), progress=False)
        rows[f"mosaics/{deck.name}"], outcomes[f"mosaics/{deck.name}"] = summary(ev), ev.outcomes
    reader = Reader(finder, classifier, second_look=second_look, quick_look=quick_look, refine_lattice=refine_lattice)
    for name in STANDIN_SETS if standin else ():
        folder = data_dir() / "tune" / name
        if folder.is_dir():
            ev = evaluate(reader, folder, progress=False)
            rows[f"standin/{name}"], outcomes[f"standin/{name}"] = summary(ev), ev.outcomes
    return rows


def shipped_refiner(finder: Path) -> CornerRefiner | None:
    """The refiner a candidate's recipe names, from models/: a run's folder holds none (its
    sidecar names one only where it lies beside it), and a candidate read without it read 377 of
    the 448 tuning tableaux against 405 with it (2026-12-04, ``finder-dim``)."""
    meta = json.loads(finder.with_suffix(".json").read_text(encoding="utf-8"))
    name = meta.get("recipe", {}).get("refiner")
    if meta.get("refiner") or not name or not (models_dir() / name).is_file():
        return None
    print(f"{finder}: the shipped corner refiner {name}, as its recipe names", flush=True)
    return CornerRefiner(models_dir() / name)


def pooled(rows: dict, keys: list[str]) -> str:
    tabs = sum(rows[k]["tableaux"] for k in keys)
    exact = sum(round(rows[k]["tableau_exact_rate"] * rows[k]["tableaux"]) for k in keys)
    wrong = sum(rows[k]["confident_wrong"] for k in keys)
    return f"{exact}/{tabs} exact ({exact / max(1, tabs):.1%}), {wrong} confident wrong"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("finders", type=Path, nargs="+")
    parser.add_argument("--no-second-look", action="store_true", help="read without the pipeline's second look")
    parser.add_argument("--no-quick-look", action="store_true", help="read without the pipeline's quick look")
    parser.add_argument("--matcher", type=Path, help="the matcher to read the other decks with, if not the shipped one")
    parser.add_argument("--refiner", type=Path, help="a corner refiner to give each box its card's corners "
                                                     "(vision/corners.py), if not the finder's own")
    parser.add_argument("--no-lattice-refiner", action="store_true", help="cut cells on the lattice fitted on the "
                                                                           "boxes alone (vision/lattice_refiner.py off)")
    parser.add_argument("--conf", type=float, help="the finder's box threshold, if not its own (CardFinder's conf)")
    parser.add_argument("--decks-only", action="store_true", help="skip the stand-in's sets (read by the classifier)")
    parser.add_argument("--standin-only", action="store_true", help="skip the other decks (read by the matcher)")
    parser.add_argument("--classifier", type=Path, help="the classifier to read the stand-in with, if not the shipped one "
                                                        "(a run's ONNX beside a sidecar JSON: its imgsz and names)")
    parser.add_argument("--no-deck-metric", action="store_true", help="name by nearest reference, without the deck's "
                                                                       "own metric (vision/deck_metric.py)")
    parser.add_argument("--more-decks", action="store_true", help="fourteen tuning decks, not seven")
    parser.add_argument("--mosaics", action="store_true", help="six more mosaic decks too (MORE_MOSAICS), pooled apart")
    parser.add_argument("--outcomes", type=Path, help="write each tableau's outcome here, for bench/paired.py "
                        "(several finders: F-0, F-1 ... in their order)")
    args = parser.parse_args()
    embedder = CardEmbedder(args.matcher)
    classifier = CardClassifier(args.classifier) if args.classifier else None
    for i, path in enumerate(args.finders):
        t0 = time.perf_counter()
        refiner = CornerRefiner(args.refiner) if args.refiner else shipped_refiner(path)
        finder = CardFinder(path, refiner=refiner) if args.conf is None else CardFinder(path, conf=args.conf, refiner=refiner)
        outcomes: dict = {}
        rows = read_all(finder, embedder, not args.no_second_look, not args.no_quick_look, not args.decks_only,
                        not args.standin_only, classifier, outcomes, args.more_decks, not args.no_deck_metric,
                        args.mosaics, not args.no_lattice_refiner)
        if args.outcomes:  # several finders: a file each, numbered in their order (a-0.json, a-1.json)
            out = args.outcomes if len(args.finders) == 1 else args.outcomes.with_stem(f"{args.outcomes.stem}-{i}")
            out.write_text(json.dumps(outcomes), encoding="utf-8")
        print(f"== {path} ({time.perf_counter() - t0:.0f} s)")
        for key, row in rows.items():
            print(f"  {key:<36} {row['tableau_exact_rate']:.3f} exact of {row['tableaux']:>3}, "
                  f"{row['confident_wrong']} confident wrong, {row['refused_photos']} refused photos")
        decks = [k for k in rows if not k.startswith(("standin/", "mosaics/"))]
        print("  other decks, pooled:", pooled(rows, decks))
        print("  stand-in, pooled:   ", pooled(rows, [k for k in rows if k.startswith("standin/")]))
        if args.mosaics:
            print("  more mosaics, pooled:", pooled(rows, [k for k in rows if k.startswith("mosaics/")]))
        print(json.dumps({"finder": str(path), "rows": rows}), flush=True)


if __name__ == "__main__":
    main()
