"""Running the app under uvicorn, with what uvicorn lacks: a deadline for a request's headers.

uvicorn's keep-alive timer starts only after a response and is reset by every byte, so a
client that sends its headers a byte at a time (or never finishes them) holds a connection for
ever; 220 such connections held the server 40 s in a probe. ``HeaderDeadline`` closes a
connection whose request has not fully arrived ``header_timeout`` seconds after it opened or
after its last response. The body has its own deadline (middleware.Bounds); uvicorn's access
log is replaced by ours, which leaves room codes out.

With ``workers`` > 1 uvicorn starts that many processes on one listening socket (a dead one is
replaced); each builds the app from the settings, handed down as ``ECOSCORE_*`` variables, with
its own readers (the cores shared out, ``Settings.readers``) and its own connections to the one
database. Nothing of a room is kept in a process: every request reads the database, so a
client polling a room sees the same version (its ETag) whichever worker answers.
"""
from __future__ import annotations

import asyncio
import ipaddress
import logging
import os
import pickle
import time
from typing import TypedDict

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from .app import create_app
from .settings import Settings
from .starts import client_key


class HeaderDeadline(H11Protocol):
    # Set from the settings (a worker process sets them as it builds its app).
    seconds = 10.0
    per_client = 60  # open connections one client may hold (``connections_per_client``)
    proxies: Proxies = None  # whose connections are many clients' (``forwarded_allow_ips``)
    _open: dict[str, int] = {}  # each client's open connections, in this process (one event loop)
    _deadline: asyncio.TimerHandle | None = None
    _client: str | None = None

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        # One client may hold only so many of the server's connections: from one address, 500
        # sockets that sent nothing, each dropped at its header deadline and opened again, held
        # every connection and the service answered no one (an attack on a running server).
        host = (transport.get_extra_info("peername") or (None,))[0]
        if not _is_proxy(host, self.proxies):
            client = client_key(host)
            if self._open.get(client, 0) >= self.per_client:
                transport.write(TOO_MANY_CONNECTIONS)  # said, not a bare reset (a phone behind a busy NAT)
                transport.close()
                return
            self._open[client] = self._open.get(client, 0) + 1
            self._client = client
        self._arm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm()

    def connection_lost(self, exc) -> None:
        super().connection_lost(exc)
        self._disarm()
        if self._client is not None:
            left = self._open[self._client] - 1
            if left:
                self._open[self._client] = left
            else:
                del self._open[self._client]
            self._client = None

    def _arm(self) -> None:
        # One deadline at a time, cancelled when it is no longer needed: a pending timer holds its
        # request cycle (scope, body, app state), and at hundreds of requests a second the cycles
        # of the last 10 s were ~100,000 live objects that every full garbage collection walked.
        self._disarm()
        cycle = self.cycle  # the request under way when armed: a new request replaces it
        self._deadline = self.loop.call_later(self.seconds, self._expire, cycle)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expire(self, cycle) -> None:
        waiting = self.cycle is cycle and (cycle is None or cycle.response_complete)
        if waiting and not self.transport.is_closing():
            self.transport.close()


_BODY = b"too many connections from this address: close some, then try again\n"
TOO_MANY_CONNECTIONS = (b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
                        b"Retry-After: 10\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s" % (len(_BODY), _BODY))

# ``forwarded_allow_ips`` as uvicorn reads it: addresses, networks, and other names (a "unix:"
# socket) as they are; None: every address ("*").
Proxies = tuple[ipaddress.IPv4Network | ipaddress.IPv6Network | str, ...] | None


def proxies_of(setting: str) -> Proxies:
    names = [part.strip() for part in setting.split(",") if part.strip()]
    if "*" in names:
        return None
    proxies: list[ipaddress.IPv4Network | ipaddress.IPv6Network | str] = []
    for name in names:
        try:  # strict, as uvicorn: "10.0.0.1/8" is no network, and stands for itself
            proxies.append(ipaddress.ip_network(name))
        except ValueError:
            proxies.append(name)
    return tuple(proxies)


def _is_proxy(host: str | None, proxies: Proxies) -> bool:
    if proxies is None:
        return True
    try:
        address = ipaddress.ip_address(host or "")
    except ValueError:
        return host in proxies
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped  # a dual-stack listener's IPv4 peer
    return any(address in proxy if not isinstance(proxy, str) else host == proxy for proxy in proxies)


