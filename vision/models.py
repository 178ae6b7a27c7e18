"""The shipped models at run time: ONNX through OpenVINO (``runtime.py``), no torch, no ultralytics.

``CardFinder`` turns a photo into oriented card boxes; ``CardClassifier`` names straightened
cell crops (11 types + empty). Pre- and post-processing follow Ultralytics' own (letterbox
with grey 114, RGB / 255; class scores already sigmoid / softmax in the export).
"""
from __future__ import annotations

import copy
import json
from pathlib import Path

import cv2
import numpy as np

from ecoscore.geometry import Detections, long_side_first, obb_corners, quad_boxes
from ecoscore.paths import models_dir

from .corners import CornerRefiner
from .crops import colour_normalised
from .runtime import Network, image_blob, run_in_turns

__all__ = ["EMPTY", "CardClassifier", "CardFinder", "Detections", "ModelError", "decode_corners", "decode_obb",
           "fast_nms", "letterbox", "obb_corners", "probiou"]

EMPTY = "empty"  # the classifier's class for a cell where no card lies


class ModelError(RuntimeError):
    """A model file that is missing or unusable."""


def _network(path: Path, concurrent: int, threads: int | None = None) -> Network:
    if not path.is_file():
        raise ModelError(f"model file not found: {path} (the shipped models live in models/)")
    return Network(path, concurrent, threads)


def _metadata(path: Path) -> dict:
    sidecar = path.with_suffix(".json")
    if not sidecar.is_file():
        raise ModelError(f"{sidecar} is missing: it says the input size and class names of {path.name}")
    return json.loads(sidecar.read_text(encoding="utf-8"))


def canvas(h: int, w: int, size: int, rect: bool) -> tuple[int, int]:
    """The finder's input for an h × w image: size × size, or with ``rect`` the long side
    ``size`` and the short side the first of size × 9/16, 3/4 or 1 (in steps of 32) it fits in.
    A 4:3 phone photo then costs the network 3/4 of a square (Ultralytics' own predict pads
    as little, too); a few fixed shapes, as each is compiled once."""
    if not rect:
        return size, size
    short = min(h, w) * size / max(h, w)
    sides = sorted({_round_up(size * 9 / 16), _round_up(size * 3 / 4), size})  # 288, 384, 512
    side = next(s for s in sides if s >= short - 0.5)
    return (size, side) if h >= w else (side, size)


def _round_up(x: float, step: int = 32) -> int:
    """``x`` rounded up to a multiple of ``step`` (32: YOLO's stride, its input sides' unit)."""
    return int(np.ceil(x / step)) * step


def letterbox(image: np.ndarray, size: int, rect: bool = False) -> tuple[np.ndarray, float, tuple[float, float]]:
    """Resize keeping aspect and pad to the canvas (``canvas``) with grey 114, centred, as
    Ultralytics does.

    Big images are first halved with a Gaussian pyramid until under twice the size, so the
    final bilinear step does not alias; INTER_AREA does the same job ten times slower."""
    h, w = image.shape[:2]
    ch, cw = canvas(h, w, size, rect)
    k = min(ch / h, cw / w)
    small = image
    while min(ch / small.shape[0], cw / small.shape[1]) < 0.5:
        small = cv2.pyrDown(small)
    nw, nh = min(cw, int(round(w * k))), min(ch, int(round(h * k)))
    resized = cv2.resize(small, (nw, nh), interpolation=cv2.INTER_LINEAR)
    top, left = int(round((ch - nh) / 2 - 0.1)), int(round((cw - nw) / 2 - 0.1))
    out = cv2.copyMakeBorder(resized, top, ch - nh - top, left, cw - nw - left, cv2.BORDER_CONSTANT,
                             value=(114, 114, 114))
    return out, k, (left, top)


