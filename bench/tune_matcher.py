"""Choose the matcher's confidence threshold (the reader's ``min_confidence`` with a deck's
matcher) on decks of its own: held-out generator seeds the benchmark never uses, and a mosaic
deck, each enrolled from one face per type and read on its own normal and hard photos.
    python bench/tune_matcher.py
"""
from __future__ import annotations

from bench_decks import rendered  # bench/ is on the path when a bench runs as a script
from other_decks import mosaic_deck
from tune_confidence import collect, report

from ecoscore.datasets.deckgen import HELD_OUT_SEEDS, STYLES, generate_deck
from ecoscore.paths import data_dir
from ecoscore.vision.matcher import CardEmbedder, CardMatcher, References
from ecoscore.vision.pipeline import Reader


def main() -> None:
    root = data_dir() / "tune-decks"
    embedder = CardEmbedder()
    finder = Reader().finder
    decks = [generate_deck(HELD_OUT_SEEDS[100 + i], style) for i, style in enumerate(STYLES)] + [mosaic_deck(2)]
    rows = []
    for i, deck in enumerate(decks):
        refs = References.embed(deck.name, embedder, {card: [f[0]] for card, f in deck.faces.items()})
        reader = Reader(finder, CardMatcher(embedder, refs), min_confidence=0.0)
        for split, n in (("normal", 30), ("hard", 20)):
            rows += collect(reader, rendered(deck, root, split, n, 8000 + 10 * i))
    report(rows)


if __name__ == "__main__":
    main()
