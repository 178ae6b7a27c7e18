"""Load on the upload service (issue #6): N clients upload 12 MP photos for S seconds.

Starts `ecoscore serve` on a free port with a fresh store, drives it from this process with
keep-alive HTTP clients, then runs `ecoscore batch` over the same photos, and prints errors,
latency percentiles and throughput against the batch command's photos/s (same machine, same run).
    python bench/bench_service.py --photos data/test/12mp [--clients 20] [--seconds 60] [--python PATH]
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from pathlib import Path


def multipart(data: bytes, filename: str) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    head = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"{filename}\"\r\n"
            f"Content-Type: image/jpeg\r\n\r\n").encode()
    return head + data + f"\r\n--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


def client(port: int, bodies, deadline: float, results: list, lock: threading.Lock, address: str) -> None:
    """One player's phone: uploads one photo after another. ``address``: the player's own, told
    the server as a proxy tells it (X-Forwarded-For, from 127.0.0.1, which the service trusts by
    default): from one address, twenty players were one client over its share of the read
    queue (``photos_per_client``), and 98 % of the uploads were 429s (2026-12-04)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    k = 0
    while time.perf_counter() < deadline:
        body, ctype = bodies[k % len(bodies)]
        k += 1
        start = time.perf_counter()
        try:
            conn.request("POST", "/api/photo", body=body, headers={"Content-Type": ctype, "X-Forwarded-For": address})
            response = conn.getresponse()
            response.read()
            status = response.status
        except (OSError, http.client.HTTPException):
            status = 0  # no answer
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        with lock:
            results.append((status, time.perf_counter() - start, time.perf_counter()))


def rss_mb(pid: int) -> float:
    """The server's resident memory (Linux), for the issue #17 floor: back within 20 % of idle."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def cpu_s(pid: int) -> float:
    """User + system CPU time of the server so far, every thread (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--photos", type=Path, required=True, help="folder with images/*.jpg (12 MP)")
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--settle", type=float, default=60, help="seconds after the load before RSS is read again")
    parser.add_argument("--no-batch", action="store_true", help="skip the batch comparison")
    parser.add_argument("--one-tableau", action="store_true",
                        help="only the photos of one tableau (a player's own upload; the others show the whole game)")
    parser.add_argument("--python", default=sys.executable,
                        help="the interpreter that runs the server and the batch (another checkout, same run conditions)")
    args = parser.parse_args()
    photos = sorted((args.photos / "images").glob("*.jpg"))
    if args.one_tableau:
        photos = [p for p in photos
                  if len(json.loads((args.photos / "truth" / f"{p.stem}.json").read_text())["tableaux"]) == 1]
    bodies = [multipart(p.read_bytes(), p.name) for p in photos]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    tmp = Path(tempfile.mkdtemp())
    exe = [args.python, "-m", "ecoscore"]
    server = subprocess.Popen([*exe, "serve", "--port", str(port), "--db", f"sqlite:///{tmp / 'db.sqlite3'}"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(300):
            try:
                c = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
                c.request("GET", "/health")
                if c.getresponse().status == 200:
                    break
            except OSError:
                time.sleep(0.1)
        idle_rss = rss_mb(server.pid)
        peak = [idle_rss]
        sampling = threading.Event()

        def sample_rss():
            while not sampling.wait(0.5):
                peak[0] = max(peak[0], rss_mb(server.pid))

        threading.Thread(target=sample_rss, daemon=True).start()
        results: list = []
        lock = threading.Lock()
        cpu0 = cpu_s(server.pid)
        start = time.perf_counter()
        deadline = start + args.seconds
        threads = [threading.Thread(target=client, args=(port, bodies[k % len(bodies):] + bodies[:k % len(bodies)],
                                                         deadline, results, lock, f"10.0.{k // 250}.{k % 250 + 1}"))
                   for k in range(args.clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = max(r[2] for r in results) - start
        cpu = cpu_s(server.pid) - cpu0
        sampling.set()
        time.sleep(args.settle)
        after_rss = rss_mb(server.pid)
    finally:
        server.terminate()
        server.wait(10)
    latencies = sorted(r[1] for r in results)
    errors = sum(r[0] != 200 for r in results)
    statuses = dict(sorted(Counter(r[0] for r in results).items()))
    service_rate = len(results) / elapsed
    # the batch command on the same photos, same machine, right after
    batch_rate = float("nan")
    if not args.no_batch:
        batch_dir = tmp / "batch"
        batch_dir.mkdir()
        for k in range(max(60, 2 * len(photos))):  # enough that the workers' start-up is amortised
            shutil.copy(photos[k % len(photos)], batch_dir / f"{k:03d}.jpg")
        t0 = time.perf_counter()
        subprocess.run([*exe, "batch", str(batch_dir), "--out", str(tmp / "out.csv")], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=dict(os.environ))
        batch_rate = len(list(batch_dir.iterdir())) / (time.perf_counter() - t0)
    shutil.rmtree(tmp, ignore_errors=True)
    q = lambda p: latencies[min(len(latencies) - 1, int(p * len(latencies)))]  # noqa: E731
    print(json.dumps({
        "clients": args.clients, "seconds": round(elapsed, 1), "requests": len(results), "errors": errors,
        "statuses": statuses,
        "latency_s": {"p50": round(statistics.median(latencies), 3), "p90": round(q(0.9), 3), "p99": round(q(0.99), 3),
                      "max": round(latencies[-1], 3)},
        "service_photos_per_s": round(service_rate, 2),
        # the server's CPU time (all its threads) per photo, and the cores it had on average: on a
        # shared machine photos/s and latency follow the share of CPU the server got, this does not
        "server_cpu_ms_per_photo": round(cpu / max(1, len(results)) * 1000),
        "server_cores_used": round(cpu / elapsed, 2),
        "server_rss_mb": {"idle": round(idle_rss), "peak": round(peak[0]), f"{args.settle:g}s_after": round(after_rss),
                          "after_vs_idle": round(after_rss / idle_rss - 1, 3)},
        "batch_photos_per_s": round(batch_rate, 2),
        "service_over_batch": round(service_rate / batch_rate, 2),
        "floors": {"errors": 0, "p99_s": 2.0, "service_over_batch": 0.8},
    }, indent=2))


if __name__ == "__main__":
    main()
