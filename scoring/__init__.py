"""Exact Ecosystem scoring with the reason for every point. Pure Python, no dependencies."""
from .cards import DECK_COUNTS, SCORE_PAD_ORDER, CardType, parse_card
from .game import GameScore, PlayerScore, biodiversity_points, score_game, score_tableau
from .gridfile import GridError, format_text, parse_grid, parse_json, parse_text, to_json
from .report import GameDoc, PlayerDoc, ReadDoc, explain, game_to_dict, score_pad
from .tableau import COLS, ROWS, Tableau

__all__ = [
    "COLS", "DECK_COUNTS", "ROWS", "SCORE_PAD_ORDER", "CardType", "GameDoc", "GameScore", "GridError",
    "PlayerDoc", "PlayerScore", "ReadDoc", "Tableau", "biodiversity_points", "explain", "format_text", "game_to_dict",
    "parse_card", "parse_grid", "parse_json", "parse_text", "score_game", "score_pad",
    "score_tableau", "to_json",
]
