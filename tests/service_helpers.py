"""A live server on a free port (uvicorn, as `ecoscore serve` runs it) and a reader that takes
its time, for tests of queues, deadlines and abandoned requests."""
from __future__ import annotations

import socket
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace

import uvicorn

from ecoscore.service.app import Settings, create_app
from ecoscore.service.server import protocol
from ecoscore.vision.refusals import NoTableauError


class SlowReader:
    """Stands in for the models: each read takes ``seconds`` and finds no tableau."""

    finder = classifier = SimpleNamespace(path=Path("fake.onnx"))

    def __init__(self, seconds: float = 0.0):
        self.seconds, self.calls = seconds, 0

    def read(self, data: bytes, classifier=None):
        self.calls += 1
        time.sleep(self.seconds)
        raise NoTableauError("no tableau found (a stand-in reader)")


@contextmanager
def live_server(settings: Settings, reader):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = uvicorn.Config(create_app(settings, reader=reader), host="127.0.0.1", port=port, log_level="warning",
                            access_log=False, http=protocol(settings), ws="none")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(10)


def raw(port: int, head: bytes, timeout: float = 5.0) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    sock.sendall(head)
    return sock


def answer(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes (or the socket's timeout)."""
    data = b""
    try:
        while chunk := sock.recv(65536):
            data += chunk
    except (TimeoutError, ConnectionResetError):
        pass
    return data
