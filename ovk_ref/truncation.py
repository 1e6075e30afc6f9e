"""Truncation schedules ``t -> s_t``: after round t, ``f_t`` keeps the ``s_t`` most recent coefficients (spec 5.1 step 4, 5.3)."""
from __future__ import annotations

import math
from typing import Callable

from ovk_ref import validation


class FixedWindow:
    """``s_t = s`` for every t (a window of the s most recent examples)."""

    def __init__(self, s):
        self.s = validation.integer("truncation", s, minimum=1)

    def __call__(self, t: int) -> int:
        return self.s

    def __repr__(self) -> str:
        return f"FixedWindow({self.s})"


class Theorem2Schedule:
    """``s_t = min(t, t0) + 1[t > t0] floor((t - t0)^(1/2 + epsilon))`` with ``0 < epsilon < 1/2`` (spec 5.3)."""

    def __init__(self, t0, epsilon):
        self.t0 = validation.integer("t0", t0, minimum=1)
        epsilon = validation.real_number("epsilon", epsilon)
        if not 0 < epsilon < 0.5:
            raise ValueError(f"epsilon must lie in (0, 1/2) (Theorem 2), got {epsilon!r}")
        self.epsilon = epsilon

    def __call__(self, t: int) -> int:
        if t <= self.t0:
            return t
        return self.t0 + math.floor((t - self.t0) ** (0.5 + self.epsilon))

    def __repr__(self) -> str:
        return f"Theorem2Schedule(t0={self.t0}, epsilon={self.epsilon})"


def theorem2_schedule(t0: int, epsilon: float) -> Theorem2Schedule:
    """The truncation schedule of Theorem 2 (spec 5.3)."""
    return Theorem2Schedule(t0, epsilon)


def as_schedule(truncation) -> Callable[[int], int] | None:
    """None (no truncation), an int window s >= 1, or a callable ``t -> s_t``."""
    if truncation is None or callable(truncation):
        return truncation
    return FixedWindow(truncation)


def window(schedule, t: int) -> int:
    """``s_t`` checked to be an int >= 1 (``s_t = 0`` would drop the new coefficient, spec 5.1)."""
    return validation.integer(f"truncation({t})", schedule(t), minimum=1)
