"""`pip install` the ordinary way: the wheel built from a clean copy of the tracked files,
installed in a fresh venv, reads a photo from another directory (models, fonts, the stand-in
deck and the page found as package resources, data in the user's directory)."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow


def _run(args, **kw):
    r = subprocess.run(args, capture_output=True, text=True, timeout=600, **kw)
    assert r.returncode == 0, f"{args}\n{r.stdout}\n{r.stderr}"
    return r


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("wheel")
    if not (REPO / ".git").exists():
        pytest.skip("not a git checkout")
    src = tmp / "src"
    files = _run(["git", "ls-files", "-z"], cwd=REPO).stdout.split("\0")
    models = [p.relative_to(REPO).as_posix() for p in (REPO / "models").glob("*.*")]  # untracked models too
    for name in {f for f in files if f} | set(models):
        if (REPO / name).is_file():
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, src / name)
    # Offline: the build backend is this venv's setuptools (no isolated download).
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q",
          "-w", str(tmp / "dist"), str(src)])
    wheel, = (tmp / "dist").glob("ecoscore-*.whl")
    venv = tmp / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    # The package from the wheel (with its `ecoscore` command), by this venv's pip; the runtime
    # dependencies from this venv's site-packages, added as a plain folder (its .pth files, the
    # editable install among them, are not run), so the test needs no network.
    _run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "-q", "--no-deps",
          "--no-index", str(wheel)])
    site = Path(_run([str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip())
    (site / "zz_runtime_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
    home = tmp / "home"
    env = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(home), "XDG_DATA_HOME": str(home / "share")}
    return venv, names, env, tmp


def test_the_wheel_holds_the_shipped_files_and_not_the_training_weights(installed):
    _, names, _, _ = installed
    for model in (REPO / "models").glob("*.onnx"):
        assert f"ecoscore/models/{model.name}" in names
        assert f"ecoscore/models/{model.stem}.json" in names
    assert not [n for n in names if n.endswith(".pt")]
    for needed in ("ecoscore/datasets/fonts/DejaVuSans.ttf", "ecoscore/datasets/decks/standin/deck.toml",
                   "ecoscore/service/static/index.html", "ecoscore/__main__.py"):
        assert needed in names, needed
    meta = next(n for n in names if n.endswith(".dist-info/METADATA"))
    assert "ecoscore" in meta


def test_installed_wheel_reads_a_photo_and_scores_a_grid_from_elsewhere(installed):
    venv, _, env, tmp = installed
    work = tmp / "elsewhere"
    work.mkdir()
    py = str(venv / "bin" / "python")
    where = _run([py, "-c", "import ecoscore.paths as p, ecoscore.vision.offline as o; "
                  "print(p.models_dir()); print(p.static_dir()); print(p.data_dir()); print(o.FONT.is_file())"],
                 cwd=work, env=env).stdout.split()
    assert where[0].startswith(str(venv)) and where[1].startswith(str(venv)), where
    assert where[2].startswith(env["XDG_DATA_HOME"]) and where[3] == "True", where
    _run([str(venv / "bin" / "ecoscore"), "synth", "--n", "1", "--seed", "2001", "--size", "1200", "--workers", "1",
          "--out", "set"], cwd=work, env=env)
    photo, = (work / "set" / "images").glob("*.jpg")
    truth = json.loads(next((work / "set" / "truth").glob("*.json")).read_text())
    r = _run([str(venv / "bin" / "ecoscore"), "score", str(photo.relative_to(work)), "--json"], cwd=work, env=env)
    answer = json.loads(r.stdout)
    read = [[(c or None) for c in row] for row in answer["players"][0]["grid"]]
    assert read == truth["tableaux"][0]["grid"]
    for grid in (REPO / "examples" / "game").glob("*.txt"):
        shutil.copy(grid, work / grid.name)
    r = _run([py, "-m", "ecoscore", "grid", "alice.txt", "bruno.txt", "chiara.txt", "--json"], cwd=work, env=env)
    assert [p["total"] for p in json.loads(r.stdout)["players"]] == [50, 36, 43]
    assert not (work / "data").exists()  # data goes to the user's directory, not the working one
    assert (Path(env["XDG_DATA_HOME"]) / "ecoscore").is_dir()
