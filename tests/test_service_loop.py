"""Issue 17: /health answers within 100 ms while one client sends the worst input of each kind
(bench/bench_abuse.py). What held it, each found by measuring the server under that input, has
a test here: through the real app, with real requests (a live uvicorn where the connection
matters)."""
import gc
import http.client
import json
import time

import pytest
from fastapi.testclient import TestClient
from service_helpers import SlowReader, live_server

from ecoscore.service.app import Settings, create_app

pytestmark = pytest.mark.slow  # a server: the full suite only


@pytest.fixture()
def settings(tmp_path):
    return Settings(db_url=f"sqlite:///{tmp_path / 'store.sqlite3'}", public_url="https://eco.example",
                    access_log=False)


def _get(port: int, path: str = "/health") -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path)
        r = conn.getresponse()
        r.read()
        return r.status
    finally:
        conn.close()


async def still_here() -> bool:
    """A client that never goes away (``ReadQueue.run``'s ``gone``)."""
    return False


# ---- garbage collection: full collections ran on the loop and walked the whole heap ----
def test_answered_requests_are_let_go_at_once(settings):
    """Each connection's header deadline held its request cycle for header_timeout (10 s) after
    the answer: at a few hundred requests a second, ~100,000 live objects for the garbage
    collector to walk, 90-210 ms a full collection on the event loop (bench_abuse, nested JSON)."""
    from uvicorn.protocols.http.h11_impl import RequestResponseCycle

    with live_server(settings, SlowReader()) as port:
        for _ in range(60):
            assert _get(port) == 200
        time.sleep(0.3)
        gc.collect()
        held = sum(isinstance(o, RequestResponseCycle) for o in gc.get_objects())
    assert held <= 2, f"{held} answered requests still held"


def test_the_heap_made_at_start_up_is_left_out_of_garbage_collection(settings):
    """Models, modules and the app are made once: a full collection while serving walks only
    what requests made (a few thousand objects: 1-12 ms instead of 90-210 ms measured), and
    the heap is handed back to the collector at shutdown."""
    app = create_app(settings, reader=SlowReader())
    with TestClient(app) as client:
        assert client.get("/health").status_code == 200
        assert gc.get_freeze_count() > 10_000
        tracked = {id(o) for o in gc.get_objects()}
        assert id(app.state.services) not in tracked and id(app.router) not in tracked
    assert gc.get_freeze_count() == 0


# ---- work that waited on the loop, or for a thread ----
def test_health_needs_no_worker_thread(settings, monkeypatch):
    """The services dependency was a plain ``def``, which FastAPI runs in its thread pool: with
    its 40 threads busy (slow scorings, a locked database), /health queued behind them."""
    import threading

    import ecoscore.service.routes.score as score_routes

    release = threading.Event()
    real = score_routes.score_game

    def held(*args, **kwargs):
        release.wait(10)
        return real(*args, **kwargs)

    monkeypatch.setattr(score_routes, "score_game", held)
    body = b'{"players": [{"name": "a", "grid": "RB TR FX BR DF\\nBE EG WF DR ST\\nMD RB TR FX BR\\nDF BE EG WF DR"}]}'

    def post(port):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("POST", "/api/grid", body, {"Content-Type": "application/json"})
        conn.getresponse().read()

    with live_server(settings, SlowReader()) as port:
        busy = [threading.Thread(target=post, args=(port,)) for _ in range(45)]  # more than the 40 threads
        for t in busy:
            t.start()
        time.sleep(1.0)
        threading.Timer(3.0, release.set).start()
        started = time.perf_counter()
        assert _get(port) == 200
        waited = time.perf_counter() - started
        release.set()
        for t in busy:
            t.join()
    assert waited < 1.5, f"/health waited {waited:.2f} s for a thread"


