"""Compare two runs of a bench, tableau by tableau (the outcomes files ``bench_decks.py
--outcomes`` writes): what one reads exactly that the other does not, per set and pooled, and
whether that many flips could be chance (McNemar's exact test: bench/stats.py).
    python bench/paired.py data/results/decks-shipped.json data/results/decks-candidate.json
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from stats import paired  # bench/ is on the path when a bench runs as a script


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    args = parser.parse_args()
    before, after = (json.loads(p.read_text(encoding="utf-8")) for p in (args.before, args.after))
    pooled_before, pooled_after = {}, {}
    for key in sorted(set(before) & set(after)):
        print(f"{key:<40}", paired(before[key], after[key]))
        pooled_before |= {f"{key}/{k}": v for k, v in before[key].items()}
        pooled_after |= {f"{key}/{k}": v for k, v in after[key].items()}
    print(f"{'pooled':<40}", paired(pooled_before, pooled_after))


if __name__ == "__main__":
    main()
