"""k-fold cross-validation of the batch ``lam`` (the paper: 5-fold; spec 7)."""
from __future__ import annotations

from typing import Callable

import numpy as np

from ovk_experiments.protocol.split import k_folds


def cross_validate(X, Y, lams, fit_predict: Callable, error: Callable, folds: int = 5) -> tuple[float, np.ndarray]:
    """``(best lam, mean validation error per lam)``.

    For each ``lam`` and fold, ``fit_predict(X_fit, Y_fit, X_val, lam)`` returns the predictions on the
    held-out block; ``error(predictions, Y_val)`` the per-example errors. The score of ``lam`` is the mean
    over all held-out examples; a non-finite score never wins; ties go to the first ``lam`` in ``lams``.
    """
    lams = [float(lam) for lam in lams]
    if not lams or min(lams) <= 0:
        raise ValueError(f"lams must be a non-empty list of numbers > 0, got {lams}")
    blocks = k_folds(len(X), folds)
    scores = np.zeros(len(lams))
    for index, lam in enumerate(lams):
        errors = []
        for block in blocks:
            fit = np.setdiff1d(np.arange(len(X)), block)
            errors.append(error(fit_predict(X[fit], Y[fit], X[block], lam), Y[block]))
        scores[index] = np.mean(np.concatenate(errors))
    finite = np.where(np.isfinite(scores), scores, np.inf)
    return lams[int(np.argmin(finite))], scores
