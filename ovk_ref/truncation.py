"""Truncation schedules ``t -> s_t``: after round t, ``f_t`` keeps the ``s_t`` most recent coefficients (Algorithm 1
step 3, the optional truncation; spec 5.1 step 4, 5.3)."""
from __future__ import annotations

import math
from functools import lru_cache
from typing import Callable

import mpmath

from ovk_ref import tolerances, validation


class FixedWindow:
    """``s_t = s`` for every t (a window of the s most recent examples)."""

    def __init__(self, s):
        self.s = validation.integer("truncation", s, minimum=1)

    def __call__(self, t: int) -> int:
        return self.s

    def __repr__(self) -> str:
        return f"FixedWindow({self.s})"


class Theorem2Schedule:
    """``s_t = min(t, t0) + 1[t > t0] floor((t - t0)^(1/2 + epsilon))`` with ``0 < epsilon < 1/2`` (spec 5.3).

    ``epsilon`` is read as the decimal it prints as (``0.1`` is 1/10, not the nearest binary float), and
    the floor is taken at ``SCHEDULE_DIGITS`` digits, so that exact powers land on their integer:
    ``(t - t0) = 32``, ``epsilon = 0.1`` gives ``32^0.6 = 8`` (float64 ``32 ** 0.6`` is 7.999...).
    """

    def __init__(self, t0, epsilon):
        self.t0 = validation.integer("t0", t0, minimum=1)
        epsilon = validation.real_number("epsilon", epsilon)
        if not 0 < epsilon < 0.5:
            raise ValueError(f"epsilon must lie in (0, 1/2) (Theorem 2), got {epsilon!r}")
        self.epsilon = epsilon
        self.epsilon_text = repr(epsilon)   # the decimal epsilon prints as

    def __call__(self, t: int) -> int:
        if t <= self.t0:
            return t
        return self.t0 + _floor_power(t - self.t0, self.epsilon_text)

    def __repr__(self) -> str:
        return f"Theorem2Schedule(t0={self.t0}, epsilon={self.epsilon})"


@lru_cache(maxsize=65536)
def _floor_power(base: int, epsilon: str) -> int:
    """``floor(base^(1/2 + epsilon))`` for the decimal ``epsilon``, exact except within SCHEDULE_INTEGER_SNAP of an integer:
    read off the float64 power when that is farther than SCHEDULE_FLOAT_GUARD from every integer (the same floor),
    else evaluated at SCHEDULE_DIGITS digits."""
    power = float(base) ** (0.5 + float(epsilon))
    if abs(power - round(power)) > tolerances.SCHEDULE_FLOAT_GUARD * power:
        return math.floor(power)
    with mpmath.workdps(tolerances.SCHEDULE_DIGITS):
        power = mpmath.power(base, mpmath.mpf(1) / 2 + mpmath.mpf(epsilon))
        return int(mpmath.floor(power + tolerances.SCHEDULE_INTEGER_SNAP))


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
