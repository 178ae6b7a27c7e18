"""The runtime keeps NumPy's BLAS to one thread once a network is loaded: its spinning threads
took the cores from the next network (vision/runtime.py, one_blas_thread)."""
import json
import subprocess
import sys

from conftest import needs_models


@needs_models
def test_loading_a_network_holds_blas_to_one_thread():
    # In a fresh process: the limit is process-wide, and the test process's own may differ.
    code = (
        "from threadpoolctl import threadpool_info\n"
        "def blas(): return [p['num_threads'] for p in threadpool_info() if p['user_api'] == 'blas']\n"
        "import numpy; numpy.ones((4, 4)) @ numpy.ones((4, 4))\n"
        "before = blas()\n"
        "from ecoscore.vision.models import CardClassifier\n"
        "CardClassifier(partner=False)\n"
        "import json; print(json.dumps([before, blas()]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"OPENBLAS_NUM_THREADS": "2", "PATH": ""}).stdout
    before, after = json.loads(out)
    assert before == [2] and after and set(after) == {1}  # every BLAS loaded by then (OpenCV may bring one)