def _protocol_settings(settings: Settings) -> dict:
    """``HeaderDeadline``'s class attributes from the settings."""
    return {"seconds": settings.header_timeout, "per_client": settings.connections_per_client,
            "proxies": proxies_of(settings.forwarded_allow_ips)}


def protocol(settings: Settings) -> type[H11Protocol]:
    """uvicorn's HTTP protocol with this service's header deadline and connections per client
    (a class of its own, its own count of connections: several servers may run in one process)."""
    return type("HeaderDeadline", (HeaderDeadline,), _protocol_settings(settings) | {"_open": {}})


def worker_app():
    """The app of one worker process (uvicorn calls this in each): settings from the environment."""
    settings = Settings()
    # uvicorn hands its workers the protocol class by name: this one, set up in each.
    for name, value in _protocol_settings(settings).items():
        setattr(HeaderDeadline, name, value)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(process)d %(name)s %(message)s")
    return create_app(settings)


def environment(settings: Settings) -> dict[str, str]:
    """The settings as ``ECOSCORE_*`` variables, for worker processes to read back."""
    out = {}
    for name, value in settings.model_dump().items():
        out[f"ECOSCORE_{name.upper()}"] = str(value).lower() if isinstance(value, bool) else str(value)
    return out


def serve(settings: Settings | None = None, **flags) -> None:
    """Run the service; ``flags`` (the command line's) win over the environment's settings."""
    run(settings or Settings(**{k: v for k, v in flags.items() if v is not None}))


class _Common(TypedDict):
    """uvicorn's options for one process and for several alike."""

    host: str
    port: int
    log_level: str
    access_log: bool
    timeout_keep_alive: int
    limit_concurrency: int
    proxy_headers: bool
    forwarded_allow_ips: str
    ws: str


def run(settings: Settings) -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    common = _Common(host=settings.host, port=settings.port, log_level="info", access_log=False,
                     timeout_keep_alive=5, limit_concurrency=settings.max_connections,
                     proxy_headers=True, forwarded_allow_ips=settings.forwarded_allow_ips,
                     # No WebSocket route: an upgrade handed the connection to a WebSocket protocol,
                     # and its client's count of connections was never given back (a review).
                     ws="none")
    if settings.workers == 1:
        config = uvicorn.Config(create_app(settings), http=protocol(settings), **common)
        uvicorn.Server(config).run()
        return
    os.environ.update(environment(settings))  # the workers are spawned: they inherit the environment
    _see_a_dead_worker_at_once()
    # A worker loading its models on a busy machine may not answer uvicorn's health ping for a
    # while: 60 s before it is taken for hung and replaced (5 s by default).
    uvicorn.run("ecoscore.service.server:worker_app", factory=True, workers=settings.workers, http=HeaderDeadline,
                timeout_worker_healthcheck=60, **common)


def _see_a_dead_worker_at_once() -> None:
    """uvicorn's supervisor pings each worker in turn and waits up to the health check's timeout
    (60 s here) for its answer. A worker killed during that wait was replaced only after it (the
    supervisor holds the pipe's other end too: no end of file; an organiser's run, 2 of 6 kill -9
    under load): its wait is asked in half-second slices, the process's own liveness between them.
    Left as uvicorn has it where its supervisor is no longer built so."""
    from uvicorn.supervisors import multiprocess

    worker = getattr(multiprocess, "Process", None)
    if worker is None or not hasattr(worker, "_healthcheck") or getattr(worker, "_sliced", False):
        return
    worker._healthcheck = _sliced_healthcheck
    worker._sliced = True


def _sliced_healthcheck(self, timeout: float) -> bool | None:
    """uvicorn's ``Process._healthcheck`` (the worker's startup flag, or None: no answer in time),
    given up as soon as the worker's process is dead."""
    deadline = time.monotonic() + timeout
    try:
        self.parent_conn.send(b"ping")
        while not self.parent_conn.poll(max(0.0, min(0.5, deadline - time.monotonic()))):
            if not self.process.is_alive() or time.monotonic() >= deadline:
                return None
        return bool(self.parent_conn.recv())
    except (OSError, EOFError, pickle.UnpicklingError):
        return None
