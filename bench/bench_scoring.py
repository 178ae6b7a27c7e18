"""Tableaux scored per second on one core (a game of 4 players counts 4).

Scores full games (majorities, biodiversity, explanations, deck checks) of random legal
tableaux; prints the median of several runs and the floor from issue #2 (20,000/s).
    python bench/bench_scoring.py [--games 2000] [--runs 7]
"""
from __future__ import annotations

import argparse
import random
import statistics
import time

from ecoscore.scoring import CardType, Tableau, score_game

FLOOR = 20_000


def random_games(n: int, players: int, seed: int = 0) -> list[list[tuple[str, Tableau]]]:
    rng = random.Random(seed)
    deck = [card for card in CardType for _ in range(card.deck_count)]
    games = []
    for _ in range(n):
        rng.shuffle(deck)
        games.append([(f"p{k}", Tableau(deck[20 * k : 20 * (k + 1)])) for k in range(players)])
    return games


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    games = random_games(args.games, args.players)
    wall, cpu = [], []
    n = args.games * args.players
    for _ in range(args.runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        for game in games:
            score_game(game)
        wall.append(n / (time.perf_counter() - start))
        cpu.append(n / (time.process_time() - start_cpu))
    # CPU time is what one core delivers; wall time also counts whatever else the machine runs.
    median = statistics.median(cpu)
    print(f"scoring: {median:,.0f} tableaux/s per core of CPU time (median of {args.runs} runs of {args.games} "
          f"{args.players}-player games; wall clock {statistics.median(wall):,.0f}/s); "
          f"floor {FLOOR:,}: {'PASS' if median >= FLOOR else 'FAIL'}")


if __name__ == "__main__":
    main()
