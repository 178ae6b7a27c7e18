"""The batch spread over a Dask cluster: ``ecoscore batch DIR --out FILE --cluster ADDRESS``.

The same work as the plain batch (ecoscore/batch/run.py: ``score_file`` on each photo, one reader per
worker process, loaded once) and the same rows in the same order, written and flushed as they
come, so ``--resume`` works as it does there. ``--cluster local`` starts a cluster on this
machine (``--workers`` processes of one thread each); an address (``tcp://host:8786``) joins a
running one, whose workers (``dask worker tcp://host:8786 --nthreads 1``, ecoscore installed with
the models) must see the photos at the same path: a shared volume, as the usual Dask cluster has.

Why Dask, not Ray (issue 19): both run this job unchanged, and the job is the simplest kind (one
independent task per photo, a second or more each), so the engine's own overhead per task is
noise beside the read either way. What differs is the weight, measured on this machine
(bench/bench_engines.py, a local cluster of two single-thread workers, machine load 11 on 2
cores): ``pip install distributed`` is 44 MB installed, mostly pure Python (dask, tornado,
msgpack ...), ``pip install ray`` 259 MB with a compiled core; Dask's cluster was up in 4.4 s
and held 140 MB, Ray's in 13.6 s and 664 MB (its GCS server, raylet and agents besides the
workers). Ray's tasks cost less (1.3 ms a no-op against Dask's 7.4 ms), 0.5 % of a 12 MP read
at worst. The batch's own figures against the plain batch are in README's "Figures".

A worker that dies mid-photo is replaced by its nanny and the photo retried on another worker;
a photo that kills every worker it meets is recorded as an error row, not a stopped batch.
"""
from __future__ import annotations

import importlib.util
import logging
import os
import re
from collections.abc import Callable, Generator
from typing import TypeVar

from .signals import sigint_ignored

R = TypeVar("R")
IN_FLIGHT_PER_WORKER = 4  # photos queued on the cluster per worker: enough to keep it busy, little held in memory


class _Setup:
    """Runs ``init`` in each worker process as it starts (and in every worker that joins later):
    the batch's reader, loaded once."""

    name = "ecoscore-reader"

    def __init__(self, init: Callable[[], None], quiet: bool = False):
        self.init = init
        self.quiet = quiet  # a local cluster's worker: its Dask logs below CRITICAL silenced

    def setup(self, worker) -> None:
        _malloc_as_usual()
        if self.quiet:
            # A worker whose heartbeat met the scheduler closing (the batch stopped by Ctrl-C) logged
            # the comm's traceback as an ERROR over the batch's word (a fresh clone's CI, now and
            # then). LocalCluster's silence_logs quiets a worker's handlers only until the worker
            # starts closing, when those errors come: its logger's own level holds to the end.
            # What goes wrong with a photo comes back in its row.
            logging.getLogger("distributed").setLevel(logging.CRITICAL)
        self.init()


def _malloc_as_usual() -> None:
    """Undo what Dask's nanny does to malloc for its workers (MALLOC_TRIM_THRESHOLD_=65536, which
    also stops glibc raising its mmap threshold): every large image buffer of a read was then
    mapped and faulted in afresh, and reads took 35-50 % longer than in the plain batch's
    processes (bench/bench_batch_cluster.py). Big buffers come from the heap again, and are
    kept for the next photo."""
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.mallopt(-3, 32 * 2**20)  # M_MMAP_THRESHOLD: glibc's ceiling (64-bit)
        libc.mallopt(-1, 256 * 2**20)  # M_TRIM_THRESHOLD: give memory back only past this
    except (OSError, AttributeError):
        pass  # not glibc: nothing to undo


class ClusterError(Exception):
    """The cluster cannot be used: the message says why and what to do."""


