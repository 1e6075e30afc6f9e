"""The spec's formulas written out, for claims that need an independent comparator.

A structural claim that compared two paths through ``ovk_ref`` could not see a fault in what both share (the
step size, the shrink, the new coefficient of ``OnlineLearner``). These functions share nothing with
``ovk_ref`` but the kernel and loss objects: explicit sums over the stream, explicit Gram norms, the closed
forms of spec 5.2 and 6.3. Float64 only.
"""
from __future__ import annotations

import numpy as np


def step_sizes(eta: float, n: int) -> np.ndarray:
    """``eta_t = eta / sqrt(t)``, t = 1..n (spec 1)."""
    return np.array([eta / np.sqrt(t) for t in range(1, n + 1)])


def value(kernel, centres, coefficients, x) -> np.ndarray:
    """``f(x) = sum_i K(x, x_i) a_i`` (spec 2.3, E3), term by term."""
    total = np.zeros(kernel.d)
    for centre, a in zip(centres, coefficients):
        total = total + kernel(x, centre) @ a
    return total


def kernel_blocks(kernel, points) -> list:
    """``blocks[i][k] = K(x_i, x_k)``, each evaluated once: the terms of ``norm2`` for the coefficients on every prefix."""
    return [[kernel(x_i, x_k) for x_k in points] for x_i in points]


def norm2(kernel, centres, coefficients, blocks=None) -> float:
    """``||sum_i K(., x_i) a_i||_H^2 = sum_{i,k} <K(x_i, x_k) a_k, a_i>`` (spec 2.3), the double sum; ``blocks``: the
    ``kernel_blocks`` of points whose first rows are ``centres`` (the same numbers, evaluated once for all prefixes)."""
    n = len(centres)
    blocks = kernel_blocks(kernel, centres) if blocks is None else blocks
    return float(sum(np.dot(blocks[i][k] @ coefficients[k], coefficients[i]) for i in range(n) for k in range(n)))


def shrunk(new_coefficients, eta: float, lam: float, t: int) -> np.ndarray:
    """``alpha_{i,t} = alpha_{i,i} prod_{k=i+1}^t (1 - eta_k lam)`` for i = 1..t (spec 5.2, C5; spec 6.1)."""
    shrink = 1 - step_sizes(eta, t) * lam
    return np.array([np.asarray(new_coefficients[i], dtype=float) * np.prod(shrink[i + 1:]) for i in range(t)])


def onorma_predictions(kernel, loss, X, Y, lam: float, eta: float) -> np.ndarray:
    """Algorithm 1 without truncation (spec 5.1): ``p_t = sum_{i<t} K(x_t, x_i) alpha_{i,t-1}``,
    ``alpha_{t,t} = -eta_t u_t`` with ``u_t`` the loss gradient at ``p_t``, older terms times ``1 - eta_t lam``."""
    coefficients, predictions = [], []
    for t, (x, y) in enumerate(zip(X, Y), start=1):
        eta_t = eta / np.sqrt(t)
        prediction = value(kernel, X[: t - 1], coefficients, x)
        predictions.append(prediction)
        coefficients = [(1 - eta_t * lam) * a for a in coefficients] + [-eta_t * loss.gradient(prediction, y)]
    return np.array(predictions)
