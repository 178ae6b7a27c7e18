"""Reading decks no training run has seen (issue #14), and the stand-in through the matcher.

For each unseen deck (held-out seeds of the generator, and decks drawn in other styles by
bench/other_decks.py), rendered photos of its own are read with the deck enrolled
  - from one flat face per type (as from scans), and
  - from one photo of one of its tableaux (holding all 11 types) with its grid;
its photos are normal, hard, and steep (shot across the table, as players do: no floor of the
issue's, printed under "without_floor"; so are the hard and steep photos read with the deck
enrolled from the photo);
then read against another deck's references (wrong deck) and on tableaux of another game's
cards (foreign), where nothing may come out confidently wrong. Prints every floor.

    python bench/bench_decks.py [--normal 40 --hard 30 --steep 30] [--standin data/test/normal data/test/hard]
                                [--timing data/test/12mp] [--more-styles 6]
"""
from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from other_decks import mosaic_deck, silhouette_deck  # bench/ is on the path when a bench runs as a script
from stats import wilson

from ecoscore.datasets.deck import Deck
from ecoscore.datasets.deckgen import HELD_OUT_SEEDS, STYLES, generate_deck, write_deck
from ecoscore.datasets.scene import SceneParams, hard_params, render_scene, steep_params
from ecoscore.datasets.synth import synthesize
from ecoscore.datasets.truth import truth_tableau
from ecoscore.paths import data_dir
from ecoscore.scoring import CardType
from ecoscore.vision.deckstore import DeckStore
from ecoscore.vision.enrol import EnrolError, from_photo
from ecoscore.vision.evaluate import evaluate
from ecoscore.vision.lattice_refiner import shipped_refiner
from ecoscore.vision.matcher import CardEmbedder, CardMatcher, References
from ecoscore.vision.pipeline import Reader

FLOORS = {"normal": 0.97, "hard": 0.90, "photo_enrolled_normal": 0.95}
# Measured without a floor of its own (the floors are on normal and hard photos): a player's
# own deck shot across the table (25-55°, sleeves, lamps, cloths, neighbours), the way issue #15
# says players take photos; and the hard and steep photos read with the deck enrolled from one
# photo of a tableau, as a player without scans of their cards enrols it. Read and printed beside
# the floors, so no one mistakes them for all.
UNFLOORED = ("steep", "photo_enrolled_hard", "photo_enrolled_steep")
SPLIT_SEED = {"normal": 5000, "hard": 5000, "steep": 5500}  # + 10 per deck
# More decks of the two styles the generator does not draw (``--more-styles``), from seeds no bench
# read before 2026-12-04 (yet not unseen by every choice: silhouette_deck(15) is a test's deck, and
# the deck metric's dark-deck rule was chosen on a scan of silhouette seeds): one deck of a style is
# one draw of it, and these silhouettes read far worse than silhouette-1 does. Fewer photos each
# (normal, hard); pooled by style, each deck's rate beside, without a floor.
MORE_STYLES_SEEDS = range(10, 16)
MORE_STYLES_PHOTOS = {"normal": 16, "hard": 10}


def reader_of(reader: Reader, namer) -> Reader:
    """``reader`` naming cells with ``namer``: its finder, its lattice refiner or none, and its dim look or none."""
    return Reader(reader.finder, namer, lattice_refiner=reader.lattice_refiner,
                  refine_lattice=reader.lattice_refiner is not None, dim_look=reader.dim_look)


def unseen_decks() -> list[Deck]:
    seeds = list(HELD_OUT_SEEDS)
    generated = [generate_deck(seeds[i], style) for i, style in enumerate(STYLES)]
    return [*generated, mosaic_deck(1), silhouette_deck(1)]


def more_styles(reader: Reader, embedder: CardEmbedder, root: Path, n_decks: int, outcomes: dict, metric: bool = True) -> dict:
    """Each off-generator style's ``n_decks`` more decks read from one face per type: exact
    tableaux pooled by style and split (``MORE_STYLES_SEEDS``)."""
    pooled: dict = {}
    for style, make in (("mosaic", mosaic_deck), ("silhouette", silhouette_deck)):
        for seed in MORE_STYLES_SEEDS[:n_decks]:
            deck = make(seed)
            refs = References.embed(deck.name, embedder, {card: [f[0]] for card, f in deck.faces.items()}, metric=metric)
            deck_reader = reader_of(reader, CardMatcher(embedder, refs))
            for split, n in MORE_STYLES_PHOTOS.items():
                photo_seed = 12000 + 100 * seed + (50 if style == "silhouette" else 0)
                ev = evaluate(deck_reader, rendered(deck, root, split, n, photo_seed), progress=False)
                outcomes[f"{deck.name}/{split}"] = ev.outcomes
                row = pooled.setdefault(f"{style}_{split}", {"exact": 0, "tableaux": 0, "confident_wrong": 0,
                                                             "refused_photos": 0, "per_deck": {}})
                row["exact"] += ev.exact
                row["tableaux"] += ev.tableaux
                row["confident_wrong"] += ev.confident_wrong
                row["refused_photos"] += ev.summary()["refused_photos"]
                row["per_deck"][deck.name] = round(ev.exact / max(1, ev.tableaux), 4)
    for row in pooled.values():
        row["exact_rate"] = round(row["exact"] / max(1, row["tableaux"]), 4)
        row["ci95"] = [round(x, 4) for x in wilson(row["exact"], row["tableaux"])]
    return pooled


