"""The batch on a two-process local Dask cluster against the plain batch (issue #19).

Copies the 12 MP photos into a folder of --n files, runs `ecoscore batch` on it plain (two
processes) and with `--cluster local` (two worker processes), each end to end as a user runs it
(start-up and model loading included), --rounds times alternating, and prints both throughputs,
the cluster's overhead, and whether the rows (timings aside) are the same.
    python bench/bench_batch_cluster.py --photos data/test/12mp [--n 36] [--rounds 2]
"""
from __future__ import annotations

import argparse
import csv
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def rows(out: Path) -> list[dict]:
    return [{k: v for k, v in row.items() if k != "ms"} for row in csv.DictReader(out.open())]


def run(folder: Path, out: Path, *extra: str) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "ecoscore", "batch", str(folder), "--out", str(out), "--workers", "2",
                    "--force", *extra], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # (each round anew)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--photos", type=Path, required=True)
    parser.add_argument("--n", type=int, default=36)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    photos = sorted((args.photos / "images").glob("*.jpg"))
    tmp = Path(tempfile.mkdtemp())
    folder = tmp / "photos"
    folder.mkdir()
    for k in range(args.n):
        shutil.copy(photos[k % len(photos)], folder / f"{k:03d}.jpg")
    times: dict[str, list[float]] = {"plain": [], "cluster": []}
    loads = []
    for _ in range(args.rounds):
        for kind, extra in (("plain", ()), ("cluster", ("--cluster", "local"))):
            loads.append(Path("/proc/loadavg").read_text().split()[0])
            times[kind].append(run(folder, tmp / f"{kind}.csv", *extra))
    same = rows(tmp / "plain.csv") == rows(tmp / "cluster.csv")
    ok = sum(r["status"] == "ok" for r in rows(tmp / "plain.csv"))
    shutil.rmtree(tmp, ignore_errors=True)
    best = {k: min(v) for k, v in times.items()}
    print(json.dumps({
        "photos": args.n, "scored_ok": ok, "rounds": args.rounds, "same_rows": same,
        "seconds": {k: [round(t, 1) for t in v] for k, v in times.items()},
        "photos_per_s_best": {k: round(args.n / t, 3) for k, t in best.items()},
        "cluster_over_plain": round(best["plain"] / best["cluster"], 3),
        "floor": {"same_rows": True, "cluster_over_plain_at_least": 0.85},
        "loadavg_1min_at_each_run": loads,
    }, indent=2))


if __name__ == "__main__":
    main()
