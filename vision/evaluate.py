"""Measure the reader on a rendered set with truth files.

Reports cell accuracy, whole-tableau exact rate, exact-score rate and, separately, the rate of
*confident wrong* tableaux: a wrong read that carries no doubt. Says why each tableau not read
exactly was missed: not found at all, a card the classifier misnames even when cut at its true
corners (often a card no one could read: dark, blurred, glare), or a card cut or placed wrong.
Reads are matched to the truth by position (each read cell to the truth cell under it), so the
side of the table the photo was taken from does not matter.
"""
from __future__ import annotations

import statistics
from collections.abc import Container
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from tqdm import tqdm

from ecoscore.datasets.truth import fully_visible, truth_tableau
from ecoscore.geometry import CROP_SIZE, warp_quad
from ecoscore.scoring import score_tableau
from ecoscore.truthfile import TruthTableau, read_truth, truth_files

from .decode import ImageError, decode
from .lattice import MIN_CARDS
from .models import EMPTY
from .naming import name_cells
from .pipeline import Reader
from .reads import TableauRead
from .refusals import NoTableauError


@dataclass
class Evaluation:
    images: int = 0
    tableaux: int = 0  # fully visible truth tableaux
    found: int = 0
    cells: int = 0
    cells_right: int = 0
    exact: int = 0
    exact_score: int = 0
    confident_wrong: int = 0
    flagged: int = 0  # tableaux read with at least one doubt
    errors: int = 0  # photos the reader refused (no tableau found ...)
    timings: dict[str, list[float]] = field(default_factory=dict)
    wrong: list[str] = field(default_factory=list)
    by_kind: dict[str, list[int]] = field(default_factory=dict)  # photos of one / several tableaux: [tableaux, exact]
    missed: dict[str, int] = field(default_factory=dict)  # why tableaux were not read exactly
    missed_images: dict[str, list[str]] = field(default_factory=dict)  # ... and in which photos
    phantom: int = 0  # tableaux reported where no tableau lies (a cloth's checks, loose cards)
    phantom_images: list[str] = field(default_factory=list)
    cut: int = 0  # tableaux cut by the frame with at least MIN_CARDS cards in it (a neighbour's)
    cut_reported: int = 0  # ... reported as a tableau (on that tableau's cells)
    cut_reported_with_doubt: int = 0  # ... and saying the frame cuts it
    # Each fully visible truth tableau ("<image>/<its index in the truth>"): read exactly or not;
    # two readers on the same set compare tableau by tableau (bench/paired.py).
    outcomes: dict[str, bool] = field(default_factory=dict)

    def summary(self) -> dict:
        t = max(self.tableaux, 1)
        return {
            "images": self.images,
            "tableaux": self.tableaux,
            "found_rate": self.found / t,
            "cell_accuracy": self.cells_right / max(self.cells, 1),
            "tableau_exact_rate": self.exact / t,
            "exact_score_rate": self.exact_score / t,
            "confident_wrong_rate": self.confident_wrong / t,
            "flagged_rate": self.flagged / t,
            "refused_photos": self.errors,
            "p50_ms": {k: round(statistics.median(v), 1) for k, v in self.timings.items()},
            "tableau_exact_rate_by_photo": {k: round(e / max(n, 1), 4) for k, (n, e) in self.by_kind.items()},
            "tableaux_by_photo": {k: n for k, (n, _) in self.by_kind.items()},
            "not_exact_because": dict(sorted(self.missed.items())),
            "not_exact_images": dict(sorted(self.missed_images.items())),
            "phantom_tableaux": self.phantom,
            "tableaux_cut_by_frame": {"with_5_cards_or_more_in_view": self.cut, "reported": self.cut_reported,
                                      "reported_with_doubt": self.cut_reported_with_doubt},
        }

    def miss(self, why: str, image: str) -> None:
        self.missed[why] = self.missed.get(why, 0) + 1
        self.missed_images.setdefault(why, []).append(image)


def match_read(read: TableauRead, tab: TruthTableau) -> dict[int, tuple[int, int]] | None:
    """Read cell index -> truth (row, col), when the read covers this truth tableau one to one."""
    truth_centres = {(c["row"], c["col"]): np.mean(c["cell_corners"], 0) for c in tab["cells"]}
    keys = list(truth_centres)
    centres = np.array([truth_centres[k] for k in keys])
    pitch = np.median([np.linalg.norm(np.subtract(c["cell_corners"][1], c["cell_corners"][0])) for c in tab["cells"]])
    mapping = {}
    for i, cell in enumerate(read.cells):
        d = np.linalg.norm(centres - cell.quad.mean(0), axis=1)
        j = int(np.argmin(d))
        if d[j] > 0.6 * pitch:
            return None
        mapping[i] = keys[j]
    return mapping if len(set(mapping.values())) == len(read.cells) else None


