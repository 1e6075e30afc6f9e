"""Each algorithm pinned on tiny cases (t <= 3) against values computed exactly with sympy.

The expected values are the steps of the spec written out round by round (spec 5.1, 6.1, 7.1,
2.3) with sympy numbers: rationals for the data and ``eta / sqrt(t)`` kept as an exact radical.
ovk_ref is run in float64 (compared with ``IDENTITY_RTOL``) and with ``precision=50``
(compared with ``MPMATH_VS_EXACT_RTOL`` = 1e-40). The kernels, losses and updates are written again
here from the spec (3.1, 3.3, 4, 5.1, 6.1, 6.3), never by calling ovk_ref: the feature, linear and
Gaussian kernels; the squared, norm, Huber, epsilon-insensitive and softmax losses (sqrt, exp and log);
MONORMA with r = 2, 3/2 and 1/2 (fractional powers). Where exp, sqrt or log enter, each round is
evaluated to 80 digits.
"""
import mpmath
import numpy as np
import pytest
import sympy as sp

import ovk_ref
from ovk_ref import tolerances

HALF = sp.Rational(1, 2)
#: digits of the sympy side when a round involves exp, sqrt, log or a fractional power
DIGITS = 80

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
    """|actual - exact| <= rtol * max|exact| entrywise, the exact value evaluated to 60 digits; returns the
    largest error relative to that scale."""
    exact = np.array(exact, dtype=object).reshape(np.shape(actual))
    with mpmath.workdps(60):
        exact_mp = np.array([mpmath.mpf(str(sp.N(value, 60))) for value in exact.flat], dtype=object)
        actual_mp = np.array([mpmath.mpf(value) for value in np.asarray(actual, dtype=object).flat], dtype=object)
        scale = max(max(abs(value) for value in exact_mp), mpmath.mpf(1))
        errors = [abs(a - e) for a, e in zip(actual_mp, exact_mp)]
        assert max(errors) <= rtol * scale, f"max error {float(max(errors)):.3e} > {rtol} * {float(scale)}"
        return max(errors) / scale


def rows(vectors):
    return [[v for v in vector] for vector in vectors]


RUNS = [pytest.param(None, tolerances.IDENTITY_RTOL, id="float64"),
        pytest.param(50, tolerances.MPMATH_VS_EXACT_RTOL, id="precision50")]


# --- ONORMA, Algorithm 1 (spec 5.1) ----------------------------------------------------------------

def exact_onorma(kernel, gradient, xs, ys):
    """Rounds of spec 5.1 in sympy: ``p_t = sum_{i<t} K(x_t, x_i) alpha_{i,t-1}``, ``alpha_{t,t} = -eta_t u_t``
    with ``u_t = gradient(p_t, y_t)``, the older coefficients shrunk by ``c_t``; ``rkhs_norm2`` is the explicit
    Gram norm of spec 2.3. Each round's state is evaluated to 80 digits (exp, sqrt and log make the exact
    expressions explode; 80 digits is 10^40 below the comparison's tolerance)."""
    centres, alphas = [], []
    expected = dict(predictions=[], new_coefficients=[], rkhs_norm2=[])
    for t, (x, y) in enumerate(zip(xs, ys), start=1):
        p = sp.N(sum((kernel(x, xi) * a for xi, a in zip(centres, alphas)), sp.zeros(len(y), 1)), DIGITS)
        new = sp.N(-eta_t(t) * gradient(p, y), DIGITS)
        alphas = [sp.N(c_t(t) * a, DIGITS) for a in alphas] + [new]
        centres.append(x)
        expected["predictions"].append(list(p))
        expected["new_coefficients"].append(list(new))
        expected["rkhs_norm2"].append(sp.N(gram_norm2(kernel, centres, alphas), DIGITS))
    expected["coefficients"] = rows(alphas)
    return expected


def squared_gradient(z, y):
    """``z - y`` (spec 4)."""
    return z - y


def onorma_untruncated():
    """Rounds 1-3 of spec 5.1 with the feature kernel and the squared loss."""
    return exact_onorma(K, squared_gradient, XS, YS)


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


