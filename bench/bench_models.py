"""The shipped models on a held-out rendered set (issue #4).

Finder: recall of cards at IoU 0.5 (cards at least half in the frame), and false cards inside
tableaux (detections on a tableau's area that match no card). Classifier: top-1 on straightened
cell crops (empty included) cut the way the pipeline cuts them. Speed: both models on one
12 MP photo (decode excluded), our runtime (OpenVINO, in bfloat16 where the CPU computes it)
against Ultralytics' own PyTorch predict of the same weights, OpenVINO in float32, ONNX Runtime
(if installed) and OpenCV's DNN module, in the same run.
    python bench/bench_models.py --set data/test/normal [--speed data/test/12mp]
"""
from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import cv2
import numpy as np
from setnames import set_name  # bench/ is on the path when a bench runs as a script

from ecoscore.datasets.yolo import MIN_VISIBLE, card_quads, cell_crops, obb_label_lines, visible_part
from ecoscore.geometry import CROP_SIZE, warp_quad
from ecoscore.paths import models_dir
from ecoscore.truthfile import read_set
from ecoscore.vision.decode import decode
from ecoscore.vision.models import CardClassifier, CardFinder, decode_obb, letterbox
from ecoscore.vision.naming import name_cells
from ecoscore.vision.pipeline import Reader


def poly_iou(a: np.ndarray, b: np.ndarray) -> float:
    a, b = a.astype(np.float32), b.astype(np.float32)
    inter, _ = cv2.intersectConvexConvex(a, b)
    union = cv2.contourArea(a) + cv2.contourArea(b) - inter
    return inter / union if union > 0 else 0.0


def poly_inside(a: np.ndarray, b: np.ndarray) -> float:
    """Share of polygon ``a``'s area that lies inside ``b``."""
    inter, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    area = cv2.contourArea(a.astype(np.float32))
    return inter / area if area > 0 else 0.0


def barely_visible_cards(truth: dict) -> list[np.ndarray]:
    """The visible part of each card cut by the frame that is too little shown to be labelled
    (``MIN_VISIBLE``): an ignore region, as COCO's crowd boxes are."""
    out = []
    for quad in card_quads(truth):
        share, clipped = visible_part(quad, truth["width"], truth["height"])
        if clipped is not None and 0 < share < MIN_VISIBLE:
            out.append(clipped)
    return out


def finder_metrics(finder: CardFinder, folder: Path, limit: int | None, as_used: bool = False) -> dict:
    """Recall at IoU 0.5 and false cards inside tableaux, by kind of photo and card.

    Kinds: the cards of a tableau in a photo of one tableau (the product's main use), of
    several tableaux in one photo (small cards), loose cards; cards cut by the frame are left
    out of the kinds and counted in "all" by their visible part, as the training labels are;
    a detection on a card too little in the frame to be labelled is neither hit nor false.
    ``as_used``: with the pipeline's closer second look at groups of small cards."""
    reader = Reader(finder=finder) if as_used else None
    kinds: dict[str, list[int]] = {}
    false = {"single": [0, 0], "multi": [0, 0]}  # [false, detections] inside tableaux

    def count(kind, hit):
        entry = kinds.setdefault(kind, [0, 0])
        entry[0] += 1
        entry[1] += hit

    for path, truth in read_set(folder, limit):
        photo = decode((folder / truth["image"]).read_bytes())
        det = reader.find(photo.image) if reader else finder(photo.image)
        quads = det.quads / photo.scale
        w, h = truth["width"], truth["height"]
        setting = "multi" if len(truth["tableaux"]) > 1 else "single"
        labelled = [np.array([float(v) for v in line.split()[1:]]).reshape(4, 2) * [w, h] for line in obb_label_lines(truth)]
        for target in labelled:
            count("all labelled cards", max((poly_iou(target, q) for q in quads), default=0) >= 0.5)
        cards = [(f"tableau cards, {setting} tableau photos", np.array(c["corners"]))
                 for tab in truth["tableaux"] for c in tab["cells"] if c["corners"]]
        cards += [("loose cards", np.array(c["corners"])) for c in truth["loose_cards"]]
        for kind, quad in cards:
            if np.all((quad >= 0) & (quad <= [w - 1, h - 1])):
                count(kind, max((poly_iou(quad, q) for q in quads), default=0) >= 0.5)
        hulls = [cv2.convexHull(np.concatenate([np.array(c["cell_corners"]) for c in tab["cells"]]).astype(np.float32))
                 for tab in truth["tableaux"]]
        slivers = barely_visible_cards(truth)
        for q in quads:
            if any(poly_inside(q, sliver) >= 0.5 for sliver in slivers):
                continue  # a real card, too little of it in the frame to be labelled: neither hit nor false
            if any(cv2.pointPolygonTest(hull, tuple(map(float, q.mean(0))), False) >= 0 for hull in hulls):
                false[setting][1] += 1
                false[setting][0] += max((poly_iou(t, q) for t in labelled), default=0) < 0.5
    false["all"] = [sum(f for f, _ in false.values()), sum(n for _, n in false.values())]
    return {
        "recall@0.5": {k: {"cards": n, "recall": round(hit / n, 4)} for k, (n, hit) in sorted(kinds.items())},
        "false_cards_in_tableaux": {f"{k} tableau photos": {"detections": n, "false": round(f / max(n, 1), 4)}
                                    for k, (f, n) in false.items()},
    }


