"""/health while one client sends the worst input of each kind (issue #17), and 10 concurrent
corrections of one player.

Starts `ecoscore serve` (the real models) on a free port with a fresh store. A poller in its own
process (so that the abuser's work on its side, e.g. encoding 2.4 MB of JSON, cannot delay the
probes through this process's GIL) asks /health every 20 ms over keep-alive while an abuser sends
one kind of bad input after another, as fast as it is answered, each for a few seconds. Every
payload is built once, before its kind starts. Prints per kind the answers, /health's p50, p99
and max meanwhile, whether the p99 meets the floor (100 ms), and the server's CPU time per
request of that kind (all its threads, from /proc).
    python bench/bench_abuse.py [--seconds-each 4] [--only SUBSTRING ...] [--python PATH]
(--python: the interpreter that runs the server, to compare another checkout in the same run conditions)
"""
from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

GRID = "RB TR FX BR DF\nBE EG WF DR ST\nMD RB TR FX BR\nDF BE EG WF DR\n"
FLOOR_MS = 100.0  # /health p99 while one client abuses (issue #17)
JSON = {"Content-Type": "application/json"}


def request(port, method, path, body=b"", headers=None, timeout=30):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        r = conn.getresponse()
        return r.status, r.read()
    except (OSError, http.client.HTTPException) as err:
        return type(err).__name__, b""
    finally:
        conn.close()


def as_json(port, method, path, doc, headers=None):
    return request(port, method, path, json.dumps(doc).encode(), {"Content-Type": "application/json", **(headers or {})})


def multipart(fields: dict, files: dict | list) -> tuple[bytes, dict]:
    """A multipart body; ``files`` as {field: (filename, data)} or [(field, (filename, data)), ...]."""
    b = "benchboundary"
    out = b""
    for k, v in fields.items():
        out += f"--{b}\r\nContent-Disposition: form-data; name=\"{k}\"\r\n\r\n{v}\r\n".encode()
    for k, (name, data) in (files.items() if isinstance(files, dict) else files):
        out += f"--{b}\r\nContent-Disposition: form-data; name=\"{k}\"; filename=\"{name}\"\r\n\r\n".encode() + data + b"\r\n"
    return out + f"--{b}--\r\n".encode(), {"Content-Type": f"multipart/form-data; boundary={b}"}


def raw(port, data: bytes, wait: float = 0.0, read: bool = True):
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    try:
        s.sendall(data)
        time.sleep(wait)
        return s.recv(200).split(b"\r\n")[0].decode(errors="replace") if read else "sent"
    except OSError as err:
        return type(err).__name__
    finally:
        s.close()


def chunked_400mb(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    s.sendall(b"POST /api/photo HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\n"
              b"Transfer-Encoding: chunked\r\n\r\n")
    chunk = b"\xff" * 2**20
    try:
        for _ in range(400):
            s.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
    except OSError:
        pass
    try:
        return s.recv(200).split(b"\r\n")[0].decode(errors="replace") or "closed"
    except OSError as err:
        return type(err).__name__
    finally:
        s.close()


def slow_headers(port, n=200):
    socks = []
    for _ in range(n):
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=30)
            s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
            socks.append(s)
        except OSError:
            break
    time.sleep(3)
    closed = 0
    for s in socks:
        s.settimeout(0.2)
        try:
            closed += s.recv(10) == b""
        except OSError:
            pass
        s.close()
    return f"{closed} of {len(socks)} closed by the server"


