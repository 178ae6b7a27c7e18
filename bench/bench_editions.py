"""A deck enrolled from one edition, read on photos of another (issue #14).

The real deck is printed in several languages: the same art, other names and rules text. A
player who is given a deck file by a friend (``ecoscore deck export`` / ``import``) may own
another edition. For each generated deck of the held-out seeds, the deck is enrolled from one
face per type of its first edition and read on photos of the same scenes (the same seeds, the
same layouts, light and camera) printed in its own edition and in another
(``datasets.deckgen.generate_deck(..., edition=1)``: the same art, other names and text lines).
Prints each split's exact tableaux, confident wrong ones and tableaux flagged for a check, and
the flips scene by scene.

    python bench/bench_editions.py [--normal 20 --hard 15] [--outcomes F.json]
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from bench_decks import reader_of, rendered
from stats import wilson

from ecoscore.datasets.deckgen import HELD_OUT_SEEDS, STYLES, generate_deck
from ecoscore.paths import data_dir
from ecoscore.vision.evaluate import evaluate
from ecoscore.vision.matcher import CardEmbedder, CardMatcher, References
from ecoscore.vision.pipeline import Reader

PHOTO_SEED = {"normal": 8000, "hard": 8500}  # + 10 per deck; no other bench renders from these


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--normal", type=int, default=20)
    parser.add_argument("--hard", type=int, default=15)
    parser.add_argument("--edition", type=int, default=1, help="the other edition read (1, 2, ...)")
    parser.add_argument("--outcomes", type=Path, help="write each tableau's outcome here, for bench/paired.py")
    args = parser.parse_args()
    root = data_dir() / "bench-editions"
    reader, embedder = Reader(), CardEmbedder()
    seeds = list(HELD_OUT_SEEDS)
    totals: dict = {}
    outcomes: dict = {}
    for i, style in enumerate(STYLES):
        own, other = generate_deck(seeds[i], style), generate_deck(seeds[i], style, edition=args.edition)
        refs = References.embed(own.name, embedder, {card: [f[0]] for card, f in own.faces.items()})
        deck_reader = reader_of(reader, CardMatcher(embedder, refs))
        for split, n in (("normal", args.normal), ("hard", args.hard)):
            if not n:
                continue
            for printed, deck in (("own", own), ("other", other)):
                ev = evaluate(deck_reader, rendered(deck, root, split, n, PHOTO_SEED[split] + 10 * i), progress=False)
                s = ev.summary()
                row = totals.setdefault(f"{split}/{printed}", {"exact": 0, "tableaux": 0, "confident_wrong": 0,
                                                                "flagged": 0, "refused_photos": 0})
                row["exact"] += ev.exact
                row["tableaux"] += ev.tableaux
                row["confident_wrong"] += ev.confident_wrong
                row["refused_photos"] += s["refused_photos"]
                row["flagged"] += ev.flagged
                outcomes[f"{own.name}/{split}/{printed}"] = ev.outcomes
                print(own.name, split, printed, f"{ev.exact}/{ev.tableaux}", "confident wrong", ev.confident_wrong,
                      flush=True)
    flips = {}
    for split in ("normal", "hard"):
        gained = lost = 0
        for key, own_outcomes in outcomes.items():
            if f"/{split}/own" not in key:
                continue
            other_outcomes = outcomes[key.replace("/own", "/other")]
            for tableau, right in own_outcomes.items():
                if tableau in other_outcomes and other_outcomes[tableau] != right:
                    gained, lost = gained + other_outcomes[tableau], lost + right
        flips[split] = {"other_edition_gained": gained, "other_edition_lost": lost}
    for row in totals.values():
        row["exact_rate"] = round(row["exact"] / max(1, row["tableaux"]), 4)
        row["ci95"] = [round(x, 4) for x in wilson(row["exact"], row["tableaux"])]
    report = {"splits": totals, "flips": flips}
    print(json.dumps(report, indent=2))
    if args.outcomes:
        args.outcomes.write_text(json.dumps(outcomes))


if __name__ == "__main__":
    main()
