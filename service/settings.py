"""Every setting of the service in one place: defaults here, ``ECOSCORE_*`` environment variables
over them, ``ecoscore serve`` flags over both (the command passes its flags as keyword arguments)."""
from __future__ import annotations

import os

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from ecoscore.paths import data_dir
from ecoscore.vision.decode import MAX_BYTES

MB = 2**20


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="ECOSCORE_", extra="ignore")

    host: str = Field("127.0.0.1", description="0.0.0.0 to reach it from a phone on the same network")
    port: int = Field(8000, ge=0, le=65535)
    forwarded_allow_ips: str = Field("127.0.0.1", description="proxies whose X-Forwarded-For names the client "
                                                              "(comma-separated addresses, or *): behind a load "
                                                              "balancer, its address, so that each player's share "
                                                              "of rooms, decks and the read queue is their own")
    db_url: str = Field("", description="sqlite:///PATH or postgresql://USER:PASSWORD@HOST/NAME (the postgres extra); "
                                        "empty: <data>/service/ecoscore.sqlite3")
    db_pool: int = Field(8, ge=1, le=100, description="PostgreSQL connections each worker keeps at most")
    workers: int = Field(1, ge=1, le=64, description="processes serving over one database (uvicorn's workers); "
                                                    "each has its own readers")
    public_url: str = Field("", description="the address phones use, for room links and QR codes "
                                             "(never taken from the request's Host header)")
    # photo reads
    deck: str = Field("", max_length=40, description="the enrolled deck photos are read against when a request names "
                                                      "none (`ecoscore deck list`); empty: the built-in stand-in")
    reads: int = Field(0, ge=0, le=64, description="photos read at once in each worker; 0: the cores shared out "
                                                   "among the workers, at least one each")
    threads: int = Field(1, ge=0, le=64, description="threads per inference: photos are read in parallel, one core "
                                                     "each (0: the cores shared out among every reader of every worker)")
    read_queue: int = Field(32, ge=0, description="photo requests waiting for a reader beyond those being read; "
                                                  "more are answered 503 + Retry-After (their body dropped, not read)")
    queue_wait: float = Field(30.0, gt=0, description="seconds a photo may wait for a reader before a 503")
    # 8: a whole table's players behind one home router, each sending their photo at once (one
    # address to a service on the internet); at 4, the fifth player of a table got a 429.
    photos_per_client: int = Field(8, ge=1, description="photo requests one client (address) may have under way at "
                                                        "once (sending or in the read queue); more are answered 429")
    # input bounds
    max_upload: int = Field(MAX_BYTES, ge=1, description="bytes of one photo")
    max_photos: int = Field(8, ge=1, description="photos in one game upload")
    max_game_upload: int = Field(100 * MB, ge=1, description="bytes of one game upload, all photos together")
    max_json: int = Field(64 * 1024, ge=1024, description="bytes of a JSON request body")
    max_players: int = Field(8, ge=1, le=100, description="players in a room or a scored game")
    max_rooms: int = Field(2_000, ge=1, description="rooms the service keeps; past it, no new room is started until "
                                                     "idle ones are deleted (room_idle_days)")
    max_others: int = Field(10, ge=0, description="other players' figures given with a photo or grid")
    max_name: int = Field(40, ge=1, description="characters of a player's name")
    max_decks: int = Field(200, ge=1, description="decks the service keeps; past it, no new deck is started over "
                                                  "the service (a deck of 20 photos' cards is ~14 MB on disk; remove "
                                                  "some with `ecoscore deck remove`)")
    # One client's share of those, so that no one client fills them for every other player.
    rooms_per_client_hour: int = Field(30, ge=1, description="rooms one client (address) may start in an hour")
    rooms_per_client: int = Field(100, ge=1, description="rooms one client (address) may hold at once; past it, its "
                                                      "room untouched longest makes way for a new one, once "
                                                      "untouched for a day (else 429)")
    decks_per_client_hour: int = Field(10, ge=1, description="decks one client (address) may start in an hour")
    decks_per_client: int = Field(20, ge=1, description="decks one client (address) may keep, started over the "
                                                     "service (a finished deck is kept for good)")
    # time bounds
    max_connections: int = Field(500, ge=10, description="open connections; more are answered 503")
    connections_per_client: int = Field(60, ge=1, description="open connections one client (address) may hold; "
                                                              "more are closed at once (not counted for the "
                                                              "proxies of forwarded_allow_ips)")
    header_timeout: float = Field(10.0, gt=0, description="seconds to send a request's headers")
    body_timeout: float = Field(15.0, gt=0, description="seconds the body may pause between two chunks")
    # A photo request holds a place in the read queue from its headers on: bodies trickled in a
    # byte every few seconds held every place, and real uploads got 503 (an attack on a running
    # server). A phone on a poor uplink sends 50 KB/s and more.
    min_body_rate: int = Field(16 * 1024, ge=0, description="bytes a second a request body must average once "
                                                           "body_rate_grace has passed (0: no floor)")
    body_rate_grace: float = Field(10.0, ge=0, description="seconds a request body may take before min_body_rate counts")
    request_timeout: float = Field(90.0, gt=0, description="seconds for a whole request, queue included")
    db_timeout: float = Field(5.0, gt=0, description="seconds to wait for the database's write lock before a 503")
    # retention
    room_idle_days: float = Field(30.0, ge=0, description="rooms untouched this long are deleted, overlays too")
    deck_unfinished_days: float = Field(7.0, ge=0, description="a deck started on a phone that still lacks a type, "
                                        "untouched this long, is deleted (it holds a place of max_decks)")
    prune_every_hours: float = Field(6.0, gt=0)
    access_log: bool = True

    def database_url(self) -> str:
        return self.db_url or f"sqlite:///{data_dir() / 'service' / 'ecoscore.sqlite3'}"

    def readers(self) -> int:
        """Photos each worker reads at once: ``reads``, or this machine's cores over the workers."""
        return self.reads or max(1, _cores() // self.workers)

    def inference_threads(self) -> int:
        """Threads per inference: ``threads``, or the cores over all the readers of all the workers
        (at most 2, as vision/runtime.py does within one process)."""
        return self.threads or max(1, min(2, _cores() // (self.readers() * self.workers)))

    @property
    def on_every_address(self) -> bool:
        return self.host in ("0.0.0.0", "::", "")

    def link_base(self) -> str:
        """Where phones reach the service: ``public_url``, else ``local_base``."""
        return self.public_url.rstrip("/") if self.public_url else self.local_base()

    def local_base(self) -> str:
        """This machine's address (on its network, where the service listens on every address) and port."""
        host = _lan_address() if self.on_every_address else self.host
        return f"http://{f'[{host}]' if ':' in host else host}:{self.port}"  # (an IPv6 address bracketed)

    def upload_limit(self, photos: int) -> int:
        """Bytes a multipart body of ``photos`` photos may take (form fields and boundaries beside them)."""
        return min(self.max_upload * photos, self.max_game_upload if photos > 1 else self.max_upload) + 64 * 1024


def _cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _lan_address() -> str:
    """This machine's address on its local network (no packet is sent: UDP connect only routes)."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("10.255.255.255", 1))
            return s.getsockname()[0]
        except OSError:
            return "127.0.0.1"
