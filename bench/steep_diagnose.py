"""Where a set's tableaux are lost: the finder (cards of the tableau not boxed), the lattice fit
given the finder's boxes, or the lattice fit even given perfect boxes (the truth's cards as
oriented boxes). One line per photo that is not read exactly, then totals.
    python bench/steep_diagnose.py data/tune/steep [--limit 60]
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from ecoscore.datasets.truth import detections_from_truth, fully_visible, truth_tableau
from ecoscore.vision.decode import decode
from ecoscore.vision.evaluate import match_read
from ecoscore.vision.lattice import fit_tableaux
from ecoscore.vision.pipeline import Reader
from ecoscore.vision.refusals import NoTableauError


def boxed(det, tab, scale) -> int:
    """Cards of the truth tableau with a box centre within a third of a card of their centre."""
    hits = 0
    for c in tab["cells"]:
        if c["corners"] is None:
            continue
        q = np.array(c["corners"]) * scale
        d = np.linalg.norm(det.centers - q.mean(0), axis=1) if len(det) else np.array([np.inf])
        hits += d.min() < 0.33 * np.linalg.norm(q[1] - q[0])
    return hits


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("folder", type=Path)
    ap.add_argument("--limit", type=int)
    args = ap.parse_args()
    reader = Reader()
    totals = {"tableaux": 0, "exact": 0, "refused": 0, "truth_boxes_fit": 0}
    for path in sorted((args.folder / "truth").glob("*.json"))[: args.limit]:
        truth = json.loads(path.read_text())
        data = (args.folder / truth["image"]).read_bytes()
        w, h = truth["width"], truth["height"]
        visible = [t for t in truth["tableaux"] if fully_visible(t, w, h)]
        photo = decode(data)
        det = reader.find(photo.image)
        perfect = detections_from_truth(truth)
        pfits, _ = fit_tableaux(perfect, (w, h))
        try:
            read = reader.read(data)
        except NoTableauError:
            read = None
        totals["refused"] += read is None
        for tab in visible:
            totals["tableaux"] += 1
            n_cards = sum(c["corners"] is not None for c in tab["cells"])
            ok_perfect = any(_on(f, perfect, tab) for f in pfits)
            totals["truth_boxes_fit"] += ok_perfect
            r = next((r for r in (read.tableaux if read else []) if match_read(r, tab)), None)
            exact = False
            if r is not None:
                m = match_read(r, tab)
                g = truth_tableau(tab)
                exact = all(r.cells[i].type == g.at(*rc) for i, rc in m.items())
            totals["exact"] += exact
            if not exact:
                elevation = truth.get("camera", {}).get("elevation_deg")
                print(f"{path.stem}: elev {elevation} cards {n_cards} boxed {boxed(det, tab, photo.scale)} "
                      f"dets {len(det)} fits {len(read.tableaux) if read else 'REFUSED'} matched {r is not None} "
                      f"perfect-boxes-fit {ok_perfect} extras {truth.get('table_extras')}")
    print(json.dumps(totals))


def _on(fit, det, tab) -> bool:
    """Every card of the truth tableau found in the fit, each in its own cell."""
    centres = {(c["row"], c["col"]): np.mean(c["corners"], 0) for c in tab["cells"] if c["corners"]}
    got = set()
    for cell in fit.cells.values():
        if cell.detection is None:
            continue
        p = det.centers[cell.detection]
        key = min(centres, key=lambda k: np.linalg.norm(centres[k] - p))
        if np.linalg.norm(centres[key] - p) < 20:
            got.add(key)
    return len(got) == len(centres)


if __name__ == "__main__":
    main()