def test_a_decks_first_photo_does_not_hold_the_loop(settings, monkeypatch):
    """The first photo of an enrolled deck loads its matcher (the deck's files and the embedder's
    model, seconds): that ran on the event loop, and /health waited as long."""
    import threading

    from ecoscore.service.decks import Decks

    monkeypatch.setattr(Decks, "matcher", lambda self, name: time.sleep(2.0))
    body = (b"--b\r\nContent-Disposition: form-data; name=\"deck\"\r\n\r\nmine\r\n"
            b"--b\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"a.jpg\"\r\n\r\nxx\r\n--b--\r\n")
    statuses = []

    def post(port):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("POST", "/api/photo", body, {"Content-Type": "multipart/form-data; boundary=b"})
        statuses.append(conn.getresponse().status)

    with live_server(settings, SlowReader()) as port:
        upload = threading.Thread(target=post, args=(port,))
        upload.start()
        time.sleep(0.5)
        started = time.perf_counter()
        assert _get(port) == 200
        waited = time.perf_counter() - started
        upload.join()
    assert statuses == [422]  # the stand-in reader finds no tableau
    assert waited < 1.0, f"/health waited {waited:.2f} s for a deck to load"


# ---- bodies refused before they are parsed ----
NESTED = b'{"players":[{"name":"a","grid":' + b"[" * 30000 + b"]" * 30000 + b"}]}"


def test_deeply_nested_json_is_refused_before_it_is_parsed(settings, monkeypatch):
    """60,000 nested ``[`` (under the 64 KB limit): the parser built a thousand lists before its
    recursion limit, every request. Now the arrays and objects are counted first (strings left
    out), in C, and the body is refused with a 400 that says why."""
    import json

    parsed = []
    real = json.loads
    monkeypatch.setattr(json, "loads", lambda s, *a, **k: parsed.append(len(s)) or real(s, *a, **k))
    with TestClient(create_app(settings, reader=SlowReader())) as client:
        r = client.post("/api/grid", content=NESTED, headers={"Content-Type": "application/json"})
        assert r.status_code == 400 and "nests too deeply" in r.json()["detail"], r.text
        assert len(NESTED) not in parsed, "the nested body went to the JSON parser"
        # brackets inside strings are text: a grid given as text full of them is only refused by the grid parser
        r = client.post("/api/grid", json={"players": [{"name": "a", "grid": "[{" * 900}]})
        assert r.status_code == 422, r.text
        players = [{"name": f"p{k}", "grid": [["RB"] * 5] * 4} for k in range(8)]  # the largest game there is
        r = client.post("/api/grid", json={"players": players, "others": [[5, 2]] * 10})
        assert r.status_code == 200, r.text


@pytest.mark.parametrize("number", ["1e999", "-1e999", "NaN", "Infinity", "-Infinity"])
def test_a_number_that_is_not_finite_is_refused_not_echoed_into_a_500(settings, number):
    """Python's JSON parser reads these; the 422 that echoed one back could not be written (500)."""
    body = f'{{"grid": [[{number}]], "others": [[{number}, 1]]}}'.encode()
    with TestClient(create_app(settings, reader=SlowReader()), raise_server_exceptions=False) as client:
        r = client.post("/api/grid", content=body, headers={"Content-Type": "application/json"})
        assert r.status_code == 400 and "not finite" in r.json()["detail"], r.text
        r = client.post("/api/grid", content=body, headers={"Content-Type": "application/json",
                                                             "Accept-Language": "cs"})
        assert r.status_code == 400 and "není konečné" in r.json()["detail"], r.text
        # a big but finite number is a number: the grid parser says what is wrong with it
        r = client.post("/api/grid", content=b'{"grid": [[1e300]]}', headers={"Content-Type": "application/json"})
        assert r.status_code == 422, r.text


