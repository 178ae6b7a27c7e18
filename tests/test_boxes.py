"""The finder's box post-processing on its own: probabilistic IoU, fast-NMS, decoding the raw
OBB head, and the immutable, shape-checked Detections."""
import numpy as np
import pytest

from ecoscore.geometry import Detections, obb_corners, project
from ecoscore.vision.models import decode_corners, decode_obb, fast_nms, probiou


def test_probiou_is_one_for_the_same_box_and_falls_with_distance():
    boxes = np.array([[100, 100, 60, 40, 0.3], [100, 100, 60, 40, 0.3], [130, 100, 60, 40, 0.3], [400, 400, 60, 40, 0.3]],
                     float)
    iou = probiou(boxes)
    assert iou.shape == (4, 4)
    assert iou[0, 1] == pytest.approx(1.0, abs=1e-3)
    assert 0.05 < iou[0, 2] < 0.95
    assert iou[0, 3] < 1e-3
    np.testing.assert_allclose(iou, iou.T, atol=1e-9)


def test_probiou_knows_a_box_turned_half_a_turn_is_the_same():
    a = np.array([[50, 50, 80, 30, 0.2], [50, 50, 80, 30, 0.2 + np.pi]])
    assert probiou(a)[0, 1] == pytest.approx(1.0, abs=1e-3)


def test_fast_nms_keeps_the_best_of_overlapping_boxes_and_every_apart_one():
    boxes = np.array([[100, 100, 60, 40, 0], [102, 101, 60, 40, 0], [300, 300, 60, 40, 0]], float)
    scores = np.array([0.7, 0.9, 0.8])
    assert fast_nms(boxes, scores, 0.45).tolist() == [1, 2]


def test_decode_obb_undoes_the_letterbox_and_puts_the_long_side_first():
    # 3 anchors: rows x, y, w, h, one class score, angle. The second is under the threshold.
    raw = np.array([[110.0, 50.0, 300.0], [60.0, 50.0, 300.0], [20.0, 10.0, 40.0], [40.0, 10.0, 20.0],
                    [0.9, 0.1, 0.8], [0.0, 0.0, 0.5]], np.float32)
    det = decode_obb(raw, conf=0.6, iou=0.45, k=0.5, left=10, top=20)
    assert len(det) == 2
    np.testing.assert_allclose(det.centers[0], [(110 - 10) / 0.5, (60 - 20) / 0.5])
    np.testing.assert_allclose(det.sizes[0], [80, 40])  # h > w: swapped, in photo pixels
    assert det.angles[0] == pytest.approx(np.pi / 2)
    np.testing.assert_allclose(det.sizes[1], [80, 40])
    assert det.angles[1] == pytest.approx(0.5)
    assert det.scores.tolist() == pytest.approx([0.9, 0.8])


def test_detections_are_checked_immutable_and_carry_their_corners():
    det = Detections(np.array([[10.0, 20.0]]), np.array([[8.0, 4.0]]), np.array([0.0]), np.array([0.9]))
    np.testing.assert_allclose(det.quads[0], [[6, 18], [14, 18], [14, 22], [6, 22]])
    moved = det.shifted((5, 5))
    np.testing.assert_allclose(moved.quads[0], det.quads[0] + 5)
    np.testing.assert_allclose(det.centers, [[10, 20]])  # the original is untouched
    with pytest.raises(AttributeError):
        det.centers = det.centers + 1  # type: ignore[misc]
    with pytest.raises(ValueError, match="one set of boxes"):
        Detections(np.zeros((2, 2)), np.zeros((1, 2)), np.zeros(2), np.zeros(2))
    both = Detections.concat([det, moved])
    assert len(both) == 2 and len(both.subset([1])) == 1


def test_project_and_obb_corners_agree_with_a_plain_translation():
    H = np.array([[1, 0, 3], [0, 1, 4], [0, 0, 1]], float)
    np.testing.assert_allclose(project(H, [[0, 0], [1, 2]]), [[3, 4], [4, 6]])
    corners = obb_corners(np.array([[0.0, 0.0]]), np.array([[2.0, 2.0]]), np.array([np.pi / 2]))
    assert corners.shape == (1, 4, 2)


def _fast_nms_every_pair(boxes: np.ndarray, scores: np.ndarray, iou: float) -> np.ndarray:
    order = np.argsort(-scores, kind="stable")
    overlaps = np.triu(probiou(boxes[order]), k=1)
    return order[(overlaps > iou).sum(0) == 0]


