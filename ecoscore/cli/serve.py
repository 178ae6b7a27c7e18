"""`ecoscore serve`: run the upload service and the phone page."""
from __future__ import annotations

import argparse
import sys

from .common import BadInput, add_deck_option, days, open_reader_or_fail, port_number, positive_int, settings_or_fail
from .language import add_lang_option, words_for


def _check(deck: str | None) -> None:
    open_reader_or_fail(deck)


def _check_port(host: str, port: int) -> None:
    """A port already taken is said at once, as bad input (exit 2): it was said after the models
    had loaded, ~20 s on, by uvicorn's own error and exit 3 (a newcomer's run)."""
    import socket

    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    except socket.gaierror as err:
        raise BadInput(f"cannot serve on {host}: {err.strerror or err} (--host takes this machine's address, "
                       "or 0.0.0.0 for every one)") from None
    try:
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds it
            probe.bind((host, port))
    except OSError as err:
        raise BadInput(f"cannot serve on {host}:{port}: {err.strerror or err} (another server on that port? "
                       "choose another with --port)") from None


def _check_store(url: str) -> None:
    """A database that cannot be reached (or opened) is said at once, one line, exit 2: with
    --workers 2 each worker failed to start with a traceback and the command exited 0, so a
    service manager would not restart it (an organiser's run)."""
    from ecoscore.service.store import Store, StoreError

    try:
        Store(url).close()
    except StoreError as err:
        raise BadInput(str(err)) from None


def run(args: argparse.Namespace) -> int:
    from ecoscore.service.server import serve

    settings = settings_or_fail(host=args.host, port=args.port, db_url=args.db, workers=args.workers, reads=args.reads,
                                public_url=args.public_url, room_idle_days=args.room_idle_days, deck=args.deck)
    _check_port(settings.host, settings.port)
    _check_store(settings.database_url())
    # Said before the models load (the URL was clicked and refused for ~15 s): open it once the
    # server logs that it is up.
    # On every address (--host 0.0.0.0, for phones) the one a phone opens: "0.0.0.0:8000" opens
    # nothing on a phone (a Russian newcomer's walk); the room links name it already.
    url = f"{settings.link_base() if settings.on_every_address else settings.local_base()}/"
    print(words_for(args).fill("cli.serve_starting", url=url), file=sys.stderr)
    # An unknown deck or missing models are refused before the server starts. With several
    # workers the check runs in a process of its own: the models loaded in the supervisor would
    # make it crash on Ctrl-C (OpenVINO's threads and a Python signal handler), orphaning them.
    if settings.workers > 1:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
            pool.submit(_check, args.deck).result()
    else:
        open_reader_or_fail(args.deck)
    serve(settings)
    return 0


def register(sub) -> None:
    # Unset flags fall back to ECOSCORE_* environment variables, then to service/settings.py.
    p = sub.add_parser("serve", help="run the upload service and phone page (settings: service/settings.py)")
    p.add_argument("--host", default=None, help="0.0.0.0 to reach it from a phone on the same network")
    p.add_argument("--port", type=port_number, default=None, help="default 8000")
    p.add_argument("--db", default=None, help="database URL: sqlite:///PATH (default <data>/service/ecoscore.sqlite3) "
                                               "or postgresql://USER:PASSWORD@HOST/NAME")
    p.add_argument("--workers", type=positive_int, default=None, help="processes over one database (default 1)")
    p.add_argument("--reads", type=positive_int, default=None,
                   help="photos read at once in each worker (default: the cores shared out among the workers)")
    p.add_argument("--public-url", default=None, help="the address phones use, for room links and QR codes")
    p.add_argument("--room-idle-days", type=days, default=None, help="rooms idle this long are deleted (default 30)")
    add_deck_option(p)
    add_lang_option(p)  # what it says before the server's own log (uvicorn's, in English)
    p.set_defaults(run=run)

