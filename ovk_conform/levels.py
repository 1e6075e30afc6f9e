"""Levels: how deep a run goes. Each level is stored regimes plus fresh cases drawn from a seed.

* ``quick``: the 35 stored basic cases (t <= 25), 10 fresh cases (t <= 40) and the stratified fresh cases
  (``stratified.py``: every axis of the envelope at the level's reach, every kernel family and loss in a long stream
  of every algorithm), a sample of 10 cases rerun in another process: seconds.
* ``standard`` (the default of ``ovk-check conform``): every regime, 30 fresh cases and the stratified ones, every
  case rerun in another process, 32 segments of 256 rounds of the 140000-round stream recomputed from its
  checkpoints.
* ``exhaustive`` (nightly CI): the same with 300 fresh cases, 12 long ones, the stratified ones at the envelope's
  top and 128 segments.

Every level prints, per axis of the envelope, the range its cases exercised and what they cannot see
(``envelope.coverage``), and the regimes it leaves out (``cannot_see``).
"""
from __future__ import annotations

from dataclasses import dataclass

from ovk_conform.fresh import LONG_ROUNDS
from ovk_conform.manifest import load_cases
from ovk_conform.regimes import REGIMES
from ovk_conform.vectors import ALGORITHMS


@dataclass(frozen=True)
class Level:
    regimes: tuple
    fresh: int
    long: int
    #: cases run a second time in another process: every one (None) or a sample of this many
    reruns: int | None
    #: segments of a checkpointed stored stream recomputed per run (``checkpoints.py``)
    segments: int
    description: str
    #: the level whose reach (``envelope.REACH``) its stratified fresh cases draw (``stratified.py``)
    stratified: str


LEVELS = {
    "quick": Level((), 10, 0, 10, 0, "the stored basic cases, 10 fresh cases and the stratified ones, 10 of them rerun",
                   "quick"),
    "standard": Level(tuple(REGIMES), 30, 0, None, 32,
                      "every regime, 30 fresh cases and the stratified ones, every case rerun", "standard"),
    "exhaustive": Level(tuple(REGIMES), 300, 12, None, 128,
                        "every regime, 300 fresh cases, 12 long ones and the stratified ones, every case rerun",
                        "exhaustive"),
}


def level_cases(level: str, algorithms=ALGORITHMS) -> list:
    """The stored cases of a level (the basic cases, then each regime's)."""
    return load_cases(algorithms, LEVELS[level].regimes)


def cannot_see(level: str, cases) -> list:
    """What a level's cases cannot reach: the regimes it leaves out and the longest stream it runs."""
    chosen = LEVELS[level]
    missing = [f"{name} ({REGIMES[name][0]})" for name in REGIMES if name not in chosen.regimes]
    if not missing:
        return []
    longest = max((len(case.X) for case in cases if case.algorithm != "batch_ridge"), default=0)
    widest = max((case.Y.shape[1] for case in cases), default=0)
    kernels = max((len(case.arguments.get("kernels", ())) for case in cases), default=0)
    return [f"any round after t = {longest} (a fault that starts later passes; the standard level runs fresh "
            f"streams of up to {LONG_ROUNDS['window'][1]} rounds and stored ones of up to 140000)",
            f"outputs wider than d = {widest}" + (f", MONORMA with more than m = {kernels} kernels" if kernels else ""),
            "the regimes " + ", ".join(missing)]
