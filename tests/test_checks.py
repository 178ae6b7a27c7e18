"""The lint and type checks configured in pyproject.toml ([tool.ruff], [tool.mypy]) pass."""
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
    r = subprocess.run([*_tool("mypy")], cwd=REPO, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
