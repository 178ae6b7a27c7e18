"""Present a scored game: the JSON document and the printed score pad."""
from __future__ import annotations

from .cards import SCORE_PAD_ORDER, CardType
from .game import GameScore, Majority, PlayerScore
from .gridfile import to_json
from .tableau import COLS, cell_at


def _cell(index: int) -> list[int]:
    return list(divmod(index, COLS))


def _majority(m: Majority) -> dict:
    return {"value": m.value, "place": m.place, "points": m.points, "provisional": m.provisional}


def player_to_dict(p: PlayerScore) -> dict:
    return {
        "name": p.name,
        "bot": p.bot,
        "cards": {card.value: p.sheet[card] for card in SCORE_PAD_ORDER},
        "biodiversity": p.biodiversity,
        "gaps": [card.value for card in p.gaps],
        "total": p.total,
        "grid": to_json(p.tableau),
        "incomplete": p.incomplete,
        "empty_cells": [_cell(i) for i in p.tableau.empty_cells()],
        "majorities": {"stream": _majority(p.stream), "wolf": _majority(p.wolf)},
        "explanation": {
            "cards": [
                {
                    "cell": _cell(c.cell),
                    "type": c.type.value,
                    "points": c.points,
                    "reason": c.reason,
                    "because_of": [_cell(i) for i in c.because_of],
                }
                for c in p.cards
            ],
            "groups": [
                {"type": g.type.value, "cells": [_cell(i) for i in g.cells], "points": g.points, "reason": g.reason}
                for g in p.groups
            ],
        },
        "deck_issues": [str(issue) for issue in p.deck_issues],
    }


def game_to_dict(game: GameScore, extras: list[dict] | None = None) -> dict:
    """The JSON document of ``ecoscore grid --json`` (cells are [row, col], 0-based).

    ``extras[k]`` is merged into player k: what a photo read adds (grid confidences, doubts ...)."""
    players = [player_to_dict(p) for p in game.players]
    for player, fields in zip(players, extras or []):
        player.update(fields)
    return {
        "players": players,
        "winners": game.winners,
        "provisional_majorities": game.provisional,
        "neutral": {"streams": game.neutral[0], "wolves": game.neutral[1]} if game.neutral else None,
        "others": [{"largest_stream": s, "wolves": w} for s, w in game.others],
        "solo": {"margin": game.solo.margin, "outcome": game.solo.outcome} if game.solo else None,
        "deck_issues": [str(issue) for issue in game.deck_issues],
    }


def score_pad(game: GameScore) -> str:
    """The paper score pad as a text table: one column per player, 11 rows + biodiversity + total."""
    names = [p.name for p in game.players]
    label_width = max(len("biodiversity"), *(len(c.value) for c in CardType))
    col_width = max(6, *(len(n) for n in names))

    def row(label: str, values) -> str:
        return label.ljust(label_width) + "".join(str(v).rjust(col_width + 2) for v in values)

    lines = [row("", names), "-" * (label_width + (col_width + 2) * len(names))]
    for card in SCORE_PAD_ORDER:
        marks = []
        for p in game.players:
            m = p.stream if card is CardType.STREAM else p.wolf if card is CardType.WOLF else None
            marks.append(f"{p.sheet[card]}{'*' if m and m.provisional and m.points else ''}")
        lines.append(row(card.value, marks))
    lines.append(row("biodiversity", ["-" if p.biodiversity is None else p.biodiversity for p in game.players]))
    lines.append("-" * (label_width + (col_width + 2) * len(names)))
    lines.append(row("total", [p.total for p in game.players]))
    lines.append("")
    lines.append(f"winner{'s' if len(game.winners) > 1 else ''}: {', '.join(game.winners)}")
    if game.solo:
        verdict = game.solo.outcome if game.solo.outcome != "lost" else "lost (a win needs 30 or more)"
        lines.append(f"solo: beat the bot by {game.solo.margin}: {verdict}")
    if game.provisional:
        lines.append("* provisional: majorities scored without the other players of the game "
                     "(give --others S:W,... to compare)")
    for p in game.players:
        if p.incomplete:
            lines.append(f"note: {p.name}'s tableau is incomplete ({len(p.tableau.empty_cells())} empty cells)")
    for issue in game.deck_issues:
        lines.append(f"warning: {issue}")
    return "\n".join(lines) + "\n"


def explain(player: PlayerScore) -> str:
    """Every point of one player, card by card and group by group."""
    lines = [f"{player.name}:"]
    for c in player.cards:
        r, col = divmod(c.cell, COLS)
        lines.append(f"  {c.type.value:<10} {cell_at(r, col)}: {c.points:>3}  {c.reason}")
    for g in player.groups:
        size = f"{len(g.cells)} card{'s' if len(g.cells) > 1 else ''}"
        lines.append(f"  {g.type.value:<10} {size:<13}: {g.points:>3}  {g.reason}")
    if player.biodiversity is not None:
        lines.append(
            f"  biodiversity: {len(player.gaps)} types scored nothing "
            f"({', '.join(c.value for c in player.gaps) or 'none'}): {player.biodiversity:+d}"
        )
    return "\n".join(lines) + "\n"
