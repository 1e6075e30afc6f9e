"""The constants of the paper as sympy expressions, evaluated through mpmath (spec 3, 8, 10).

* ``kappa2(kernel, p)``: ``kappa^2 >= sup_{x in [0,1]^p} ||K(x,x)||_op`` for every kernel of ovk_ref
  (exact, attained, for the separable and non-separable kernels of spec 3.1-3.2);
* ``U_PROP1 = C kappa / lam`` (Prop. 1, Hyp. 2) and ``U_PROP2 = max(C_y/kappa, 2 C_y/lam)`` (Prop. 2, Hyp. 3);
* ``A``, ``A2``, ``B`` of Theorems 1-2 (the paper's alpha, beta) and the bounds built from them;
* ``ETA_STAR``, the step that minimises the Theorem 1 bound (spec 10).

Nothing here is a hand-copied float formula: ``evaluate(expr, **values)`` substitutes exact rationals for
the given floats and evaluates with mpmath at ``DIGITS`` digits.
"""
from __future__ import annotations

import functools
import itertools
import json
import math

import mpmath
import numpy as np
import sympy as sp

from ovk_ref.kernels import Feature, LinearQuadratic, Separable, WeightedSum, as_kernel
from ovk_ref.kernels.scalar import symbol
from proofs_check import kappa2_ball, tolerances

#: working precision (decimal digits) of every evaluation of a constant: above tolerances.RECHECK_DIGITS,
#: so that a constant compared with a 50-digit recomputation is never the less precise side
DIGITS = 60

lam, eta, U, C, C_y, kappa2_, n = sp.symbols("lam eta U C C_y kappa2 n", positive=True)
#: the symbols of the kernels' parameters, as the kernels declare them (``ovk_ref.kernels.scalar.symbol``)
p, d, mu, offset, c, degree = (symbol(name) for name in ("p", "d", "mu", "offset", "c", "degree"))
kappa = sp.sqrt(kappa2_)

# --- kappa^2 on the box [0, 1]^p (spec 3) ------------------------------------------------------
#: ||J||_op of the paper's output matrix J = 0.9 I + 0.1 11^T (spec 3.1)
J_NORM = sp.Rational(9, 10) + d / 10
#: kappa^2 of the non-separable kernel on [0,1]^p, attained at x = 1 (spec 3.2; declared by the kernel)
LINEAR_QUADRATIC_KAPPA2 = LinearQuadratic.kappa2_on_box()


@functools.cache
def scalar_sup(scalar_class) -> sp.Expr:
    """``sup_{x in [0,1]^p} k(x, x)`` of a scalar kernel family, as it declares it (``sup_on_box``)."""
    return scalar_class.sup_on_box()

# --- Propositions 1-2 and Theorems 1-2 (spec 8, 10) -------------------------------------------
U_PROP1 = C * kappa / lam
U_PROP2 = sp.Max(C_y / kappa, 2 * C_y / lam)
#: the sharpened Prop. 2(i) bound is PROP2_NORM_FACTOR (1 - prod_k (1 - eta_k lam)) (spec C12)
PROP2_NORM_FACTOR = 2 * kappa * C_y / lam
A = 2 * lam * U**2 * (2 * eta * lam + 1 / (eta * lam))
A2 = 2 * lam * U**2 * (10 * eta * lam + 1 / (eta * lam))
B = U**2 / (2 * eta)
#: what C18s subtracts instead of adding b/n: (3U^2/(2 eta) + 2 lam^2 U^2 eta)/n
SHARPENING = 3 * U**2 / (2 * eta) + 2 * lam**2 * U**2 * eta
THEOREM1_EXCESS = A / sp.sqrt(n) + B / n
THEOREM2_EXCESS = A2 / sp.sqrt(n) + B / n
SHARPENED_EXCESS = A / sp.sqrt(n) - SHARPENING / n
#: the minimiser of THEOREM1_EXCESS over eta > 0 (spec 10)
ETA_STAR = sp.sqrt(2 + 1 / (2 * sp.sqrt(n))) / (2 * lam)
#: its minimum value (spec 10)
THEOREM1_MINIMUM = 2 * sp.sqrt(2) * lam * U**2 * sp.sqrt(4 * sp.sqrt(n) + 1) / n ** sp.Rational(3, 4)


def exact(value) -> sp.Expr:
    """A float (or int) as the exact sympy rational it represents."""
    if isinstance(value, (sp.Basic, int)):
        return sp.sympify(value)
    return sp.Rational(float(value))


