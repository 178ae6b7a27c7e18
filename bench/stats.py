"""How sure a benchmark's figures are: an interval for a rate, and a paired test for two readers
read on the same photos. At this project's bench sizes (a few hundred tableaux) a change of one
or two tableaux per deck is well inside the noise; read a comparison by its flips, not its
rates (``python bench/paired.py A.json B.json``)."""
from __future__ import annotations

import math


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval for ``k`` successes of ``n`` (95 % at z = 1.96)."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def paired(before: dict[str, bool], after: dict[str, bool]) -> dict:
    """Two readers' outcomes on the same items (``id -> exact``): how many each got that the
    other did not, and McNemar's exact two-sided p-value for a difference that large by chance
    (the binomial test on the items they disagree on)."""
    both = sorted(set(before) & set(after))
    gained = sum(after[k] and not before[k] for k in both)
    lost = sum(before[k] and not after[k] for k in both)
    n, low = gained + lost, min(gained, lost)
    p = min(1.0, 2 * sum(math.comb(n, i) for i in range(low + 1)) / 2**n) if n else 1.0
    return {"items": len(both), "gained": gained, "lost": lost, "p_value": round(p, 4)}
