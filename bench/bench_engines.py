"""Dask or Ray for `ecoscore batch --cluster` (issue #19): what each engine costs before any photo.

For each engine: the time to start a local cluster of two single-thread worker processes, the
time of 200 no-op tasks through it (its overhead per task), and the memory of the processes it
started. The install size is measured apart (`pip install --target DIR distributed` / `ray`, then
`du -sh DIR`). Run with each engine importable, e.g.
    PYTHONPATH=/tmp/sz-dask python bench/bench_engines.py dask
    PYTHONPATH=/tmp/sz-ray python bench/bench_engines.py ray
"""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path


def noop(x):
    return x


def rss_tree_mb(root: int) -> float:
    """Resident memory of every process descended from ``root`` (Linux), the root excluded."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    total, todo = 0.0, list(children.get(root, []))
    while todo:
        pid = todo.pop()
        todo += children.get(pid, [])
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) / 1024
        except OSError:
            pass
    return total


def dask() -> dict:
    t0 = time.perf_counter()
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=40)
    client = Client(cluster)
    client.submit(noop, 0).result()
    started = time.perf_counter() - t0
    t1 = time.perf_counter()
    assert client.gather(client.map(noop, range(200), pure=False)) == list(range(200))
    tasks = time.perf_counter() - t1
    rss = rss_tree_mb(os.getpid())
    client.close()
    cluster.close()
    return {"engine": "dask", "start_s": round(started, 2), "ms_per_noop_task": round(tasks / 200 * 1e3, 2),
            "cluster_rss_mb": round(rss)}


def ray() -> dict:
    t0 = time.perf_counter()
    import ray as r

    r.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    remote = r.remote(num_cpus=1)(noop)
    r.get(remote.remote(0))
    started = time.perf_counter() - t0
    t1 = time.perf_counter()
    assert r.get([remote.remote(k) for k in range(200)]) == list(range(200))
    tasks = time.perf_counter() - t1
    rss = rss_tree_mb(os.getpid())
    r.shutdown()
    return {"engine": "ray", "start_s": round(started, 2), "ms_per_noop_task": round(tasks / 200 * 1e3, 2),
            "cluster_rss_mb": round(rss)}


if __name__ == "__main__":
    result = {"dask": dask, "ray": ray}[sys.argv[1]]()
    result["loadavg"] = Path("/proc/loadavg").read_text().split()[:3]
    print(json.dumps(result))
