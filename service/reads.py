"""The queue of photo reads: a few readers, a bounded line in front of them.

A photo request takes a ticket once its body is all in (``admit``); with every ticket taken the
answer is 503 with ``Retry-After``, and nothing of the photo is read (a queue full when its headers
come is said as soon as its body is in, dropped as it came). A ticket holder waits for a
reader, at most ``queue_wait`` seconds: a reader set free goes to the waiting client with the
fewest reads running, of those with the fewest photos waiting (a lone photo, then a game under
way), the longest waiting among them; a photo that has waited half its wait goes before all (first come, first served, one client's
eight photos of strewn cards, 10-19 s each, held every reader, and another player's photo waited
27 s or got a 503: an attack on a running server), and gives up its place if the client goes away
meanwhile. A read runs in the queue's own threads, and its reader is released when the thread
ends, not when the request does: a timed-out request cannot push more reads onto the cores
than there are readers.
"""
from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import math
import threading
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")
_LIBC = ctypes.util.find_library("c")


def give_back_memory() -> None:
    """Return the heap pages freed by the reads to the system. glibc keeps them in its per-thread
    arenas, so after a burst of 12 MP photos the server stayed 46 % above its idle size a minute
    later (bench/bench_service.py); trimmed when the queue goes idle, 31 % (one run each)."""
    if _LIBC:
        try:
            ctypes.CDLL(_LIBC).malloc_trim(0)
        except (OSError, AttributeError):  # not glibc: nothing to trim this way
            pass


class QueueFull(Exception):
    def __init__(self, retry_after: int):
        super().__init__(f"the service is busy reading photos; try again in {retry_after} s")
        self.retry_after = retry_after


class Abandoned(Exception):
    """The client went away while its photo waited: the read is not done."""


MEASURED_READS = 5  # reads done before their pace refuses a photo (``ReadQueue.full``): the first guess is 1 s


