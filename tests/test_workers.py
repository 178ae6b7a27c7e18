"""Issue 19: `ecoscore serve --workers 2` over one PostgreSQL database: two processes, and a
room written through one connection is seen, at its version, through every other."""
import http.client
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import needs_models
from pg_helpers import free_port

pytestmark = [pytest.mark.slow, needs_models]


def call(port, method, path, body=None, headers=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)  # a new connection each time
    try:
        conn.request(method, path, body=json.dumps(body) if body is not None else None,
                     headers={"Content-Type": "application/json", **(headers or {})})
        r = conn.getresponse()
        return r.status, r.getheader("ETag"), json.loads(r.read() or b"{}")
    finally:
        conn.close()


def stopped(proc: subprocess.Popen) -> int:
    """Ctrl-C to a server, as its operator stops it; its exit code (a kill, and an error, if it hangs)."""
    proc.send_signal(signal.SIGINT)
    try:
        return proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise


def test_two_workers_one_database_every_worker_sees_every_write(pg_server, tmp_path):
    from bench_workers import workers_of  # the bench's helper, in one place

    port = free_port()
    log = tmp_path / "serve.log"
    with log.open("w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "ecoscore", "serve", "--port", str(port),
                                 "--db", pg_server.new_database(), "--workers", "2"], stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 240
        while log.read_text().count("Application startup complete") < 2:
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()[-2000:]
            time.sleep(0.2)
        workers = workers_of(proc.pid)
        assert len(workers) == 2
        status, _, room = call(port, "POST", "/api/rooms", {})
        assert status == 201 or status == 200
        rid = room["id"]
        token = None
        for k in range(6):  # writes and reads, each on a new connection: either worker may take it
            headers = {"X-Player-Token": token, "If-Match": f'"{k}"'} if token else {}
            status, etag, doc = call(port, "PUT", f"/api/rooms/{rid}/players/ann/grid",
                                     {"grid": ". . . . .\n" * 4}, headers)
            assert status == 200, doc
            token = doc["token"]
            seen = {call(port, "GET", f"/api/rooms/{rid}")[1] for _ in range(4)}
            assert seen == {f'"{k + 1}"'}, seen  # the room's version after k + 1 writes, from every worker
        # A worker killed while the supervisor waits for its health ping (stopped first, so that it
        # cannot answer) was replaced only after the ping's 60 s (an organiser's run): now at once.
        os.kill(workers[0], signal.SIGSTOP)
        time.sleep(1.5)  # the supervisor pings each worker every half second: it is waiting on this one
        os.kill(workers[0], signal.SIGKILL)
        killed = time.monotonic()
        while set(workers_of(proc.pid)) in (set(workers), set(workers[1:])):
            assert time.monotonic() - killed < 10, log.read_text()[-2000:]
            time.sleep(0.2)
        workers = workers_of(proc.pid)
        while log.read_text().count("Application startup complete") < 3:  # the new one serves
            assert time.monotonic() < deadline, log.read_text()[-2000:]
            time.sleep(0.2)
        assert {call(port, "GET", f"/api/rooms/{rid}")[0] for _ in range(6)} == {200}
    finally:
        code = stopped(proc)
    # Ctrl-C stops the supervisor cleanly, and its workers with it (none left orphaned)
    assert code == 0, log.read_text()[-2000:]
    assert not [pid for pid in workers if Path(f"/proc/{pid}").exists()]


def test_a_database_that_cannot_be_reached_stops_serve_at_once_with_exit_2(tmp_path):
    # With --workers 2 each worker failed to start with a traceback, and the command exited 0:
    # a service manager would not have restarted it (an organiser's run).
    port = free_port()
    closed = free_port()  # no server listens there
    r = subprocess.run([sys.executable, "-m", "ecoscore", "serve", "--port", str(port), "--workers", "2",
                        "--db", f"postgresql://postgres@127.0.0.1:{closed}/rooms"], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr[-2000:]
    assert r.stderr.strip().splitlines()[-1].startswith("ecoscore: error: cannot reach the database ")


def test_a_file_that_is_no_database_stops_serve_at_once_with_exit_2(tmp_path):
    # --db naming a text file ended in sqlite3's traceback (a review); `rooms prune` said it.
    notes = tmp_path / "notes.txt"
    notes.write_text("not a database\n" * 100)
    r = subprocess.run([sys.executable, "-m", "ecoscore", "serve", "--port", str(free_port()), "--db",
                        f"sqlite:///{notes}"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr[-2000:]
    assert r.stderr.strip().splitlines()[-1] == (f"ecoscore: error: sqlite:///{notes}: not the service's database "
                                                 "(file is not a database)")
    assert notes.read_text() == "not a database\n" * 100


def test_serve_with_its_defaults_starts_and_answers_health(tmp_path):
    # The README's run command: no --db, the default store in the data directory. (A check of
    # the database before starting took the empty setting for a URL and refused to start.)
    import os

    port = free_port()
    log = tmp_path / "serve.log"
    env = {**os.environ, "ECOSCORE_DATA": str(tmp_path / "data")}
    env.pop("ECOSCORE_DB_URL", None)
    with log.open("w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "ecoscore", "serve", "--port", str(port)], stdout=out,
                                stderr=subprocess.STDOUT, env=env)
    try:
        deadline = time.monotonic() + 240
        while True:  # until it answers (uvicorn listens once the app has started)
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()[-2000:]
            try:
                status, _, health = call(port, "GET", "/health")
                break
            except OSError:
                time.sleep(0.3)
        assert status == 200 and health["status"] == "ok" and health["database"] == "ok", health
        assert (tmp_path / "data" / "service" / "ecoscore.sqlite3").is_file()
    finally:
        stopped(proc)


def test_serve_on_every_address_says_the_address_a_phone_opens(tmp_path):
    # "starting on http://0.0.0.0:8000/" opens nothing on a phone (a Russian newcomer's walk): the
    # machine's address on its network is said, as the room links give it.
    import os

    from ecoscore.service.settings import _lan_address

    port = free_port()
    env = {**os.environ, "ECOSCORE_DATA": str(tmp_path / "data")}
    env.pop("ECOSCORE_DB_URL", None)
    env.pop("ECOSCORE_PUBLIC_URL", None)  # (it would be said instead)
    proc = subprocess.Popen([sys.executable, "-m", "ecoscore", "serve", "--host", "0.0.0.0", "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = proc.stderr.readline()
    finally:
        proc.kill()
        proc.wait(30)
    assert line.startswith(f"ecoscore: starting on http://{_lan_address()}:{port}/ "), line