def kinds(port):
    png_wide = cv2.imencode(".png", np.full((1, 10000, 3), 128, np.uint8))[1].tobytes()
    png_tall = cv2.imencode(".png", np.full((10000, 1, 3), 128, np.uint8))[1].tobytes()
    jpeg_long = cv2.imencode(".jpg", np.full((1, 60000, 3), 128, np.uint8))[1].tobytes()
    pairs = ",".join(["5:2"] * 300_000)
    big_form = multipart({"others": pairs}, {"photo": ("a.jpg", b"\xff\xd8\xff")})
    big_json = json.dumps({"players": [{"name": "a", "grid": GRID}], "others": [[5, 2]] * 300_000}).encode()
    long_grid = json.dumps({"players": [{"name": "a", "grid": "[" * 100_000}]}).encode()
    nested = b'{"players":[{"name":"a","grid":' + b"[" * 30000 + b"]" * 30000 + b"}]}"
    junk_game = multipart({}, [("photos", (f"{k}.jpg", b"\xff\xd8\xff" + b"\0" * 5_000_000)) for k in range(8)])
    room = json.loads(as_json(port, "POST", "/api/rooms", {"mode": "solo"})[1])
    counter = iter(range(10**9))
    cards = GRID.split()
    rng = np.random.default_rng(7)

    def game_of_8(varied: bool) -> bytes:
        """A whole game of 8 players (about 200 reasons to translate), new grids each time if ``varied``."""
        grids = [rng.permutation(cards) if varied else np.roll(cards, k) for k in range(8)]
        return json.dumps({"players": [{"name": f"p{k}", "grid": "\n".join(" ".join(g[r * 5:r * 5 + 5]) for r in range(4))}
                                       for k, g in enumerate(grids)]}).encode()

    same_game = game_of_8(False)
    return {
        "others: 300,000 pairs, JSON (2.4 MB)": lambda: request(port, "POST", "/api/grid", big_json, JSON)[0],
        "others: 300,000 pairs, photo form": lambda: request(port, "POST", "/api/photo", *big_form)[0],
        "others: 11 pairs": lambda: as_json(
            port, "POST", "/api/grid", {"players": [{"name": "a", "grid": GRID}], "others": [[5, 2]] * 11})[0],
        "grid: 100,000 nested [": lambda: request(port, "POST", "/api/grid", long_grid, JSON)[0],
        "grid: 60,000 nested [ in the body": lambda: request(port, "POST", "/api/grid", nested, JSON)[0],
        "answers in Russian: 8 players, the same game": lambda: request(
            port, "POST", "/api/grid?lang=ru", same_game, JSON)[0],
        "answers in Russian: 8 players, a new game each": lambda: request(
            port, "POST", "/api/grid?lang=ru", game_of_8(True), JSON)[0],
        "grid: a cell that is a list": lambda: as_json(
            port, "POST", "/api/grid", {"players": [{"name": "a", "grid": [[["RB"]] * 5] * 4}]})[0],
        "image: PNG 10000 x 1": lambda: request(port, "POST", "/api/photo", *multipart({}, {"photo": ("a.png", png_wide)}))[0],
        "image: PNG 1 x 10000": lambda: request(port, "POST", "/api/photo", *multipart({}, {"photo": ("a.png", png_tall)}))[0],
        "image: JPEG 60000 x 1": lambda: request(port, "POST", "/api/photo", *multipart({}, {"photo": ("a.jpg", jpeg_long)}))[0],
        "upload: chunked, 400 MB": lambda: chunked_400mb(port),
        "upload: Content-Length 400 MB": lambda: raw(
            port, b"POST /api/photo HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\n"
                  b"Content-Length: 400000000\r\n\r\n"),
        "upload: 8 photos of junk, 10 at once": lambda: _parallel(10, lambda: request(
            port, "POST", "/api/game", *junk_game)[0]),
        "body: stalls after 10 bytes": lambda: raw(
            port, b"POST /api/grid HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 999\r\n\r\n"
                  b"{\"players\""),
        "headers: 200 connections that never finish": lambda: slow_headers(port),
        "room: 600 players": lambda: as_json(
            port, "PUT", f"/api/rooms/{room['id']}/players/junk{next(counter)}/grid", {"grid": GRID})[0],
        "room: bot and neutral without a token": lambda: as_json(
            port, "PUT", f"/api/rooms/{room['id']}/bot", {"grid": GRID})[0],
        "room: a player named 'bot' in a solo room": lambda: as_json(
            port, "PUT", f"/api/rooms/{room['id']}/players/bot/grid", {"grid": GRID})[0],
        "room: a 6,000-character name": lambda: as_json(
            port, "PUT", f"/api/rooms/{room['id']}/players/{'x' * 6000}/grid", {"grid": GRID})[0],
    }


