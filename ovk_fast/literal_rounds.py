"""Rounds run by ovk_ref's own learner, from a state ovk_fast hands over: where the numbers of a round could reach
float64's limits (``ovk_fast.literal_range``), the literal operations decide whether it overflows, hence the
round a run diverges at (``ovk_ref.divergence``).

The learner is ovk_ref's (``ovk_ref.ONORMA``, ``ovk_ref.MONORMA``, as the run's parameters were checked), its
state set as a checkpoint restores one (``ovk_ref.checkpoint``): the stored inputs and coefficients, the norms and
weights. It runs until its first divergent round, or ``stop``; ovk_fast then takes over again. Divergence is said
once, by the run's own ``DivergenceWatch``, so the learner's warnings are silenced here.
"""
from __future__ import annotations

import copy
import dataclasses
import warnings

import numpy as np

from ovk_ref.divergence import DivergenceWarning


def run_literally(checked, state: dict, X: np.ndarray, Y: np.ndarray, start: int, stop: int, record) -> tuple:
    """Rounds ``start..stop-1`` (0-based) by a copy of the checked learner ``checked`` given ``state`` (the fields
    of its ``ovk_ref.learner_state`` after round ``start``, 1-based: ``t = start``), calling ``record(round, learner)`` after each;
    returns the first round not run (the one after the first divergent round, or ``stop``) and the learner."""
    learner = copy.copy(checked)
    learner.on_divergence = "warn"
    learner.state = dataclasses.replace(checked.state, **state, t=start, p=X.shape[1], diverged_at=None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DivergenceWarning)
        for t in range(start, stop):
            learner.learn_one(X[t], Y[t])
            record(t, learner)
            if learner.diverged_at is not None:
                return t + 1, learner
    return stop, learner
