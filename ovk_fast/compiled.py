"""MONORMA's rounds within a block compiled by numba (the optional ``fast`` extra), where numba is installed.

Within a block, MONORMA's rounds are sequential and small (m kernels, d outputs): each round's weights depend on
the previous round's gammas (spec 6.3), so no block solve applies, and a loop of numpy calls spends its time in
call overhead (measured at t = 5000, m = 3, d = 10: about 85 ms of 166 ms). ``squared_rounds`` is that loop for
the squared loss and separable kernels, compiled (about 17 ms); ``ovk_fast.monorma`` takes it when ``AVAILABLE``
and keeps its numpy loop for the rest. The same steps in the same order as the numpy loop (spec 6.1-6.3); the
sums run in another order, within the conformance tolerance. numba is imported at the first compiled call
(0.2 s), and ``cache=True`` keeps the compiled code beside this file (about 1.5 s to compile once, 0.3 s to load
in a new process).
"""
from __future__ import annotations

import functools
import importlib.util

import numpy as np

#: numba is installed (the engine works without it: ovk_fast.monorma's numpy loop)
AVAILABLE = importlib.util.find_spec("numba") is not None


def _squared_rounds(S, B, old, diagonal, Y, c_t, previous, scales, steps, weights, gamma, r, keep,
                    predictions, new_coefficients, beta, gamma_record, weights_record):
    """Rounds b = 0..n-1 of a block for the squared loss and kernels ``k_j(x, z) B_j``: ``S`` (m, n, n) the
    block's own scalar rows, ``B`` (m, d, d), ``old`` (m, n, d) the rows against earlier blocks applied,
    ``diagonal`` (m, n, d, d) the blocks ``K_j(x_b, x_b)``. ``weights`` and ``gamma`` (m) are updated in place;
    the records (n rows) and the block's unscaled coefficients ``beta`` are written."""
    m, n = S.shape[0], S.shape[1]
    d = Y.shape[1]
    u, v, new, w = np.empty(d), np.empty((m, d)), np.empty(d), np.empty(m)
    for b in range(n):
        for j in range(m):                      # 1. v_j = g^j_{t-1}(x_t)
            u[:] = 0.0
            for i in range(b):
                s = S[j, b, i]
                for e in range(d):
                    u[e] += s * beta[i, e]
            for e in range(d):
                total = 0.0
                for f in range(d):
                    total += B[j, e, f] * u[f]
                v[j, e] = previous[b] * (old[j, b, e] + total)
        for e in range(d):                      # 2.-4. prediction, new coefficient (gradient z - y), shrink
            prediction = 0.0
            for j in range(m):
                prediction += weights[j] * v[j, e]
            predictions[b, e] = prediction
            new[e] = steps[b] * (prediction - Y[b, e])
            new_coefficients[b, e] = new[e]
            beta[b, e] = new[e] / scales[b]
        c = c_t[b]
        nonzero = False
        for j in range(m):                      # 5. gamma (6.2), 6. w = delta^2 max(gamma, 0) (NaN stays NaN)
            quadratic, cross = 0.0, 0.0
            for e in range(d):
                total = 0.0
                for f in range(d):
                    total += diagonal[j, b, e, f] * new[f]
                quadratic += total * new[e]
                cross += v[j, e] * new[e]
            gamma[j] = c * c * gamma[j] + quadratic + 2 * c * cross
            gamma_record[b, j] = gamma[j]
            w[j] = weights[j] * weights[j] * (0.0 if gamma[j] < 0.0 else gamma[j])
            nonzero = nonzero or w[j] != 0.0
        if not (keep and not nonzero):          # 6. delta update (6.3); all_zero="keep" keeps delta
            denominator = 0.0
            for j in range(m):
                denominator += w[j] ** (r / (r + 1))
            denominator = denominator ** (1 / r)
            for j in range(m):
                weights[j] = w[j] ** (1 / (r + 1)) / denominator if denominator > 0 else np.nan
        for j in range(m):
            weights_record[b, j] = weights[j]


@functools.cache
def _compiled():
    import numba
    return numba.njit(cache=True)(_squared_rounds)


def squared_rounds(*arguments) -> None:
    """``_squared_rounds`` compiled (numba must be installed: ``AVAILABLE``)."""
    _compiled()(*arguments)