def _parallel(n, fn):
    out = [None] * n
    threads = [threading.Thread(target=lambda k=k: out.__setitem__(k, fn())) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return ",".join(sorted(str(o) for o in set(out)))


def corrections(port) -> dict:
    room = json.loads(as_json(port, "POST", "/api/rooms", {})[1])
    me = json.loads(as_json(port, "PUT", f"/api/rooms/{room['id']}/players/me/grid", {"grid": GRID})[1])
    codes = ["RB", "TR", "FX", "BR", "DF", "BE", "EG", "WF", "DR", "MD"]
    out = [None] * 10

    def correct(k):
        grid = codes[k] + GRID[2:]
        out[k] = as_json(port, "PUT", f"/api/rooms/{room['id']}/players/me/grid", {"grid": grid},
                         {"X-Player-Token": me["token"], "If-Match": f'"{me["version"]}"'})[0]

    threads = [threading.Thread(target=correct, args=(k,)) for k in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    doc = json.loads(request(port, "GET", f"/api/rooms/{room['id']}")[1])
    kept = [k for k, s in enumerate(out) if s == 200]
    first = doc["game"]["players"][0]["grid"][0][0]
    expected = [json.loads(as_json(port, "POST", "/api/grid", {"players": [{"name": "x", "grid": codes[k] + GRID[2:]}]})[1])
                ["players"][0]["grid"][0][0] for k in kept]
    return {"answers": dict(Counter(map(str, out))), "kept_is_stored": expected == [first],
            "version_after": doc["versions"]["me"], "lost_silently": 10 - len(kept) - out.count(409)}


def poll(port: int, out, stop) -> None:
    """/health every 20 ms over one keep-alive connection: (wall-clock start, seconds) per probe."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    while not stop.is_set():
        t0, p0 = time.time(), time.perf_counter()
        try:
            conn.request("GET", "/health")
            conn.getresponse().read()
            out.put((t0, time.perf_counter() - p0))
        except (OSError, http.client.HTTPException):
            out.put((t0, float("inf")))
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        time.sleep(0.02)
    out.put(None)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of every thread of ``pid`` so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(p * len(values)))] * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds-each", type=float, default=4.0)
    parser.add_argument("--only", nargs="*", default=[], help="run only the kinds whose name holds one of these")
    parser.add_argument("--python", default=sys.executable, help="the interpreter that runs the server")
    args = parser.parse_args()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    tmp = Path(tempfile.mkdtemp())
    server = subprocess.Popen([args.python, "-m", "ecoscore", "serve", "--port", str(port),
                               "--db", f"sqlite:///{tmp / 'db.sqlite3'}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    probes, stop = multiprocessing.Queue(), multiprocessing.Event()
    spans: list[tuple[str, float, float]] = []
    try:
        for _ in range(600):
            if request(port, "GET", "/health", timeout=2)[0] == 200:
                break
            time.sleep(0.2)
        poller = multiprocessing.Process(target=poll, args=(port, probes, stop), daemon=True)
        poller.start()
        t0 = time.time()
        time.sleep(args.seconds_each)
        spans.append(("idle", t0, time.time()))
        rows = []
        for name, attack in kinds(port).items():
            if args.only and not any(o in name for o in args.only):
                continue
            answers: Counter = Counter()
            cpu0, t0 = cpu_seconds(server.pid), time.time()
            end = time.perf_counter() + args.seconds_each
            while time.perf_counter() < end:
                answers[str(attack())] += 1
            spans.append((name, t0, time.time()))
            rows.append((name, answers, cpu_seconds(server.pid) - cpu0))
        t0 = time.time()
        fixes = corrections(port)
        spans.append(("corrections", t0, time.time()))
        stop.set()
        samples = []
        while (probe := probes.get(timeout=30)) is not None:
            samples.append(probe)
        poller.join(10)
        alive = request(port, "GET", "/health")[0]
    finally:
        server.terminate()
        server.wait(10)

    def during(name):
        _, t0, t1 = next(span for span in spans if span[0] == name)
        return [d for t, d in samples if t0 <= t < t1]

    print(f"{'input':44} {'answers':36} {'probes':>6} {'p50 ms':>7} {'p99 ms':>7} {'max ms':>7} "
          f"{'floor':>5} {'cpu/req':>8}")
    per_kind, failing = {}, []
    for name, answers, cpu in [("idle", Counter(), 0.0)] + rows:
        lat = during(name)
        text = ", ".join(f"{k} x{v}" for k, v in answers.most_common(3))
        p99 = pct(lat, 0.99)
        ok = p99 <= FLOOR_MS
        if name != "idle":
            per_kind[name] = round(p99, 1)
            failing += [] if ok else [name]
        n = sum(answers.values()) * (10 if "10 at once" in name else 1)
        cost = f"{cpu / n * 1000:6.1f}ms" if n else ""
        print(f"{name[:44]:44} {text[:36]:36} {len(lat):6} {statistics.median(lat) * 1000:7.1f} {p99:7.1f} "
              f"{max(lat) * 1000:7.1f} {'ok' if ok else 'OVER':>5} {cost:>8}")
    under = [d for name, *_ in rows for d in during(name)]
    server_errors = sum(v for _, a, _ in rows for k, v in a.items() if k.startswith("5") and k != "503")
    print(json.dumps({"health_p99_ms_under_abuse": round(pct(under, 0.99), 1),
                      "health_max_ms": round(max(under) * 1000, 1), "health_samples": len(under),
                      "floor_ms": FLOOR_MS, "kinds_over_floor": failing, "health_p99_ms_per_kind": per_kind,
                      "server_errors_5xx": server_errors, "alive_after": alive, "corrections": fixes}))


if __name__ == "__main__":
    main()
