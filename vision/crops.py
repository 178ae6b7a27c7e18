"""Straighten one lattice cell into the classifier's square input."""
from __future__ import annotations

import cv2
import numpy as np

CROP_SIZE = 64


def warp_quad(image: np.ndarray, quad: np.ndarray, size: int = CROP_SIZE) -> np.ndarray:
    """Warp the quadrilateral ``quad`` (TL, TR, BR, BL, pixels of ``image``) to a size × size
    square. A portrait card is squashed to a square; the classifier is trained the same way."""
    src = np.asarray(quad, np.float32).reshape(4, 2)
    dst = np.float32([[0, 0], [size, 0], [size, size], [0, size]])
    M = cv2.getPerspectiveTransform(src, dst)
    # INTER_AREA is not supported by warpPerspective; shrink big cells first so the crop
    # averages the card's pixels instead of sampling a few of them (aliasing).
    side = float(max(np.linalg.norm(src[1] - src[0]), np.linalg.norm(src[3] - src[0])))
    if side > 3 * size:
        k = 2 * size / side
        x0, y0 = np.floor(src.min(0)).astype(int)
        x1, y1 = np.ceil(src.max(0)).astype(int) + 1
        x0, y0 = max(x0, 0), max(y0, 0)
        roi = image[y0:max(y0 + 1, y1), x0:max(x0 + 1, x1)]
        small = cv2.resize(roi, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
        src = (src - [x0, y0]) * k
        M = cv2.getPerspectiveTransform(src.astype(np.float32), dst)
        image = small
    return cv2.warpPerspective(image, M, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
