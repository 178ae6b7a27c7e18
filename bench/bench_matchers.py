"""The card matcher against the classic ways to match a card to an art database, on decks no
training has seen: each unseen deck's cards, cut from its own rendered photos at their true
corners (so only the matching is measured), named by nearest reference (one flat face per type,
each at its four quarter turns):
  - perceptual hash (pHash: DCT of the grey 32 × 32 crop, 64 bits; Hamming distance), as card
    scanner apps match art;
  - colour histogram (HSV 8 × 8 × 4, correlation), the other cheap classic;
  - the matcher's embedding (cosine).
    python bench/bench_matchers.py   (after bench/bench_decks.py has rendered the decks' photos)
"""
from __future__ import annotations

import json

import cv2
import numpy as np
from bench_decks import unseen_decks  # bench/ is on the path when a bench runs as a script

from ecoscore.paths import data_dir
from ecoscore.scoring import CardType
from ecoscore.vision.crops import CROP_SIZE, warp_quad
from ecoscore.vision.decode import decode
from ecoscore.vision.matcher import CardEmbedder

TYPES = list(CardType)


def phash(crop: np.ndarray) -> np.ndarray:
    grey = cv2.resize(cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY), (32, 32), interpolation=cv2.INTER_AREA)
    low = cv2.dct(grey.astype(np.float32))[:8, :8].reshape(-1)
    return low > np.median(low[1:])


def histogram(crop: np.ndarray) -> np.ndarray:
    hsv = cv2.cvtColor(crop, cv2.COLOR_BGR2HSV)
    h = cv2.calcHist([hsv], [0, 1, 2], None, [8, 8, 4], [0, 180, 0, 256, 0, 256]).reshape(-1)
    return h / max(float(np.linalg.norm(h)), 1e-6)


def cards(folder, limit: int):
    """(crop at the true corners, type index) of every card of the fully visible tableaux."""
    out = []
    for path in sorted((folder / "truth").glob("*.json"))[:limit]:
        truth = json.loads(path.read_text())
        photo = decode((folder / truth["image"]).read_bytes(), 10**6)
        h, w = photo.image.shape[:2]
        for tab in truth["tableaux"]:
            for cell in tab["cells"]:
                quad = np.array(cell["corners"] or [[-1, -1]] * 4) * photo.scale
                if cell["type"] is None or np.any(quad < 0) or np.any(quad > [w - 1, h - 1]):
                    continue
                crop = warp_quad(photo.image, quad, CROP_SIZE)
                out.append((np.ascontiguousarray(np.rot90(crop, len(out) % 4)), TYPES.index(CardType(cell["type"]))))
    return out


def main() -> None:
    root = data_dir() / "bench-decks"
    embedder = CardEmbedder()
    totals: dict[str, list[int]] = {}
    for deck in unseen_decks():
        refs, labels = [], []
        for i, card in enumerate(TYPES):
            square = cv2.resize(deck.faces[card][0], (CROP_SIZE, CROP_SIZE), interpolation=cv2.INTER_AREA)
            for turn in range(4):
                refs.append(np.ascontiguousarray(np.rot90(square, turn)))
                labels.append(i)
        labels = np.array(labels)
        row = {}
        for split in ("normal", "hard"):
            crops, truth = zip(*cards(root / deck.name / split, 40))
            truth = np.array(truth)
            ref_hash, crop_hash = np.array([phash(r) for r in refs]), np.array([phash(c) for c in crops])
            by_hash = labels[(crop_hash[:, None, :] != ref_hash[None]).sum(-1).argmin(1)]
            ref_hist, crop_hist = np.array([histogram(r) for r in refs]), np.array([histogram(c) for c in crops])
            by_hist = labels[(crop_hist @ ref_hist.T).argmax(1)]
            by_matcher = labels[(embedder(list(crops)) @ embedder(refs).T).argmax(1)]
            for method, named in (("phash", by_hash), ("histogram", by_hist), ("matcher", by_matcher)):
                right = int((named == truth).sum())
                row[f"{method}_{split}"] = round(right / len(truth), 4)
                tot = totals.setdefault(f"{method}_{split}", [0, 0])
                tot[0] += right
                tot[1] += len(truth)
        print(deck.name, json.dumps(row), flush=True)
    print(json.dumps({k: {"top1": round(r / n, 4), "cards": n} for k, (r, n) in totals.items()}, indent=2))


if __name__ == "__main__":
    main()
