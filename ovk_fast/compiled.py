"""ovk_fast's kernels compiled by numba (the optional ``fast`` extra), where numba is installed (``AVAILABLE``;
without it ``ovk_fast`` takes its numpy paths, and tests patch ``AVAILABLE`` to certify both).

* **A tile of Gaussians' rows applied to the coefficients in one call** (``gaussian_tile``, for
  ``ovk_fast.stored_rows``): ``out[f, r] = sum_j exp(factors[f] E[r, j]) C[j]`` with ``E = left @ right.T`` the tile's
  exponents on the expansion's operands (n_x x n_z). numpy and BLAS compute them as a GEMM into the whole tile, exp
  in place and a GEMM with ``C`` (n_z x d, d ~ 10): the tile goes to memory and back twice, and GEMMs this thin run
  far below the core's peak (at 256 x 512, K = p + 2 = 22 terms, one core, minima of interleaved runs: the
  exponents' GEMM 0.80 ns a value, numpy's exp 0.50-0.55, the product's GEMM 0.61). Here eight rows at a time: their
  exponents (``_exponent_rows``: 4 rows x 6 terms a pass, the factors in registers, on the tile's stored-point
  operand transposed into scratch memory with rows not 4 KiB apart, ``row_stride``), shared by the tile's Gaussians;
  for each Gaussian, exp of its factor times them into a buffer that stays in cache (the mask applied there), dotted
  with ``C``'s d columns two at a time, each load of ``C`` feeding eight sums (side by side with four rows: the
  product alone 0.27 against 0.37 ns a value). A single Gaussian's tile costs 1.18 ns a value, where BLAS's
  exponents and the compiled exp and product took about 1.45 and the floor (BLAS's GEMM and numpy's exp) 1.29-1.35,
  side by side, one core; no Python runs between the steps.
* **exp** (``_exp_row``): numba's own is libm's, one value at a time (8 ns per value); this one is written so that
  LLVM vectorises it (0.51 ns per value, numpy's 0.55): Cody-Waite reduction ``x = k ln2 + s`` (|s| <= ln2 / 2,
  ``k ln2`` in two parts, the high part exact for |k| < 2^20), ``e^s = 1 + s + s^2/2 + s^3 q(s)`` with q a
  Chebyshev fit of degree 8 (``_CUBIC_TAIL``: within 3.4e-17 of e^s, relative; Taylor's needs degree 13),
  ``2^k`` from its bits in two factors so that results below 2^-1022 round
  once, as libm's subnormals do. Within 1 ulp of libm, as numpy's exp (``tests/conformance/test_ovk_fast_compiled.py``);
  below -745.2 it gives 0, above 709.8 inf, and NaN stays NaN.
* **The rounds within a block** for the squared loss and separable kernels (``squared_rounds`` for MONORMA,
  ``onorma_squared_rounds`` for ONORMA): sequential and small (m kernels, d outputs), each round depending on the
  previous one (spec 5.1, 6.1-6.3), so a loop of numpy calls spends its time in call overhead (MONORMA at
  t = 5000, m = 3, d = 10: about 85 ms of 166 ms; compiled, 5 ms). The same steps in the same order as
  ovk_ref's; the sums run in another order, within the conformance tolerance. A Gaussian kernel's own rows come as
  exponents and are exponentiated in the loop, for the terms a round needs only. ONORMA's adds each round's term
  ``k(x_r, x_b) B beta_b`` to the sums of all later rounds at once (along the rounds, vectorised: 1.4-1.5 ms a run
  at t = 5000, d = 10, against 1.9 ms for d dot products per round, timed around the call, load 1.6-2.7), on the
  own values transposed (``exp_upper``: the strict upper triangle only, half of the square).
* **The norm recursion** (``norm_recursion``, spec 6.2 and 6.5), plain Python without numba.

Every kernel is in this one file: numba's cache (``cache=True``, beside this file: a few seconds to compile once,
about 0.3 s to load in a new process; numba itself is imported at the first compiled call, 0.2 s) is invalidated
by the stamp of the file a kernel is defined in, not by those of the kernels it calls and compiles into itself.
"""
from __future__ import annotations

