"""Detecting a run that diverges (spec E30(a)), so that it is reported, never hidden."""
from __future__ import annotations

import numpy as np

from ovk_experiments.protocol.scores import squared_errors
from ovk_experiments.tolerances import DIVERGENCE_FACTOR


def first_divergent_round(predictions, targets) -> int | None:
    """The first round t (1-based) whose squared prediction error is not finite or exceeds
    ``DIVERGENCE_FACTOR`` times the zero predictor's mean error ``mean_i ||y_i||^2``; None if there is none."""
    errors = squared_errors(predictions, targets)
    scale = max(float(np.mean(np.sum(np.asarray(targets, dtype=float) ** 2, axis=1))), 1.0)
    with np.errstate(invalid="ignore"):
        bad = ~np.isfinite(errors) | (errors > DIVERGENCE_FACTOR * scale)
    return int(np.argmax(bad)) + 1 if np.any(bad) else None
