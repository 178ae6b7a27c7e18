"""Running the app under uvicorn, with what uvicorn lacks: a deadline for a request's headers.

uvicorn's keep-alive timer starts only after a response and is reset by every byte, so a
client that sends its headers a byte at a time (or never finishes them) holds a connection for
ever; 220 such connections held the server 40 s in a probe. ``HeaderDeadline`` closes a
connection whose request has not fully arrived ``header_timeout`` seconds after it opened or
after its last response. The body has its own deadline (middleware.Bounds); uvicorn's access
log is replaced by ours, which leaves room codes out.
"""
from __future__ import annotations

import logging

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from .app import create_app
from .settings import Settings


def header_deadline(seconds: float) -> type[H11Protocol]:
    class HeaderDeadline(H11Protocol):
        def connection_made(self, transport) -> None:
            super().connection_made(transport)
            self._arm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._arm()

        def _arm(self) -> None:
            cycle = self.cycle  # the request under way when armed: a new request replaces it
            self.loop.call_later(seconds, self._expire, cycle)

        def _expire(self, cycle) -> None:
            waiting = self.cycle is cycle and (cycle is None or cycle.response_complete)
            if waiting and not self.transport.is_closing():
                self.transport.close()

    return HeaderDeadline


def serve(settings: Settings | None = None, **flags) -> None:
    """Run the service; ``flags`` (the command line's) win over the environment's settings."""
    run(settings or Settings(**{k: v for k, v in flags.items() if v is not None}))


def run(settings: Settings) -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    config = uvicorn.Config(create_app(settings), host=settings.host, port=settings.port, log_level="info",
                            access_log=False, http=header_deadline(settings.header_timeout),
                            timeout_keep_alive=5, limit_concurrency=settings.max_connections)
    uvicorn.Server(config).run()