# What --cluster takes: "local", or a scheduler's address with its port ("tcp://host:8786",
# "host:8786"). A typo ("lokal") was a traceback from deep in Dask (an organiser's run).
_ADDRESS = re.compile(r"(?:(?:tcp|tls|ws|wss|ucx)://)?(?:\[[0-9a-fA-F:]+\]|[^\s:/\[\]]+):\d{1,5}")
NEEDS_EXTRA = ("--cluster needs the distributed extra: pip install -e '.[distributed]' in a checkout "
               "(pip install 'ecoscore[distributed]' else)")


def check_cluster(cluster: str) -> None:
    """Refuse, before anything is written, a --cluster that is no address, or the extra missing."""
    if cluster != "local" and not _ADDRESS.fullmatch(cluster):
        raise ClusterError(f"--cluster takes 'local' or a Dask scheduler's address with its port, such as "
                           f"tcp://scheduler:8786, not {cluster!r}")
    if importlib.util.find_spec("distributed") is None:
        raise ClusterError(NEEDS_EXTRA)


def open_client(cluster: str, workers: int):
    """A Dask client on a new local cluster (``local``) or on the scheduler at ``cluster``."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ClusterError(NEEDS_EXTRA) from None
    if cluster == "local":
        import dask

        # Dask's nanny sets MALLOC_TRIM_THRESHOLD_ in its workers' environment: see _malloc_as_usual.
        environ = {k: v for k, v in dask.config.get("distributed.nanny.pre-spawn-environ").items()
                   if k != "MALLOC_TRIM_THRESHOLD_"}
        dask.config.set({"distributed.nanny.pre-spawn-environ": environ})
        # A terminal's Ctrl-C goes to every process of the command: each worker printed its
        # KeyboardInterrupt's traceback, and its nanny an error, over the batch's own word (an
        # organiser's run). Started with SIGINT ignored (Python then leaves it so), the workers
        # are stopped by the batch closing its cluster, as on any other end.
        # Their logs below CRITICAL are silenced, here and in the workers (``_Setup``).
        with sigint_ignored():
            local = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                                 silence_logs=logging.CRITICAL)
        return Client(local), local
    try:
        return Client(cluster), None
    except (OSError, ValueError) as err:  # (a timeout is an OSError)
        raise ClusterError(f"cannot reach the Dask scheduler at {cluster}: {err}") from None


def scores(todo: list[str], work: Callable[[str], R], failed: Callable[[str, str], R], init: Callable[[], None], *,
           cluster: str, workers: int) -> Generator[R, None, None]:
    """``work(path)`` of each path on the cluster (``init()`` run first in every worker), yielded
    in the order of ``todo``; ``failed(path, why)`` for a path the cluster could not do.
    run.py hands over its ``score_file``, its error row and its reader set-up."""
    try:
        from distributed import WorkerPlugin, as_completed
        from distributed.client import FutureCancelledError
    except ImportError:
        raise ClusterError(NEEDS_EXTRA) from None

    class Plugin(_Setup, WorkerPlugin):
        pass

    client, local = open_client(cluster, workers)
    try:
        client.register_plugin(Plugin(init, quiet=local is not None), name=_Setup.name)
        width = max(1, len(client.scheduler_info().get("workers", {})) or workers) * IN_FLIGHT_PER_WORKER
        pending = iter(enumerate(todo))
        futures = {}
        done: dict[int, R] = {}
        following = 0

        def submit() -> bool:
            try:
                k, path = next(pending)
            except StopIteration:
                return False
            future = client.submit(work, path, key=f"ecoscore-score-{k}-{os.getpid()}", pure=False, retries=1)
            futures[future] = (k, path)
            waiting.add(future)
            return True

        waiting = as_completed()
        for _ in range(width):
            if not submit():
                break
        for future in waiting:
            k, path = futures.pop(future)
            try:
                done[k] = future.result()
            except (FutureCancelledError, Exception) as err:  # KilledWorker: the photo kills its readers
                done[k] = failed(path, f"the cluster could not score it: {err}")
            submit()
            while following in done:  # in input order, as the plain batch writes them
                yield done.pop(following)
                following += 1
    finally:
        client.close()
        if local is not None:
            local.close()