def test_a_json_body_in_another_encoding_or_with_an_endless_number_is_refused_saying_why(settings):
    """The container count reads the bytes as UTF-8; Python's parser also reads UTF-16, where
    U+0122 holds a quote's byte: the brackets after it were taken for text and 10,000 nested
    arrays reached the parser (an attack's find). A 5,000-digit number was a bare 400."""
    nested = ('{"z": "\u0122", "players": ' + "[" * 300 + "]" * 300 + "}").encode("utf-16-le")
    with TestClient(create_app(settings, reader=SlowReader())) as client:
        # read as the UTF-8 it is not (its NUL bytes): no JSON, not 300 nested arrays
        r = client.post("/api/grid", content=nested, headers={"Content-Type": "application/json"})
        assert r.status_code == 422 and r.json()["detail"][0]["type"] == "json_invalid", r.text
        assert r.json()["detail"][0]["ctx"]["error"].startswith("Expecting property name")
        for lang, said in (("en", "not UTF-8"), ("it", "non è testo UTF-8")):
            r = client.post(f"/api/grid?lang={lang}", content=b'{"players": [{"name": "\xff\xfeab"}]}',
                            headers={"Content-Type": "application/json"})
            assert r.status_code == 400 and said in r.json()["detail"], r.text
        # a byte order mark before UTF-8 may be ignored (RFC 8259), and is
        r = client.post("/api/grid", content=b"\xef\xbb\xbf" + json.dumps({"players": [{"name": "a", "grid": [["RB"] * 5] * 4}]}).encode(),
                        headers={"Content-Type": "application/json"})
        assert r.status_code == 200, r.text
        r = client.post("/api/grid", content=b'{"others": [[' + b"7" * 5000 + b', 1]]}',
                        headers={"Content-Type": "application/json"})
        assert r.status_code == 400 and "more than 100 digits" in r.json()["detail"], r.text


def test_the_container_count_stays_linear_on_hostile_strings():
    """Strings are stripped only for a body with many brackets, by one scan from each quote to
    its closing quote or the end: quotes that never close cannot make it quadratic."""
    from ecoscore.service.bodies import MAX_JSON_CONTAINERS, containers

    for body in (b"[" * 300 + b'"' + b'\\"' * 32_000, b"[" * 300 + b'"' * 64_000, b"[" * 300 + b'"' + b"\\" * 64_000):
        started = time.thread_time()
        assert containers(body) > MAX_JSON_CONTAINERS
        assert time.thread_time() - started < 0.5
    assert containers(b'{"a": "' + b"[{" * 1000 + b'", "b": [1, {"c": "]]\\"{"}]}') == 3


def test_a_long_form_field_is_refused_as_it_streams(settings):
    """A 2.4 MB ``others`` field: Starlette's limit for a form field is 1 MB, so the server
    parsed a megabyte before refusing, and then the rest of the body to drop it. Now the field
    is refused at 16 KB, and the answer closes the connection: the rest is never parsed."""
    from service_helpers import answer, raw

    field = b"5:2," * 600_000
    body = (b"--b\r\nContent-Disposition: form-data; name=\"others\"\r\n\r\n" + field +
            b"\r\n--b\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"a.jpg\"\r\n\r\nxx\r\n--b--\r\n")
    with live_server(settings, SlowReader()) as port:
        sock = raw(port, b"POST /api/photo HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\n"
                         b"Content-Length: %d\r\n\r\n%s" % (len(body), body[:128 * 1024]), timeout=3)
        reply = answer(sock)  # only an eighth of a megabyte sent: the answer must come without the rest
    head = reply.split(b"\r\n\r\n")[0].lower()
    assert head.startswith(b"http/1.1 400"), reply[:200]
    assert b"connection: close" in head


def test_a_read_that_raises_lets_its_photo_go_without_a_collection():
    # The exception's traceback held the queue's frame, whose future held the exception: a cycle
    # that kept each refused upload until a garbage collection (40 refused 24 MB uploads at once:
    # +630 MB, an attack). Freed when the exception is, with the collector off.
    import asyncio
    import weakref

    import numpy as np

    from ecoscore.service.reads import ReadQueue


    def refuse(photo):
        raise ValueError("not an image")

    async def scenario():
        queue = ReadQueue(1, 2, 10.0)
        photo = np.zeros(1 << 20, np.uint8)
        held = weakref.ref(photo)
        try:
            await queue.run(refuse, photo, gone=still_here)
        except ValueError:
            pass
        del photo
        queue.close()
        return held

    gc.disable()
    try:
        held = asyncio.run(scenario())
        assert held() is None, "the photo of a refused read is kept until a collection"
    finally:
        gc.enable()


