"""Run another bench with the reader's switches set, to measure what each step buys:
    python bench/ablate.py MAX_AREA_RATIO=4 MIN_CARD_CELLS=0 -- bench/bench_pipeline.py --set data/tune/steep
Each NAME=VALUE sets NAME in every one of ecoscore.vision's lattice, fits, looks, refit,
photo_doubts, naming and pipeline that has it (a constant imported from one into another is a name of its own in each:
setting only the first would leave the others reading the old value), before the bench runs."""
from __future__ import annotations

import runpy
import sys

from ecoscore.vision import fits, lattice, looks, naming, photo_doubts, pipeline, refit

READER = (lattice, fits, looks, refit, photo_doubts, naming, pipeline)

args = sys.argv[1:]
split = args.index("--")
for item in args[:split]:
    name, value = item.split("=", 1)
    modules = [m for m in READER if hasattr(m, name)]
    if not modules:
        sys.exit(f"{name}: in none of {', '.join(m.__name__.rsplit('.', 1)[1] for m in READER)}")
    for module in modules:
        old = getattr(module, name)
        setattr(module, name, type(old)(float(value)) if not isinstance(old, bool) else value not in ("0", "false", "False"))
        print(f"{module.__name__}.{name} = {getattr(module, name)!r}", file=sys.stderr)
sys.argv = args[split + 1:]
sys.path.insert(0, "bench")
runpy.run_path(sys.argv[0], run_name="__main__")
