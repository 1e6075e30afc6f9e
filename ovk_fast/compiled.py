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
import types

import numpy as np

#: numba is installed (the engine works without it: ovk_fast.monorma's numpy loop)
AVAILABLE = importlib.util.find_spec("numba") is not None


def _kernel_values(S, B, old, previous, beta, b, u, v):
    """Step 1 at round b: ``v_j = g^j_{t-1}(x_t)`` for each kernel j, into ``v`` (m, d); ``u`` (d) is scratch."""
    m, d = S.shape[0], v.shape[1]
    for j in range(m):
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


def _new_coefficient(v, weights, Y, steps, scales, b, new, predictions, new_coefficients, beta):
    """Steps 2-4 at round b: the prediction ``sum_j delta_j v_j``, the new coefficient ``eta_t (z - y)`` (the squared
    loss's gradient) into ``new`` and its record, and its unscaled row of ``beta`` (the shrink)."""
    m, d = v.shape[0], v.shape[1]
    for e in range(d):
        prediction = 0.0
        for j in range(m):
            prediction += weights[j] * v[j, e]
        predictions[b, e] = prediction
        new[e] = steps[b] * (prediction - Y[b, e])
        new_coefficients[b, e] = new[e]
        beta[b, e] = new[e] / scales[b]


def _gammas(diagonal, v, new, c, weights, b, gamma, gamma_record, w) -> bool:
    """Step 5 at round b: gamma_j (spec 6.2), in place and recorded; step 6's ``w_j = delta_j^2 max(gamma_j, 0)``
    (NaN stays NaN) into ``w``. Returns whether some ``w_j`` is not 0."""
    m, d = v.shape[0], v.shape[1]
    nonzero = False
    for j in range(m):
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
    return nonzero


def _delta_update(w, r, weights):
    """Step 6, the delta update (spec 6.3): ``delta_j = w_j^(1/(r+1)) / (sum_k w_k^(r/(r+1)))^(1/r)``, NaN where the
    sum is 0, into ``weights``."""
    m = w.shape[0]
    denominator = 0.0
    for j in range(m):
        denominator += w[j] ** (r / (r + 1))
    denominator = denominator ** (1 / r)
    for j in range(m):
        weights[j] = w[j] ** (1 / (r + 1)) / denominator if denominator > 0 else np.nan


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
        _kernel_values(S, B, old, previous, beta, b, u, v)
        _new_coefficient(v, weights, Y, steps, scales, b, new, predictions, new_coefficients, beta)
        nonzero = _gammas(diagonal, v, new, c_t[b], weights, b, gamma, gamma_record, w)
        if not (keep and not nonzero):          # all_zero="keep" keeps delta
            _delta_update(w, r, weights)
        for j in range(m):
            weights_record[b, j] = weights[j]


#: the steps of a round, compiled with the kernel (nopython code calls only compiled functions)
ROUND_STEPS = (_kernel_values, _new_coefficient, _gammas, _delta_update)


@functools.cache
def _compiled():
    """``_squared_rounds`` compiled, its steps too (with the same options), each name of a step in the kernel bound to
    the compiled step."""
    import numba
    jit = numba.njit(cache=True)
    steps = {step.__name__: jit(step) for step in ROUND_STEPS}
    kernel = types.FunctionType(_squared_rounds.__code__, {**globals(), **steps}, _squared_rounds.__name__)
    return jit(kernel)


def squared_rounds(*arguments) -> None:
    """``_squared_rounds`` compiled (numba must be installed: ``AVAILABLE``)."""
    _compiled()(*arguments)
