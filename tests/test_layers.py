"""Imports run one way, from the top layer down (README, "Contributing"): every import of an
``ecoscore`` module, at the top of a file or inside a function, is checked against this table."""
from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# Folders of the repo and the import name each installs as (pyproject.toml, package-dir).
FOLDERS = {"ecoscore": "ecoscore", "scoring": "ecoscore.scoring", "vision": "ecoscore.vision",
           "datasets": "ecoscore.datasets", "service": "ecoscore.service", "models": "ecoscore.models"}
# Bottom first. A module belongs to the layer of its longest matching prefix; it may import its
# own layer and the layers below.
LAYERS: list[tuple[str, list[str]]] = [
    ("core", ["ecoscore", "ecoscore.paths", "ecoscore.geometry", "ecoscore.truthfile", "ecoscore.options",
              "ecoscore.models", "ecoscore.text", "ecoscore.lookalike", "ecoscore.tokens"]),
    ("scoring", ["ecoscore.scoring"]),
    ("decks", ["ecoscore.datasets.deck"]),  # a deck is data: face images and deck.toml
    ("vision", ["ecoscore.vision"]),
    ("renderer", ["ecoscore.datasets"]),
    ("training", ["ecoscore.vision.train", "ecoscore.vision.train_matcher", "ecoscore.vision.train_corners",
                  "ecoscore.vision.train_lattice", "ecoscore.vision.evaluate",
                  "ecoscore.vision.offline"]),
    ("batch", ["ecoscore.batch"]),
    ("service", ["ecoscore.service"]),
    ("cli", ["ecoscore.cli", "ecoscore.__main__"]),
]


def layer_of(module: str) -> int:
    best, rank = "", -1
    for k, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            # (the package itself holds no modules by prefix: each of its own is listed, or the
            # "in no layer" check below could never fire - a review)
            if (module == p or (p != "ecoscore" and module.startswith(p + "."))) and len(p) > len(best):
                best, rank = p, k
    assert rank >= 0, f"{module} is in no layer: add it to LAYERS (and to the README's picture)"
    return rank


def modules() -> dict[str, Path]:
    found = {}
    for folder, package in FOLDERS.items():
        for path in sorted((REPO / folder).rglob("*.py")):
            parts = path.relative_to(REPO / folder).with_suffix("").parts
            name = ".".join((package, *parts)).removesuffix(".__init__")
            found[name] = path
    return found


def imports(name: str, path: Path, known: set[str]) -> list[tuple[int, str]]:
    out = []
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")[: len(name.split(".")) - node.level + is_package]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            for alias in node.names:
                sub = f"{source}.{alias.name}"
                out.append((node.lineno, sub if sub in known else source))
    return [(line, m) for line, m in out if m == "ecoscore" or m.startswith("ecoscore.")]


def test_every_import_runs_down_the_layers():
    found = modules()
    upward = []
    for name, path in found.items():
        own = layer_of(name)
        for line, target in imports(name, path, set(found)):
            if layer_of(target) > own:
                upward.append(f"{path.relative_to(REPO)}:{line}: {name} ({LAYERS[own][0]}) imports "
                              f"{target} ({LAYERS[layer_of(target)][0]})")
    assert not upward, "imports running upward:\n" + "\n".join(upward)


def test_the_checker_sees_an_upward_import(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from ecoscore.datasets.scene import render_scene\n")
    assert [t for _, t in imports("ecoscore.vision.bad", bad, {"ecoscore.datasets.scene"})] == ["ecoscore.datasets.scene"]
    assert layer_of("ecoscore.datasets.scene") > layer_of("ecoscore.vision.bad")
    assert layer_of("ecoscore.vision.train") > layer_of("ecoscore.datasets.synth") > layer_of("ecoscore.vision.lattice")


def test_no_import_cycles_between_modules():
    found = modules()
    graph = {n: {t for _, t in imports(n, p, set(found)) if t in found and t != n} for n, p in found.items()}
    # A package's __init__ importing its own modules is how a package lists its parts, not a cycle.
    graph = {n: {t for t in ts if not n.startswith(t + ".")} for n, ts in graph.items()}
    state: dict[str, int] = {}
    cycles = []

    def visit(n, stack):
        state[n] = 1
        for t in graph[n]:
            if state.get(t) == 1:
                cycles.append(" -> ".join(stack[stack.index(t):] + [t]))
            elif not state.get(t):
                visit(t, stack + [t])
        state[n] = 2

    for n in graph:
        if not state.get(n):
            visit(n, [n])
    assert not cycles, "\n".join(cycles)
