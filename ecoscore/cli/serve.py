"""`ecoscore serve`: run the upload service and the phone page."""
from __future__ import annotations

import argparse
import sys

from .common import add_deck_option, open_reader_or_fail


def run(args: argparse.Namespace) -> int:
    from ecoscore.service.server import serve

    print(f"ecoscore: serving on http://{args.host or '127.0.0.1'}:{args.port or 8000}/ (API docs at /docs)",
          file=sys.stderr)
    open_reader_or_fail(args.deck)  # an unknown deck is refused before the server starts
    serve(host=args.host, port=args.port, db_url=args.db, workers=args.workers, reads=args.reads,
          public_url=args.public_url, room_idle_days=args.room_idle_days, deck=args.deck)
    return 0


def register(sub) -> None:
    # Unset flags fall back to ECOSCORE_* environment variables, then to service/settings.py.
    p = sub.add_parser("serve", help="run the upload service and phone page (settings: service/settings.py)")
    p.add_argument("--host", default=None, help="0.0.0.0 to reach it from a phone on the same network")
    p.add_argument("--port", type=int, default=None, help="default 8000")
    p.add_argument("--db", default=None, help="database URL: sqlite:///PATH (default <data>/service/ecoscore.sqlite3) "
                                               "or postgresql://USER:PASSWORD@HOST/NAME")
    p.add_argument("--workers", type=int, default=None, help="processes over one database (default 1)")
    p.add_argument("--reads", type=int, default=None,
                   help="photos read at once in each worker (default: the cores shared out among the workers)")
    p.add_argument("--public-url", default=None, help="the address phones use, for room links and QR codes")
    p.add_argument("--room-idle-days", type=float, default=None, help="rooms idle this long are deleted (default 30)")
    add_deck_option(p)
    p.set_defaults(run=run)