@pytest.mark.parametrize("seed", range(40))
def test_fast_nms_skipping_far_pairs_keeps_exactly_what_every_pair_would(seed):
    # Candidates as the finder gives them: clusters of jittered boxes round each card, cards of
    # many sizes and shapes side by side, some long and thin, at any angle, and thresholds
    # from loose to strict.
    rng = np.random.default_rng(seed)
    cards = rng.integers(1, 25)
    centres = rng.uniform(0, 1000, (cards, 2))
    sizes = rng.uniform(5, 200, (cards, 2)) * rng.choice([1, 1, 0.2], (cards, 1))
    per = rng.integers(1, 30, cards)
    boxes = np.concatenate([np.column_stack([
        centres[k] + rng.normal(0, rng.choice([0.5, 5, 30]), (n, 2)),
        np.abs(sizes[k] * rng.normal(1, 0.1, (n, 2))) + 1,
        rng.uniform(0, np.pi, n) if rng.random() < 0.3 else np.full(n, rng.uniform(0, np.pi)) + rng.normal(0, 0.05, n),
    ]) for k, n in enumerate(per)])
    scores = rng.uniform(0.5, 1, len(boxes))
    for iou in (0.1, 0.45, 0.7, 0.95):
        assert fast_nms(boxes, scores, iou).tolist() == _fast_nms_every_pair(boxes, scores, iou).tolist()


def _corner_rows(quads: np.ndarray, scores: list[float]) -> np.ndarray:
    """A corner finder's raw output for ``quads`` (canvas pixels): box rows, score, x y seen × 4."""
    lo, hi = quads.min(1), quads.max(1)
    box = np.concatenate([(lo + hi) / 2, hi - lo], 1)
    corners = np.concatenate([quads, np.full((*quads.shape[:2], 1), 0.9)], 2).reshape(len(quads), 12)
    return np.concatenate([box, np.array(scores)[:, None], corners], 1).T.astype(np.float32)


def test_decode_corners_boxes_a_sheared_card_along_its_long_sides_in_photo_pixels():
    # A card seen at a slant: a parallelogram, long sides (corners 1-2, 3-0) straight down,
    # short sides sheared 30 px over 40. The rectangle round it lies along the long sides
    # whichever way the shear goes (a minimal-area rectangle may lie along the short ones).
    card = np.array([[100, 100], [140, 130], [140, 230], [100, 200]], float)
    raw = _corner_rows(np.stack([card, card + 200, card + 1]), [0.9, 0.3, 0.8])  # the third: the first again
    det = decode_corners(raw, conf=0.6, iou=0.45, k=0.5, left=10, top=20, frame=(2000, 2000))
    assert len(det) == 1  # under the threshold, and the same card twice: one box
    photo = (card - [10, 20]) / 0.5
    assert det.angles[0] == pytest.approx(np.pi / 2)  # along the long sides: straight down
    np.testing.assert_allclose(det.sizes[0], [260, 80])  # long side first: 130 + the shear's 30, 40
    np.testing.assert_allclose(det.centers[0], photo.min(0) + [40, 130])
    assert det.scores[0] == pytest.approx(0.9)


def test_decode_corners_boxes_a_card_cut_by_the_frame_by_its_part_inside():
    card = np.array([[-40, 10], [20, 10], [20, 100], [-40, 100]], float)  # 40 of its 60 px lie left of the frame
    det = decode_corners(_corner_rows(card[None], [0.9]), conf=0.6, iou=0.45, k=1.0, left=0, top=0,
                         frame=(200, 300))
    np.testing.assert_allclose(det.quads[0][:, 0].min(), 0, atol=1e-3)
    np.testing.assert_allclose(sorted(det.sizes[0]), [20, 90], atol=1e-3)


def test_decode_corners_keeps_a_cards_own_corners_a_long_side_first():
    card = np.array([[100, 100], [140, 130], [140, 230], [100, 200]], float)
    det = decode_corners(_corner_rows(card[None], [0.9]), conf=0.6, iou=0.45, k=1.0, left=0, top=0, frame=(400, 400))
    np.testing.assert_allclose(det.quads[0], card[[1, 2, 3, 0]], atol=1e-4)
    moved = Detections.concat([det, det.shifted((5, 0)).subset([0])])
    np.testing.assert_allclose(moved.quads[1], card[[1, 2, 3, 0]] + [5, 0], atol=1e-4)
