"""SIGINT held off for a moment: a terminal's Ctrl-C goes to every process of a command."""
from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def sigint_ignored() -> Iterator[None]:
    """SIGINT ignored inside, as it was after. Processes started inside keep it ignored (Python
    leaves an ignored SIGINT so), and a stop in progress is not cut short by a second Ctrl-C."""
    if threading.current_thread() is not threading.main_thread():
        yield  # (only the main thread gets SIGINT's KeyboardInterrupt, and only it may set it)
        return
    held = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, held)