import functools
import importlib.util
import types

import numpy as np

#: numba is installed: ovk_fast.onorma, ovk_fast.monorma and ovk_fast.stored_rows take the compiled kernels
AVAILABLE = importlib.util.find_spec("numba") is not None


def jit_calling(kernel, steps: dict, jit):
    """``kernel`` compiled by ``jit`` with each name of ``steps`` in its code bound to that compiled step
    (nopython code calls only compiled functions)."""
    return jit(types.FunctionType(kernel.__code__, {**kernel.__globals__, **steps}, kernel.__name__))


# --- exp, and a tile's values applied to the coefficients ----------------------------------------------------------

_LOG2E = 1.4426950408889634
_LN2_HIGH = 6.93147180369123816490e-01      # ln 2 with its 32 low bits zero: k * _LN2_HIGH is exact
_LN2_LOW = 1.90821492927058770002e-10
_ROUND = 6755399441055744.0                 # 1.5 * 2^52: (x + _ROUND) - _ROUND rounds x to an integer
_LOWEST, _HIGHEST = -746.0, 710.0           # exp is 0 below, inf above; the clamp keeps 2^k's bits in range
#: ``e^s = 1 + s + s^2/2 + s^3 q(s)`` on the reduced range |s| <= ln2 / 2: q's coefficients, highest degree first,
#: ``mpmath.chebyfit`` of ``(e^s - 1 - s - s^2/2) / s^3`` with 9 terms at 50 digits, rounded to float64: within
#: 3.4e-17 of e^s, relative (a third of an ulp at most; ``test_ovk_fast_compiled``), degree 11 in all where Taylor's
#: needs 13 for as much (two multiply-adds fewer a value: 0.51 against 0.55 ns a value, side by side)
_CUBIC_TAIL = (2.509554598170022e-08, 2.761379555451986e-07, 2.7557280082684685e-06, 2.4801536409064087e-05,
               0.0001984126985433077, 0.0013888888905871347, 0.008333333333332157, 0.041666666666651364,
               0.16666666666666666)
#: rows of the tile exponentiated and dotted together: each column of C is loaded once for them (8 rows and 2
#: columns of C at a time: 0.27 ns per value for the product, against 0.37 for 4 rows; 4 rows and 5 columns did as
#: well for d = 10 but wastes more where d is not a multiple of 5)
ROWS = 8
#: terms of the exponents' sums taken together (``_exponent_rows``): 4 rows x 6 terms measured fastest of 4 x 4,
#: 4 x 6, 5 x 4, 6 x 3, 6 x 4 and 8 x 3 at p + 2 = 22 (padded to 24), one core
TERMS = 6


