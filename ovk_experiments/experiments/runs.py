"""One learner on one prepared data set: the online pass, the final model on the test half, the batch baseline.

Every engine call runs under ``np.errstate(all="ignore")``: a diverging run overflows, and the overflow
is detected and reported (``protocol.divergence``), never raised as a warning or hidden.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ovk_experiments import engines
from ovk_experiments.protocol import scores
from ovk_experiments.protocol.cross_validation import cross_validate
from ovk_experiments.protocol.divergence import first_divergent_round
from ovk_experiments.protocol.prepare import Prepared

#: the clock of every time in the experiments (Table 3, the "fraction of the time" verdict): this process's CPU
#: seconds, all its threads, so that other jobs on a shared machine do not enter them; the BLAS thread count is
#: in the report
clock = time.process_time


@dataclass
class OnlineRun:
    learner: str
    kernel: str
    #: cumulative mean error (squared error, or 0/1 error for classification) after t = 1..n rounds
    curve: np.ndarray
    #: error of the final model f_n on the test half; NaN when the run diverged
    test_error: float
    seconds: float
    #: first round whose error exploded (spec E30(a)), or None
    diverged_at: int | None
    #: MONORMA's final kernel weights delta_n (None for ONORMA)
    weights: np.ndarray | None = None

    @property
    def online_error(self) -> float:
        return float(self.curve[-1])


@dataclass
class BatchRun:
    kernel: str
    lam: float
    #: the lam grid and the mean validation error of each of its values
    lams: tuple
    cv_errors: np.ndarray
    #: the paper's batch error: on the training half, with the chosen lam
    train_error: float
    test_error: float
    cv_seconds: float
    fit_seconds: float
    #: (t, training error of the batch solution on the first t training examples), for Figure 1
    prefix_errors: list


def _online_loss(prepared: Prepared, classification_loss: str) -> str:
    return "squared" if prepared.task == "regression" else classification_loss


def _finish(prepared, learner, kernel, predictions, seconds, test_predictions, weights=None) -> OnlineRun:
    diverged_at = first_divergent_round(predictions, prepared.Y_train)
    curve = scores.cumulative_mean(scores.losses(predictions, prepared.Y_train, prepared.task))
    test_error = float("nan")
    if diverged_at is None:
        test_error = float(np.mean(scores.losses(test_predictions(), prepared.Y_test, prepared.task)))
    return OnlineRun(learner, kernel, curve, test_error, seconds, diverged_at, weights)


def timed_onorma(engine, prepared: Prepared, kernel, settings):
    """``(record, seconds)`` of one pass of ``engine.onorma`` over the training stream (Table 3's ONORMA time)."""
    start = clock()
    with np.errstate(all="ignore"):
        record = engine.onorma(prepared.X_train, prepared.Y_train, kernel, lam=settings.lam, eta=settings.eta,
                               loss=_online_loss(prepared, settings.classification_loss), truncation=settings.truncation)
    return record, clock() - start


def timed_monorma(engine, prepared: Prepared, kernels, settings):
    """``(record, seconds)`` of one pass of ``engine.monorma`` over the training stream (Table 3's MONORMA time)."""
    start = clock()
    with np.errstate(all="ignore"):
        record = engine.monorma(prepared.X_train, prepared.Y_train, kernels, lam=settings.lam, eta=settings.eta,
                                r=settings.r, loss=_online_loss(prepared, settings.classification_loss))
    return record, clock() - start


def run_onorma(engine, prepared: Prepared, kernel, kernel_name: str, settings) -> OnlineRun:
    """Algorithm 1 over the training stream; its final ``f_n`` scored on the test half."""
    record, seconds = timed_onorma(engine, prepared, kernel, settings)
    coefficients = np.asarray(record.coefficients, dtype=float)
    return _finish(prepared, "ONORMA", kernel_name, record.predictions, seconds,
                   lambda: engines.evaluate(engine, kernel, prepared.X_train, coefficients, prepared.X_test))


def run_monorma(engine, prepared: Prepared, kernels, kernels_name: str, settings) -> OnlineRun:
    """Algorithm 2 over the training stream; its final ``f_n = sum_j delta^j_n g^j_n`` scored on the test half."""
    record, seconds = timed_monorma(engine, prepared, kernels, settings)
    weights = np.asarray(record.weights, dtype=float)[-1]
    coefficients = np.asarray(record.coefficients, dtype=float)

    def test_predictions():
        return sum(weight * engines.evaluate(engine, kernel, prepared.X_train, coefficients, prepared.X_test)
                   for weight, kernel in zip(weights, kernels))

    return _finish(prepared, "MONORMA", kernels_name, record.predictions, seconds, test_predictions, weights)


def _fitted_on_training(engine, X, Y, kernel, lam):
    """Coefficients and training predictions: ``G c = y - t lam c`` by the system ``(G + t lam I) c = y`` (spec 7.1)."""
    coefficients = np.asarray(engine.batch_ridge(X, Y, kernel, lam=lam), dtype=float)
    return coefficients, Y - len(X) * lam * coefficients


def prefix_sizes(n: int, count: int) -> list[int]:
    """``count`` roughly geometric training-prefix sizes ending at n (at least 2 examples each)."""
    return sorted({int(round(size)) for size in np.geomspace(max(2, n / 2 ** (count - 1)), n, count)})


def run_batch(engine, prepared: Prepared, kernel, kernel_name: str, settings, checkpoints: int) -> BatchRun:
    """The batch baseline: lam by k-fold CV on the training half, then the fit on the whole of it, and
    (``checkpoints`` > 0) refits with that lam on training prefixes for Figure 1."""
    X, Y, task = prepared.X_train, prepared.Y_train, prepared.task

    def fit_predict(X_fit, Y_fit, X_val, lam):
        coefficients = np.asarray(engine.batch_ridge(X_fit, Y_fit, kernel, lam=lam), dtype=float)
        return engines.evaluate(engine, kernel, X_fit, coefficients, X_val)

    start = clock()
    lam, cv_errors = cross_validate(X, Y, settings.batch_lams, fit_predict,
                                    lambda predictions, targets: scores.losses(predictions, targets, task), settings.folds)
    cv_seconds = clock() - start
    start = clock()
    coefficients, fitted = _fitted_on_training(engine, X, Y, kernel, lam)
    fit_seconds = clock() - start
    train_error = float(np.mean(scores.losses(fitted, Y, task)))
    test = engines.evaluate(engine, kernel, X, coefficients, prepared.X_test)
    test_error = float(np.mean(scores.losses(test, prepared.Y_test, task)))
    prefix_errors = []
    for t in prefix_sizes(len(X), checkpoints) if checkpoints else []:
        if t == len(X):
            prefix_errors.append((t, train_error))
            continue
        _, fitted_t = _fitted_on_training(engine, X[:t], Y[:t], kernel, lam)
        prefix_errors.append((t, float(np.mean(scores.losses(fitted_t, Y[:t], task)))))
    return BatchRun(kernel_name, lam, tuple(settings.batch_lams), cv_errors, train_error, test_error, cv_seconds,
                    fit_seconds, prefix_errors)
