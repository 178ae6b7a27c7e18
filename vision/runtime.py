"""One ONNX network on the CPU through ONNX Runtime: no torch, no ultralytics at run time.

ONNX Runtime by measurement (bench/bench_models.py, both shipped models, this 2-core machine),
with its idle threads told not to spin: spinning, its default, made two threads slower than
one here (finder 30-39 ms against 16 ms without), as a spinning thread takes the core its
sibling needs on a small or shared machine. So tuned, it runs the models as fast as OpenVINO
(which we measured too) and installs at a third of its size, starts in half its time, and
gives more photos per second with one process per core (``ecoscore batch``).
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np


def threads(concurrent: int = 1) -> int:
    """Threads per inference: ``ECOSCORE_THREADS``, else the cores shared out among the reads
    that run at once, at most 2 (more does not pay on models this small). Two reads at once at
    two threads each oversubscribe a 2-core machine: 7 % fewer photos/s in the service
    (bench/bench_service.py, two runs of each)."""
    return int(os.environ.get("ECOSCORE_THREADS", "0")) or max(1, min(2, (os.cpu_count() or 1) // concurrent))


class Network:
    """A loaded model, callable from any thread (an ONNX Runtime session is thread-safe)."""

    def __init__(self, path: Path, n_threads: int | None = None):
        import onnxruntime as ort  # imported here: `ecoscore grid` never needs it

        options = ort.SessionOptions()
        options.intra_op_num_threads = n_threads or threads()
        options.inter_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.log_severity_level = 3
        self.session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        self.input = self.session.get_inputs()[0].name

    def __call__(self, blob: np.ndarray) -> np.ndarray:
        """The first output for a float32 NCHW batch."""
        return self.session.run(None, {self.input: blob})[0]