def row_stride(w: int) -> int:
    """Elements between rows of ``w`` columns in a tile's scratch memory: 8 past a multiple of 64, so that the rows
    read and written together do not lie a multiple of 4 KiB apart (where they did, RT's rows of 512 columns, a
    tile took 1.28 ns a value against 1.15 with rows of 520)."""
    return -(-w // 64) * 64 + 8


def transposed_size(K: int, w: int) -> int:
    """Size of the flat memory ``_gaussian_tile`` needs for ``w`` stored points' operand of K terms, transposed and
    padded to a multiple of ``TERMS`` (rows ``row_stride(w)`` apart)."""
    return -(-K // TERMS) * TERMS * row_stride(w)


def _float_from_bits(bits):
    """The float64 whose bits are the int64 ``bits`` (compiled: an LLVM bit cast, ``_compiled``)."""
    return np.int64(bits).view(np.float64)


def _exp_value(y):
    """``exp(y)`` (the module docstring's steps; compiled into ``_exp_row``'s loops, which LLVM vectorises)."""
    y = _LOWEST if y < _LOWEST else y          # NaN compares false: it stays NaN
    y = _HIGHEST if y > _HIGHEST else y
    k = (y * _LOG2E + _ROUND) - _ROUND
    s = (y - k * _LN2_HIGH) - k * _LN2_LOW
    p = _CUBIC_TAIL[0]
    p = p * s + _CUBIC_TAIL[1]
    p = p * s + _CUBIC_TAIL[2]
    p = p * s + _CUBIC_TAIL[3]
    p = p * s + _CUBIC_TAIL[4]
    p = p * s + _CUBIC_TAIL[5]
    p = p * s + _CUBIC_TAIL[6]
    p = p * s + _CUBIC_TAIL[7]
    p = p * s + _CUBIC_TAIL[8]
    p = p * s + 0.5
    p = p * s + 1.0
    p = p * s + 1.0
    whole = np.int64(k)
    half = whole >> 1
    return p * _float_from_bits((half + 1023) << 52) * _float_from_bits((whole - half + 1023) << 52)


def _exp_row(x, factor, out):
    """``out[j] = exp(factor x[j])``; a factor of 1 (a single bandwidth folded into the exponents) is not multiplied
    by: the same values, one operation fewer a value (0.45 against 0.50 ns, side by side)."""
    if factor == 1.0:
        for j in range(x.shape[0]):
            out[j] = _exp_value(x[j])
    else:
        for j in range(x.shape[0]):
            out[j] = _exp_value(factor * x[j])


def _dot_rows(values, CT, out, r, rows):
    """``out[r + i, e] = sum_j values[i, j] CT[e, j]`` for i < ``rows`` (<= ``ROWS`` = 8; the sums in any order), two
    columns e at a time: each load of ``values`` feeds 2 accumulators, each load of ``CT`` 8 (16 in all, the last
    column twice where d is odd)."""
    d = CT.shape[0]
    for e in range(0, d, 2):
        f = min(e + 1, d - 1)
        t0, t1, t2, t3, t4, t5, t6, t7 = 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
        s0, s1, s2, s3, s4, s5, s6, s7 = 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
        for j in range(values.shape[1]):
            c, g = CT[e, j], CT[f, j]
            v0, v1, v2, v3 = values[0, j], values[1, j], values[2, j], values[3, j]
            v4, v5, v6, v7 = values[4, j], values[5, j], values[6, j], values[7, j]
            t0, t1, t2, t3, t4, t5, t6, t7 = (t0 + v0 * c, t1 + v1 * c, t2 + v2 * c, t3 + v3 * c, t4 + v4 * c,
                                              t5 + v5 * c, t6 + v6 * c, t7 + v7 * c)
            s0, s1, s2, s3, s4, s5, s6, s7 = (s0 + v0 * g, s1 + v1 * g, s2 + v2 * g, s3 + v3 * g, s4 + v4 * g,
                                              s5 + v5 * g, s6 + v6 * g, s7 + v7 * g)
        first, second = (t0, t1, t2, t3, t4, t5, t6, t7), (s0, s1, s2, s3, s4, s5, s6, s7)
        for i in range(rows):
            out[r + i, e], out[r + i, f] = first[i], second[i]


def _exponent_rows(left, RT, r, exponents, w):
    """``exponents[a, j] = sum_k left[r + a, k] RT[k, j]`` for a < 4 (a row past ``left``'s last is read as its
    last, its sums not used), j < w: ``RT`` (K' x w) the stored points' operand transposed, its rows K.. zero up to
    a multiple of ``TERMS``. Six terms k at a time (a pass over the row of 4 sums per group of terms): a group's six
    products summed in order of k by FMA, then added to the sum of the groups before (the first group sets it); the
    4 x 6 factors of ``left`` stay in registers, each load of ``RT`` feeds 4 rows, and the sums stay in cache (4 rows
    x w), where BLAS writes the whole tile of exponents and reads it back."""
    n, K = left.shape
    i0, i1, i2, i3 = min(r, n - 1), min(r + 1, n - 1), min(r + 2, n - 1), min(r + 3, n - 1)
    e0, e1, e2, e3 = exponents[0, :w], exponents[1, :w], exponents[2, :w], exponents[3, :w]
    for k in range(0, RT.shape[0], TERMS):
        k0, k1, k2, k3, k4, k5 = k, min(k + 1, K - 1), min(k + 2, K - 1), min(k + 3, K - 1), min(k + 4, K - 1), \
            min(k + 5, K - 1)       # past K: RT's zero rows, times any finite factor
        a00, a01, a02, a03, a04, a05 = left[i0, k0], left[i0, k1], left[i0, k2], left[i0, k3], left[i0, k4], left[i0, k5]
        a10, a11, a12, a13, a14, a15 = left[i1, k0], left[i1, k1], left[i1, k2], left[i1, k3], left[i1, k4], left[i1, k5]
        a20, a21, a22, a23, a24, a25 = left[i2, k0], left[i2, k1], left[i2, k2], left[i2, k3], left[i2, k4], left[i2, k5]
        a30, a31, a32, a33, a34, a35 = left[i3, k0], left[i3, k1], left[i3, k2], left[i3, k3], left[i3, k4], left[i3, k5]
        q0, q1, q2, q3, q4, q5 = RT[k, :w], RT[k + 1, :w], RT[k + 2, :w], RT[k + 3, :w], RT[k + 4, :w], RT[k + 5, :w]
        if k == 0:         # the first group sets the sums (zeroing them in a pass of its own: a tile 5% slower)
            for j in range(w):
                b0, b1, b2, b3, b4, b5 = q0[j], q1[j], q2[j], q3[j], q4[j], q5[j]
                e0[j] = a00 * b0 + a01 * b1 + a02 * b2 + a03 * b3 + a04 * b4 + a05 * b5
                e1[j] = a10 * b0 + a11 * b1 + a12 * b2 + a13 * b3 + a14 * b4 + a15 * b5
                e2[j] = a20 * b0 + a21 * b1 + a22 * b2 + a23 * b3 + a24 * b4 + a25 * b5
                e3[j] = a30 * b0 + a31 * b1 + a32 * b2 + a33 * b3 + a34 * b4 + a35 * b5
        else:
            for j in range(w):
                b0, b1, b2, b3, b4, b5 = q0[j], q1[j], q2[j], q3[j], q4[j], q5[j]
                e0[j] += a00 * b0 + a01 * b1 + a02 * b2 + a03 * b3 + a04 * b4 + a05 * b5
                e1[j] += a10 * b0 + a11 * b1 + a12 * b2 + a13 * b3 + a14 * b4 + a15 * b5
                e2[j] += a20 * b0 + a21 * b1 + a22 * b2 + a23 * b3 + a24 * b4 + a25 * b5
                e3[j] += a30 * b0 + a31 * b1 + a32 * b2 + a33 * b3 + a34 * b4 + a35 * b5


def _gaussian_tile(left, right, C, scale, factors, mask, operand, CT, out):
    """``out[f] = (exp(factors[f] left @ right.T) * mask) @ (C * scale)`` for each factor f: a tile of Gaussians' rows
    against stored points, on the expansion's operands (``ovk_fast.distances``; a single bandwidth's ``1/mu`` folded
    into ``left``, its factor 1), in one call: ``right`` transposed into ``operand`` (flat, ``transposed_size``) with
    zero rows up to a multiple of ``TERMS``, the coefficients times ``scale`` transposed into ``CT`` (d x n_z or more;
    each product as numpy's ``C * scale``), then eight rows at a time: four at a time their exponents
    (``_exponent_rows``), shared by the factors, and for each factor exp (``_exp_row``) and the mask (a 0 x 0 ``mask``:
    none; the values times it as numpy multiplies them, a non-finite value times 0 stays NaN) into that factor's
    values; then each factor's product with ``CT`` (``_dot_rows``). (All eight rows' exponents first, then each
    factor's values: ONORMA's single factor 2-3% slower, the exponents no longer fresh in cache.)"""
    n, w, d, K = left.shape[0], right.shape[0], C.shape[1], left.shape[1]
    terms, stride = -(-K // TERMS) * TERMS, row_stride(w)
    RT = operand[:terms * stride].reshape((terms, stride))
    for k in range(K):
        for j in range(w):
            RT[k, j] = right[j, k]
    RT[K:] = 0.0
    for e in range(d):
        for j in range(w):
            CT[e, j] = C[j, e] * scale
    m, masked = factors.shape[0], mask.shape[0] > 0
    exponents, values = np.empty((4, stride)), np.zeros((m, ROWS, w))
    for r in range(0, n, ROWS):
        rows = min(ROWS, n - r)
        for g in range(0, rows, 4):
            _exponent_rows(left, RT, r + g, exponents, w)
            for f in range(m):
                for a in range(min(4, rows - g)):
                    i = g + a
                    _exp_row(exponents[a, :w], factors[f], values[f, i])
                    if masked:
                        for j in range(w):
                            values[f, i, j] = values[f, i, j] * mask[r + i, j]
        for f in range(m):
            _dot_rows(values[f], CT, out[f], r, rows)


def _gaussian_rows(left, right, C, scale, bounds, operand, CT, tile, out):
    """``out = exp(left @ right.T) @ (C * scale)`` tile after tile (a single Gaussian, ``out`` and ``tile`` 1 x n_x x
    d), tile t the stored points ``bounds[t]..bounds[t+1]-1`` (``_gaussian_tile``), the tiles' products summed in
    their order as ``stored_rows`` sums them (``out`` the first, ``tile`` scratch): the stored rows of a block in one
    call where one thread computes them all."""
    one, unmasked = np.ones(1), np.zeros((0, 0), dtype=np.bool_)
    for t in range(bounds.shape[0] - 1):
        lo, hi = bounds[t], bounds[t + 1]
        if t == 0:
            _gaussian_tile(left, right[lo:hi], C[lo:hi], scale, one, unmasked, operand, CT, out)
            continue
        _gaussian_tile(left, right[lo:hi], C[lo:hi], scale, one, unmasked, operand, CT, tile)
        for r in range(out.shape[1]):
            for e in range(out.shape[2]):
                out[0, r, e] += tile[0, r, e]


# --- the rounds within a block, and the norm recursion -------------------------------------------------------------

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


def _onorma_squared_rounds(T, factors, B, old, previous, scales, steps, firsts, Y, predictions, new_coefficients,
                           beta):
    """ONORMA's steps 1-3 (spec 5.1) at rounds b = 0..n-1 of a block for the squared loss and a kernel ``k(x, z) B``,
    round r from the block's term ``firsts[r]`` on (truncation; ``firsts`` non-decreasing: a dropped term never
    returns). ``T`` (n, n): the block's own scalar rows transposed, ``T[i, r] = k(x_r, x_i)`` for i < r (the strict
    upper triangle is read), or with ``factors`` (1,) their exponents, ``exp(factors[0] T[i, r])`` computed here for
    the terms needed only; ``B`` (d, d), ``old`` (n, d) the rows against earlier blocks applied.

    Once round b gives its unscaled coefficient ``beta_b``, its term ``k(x_r, x_b) B beta_b`` is added to the sum of
    every later round r that keeps it at once (``sums[e, r]``, along the rounds: vectorised, no reduction), so round
    r's prediction ``previous[r] (old[r] + sums[:, r])`` is ready when it starts; each sum runs over the terms in
    their order. The records and ``beta`` are written."""
    n, d = Y.shape
    sums, v, new, weights = np.zeros((d, n)), np.empty((1, d)), np.empty(d), np.ones(1)
    betaT, row, exponents = np.empty((d, n)), np.empty(n), factors.shape[0] > 0
    reach = 0
    for b in range(n):
        for e in range(d):
            v[0, e] = previous[b] * (old[b, e] + sums[e, b])
        _new_coefficient(v, weights, Y, steps, scales, b, new, predictions, new_coefficients, betaT)
        reach = max(reach, b + 1)
        while reach < n and firsts[reach] <= b:     # rounds b+1..reach-1 keep term b
            reach += 1
        if reach == b + 1:
            continue
        if exponents:
            values = row[b + 1:reach]
            _exp_row(T[b, b + 1:reach], factors[0], values)
        else:
            values = T[b, b + 1:reach]
        for e in range(d):
            term = 0.0
            for f in range(d):
                term += B[e, f] * betaT[f, b]
            later = sums[e, b + 1:reach]
            for r in range(values.shape[0]):
                later[r] += values[r] * term
    beta[:, :] = betaT.T


def _exp_upper(E, factor, out):
    """``out[i, j] = exp(factor E[i, j])`` for j > i (the strict upper triangle; the rest of ``out`` untouched)."""
    for i in range(E.shape[0]):
        _exp_row(E[i, i + 1:], factor, out[i, i + 1:])


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


def _norm_terms(c_t, predictions, new_coefficients, B, added):
    """spec 6.2's terms besides ``c_t^2 ||f_{t-1}||^2`` for a Gaussian kernel ``k(x, z) B`` (``K(x, x) = B``: the
    inputs are finite): ``added[r] = 2 c_t <f_{t-1}(x_t), alpha_tt> + <B alpha_tt, alpha_tt>`` (the sums vectorised;
    ``ovk_fast.onorma``'s ``_norms``, where numpy took a dozen calls a block), for ``norm_recursion``."""
    n, d = new_coefficients.shape
    for r in range(n):
        cross, quadratic = 0.0, 0.0
        for e in range(d):
            cross += predictions[r, e] * new_coefficients[r, e]
            total = 0.0
            for f in range(d):
                total += B[e, f] * new_coefficients[r, f]
            quadratic += total * new_coefficients[r, e]
        added[r] = 2 * c_t[r] * cross + quadratic


def _expansion_operands(X, fold, left, right, centre, norms):
    """Both operands of ``distances.Expansion`` for the points ``X`` themselves, in one pass after their mean
    ``centre``: with ``a = X[i] - centre``, ``left[i] = [2 fold a, -fold |a|^2, -fold]``, ``right[i] = [a, 1, |a|^2]``
    and ``norms[i] = |a|^2`` (the stream's operands, ``distances.StreamOperands``: 0.04 ms at t = 5000, p = 20,
    where numpy's passes over the strided columns took 0.36 ms)."""
    n, p = X.shape
    centre[:] = 0.0
    for i in range(n):
        for k in range(p):
            centre[k] += X[i, k]
    for k in range(p):
        centre[k] /= n
    twice = 2 * fold
    for i in range(n):
        total = 0.0
        for k in range(p):
            a = X[i, k] - centre[k]
            right[i, k] = a
            left[i, k] = a * twice
            total += a * a
        norms[i] = total
        right[i, p], right[i, p + 1] = 1.0, total
        left[i, p], left[i, p + 1] = total * -fold, -fold


def largest_magnitude(values) -> float:
    """``max |values|`` of a 1-d array (0 for none), NaN where one is NaN (``literal_range.magnitude``): one pass, where
    numpy's ``max`` and ``min`` take two (the blocks' records, checked after every block); compiled only
    (``largest_magnitude_compiled``: without numba, ``magnitude`` takes numpy's way)."""
    largest = 0.0
    for value in values:
        size = abs(value)
        if size > largest:
            largest = size
        elif size != size:
            return size
    return largest


#: the steps of a round after step 1 (``_kernel_values``, compiled with reassociation), compiled into the rounds as written
EXACT_STEPS = (_new_coefficient, _gammas, _delta_update)


@functools.cache
def _compiled() -> dict:
    """The kernels compiled, by name: ``exp`` strictly (its order of operations is its accuracy), the sums with
    reassociation (vectorised), all with FMA contraction; the tiles' kernels without the GIL (ovk_fast's threads run
    tiles at once)."""
    import numba
    from llvmlite import ir
    from numba.extending import intrinsic

    @intrinsic
    def float_from_bits(typingctx, bits):
        return numba.types.float64(numba.types.int64), lambda context, builder, signature, args: builder.bitcast(
            args[0], ir.DoubleType())

    options = {"cache": True, "nogil": True, "error_model": "numpy"}
    strict = numba.njit(fastmath={"contract"}, **options)
    sums = numba.njit(fastmath={"contract", "reassoc"}, **options)
    plain = numba.njit(cache=True)
    exp_row = jit_calling(_exp_row, {"_exp_value": jit_calling(_exp_value, {"_float_from_bits": float_from_bits}, strict)},
                          strict)
    steps = {step.__name__: plain(step) for step in EXACT_STEPS}
    steps["_kernel_values"] = jit_calling(_kernel_values, {"_exp_row": exp_row}, sums)
    dot_rows, exponent_rows = sums(_dot_rows), strict(_exponent_rows)
    gaussian_tile = jit_calling(_gaussian_tile, {"_exponent_rows": exponent_rows, "_exp_row": exp_row,
                                                 "_dot_rows": dot_rows, "row_stride": plain(row_stride)}, strict)
    return {"exp_row": exp_row, "gaussian_tile": gaussian_tile, "dot_rows": dot_rows,
            "exponent_rows": exponent_rows,
            "gaussian_rows": jit_calling(_gaussian_rows, {"_gaussian_tile": gaussian_tile}, strict),
            "exp_upper": jit_calling(_exp_upper, {"_exp_row": exp_row}, strict),
            "monorma": jit_calling(_squared_rounds, steps, plain),
            "onorma": jit_calling(_onorma_squared_rounds, {**steps, "_exp_row": exp_row}, strict),
            "norms": plain(norm_recursion), "magnitude": plain(largest_magnitude),
            "norm_terms": sums(_norm_terms),
            "expansion_operands": sums(_expansion_operands)}


def exp_upper(E: np.ndarray, out: np.ndarray, factor: float = 1.0) -> np.ndarray:
    """``exp(factor E)`` on the strict upper triangle of a square C-contiguous ``E``, into ``out`` (the rest of
    ``out`` untouched), by ``_exp_row`` compiled (numba must be installed)."""
    _compiled()["exp_upper"](E, factor, out)
    return out


#: no mask
_NONE = np.zeros((0, 0), dtype=bool)


def gaussian_tile(left, right, C, scale: float, operand, CT, out, factors=(1.0,), mask=None) -> np.ndarray:
    """``_gaussian_tile`` compiled (numba must be installed): ``out[f] = (exp(factors[f] left @ right.T) * mask) @
    (C * scale)`` (``out`` len(factors) x n_x x d, or n_x x d for one factor; ``mask`` n_x x n_z booleans, or None for
    all)."""
    _compiled()["gaussian_tile"](left, right, C, scale, np.asarray(factors, dtype=float), _NONE if mask is None else mask,
                                 operand, CT, out if out.ndim == 3 else out[None])
    return out


def squared_rounds(*arguments) -> None:
    """``_squared_rounds`` compiled (numba must be installed: ``AVAILABLE``)."""
    _compiled()["monorma"](*arguments)


def onorma_squared_rounds(*arguments) -> None:
    """``_onorma_squared_rounds`` compiled (numba must be installed: ``AVAILABLE``)."""
    _compiled()["onorma"](*arguments)


def norm_recursion_compiled(*arguments) -> float:
    """``norm_recursion`` compiled where numba is installed (``AVAILABLE``), else as plain Python."""
    return (_compiled()["norms"] if AVAILABLE else norm_recursion)(*arguments)


def largest_magnitude_compiled(values) -> float:
    """``largest_magnitude`` compiled (numba must be installed: ``AVAILABLE``)."""
    return _compiled()["magnitude"](values)


def expansion_operands(X, fold: float, left, right, centre, norms) -> None:
    """``_expansion_operands`` compiled (numba must be installed: ``AVAILABLE``)."""
    _compiled()["expansion_operands"](X, fold, left, right, centre, norms)


def gaussian_rows(left, right, C, scale: float, bounds, operand, CT, tile, out) -> np.ndarray:
    """``_gaussian_rows`` compiled (numba must be installed: ``AVAILABLE``)."""
    _compiled()["gaussian_rows"](left, right, C, scale, bounds, operand, CT, tile, out)
    return out


def norm_terms(c_t, predictions, new_coefficients, B) -> np.ndarray:
    """``_norm_terms`` compiled (numba must be installed: ``AVAILABLE``): a new array."""
    added = np.empty(len(c_t))
    _compiled()["norm_terms"](c_t, predictions, new_coefficients, B, added)
    return added
