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

import numpy as np

from ovk_fast import exp_product
from ovk_fast.exp_product import _exp_row
from ovk_fast.jit import NUMBA_INSTALLED, jit_calling

#: numba is installed: ovk_fast.onorma, ovk_fast.monorma and ovk_fast.stored_rows take the compiled kernels (tests
#: patch this to certify numpy's paths too)
AVAILABLE = NUMBA_INSTALLED


def _kernel_values(S, factors, B, old, previous, betaT, b, first, u, v, row):
    """Step 1 at round b: ``v_j = g^j_{t-1}(x_t)`` for each kernel j, into ``v`` (m, d), from the terms
    ``first <= i < b`` of the block. ``S``: the block's own scalar rows (m, n, n); or with ``factors`` (m, for
    Gaussian kernels) the exponents ``E`` (1, n, n), kernel j's row b being ``exp(factors[j] E[b])``, computed
    here for the terms it needs only (into ``row``, n). ``betaT`` (d, n): the block's unscaled coefficients,
    transposed so that each sum over i reads memory in order (compiled with reassociation: the sums are
    vectorised); ``u`` (d) is scratch."""
    m, d = B.shape[0], v.shape[1]
    for j in range(m):
        if factors.shape[0]:
            values = row[:b - first]
            _exp_row(S[0, b, first:b], factors[j], values)
        else:
            values = S[j, b, first:b]       # slices: LLVM vectorises the loop over them, not over S[j, b, i]
        for e in range(d):
            column, total = betaT[e, first:b], 0.0
            for i in range(values.shape[0]):
                total += values[i] * column[i]
            u[e] = total
        for e in range(d):
            total = 0.0
            for f in range(d):
                total += B[j, e, f] * u[f]
            v[j, e] = previous[b] * (old[j, b, e] + total)


def _new_coefficient(v, weights, Y, steps, scales, b, new, predictions, new_coefficients, betaT):
    """Steps 2-4 at round b: the prediction ``sum_j delta_j v_j``, the new coefficient ``eta_t (z - y)`` (the squared
    loss's gradient) into ``new`` and its record, and its unscaled column of ``betaT`` (the shrink)."""
    m, d = v.shape[0], v.shape[1]
    for e in range(d):
        prediction = 0.0
        for j in range(m):
            prediction += weights[j] * v[j, e]
        predictions[b, e] = prediction
        new[e] = steps[b] * (prediction - Y[b, e])
        new_coefficients[b, e] = new[e]
        betaT[e, b] = new[e] / scales[b]


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


def _squared_rounds(S, factors, B, old, diagonal, Y, c_t, previous, scales, steps, weights, gamma, r, keep,
                    predictions, new_coefficients, beta, gamma_record, weights_record):
    """Rounds b = 0..n-1 of a block for the squared loss and kernels ``k_j(x, z) B_j``: ``S`` (m, n, n) the
    block's own scalar rows (or exponents, with ``factors``: ``_kernel_values``), ``B`` (m, d, d), ``old`` (m, n, d)
    the rows against earlier blocks applied,
    ``diagonal`` (m, n, d, d) the blocks ``K_j(x_b, x_b)``. ``weights`` and ``gamma`` (m) are updated in place;
    the records (n rows) and the block's unscaled coefficients ``beta`` are written."""
    m, (n, d) = B.shape[0], Y.shape
    u, v, new, w, betaT, row = np.empty(d), np.empty((m, d)), np.empty(d), np.empty(m), np.empty((d, n)), np.empty(n)
    for b in range(n):
        _kernel_values(S, factors, B, old, previous, betaT, b, 0, u, v, row)
        _new_coefficient(v, weights, Y, steps, scales, b, new, predictions, new_coefficients, betaT)
        nonzero = _gammas(diagonal, v, new, c_t[b], weights, b, gamma, gamma_record, w)
        if not (keep and not nonzero):          # all_zero="keep" keeps delta
            _delta_update(w, r, weights)
        for j in range(m):
            weights_record[b, j] = weights[j]
    beta[:, :] = betaT.T


def _onorma_squared_rounds(S, factors, B, old, previous, scales, steps, firsts, Y, predictions, new_coefficients,
                           beta):
    """ONORMA's steps 1-3 (spec 5.1) at rounds b = 0..n-1 of a block for the squared loss and a kernel ``k(x, z) B``:
    MONORMA's steps 1-4 with one kernel of weight 1, round b from the block's term ``firsts[b]`` on (truncation;
    ``S`` (1, n, n) the block's own scalar rows or exponents (``_kernel_values``), ``B`` (1, d, d), ``old``
    (1, n, d)). The records and ``beta`` are written."""
    n, d = Y.shape
    u, v, new, weights, betaT, row = np.empty(d), np.empty((1, d)), np.empty(d), np.ones(1), np.empty((d, n)), np.empty(n)
    for b in range(n):
        _kernel_values(S, factors, B, old, previous, betaT, b, firsts[b], u, v, row)
        _new_coefficient(v, weights, Y, steps, scales, b, new, predictions, new_coefficients, betaT)
    beta[:, :] = betaT.T


def norm_recursion(c_t, added, norm2, rounds, downdates, out):
    """``||f_t||^2`` round after round (spec 6.2): ``norm2 = c_t^2 norm2 + added[r]``, then the downdates of the
    terms round r drops (spec 6.5; ``rounds`` ascending, ``downdates`` in the same order), into ``out``; returns
    the last. Plain Python where numba is not installed (``norm_recursion_compiled``)."""
    k = 0
    for r in range(len(c_t)):
        norm2 = c_t[r] * c_t[r] * norm2 + added[r]
        while k < len(rounds) and rounds[k] == r:
            norm2 += downdates[k]
            k += 1
        out[r] = norm2
    return norm2


#: the steps of a round, compiled with the kernels (nopython code calls only compiled functions)
ROUND_STEPS = (_kernel_values, _new_coefficient, _gammas, _delta_update)


@functools.cache
def _compiled() -> dict:
    """MONORMA's and ONORMA's rounds and the norm recursion compiled, the rounds' steps too (with the same
    options), by name."""
    import numba
    jit = numba.njit(cache=True)
    steps = {step.__name__: jit(step) for step in ROUND_STEPS}
    exp_row = exp_product.compiled_exp_row()
    steps["_kernel_values"] = jit_calling(_kernel_values, {"_exp_row": exp_row},
                                          numba.njit(cache=True, fastmath={"reassoc", "contract"}))
    return {"monorma": jit_calling(_squared_rounds, steps, jit), "onorma": jit_calling(_onorma_squared_rounds, steps, jit),
            "norms": jit(norm_recursion)}


def squared_rounds(*arguments) -> None:
    """``_squared_rounds`` compiled (numba must be installed: ``AVAILABLE``)."""
    _compiled()["monorma"](*arguments)


def onorma_squared_rounds(*arguments) -> None:
    """``_onorma_squared_rounds`` compiled (numba must be installed: ``AVAILABLE``)."""
    _compiled()["onorma"](*arguments)


def norm_recursion_compiled(*arguments) -> float:
    """``norm_recursion`` compiled where numba is installed (``AVAILABLE``), else as plain Python."""
    return (_compiled()["norms"] if AVAILABLE else norm_recursion)(*arguments)
