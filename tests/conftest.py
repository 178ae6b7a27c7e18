"""Shared fixtures: rendered photos with their truth, and the shipped models."""
import os
import sys
from pathlib import Path

import numpy as np
import pytest

# Let test modules import the shared helpers (pytest runs with --import-mode=importlib), and the
# benchmarks' (their decks of other styles, their helpers: kept in one place).
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from ecoscore.paths import models_dir  # noqa: E402

# The commands speak the shell's language (ecoscore/cli/language.py); the tests read their English
# whatever the machine's locale, and the tests of other languages say which they want.
os.environ["ECOSCORE_LANG"] = "en"

MODELS = models_dir()
needs_models = pytest.mark.skipif(
    not (MODELS / "finder.onnx").is_file() or not (MODELS / "classifier.onnx").is_file(),
    reason="the shipped models are not in models/",
)


@pytest.fixture(scope="session")
def reader():
    from ecoscore.vision.pipeline import Reader

    return Reader()


@pytest.fixture(scope="session")
def photo_set():
    """Rendered phone photos (2000 px) of one tableau each, with truth: moderate difficulty."""
    from ecoscore.datasets.deck import load_deck
    from ecoscore.datasets.effects import LightParams
    from ecoscore.datasets.scene import SceneParams, render_scene

    deck = load_deck("standin")
    params = SceneParams(long_side=2000, p_multi=0.0, p_cut_off=0.0, p_hole=0.0, elevation_deg=(60, 90),
                         light=LightParams(p_motion=0.0, defocus_sigma=(0.3, 1.0)))
    return [render_scene(deck, (4242, i), params) for i in range(6)]


def grid_matches_truth(read_tableau, truth_tab) -> bool:
    """The read grid equals the truth, cell by cell, matched by position in the photo."""
    from ecoscore.vision.evaluate import match_read

    mapping = match_read(read_tableau, truth_tab)
    if mapping is None:
        return False
    truth = {(c["row"], c["col"]): c["type"] for c in truth_tab["cells"]}
    return all((read_tableau.cells[i].type.value if read_tableau.cells[i].type else None) == truth[rc]
               for i, rc in mapping.items())


def cut_through_right_column(scene) -> bytes:
    """A one-tableau photo cut by the frame through the middle of its right column, as JPEG: a
    cell the photo does not show (not read)."""
    import cv2

    image = cv2.imdecode(np.frombuffer(scene.jpeg, np.uint8), cv2.IMREAD_COLOR)
    cells = scene.truth["tableaux"][0]["cells"]
    right = max(cells, key=lambda c: np.mean(np.array(c["corners"] or c["cell_corners"])[:, 0]))
    cut = int(np.mean(np.array(right["corners"] or right["cell_corners"])[:, 0]))
    return cv2.imencode(".jpg", image[:, :cut])[1].tobytes()


@pytest.fixture(scope="session")
def rng():
    return np.random.default_rng(0)


@pytest.fixture(scope="session")
def pg_server():
    """A PostgreSQL server of the tests' own, for the session (skipped where it cannot start)."""
    from pg_helpers import postgres_server, why_not

    reason = why_not()
    if reason:
        pytest.skip(reason)
    with postgres_server() as server:
        yield server


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path):
    """The store's URL on each backend: an SQLite file, or a fresh database on the tests' server."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.sqlite3'}"
    return request.getfixturevalue("pg_server").new_database()