class CardFinder:
    """One-class card detector: every card in a photo, whatever its art, as an oriented box.

    Two kinds of network, as its sidecar's ``outputs`` says: one that predicts oriented boxes,
    and one that predicts each card's four corners (``decode_corners`` makes them boxes)."""

    # NMS at IoU 0.45, not Ultralytics' 0.7: the oriented boxes of neighbouring cards overlap
    # at most ~0.08 (bench/box_overlap.py), so anything above is the same card found twice.
    # Boxes under 0.6 are dropped. Swept from 0.25 to 0.6 on the test sets (bench/bench_models.py)
    # and checked on the tuning sets: 0.6 keeps the cards of one-tableau photos (recall 99.98 %
    # normal, 99.73 % hard; tuning sets 99.88, 99.59) and halves the holes boxed as cards (0.81 ->
    # 0.40 %, 0.88 -> 0.44 %; tuning sets 1.1 -> 0.5 %). Read end to end it costs 4 of 151
    # tableaux in photos of several (small, dark cards) and flags 5 points fewer tableaux.
    def __init__(self, path: Path | None = None, conf: float = 0.6, iou: float = 0.45, concurrent: int = 1,
                 threads: int | None = None, refiner: CornerRefiner | None = None):
        self.path = path or models_dir() / "finder.onnx"
        self.meta = _metadata(self.path)
        # The corner refiner its sidecar names (``refiner``: the file beside it), or the one given.
        if refiner is None and self.meta.get("refiner"):
            refiner = CornerRefiner(self.path.parent / self.meta["refiner"], concurrent, threads)
        self.refiner = refiner
        self.imgsz = int(self.meta["imgsz"])
        self.conf, self.iou = conf, iou
        self.corners = self.meta.get("outputs") == "corners"
        self.network = _network(self.path, concurrent, threads)
        self.rect = self.network.any_size  # an export with a fixed input size takes only squares
        # The first look's canvases serve every read, compiled each for its shape; the bigger
        # ones serve only closer looks at small cards (looks.CLOSER_SIZES): one model compiled
        # open runs them all, with one stream (vision/runtime.py's Network).
        self.network.open_above = self.imgsz

    def keeping_from(self, conf: float) -> CardFinder:
        """This finder keeping its boxes from ``conf`` instead: the same networks, nothing copied
        but the settings (a read's less sure look, ``pipeline.UNSURE_CONF``)."""
        other = copy.copy(self)
        other.conf = conf
        return other

    def warm_up(self, sizes: tuple[int, ...] = ()) -> None:
        """Compile the network for every canvas now rather than on the first photo of each
        shape (a long-running service; a one-shot command compiles only what it meets).
        ``sizes``: other long sides the caller will ask for, besides the trained one."""
        shapes = ((9, 16), (3, 4), (1, 1), (4, 3), (16, 9))
        for size in {self.imgsz, *(sizes if self.rect else ())}:
            for h, w in {canvas(h, w, size, self.rect) for h, w in shapes}:
                self.network(np.zeros((1, 3, h, w), np.float32))

    def canvas_side(self, size: int | None = None) -> int:
        """The canvas's long side a call with ``size`` runs on: ``size`` where the export takes
        any height and width, else the trained one (an export of one square size takes no other)."""
        return size if size and self.rect else self.imgsz

    def __call__(self, image: np.ndarray, size: int | None = None, refine: bool = True) -> Detections:
        """Cards in ``image``; ``size``: the canvas's long side, if not the trained one (an
        export with open height and width only: ``canvas_side``); ``refine``: with each card's own
        corners, where a refiner is shipped (not needed where the cards are seen square on)."""
        size = self.canvas_side(size)
        boxed, k, (left, top) = letterbox(image, size, self.rect)
        raw = self.network(image_blob([boxed]))[0]  # (4 box + 1 class + 1 angle rows | 12 corner rows, anchors)
        if self.corners:
            return decode_corners(raw, self.conf, self.iou, k, left, top, image.shape[:2])
        boxes = decode_obb(raw, self.conf, self.iou, k, left, top)
        return boxes if self.refiner is None or not refine else self.refiner(image, boxes)


def _covariance(xywhr: np.ndarray):
    """Gaussian of each oriented box (a, b, c of [[a, c], [c, b]])."""
    a, b = xywhr[:, 2] ** 2 / 12, xywhr[:, 3] ** 2 / 12
    cos, sin = np.cos(xywhr[:, 4]), np.sin(xywhr[:, 4])
    return a * cos**2 + b * sin**2, a * sin**2 + b * cos**2, (a - b) * cos * sin


