#!/usr/bin/env python3
"""Type-check the source with mypy, each folder under its import name.

The repo's folders install as one package (pyproject.toml, package-dir): vision/ is
``ecoscore.vision``, scoring/ is ``ecoscore.scoring``, and so on. mypy cannot map a folder to
another name by itself: run over the folders as they lie, it takes ``from ecoscore.vision import
Reader`` for a module it cannot find, and every type handed over between layers for Any. So the
folders are linked under one ``ecoscore/`` (in .mypy_cache/tree, where mypy's cache can follow
them from run to run), mypy runs there with the repo's [tool.mypy], and the findings are printed
with the repo's own paths.

    python scripts/typecheck.py [mypy options]     # tests/test_checks.py runs it
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TREE = REPO / ".mypy_cache" / "tree"


def package_dirs() -> dict[str, str]:
    """Import name -> folder, as pyproject.toml installs them."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    return config["tool"]["setuptools"]["package-dir"]


def link_tree(root: Path) -> dict[str, str]:
    """Link every folder under ``root/ecoscore`` by its import name; returns the path prefixes
    to turn back into the repo's (``ecoscore/vision/`` -> ``vision/``)."""
    dirs = package_dirs()
    if root.exists():
        shutil.rmtree(root)
    top = root / "ecoscore"
    top.mkdir(parents=True)
    for entry in (REPO / dirs["ecoscore"]).iterdir():
        if entry.name != "__pycache__":
            (top / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    back = {}
    for name, folder in dirs.items():
        parts = name.split(".")
        if len(parts) == 2:
            (top / parts[1]).symlink_to(REPO / folder, target_is_directory=True)
            back[f"ecoscore/{parts[1]}/"] = f"{folder}/"
        elif len(parts) > 2:  # a subpackage: it must lie inside its parent's folder, as linked
            parent = dirs[".".join(parts[:-1])]
            assert Path(folder) == Path(parent) / parts[-1], f"{name} = {folder!r} is not inside {parent!r}"
    return back


def main(args: list[str]) -> int:
    back = link_tree(TREE)
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(REPO / "pyproject.toml"),
         "--cache-dir", str(REPO / ".mypy_cache"), *args, "ecoscore"],
        cwd=TREE, capture_output=True, text=True, env={**os.environ, "MYPY_FORCE_COLOR": "0"},
    )
    for stream, text in ((sys.stdout, run.stdout), (sys.stderr, run.stderr)):
        for line in text.splitlines(keepends=True):
            for linked, folder in back.items():
                if line.startswith(linked):
                    line = folder + line[len(linked):]
                    break
            stream.write(line)
    return run.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
