"""Choose the matcher's confidence threshold (the reader's ``min_confidence`` with a deck's
matcher) on decks of its own: held-out generator seeds the benchmark never uses, and a mosaic
deck, each enrolled from one face per type and read on its own normal and hard photos.
    python bench/tune_matcher.py
"""
from __future__ import annotations

from bench_decks import rendered  # bench/ is on the path when a bench runs as a script
from render_bench_sets import tuning_decks
from tune_confidence import collect, report

from ecoscore.paths import data_dir
from ecoscore.vision.matcher import CardEmbedder, CardMatcher, References
from ecoscore.vision.pipeline import Reader


def main() -> None:
    root = data_dir() / "tune-decks"
    embedder = CardEmbedder()
    finder = Reader().finder
    trained = embedder.not_ours
    # The "not ours" level is swept too: a cell below it is always a doubt, so a higher level
    # trades exact reads for caution; the trained value is where training put the line.
    for level in sorted({trained, 0.35, 0.40, 0.45}):
        embedder.not_ours = level
        rows = []
        for i, deck in enumerate(tuning_decks()):
            refs = References.embed(deck.name, embedder, {card: [f[0]] for card, f in deck.faces.items()})
            reader = Reader(finder, CardMatcher(embedder, refs, min_confidence=0.0))  # only the other doubts
            for split, n in (("normal", 20), ("hard", 12)):
                rows += collect(reader, rendered(deck, root, split, n, 8000 + 10 * i))
        print(f"not-ours level {level:.2f}{' (trained)' if level == trained else ''}:")
        report(rows)


if __name__ == "__main__":
    main()