def lies_on(read: TableauRead, tab: TruthTableau, width: int, height: int) -> bool:
    """Whether a read tableau stands for this truth tableau: most of its cells where a card was
    found sit on this tableau's cells (a cut tableau's cells outside the photo say nothing)."""
    centres = np.array([np.mean(c["cell_corners"], 0) for c in tab["cells"]])
    pitch = np.median([np.linalg.norm(np.subtract(c["cell_corners"][1], c["cell_corners"][0])) for c in tab["cells"]])
    found = [cell.quad.mean(0) for cell in read.cells if cell.detected]
    on = sum(np.min(np.linalg.norm(centres - q, axis=1)) < 0.5 * pitch for q in found)
    return len(found) > 0 and on >= max(1, len(found) / 2)


def cards_in_view(tab: TruthTableau, width: int, height: int) -> int:
    return sum(c["corners"] is not None and 0 <= np.mean(c["corners"], 0)[0] < width
               and 0 <= np.mean(c["corners"], 0)[1] < height for c in tab["cells"])


CUT_DOUBT = "cut by the frame"  # the words a tableau's doubt uses when the photo's edge cuts it


NOT_FOUND = "not found"
UNREADABLE = "a card misnamed even when cut at its true corners"
CUT_WRONG = "a card cut or placed wrong (found by the finder or the lattice)"


def unreadable_cards(reader: Reader, data: bytes, tab: TruthTableau) -> list[tuple[int, int]]:
    """Cells of a truth tableau the classifier misnames even from crops cut at the true card
    corners, read as the pipeline reads (all four turns when unsure)."""
    photo = decode(data, 10**6)  # full size
    cells = tab["cells"]  # a fully visible tableau: every cell inside the photo
    side = int(getattr(reader.classifier, "imgsz", CROP_SIZE))
    crops = [warp_quad(photo.image, np.array(c["corners"] or c["cell_corners"]) * photo.scale, side) for c in cells]
    names = reader.classifier.names
    return [(c["row"], c["col"]) for c, named in zip(cells, name_cells(reader.classifier, crops))
            if (c["type"] or EMPTY) != names[named.chosen]]


def evaluate(reader: Reader, folder: Path, limit: int | None = None, progress: bool = True,
             skip: Container[str] = ()) -> Evaluation:
    """``skip``: photos (by stem) not read, e.g. those a deck was enrolled from."""
    ev = Evaluation()
    paths = [path for path in truth_files(folder, limit) if path.stem not in skip]
    for path in tqdm(paths, desc=f"evaluating {folder.name}", disable=not progress):
        truth = read_truth(path)
        data = (folder / truth["image"]).read_bytes()
        ev.images += 1
        visible = [t for t in truth["tableaux"] if fully_visible(t, truth["width"], truth["height"])]
        ev.tableaux += len(visible)
        kind = ev.by_kind.setdefault("one tableau" if len(truth["tableaux"]) == 1 else "several tableaux", [0, 0])
        kind[0] += len(visible)
        ids = {id(tab): f"{path.stem}/{k}" for k, tab in enumerate(truth["tableaux"])}
        try:
            read = reader.read(data)
        except (NoTableauError, ImageError):
            ev.errors += 1
            for tab in visible:
                ev.miss(NOT_FOUND, path.stem)
                ev.outcomes[ids[id(tab)]] = False
            continue
        for stage, ms in read.timings_ms.items():
            ev.timings.setdefault(stage, []).append(ms)
        w, h = truth["width"], truth["height"]
        for r in read.tableaux:
            if not any(lies_on(r, tab, w, h) for tab in truth["tableaux"]):
                ev.phantom += 1
                ev.phantom_images.append(path.stem)
        for tab in truth["tableaux"]:
            if tab in visible or cards_in_view(tab, w, h) < MIN_CARDS:
                continue
            ev.cut += 1
            on = [r for r in read.tableaux if lies_on(r, tab, w, h)]
            ev.cut_reported += bool(on)
            ev.cut_reported_with_doubt += any(CUT_DOUBT in " ".join(r.doubts) for r in on)
        for tab in visible:
            match = next(((r, m) for r in read.tableaux if (m := match_read(r, tab)) is not None), None)
            ev.outcomes[ids[id(tab)]] = False
            if match is None:
                ev.miss(NOT_FOUND, path.stem)
                continue  # the photo's other doubts or errors speak for it
            r, mapping = match
            ev.found += 1
            truth_grid = truth_tableau(tab)
            right = sum(r.cells[i].type == truth_grid.at(*rc) for i, rc in mapping.items())
            ev.cells += len(mapping)
            ev.cells_right += right
            doubtful = bool(r.doubts)
            ev.flagged += doubtful
            if right == len(mapping):
                ev.exact += 1
                kind[1] += 1
                ev.outcomes[ids[id(tab)]] = True
            else:
                ev.miss(UNREADABLE if unreadable_cards(reader, data, tab) else CUT_WRONG, path.stem)
                if not doubtful:
                    ev.confident_wrong += 1
                    ev.wrong.append(path.stem)
            if score_tableau(r.tableau).total == score_tableau(truth_grid).total:
                ev.exact_score += 1
    return ev
