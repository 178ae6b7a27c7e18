"""OpenVINO, offline: the runtime imports it without its telemetry. A bare ``import openvino``
loads its model converter, which writes a client id under ~/intel and sends a Google Analytics
event from a subprocess on every import (a guard on this process's sockets does not see it)."""
import os
import subprocess
import sys
import textwrap

from conftest import needs_models

JOB = textwrap.dedent(
    """
    import sys
    import numpy as np
    from ecoscore.vision.models import CardFinder
    CardFinder()(np.zeros((120, 160, 3), np.uint8))
    assert "openvino" in sys.modules
    print(sorted(m for m, module in sys.modules.items()
                 if module is not None and m.startswith(("openvino_telemetry", "openvino.tools"))))
    """
)


@needs_models
def test_the_runtime_loads_openvino_without_its_telemetry(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = dict(os.environ, HOME=str(home), ECOSCORE_DATA=str(tmp_path / "data"))
    env.pop("CI", None)  # the telemetry stays quiet in CI by itself: not what a player's machine does
    r = subprocess.run([sys.executable, "-c", JOB], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip() == "[]", r.stdout  # neither the converter nor the telemetry was loaded
    assert list(home.rglob("*")) == []  # nothing written to the player's home (no ~/intel)
