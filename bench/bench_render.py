"""Rendering speed of the synthetic photo renderer (issue #3 floor: 10 images/s at 640 px on
this 2-core machine), writing a real dataset (images, labels, truth) with all cores.
    python bench/bench_render.py [--n 200] [--size 640] [--workers 2]
"""
from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from ecoscore.datasets.scene import SceneParams
from ecoscore.datasets.synth import synthesize

FLOOR = 10.0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--size", type=int, default=640)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    rates = []
    for run in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            synthesize("standin", args.n, Path(tmp) / "set", seed=run, workers=args.workers,
                       params=SceneParams(long_side=args.size), progress=False)
            rates.append(args.n / (time.perf_counter() - start))
    rates.sort()
    median = rates[len(rates) // 2]
    print(f"render: {median:.1f} images/s at {args.size} px with {args.workers} workers (median of {args.runs} runs "
          f"of {args.n}, pool start-up included; runs: {', '.join(f'{r:.1f}' for r in rates)}); "
          f"floor {FLOOR:.0f}: {'PASS' if median >= FLOOR else 'FAIL'}")


if __name__ == "__main__":
    main()
