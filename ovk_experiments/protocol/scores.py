"""The paper's errors (its Experiments section; spec E30(c) on why they are not comparable).

* online (progressive) error after t rounds: ``(1/t) sum_{i<=t} ||f_{i-1}(x_i) - y_i||^2``, each
  prediction made before its example is learnt;
* batch error: the same average for a fixed function (the paper's is on the training set);
* classification: the same averages of ``1[argmax f(x_i) != argmax y_i]``.
"""
from __future__ import annotations

import numpy as np


def _pair(predictions, targets) -> tuple[np.ndarray, np.ndarray]:
    predictions, targets = np.asarray(predictions, dtype=float), np.asarray(targets, dtype=float)
    if predictions.ndim != 2 or predictions.shape != targets.shape:
        raise ValueError(f"predictions and targets must be 2-D of one shape, got {predictions.shape} and {targets.shape}")
    return predictions, targets


def squared_errors(predictions, targets) -> np.ndarray:
    """``||p_i - y_i||^2`` per row; inf when a prediction overflowed, NaN when it is NaN (never a warning)."""
    predictions, targets = _pair(predictions, targets)
    with np.errstate(all="ignore"):
        return np.sum((predictions - targets) ** 2, axis=1)


def misclassified(predictions, targets) -> np.ndarray:
    """``1[argmax p_i != argmax y_i]`` per row; a non-finite prediction counts as an error."""
    predictions, targets = _pair(predictions, targets)
    wrong = np.argmax(predictions, axis=1) != np.argmax(targets, axis=1)
    return (wrong | ~np.all(np.isfinite(predictions), axis=1)).astype(float)


def losses(predictions, targets, task: str) -> np.ndarray:
    """Per-example error of the task: squared error (regression) or 0/1 error (classification)."""
    if task == "regression":
        return squared_errors(predictions, targets)
    if task == "classification":
        return misclassified(predictions, targets)
    raise ValueError(f"task must be 'regression' or 'classification', got {task!r}")


def cumulative_mean(errors) -> np.ndarray:
    """``c_t = (1/t) sum_{i<=t} e_i`` for t = 1..n: the online error curve of Figure 1."""
    errors = np.asarray(errors, dtype=float)
    if errors.ndim != 1 or len(errors) == 0:
        raise ValueError(f"errors must be a non-empty 1-D array, got shape {errors.shape}")
    with np.errstate(all="ignore"):
        return np.cumsum(errors) / np.arange(1, len(errors) + 1)