def _pair_probiou(boxes: np.ndarray, i: np.ndarray, j: np.ndarray, eps: float = 1e-7) -> np.ndarray:
    """Probabilistic IoU of the box pairs (``i[k]``, ``j[k]``)."""
    a, b, c = _covariance(boxes)
    A, B, C = a[i] + a[j], b[i] + b[j], c[i] + c[j]
    dx, dy = boxes[i, 0] - boxes[j, 0], boxes[i, 1] - boxes[j, 1]
    det = A * B - C**2
    t1 = (A * dy**2 + B * dx**2) / (det + eps) * 0.25
    t2 = (C * -dx * dy) / (det + eps) * 0.5
    own = np.clip(a * b - c**2, 0, None)
    t3 = np.log(det / (4 * np.sqrt(own[i] * own[j]) + eps) + eps) * 0.5
    bd = np.clip(t1 + t2 + t3, eps, 100.0)
    return 1 - np.sqrt(1.0 - np.exp(-bd) + eps)


def probiou(boxes: np.ndarray, eps: float = 1e-7) -> np.ndarray:
    """Pairwise probabilistic IoU of oriented boxes (xywhr), as Ultralytics' OBB NMS uses."""
    n = len(boxes)
    i, j = np.repeat(np.arange(n), n), np.tile(np.arange(n), n)
    return _pair_probiou(boxes, i, j, eps).reshape(n, n)


def fast_nms(boxes: np.ndarray, scores: np.ndarray, iou: float) -> np.ndarray:
    """Fast-NMS (Bolya et al.) over oriented boxes, as Ultralytics does it: a box goes when any
    higher-scored box overlaps it more than ``iou``. Returns kept indices, best first.

    The same answer as comparing every pair (for boxes a pixel across or more: two boxes of no
    size "overlap" at any distance in the full table), without computing the pairs that cannot overlap
    (the finder's few hundred candidates made the full n × n table a tenth of a read). The
    Bhattacharyya distance of two boxes is at least |d|² / (4 (tr Σ₁ + tr Σ₂)) for centres
    |d| apart (its log-determinant term is never negative), so pairs farther apart than that
    allows for ``iou`` are skipped; a factor of 2 keeps rounding on the safe side."""
    order = np.argsort(-scores, kind="stable")
    boxes = boxes[order]
    a, b, _ = _covariance(boxes)
    spread = a + b
    most = -np.log(max(1e-12, 1.0 - (1.0 - iou) ** 2))  # the largest distance at which IoU > iou
    d2 = (boxes[:, None, 0] - boxes[None, :, 0]) ** 2 + (boxes[:, None, 1] - boxes[None, :, 1]) ** 2
    i, j = np.nonzero(np.triu(d2 < 8 * (spread[:, None] + spread[None]) * most + 1e-9, k=1))
    dropped = np.zeros(len(boxes), bool)
    dropped[j[_pair_probiou(boxes, i, j) > iou]] = True
    return order[~dropped]


def decode_obb(raw: np.ndarray, conf: float, iou: float, k: float, left: float, top: float,
               max_det: int = 300) -> Detections:
    """Raw OBB head output (4 box rows, class rows, 1 angle row) to boxes in image pixels."""
    scores = raw[4:-1].max(0)
    keep = scores > conf
    boxes = np.concatenate([raw[:4, keep].T, raw[-1:, keep].T], 1).astype(np.float64)  # xywhr
    scores = scores[keep].astype(np.float64)
    idx = fast_nms(boxes, scores, iou)[:max_det]
    boxes, scores = boxes[idx], scores[idx]
    sizes, angles = long_side_first(boxes)  # angle along the long side (Ultralytics' regularisation)
    return Detections((boxes[:, :2] - [left, top]) / k, sizes / k, angles, scores)


