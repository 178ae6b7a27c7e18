"""Run another bench with lattice and pipeline switches set, to measure what each step buys:
    python bench/ablate.py MAX_AREA_RATIO=4 MIN_CARD_CELLS=0 -- bench/bench_pipeline.py --set data/tune/steep
Each NAME=VALUE sets NAME in ecoscore.vision.lattice, photo_doubts or pipeline (the first that has it)
before the bench runs."""
from __future__ import annotations

import runpy
import sys

from ecoscore.vision import lattice, photo_doubts, pipeline

args = sys.argv[1:]
split = args.index("--")
for item in args[:split]:
    name, value = item.split("=", 1)
    module = next(m for m in (lattice, photo_doubts, pipeline) if hasattr(m, name))
    old = getattr(module, name)
    setattr(module, name, type(old)(float(value)) if not isinstance(old, bool) else value not in ("0", "false", "False"))
    print(f"{module.__name__}.{name} = {getattr(module, name)!r}", file=sys.stderr)
sys.argv = args[split + 1:]
sys.path.insert(0, "bench")
runpy.run_path(sys.argv[0], run_name="__main__")
