"""The lint and type checks configured in pyproject.toml ([tool.ruff], [tool.mypy]) pass."""
import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def _tool(name: str) -> list[str]:
    if shutil.which(name, path=str(Path(sys.executable).parent)) is None:
        pytest.skip(f"{name} is not installed (the test extra)")
    return [sys.executable, "-m", name]


def test_ruff_lint_is_clean():
    r = subprocess.run([*_tool("ruff"), "check", "--no-cache", "."], cwd=REPO, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.slow
def test_mypy_is_clean():
    """mypy over every source folder under its import name (scripts/typecheck.py says why)."""
    _tool("mypy")
    r = subprocess.run([sys.executable, str(REPO / "scripts" / "typecheck.py")], cwd=REPO, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_the_type_check_sees_every_package_under_its_import_name(tmp_path):
    """The link tree scripts/typecheck.py checks holds each folder where its import name says."""
    spec = importlib.util.spec_from_file_location("typecheck", REPO / "scripts" / "typecheck.py")
    assert spec and spec.loader
    typecheck = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(typecheck)
    back = typecheck.link_tree(tmp_path / "tree")
    for name, folder in typecheck.package_dirs().items():
        linked = tmp_path / "tree" / Path(*name.split("."))
        assert (linked / "__init__.py").resolve() == (REPO / folder / "__init__.py").resolve(), name
    assert back["ecoscore/vision/"] == "vision/"
