"""`ecoscore rooms`: look after the service's game rooms."""
from __future__ import annotations

import argparse
import sys

from .common import days, settings_or_fail
from .language import add_lang_option, words_for


def run(args: argparse.Namespace) -> int:
    from ecoscore.service.store import Store

    settings = settings_or_fail(db_url=args.db, room_idle_days=args.days)
    store = Store(settings.database_url())
    try:
        gone = store.prune(settings.room_idle_days)
    finally:
        store.close()
    words = words_for(args)
    print(words.fill("cli.rooms_pruned", n=gone["rooms"], days=words.decimal(f"{settings.room_idle_days:g}"),
                     players=gone["players"], overlays=gone["overlays"]), file=sys.stderr)
    return 0


def register(sub) -> None:
    p = sub.add_parser("rooms", help="look after the service's game rooms")
    actions = p.add_subparsers(dest="action", required=True)
    prune = actions.add_parser("prune", help="delete rooms idle for N days, with their players and overlays")
    prune.add_argument("--days", type=days, default=None, help="default: ECOSCORE_ROOM_IDLE_DAYS or 30")
    prune.add_argument("--db", default=None, help="database URL (default: the service's)")
    add_lang_option(prune)
    prune.set_defaults(run=run)

