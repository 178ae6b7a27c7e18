"""Choose the cell confidence below which a read is flagged (vision/naming.py MIN_CONFIDENCE),
on a tuning set rendered with its own seeds (not the test sets).

For each threshold: the share of tableaux read wrong with no doubt (confident wrong, the worst
outcome), and the share flagged (what the user is asked to check).
    ecoscore synth --n 100 --seed 4001 --size 1600 --out data/tune/normal
    ecoscore synth --n 60 --seed 4002 --size 1600 --hard --out data/tune/hard
    python bench/tune_confidence.py data/tune/normal data/tune/hard
"""
from __future__ import annotations

import sys
from pathlib import Path

from ecoscore.datasets.truth import fully_visible, truth_tableau
from ecoscore.truthfile import read_set
from ecoscore.vision.evaluate import match_read
from ecoscore.vision.pipeline import Reader
from ecoscore.vision.refusals import NoTableauError

THRESHOLDS = (0.5, 0.7, 0.8, 0.9, 0.95, 0.97, 0.99)


def collect(reader: Reader, folder: Path) -> list[tuple[bool, bool, float]]:
    """(exact, has other doubts, weakest cell confidence) of each tableau of ``folder``;
    ``reader`` built with ``min_confidence=0`` so only the other doubts are raised."""
    rows = []
    for path, truth in read_set(folder):
        try:
            read = reader.read((folder / truth["image"]).read_bytes())
        except NoTableauError:
            continue
        for tab in truth["tableaux"]:
            if not fully_visible(tab, truth["width"], truth["height"]):
                continue
            for r in read.tableaux:
                mapping = match_read(r, tab)
                if mapping is not None:
                    grid = truth_tableau(tab)
                    exact = all(r.cells[i].type == grid.at(*rc) for i, rc in mapping.items())
                    rows.append((exact, bool(r.doubts), r.confidence))
                    break
    return rows


def report(rows: list[tuple[bool, bool, float]]) -> None:
    n = len(rows)
    print(f"{n} tableaux read; {sum(e for e, _, _ in rows) / n:.1%} exact")
    for thr in THRESHOLDS:
        flagged = [d or c < thr for _, d, c in rows]
        wrong = sum(1 for (e, _, _), f in zip(rows, flagged) if not e and not f)
        print(f"  threshold {thr:.2f}: confident wrong {wrong / n:.2%} ({wrong}), flagged {sum(flagged) / n:.1%}")


def main() -> None:
    reader = Reader(min_confidence=0.0)  # collect the other doubts only
    report([row for folder in map(Path, sys.argv[1:]) for row in collect(reader, folder)])


if __name__ == "__main__":
    main()
