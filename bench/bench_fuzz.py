"""The long run of the property-based API test (issue #17): thousands of generated requests to
every operation of a live server with the real models; prints how many, by status, and failures.

    python bench/bench_fuzz.py [--examples 500]    # 5,000+ requests; CI runs the same test at 40
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--examples", type=int, default=500, help="examples per operation")
    args = parser.parse_args()
    started = time.perf_counter()
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider",
                          str(REPO / "tests" / "test_api_fuzz.py")], cwd=REPO, capture_output=True, text=True,
                         env=os.environ | {"ECOSCORE_FUZZ_EXAMPLES": str(args.examples)})
    found = re.search(r"fuzz: (\d+) requests \(([^)]*)\)", run.stdout)
    summary = run.stdout.strip().splitlines()[-1] if run.stdout.strip() else ""
    print(f"examples per operation: {args.examples}; {found.group(1) if found else '?'} requests in "
          f"{time.perf_counter() - started:.0f} s; by status: {found.group(2) if found else '?'}")
    print(f"pytest: {summary}")
    if run.returncode:
        print(run.stdout[-5000:], run.stderr[-2000:])
        sys.exit(1)


if __name__ == "__main__":
    main()
