"""One ONNX network on the CPU through OpenVINO: no torch, no ultralytics at run time.

OpenVINO by measurement (bench/bench_models.py, both shipped models on 12 MP photos, this
2-core AMD EPYC, one run): ONNX Runtime 29 ms for the 416 px finder, OpenVINO in float32 24 ms,
OpenVINO computing in bfloat16 14 ms, with the same recall, false cards and top-1 on both test
sets to the last card. So a CPU that computes bfloat16 natively (AVX-512 BF16 or AMX) runs
the models in it; any other runs them in float32 (``ECOSCORE_PRECISION=f32`` asks for float32
everywhere). It costs a bigger install than ONNX Runtime (180 MB against 68) and 0.15 s more
at import.
"""
from __future__ import annotations

import functools
import os
import sys
import threading
from pathlib import Path
from typing import Any

import numpy as np


class RuntimeSettingError(ValueError):
    """An ``ECOSCORE_*`` runtime setting in the environment that cannot be used."""


def threads_from_env() -> int | None:
    """``ECOSCORE_THREADS`` as the user set it (None: unset or 0, the cores shared out)."""
    raw = os.environ.get("ECOSCORE_THREADS", "").strip()
    if not raw:
        return None
    if not raw.isdigit():
        raise RuntimeSettingError(f"ECOSCORE_THREADS={raw!r}: expected a whole number of threads per inference "
                                  "(0 or unset: the cores shared out among the reads)")
    return int(raw) or None


