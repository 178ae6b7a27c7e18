"""The reader end to end (issue #5).

Accuracy on held-out rendered sets (whole tableau exact, confident wrong, ...), and the time
from a 12 MP JPEG on disk to a printed score, per image, in a warmed-up process, with where
the time goes (read file, decode, detect, snap, classify, score and print).
    python bench/bench_pipeline.py --set data/test/normal --set data/test/hard --timing data/test/12mp
"""
from __future__ import annotations

import argparse
import io
import json
import statistics
import time
from pathlib import Path

from setnames import set_name  # bench/ is on the path when a bench runs as a script
from stats import wilson

from ecoscore.scoring import score_game, score_pad
from ecoscore.truthfile import read_truth
from ecoscore.vision.evaluate import evaluate
from ecoscore.vision.lattice_refiner import shipped_refiner
from ecoscore.vision.models import CardClassifier
from ecoscore.vision.pipeline import Reader
from ecoscore.vision.runtime import Network


def timing(reader: Reader, folder: Path, runs: int) -> dict:
    """The p50 over the whole set, as the floor asks; and by photo kind, because the set is
    bimodal: its photos of one tableau take 60-75 ms here, its photos of the whole game (two to
    four tableaux of small cards, each looked at closer) 130-600 ms. With half of each, the
    overall p50 is the midpoint between the slowest quick photo and the quickest slow one, and
    one photo moving between the clusters moves it by tens of ms (2026-11-29)."""
    paths = sorted((folder / "images").glob("*.jpg"))
    stages: dict[str, list[float]] = {}
    totals = []
    by_kind: dict[str, list[float]] = {}
    kinds = {path: _kind(folder, path) for path in paths}
    for k in range(runs + 1):
        for path in paths:
            start = time.perf_counter()
            data = path.read_bytes()
            t_read = time.perf_counter()
            read = reader.read(data)
            t_pipe = time.perf_counter()
            game = score_game([(f"p{i}", tab.tableau) for i, tab in enumerate(read.tableaux)])
            print(score_pad(game), file=io.StringIO())
            end = time.perf_counter()
            if k == 0:
                continue  # warm-up pass
            totals.append((end - start) * 1e3)
            by_kind.setdefault(kinds[path], []).append((end - start) * 1e3)
            for stage, ms in {"read_file": (t_read - start) * 1e3, **read.timings_ms,
                              "score_and_print": (end - t_pipe) * 1e3}.items():
                stages.setdefault(stage, []).append(ms)
    return {"photos": len(paths), "runs": runs, "p50_total_ms": round(statistics.median(totals), 1),
            "p90_total_ms": round(sorted(totals)[int(0.9 * (len(totals) - 1))], 1),
            "p50_stage_ms": {s: round(statistics.median(v), 1) for s, v in stages.items()},
            "p50_by_kind_ms": {k: {"photos": len(v) // runs, "p50": round(statistics.median(v), 1)}
                               for k, v in sorted(by_kind.items())}}


def _kind(folder: Path, path: Path) -> str:
    """"one tableau" or "several tableaux", from the photo's truth file (a set without truth: "photo")."""
    truth = folder / "truth" / f"{path.stem}.json"
    if not truth.exists():
        return "photo"
    return "one tableau" if len(read_truth(truth)["tableaux"]) == 1 else "several tableaux"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--set", type=Path, action="append", default=[])
    parser.add_argument("--timing", type=Path)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--outcomes", type=Path, help="write each tableau's outcome here, for bench/paired.py")
    parser.add_argument("--no-far-look", action="store_true", help="read without the closer look round small loose "
                        "cards (a far neighbour's tableau): what it buys")
    parser.add_argument("--no-table-look", action="store_true", help="read without the look at a steep photo's table "
                        "straightened on its grid's plane: what it buys")
    parser.add_argument("--no-outline-look", action="store_true", help="read without a doubtful tableau read again "
                        "on its outline cut in 5 x 4 (vision/outline_grid.py): what it buys")
    parser.add_argument("--no-lattice-refiner", action="store_true", help="cut cells on the lattice fitted on the "
                        "boxes alone (vision/lattice_refiner.py off): what the refiner buys")
    parser.add_argument("--no-wide-lattice", action="store_true", help="refine each lattice with the fine refiner "
                        "alone, unchecked by the wide one (models/lattice-wide.onnx): what the wide one buys")
    parser.add_argument("--no-dim-look", action="store_true", help="look at a dim photo only as it is, not "
                        "stretched too (vision/dim_light.py): what the dim look buys")
    parser.add_argument("--classifier", type=Path, help="a candidate classifier (.onnx, its sidecar and its partner "
                        "beside it) to read with instead of the shipped one")
    parser.add_argument("--per-shape", action="store_true", help="compile the finder once per canvas shape, as "
                        "before 2026-12-04 (vision/runtime.py's Network.per_shape), to compare")
    args = parser.parse_args()
    Network.per_shape = args.per_shape
    reader = Reader(classifier=CardClassifier(args.classifier) if args.classifier else None,
                    far_look=not args.no_far_look, table_look=not args.no_table_look,
                    outline_look=not args.no_outline_look, refine_lattice=not args.no_lattice_refiner,
                    lattice_refiner=shipped_refiner(wide=False) if args.no_wide_lattice else None,
                    dim_look=not args.no_dim_look)
    report, outcomes = {}, {}
    for folder in args.set:
        ev = evaluate(reader, folder, args.limit, progress=False)
        name = set_name(folder, args.set)
        report[name] = ev.summary() | {"confident_wrong_images": ev.wrong, "phantom_images": ev.phantom_images,
                                       "exact_ci95": [round(x, 4) for x in wilson(ev.exact, ev.tableaux)]}
        outcomes[name] = ev.outcomes
    if args.outcomes:
        args.outcomes.write_text(json.dumps(outcomes), encoding="utf-8")
    if args.timing:
        report["timing_12mp"] = timing(reader, args.timing, args.runs)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