@functools.lru_cache(maxsize=None)
def _mpmath_function(expr: sp.Expr, names: tuple):
    symbols = {symbol.name: symbol for symbol in expr.free_symbols}
    return sp.lambdify([symbols[name] for name in names], expr, "mpmath")


def evaluate(expr: sp.Expr, **values) -> mpmath.mpf:
    """``expr`` at ``values`` (floats are read as exact binary rationals), with mpmath at DIGITS digits."""
    symbols = {symbol.name: symbol for symbol in expr.free_symbols}
    missing = set(symbols) - set(values)
    if missing:
        raise ValueError(f"evaluate needs values for {sorted(missing)}")
    names = tuple(sorted(symbols))
    function = _mpmath_function(expr, names)
    with mpmath.workdps(DIGITS):
        return mpmath.mpf(function(*[mpmath.mpf(exact(values[name]).p) / exact(values[name]).q for name in names]))


def value(expr: sp.Expr, **values) -> float:
    """``evaluate`` rounded to float."""
    return float(evaluate(expr, **values))


def _largest_eigenvalue(matrix) -> mpmath.mpf:
    """Of a float or mpf (object) symmetric matrix, at DIGITS digits."""
    with mpmath.workdps(DIGITS):
        matrix = np.asarray(matrix)
        entries = matrix.tolist() if matrix.dtype == object else np.asarray(matrix, dtype=float).tolist()
        return max(mpmath.eigsy(mpmath.matrix(entries), eigvals_only=True))


def _contending_vertices(kernel, p_: int) -> list:
    """The vertices of ``[0, 1]^p`` where ``||K(v, v)||_op`` may be largest, by a float64 screen of all ``2^p``
    through the kernel's own code (``tolerances.KAPPA2_CONTENDER_GAP``): the 60-digit eigenvalue problem (2-3 ms at
    d = 4) is then solved at one or two vertices instead of 16 (p = 4), and the max, hence kappa^2, is the same number.
    Every vertex contends when a float ``K(v, v)`` is not finite or not symmetric to ``tolerances.SYMMETRY`` (a
    planted fault may make it so)."""
    vertices = list(itertools.product((0, 1), repeat=p_))
    blocks = np.array([kernel(np.array(v, dtype=float), np.array(v, dtype=float)) for v in vertices])
    scale = np.max(np.abs(blocks)) if blocks.size else 0.0
    if not np.isfinite(scale) or np.max(np.abs(blocks - np.swapaxes(blocks, 1, 2))) > tolerances.SYMMETRY * scale:
        return vertices
    tops = np.linalg.eigvalsh(blocks)[:, -1]
    return [v for v, top in zip(vertices, tops) if top >= tops.max() - tolerances.KAPPA2_CONTENDER_GAP * abs(tops.max())]


def feature_blocks(kernel: Feature, p_: int) -> list:
    """``K(v, v) = A(v) A(v)^T`` at DIGITS digits (mpf object arrays: a float product could round down) through the
    kernel's own code, at the contending vertices of ``[0, 1]^p`` (``_contending_vertices``)."""
    with mpmath.workdps(DIGITS):
        vertices = [np.array([mpmath.mpf(c) for c in v], dtype=object) for v in _contending_vertices(kernel, p_)]
        return [kernel(v, v) for v in vertices]


def kappa2(kernel, p_: int) -> mpmath.mpf:
    """``kappa^2 >= sup_{x in [0,1]^p} ||K(x,x)||_op`` (Hypothesis 1; spec 3; equality except for sums), remembered
    per kernel (its portable form) and ``p``: a search draws the same kernel again and again while it varies the
    rest of an instance, and the exact value costs up to 2^p eigenvalue problems at DIGITS digits.

    Separable ``k B``: ``sup k(x,x) * ||B||_op`` (the largest eigenvalue of the float matrix B as stored: for
    the paper's J it exceeds ``J_NORM = (d+9)/10`` by a few ulps, since 0.1 is not a binary fraction); non-separable: ``p (mu d + (1-mu) p)``; feature kernel:
    ``||A(x)||_op^2`` is convex in ``x``, so its max over the box is at one of the 2^p vertices; weighted
    sums: the weighted sum of the terms' values (an upper bound).
    """
    kernel = as_kernel(kernel)
    return _kappa2(json.dumps(kernel.to_dict(), sort_keys=True), p_)