def rendered(deck: Deck, root: Path, split: str, n: int, seed: int) -> Path:
    folder = root / deck.name / split
    if not (folder / "truth").is_dir() or len(list((folder / "truth").glob("*.json"))) < n:
        deck_dir = write_deck(deck, root / deck.name / "deck")
        params = {"normal": SceneParams(long_side=1600), "hard": hard_params(long_side=1600),
                  "steep": steep_params(long_side=1600),
                  "foreign": SceneParams(long_side=1600, p_random_faces=1.0, p_multi=0.0)}[split]
        synthesize(deck_dir, n, folder, seed=seed, params=params, progress=False)
    return folder


def enrolment_photo(deck: Deck, seed: int) -> tuple[bytes, object]:
    """A photo of one whole tableau of ``deck`` holding all 11 types, and its grid."""
    for k in range(200):
        scene = render_scene(deck, (seed, k), SceneParams(long_side=1600, p_multi=0.0, p_cut_off=0.0, p_hole=0.0))
        tab = scene.truth["tableaux"][0]
        if len({c["type"] for c in tab["cells"]} - {None}) == len(CardType):
            return scene.jpeg, truth_tableau(tab)
    raise RuntimeError(f"no photo of {deck.name} holds all 11 types")


def summary(ev) -> dict:
    s = ev.summary()
    return {k: s[k] for k in ("images", "tableaux", "tableau_exact_rate", "confident_wrong_rate", "flagged_rate",
                              "refused_photos", "not_exact_because")} | {"confident_wrong": ev.confident_wrong}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--normal", type=int, default=40)
    parser.add_argument("--hard", type=int, default=30)
    parser.add_argument("--steep", type=int, default=30, help="photos a deck shot across the table (0: none)")
    parser.add_argument("--foreign", type=int, default=8)
    parser.add_argument("--standin", type=Path, nargs="*", default=[])
    parser.add_argument("--timing", type=Path)
    parser.add_argument("--no-deck-metric", action="store_true", help="name by nearest reference, without each deck's "
                                                                       "own metric (vision/deck_metric.py)")
    parser.add_argument("--outcomes", type=Path, help="write each tableau's outcome here, for bench/paired.py")
    parser.add_argument("--no-lattice-refiner", action="store_true", help="cut cells on the lattice fitted on the "
                        "boxes alone (vision/lattice_refiner.py off): what the refiner buys")
    parser.add_argument("--no-wide-lattice", action="store_true", help="refine each lattice with the fine refiner "
                        "alone, unchecked by the wide one (models/lattice-wide.onnx): what the wide one buys")
    parser.add_argument("--no-dim-look", action="store_true", help="look at a dim photo only as it is, not "
                        "stretched too (vision/dim_light.py): what the dim look buys")
    parser.add_argument("--more-styles", type=int, default=0, choices=range(len(MORE_STYLES_SEEDS) + 1), metavar="N",
                        help="also N more decks of each style the generator does not draw (0 to "
                             f"{len(MORE_STYLES_SEEDS)}), pooled by style without a floor")
    args = parser.parse_args()
    outcomes: dict[str, dict[str, bool]] = {}
    root = data_dir() / "bench-decks"
    reader = Reader(refine_lattice=not args.no_lattice_refiner,
                    lattice_refiner=shipped_refiner(wide=False) if args.no_wide_lattice else None,
                    dim_look=not args.no_dim_look)
    embedder = CardEmbedder()
    report: dict = {"decks": {}}
    decks = unseen_decks()
    refs_by_deck = {}
    for i, deck in enumerate(decks):
        row: dict = {}
        t0 = time.perf_counter()
        faces = {card: [f[0]] for card, f in deck.faces.items()}  # one reference per type
        refs = References.embed(deck.name, embedder, faces, metric=not args.no_deck_metric)
        row["enrol_faces_s"] = round(time.perf_counter() - t0, 2)
        refs_by_deck[deck.name] = refs
        matcher = CardMatcher(embedder, refs)
        for split, n in (("normal", args.normal), ("hard", args.hard), ("steep", args.steep)):
            if not n:
                continue
            ev = evaluate(reader_of(reader, matcher), rendered(deck, root, split, n, SPLIT_SEED[split] + 10 * i),
                          progress=False)
            row[split] = summary(ev)
            outcomes[f"{deck.name}/{split}"] = ev.outcomes
        data, grid = enrolment_photo(deck, 7000 + i)
        t0 = time.perf_counter()
        try:
            crops = from_photo(reader, embedder, data, grid, deck.name).crops
        except EnrolError as err:  # refused with a reason: a result, reported as such
            row["photo_enrolment_refused"] = str(err)
        else:
            photo_refs = References.embed(deck.name, embedder, crops, metric=not args.no_deck_metric)
            row["enrol_photo_s"] = round(time.perf_counter() - t0, 2)
            photo_enrolled = reader_of(reader, CardMatcher(embedder, photo_refs))
            for split, n in (("normal", args.normal), ("hard", args.hard), ("steep", args.steep)):
                if not n:
                    continue
                ev = evaluate(photo_enrolled, root / deck.name / split, progress=False)
                row[f"photo_enrolled_{split}"] = summary(ev)
                outcomes[f"{deck.name}/photo_enrolled_{split}"] = ev.outcomes
        report["decks"][deck.name] = row
        print(deck.name, json.dumps({k: (v["tableau_exact_rate"], v["confident_wrong"]) if isinstance(v, dict) else v
                                     for k, v in row.items()}), flush=True)
    # Wrong deck: each deck's normal photos read with the next deck's references.
    wrong = []
    for deck, other in zip(decks, decks[1:] + decks[:1]):
        ev = evaluate(reader_of(reader, CardMatcher(embedder, refs_by_deck[other.name])),
                      root / deck.name / "normal", limit=20, progress=False)
        wrong.append(ev.confident_wrong)
    report["wrong_deck_confident_wrong"] = sum(wrong)
    # Foreign cards: tableaux of another game's cards, read with the deck of the scene.
    foreign = []
    for i, deck in enumerate(decks[:3]):
        ev = evaluate(reader_of(reader, CardMatcher(embedder, refs_by_deck[deck.name])),
                      rendered(deck, root, "foreign", args.foreign, 6000 + i), progress=False)
        foreign.append(ev.confident_wrong)
    report["foreign_cards_confident_wrong"] = sum(foreign)
    store = DeckStore(root / "store")
    standin = CardMatcher(embedder, store.references("standin", embedder))
    for folder in args.standin:
        ev = evaluate(reader_of(reader, standin), folder, progress=False)
        report[f"standin_{folder.name}"] = summary(ev)
    if args.timing:
        totals = []
        paths = sorted((args.timing / "images").glob("*.jpg"))
        timed = reader_of(reader, standin)
        for k in range(4):
            for path in paths:
                t0 = time.perf_counter()
                timed.read(path.read_bytes())
                if k:
                    totals.append((time.perf_counter() - t0) * 1e3)
        report["timing_12mp_p50_ms"] = round(statistics.median(totals), 1)
    rows = report["decks"].values()
    def pooled(split):  # tableaux read exactly over every deck, and the worst deck
        done = [r[split] for r in rows if split in r]
        exact = sum(round(d["tableau_exact_rate"] * d["tableaux"]) for d in done)
        tableaux = sum(d["tableaux"] for d in done)
        return {"pooled": round(exact / max(1, tableaux), 4), "ci95": [round(x, 4) for x in wilson(exact, tableaux)],
                "worst_deck": min(d["tableau_exact_rate"] for d in done), "decks": len(done)}

    # (a split not read, --normal 0: no figure for its floor; the enrolment's are still given)
    report["floors"] = {split: pooled(split) | {"floor": floor} for split, floor in FLOORS.items()
                        if any(split in r for r in rows)} | {
        "confident_wrong_unseen": sum(r[s]["confident_wrong"] for r in rows for s in (*FLOORS, *UNFLOORED) if s in r),
        "photo_enrolments_refused": sum("photo_enrolment_refused" in r for r in rows),
        "enrol_max_s": max(max(r["enrol_faces_s"], r.get("enrol_photo_s", 0)) for r in rows)}
    report["without_floor"] = {split: pooled(split) | {"refused_photos": sum(r[split]["refused_photos"] for r in rows if split in r)}
                               for split in UNFLOORED if any(split in r for r in rows)}
    if args.more_styles:
        report["without_floor"]["more_styles"] = more_styles(reader, embedder, root, args.more_styles, outcomes,
                                                              metric=not args.no_deck_metric)
    print(json.dumps(report, indent=2))
    if args.outcomes:
        args.outcomes.write_text(json.dumps(outcomes), encoding="utf-8")


if __name__ == "__main__":
    main()
