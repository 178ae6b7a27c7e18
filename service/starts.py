"""How many rooms and decks one client may start in an hour.

The service keeps at most ``max_rooms`` rooms and ``max_decks`` decks. Without a share per
client, one client filled both (2,000 empty rooms in 10 s, 200 decks in 36 s: an attack on a
running server), and every other player was refused a new room for 30 days and a new deck until
its keeper removed some. A table starts a room or two an evening and a deck once.

Counted in this process's memory, per client (``client_key``: its address, an IPv6 one by its
/64, which one home or phone holds whole; behind a load balancer the address its
X-Forwarded-For gives, with ``forwarded_allow_ips``): several workers each count their own,
which only makes the share that many times larger. The clients remembered are bounded too.
"""
from __future__ import annotations

import ipaddress
import math
import threading
import time
from collections import OrderedDict, deque

HOUR = 3600.0
MAX_CLIENTS = 10_000  # clients remembered; the longest unseen is forgotten first


def client_key(host: str | None) -> str:
    """Whose request this is, for a share: the address, or an IPv6 address's /64 (a host picks
    any address in its /64, so one client could otherwise start rooms from endless addresses)."""
    try:
        address = ipaddress.ip_address(host or "")
    except ValueError:
        return host or ""
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:  # ::ffff:a.b.c.d is an IPv4 client
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


class TooMany(Exception):
    """A client past its share; ``retry_after``: seconds until it may start one again."""

    def __init__(self, message: str, retry_after: int):
        super().__init__(message)
        self.retry_after = retry_after


class Starts:
    """A sliding hour of starts per client, for one kind of thing (rooms, decks)."""

    def __init__(self, kind: str, per_hour: int, clock=time.monotonic):
        self.kind = kind
        self.per_hour = per_hour
        self.clock = clock
        self._seen: OrderedDict[str, deque[float]] = OrderedDict()
        self._lock = threading.Lock()

    def take(self, client: str) -> None:
        """Count a start by ``client``; ``TooMany`` if it started ``per_hour`` in the last hour."""
        now = self.clock()
        with self._lock:
            times = self._seen.pop(client, None) or deque()
            while times and times[0] <= now - HOUR:
                times.popleft()
            if len(times) >= self.per_hour:
                self._seen[client] = times
                wait = max(1, math.ceil(times[0] + HOUR - now))
                raise TooMany(f"this device started {self.per_hour} {self.kind} in the last hour (the most "
                              f"it may): try again in {math.ceil(wait / 60)} min", wait)
            times.append(now)
            self._seen[client] = times
            while len(self._seen) > MAX_CLIENTS:
                self._seen.popitem(last=False)
