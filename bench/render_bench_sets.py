"""Render the photos bench_decks.py and tune_matcher.py read (cached in the data directory):
the tuning decks first, then the unseen decks.
    python bench/render_bench_sets.py"""
from __future__ import annotations

from bench_decks import rendered, unseen_decks
from other_decks import mosaic_deck, silhouette_deck

from ecoscore.datasets.deckgen import HELD_OUT_SEEDS, STYLES, generate_deck
from ecoscore.paths import data_dir


def tuning_decks(more: bool = False):
    """The decks candidates are chosen on: one of each generated style and of each other style;
    ``more``: a second seven as well (seven decks tell a real change from one deck's luck poorly:
    three candidates of 2026-11-25 gained on the first seven and lost held out)."""
    decks = [generate_deck(HELD_OUT_SEEDS[100 + i], style) for i, style in enumerate(STYLES)] + [mosaic_deck(2),
                                                                                                silhouette_deck(2)]
    if more:
        decks += [generate_deck(HELD_OUT_SEEDS[200 + i], style) for i, style in enumerate(STYLES)] + [
            mosaic_deck(3), silhouette_deck(3)]
    return decks


def main() -> None:
    for i, deck in enumerate(tuning_decks()):
        for split, n in (("normal", 20), ("hard", 12)):
            rendered(deck, data_dir() / "tune-decks", split, n, 8000 + 10 * i)
    print("tuning decks rendered", flush=True)
    for i, deck in enumerate(unseen_decks()):
        for split, n in (("normal", 40), ("hard", 30)):
            rendered(deck, data_dir() / "bench-decks", split, n, 5000 + 10 * i)
        if i < 3:
            rendered(deck, data_dir() / "bench-decks", "foreign", 8, 6000 + i)
        print(deck.name, "rendered", flush=True)


if __name__ == "__main__":
    main()
