"""Evidence for the finder's box type: how much do neighbouring cards' axis-aligned boxes
overlap in rendered photos (rotated tableaux, touching cards)? NMS drops a true card whose box
overlaps a better one above the IoU threshold (0.7 by default), so heavy overlap means missed
cards with plain boxes; oriented boxes of neighbours barely overlap.
    python bench/box_overlap.py [--n 300]
"""
from __future__ import annotations

import argparse

import cv2
import numpy as np

from ecoscore.datasets.deck import load_deck
from ecoscore.datasets.scene import SceneParams, render_scene


def aabb_iou(a: np.ndarray, b: np.ndarray) -> float:
    (ax0, ay0), (ax1, ay1) = a.min(0), a.max(0)
    (bx0, by0), (bx1, by1) = b.min(0), b.max(0)
    iw, ih = max(0, min(ax1, bx1) - max(ax0, bx0)), max(0, min(ay1, by1) - max(ay0, by0))
    inter = iw * ih
    return inter / ((ax1 - ax0) * (ay1 - ay0) + (bx1 - bx0) * (by1 - by0) - inter)


def poly_iou(a: np.ndarray, b: np.ndarray) -> float:
    inter, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    return inter / (cv2.contourArea(a.astype(np.float32)) + cv2.contourArea(b.astype(np.float32)) - inter)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=300)
    args = parser.parse_args()
    deck = load_deck("standin")
    aabb, obb = [], []
    for i in range(args.n):
        truth = render_scene(deck, (31337, i), SceneParams(long_side=480, p_multi=0.0)).truth
        cells = {(c["row"], c["col"]): np.array(c["corners"]) for c in truth["tableaux"][0]["cells"] if c["corners"]}
        for (r, c), quad in cells.items():
            for nb in ((r, c + 1), (r + 1, c), (r + 1, c + 1), (r + 1, c - 1)):  # sides and diagonals
                if nb in cells:
                    aabb.append(aabb_iou(quad, cells[nb]))
                    obb.append(poly_iou(quad, cells[nb]))
    aabb, obb = np.array(aabb), np.array(obb)
    print(f"neighbour pairs: {len(aabb)} in {args.n} photos")
    for name, v in (("axis-aligned boxes", aabb), ("oriented boxes", obb)):
        print(f"  {name:>19}: IoU median {np.median(v):.3f}, p95 {np.percentile(v, 95):.3f}, max {v.max():.3f}; "
              f"pairs above 0.5: {np.mean(v > 0.5):.1%}, above 0.7: {np.mean(v > 0.7):.1%}")


if __name__ == "__main__":
    main()