def threads(concurrent: int = 1, wanted: int | None = None) -> int:
    """Threads per inference: ``wanted`` (the caller's setting), else ``ECOSCORE_THREADS``, else
    the cores shared out among the reads that run at once, at most 2 (more does not pay on
    models this small). Two reads at once at two threads each oversubscribe a 2-core machine."""
    if not wanted:
        wanted = threads_from_env()
    return wanted or max(1, min(2, (os.cpu_count() or 1) // concurrent))


def one_blas_thread() -> None:
    """NumPy's BLAS (OpenBLAS) to one thread, process-wide. Its threads spin on for a while after
    each product, so the small products of a read (a matcher's cells against a deck's
    references, the lattice fits) left them busy on the cores the next network wanted: a 12 MP
    photo with a deck 65-70 ms p50 against 54-55 with one BLAS thread, in one run each way. The
    products are a few hundred rows: one thread is plenty."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")


def import_openvino():
    """Import openvino without its telemetry; returns the module.

    ``import openvino`` imports its model converter (``openvino.tools.ovc``), and that starts
    Intel's telemetry: a client id and usage counts written under ~/intel, and a Google Analytics
    event sent (from a subprocess) on every import, unless a consent file there says no. A
    newcomer's run found the service writing ~/intel at start (2026-11-28). The runtime reads ONNX
    and never converts a model, so the converter is kept from loading: a ``None`` in
    ``sys.modules`` makes its import fail, which openvino's ``__init__`` allows for
    (``convert_model`` is then absent). Where openvino was imported before, it is returned as it
    is (the door was opened by whoever imported it)."""
    if "openvino" not in sys.modules:
        sys.modules.setdefault("openvino.tools.ovc", None)
    import openvino

    return openvino


def _core():
    from ecoscore.paths import data_dir

    # Compiled models cached on disk: a one-shot `ecoscore score` starts 0.4 s sooner.
    return _core_caching_in(data_dir() / "openvino-cache")


@functools.cache
def _core_caching_in(cache: Path):
    """One OpenVINO core for the process (for each cache folder), kept to its end. Each core's CPU
    plugin sets the thread an alternate signal stack of its own (for AMX) and, dropped, puts back
    the one it found, which a core dropped before it has unmapped already: the next Ctrl-C,
    whose Python handler runs on that stack, was a SIGSEGV (a reader opened and dropped, as
    `ecoscore batch` checks the models before it starts its workers)."""
    ov = import_openvino()  # imported here: `ecoscore grid` never needs it
    core = ov.Core()
    try:
        cache.mkdir(parents=True, exist_ok=True)
        core.set_property({"CACHE_DIR": str(cache)})
    except OSError:
        pass  # a read-only place: compile every time
    return core


_OPEN: tuple[int, ...] = ()  # the key of an open-size model's one model compiled open (``Network.open_above``)


class Network:
    """A loaded model, callable from any thread; ``concurrent`` calls run side by side.

    Each calling thread gets its own infer request (one request is not safe to share), and the
    model gets one stream per concurrent read: with a single stream, two reads at once wait
    for each other (22 ms a finder run either way on 2 cores, against 11 ms with two streams).
    A model whose image height and width are left open (``any_size``) is compiled once for
    each input shape it meets, on first use: a fixed shape runs 8-15 % faster than an open one.
    But each compiled shape holds its own working memory and a copy of the weights (37-75 MB
    for one of the finder's canvases), so the shapes used only now and then -- those whose long
    side is over ``open_above`` (the finder's closer looks) -- all run on one model compiled
    open, with one stream: the service's finder held 1.2 GB warmed with its 20 canvases compiled
    each, 0.7 with its 10 biggest run open (bench/bench_memory.py)."""

    per_shape = False  # every shape compiled apart, ``open_above`` or not (bench/bench_memory.py compares)

    def __init__(self, path: Path, concurrent: int = 1, threads_per_read: int | None = None):
        one_blas_thread()  # the cores are the networks' (``threads``)
        self._core = _core()
        self._per_read = threads(concurrent, threads_per_read)
        self.config = {"PERFORMANCE_HINT": "LATENCY", "NUM_STREAMS": concurrent,
                       "INFERENCE_NUM_THREADS": concurrent * self._per_read}
        # Image shapes whose long side is over this run on one model compiled open, with one
        # stream whatever ``concurrent`` (each stream holds working memory of its own, and such
        # canvases are not worth a copy per concurrent read). None: each shape compiled apart.
        self.open_above: int | None = None
        native_bf16 = "BF16" in self._core.get_property("CPU", "OPTIMIZATION_CAPABILITIES")
        wanted = os.environ.get("ECOSCORE_PRECISION", "auto")
        if wanted not in ("auto", "f32", "bf16"):
            raise RuntimeSettingError(f"ECOSCORE_PRECISION={wanted!r}: use auto, f32 or bf16")
        self.precision = "bf16" if wanted == "bf16" or (wanted == "auto" and native_bf16) else "f32"
        self.config["INFERENCE_PRECISION_HINT"] = self.precision
        self._read = self._core.read_model(str(path))
        shape = self._read.inputs[0].partial_shape
        self.any_size = shape.rank.get_length() == 4 and shape[2].is_dynamic and shape[3].is_dynamic
        # Compiled models by input shape (C, H, W): an open-size model's, one per shape met, and
        # _OPEN for the shapes over ``open_above``; a fixed-size model's, one for all (None).
        self._compiled: dict[tuple[int, ...] | None, Any] = (
            {} if self.any_size else {None: self._compile(self._read, self.config)})
        self.shapes_met: set[tuple[int, ...]] = set()  # (C, H, W) of every input so far
        self._lock = threading.Lock()
        self._local = threading.local()

    @property
    def compiled_shapes(self) -> set[tuple[int, ...]]:
        """The input shapes (C, H, W) compiled each for itself so far."""
        return {key for key in self._compiled if key not in (None, _OPEN)}

    def _model_for(self, shape: tuple[int, ...]) -> tuple[tuple[int, ...] | None, Any]:
        self.shapes_met.add(shape[1:])  # (a set of a few canvases: added under the GIL)
        rare = self.any_size and self.open_above is not None and max(shape[2:]) > self.open_above
        key: tuple[int, ...] | None
        if not self.any_size:
            key = None  # one model for every shape
        elif rare and not self.per_shape:
            key = _OPEN
        else:
            key = shape[1:]  # any batch size
        if key not in self._compiled:
            with self._lock:
                if key not in self._compiled:
                    assert key is not None  # a fixed-size model is compiled at start
                    one_stream = {"NUM_STREAMS": 1, "INFERENCE_NUM_THREADS": self._per_read}
                    config = self.config | one_stream if rare else self.config
                    model = self._read
                    if key != _OPEN:
                        model = model.clone()
                        model.reshape({model.inputs[0].any_name: [-1, *key]})
                    self._compiled[key] = self._compile(model, config)
        return key, self._compiled[key]

    def _compile(self, model, config: dict) -> Any:
        """``model`` compiled for the CPU, through the on-disk cache when it can be. Processes
        that compile the same model at once on a cold cache (batch workers, service workers)
        race in OpenVINO's write of the cached blob: one failed with "filesystem error: cannot
        set permissions: No such file or directory [...blob]" (a fresh clone's test of
        `ecoscore batch`). The cache only saves time, so such a compile is done again without it."""
        try:
            return self._core.compile_model(model, "CPU", config)
        except RuntimeError as err:
            if "filesystem error" not in str(err):
                raise
            return self._core.compile_model(model, "CPU", config | {"CACHE_DIR": ""})

    def __call__(self, blob: np.ndarray) -> np.ndarray:
        """The first output for a float32 NCHW batch."""
        key, model = self._model_for(blob.shape)
        requests = self._local.__dict__.setdefault("requests", {})
        if key not in requests:
            requests[key] = model.create_infer_request()
        return requests[key].infer({0: blob})[0]  # a copy: the request's own buffer is not shared


def image_blob(images_bgr) -> np.ndarray:
    """BGR images (HWC, uint8) as the networks take them: RGB, CHW, float32 in [0, 1]."""
    batch = np.stack(images_bgr)[..., ::-1].transpose(0, 3, 1, 2)
    return np.ascontiguousarray(batch, dtype=np.float32) / 255.0


# The most images one inference takes: more are run in turns, each turn's float copy made in its
# turn. Each batch size met keeps its working memory in every request, so a photo of the whole
# game (160 cells, each read at four turns when unsure) grew the classifier pair by 170 MB that
# stayed; in turns of 32 it is 60 MB, the outputs identical and no slower (160 cells: 44.6 ms in
# turns of 32 against 50.7 at once). A deck of 400 references is 8,000 crops with its views and
# turns: embedded at once, it took the service from 1.9 to 3.8 GB, kept.
MAX_BATCH = 32


def run_in_turns(network, images_bgr) -> np.ndarray:
    """``network``'s first output for a batch of same-sized BGR images, a row each, in turns of
    at most ``MAX_BATCH``. Each turn is padded to a multiple of 8: OpenVINO prepares each new
    batch size anew, which doubled the time per crop when every photo brought its own count of
    cells."""
    outputs = []
    for start in range(0, len(images_bgr), MAX_BATCH):
        turn = image_blob(images_bgr[start:start + MAX_BATCH])
        padded = np.zeros((-(-len(turn) // 8) * 8, *turn.shape[1:]), np.float32)
        padded[:len(turn)] = turn
        outputs.append(network(padded)[:len(turn)])
    return np.concatenate(outputs)
