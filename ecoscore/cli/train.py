"""`ecoscore train`: train the card finder, its corner refiner, the lattice refiner, the classifier or the matcher
(the train extra)."""
from __future__ import annotations

import argparse
import importlib.util

from .common import BadInput

# The train extra. Without it a run rendered its photos first and then stopped on a traceback
# (a runtime-only install: `scripts/serve.sh`'s).
TRAINING_PACKAGES = ("torch", "ultralytics")


def run(args: argparse.Namespace) -> int:
    missing = [name for name in TRAINING_PACKAGES if importlib.util.find_spec(name) is None]
    if missing:
        raise BadInput(f"training needs the train extra ({' and '.join(missing)} not installed): "
                       "scripts/setup.sh test installs it")
    from ecoscore.datasets.deck import DeckError, load_deck
    from ecoscore.vision import train_matcher  # no torch at import: only its training functions need it

    if args.model in train_matcher.STAGES:  # from the shipped matcher
        stage = train_matcher.STAGES[args.model]()
        path = train_matcher.train_covered(threads=max(args.threads, 2), ship=not args.no_ship, covered=stage,
                                           run_name=args.model)
        print(f"exported {path}")
        return 0
    if args.model in ("matcher", "matcher-off-cuts"):  # trained on many generated decks, not on one: no --deck
        path = train_matcher.train(threads=max(args.threads, 2), ship=not args.no_ship,
                                   off_cuts=args.model == "matcher-off-cuts")
        print(f"exported {path}")
        return 0
    from ecoscore.vision import train_corners, train_lattice  # no torch at import either

    # The refiners (the corner refiner, the lattice refiners; candidates beside them): trained on
    # generated decks of every style, not on one: no --deck.
    for refiners in (train_corners, train_lattice):
        if args.model in refiners.RECIPES:
            from dataclasses import replace

            recipe = refiners.RECIPES[args.model]
            if args.epochs:
                recipe = replace(recipe, epochs=args.epochs)
            path = refiners.train(threads=max(args.threads, 2), ship=not args.no_ship, recipe=recipe)
            print(f"exported {path}")
            return 0
    from ecoscore.vision.train import RECIPES, train

    if args.model not in RECIPES:
        raise BadInput(f"no recipe {args.model!r}: choose one of {', '.join(RECIPES)}")
    try:
        load_deck(args.deck)
    except DeckError as err:
        raise BadInput(str(err)) from None
    path = train(args.model, args.deck, epochs=args.epochs, threads=args.threads, workers=args.workers, ship=not args.no_ship)
    print(f"exported {path}")
    return 0


def register(sub) -> None:
    p = sub.add_parser("train", help="train the card finder, the card matcher or a classifier (needs the train extra)")
    # Recipes are not listed as argparse choices: that would import the training code (and
    # its dependencies) for every command.
    p.add_argument("model", help="matcher (or the candidates matcher-off-cuts, matcher-covered, matcher-longer, "
                                 "matcher-hard, matcher-steep and matcher-photo), corners (the corner refiner; the candidate corners-any), "
                                 "lattice and lattice-wide (the lattice refiners), "
                                 "or a recipe of vision/train.py "
                                 "RECIPES: finder, classifier, or a stage of their chains (a stage's starting "
                                 "run is trained first if needed)")
    p.add_argument("--deck", default="standin")
    p.add_argument("--epochs", type=int, default=None, help="override the recipe's epochs")
    p.add_argument("--threads", type=int, default=1, help="torch threads (1 is safest on a busy 2-core machine)")
    p.add_argument("--workers", type=int, default=None, help="rendering processes")
    p.add_argument("--no-ship", action="store_true", help="do not copy the result into models/")
    p.set_defaults(run=run)