def classifier_metrics(classifier: CardClassifier, folder: Path, limit: int | None) -> dict:
    """Top-1 of one look at each crop, and as the pipeline reads them (``name_cells``: an
    unsure crop is read at all four quarter turns)."""
    right = total = right_as_read = 0
    confusions: dict[str, int] = {}
    for path, truth in read_set(folder, limit):
        image = cv2.imdecode(np.frombuffer((folder / truth["image"]).read_bytes(), np.uint8), cv2.IMREAD_COLOR)
        crops = cell_crops(image, truth, np.random.default_rng(int(path.stem)))
        if not crops:
            continue
        probs = classifier([c for c, _ in crops])
        as_read = name_cells(classifier, [c for c, _ in crops])
        for p, named, (_, name) in zip(probs, as_read, crops):
            guess = classifier.names[int(np.argmax(p))]
            total += 1
            right += guess == name
            right_as_read += classifier.names[named.chosen] == name
            if guess != name:
                confusions[f"{name}->{guess}"] = confusions.get(f"{name}->{guess}", 0) + 1
    return {"crops": total, "top1": right / max(total, 1), "top1_as_read": right_as_read / max(total, 1),
            "confusions": confusions}


def speed(folder: Path, runs: int) -> dict:
    """Median ms for the two models on each 12 MP photo: the finder on the decoded photo, the
    classifier on 20 cell crops. The same photos (decoded beforehand) and the same crops go to
    every runtime; each does its own pre- and post-processing. The runtimes take turns, a
    round of all photos each, ``runs`` rounds: on a shared machine a busy spell then falls on
    all of them, and the ratio to Ultralytics is also given round by round."""
    finder, classifier = CardFinder(), CardClassifier(partner=False)  # the same network in every runtime
    paths = sorted((folder / "images").glob("*.jpg"))
    images = [decode(p.read_bytes(), 1000).image for p in paths]
    crops = []
    for image in images:
        cells = [warp_quad(image, q, CROP_SIZE) for q in finder(image).quads[:20]]
        crops.append((cells * 20)[:20] if cells else [image[:CROP_SIZE, :CROP_SIZE]] * 20)
    jobs = list(zip(images, crops))
    sizes = sorted({"{1} x {0}".format(*cv2.imdecode(np.frombuffer(p.read_bytes(), np.uint8), cv2.IMREAD_REDUCED_COLOR_8).shape[:2])
                    for p in paths})  # at 1/8: the aspect is what matters
    out = {"photos": len(paths), "shapes_at_one_eighth": sizes, "rounds": runs,
           "ours_precision": finder.network.precision}

    def ours(job):
        image, cells = job
        finder(image)
        classifier(cells)

    def other_runtime(run_finder, run_classifier):
        def run(job):
            image, cells = job
            boxed, k, (left, top) = letterbox(image, finder.imgsz, finder.rect)  # the same input as ours
            decode_obb(run_finder(cv2.dnn.blobFromImage(boxed, 1 / 255, swapRB=True))[0], finder.conf, finder.iou, k, left, top)
            run_classifier(cv2.dnn.blobFromImages(cells, 1 / 255, swapRB=True))
        return run

    runners = {"ours": ours}
    from ecoscore.vision.runtime import import_openvino

    core = import_openvino().Core()
    cfg = {"INFERENCE_NUM_THREADS": 2, "PERFORMANCE_HINT": "LATENCY", "INFERENCE_PRECISION_HINT": "f32"}
    ov_f, ov_c = (core.compile_model(str(m.path), "CPU", cfg) for m in (finder, classifier))
    runners["openvino_f32"] = other_runtime(lambda x: ov_f(x)[0], lambda x: ov_c(x)[0])
    try:
        import onnxruntime as ort
    except ImportError:
        ort = None
    if ort:
        options = ort.SessionOptions()
        options.intra_op_num_threads, options.inter_op_num_threads = 2, 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")  # spinning was slower here
        ort_f, ort_c = (ort.InferenceSession(str(m.path), options, providers=["CPUExecutionProvider"]) for m in (finder, classifier))
        runners["onnxruntime"] = other_runtime(lambda x: ort_f.run(None, {"images": x})[0],
                                               lambda x: ort_c.run(None, {"images": x})[0])
    net_f = cv2.dnn.readNetFromONNX(str(finder.path))
    net_c = cv2.dnn.readNetFromONNX(str(classifier.path))

    def forward(net, x):
        net.setInput(x)
        return net.forward()

    try:
        opencv_dnn = other_runtime(lambda x: forward(net_f, x), lambda x: forward(net_c, x))
        opencv_dnn(jobs[0])  # a model OpenCV cannot run fails here, not in the timed rounds
        runners["opencv_dnn"] = opencv_dnn
    except cv2.error as err:
        out["opencv_dnn_error"] = str(err).splitlines()[0]

    pt_f, pt_c = models_dir() / "finder.pt", models_dir() / "classifier.pt"
    if pt_f.is_file() and pt_c.is_file():
        from ecoscore.vision.offline import import_ultralytics

        YOLO = import_ultralytics().YOLO  # first: it closes the network doors before the import
        from ultralytics.utils import torch_utils

        torch_utils.NUM_THREADS = 2  # Ultralytics' own default here is 1; give it both cores too
        yf, yc = YOLO(str(pt_f), task="obb"), YOLO(str(pt_c), task="classify")

        def theirs(job):
            image, cells = job
            yf.predict(image, imgsz=finder.imgsz, conf=finder.conf, verbose=False, device="cpu")
            yc.predict(cells, imgsz=CROP_SIZE, verbose=False, device="cpu")

        runners["ultralytics_pytorch"] = theirs

    for fn in runners.values():
        for job in jobs[:2]:
            fn(job)  # warm-up
    times: dict[str, list[list[float]]] = {name: [] for name in runners}
    for _ in range(runs):
        for name, fn in runners.items():
            round_ms = []
            for job in jobs:
                start = time.perf_counter()
                fn(job)
                round_ms.append((time.perf_counter() - start) * 1e3)
            times[name].append(round_ms)
    for name, rounds in times.items():
        out[f"{name}_ms"] = round(statistics.median(t for r in rounds for t in r), 1)
    if "ultralytics_pytorch" in times:
        out["speedup_vs_ultralytics"] = round(out["ultralytics_pytorch_ms"] / out["ours_ms"], 2)
        out["speedup_by_round"] = [round(statistics.median(u) / statistics.median(o), 2)
                                   for u, o in zip(times["ultralytics_pytorch"], times["ours"])]
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--set", type=Path, action="append", default=[], help="rendered set(s) with truth")
    parser.add_argument("--speed", type=Path, help="a folder of 12 MP photos for the timing")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--finder", type=Path, help="a finder's ONNX (beside its sidecar JSON), if not the shipped one")
    args = parser.parse_args()
    report = {}
    if args.set:
        finder, classifier = CardFinder(args.finder) if args.finder else CardFinder(), CardClassifier()
        for folder in args.set:
            report[set_name(folder, args.set)] = {"finder": finder_metrics(finder, folder, args.limit),
                                   "finder_with_closer_look": finder_metrics(finder, folder, args.limit, as_used=True),
                                   "classifier": classifier_metrics(classifier, folder, args.limit)}
    if args.speed:
        report["speed"] = speed(args.speed, args.runs)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
