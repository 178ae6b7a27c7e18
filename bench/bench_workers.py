"""Several workers over one database (issue #19).

load: N clients upload 12 MP photos into game rooms for S seconds (each client its own player:
a read, then a room write with its overlay, If-Match and token as the page sends them), against
`ecoscore serve --workers W` on SQLite or on a PostgreSQL server this bench starts (Debian's
package, as the tests do). Prints errors and latency percentiles.
    python bench/bench_workers.py load --photos data/test/12mp --workers 1 --db sqlite
    python bench/bench_workers.py load --photos data/test/12mp --workers 2 --db postgresql

kill: two workers over PostgreSQL; clients write grids into rooms as fast as they can, and one
worker is killed with SIGKILL halfway. Every write a client saw acknowledged (200) must be in the
database at the end (its version or a later one), and the other worker must go on answering.
    python bench/bench_workers.py kill [--clients 12] [--seconds 20]
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from contextlib import ExitStack, contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

GRID_ROWS = ["RB . . . .", "TR . . . .", "FX . . . .", "BR . . . .", "DF . . . .", "BE . . . ."]


def multipart(data: bytes, filename: str, name: str) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\n{name}\r\n"
            f"--{boundary}\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"{filename}\"\r\n"
            f"Content-Type: image/jpeg\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"


def request(conn, method: str, path: str, body=None, headers=None) -> tuple[int, dict, dict]:
    if isinstance(body, (dict, list)):
        body, headers = json.dumps(body).encode(), {**(headers or {}), "Content-Type": "application/json"}
    conn.request(method, path, body=body, headers=headers or {})
    r = conn.getresponse()
    data = r.read()
    try:
        doc = json.loads(data) if data else {}
    except ValueError:
        doc = {}
    return r.status, dict(r.getheaders()), doc


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def database(kind: str, tmp: Path):
    if kind == "sqlite":
        yield f"sqlite:///{tmp / 'db.sqlite3'}"
        return
    from pg_helpers import postgres_server, why_not

    if why_not():
        sys.exit(f"bench_workers: {why_not()}")
    with postgres_server() as server:
        yield server.new_database()


def workers_of(pid: int) -> list[int]:
    """The worker processes uvicorn spawned (children running multiprocessing's spawn main)."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == pid and "spawn_main" in cmd and "resource_tracker" not in cmd:
            out.append(int(entry.name))
    return sorted(out)


@contextmanager
def server(db_url: str, workers: int, tmp: Path):
    port = free_port()
    log = (tmp / "serve.log").open("w")
    proc = subprocess.Popen([sys.executable, "-m", "ecoscore", "serve", "--port", str(port), "--db", db_url,
                             "--workers", str(workers)], stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 300
        while (tmp / "serve.log").read_text().count("Application startup complete") < workers:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("the server did not start:\n" + (tmp / "serve.log").read_text()[-3000:])
            time.sleep(0.2)
        yield port, proc
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def loadavg() -> str:
    return Path("/proc/loadavg").read_text().split(" ", 3)[:3].__str__()


def load(args) -> dict:
    photos = sorted((args.photos / "images").glob("*.jpg"))
    assert photos, f"no photos in {args.photos / 'images'}"
    datas = [(p.read_bytes(), p.name) for p in photos]
    tmp = Path(tempfile.mkdtemp())
    results: list = []
    lock = threading.Lock()
    before = loadavg()
    with ExitStack() as stack:
        db_url = stack.enter_context(database(args.db, tmp))
        port, _ = stack.enter_context(server(db_url, args.workers, tmp))

        def client(k: int, deadline: float) -> None:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            _, _, room = request(conn, "POST", "/api/rooms", {})
            token, version, n = None, None, k
            while time.perf_counter() < deadline:
                data, filename = datas[n % len(datas)]
                n += 1
                body, ctype = multipart(data, filename, "player")
                headers = {"Content-Type": ctype}
                if token:
                    headers |= {"X-Player-Token": token, "If-Match": f'"{version}"'}
                start = time.perf_counter()
                try:
                    status, _, doc = request(conn, "POST", f"/api/rooms/{room['id']}/photo", body, headers)
                    ok = status == 200
                    if ok:
                        token, version = doc["token"], doc["version"]
                except (OSError, http.client.HTTPException):
                    status, ok = "connection", False
                    conn.close()
                    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
                with lock:
                    results.append((ok, time.perf_counter() - start, time.perf_counter(), status))

        start = time.perf_counter()
        deadline = start + args.seconds
        threads = [threading.Thread(target=client, args=(k, deadline)) for k in range(args.clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = max(r[2] for r in results) - start
    latencies = sorted(r[1] for r in results)
    q = lambda p: latencies[min(len(latencies) - 1, int(p * len(latencies)))]  # noqa: E731
    statuses: dict = {}
    for r in results:
        statuses[str(r[3])] = statuses.get(str(r[3]), 0) + 1
    return {"mode": "load", "db": args.db, "workers": args.workers, "clients": args.clients,
            "seconds": round(elapsed, 1), "requests": len(results), "errors": sum(not r[0] for r in results),
            "statuses": statuses,
            "latency_s": {"p50": round(statistics.median(latencies), 3), "p90": round(q(0.9), 3),
                          "p99": round(q(0.99), 3), "max": round(latencies[-1], 3)},
            "photos_per_s": round(len(results) / elapsed, 2), "loadavg_before": before, "loadavg_after": loadavg()}


def kill(args) -> dict:
    tmp = Path(tempfile.mkdtemp())
    acked: dict[tuple[str, str], int] = {}  # (room, player) -> the last version acknowledged
    events: list = []  # (time, ok, status)
    lock = threading.Lock()
    before = loadavg()
    with ExitStack() as stack:
        db_url = stack.enter_context(database("postgresql", tmp))
        port, proc = stack.enter_context(server(db_url, 2, tmp))
        pids = workers_of(proc.pid)
        assert len(pids) == 2, f"expected two workers, found {pids}"
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        rooms = [request(conn, "POST", "/api/rooms", {})[2]["id"] for _ in range((args.clients + 5) // 6)]

        def client(k: int, deadline: float) -> None:
            room, name = rooms[k // 6], f"p{k}"
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            born = time.perf_counter()  # when this connection was opened
            token = version = None
            n = 0
            while time.perf_counter() < deadline:
                grid = GRID_ROWS[n % len(GRID_ROWS)] + "\n. . . . .\n. . . . .\n. . . . .\n"
                n += 1
                headers = {"X-Player-Token": token, "If-Match": f'"{version}"'} if token else {}
                try:
                    status, _, doc = request(conn, "PUT", f"/api/rooms/{room}/players/{name}/grid", {"grid": grid},
                                             headers)
                    if status == 200:
                        token, version = doc["token"], doc["version"]
                        with lock:
                            acked[(room, name)] = version
                    elif status == 409:  # a write of ours that was not acknowledged went in: take its version
                        _, _, doc = request(conn, "GET", f"/api/rooms/{room}")
                        version = doc["versions"][name]
                except (OSError, http.client.HTTPException):
                    status = "connection"
                    conn.close()
                    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                    opened, born = born, time.perf_counter()
                else:
                    opened = born
                with lock:
                    events.append((time.perf_counter(), status in (200, 409), status, opened))

        start = time.perf_counter()
        deadline = start + args.seconds
        threads = [threading.Thread(target=client, args=(k, deadline)) for k in range(args.clients)]
        for t in threads:
            t.start()
        time.sleep(args.seconds / 2)
        victim = pids[0]
        killed_at = time.perf_counter()
        os.kill(victim, signal.SIGKILL)
        for t in threads:
            t.join()
        # what the database holds, asked afresh
        lost = []
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        for (room, name), version in sorted(acked.items()):
            _, _, doc = request(conn, "GET", f"/api/rooms/{room}")
            now = doc["versions"].get(name)
            if now is None or now < version:
                lost.append((room, name, version, now))
        respawned = workers_of(proc.pid)
    # A keep-alive connection the killed worker held fails once (its client reconnects, as a
    # browser does); a connection opened after the kill must never fail.
    after = [e for e in events if e[0] > killed_at]
    dead_connections = [e for e in after if not e[1] and e[3] < killed_at]
    fresh_failures = [e for e in after if not e[1] and e[3] >= killed_at]
    return {"mode": "kill", "clients": args.clients, "seconds": args.seconds,
            "writes_acknowledged": sum(1 for e in events if e[2] == 200), "players": len(acked),
            "acknowledged_writes_lost": len(lost), "lost": lost[:5],
            "requests_after_the_kill": len(after),
            "failed_on_connections_the_killed_worker_held": len(dead_connections),
            "errors_after_the_kill_on_other_connections": len(fresh_failures),
            "statuses_of_those": sorted({str(e[2]) for e in fresh_failures}),
            "killed": victim, "workers_before": pids, "workers_after": respawned,
            "loadavg_before": before, "loadavg_after": loadavg()}


def main() -> None:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="mode", required=True)
    p = sub.add_parser("load")
    p.add_argument("--photos", type=Path, required=True, help="folder with images/*.jpg (12 MP)")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--db", choices=["sqlite", "postgresql"], default="sqlite")
    p.add_argument("--clients", type=int, default=20)
    p.add_argument("--seconds", type=float, default=60)
    k = sub.add_parser("kill")
    k.add_argument("--clients", type=int, default=12)
    k.add_argument("--seconds", type=float, default=20)
    args = parser.parse_args()
    print(json.dumps(load(args) if args.mode == "load" else kill(args), indent=2))


if __name__ == "__main__":
    main()
