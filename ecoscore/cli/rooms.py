"""`ecoscore rooms`: look after the service's game rooms."""
from __future__ import annotations

import argparse
import sys

from .common import BadInput, days, settings_or_fail
from .language import add_lang_option, words_for


def run(args: argparse.Namespace) -> int:
    import sqlite3

    from ecoscore.service.store import Store, StoreError, is_postgres, path_from_url, redact

    settings = settings_or_fail(db_url=args.db, room_idle_days=args.days)
    url = settings.database_url()
    try:
        # A database that is not there is a typo (or the service's default where it never ran),
        # not an empty one to make: a mistyped path made a folder and an empty database, and
        # "deleted 0 rooms"; without --db, after serving on PostgreSQL, the default SQLite file
        # was made and pruned in silence (an organiser's run).
        if not is_postgres(url) and not path_from_url(url).is_file():
            raise BadInput(f"no database at {path_from_url(url)}: check the --db URL (sqlite:///PATH, postgresql://…)")
        store = Store(url)
        try:
            gone = store.prune(settings.room_idle_days)
        finally:
            store.close()
    except StoreError as err:  # not a URL we know, a server out of reach, a file not ours
        raise BadInput(str(err)) from None
    except sqlite3.DatabaseError as err:  # ours once, damaged since ("database disk image is malformed")
        raise BadInput(f"{redact(url)}: not the service's database ({err})") from None
    words = words_for(args)
    print(words.fill("cli.rooms_pruned", n=gone["rooms"], days=words.decimal(_days(settings.room_idle_days)),
                     players=gone["players"], overlays=gone["overlays"], db=redact(url)), file=sys.stderr)
    return 0


def _days(days: float) -> str:
    """Days as a person writes them: "1.5", "30", "99999999999" (":g" wrote "1e+11")."""
    return f"{days:.3f}".rstrip("0").rstrip(".")


def register(sub) -> None:
    p = sub.add_parser("rooms", help="look after the service's game rooms")
    actions = p.add_subparsers(dest="action", required=True)
    prune = actions.add_parser("prune", help="delete rooms idle for N days, with their players and overlays")
    prune.add_argument("--days", type=days, default=None, help="default: ECOSCORE_ROOM_IDLE_DAYS or 30")
    prune.add_argument("--db", default=None, help="database URL (default: the service's)")
    add_lang_option(prune)
    prune.set_defaults(run=run)

