"""Levels (issue 9, item 2): how deep a run goes. Each level is stored regimes plus fresh cases drawn from a seed.

* ``quick``: the 35 stored basic cases (t <= 25) and 10 fresh cases: seconds.
* ``standard`` (the default of ``ovk-check conform``): every regime of ``regimes.py`` and 30 fresh cases.
* ``exhaustive`` (nightly CI): every regime and 300 fresh cases.
"""
from __future__ import annotations

from dataclasses import dataclass

from proofs_check.conformance.regimes import REGIMES
from proofs_check.conformance.vectors import ALGORITHMS, load_cases


@dataclass(frozen=True)
class Level:
    regimes: tuple
    fresh: int
    description: str


LEVELS = {
    "quick": Level((), 10, "the stored basic cases and 10 fresh cases"),
    "standard": Level(tuple(REGIMES), 30, "every regime and 30 fresh cases"),
    "exhaustive": Level(tuple(REGIMES), 300, "every regime and 300 fresh cases"),
}


def level_cases(level: str, algorithms=ALGORITHMS) -> list:
    """The stored cases of a level (the basic cases, then each regime's)."""
    return load_cases(algorithms, LEVELS[level].regimes)