class ReadQueue:
    def __init__(self, workers: int, queue: int, wait: float):
        self.workers, self.capacity, self.wait = workers, workers + queue, wait
        self.tickets = 0
        self._free = workers
        self._waiters: list[tuple[asyncio.Future, str, float]] = []  # (who waits, for which client, since when), oldest first
        self._running: dict[str, int] = {}  # reads under way per client
        self._last_turn: dict[str, int] = {}  # when each client busy now last had a reader (a count of turns)
        self._turns = 0
        self._pool = ThreadPoolExecutor(workers, thread_name_prefix="read")
        self._seconds = 1.0  # running mean of one read, for Retry-After and ``full``
        self.reads_started = 0
        self.reads_done = 0

    # tickets: taken by the middleware once the body is all in (before the photo is read)
    def full(self) -> bool:
        """No place, or none whose read would begin within the wait at the reads' pace so far: on
        a slow or busy machine (1-2 s a read) the last of 32 places waited the whole 30 s and were
        refused then, uploaded for nothing (an attack); refused at once now, with a Retry-After."""
        return self.tickets >= self.capacity or (
            self.reads_done >= MEASURED_READS and self.expected_wait() > self.wait)

    def expected_wait(self) -> float:
        """Seconds until one more photo's read would begin, at the mean read's pace."""
        return max(0, self.tickets + 1 - self.workers) * self._seconds / self.workers

    def admit(self) -> bool:
        if self.full():
            return False
        self.tickets += 1
        return True

    def leave(self) -> None:
        self.tickets -= 1
        if not self.tickets and self._free == self.workers:
            give_back_memory()  # the last photo request is answered: the queue is idle

    def retry_after(self) -> int:
        return max(1, min(120, math.ceil(self.tickets * self._seconds / self.workers)))

    # readers
    def _release(self) -> None:
        self._waiters = [w for w in self._waiters if not w[0].done()]
        if not self._waiters:
            self._free += 1
            # no one waits: the turns of clients with no read under way are history (never a map that only grows)
            self._last_turn = {client: turn for client, turn in self._last_turn.items() if client in self._running}
            return
        # A photo that has waited half its wait first (else a client keeping two lone photos in
        # flight, one waiting, went before a game's eight every time, and the game was refused
        # whole: a review). Then the clients with fewest reads running; of those the one with fewest
        # photos waiting (a lone photo before a game, and a game under way before games not begun:
        # in turns round every game, 7 games of 8 photos each came to their last photos together at
        # the 30 s wait, and all 7 were refused, their reads thrown away: an attack); then the one
        # whose last turn is longest ago; ``min`` keeps the first of equals: its longest waiting.
        waiting = Counter(client for _, client, _ in self._waiters)
        fresh = time.monotonic() - self.wait / 2
        chosen = min(self._waiters, key=lambda w: (w[2] > fresh, self._running.get(w[1], 0), waiting[w[1]],
                                                  self._last_turn.get(w[1], -1)))
        self._waiters.remove(chosen)
        self._hand(chosen[1])  # counted as it is handed: two readers set free at once go to two clients
        chosen[0].set_result(None)

    def _hand(self, client: str) -> None:
        """A reader given to ``client``: its reads running and its last turn (``_finished`` gives it back)."""
        self._running[client] = self._running.get(client, 0) + 1
        self._turns += 1
        self._last_turn[client] = self._turns

    def _finished(self, client: str) -> None:
        self._running[client] -= 1
        if not self._running[client]:
            del self._running[client]
            if not any(who == client for _, who, _ in self._waiters):  # idle: nothing to remember it by
                self._last_turn.pop(client, None)
        self._release()

    async def _acquire(self, gone: Callable[[], Awaitable[bool]], client: str) -> None:
        if self._free and not self._waiters:
            self._free -= 1
            self._hand(client)
            return
        waiter = asyncio.get_running_loop().create_future()
        self._waiters.append((waiter, client, time.monotonic()))
        deadline = time.monotonic() + self.wait
        try:
            while not waiter.done():
                await asyncio.wait([waiter], timeout=0.2)
                if waiter.done():
                    break
                if await gone():
                    raise Abandoned()
                if time.monotonic() > deadline:
                    raise QueueFull(self.retry_after())
        except BaseException:
            if waiter.done() and not waiter.cancelled():
                self._finished(client)  # handed a reader just as we gave up: pass it on
            else:
                waiter.cancel()
            raise

    async def run(self, fn: Callable[..., T], *args, gone: Callable[[], Awaitable[bool]], client: str = "") -> T:
        """``fn(*args)`` on a reader once one is free; ``gone()`` says whether the client left;
        ``client``: whose read it is (``starts.client_key``), for a fair turn."""
        await self._acquire(gone, client)
        loop = asyncio.get_running_loop()
        if await gone():
            self._finished(client)
            raise Abandoned()
        self.reads_started += 1
        started = time.monotonic()

        def done(_):
            self._seconds = 0.8 * self._seconds + 0.2 * (time.monotonic() - started)
            self.reads_done += 1
            loop.call_soon_threadsafe(self._finished, client)

        future = self._pool.submit(fn, *args)
        future.add_done_callback(done)
        try:
            return await asyncio.wrap_future(future)
        finally:
            # A read that raised: its exception's traceback holds this frame, and the frame's future
            # holds the exception, a cycle that kept the photo (``args``, and the read's own frames)
            # until a garbage collection: 40 refused 24 MB uploads at once held +630 MB (an attack).
            del future

    async def on_each_reader(self, fn: Callable[[], object]) -> None:
        """``fn()`` once in each of the queue's threads, before any read (start-up).

        Inference keeps state per calling thread: OpenVINO runs a thread's requests on that
        thread's stream, and a stream's memory for each of the finder's canvases is allocated on
        its first run there. Warmed in a thread of Starlette's pool, only one stream was: the
        other grew by ~400-600 MB with the first reads at once and stayed (1.3 x idle a minute
        after a burst, bench_service). Warmed here, idle is the size the service reads at."""
        start, one_at_a_time = threading.Barrier(self.workers), threading.Lock()

        def each() -> None:
            start.wait(60)  # every task on a thread of its own
            with one_at_a_time:  # two first inferences at once hung OpenVINO in a probe (both in infer, idle)
                fn()

        await asyncio.gather(*(asyncio.wrap_future(self._pool.submit(each)) for _ in range(self.workers)))

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
