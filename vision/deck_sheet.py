"""A deck's references as one image to look at (`ecoscore deck show NAME --sheet FILE.png`).

A deck enrolled from a photo takes each card's type from the grid typed for it: where a type
rests on one card, a slip that swaps two of them is what the deck then knows, and no check can
see it (a newcomer's fox and bee swapped: every later photo read confidently wrong). A sheet of
each type's cards, a row a type, shows the player at a glance.
"""
from __future__ import annotations

import cv2
import numpy as np

from ecoscore.scoring import CardType

CELL = 96  # px: a reference's long side on the sheet
PER_ROW = 10  # references shown a type (the first ones; a row says how many more)
LABEL = 150  # px: the column of the types' names
GAP = 6


def contact_sheet(images: dict[CardType, list[np.ndarray]]) -> np.ndarray:
    """A BGR image: a row for each type, its name and code ("fox FX", as a grid is typed) then up
    to ``PER_ROW`` of its references, and "+N" where it has more."""
    rows = []
    shown = max(1, min(PER_ROW, max((len(images.get(card, [])) for card in CardType), default=1)))
    width = LABEL + shown * (CELL + GAP) + (60 if shown == PER_ROW else GAP)  # room for "+N" where a row has more
    for card in CardType:
        crops = images.get(card, [])
        row = np.full((CELL + 2 * GAP, width, 3), 255, np.uint8)
        cv2.putText(row, f"{card.value} {card.code}", (8, CELL // 2 + GAP + 8), cv2.FONT_HERSHEY_SIMPLEX, 0.7,
                    (0, 0, 0), 2, cv2.LINE_AA)
        for k, crop in enumerate(crops[:PER_ROW]):
            h, w = crop.shape[:2]
            scale = CELL / max(h, w)
            small = cv2.resize(crop, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA)
            x, y = LABEL + k * (CELL + GAP), GAP + (CELL - small.shape[0]) // 2
            row[y:y + small.shape[0], x:x + small.shape[1]] = small
        if not crops:
            cv2.putText(row, "-", (LABEL, CELL // 2 + GAP + 8), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (0, 0, 200), 2, cv2.LINE_AA)
        elif len(crops) > PER_ROW:
            cv2.putText(row, f"+{len(crops) - PER_ROW}", (LABEL + PER_ROW * (CELL + GAP), CELL // 2 + GAP + 8),
                        cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 1, cv2.LINE_AA)
        rows.append(row)
        rows.append(np.full((1, row.shape[1], 3), 200, np.uint8))  # a rule between types
    return np.vstack(rows[:-1])