def monorma_expected(kernels, r, xs, ys):
    """Rounds of spec 6.1 with gamma as the explicit Gram norm (spec 6.4) and delta from the closed
    form (d) of spec 6.3: ``nu_j = delta^j_{t-1} ||g^j_t||``, ``delta^j = nu_j^(2/(r+1)) / (sum nu_k^(2r/(r+1)))^(1/r)``,
    from ``delta^j_0 = 1/m``. The fractional powers make exact expressions explode, so each round's state is
    evaluated to 80 digits."""
    centres, alphas = [], []
    delta = [sp.Rational(1, len(kernels))] * len(kernels)
    expected = dict(predictions=[], weights=[], gamma=[])
    for t, (x, y) in enumerate(zip(xs, ys), start=1):
        v = [sum((k(x, xi) * a for xi, a in zip(centres, alphas)), sp.zeros(len(y), 1)) for k in kernels]
        p = sp.N(sum((d * v_j for d, v_j in zip(delta, v)), sp.zeros(len(y), 1)), DIGITS)
        new = -eta_t(t) * (p - y)
        alphas = [sp.N(c_t(t) * a, DIGITS) for a in alphas] + [sp.N(new, DIGITS)]
        centres.append(x)
        gamma = [sp.N(gram_norm2(k, centres, alphas), DIGITS) for k in kernels]
        nu = [d * sp.sqrt(g) for d, g in zip(delta, gamma)]
        total = sum(n ** (2 * r / (r + 1)) for n in nu) ** (1 / r)
        delta = [sp.N(n ** (2 / (r + 1)) / total, DIGITS) for n in nu]
        expected["predictions"].append(list(p))
        expected["weights"].append(delta)
        expected["gamma"].append(gamma)
    expected["coefficients"] = rows(alphas)
    return expected


@pytest.mark.parametrize("precision, rtol", RUNS)
def test_monorma_matches_the_exact_rounds(precision, rtol):
    record = ovk_ref.monorma(X, Y, KERNELS, lam=float(LAM), eta=float(ETA), r=R, precision=precision)
    for field, exact in monorma_expected([K1, K2], sp.Integer(R), XS, YS).items():
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


# --- the sqrt, exp, log and fractional-power paths: other losses, the Gaussian kernel, fractional r ----

def norm(r):
    """``||r||`` of a sympy column."""
    return sp.sqrt((r.T * r)[0, 0])


def norm_gradient(z, y):
    """``r / ||r||``, and 0 at ``r = 0`` (spec 4)."""
    r = z - y
    return r * 0 if norm(r) == 0 else r / norm(r)


def huber_gradient(delta):
    """``r`` if ``||r|| <= delta``, else ``delta r / ||r||`` (spec 4)."""
    return lambda z, y: (z - y) if norm(z - y) <= delta else delta * (z - y) / norm(z - y)


def epsilon_insensitive_gradient(epsilon):
    """0 if ``||r|| <= epsilon``, else ``r / ||r||`` (spec 4)."""
    return lambda z, y: (z - y) * 0 if norm(z - y) <= epsilon else (z - y) / norm(z - y)


def softmax_gradient(z, y):
    """``softmax(z) - e_c`` (spec 4)."""
    exps = [sp.exp(value) for value in z]
    return sp.Matrix([value / sum(exps) for value in exps]) - y


ONE_HOT = [sp.Matrix([1, 0]), sp.Matrix([0, 1]), sp.Matrix([0, 1])]

# (loss for ovk_ref, its gradient written from spec 4, targets, the rounds whose residual ||p_t - y_t|| lies on the
# kink's inner side): each non-smooth loss takes both branches within three rounds; epsilon = 1 puts round 1
# (p_1 = 0, ||y_1|| = 1) exactly on the kink, where spec 4 selects the subgradient 0.
LOSS_CASES = [
    pytest.param("norm", norm_gradient, YS, None, id="norm"),
    pytest.param({"type": "huber", "delta": 1.5}, huber_gradient(sp.Rational(3, 2)), YS, sp.Rational(3, 2), id="huber"),
    pytest.param({"type": "epsilon_insensitive", "epsilon": 1.5}, epsilon_insensitive_gradient(sp.Rational(3, 2)), YS,
                 sp.Rational(3, 2), id="epsilon_insensitive"),
    pytest.param({"type": "epsilon_insensitive", "epsilon": 1.0}, epsilon_insensitive_gradient(sp.Integer(1)), YS,
                 sp.Integer(1), id="epsilon_insensitive_on_the_kink"),
    pytest.param("softmax", softmax_gradient, ONE_HOT, None, id="softmax"),
]


