"""Decks whose art is photographs (bench/photo_art_decks.py), read as bench_decks.py reads the
unseen decks: enrolled from one flat face per type, and from one photo of a tableau; photos of
their own, normal, hard and steep. No floor of the issue's is on them (they are not the issue's
benchmark decks); they ask whether the matcher, trained on drawn decks, holds for detailed,
photographic art, as a real deck's is.

    python bench/photo_art_decks.py fetch
    python bench/bench_photo_art.py [--normal 30 --hard 20 --steep 20] [--outcomes F]
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from bench_decks import enrolment_photo, rendered, summary  # bench/ is on the path when a bench runs as a script
from photo_art_decks import DESIGNS, photo_art_deck

from ecoscore.paths import data_dir
from ecoscore.vision.enrol import EnrolError, from_photo
from ecoscore.vision.evaluate import evaluate
from ecoscore.vision.matcher import CardEmbedder, CardMatcher, References
from ecoscore.vision.pipeline import Reader

SPLIT_SEED = {"normal": 6100, "hard": 6100, "steep": 6600}  # + 10 per deck; apart from bench_decks' seeds


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--normal", type=int, default=30)
    parser.add_argument("--hard", type=int, default=20)
    parser.add_argument("--steep", type=int, default=20)
    parser.add_argument("--outcomes", type=Path, help="each tableau's outcome, for bench/paired.py")
    args = parser.parse_args()
    root, reader, embedder = data_dir() / "bench-photo-art", Reader(), CardEmbedder()
    outcomes, report = {}, {}
    splits = [(s, n) for s, n in (("normal", args.normal), ("hard", args.hard), ("steep", args.steep)) if n]
    for i, design in enumerate(DESIGNS):
        deck = photo_art_deck(design)
        refs = References.embed(deck.name, embedder, {card: [f[0]] for card, f in deck.faces.items()})
        readers = {"faces": Reader(reader.finder, CardMatcher(embedder, refs))}
        data, grid = enrolment_photo(deck, 7100 + i)
        try:
            crops = from_photo(reader, embedder, data, grid, deck.name).crops
        except EnrolError as err:
            report[f"{deck.name}/photo_enrolment_refused"] = str(err)
        else:
            readers["photo"] = Reader(reader.finder, CardMatcher(embedder, References.embed(deck.name, embedder, crops)))
        for split, n in splits:
            folder = rendered(deck, root, split, n, SPLIT_SEED[split] + 10 * i)
            for how, rd in readers.items():
                ev = evaluate(rd, folder, progress=False)
                key = f"{deck.name}/{split}/{how}"
                report[key], outcomes[key] = summary(ev), ev.outcomes
                s = report[key]
                print(f"{key:32s} exact {s['tableau_exact_rate']:.3f} of {s['tableaux']}  confident wrong "
                      f"{s['confident_wrong']}  refused {s['refused_photos']}  {json.dumps(s['not_exact_because'])}",
                      flush=True)
    if args.outcomes:
        args.outcomes.write_text(json.dumps(outcomes))
    print(json.dumps(report, indent=1, default=str))


if __name__ == "__main__":
    main()
