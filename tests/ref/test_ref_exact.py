"""Each algorithm pinned on tiny cases (t <= 3) against values computed exactly with sympy.

The expected values are the steps of the spec written out round by round (spec 5.1, 6.1, 7.1,
2.3) with sympy numbers: rationals for the data and ``eta / sqrt(t)`` kept as an exact radical.
ovk_ref is run in float64 (compared with ``IDENTITY_RTOL``) and with ``precision=50``
(compared with ``MPMATH_VS_EXACT_RTOL``).
"""
import mpmath
import numpy as np
import pytest
import sympy as sp

import ovk_ref
from ovk_ref import tolerances

HALF = sp.Rational(1, 2)

# The feature kernel K(x, z) = A(x) A(z)^T, A(x) = M0 + x M1 (spec 3.3; p = 1, d = q = 2):
# its blocks are not symmetric, so a K(x_i, x) / K(x, x_i) mix-up changes every prediction.
M0 = sp.Matrix([[1, 0], [1, 1]])
M1 = sp.Matrix([[0, 1], [2, 0]])
FEATURE = ovk_ref.Feature(np.array([np.array(M0, dtype=float), np.array(M1, dtype=float)]))

# The stream: inputs and targets are dyadic rationals, so the float64 copies are exact.
XS = [HALF, sp.Integer(-1), sp.Integer(2)]
YS = [sp.Matrix([1, 0]), sp.Matrix([0, 2]), sp.Matrix([-1, 1])]
X = np.array([[float(x)] for x in XS])
Y = np.array([[float(v) for v in y] for y in YS])
ETA, LAM = HALF, HALF


def A(x):
    return M0 + x * M1


def K(x, z):
    """The feature kernel, written from its definition."""
    return A(x) * A(z).T


def eta_t(t):
    return ETA / sp.sqrt(t)


def c_t(t):
    return 1 - eta_t(t) * LAM


def gram_norm2(kernel, xs, alphas):
    """``sum_{i,j} <K(x_i, x_j) a_j, a_i>`` (spec 2.3)."""
    return sum((alphas[i].T * kernel(xs[i], xs[j]) * alphas[j])[0, 0]
               for i in range(len(xs)) for j in range(len(xs)))


def assert_matches_exact(actual, exact, rtol):
    """|actual - exact| <= rtol * max|exact| entrywise, the exact value evaluated to 60 digits."""
    exact = np.array(exact, dtype=object).reshape(np.shape(actual))
    with mpmath.workdps(60):
        exact_mp = np.array([mpmath.mpf(str(sp.N(value, 60))) for value in exact.flat], dtype=object)
        actual_mp = np.array([mpmath.mpf(value) for value in np.asarray(actual, dtype=object).flat], dtype=object)
        scale = max(max(abs(value) for value in exact_mp), mpmath.mpf(1))
        errors = [abs(a - e) for a, e in zip(actual_mp, exact_mp)]
        assert max(errors) <= rtol * scale, f"max error {float(max(errors)):.3e} > {rtol} * {float(scale)}"


def rows(vectors):
    return [[v for v in vector] for vector in vectors]


RUNS = [pytest.param(None, tolerances.IDENTITY_RTOL, id="float64"),
        pytest.param(50, tolerances.MPMATH_VS_EXACT_RTOL, id="precision50")]


# --- ONORMA, Algorithm 1 (spec 5.1) ----------------------------------------------------------------

def onorma_untruncated():
    """Rounds 1-3 of spec 5.1: predict with f_{t-1}, new = -eta_t (p_t - y_t), shrink old by c_t."""
    x1, x2, x3 = XS
    y1, y2, y3 = YS
    p1 = sp.zeros(2, 1)
    a11 = -eta_t(1) * (p1 - y1)
    p2 = K(x2, x1) * a11
    a22 = -eta_t(2) * (p2 - y2)
    a12 = c_t(2) * a11
    p3 = K(x3, x1) * a12 + K(x3, x2) * a22
    a33 = -eta_t(3) * (p3 - y3)
    a13, a23 = c_t(3) * a12, c_t(3) * a22
    norms = [gram_norm2(K, [x1], [a11]), gram_norm2(K, [x1, x2], [a12, a22]),
             gram_norm2(K, [x1, x2, x3], [a13, a23, a33])]
    return dict(predictions=rows([p1, p2, p3]), coefficients=rows([a13, a23, a33]),
                new_coefficients=rows([a11, a22, a33]), rkhs_norm2=norms)


