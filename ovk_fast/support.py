"""Which coefficients each round keeps (spec 5.1 step 4, 5.3), computed for the whole stream before any work."""
from __future__ import annotations

import numpy as np

from ovk_ref import truncation as truncation_schedules


def first_kept(schedule, n: int) -> np.ndarray:
    """``lo[t]`` (0-based) = oldest index kept after round t+1: ``max(lo[t-1], t + 1 - s_{t+1})``.

    A dropped coefficient never returns (ovk_ref drops while the oldest index is ``<= t - s_t``), so
    ``lo`` is non-decreasing and the support after round t+1 is the index range ``[lo[t], t]``.
    """
    if schedule is None:
        return np.zeros(n, dtype=int)
    if isinstance(schedule, truncation_schedules.RemovalPolicy):
        raise ValueError(f"truncation: ovk_fast keeps the s_t newest terms (a window or a schedule t -> s_t); the removal "
                         f"policy {schedule.kind!r} chooses other terms: run it with ovk_ref.onorma")
    lo = np.empty(n, dtype=int)
    current = 0
    for t in range(n):
        current = max(current, t + 1 - truncation_schedules.window(schedule, t + 1))
        lo[t] = current
    return lo


def kept_before(lo: np.ndarray) -> np.ndarray:
    """``lo`` of ``f_{t-1}`` for every round t (0 before round 1): the prediction's support is ``[before[t], t)``."""
    return np.concatenate([[0], lo[:-1]])