@pytest.mark.parametrize("precision, rtol", RUNS)
@pytest.mark.parametrize("loss, gradient, targets, kink", LOSS_CASES)
def test_onorma_with_a_lipschitz_loss_matches_the_exact_rounds(loss, gradient, targets, kink, precision, rtol):
    expected = exact_onorma(K, gradient, XS, targets)
    if kink is not None:  # the case is informative: both sides of the kink are visited
        inside = [norm(sp.Matrix(p) - y) <= kink for p, y in zip(expected["predictions"], targets)]
        assert inside[0] and not all(inside), inside
    Y_loss = np.array([[float(v) for v in y] for y in targets])
    record = ovk_ref.onorma(X, Y_loss, FEATURE, lam=float(LAM), eta=float(ETA), loss=loss, precision=precision)
    for field, exact in expected.items():
        assert_matches_exact(record[field], exact, rtol)


def loss_value(name, z, y):
    """``l(z, y)`` of spec 4 for the losses of LOSS_VALUE_CASES."""
    r = z - y
    if name == "norm":
        return norm(r)
    if name == "huber":
        return (r.T * r)[0, 0] / 2 if norm(r) <= HALF else HALF * norm(r) - HALF**2 / 2
    if name == "epsilon_insensitive":
        return sp.Max(0, norm(r) - HALF)
    return sp.log(sum(sp.exp(value) for value in z)) - (z.T * y)[0, 0]  # softmax


LOSS_GRADIENTS = {"norm": norm_gradient, "huber": huber_gradient(HALF),
                  "epsilon_insensitive": epsilon_insensitive_gradient(HALF), "softmax": softmax_gradient}

# (loss, z, y): residuals on both sides of the kink delta = epsilon = 1/2, and a softmax with a large logit
LOSS_VALUE_CASES = [
    ("norm", [HALF, -1, 2], [0, 0, 0]),
    ("huber", [HALF, -1, 2], [0, 0, 0]),
    ("huber", [sp.Rational(1, 4), 0, 0], [0, sp.Rational(1, 8), 0]),
    ("epsilon_insensitive", [HALF, -1, 2], [0, 0, 0]),
    ("epsilon_insensitive", [sp.Rational(1, 4), 0, 0], [0, sp.Rational(1, 8), 0]),
    ("softmax", [HALF, -1, 2], [0, 1, 0]),
    ("softmax", [40, 0, -3], [0, 0, 1]),
]


@pytest.mark.parametrize("name, z, y", LOSS_VALUE_CASES)
def test_loss_value_and_gradient_at_50_digits_match_spec4(name, z, y):
    z, y = sp.Matrix(z), sp.Matrix(y)
    parameters = {"huber": {"delta": 0.5}, "epsilon_insensitive": {"epsilon": 0.5}}.get(name, {})
    loss = ovk_ref.as_loss({"type": name, **parameters})
    num = ovk_ref.arithmetic.Arithmetic(50)
    with num.context():
        z_mp, y_mp = num.array([float(v) for v in z]), num.array([float(v) for v in y])
        value, gradient = loss.value(z_mp, y_mp), loss.gradient(z_mp, y_mp)
    assert_matches_exact(np.array([value]), [loss_value(name, z, y)], tolerances.MPMATH_VS_EXACT_RTOL)
    assert_matches_exact(gradient, list(LOSS_GRADIENTS[name](z, y)), tolerances.MPMATH_VS_EXACT_RTOL)


# The Gaussian kernel exp(-||x - z||^2 / mu) B (spec 3.1) on p = 2 inputs. B = 0.75 I + 0.25 11^T is the spec's
# J_c with c = 1/4: dyadic, so the float64 B that ovk_ref receives is exactly this matrix (the paper's c = 0.1
# is not a binary fraction: paper_J's float64 0.1 differs from 1/10 by 5.6e-18).
MU = HALF
B_GAUSS = sp.Matrix([[1, sp.Rational(1, 4)], [sp.Rational(1, 4), 1]])
GAUSSIAN = ovk_ref.Separable(ovk_ref.Gaussian(float(MU)), np.array(B_GAUSS, dtype=float))
LINEAR = ovk_ref.Separable(ovk_ref.Linear(), np.array(B1, dtype=float))
XS_2D = [sp.Matrix([0, HALF]), sp.Matrix([1, 0]), sp.Matrix([HALF, HALF])]
X_2D = np.array([[float(v) for v in x] for x in XS_2D])