def decode_corners(raw: np.ndarray, conf: float, iou: float, k: float, left: float, top: float,
                   frame: tuple[int, int], max_det: int = 300) -> Detections:
    """Raw corner-finder output (4 box rows, 1 class row, then x, y, seen for each of 4 corners,
    clockwise, a short side first) to oriented boxes in image pixels (``frame``: its h, w),
    with the cards' corners (``Detections.corners``).

    A card's box lies along its long sides' mean direction and holds its four corners: one
    answer for a card seen at a slant, where the rectangle round a parallelogram could lie
    along either pair of its sides. A card cut by the frame is boxed by its part inside, as
    the box finder was taught."""
    scores = raw[4]
    keep = scores > conf
    quads = (raw[5:, keep].T.reshape(-1, 4, 3)[..., :2].astype(np.float64) - [left, top]) / k
    scores = scores[keep].astype(np.float64)
    boxes = quad_boxes(quads)
    idx = fast_nms(boxes, scores, iou)[:max_det]
    boxes, quads, scores = boxes[idx], quads[idx], scores[idx]
    h, w = frame
    cut = np.any((quads < 0) | (quads > [w, h]), axis=(1, 2))
    for i in np.flatnonzero(cut):
        area, part = cv2.intersectConvexConvex(quads[i].astype(np.float32),
                                               np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32))
        if area > 0 and part is not None:
            (cx, cy), (bw, bh), a = cv2.minAreaRect(part)
            boxes[i] = (cx, cy, bw, bh, np.radians(a))
    boxed = Detections(boxes[:, :2], *long_side_first(boxes), scores)
    # Each card's own corners, a long side first as a box's (1-2 is one); a cut card's corners
    # beyond the frame are guesses (never taught), so it keeps its box's.
    corners = np.where(cut[:, None, None], boxed.quads, quads[:, [1, 2, 3, 0]])
    return Detections(boxed.centers, boxed.sizes, boxed.angles, boxed.scores, corners)


class CardClassifier:
    """Names straightened cell crops: the 11 types or ``empty``, at any quarter turn.

    A sidecar may name a *partner*: a second classifier, trained another way, asked only about
    the crops this one is unsure of (below ``below``), its probabilities averaged in with
    ``weight``. The shipped pair: the stand-in's classifier and one trained on colour-normalised
    crops, which names the cards a lamp or a sleeve's glare made doubtful (model card)."""

    def __init__(self, path: Path | None = None, concurrent: int = 1, threads: int | None = None,
                 partner: bool = True):
        self.path = path or models_dir() / "classifier.onnx"
        self.meta = _metadata(self.path)
        self.imgsz = int(self.meta["imgsz"])
        self.names: list[str] = list(self.meta["names"])
        self.deck: str = str(self.meta.get("deck", "standin"))  # the deck it was trained on
        # Trained on colour-normalised crops (its recipe's ``normalise_crops``): read them so too.
        self.normalise_crops = bool((self.meta.get("recipe") or {}).get("normalise_crops"))
        self.network = _network(self.path, concurrent, threads)
        self.partner: CardClassifier | None = None
        pairing = self.meta.get("partner")
        if partner and pairing:
            self.partner = CardClassifier(self.path.parent / pairing["model"], concurrent, threads, partner=False)
            if (self.partner.names, self.partner.imgsz) != (self.names, self.imgsz):
                raise ModelError(f"{pairing['model']} names other classes or takes another size than {self.path.name}")
            self.partner_weight, self.partner_below = float(pairing["weight"]), float(pairing["below"])

    def __call__(self, crops: list[np.ndarray]) -> np.ndarray:
        """Class probabilities, one row per crop (columns in ``self.names`` order)."""
        if not crops:
            return np.zeros((0, len(self.names)), np.float32)
        crops = [c if c.shape[:2] == (self.imgsz, self.imgsz) else cv2.resize(c, (self.imgsz, self.imgsz)) for c in crops]
        probs = self._network_probs(crops)
        if self.partner is None:
            return probs
        unsure = np.flatnonzero(probs.max(1) < self.partner_below)
        if len(unsure):
            probs = probs.copy()  # written into: not the runtime's buffer
            w = self.partner_weight
            probs[unsure] = (1 - w) * probs[unsure] + w * self.partner([crops[i] for i in unsure])
        return probs

    def _network_probs(self, crops: list[np.ndarray]) -> np.ndarray:
        if self.normalise_crops:
            crops = [colour_normalised(c) for c in crops]
        return run_in_turns(self.network, crops)