def test_a_reader_set_free_goes_to_the_client_with_fewest_reads_running():
    # First come, first served: one client's eight photos of strewn cards (10-19 s each) held
    # every reader, and another player's photo waited 27 s or got a 503 (an attack).
    import asyncio

    from ecoscore.service.reads import ReadQueue

    async def scenario():
        queue = ReadQueue(1, 8, 10.0)
        order: list[str] = []


        def read(who):
            time.sleep(0.05)
            order.append(who)

        greedy = [asyncio.create_task(queue.run(read, f"greedy-{k}", gone=still_here, client="10.0.0.1")) for k in range(4)]
        await asyncio.sleep(0.01)  # the greedy client's photos wait in line first
        other = asyncio.create_task(queue.run(read, "other", gone=still_here, client="10.0.0.2"))
        await asyncio.gather(*greedy, other)
        queue.close()
        return order

    order = asyncio.run(scenario())
    assert order[:2] == ["greedy-0", "other"], order  # next after the read under way, not after all four
    assert order[2:] == ["greedy-1", "greedy-2", "greedy-3"]  # one client's own reads keep their order


def test_a_game_under_way_is_read_to_its_end_before_games_not_begun_and_a_lone_photo_before_both():
    # In turns round every game, 7 games of 8 photos each reached their last photos together at the
    # 30 s wait, and all 7 were refused, their reads thrown away (an attack): a game under way goes
    # on (fewest photos waiting) and the first games are answered; a lone photo still goes first.
    import asyncio
    import threading

    from ecoscore.service.reads import ReadQueue

    async def scenario():
        queue = ReadQueue(1, 16, 10.0)
        order: list[str] = []


        loop, second_read, lone_waits = asyncio.get_running_loop(), asyncio.Event(), threading.Event()

        def read(who):
            if who == "a1":  # the lone photo comes while the first game's second photo is read
                loop.call_soon_threadsafe(second_read.set)
                lone_waits.wait(10)
            order.append(who)

        games = [asyncio.create_task(queue.run(read, f"{game}{k}", gone=still_here, client=f"10.0.0.{n}"))
                 for n, game in enumerate("abc") for k in range(3)]
        await second_read.wait()
        lone = asyncio.create_task(queue.run(read, "lone", gone=still_here, client="10.0.0.9"))
        while not any(client == "10.0.0.9" for _, client, _ in queue._waiters):
            await asyncio.sleep(0.001)
        lone_waits.set()
        await asyncio.gather(*games, lone)
        queue.close()
        return order

    order = asyncio.run(scenario())
    assert order == ["a0", "a1", "lone", "a2", "b0", "b1", "b2", "c0", "c1", "c2"], order


def test_a_game_is_not_starved_by_a_client_keeping_lone_photos_in_flight():
    # A client always holding a photo waiting (two in flight) has fewer waiting than a game of
    # eight: it went first every time, and the game's photos all waited out their wait (a review).
    # A photo waiting half its wait goes first.
    import asyncio

    from ecoscore.service.reads import QueueFull, ReadQueue

    async def scenario():
        queue = ReadQueue(1, 16, 3.0)
        served: list[str] = []
        stop = False


        def read(who):
            time.sleep(0.05)
            served.append(who)

        async def keeps_two_in_flight(k):
            while not stop:
                await queue.run(read, f"lone-{k}", gone=still_here, client="10.0.0.1")

        lone = [asyncio.create_task(keeps_two_in_flight(k)) for k in range(2)]
        await asyncio.sleep(0.1)
        game = await asyncio.gather(*(queue.run(read, f"game-{k}", gone=still_here, client="10.0.0.2") for k in range(8)),
                                    return_exceptions=True)
        stop = True
        await asyncio.gather(*lone)
        queue.close()
        return game, served

    game, served = asyncio.run(scenario())
    assert not any(isinstance(answer, QueueFull) for answer in game), game
    assert sum(who.startswith("game-") for who in served) == 8