@functools.lru_cache(maxsize=4096)
def _kappa2(portable: str, p_: int) -> mpmath.mpf:
    kernel = as_kernel(json.loads(portable))
    if isinstance(kernel, Separable):
        scalar, sup_expr = kernel.scalar, scalar_sup(type(kernel.scalar))
        sup = evaluate(sup_expr, **{"p": p_, **scalar.params()}) if sup_expr.free_symbols else mpmath.mpf(1)
        with mpmath.workdps(DIGITS):
            return sup * _largest_eigenvalue(kernel.B)
    if isinstance(kernel, LinearQuadratic):
        return evaluate(LINEAR_QUADRATIC_KAPPA2, p=p_, mu=kernel.mu, d=kernel.d)
    if isinstance(kernel, Feature):
        with mpmath.workdps(DIGITS):
            return max(_largest_eigenvalue(block) for block in feature_blocks(kernel, p_))
    if isinstance(kernel, WeightedSum):
        with mpmath.workdps(DIGITS):
            return mpmath.fsum(exact_mpf(weight) * kappa2(term, p_) for weight, term in kernel.terms)
    raise TypeError(f"kernel must be one of ovk_ref's kernels (no kappa^2 formula for {type(kernel).__name__})")


def forget_kappa2() -> None:
    """Forget every remembered kappa^2 and its ceiling (they are computed through the kernels' code, which a planted
    fault may change: ``proofs_check.faults``)."""
    _kappa2.cache_clear()
    _kappa2_ceiling.cache_clear()


def kappa2_ceiling(kernel, p_: int) -> float:
    """The smallest float ``>= kappa2(kernel, p)``: the ``kappa2`` an instance carries, so that it still bounds
    ``||K(x,x)||_op`` (Hypothesis 1). Read off a ball of FLINT's arb where that ball decides it
    (``kappa2_ball.certified_ceiling``: 40-120 us instead of a 60-digit eigenvalue problem), from ``kappa2`` otherwise."""
    kernel = as_kernel(kernel)
    return _kappa2_ceiling(json.dumps(kernel.to_dict(), sort_keys=True), p_)


@functools.lru_cache(maxsize=4096)
def _kappa2_ceiling(portable: str, p_: int) -> float:
    certified = kappa2_ball.certified_ceiling(as_kernel(json.loads(portable)), p_, scalar_sup, LINEAR_QUADRATIC_KAPPA2,
                                              feature_blocks)
    return _exact_kappa2_ceiling(portable, p_) if certified is None else certified


def _exact_kappa2_ceiling(portable: str, p_: int) -> float:
    """The smallest float ``>=`` the 60-digit ``kappa^2``: its nearest float, one step up when that is below it."""
    exact = _kappa2(portable, p_)
    value = float(exact)
    return math.nextafter(value, math.inf) if value < exact else value


def paper_kappa2(kernel, p_: int) -> mpmath.mpf:
    """The closed forms of spec 3.1-3.2: ``(d+9)/10`` (Gaussian with J) and ``p (mu d + (1-mu) p)``."""
    kernel = as_kernel(kernel)
    if isinstance(kernel, LinearQuadratic):
        return evaluate(LINEAR_QUADRATIC_KAPPA2, p=p_, mu=kernel.mu, d=kernel.d)
    if isinstance(kernel, Separable) and kernel.scalar.name == "gaussian":
        return evaluate(J_NORM, d=kernel.d)
    raise TypeError(f"kernel must be one of the paper's two experiment kernels, got {kernel!r}")


def exact_mpf(value) -> mpmath.mpf:
    with mpmath.workdps(DIGITS):
        return mpmath.mpf(value)


def phi(n: int, rho) -> mpmath.mpf:
    """``Phi(n, rho) = (1/rho - 1)/2 + 4 sum_{t<n} c_t^+ + 2 rho sum_{t<=n} t^(-1/2) + 2 rho^2 H_n`` with ``c_t = (sqrt(t+1) -
    sqrt(t))/(2 rho) - 1/2``: the post-update proof of Theorem 1 bounds ``sum_t [R_t(f_t) - R_t(g)]`` by ``lam U^2 Phi``
    (spec C19); at DIGITS digits, a float ``rho`` read as the exact binary rational it is."""
    with mpmath.workdps(DIGITS):
        rho = rho if isinstance(rho, mpmath.mpf) else mpmath.mpf(exact(rho).p) / exact(rho).q
        positive = mpmath.fsum(max((mpmath.sqrt(t + 1) - mpmath.sqrt(t)) / (2 * rho) - mpmath.mpf(1) / 2, 0) for t in range(1, n))
        return ((1 / rho - 1) / 2 + 4 * positive + 2 * rho * mpmath.fsum(1 / mpmath.sqrt(t) for t in range(1, n + 1))
                + 2 * rho**2 * mpmath.fsum(mpmath.mpf(1) / t for t in range(1, n + 1)))
