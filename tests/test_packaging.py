"""The install: one import name, nothing shadowing other packages, a pure-Python rules engine."""
import subprocess
import sys


def test_hugging_face_datasets_is_not_shadowed(tmp_path):
    """Our `datasets/` folder installs as `ecoscore.datasets`; a user's own `datasets` package
    (Hugging Face's) stays the one `import datasets` finds."""
    fake = tmp_path / "site" / "datasets"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("WHO = 'hugging face'\n")
    code = "import datasets, ecoscore.datasets.deck as d; print(datasets.WHO); print(d.DECKS_DIR.name)"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path,
                       env={"PYTHONPATH": str(tmp_path / "site"), "PATH": ""})
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["hugging", "face", "decks"]


def test_scoring_needs_nothing_but_the_standard_library():
    code = ("import sys; import ecoscore.scoring, ecoscore.cli; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in {'numpy', 'cv2', 'onnxruntime', 'fastapi', 'torch'}))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == "[]", r.stdout + r.stderr


def test_a_game_scored_from_grid_files_loads_no_vision(tmp_path):
    # `ecoscore grid` loads the rules and the words, nothing else: the words' module took one
    # constant from the reader's naming and with it OpenCV, NumPy and Pillow (a review).
    from helpers import EXAMPLES

    code = ("import sys, runpy; sys.argv = ['ecoscore', '--lang', 'cs', 'grid', '--explain', *sys.argv[1:]]\n"
            "try:\n    runpy.run_module('ecoscore', run_name='__main__')\nexcept SystemExit as e:\n    code = e.code\n"
            "print(code, sorted({m.split('.')[0] for m in sys.modules} & {'numpy', 'cv2', 'PIL', 'onnxruntime', "
            "'openvino', 'fastapi'}), file=sys.stderr)")
    r = subprocess.run([sys.executable, "-c", code, *map(str, sorted(EXAMPLES.glob("*.txt")))],
                       capture_output=True, text=True)
    assert "biodiverzita" in r.stdout.lower(), r.stdout + r.stderr
    assert r.stderr.strip().splitlines()[-1] in ("0 []", "None []"), r.stderr


def test_runtime_does_not_import_torch_or_ultralytics():
    # Reader() loads both models: the inference runtime must not pull torch in either.
    code = ("import sys; from ecoscore.vision.pipeline import Reader; from ecoscore.service.app import create_app; "
            "Reader(); print(sorted(m for m in sys.modules if m.split('.')[0] in {'torch', 'ultralytics', 'torchvision'}))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == "[]", r.stdout + r.stderr
