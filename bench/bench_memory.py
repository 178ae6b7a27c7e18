"""The reader's memory and speed with the finder as shipped (its first look's canvases compiled
each for its shape, its closer looks' bigger canvases run on one model compiled open: vision/
runtime.py's ``Network.open_above``) or with every canvas compiled for its shape
(``Network.per_shape``, as before 2026-12-04), as the service loads it: two reads at once,
warmed up for every canvas. Each way runs in a fresh process, the two alternating ``--rounds``
times (the shared machine is noisy: medians of one run), and each process reads the same photos,
so the two ways' reads are compared photo by photo (they must name the same cells).

    python bench/bench_memory.py --timing data/test/12mp [--set data/test/hard] [--rounds 3]
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def one_way(per_shape: bool, timing: Path, same: Path | None, runs: int) -> dict:
    """In this process: load, warm up, time the timing photos, read the set's photos."""
    from ecoscore.vision.pipeline import Reader
    from ecoscore.vision.refusals import NoTableauError
    from ecoscore.vision.runtime import Network

    Network.per_shape = per_shape
    start = _rss_mb()
    t0 = time.perf_counter()
    reader = Reader(concurrent=2)  # as the service on this machine: two reads at once
    reader.warm_up()
    warmed = _rss_mb()
    warm_s = time.perf_counter() - t0
    photos = [p.read_bytes() for p in sorted((timing / "images").glob("*.jpg"))]
    times = []
    for _ in range(runs):
        for data in photos:
            t = time.perf_counter()
            reader.read(data)
            times.append((time.perf_counter() - t) * 1e3)
    reads = {}
    for path in sorted((same / "images").glob("*.jpg")) if same else []:
        try:
            read = reader.read(path.read_bytes())
            reads[path.name] = [[(c.type.value if c.type else None, round(c.confidence, 2)) for c in t.cells] + t.doubts
                                for t in read.tableaux]
        except NoTableauError as err:
            reads[path.name] = str(err)
    return {"rss_mb": {"loaded": round(start), "warmed": round(warmed), "after_reads": round(_rss_mb())},
            "warm_up_s": round(warm_s, 1), "p50_ms": statistics.median(times), "reads": reads}


def _names(read):
    """A photo's read without its confidences: its tableaux' cell names, or its refusal."""
    if not isinstance(read, list):
        return read
    return [[cell[0] if isinstance(cell, list) else None for cell in tableau] for tableau in read]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timing", type=Path, required=True, help="a set of 12 MP photos")
    parser.add_argument("--set", type=Path, default=None, help="a set whose reads the two ways must agree on")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runs", type=int, default=3, help="times each timing photo is read, each round")
    parser.add_argument("--one", choices=("shipped", "per_shape"), help=argparse.SUPPRESS)  # a round's own process
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one_way(args.one == "per_shape", args.timing, args.set, args.runs)))
        return
    results: dict[str, list[dict]] = {"shipped": [], "per_shape": []}
    for r in range(args.rounds):
        for way in ("shipped", "per_shape") if r % 2 == 0 else ("per_shape", "shipped"):
            cmd = [sys.executable, __file__, "--one", way, "--timing", str(args.timing), "--runs", str(args.runs)]
            if args.set and r == 0:
                cmd += ["--set", str(args.set)]
            out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
            results[way].append(json.loads(out.strip().splitlines()[-1]))
            print(way, {k: v for k, v in results[way][-1].items() if k != "reads"}, file=sys.stderr)
    report = {}
    for way, rounds in results.items():
        report[way] = {"rss_warmed_mb": statistics.median(x["rss_mb"]["warmed"] for x in rounds),
                       "rss_after_reads_mb": statistics.median(x["rss_mb"]["after_reads"] for x in rounds),
                       "warm_up_s": statistics.median(x["warm_up_s"] for x in rounds),
                       "p50_ms": round(statistics.median(x["p50_ms"] for x in rounds), 1),
                       "p50_ms_each_round": [round(x["p50_ms"], 1) for x in rounds]}
    report["shipped_over_per_shape"] = {
        "rss_after_reads": round(report["shipped"]["rss_after_reads_mb"] / report["per_shape"]["rss_after_reads_mb"], 3),
        "p50": round(report["shipped"]["p50_ms"] / report["per_shape"]["p50_ms"], 3)}
    if args.set:
        a, b = results["shipped"][0]["reads"], results["per_shape"][0]["reads"]
        report["photos_read_alike"] = f"{sum(a[k] == b.get(k) for k in a)} of {len(a)}"
        # The same cards named (a cell's confidence may move a little: the kernels differ)
        report["photos_named_otherwise"] = sorted(k for k in a if _names(a[k]) != _names(b.get(k)))
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
