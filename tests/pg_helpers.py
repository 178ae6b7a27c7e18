"""A real PostgreSQL server for the tests, started from Debian's ``postgresql`` package in a
temporary directory: initdb, pg_ctl, a free port, trust on 127.0.0.1 only. initdb refuses to run
as root, so as root the server runs as the package's ``postgres`` user."""
from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from contextlib import contextmanager
from pathlib import Path


def binaries() -> Path | None:
    """The newest server's bin folder, or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(Path(p).parent.parent.name))
    return Path(found[-1]).parent if found else None


def why_not() -> str | None:
    """Why a server cannot be started here (None: it can)."""
    if binaries() is None:
        return "PostgreSQL is not installed (apt-get install postgresql; scripts/setup.sh test does it)"
    try:
        import psycopg  # noqa: F401
        import psycopg_pool  # noqa: F401
    except ImportError:
        return "psycopg is not installed (pip install -e '.[postgres]')"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root and there is no 'postgres' user to run the server as"
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, port: int, folder: Path, run, options: str = ""):
        self.port, self.folder, self._run, self._options = port, folder, run, options

    def stop(self) -> None:
        """Stop the server (``fast``: its clients' connections are closed), as an operator would."""
        self._run("pg_ctl", "-D", str(self.folder / "data"), "-m", "fast", "-w", "stop")

    def start(self) -> None:
        self._run("pg_ctl", "-D", str(self.folder / "data"), "-l", str(self.folder / "log"), "-o", self._options,
                  "-w", "-t", "60", "start")

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A fresh empty database; returns its URL."""
        import psycopg

        name = "t_" + uuid.uuid4().hex[:12]
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return self.url(name)


@contextmanager
def postgres_server(max_connections: int = 200):
    bin_dir = binaries()
    folder = Path(tempfile.mkdtemp(prefix="ecoscore-pg-"))
    as_root = os.geteuid() == 0
    if as_root:
        user = pwd.getpwnam("postgres")
        os.chown(folder, user.pw_uid, user.pw_gid)

    def run(*args: str, check: bool = True) -> subprocess.CompletedProcess:
        cmd = [str(bin_dir / args[0]), *args[1:]]
        if as_root:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        return subprocess.run(cmd, capture_output=True, text=True, check=check, timeout=120)

    data = folder / "data"
    port = free_port()
    try:
        run("initdb", "-D", str(data), "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8")
        options = (f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c max_connections={max_connections} "
                   "-c fsync=on -c shared_buffers=32MB")
        run("pg_ctl", "-D", str(data), "-l", str(folder / "log"), "-o", options, "-w", "-t", "60", "start")
        yield Server(port, folder, run, options)
    finally:
        if (data / "postmaster.pid").exists():
            run("pg_ctl", "-D", str(data), "-m", "immediate", "-w", "stop", check=False)
        shutil.rmtree(folder, ignore_errors=True)
