"""The reader on photos from the second renderer (bench/pbr_render.py, Mitsuba 3): the stand-in
by its classifier, any other deck by the matcher with the deck enrolled from one flat face per
type (as from scans). Prints, set by set, whole tableaux read exactly (with a Wilson 95 %
interval), refused photos, confident wrong tableaux and phantom tableaux, and why the others were
missed; the same figures as bench_pipeline.py and bench_decks.py give on our own renderer's sets.

    python bench/bench_pbr.py data/pbr/standin data/pbr/standin-steep --deck-set data/pbr/framed
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from stats import wilson  # bench/ is on the path when a bench runs as a script

from ecoscore.datasets.deck import load_deck
from ecoscore.datasets.truth import fully_visible, truth_tableau
from ecoscore.scoring import CardType
from ecoscore.truthfile import read_truth, truth_files
from ecoscore.vision.enrol import EnrolError, from_photo
from ecoscore.vision.evaluate import evaluate
from ecoscore.vision.matcher import CardEmbedder, CardMatcher, References
from ecoscore.vision.models import CardClassifier
from ecoscore.vision.pipeline import Reader


def figures(ev) -> dict:
    s = ev.summary()
    lo, hi = wilson(ev.exact, ev.tableaux)
    return {"images": s["images"], "tableaux": s["tableaux"], "exact": ev.exact,
            "exact_rate": round(s["tableau_exact_rate"], 4), "ci95": [round(lo, 4), round(hi, 4)],
            "refused_photos": s["refused_photos"], "confident_wrong": ev.confident_wrong,
            "phantom_tableaux": s["phantom_tableaux"], "flagged_rate": round(s["flagged_rate"], 4),
            "not_exact_because": s["not_exact_because"], "not_exact_images": s["not_exact_images"]}


def photo_references(reader: Reader, embedder: CardEmbedder, folder: Path, name: str,
                     faces: dict | None = None) -> tuple[References, set[str]]:
    """A deck enrolled as a player without scans enrols it: photos of one tableau each, with
    their grids, added in turn until every type has a reference (a photo refused is passed by,
    as the player would take another); ``faces``: beside these scans (every type then has one,
    and the photos are the first two that enrol). The photos used, by stem, are not read after."""
    crops: dict = {card: list(images) for card, images in (faces or {}).items()}
    photos_wanted = 2 if faces else None
    used: set[str] = set()
    for path in truth_files(folder):
        truth = read_truth(path)
        if len(truth["tableaux"]) != 1 or not fully_visible(truth["tableaux"][0], truth["width"], truth["height"]):
            continue
        try:
            taken = from_photo(reader, embedder, (folder / truth["image"]).read_bytes(),
                               truth_tableau(truth["tableaux"][0]), path.stem)
        except EnrolError:
            continue
        used.add(path.stem)
        for card, images in taken.crops.items():
            crops.setdefault(card, []).extend(images)
        if (len(used) == photos_wanted) if photos_wanted else all(crops.get(card) for card in CardType):
            return References.embed(name, embedder, crops), used
    raise ValueError(f"the set's {len(used)} photos of one tableau that enrol do not show every type")


def set_name(folder: Path, folders: list[Path]) -> str:
    """A set's name in the report: its folder's, or with its parent's where two sets share it
    (``data/pbr-unseen/icon-…/steep`` and ``…/texture-…/steep``: else the last one read hid the others)."""
    return folder.name if [f.name for f in folders].count(folder.name) == 1 else f"{folder.parent.name}/{folder.name}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("standin", type=Path, nargs="*", help="sets of the stand-in deck, read by the classifier")
    parser.add_argument("--deck-set", type=Path, action="append", default=[],
                        help="a set of another deck (its truth names the deck's folder), read by the matcher")
    parser.add_argument("--deck", help="the deck of the --deck-set sets, if not the one their truth names")
    parser.add_argument("--photo-enrolled", nargs="?", const="photos", choices=["photos", "both"],
                        help="also read each --deck-set with its deck enrolled from the set's own first photos of one "
                        "tableau (as a player adds photos with their grids until every type is shown), the rest read; "
                        "'both': those photos' cards beside one flat face per type (scans and photos, as the README "
                        "advises)")
    parser.add_argument("--outcomes", type=Path, help="write each tableau's outcome here, for bench/paired.py")
    parser.add_argument("--classifier", type=Path, help="a candidate classifier (.onnx, its sidecar and its partner "
                        "beside it) to read the stand-in's sets with instead of the shipped one")
    args = parser.parse_args()
    reader = Reader(classifier=CardClassifier(args.classifier) if args.classifier else None)
    report, outcomes = {}, {}
    folders = [*args.standin, *args.deck_set]
    for folder in args.standin:
        ev = evaluate(reader, folder, progress=False)
        key = set_name(folder, folders)
        report[key] = figures(ev)
        outcomes[key] = ev.outcomes
        print(key, json.dumps({k: report[key][k] for k in ("exact", "tableaux", "exact_rate")}), flush=True)
    embedder = CardEmbedder()
    for folder in args.deck_set:
        deck = load_deck(args.deck or read_truth(truth_files(folder)[0])["deck_path"])
        faces = {card: [f[0]] for card, f in deck.faces.items()}  # one reference a type
        matcher = CardMatcher(embedder, References.embed(deck.name, embedder, faces))
        ev = evaluate(Reader(reader.finder, matcher), folder, progress=False)
        key = set_name(folder, folders)
        report[key] = figures(ev)
        outcomes[key] = ev.outcomes
        print(key, json.dumps({k: report[key][k] for k in ("exact", "tableaux", "exact_rate")}), flush=True)
        if args.photo_enrolled:
            name = f"{key}/photo_enrolled"
            try:
                refs, used = photo_references(reader, embedder, folder, deck.name,
                                              faces if args.photo_enrolled == "both" else None)
            except ValueError as err:
                report[name] = {"refused": str(err)}
                print(name, "refused:", err, flush=True)
                continue
            ev = evaluate(Reader(reader.finder, CardMatcher(embedder, refs)), folder, progress=False, skip=used)
            report[name] = {**figures(ev), "enrolled_from": sorted(used)}
            outcomes[name] = ev.outcomes
            print(name, json.dumps({k: report[name][k] for k in ("exact", "tableaux", "exact_rate", "enrolled_from")}),
                  flush=True)
    deck_sets = [report[set_name(f, folders)] for f in args.deck_set]
    if len(deck_sets) > 1:  # the sets of other decks pooled, as bench_decks.py pools its decks
        exact, tableaux = sum(r["exact"] for r in deck_sets), sum(r["tableaux"] for r in deck_sets)
        report["deck_sets_pooled"] = {"exact": exact, "tableaux": tableaux, "exact_rate": round(exact / max(1, tableaux), 4),
                                      "ci95": [round(x, 4) for x in wilson(exact, tableaux)],
                                      **{k: sum(r[k] for r in deck_sets)
                                         for k in ("refused_photos", "confident_wrong", "phantom_tableaux")}}
    print(json.dumps(report, indent=2))
    if args.outcomes:
        args.outcomes.write_text(json.dumps(outcomes), encoding="utf-8")


if __name__ == "__main__":
    main()