@pytest.mark.parametrize("precision, rtol", RUNS)
def test_onorma_without_truncation_matches_the_exact_rounds(precision, rtol):
    record = ovk_ref.onorma(X, Y, FEATURE, lam=float(LAM), eta=float(ETA), precision=precision)
    for field, exact in onorma_untruncated().items():
        assert_matches_exact(record[field], exact, rtol)
    assert list(record.kernel_evaluations) == [0, 1, 2]


def onorma_window_one():
    """s_t = 1: f_t keeps only the newest term, so p_t = K(x_t, x_{t-1}) alpha_{t-1,t-1}."""
    x1, x2, x3 = XS
    y1, y2, y3 = YS
    a11 = eta_t(1) * y1
    p2 = K(x2, x1) * a11
    a22 = -eta_t(2) * (p2 - y2)
    p3 = K(x3, x2) * a22
    a33 = -eta_t(3) * (p3 - y3)
    zero = sp.zeros(2, 1)
    return dict(predictions=rows([zero, p2, p3]), coefficients=rows([zero, zero, a33]),
                new_coefficients=rows([a11, a22, a33]),
                rkhs_norm2=[gram_norm2(K, [x], [a]) for x, a in zip(XS, [a11, a22, a33])])


@pytest.mark.parametrize("precision, rtol", RUNS)
def test_onorma_with_window_one_matches_the_exact_rounds(precision, rtol):
    record = ovk_ref.onorma(X, Y, FEATURE, lam=float(LAM), eta=float(ETA), truncation=1, precision=precision)
    for field, exact in onorma_window_one().items():
        assert_matches_exact(record[field], exact, rtol)
    assert list(record.kernel_evaluations) == [0, 1, 1]
    assert list(record.support_sizes) == [1, 1, 1]


def test_onorma_with_the_theorem2_schedule_drops_the_first_term_at_round_three():
    """t0 = 1, eps = 1/4: s = (1, 2, 2), the first drop at t = t0 + 2 = 3 (spec 5.3).

    Predictions for t <= 3 use f_0..f_2, which are untruncated; f_3 loses i = 1, so its
    coefficients and its norm (the recursion plus the downdate of spec 6.5) change."""
    schedule = ovk_ref.theorem2_schedule(1, 0.25)
    assert [schedule(t) for t in (1, 2, 3)] == [1, 2, 2]
    record = ovk_ref.onorma(X, Y, FEATURE, lam=float(LAM), eta=float(ETA), truncation=schedule)
    full = onorma_untruncated()
    a23, a33 = (sp.Matrix(row) for row in full["coefficients"][1:])
    assert_matches_exact(record.predictions, full["predictions"], tolerances.IDENTITY_RTOL)
    assert_matches_exact(record.coefficients, [[0, 0]] + full["coefficients"][1:], tolerances.IDENTITY_RTOL)
    assert_matches_exact(record.rkhs_norm2, full["rkhs_norm2"][:2] + [gram_norm2(K, XS[1:], [a23, a33])],
                         tolerances.IDENTITY_RTOL)
    assert list(record.kernel_evaluations) == [0, 1, 2]
    assert list(record.support_sizes) == [1, 2, 2]


# --- MONORMA, Algorithm 2 (spec 6.1) ---------------------------------------------------------------

B1 = sp.Matrix([[2, 1], [1, 1]])
KERNELS = [ovk_ref.Separable(ovk_ref.Linear(), np.array(B1, dtype=float)),
           ovk_ref.Separable(ovk_ref.Constant(1.0), np.eye(2))]
R = 2


def K1(x, z):
    """``<x, z> B1``."""
    return x * z * B1


def K2(x, z):
    """``1 * I``."""
    return sp.eye(2)


