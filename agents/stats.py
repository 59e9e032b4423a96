"""Confidence intervals used by every report."""
from __future__ import annotations

import math

import numpy as np

Z95 = 1.959963984540054


def wilson_ci(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion (draws may count as half successes)."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean_ci(values, z: float = Z95) -> tuple[float, float, float]:
    """Mean and normal-approximation 95 % interval of a sample: (mean, lo, hi)."""
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return (float("nan"), float("nan"), float("nan"))
    m = float(x.mean())
    if x.size < 2:
        return (m, m, m)
    half = z * float(x.std(ddof=1)) / math.sqrt(x.size)
    return (m, m - half, m + half)
