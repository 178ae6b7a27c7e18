"""Score photos as players of one game, and describe each read for the JSON answer (its
``ReadDoc``: the answer's shape is defined, and the answer built, in scoring/report.py)."""
from __future__ import annotations

from collections.abc import Sequence

from ecoscore.scoring import GameScore, ReadDoc, Tableau, score_game

from .reads import PhotoRead, TableauRead


def player_names(name: str, read: PhotoRead, max_length: int | None = None) -> list[str]:
    """One player per tableau: the photo's name, numbered when a photo holds several, each at
    most ``max_length`` characters (the name cut to make room for its number: a phone's 40-character
    file name came back as players of 42, which a correction's /api/grid then refused: an attack)."""
    if len(read.tableaux) == 1:
        return [name]
    suffixes = [f"-{k + 1}" for k in range(len(read.tableaux))]
    return [name[:None if max_length is None else max_length - len(s)] + s for s in suffixes]


def quad_doc(quad) -> list[list[float]]:
    """A cell's corners as the answer gives them: photo pixels to a tenth."""
    return [[round(float(x), 1), round(float(y), 1)] for x, y in quad]


def read_to_dict(tab: TableauRead, extra_doubts: Sequence[str] = (), deck: str | None = None) -> ReadDoc:
    """What a tableau's read adds to its player in the answer (``extra_doubts``: the photo's;
    ``deck``: the deck that read it, ``PhotoRead.deck``)."""
    doc: ReadDoc = {
        "doubts": [*extra_doubts, *tab.doubts],
        "confidence": round(tab.confidence, 4),
        "cells": [
            [
                {
                    "type": cell.type.value if cell.type else None,
                    "confidence": round(cell.confidence, 4),
                    "runner_up": cell.runner_up,
                    "runner_up_confidence": round(cell.runner_up_confidence, 4),
                    "detected": cell.detected,
                    "doubts": cell.doubts,
                    "quad": quad_doc(cell.quad),
                    "unknown": cell.unknown,
                }
                for cell in tab.cells[r * 5 : (r + 1) * 5]
            ]
            for r in range(4)
        ],
        "left_out": [quad_doc(quad) for quad in tab.left_out],
    }
    if deck is not None:
        doc["deck"] = deck
    return doc


def score_reads(
    reads: Sequence[tuple[str, PhotoRead]],
    *,
    neutral: tuple[int, int] | None = None,
    bot: Tableau | None = None,
    others: Sequence[tuple[int, int]] | None = None,
    max_name: int | None = None,
) -> tuple[GameScore, list[ReadDoc]]:
    """Score read photos as one game. Returns the game and, per player, what the read adds
    (``game_to_dict(game, reads)`` is the answer); ``max_name``: see ``player_names``."""
    players: list[tuple[str, Tableau]] = []
    docs: list[ReadDoc] = []
    for name, read in reads:
        for player, tab in zip(player_names(name, read, max_name), read.tableaux):
            players.append((player, tab.tableau))
            doc = read_to_dict(tab, read.doubts, read.deck)
            doc["photo"] = name
            docs.append(doc)
    game = score_game(players, neutral=neutral, bot=bot, others=others)
    return game, docs