def monorma_expected():
    """Rounds 1-3 of spec 6.1 with gamma as the explicit Gram norm (spec 6.4) and delta from the closed
    form (d) of spec 6.3: ``nu_j = delta^j_{t-1} ||g^j_t||``, ``delta^j = nu_j^(2/(r+1)) / (sum nu_k^(2r/(r+1)))^(1/r)``.

    The fractional powers make exact expressions explode, so each round's state is rounded to 80 digits."""
    kernels = [K1, K2]
    xs, alphas = [], []
    delta = [HALF, HALF]
    expected = dict(predictions=[], weights=[], gamma=[])
    for t in (1, 2, 3):
        x, y = XS[t - 1], YS[t - 1]
        v = [sum((k(x, xi) * a for xi, a in zip(xs, alphas)), sp.zeros(2, 1)) for k in kernels]
        p = delta[0] * v[0] + delta[1] * v[1]
        new = -eta_t(t) * (p - y)
        alphas = [c_t(t) * a for a in alphas] + [new]
        xs.append(x)
        gamma = [gram_norm2(k, xs, alphas) for k in kernels]
        nu = [d * sp.sqrt(g) for d, g in zip(delta, gamma)]
        total = sum(n ** (sp.Integer(2 * R) / (R + 1)) for n in nu) ** (sp.Rational(1, R))
        delta = [sp.N(n ** (sp.Integer(2) / (R + 1)) / total, 80) for n in nu]
        alphas = [sp.N(a, 80) for a in alphas]
        expected["predictions"].append(list(p))
        expected["weights"].append(delta)
        expected["gamma"].append(gamma)
    expected["coefficients"] = rows(alphas)
    return expected


@pytest.mark.parametrize("precision, rtol", RUNS)
def test_monorma_matches_the_exact_rounds(precision, rtol):
    record = ovk_ref.monorma(X, Y, KERNELS, lam=float(LAM), eta=float(ETA), r=R, precision=precision)
    for field, exact in monorma_expected().items():
        assert_matches_exact(record[field], exact, rtol)
    assert list(record.kernel_evaluations) == [2, 4, 6]


# --- batch ridge, evaluate, rkhs_norm2 (spec 7.1, 2.3) --------------------------------------------

@pytest.mark.parametrize("precision, rtol", RUNS)
def test_batch_ridge_solves_the_exact_system(precision, rtol):
    """``(G + t lam I) c = vec(Y)`` with G the point-major block Gram of the feature kernel, solved exactly."""
    lam = sp.Rational(1, 4)
    t = len(XS)
    G = sp.Matrix(sp.BlockMatrix([[K(xi, xj) for xj in XS] for xi in XS]))
    c = (G + t * lam * sp.eye(2 * t)).LUsolve(sp.Matrix.vstack(*YS))
    coefficients = ovk_ref.batch_ridge(X, Y, FEATURE, lam=float(lam), precision=precision)
    assert_matches_exact(coefficients, list(c), rtol)


def test_batch_ridge_by_hand():
    """d = 1, k(x, z) = x z, x = (1, 2), y = (1, 1), lam = 1/2: (G + I) c = y with G = [[1, 2], [2, 4]],
    (G + I)^{-1} = [[5, -2], [-2, 2]] / 6, so c = (1/2, 0)."""
    kernel = ovk_ref.Separable(ovk_ref.Linear(), [[1.0]])
    coefficients = ovk_ref.batch_ridge([[1.0], [2.0]], [[1.0], [1.0]], kernel, lam=0.5)
    assert_matches_exact(coefficients, [[HALF], [0]], tolerances.IDENTITY_RTOL)


def test_evaluate_sums_k_of_new_point_and_centre_times_coefficient():
    """``f(x) = sum_i K(x, x_i) a_i`` (spec 1, E3), with the non-symmetric feature kernel."""
    alphas = [sp.Matrix([1, -1]), sp.Matrix([2, HALF]), sp.Matrix([0, 3])]
    new_points = [sp.Integer(0), sp.Rational(3, 2)]
    expected = [list(sum((K(x, xi) * a for xi, a in zip(XS, alphas)), sp.zeros(2, 1))) for x in new_points]
    values = ovk_ref.evaluate(FEATURE, X, np.array(rows(alphas), dtype=float), [[float(x)] for x in new_points])
    assert_matches_exact(values, expected, tolerances.IDENTITY_RTOL)


def test_rkhs_norm2_equals_the_feature_weight_norm():
    """Feature kernel: ``||sum_i K(., x_i) a_i||^2 = ||sum_i A(x_i)^T a_i||^2`` (spec 3.3, C2)."""
    alphas = [sp.Matrix([1, -1]), sp.Matrix([2, HALF]), sp.Matrix([0, 3])]
    w = sum((A(x).T * a for x, a in zip(XS, alphas)), sp.zeros(2, 1))
    norm2 = ovk_ref.rkhs_norm2(FEATURE, X, np.array(rows(alphas), dtype=float))
    assert_matches_exact(np.array([norm2]), [(w.T * w)[0, 0]], tolerances.IDENTITY_RTOL)
