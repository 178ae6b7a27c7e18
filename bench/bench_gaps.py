"""Tableaux laid with wide gaps (issue #15): the renderer's splits lay cards 0-9 mm apart (steep:
0-15 mm), and a tableau laid 2 cm apart, seen at about 45° by another team's renderer, was
refused. Renders the stand-in deck with no touching cards and gaps in a band, from above (the
normal split's cameras) and across the table (the steep split's), and reads them as shipped.

    python bench/bench_gaps.py                       # gaps 0-15, 15-35 and 25-40 mm, 40 photos each
    python bench/bench_gaps.py --band 20 40 --n 60

Photos go to data/bench-gaps/<split>-<lo>-<hi> (rendered once; never trained on: seed 77)."""
from __future__ import annotations

import argparse
import json

from ecoscore.datasets.scene import SceneParams, steep_params
from ecoscore.datasets.standin import DECKS_DIR
from ecoscore.datasets.synth import synthesize
from ecoscore.paths import data_dir
from ecoscore.vision.evaluate import evaluate
from ecoscore.vision.pipeline import Reader

SEED = 77  # not a seed of the test sets (2001-2003) nor of any training recipe
BANDS = ((0.0, 15.0), (15.0, 35.0), (25.0, 40.0))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--band", type=float, nargs=2, action="append", help="gaps from, to (mm); repeatable")
    parser.add_argument("--n", type=int, default=40, help="photos per split and band")
    args = parser.parse_args()
    reader = Reader()
    report = {}
    for lo, hi in args.band or BANDS:
        for split, params in (("normal", SceneParams(long_side=1600, p_touching=0.0, gap_mm=(lo, hi))),
                              ("steep", steep_params(long_side=1600, p_touching=0.0, gap_mm=(lo, hi)))):
            folder = data_dir() / "bench-gaps" / f"{split}-{lo:g}-{hi:g}"
            if len(list((folder / "truth").glob("*.json"))) < args.n:
                synthesize(DECKS_DIR / "standin", args.n, folder, seed=SEED, params=params, progress=False)
            ev = evaluate(reader, folder, limit=args.n, progress=False)
            s = ev.summary()
            report[f"{split} {lo:g}-{hi:g} mm"] = {
                "tableaux": s["tableaux"], "exact": ev.exact, "exact_rate": round(s["tableau_exact_rate"], 4),
                "refused_photos": s["refused_photos"], "confident_wrong": ev.confident_wrong, "phantom": ev.phantom,
                "not_exact_because": s["not_exact_because"]}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
