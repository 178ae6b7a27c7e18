"""A compile that loses OpenVINO's race for the on-disk cache is done again without the cache
(vision/runtime.py, Network._compile): two batch workers on a cold cache made `ecoscore batch`
fail on a fresh clone."""
import numpy as np
import pytest
from conftest import needs_models

RACE = ("Exception from src/inference/src/cpp/core.cpp:117:\nfilesystem error: cannot set permissions: "
        "No such file or directory [/tmp/x/openvino-cache/1.blob]")


class _Racing:
    """A real OpenVINO core whose cached compiles fail as the race made them fail (or with
    another error); compiles without the cache go through."""

    def __init__(self, core, message):
        self.core, self.message, self.cached_tries = core, message, 0

    def compile_model(self, model, device, config):
        if config.get("CACHE_DIR") != "":
            self.cached_tries += 1
            raise RuntimeError(self.message)
        return self.core.compile_model(model, device, config)

    def __getattr__(self, name):
        return getattr(self.core, name)


@needs_models
def test_a_compile_that_loses_the_cache_race_is_done_without_the_cache(monkeypatch):
    from ecoscore.paths import models_dir
    from ecoscore.vision import runtime

    real = runtime._core()
    blob = np.random.default_rng(0).random((8, 3, 64, 64), dtype=np.float32)
    expected = runtime.Network(models_dir() / "corners.onnx")(blob)
    racing = _Racing(real, RACE)
    monkeypatch.setattr(runtime, "_core", lambda: racing)
    network = runtime.Network(models_dir() / "corners.onnx")
    assert racing.cached_tries == 1
    assert np.allclose(network(blob), expected, atol=1e-2)


@needs_models
def test_other_compile_errors_are_not_hidden(monkeypatch):
    from ecoscore.paths import models_dir
    from ecoscore.vision import runtime

    racing = _Racing(runtime._core(), "Exception from src/plugins/intel_cpu: unsupported operation")
    monkeypatch.setattr(runtime, "_core", lambda: racing)
    with pytest.raises(RuntimeError, match="unsupported operation"):
        runtime.Network(models_dir() / "corners.onnx")
