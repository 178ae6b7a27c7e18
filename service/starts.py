"""Who a client is, for its share of new rooms and decks.

The service keeps at most ``max_rooms`` rooms and ``max_decks`` decks. Without a share per
client, one client filled both (2,000 empty rooms in 10 s, 200 decks in 36 s: an attack on a
running server), and every other player was refused a new room for 30 days and a new deck until
its keeper removed some. A table starts a room or two an evening and a deck once: a client may
start ``rooms_per_client_hour`` rooms and ``decks_per_client_hour`` decks an hour.

A client is its address (``client_key``): an IPv6 one by its /64, which one home or phone holds
whole; behind a load balancer the address its X-Forwarded-For gives, with
``forwarded_allow_ips``. The starts are counted in the store (``Store.count_start``), so every
worker and every machine over one database counts one share (counted in each worker's memory,
as they were first, four workers gave a client four shares). A NAT's clients share one. A
worker remembers whom it refused, and until when (``Refusals``).
"""
from __future__ import annotations

import ipaddress
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar

MAX_KEY = 64  # a client's key as stored: an address or a /64 is shorter; anything else is cut
MAX_CLIENTS = 10_000  # refused clients a worker remembers (``Refusals``)
E = TypeVar("E", bound=Exception)


def client_key(host: str | None) -> str:
    """Whose request this is, for a share: the address, or an IPv6 address's /64 (a host picks
    any address in its /64, so one client could otherwise start rooms from endless addresses)."""
    try:
        address = ipaddress.ip_address(host or "")
    except ValueError:
        return (host or "")[:MAX_KEY]
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:  # ::ffff:a.b.c.d is an IPv4 client
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


class Refusals(Generic[E]):
    """This worker's memory of clients refused a start (past a share, or holding their cap of
    rooms), until they may start again: a client hammering on is answered from here, not by a
    write to the store (each refusal had taken the database's write lock, and slowed every other
    writer). Exact but for a start taken back or a room gone meanwhile, which frees its place a
    little late."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        # (kind, client) -> (until when, the refusal given a wait in seconds)
        self._until: OrderedDict[tuple[str, str], tuple[float, Callable[[int], E] | None]] = OrderedDict()
        self._lock = threading.Lock()

    def wait(self, kind: str, client: str) -> int:
        """Seconds until ``client`` may start a ``kind`` again, as far as this worker knows (0: ask the store)."""
        return self._lookup(kind, client)[0]

    def refusal(self, kind: str, client: str) -> E | None:
        """The refusal remembered for ``client``, with the wait left (None: ask the store, or none was given)."""
        wait, refuse = self._lookup(kind, client)
        return refuse(wait) if wait and refuse is not None else None

    def _lookup(self, kind: str, client: str) -> tuple[int, Callable[[int], E] | None]:
        now = self.clock()
        with self._lock:
            until, refuse = self._until.get((kind, client), (0.0, None))
            if until <= now:
                self._until.pop((kind, client), None)
                return 0, None
            return max(1, math.ceil(until - now)), refuse

    def remember(self, kind: str, client: str, retry_after: int, refusal: Callable[[int], E] | None = None) -> None:
        """``client`` refused a ``kind`` for ``retry_after`` seconds; ``refusal(wait)``: the refusal
        to give meanwhile (the one given, with the wait left)."""
        with self._lock:
            self._until.pop((kind, client), None)
            self._until[(kind, client)] = (self.clock() + retry_after, refusal)
            while len(self._until) > MAX_CLIENTS:  # the longest known go first
                self._until.popitem(last=False)


def client_of(connection: Mapping[str, Any]) -> str:
    """``client_key`` of a request's client (its address as uvicorn gives it, a proxy's
    X-Forwarded-For read where ``forwarded_allow_ips`` trusts it): of an ASGI scope, or of a
    Starlette request (a mapping over its scope)."""
    return client_key((connection.get("client") or (None,))[0])
