"""The picture that explains a read: the lattice on the photo, each cell's type and points,
doubtful cells highlighted, loose cards marked, the total on top."""
from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from ecoscore.scoring import PlayerScore

from .reads import PhotoRead

MAX_SIDE = 1280  # enough to check a read on a phone; smaller is faster to encode and send
OK, DOUBT, EMPTY_COLOR, LOOSE = (80, 200, 60), (0, 90, 255), (180, 180, 180), (200, 60, 200)


def cell_points(player: PlayerScore) -> dict[int, str]:
    """Per cell index, the label of its points: a card's own, or its group's (Σ) on one card."""
    labels = {c.cell: str(c.points) for c in player.cards}
    for g in player.groups:
        labels.setdefault(g.cells[0], f"Σ{g.points}")
    return labels


def within(img: np.ndarray, max_side: int) -> np.ndarray:
    """``img`` shrunk to at most ``max_side`` px on its longer side (``img`` itself if it is)."""
    if max(img.shape[:2]) <= max_side:
        return img
    f = max_side / max(img.shape[:2])
    return cv2.resize(img, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)


def draw_overlay(read: PhotoRead, players: Sequence[PlayerScore | None]) -> np.ndarray:
    """``players[k]`` is the score of ``read.tableaux[k]`` (None: not scored)."""
    img = within(read.photo.image, MAX_SIDE)
    if img is read.photo.image:
        img = img.copy()  # (drawn on below)
    k = img.shape[1] / read.size[0]  # overlay pixels per original pixel
    thick = max(1, int(round(max(img.shape[:2]) / 700)))
    font = 0.38 * thick
    for quad in read.loose_cards:
        cv2.polylines(img, [(quad * k).astype(np.int32)], True, LOOSE, thick, cv2.LINE_AA)
    for t, (tab, player) in enumerate(zip(read.tableaux, players)):
        labels = cell_points(player) if player else {}
        for quad in tab.left_out:  # said in its doubts: "N cards ... were left out"; these are they
            cv2.polylines(img, [(quad * k).astype(np.int32)], True, DOUBT, thick * 2, cv2.LINE_AA)
        for i, cell in enumerate(tab.cells):
            quad = (cell.quad * k).astype(np.int32)
            color = DOUBT if cell.doubts else OK if cell.type else EMPTY_COLOR
            cv2.polylines(img, [quad], True, color, thick * (2 if cell.doubts else 1), cv2.LINE_AA)
            name = cell.type.code if cell.type else "--"
            text = f"{name} {labels.get(i, '')}".strip()
            center = quad.mean(0)
            (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, font, thick)
            org = (int(center[0] - tw / 2), int(center[1] + th / 2))
            cv2.rectangle(img, (org[0] - 2, org[1] - th - 3), (org[0] + tw + 2, org[1] + 3), (0, 0, 0), -1)
            cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, font, color, thick, cv2.LINE_AA)
        if player:
            top = np.concatenate([cell.quad for cell in tab.cells]) * k
            n = len(tab.doubts)
            banner = f"{player.name}: {player.total} points" + (f" ({n} doubt{'s' if n != 1 else ''})" if n else "")
            (bw, bh), _ = cv2.getTextSize(banner, cv2.FONT_HERSHEY_SIMPLEX, font * 1.6, thick)
            x, y = top.mean(0)[0] - bw / 2, top[:, 1].min() - 8 * thick  # above the grid, kept in the picture
            org = (int(np.clip(x, 5, img.shape[1] - bw - 5)), int(np.clip(y, bh + 5, img.shape[0] - 5)))
            # On a dark box like the cells' labels: a thicker black copy of the text as its outline
            # came out wider than the text (Hershey glyphs advance with their stroke) and doubled it.
            cv2.rectangle(img, (org[0] - 3, org[1] - bh - 4), (org[0] + bw + 3, org[1] + 4), (0, 0, 0), -1)
            cv2.putText(img, banner, org, cv2.FONT_HERSHEY_SIMPLEX, font * 1.6, (255, 255, 255), thick, cv2.LINE_AA)
    return img


def overlay_jpeg(read: PhotoRead, players: Sequence[PlayerScore | None], quality: int = 80) -> bytes:
    ok, buf = cv2.imencode(".jpg", draw_overlay(read, players), [cv2.IMWRITE_JPEG_QUALITY, quality])
    return buf.tobytes()
