"""What of a margin a report shows and compares: its sign and first digits, never its round-off.

A margin's last digits are float64 round-off, which differs from one CPU to another (OpenBLAS picks its kernels by
CPU: SandyBridge, Haswell, SkylakeX; numpy dispatches SIMD paths; FMA), e.g. -3.57e-16 on one machine and -3.93e-16
on another for the same instance. Reports print ``shown`` and choose the tightest instance, shard or proof step by
``resolved`` (the first in search, shard or chain order among equals), so the same command prints the same report on
every machine.
"""
from __future__ import annotations

import math

from proofs_check.tolerances import NEAR_ZERO_MARGIN

#: significant digits a report prints of a margin (and compares them by)
DIGITS = 3


def resolved(margin: float) -> float:
    """``margin`` as a report tells it: 0 within ``NEAR_ZERO_MARGIN`` of 0 (a tie), else to ``DIGITS`` significant
    digits (an identity's margin ``1 - error / allowed`` is 1 - 1.6e-6 on one CPU and 1 - 1.7e-6 on another: 1);
    NaN (a violation that is not a number) is below every number."""
    if math.isnan(margin):
        return -math.inf
    if abs(margin) <= NEAR_ZERO_MARGIN:
        return 0.0
    return float(f"{margin:.{DIGITS}g}")


def shown(margin: float) -> str:
    """``margin`` as a report prints it: ``0`` for a tie, else to ``DIGITS`` significant digits."""
    return "0" if abs(margin) <= NEAR_ZERO_MARGIN else f"{margin:.{DIGITS}g}"