def test_two_readers_set_free_go_to_two_clients_and_the_counts_come_back_to_none():
    # Counted once its read began, a client handed one reader looked idle to the next hand-over
    # in the same pass, and took both (a review).
    import asyncio

    from ecoscore.service.reads import ReadQueue

    async def scenario():
        queue = ReadQueue(2, 8, 10.0)
        started: list[str] = []


        def read(who):
            started.append(who)
            time.sleep(0.05)

        first = [asyncio.create_task(queue.run(read, f"a{k}", gone=still_here, client="A")) for k in range(2)]
        await asyncio.sleep(0.01)
        waiting = [asyncio.create_task(queue.run(read, f"a{k}", gone=still_here, client="A")) for k in range(2, 5)]
        await asyncio.sleep(0.01)
        other = asyncio.create_task(queue.run(read, "b", gone=still_here, client="B"))
        await asyncio.gather(*first, *waiting, other)
        counts = (dict(queue._running), dict(queue._last_turn), queue._free)
        queue.close()
        return started, counts

    started, (running, turns, free) = asyncio.run(scenario())
    assert started.index("b") <= 2, started  # with the first reader set free, not after A's queue
    assert running == {} and turns == {} and free == 2


# ---- memory: the inference state is made at start-up, once ----
def test_each_reader_is_warmed_in_its_own_thread_one_at_a_time():
    """OpenVINO keeps working memory per stream, and a thread's inferences run on its stream:
    warmed in another thread, the read threads' streams were made by the first reads and kept
    (1.3 x idle RSS a minute after a burst). And two first inferences at once hung in a probe."""
    import asyncio
    import threading

    from ecoscore.service.reads import ReadQueue

    queue = ReadQueue(3, 4, 1.0)
    seen, running, overlap = [], [0], [False]
    lock = threading.Lock()

    def warm():
        with lock:
            running[0] += 1
            overlap[0] |= running[0] > 1
        time.sleep(0.05)
        seen.append(threading.current_thread().name)
        with lock:
            running[0] -= 1

    asyncio.run(queue.on_each_reader(warm))
    reads_on = set()
    asyncio.run(_read_threads(queue, reads_on))
    queue.close()
    assert len(seen) == 3 and len(set(seen)) == 3 and not overlap[0]
    assert reads_on <= set(seen)


async def _read_threads(queue, names: set) -> None:
    import asyncio
    import threading

    async def gone():
        return False

    def where():
        time.sleep(0.02)
        names.add(threading.current_thread().name)

    await asyncio.gather(*(queue.run(where, gone=gone) for _ in range(12)))


def test_the_service_warms_its_reader_in_the_read_threads(settings, monkeypatch):
    import threading

    import ecoscore.service.app as app_module

    warmed = []

    class Reader(SlowReader):
        def __init__(self, **kwargs):
            super().__init__()

        def warm_up(self):
            warmed.append(threading.current_thread().name)

    monkeypatch.setattr(app_module, "Reader", Reader)
    settings.reads = 2
    with TestClient(create_app(settings)) as client:
        assert client.get("/health").status_code == 200
    assert len(warmed) == 2 and len(set(warmed)) == 2 and all(n.startswith("read") for n in warmed), warmed


@pytest.mark.skipif(not (__import__("ecoscore.paths").paths.models_dir() / "finder.onnx").is_file(),
                    reason="the shipped models are not in models/")
def test_closer_look_canvases_run_on_one_open_model_with_one_stream():
    """Each stream holds working memory for each compiled canvas: with two reads at once the
    finder's 15 canvases took 1.8 GB warmed. The first look's canvases keep a shape and a stream
    per read each; the closer looks' bigger ones (used now and then) all run on one model compiled
    open, with one stream (1.19 GB warmed before it with 20 canvases, 0.77 after: bench_memory)."""
    from ecoscore.vision.looks import CLOSER_SIZES
    from ecoscore.vision.pipeline import Reader
    from ecoscore.vision.runtime import _OPEN

    finder = Reader(concurrent=2, threads=1).finder
    finder.warm_up(CLOSER_SIZES)
    streams = {key: model.get_property("NUM_STREAMS") for key, model in finder.network._compiled.items()}
    assert streams.pop(_OPEN) == 1
    assert streams and set(streams.values()) == {2}
    assert max(max(key[1:]) for key in streams) == finder.imgsz  # no bigger canvas compiled for its shape
    assert max(max(shape[1:]) for shape in finder.network.shapes_met) == max(CLOSER_SIZES)  # yet they were met
