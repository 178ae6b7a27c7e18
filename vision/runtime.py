"""One ONNX network on the CPU through OpenVINO: no torch, no ultralytics at run time.

OpenVINO, not ONNX Runtime or OpenCV's DNN module, by measurement (bench/bench_models.py, both
shipped models on this 2-core machine): it runs them about twice as fast as either, from the
same ONNX files. Precision is pinned to f32: on CPUs with bf16 support OpenVINO would
otherwise pick bf16, and the read must not depend on which CPU it runs on.
"""
from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np


def threads() -> int:
    """Threads per inference: ``ECOSCORE_THREADS``, else up to 2 (the machines we target)."""
    return int(os.environ.get("ECOSCORE_THREADS", "0")) or min(2, os.cpu_count() or 1)


class Network:
    """A compiled model, callable from any thread: each thread gets its own infer request
    (one request cannot run two inferences at once; the service runs two photos at a time)."""

    def __init__(self, path: Path, input_shape: list[int]):
        import openvino as ov  # imported here: `ecoscore grid` never needs it

        core = ov.Core()
        model = core.read_model(str(path))
        model.reshape({model.inputs[0].get_any_name(): input_shape})  # -1: any batch size
        self.compiled = core.compile_model(model, "CPU", {
            "INFERENCE_NUM_THREADS": threads(),
            "PERFORMANCE_HINT": "LATENCY",
            "INFERENCE_PRECISION_HINT": "f32",
        })
        self._local = threading.local()

    def __call__(self, blob: np.ndarray) -> np.ndarray:
        """The first output for a float32 NCHW batch."""
        request = getattr(self._local, "request", None)
        if request is None:
            request = self._local.request = self.compiled.create_infer_request()
        request.infer({0: blob})
        return request.get_output_tensor(0).data.copy()  # the request reuses its buffer
