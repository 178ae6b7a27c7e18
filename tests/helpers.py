"""Small helpers shared by the tests."""
from __future__ import annotations

from pathlib import Path

from ecoscore.scoring import CardType, Tableau, parse_text, score_game, score_tableau

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples" / "game"


def grid(text: str) -> Tableau:
    return parse_text(text, "test grid")


def points(text: str, card: CardType, others=None) -> int:
    """Points of one type for a tableau scored alone (or against ``others``)."""
    return score_tableau(grid(text), others=others).sheet[card]


def game(*texts: str, **options):
    return score_game([(f"p{k + 1}", grid(t)) for k, t in enumerate(texts)], **options)


def spoil(jpeg: bytes, reader, cells: int) -> bytes:
    """The photo with noise over the middle of its first ``cells`` cards: doubtful cells."""
    import cv2
    import numpy as np

    tab = reader.read(jpeg).tableaux[0]
    img = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    noise = np.random.default_rng(0).integers(0, 255, img.shape, dtype=np.uint8)
    for cell in tab.cells[:cells]:
        q = cell.quad.astype(np.float32)
        mask = np.zeros(img.shape[:2], np.uint8)
        cv2.fillConvexPoly(mask, (q.mean(0) + (q - q.mean(0)) * 0.7).astype(np.int32), 255)
        img[mask > 0] = noise[mask > 0]
    return cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 92])[1].tobytes()
