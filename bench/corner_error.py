"""How near a finder's card outlines lie to the cards' true corners, on a tuning set:
    python bench/corner_error.py data/tune/steep models/finder.onnx data/cand/c-e1.onnx

For each true card (whole in the frame) the finder's outline whose centre lies nearest
(within half the card's short side): its corners' mean distance from the true ones (the
nearest cyclic order), in card short sides; and the share of cards with no outline there."""
from __future__ import annotations

import argparse
from pathlib import Path

import cv2
import numpy as np

from ecoscore.datasets.yolo import card_quads
from ecoscore.geometry import Detections
from ecoscore.truthfile import Truth, read_set
from ecoscore.vision.corners import CornerRefiner
from ecoscore.vision.models import CardFinder


def card_errors(det: Detections, truth: Truth) -> tuple[list[float], int, int]:
    """For each card of ``truth`` whole in the photo, the distance of ``det``'s outline nearest
    it from its true corners (in its short sides); and how many had no outline, of how many."""
    errors, missed, total = [], 0, 0
    w, h = truth["width"], truth["height"]
    for quad in card_quads(truth):
        if np.any(quad < 0) or np.any(quad > [w, h]):
            continue
        total += 1
        short = min(np.linalg.norm(quad[1] - quad[0]), np.linalg.norm(quad[2] - quad[1]))
        d = np.linalg.norm(det.centers - quad.mean(0), axis=1)
        if not len(det) or d.min() > short / 2:
            missed += 1
            continue
        found = det.quads[int(np.argmin(d))]
        errors.append(min(np.linalg.norm(np.roll(q, t, 0) - quad, axis=1).mean()
                          for q in (found, found[::-1]) for t in range(4)) / short)
    return errors, missed, total


def errors(finder: CardFinder, folder: Path) -> tuple[np.ndarray, int, int]:
    errs, missed, total = [], 0, 0
    for _, truth in read_set(folder):
        e, m, t = card_errors(finder(cv2.imread(str(folder / truth["image"]))), truth)
        errs += e
        missed += m
        total += t
    return np.array(errs), missed, total


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("folder", type=Path)
    parser.add_argument("finders", type=Path, nargs="+")
    parser.add_argument("--refiner", type=Path, help="a corner refiner after each finder (vision/corners.py)")
    args = parser.parse_args()
    for path in args.finders:
        e, missed, total = errors(CardFinder(path, refiner=CornerRefiner(args.refiner) if args.refiner else None),
                                  args.folder)
        print(f"{path}: {total} cards, {missed} without an outline; corner error in short sides: "
              f"median {np.median(e):.3f}, p90 {np.percentile(e, 90):.3f}, over 0.15: {np.mean(e > 0.15):.1%}")


if __name__ == "__main__":
    main()
