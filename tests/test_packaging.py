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


def test_runtime_does_not_import_torch_or_ultralytics():
    # Reader() loads both models: the inference runtime must not pull torch in either.
    code = ("import sys; from ecoscore.vision.pipeline import Reader; from ecoscore.service.app import create_app; "
            "Reader(); print(sorted(m for m in sys.modules if m.split('.')[0] in {'torch', 'ultralytics', 'torchvision'}))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == "[]", r.stdout + r.stderr
