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