def K_gauss(x, z):
    """``exp(-||x - z||^2 / mu) B``."""
    diff = x - z
    return sp.exp(-(diff.T * diff)[0, 0] / MU) * B_GAUSS


def K_linear(x, z):
    """``<x, z> B1``."""
    return (x.T * z)[0, 0] * B1


@pytest.mark.parametrize("precision, rtol", RUNS)
def test_onorma_with_the_gaussian_kernel_matches_the_exact_rounds(precision, rtol):
    record = ovk_ref.onorma(X_2D, Y, GAUSSIAN, lam=float(LAM), eta=float(ETA), precision=precision)
    for field, exact in exact_onorma(K_gauss, squared_gradient, XS_2D, YS).items():
        assert_matches_exact(record[field], exact, rtol)


@pytest.mark.parametrize("r", [sp.Rational(3, 2), sp.Rational(1, 2)], ids=["r=3/2", "r=1/2"])
@pytest.mark.parametrize("precision, rtol", RUNS)
def test_monorma_with_a_fractional_r_matches_the_exact_rounds(r, precision, rtol):
    """Gaussian and linear kernels: every exponent of the delta update (1/(r+1), r/(r+1), 1/r) is fractional
    for r = 3/2; r = 1/2 amplifies the differences between the kernels (spec 6.3)."""
    record = ovk_ref.monorma(X_2D, Y, [GAUSSIAN, LINEAR], lam=float(LAM), eta=float(ETA), r=float(r), precision=precision)
    expected = monorma_expected([K_gauss, K_linear], r, XS_2D, YS)
    assert len({float(delta) for delta in expected["weights"][-1]}) == 2  # the kernels' weights differ
    for field, exact in expected.items():
        assert_matches_exact(record[field], exact, rtol)


def coordinates(x):
    """A sympy input (a scalar when p = 1, else a column) as a list of floats."""
    return [float(v) for v in (x if isinstance(x, sp.MatrixBase) else [x])]


@pytest.mark.parametrize("kernel, sympy_kernel, xs, new_points", [
    pytest.param(GAUSSIAN, K_gauss, XS_2D, [sp.Matrix([0, 0]), sp.Matrix([sp.Rational(3, 2), -1])], id="gaussian"),
    # sp.Rational(0.1) is the binary fraction float64 stores for 0.1: 1 + 2 x is exact at 50 digits, not in float64
    pytest.param(FEATURE, K, XS, [sp.Rational(0.1), sp.Rational(1.0 / 3)], id="feature"),
])
def test_evaluate_and_rkhs_norm2_with_50_digit_coefficients_match_the_kernel_at_50_digits(
        kernel, sympy_kernel, xs, new_points):
    """mpf coefficients make ``evaluate`` and ``rkhs_norm2`` compute the kernel at 50 digits too, at the centres
    and at the new points (spec 2.3)."""
    alphas = [sp.Matrix([1, -1]), sp.Matrix([2, HALF]), sp.Matrix([0, 3])]
    num = ovk_ref.arithmetic.Arithmetic(50)
    with num.context():
        coefficients = num.array(np.array(rows(alphas), dtype=float))
        centres = [coordinates(x) for x in xs]
        values = ovk_ref.evaluate(kernel, centres, coefficients, [coordinates(x) for x in new_points])
        norm2 = ovk_ref.rkhs_norm2(kernel, centres, coefficients)
    expected = [list(sum((sympy_kernel(x, xi) * a for xi, a in zip(xs, alphas)), sp.zeros(2, 1))) for x in new_points]
    assert_matches_exact(values, expected, tolerances.MPMATH_VS_EXACT_RTOL)
    assert_matches_exact(np.array([norm2]), [gram_norm2(sympy_kernel, xs, alphas)], tolerances.MPMATH_VS_EXACT_RTOL)
