"""Small statistics shared by training evaluation and the benchmarks."""

from __future__ import annotations

import math


def wilson_interval(points: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval for a win rate of ``points`` wins (shared wins may count
    fractions) out of ``n`` games; (0, 1) when there are no games."""
    if n == 0:
        return 0.0, 1.0
    p = points / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)
