"""A tile's Gaussian values applied to the coefficients in one compiled pass (the optional ``fast`` extra, numba):
``out[r] = sum_j exp(factor E[r, j]) C[j]`` for a tile of exponents ``E`` (n_x x n_z) and coefficients ``C``.

numpy computes this as ``exp`` into the tile and a GEMM with ``C`` (n_z x d, d ~ 10): the tile goes to memory and
back, and a GEMM this thin runs far below the core's peak (measured at 256 x 512 x 10 on one core, the minimum of
interleaved runs: exp 0.55 ns per value, exp and GEMM 1.17). Here four rows of the tile at a time are exponentiated
into a buffer that stays in the L1 cache and dotted with ``C``'s d columns two at a time, each load feeding eight
sums (about 0.25 ns per value for the product, near the core's FMA throughput; 0.37 with one column at a time).

numba's ``exp`` is libm's, one value at a time (8 ns per value); ``_exp_row`` is written so that LLVM vectorises it
(0.55 ns per value, as numpy's): Cody-Waite reduction ``x = k ln2 + s`` (|s| <= ln2 / 2, ``k ln2`` in two parts,
the high part exact for |k| < 2^20), ``e^s`` by its Taylor polynomial of degree 13 (truncation below 1e-17
relative), ``2^k`` from its bits in two factors so that results below 2^-1022 round once, as libm's subnormals do.
Within 1 ulp of libm, as numpy's exp (``tests/fast/test_exp_product.py``); below -745.2 it gives 0, above 709.8
inf, and NaN stays NaN.
"""
from __future__ import annotations

import functools

import numpy as np

from ovk_fast.jit import jit_calling

_LOG2E = 1.4426950408889634
_LN2_HIGH = 6.93147180369123816490e-01      # ln 2 with its 32 low bits zero: k * _LN2_HIGH is exact
_LN2_LOW = 1.90821492927058770002e-10
_ROUND = 6755399441055744.0                 # 1.5 * 2^52: (x + _ROUND) - _ROUND rounds x to an integer
_LOWEST, _HIGHEST = -746.0, 710.0           # exp is 0 below, inf above; the clamp keeps 2^k's bits in range
#: rows of the tile exponentiated and dotted together: each column of C is loaded once for them
ROWS = 4


def _float_from_bits(bits):
    """The float64 whose bits are the int64 ``bits`` (compiled: an LLVM bit cast, ``_compiled``)."""
    return np.int64(bits).view(np.float64)


def _exp_row(x, factor, out):
    """``out[j] = exp(factor x[j])``."""
    for j in range(x.shape[0]):
        y = factor * x[j]
        y = _LOWEST if y < _LOWEST else y          # NaN compares false: it stays NaN
        y = _HIGHEST if y > _HIGHEST else y
        k = (y * _LOG2E + _ROUND) - _ROUND
        s = (y - k * _LN2_HIGH) - k * _LN2_LOW
        p = 1.0 / 6227020800.0
        p = p * s + 1.0 / 479001600.0
        p = p * s + 1.0 / 39916800.0
        p = p * s + 1.0 / 3628800.0
        p = p * s + 1.0 / 362880.0
        p = p * s + 1.0 / 40320.0
        p = p * s + 1.0 / 5040.0
        p = p * s + 1.0 / 720.0
        p = p * s + 1.0 / 120.0
        p = p * s + 1.0 / 24.0
        p = p * s + 1.0 / 6.0
        p = p * s + 0.5
        p = p * s + 1.0
        p = p * s + 1.0
        whole = np.int64(k)
        half = whole >> 1
        out[j] = p * _float_from_bits((half + 1023) << 52) * _float_from_bits((whole - half + 1023) << 52)


def _dot_rows(values, CT, out, r, rows):
    """``out[r + i, e] = sum_j values[i, j] CT[e, j]`` for i < ``rows`` (<= ``ROWS``; the sums in any order), two
    columns e at a time: each load of ``values`` feeds 8 accumulators (the last column twice where d is odd)."""
    d = CT.shape[0]
    for e in range(0, d, 2):
        f = min(e + 1, d - 1)
        t0, t1, t2, t3, s0, s1, s2, s3 = 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
        for j in range(CT.shape[1]):
            c, g = CT[e, j], CT[f, j]
            v0, v1, v2, v3 = values[0, j], values[1, j], values[2, j], values[3, j]
            t0, t1, t2, t3 = t0 + v0 * c, t1 + v1 * c, t2 + v2 * c, t3 + v3 * c
            s0, s1, s2, s3 = s0 + v0 * g, s1 + v1 * g, s2 + v2 * g, s3 + v3 * g
        first, second = (t0, t1, t2, t3), (s0, s1, s2, s3)
        for i in range(rows):
            out[r + i, e], out[r + i, f] = first[i], second[i]


def _exp_product(E, factor, CT, mask, out):
    """``out[r, e] = sum_j exp(factor E[r, j]) mask[r, j] CT[e, j]`` (a 0 x 0 ``mask``: none), ``ROWS`` rows at a
    time; the values times the mask as numpy multiplies them (a non-finite value times 0 stays NaN)."""
    values, masked = np.zeros((ROWS, E.shape[1])), mask.shape[0] > 0
    for r in range(0, E.shape[0], ROWS):
        rows = min(ROWS, E.shape[0] - r)
        for i in range(rows):
            _exp_row(E[r + i], factor, values[i])
            if masked:
                for j in range(E.shape[1]):
                    values[i, j] = values[i, j] * mask[r + i, j]
        _dot_rows(values, CT, out, r, rows)


@functools.cache
def _compiled():
    """``(exp_row, exp_product)`` compiled: ``exp`` strictly (its order of operations is its accuracy), the dot
    products with reassociation (vectorised sums), both with FMA contraction; without the GIL (ovk_fast's threads
    run tiles at once)."""
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
    exp_row = jit_calling(_exp_row, {"_float_from_bits": float_from_bits}, strict)
    return exp_row, jit_calling(_exp_product, {"_exp_row": exp_row, "_dot_rows": sums(_dot_rows)}, strict)


def compiled_exp_row():
    """``_exp_row`` compiled (for the kernels that call it; numba must be installed)."""
    return _compiled()[0]


def exp_into(x: np.ndarray, out: np.ndarray, factor: float = 1.0) -> np.ndarray:
    """``exp(factor x)`` of a 1-d array into ``out``, by ``_exp_row`` compiled (numba must be installed)."""
    _compiled()[0](x, factor, out)
    return out


#: no mask
_NONE = np.zeros((0, 0), dtype=bool)


def exp_product(E: np.ndarray, factor: float, CT: np.ndarray, out: np.ndarray, mask: np.ndarray | None = None):
    """``out = (exp(factor E) * mask) @ CT.T`` (E: n_x x n_z, CT: d x n_z, out: n_x x d, each C-contiguous; ``mask``
    n_x x n_z booleans, or None for all), compiled (numba must be installed)."""
    _compiled()[1](E, factor, CT, _NONE if mask is None else mask, out)
    return out
