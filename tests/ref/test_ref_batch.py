"""The batch baseline (spec 7.1, C25): the solution satisfies its system, the normal equations, optimality and
the minimal-value formula; for separable kernels it equals the eigen-shortcut of spec 7.2.

Round-off scales: a backward-stable solve leaves a residual of ``eps (||S|| ||c|| + ||y||)`` with
``S = G + t lam I``; a quantity derived from the residual inherits that size.
"""
import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from shared.closeness import IDENTITY_OF_SCALE, assert_close

import ovk_ref
from ovk_ref import tolerances
from proofs_check import strategies


@st.composite
def batch_problems(draw, separable=False):
    d, p = draw(strategies.dimensions), draw(strategies.dimensions)
    kernel = draw(strategies.separable_kernels(d) if separable else strategies.kernels(d, p))
    X, Y = draw(strategies.streams(p, d, max_n=8))
    lam = draw(st.floats(1e-3, 10.0))
    return kernel, X, Y, lam


def block_gram(kernel, X):
    return np.block([[kernel(xi, xj) for xj in X] for xi in X])


def objective(G, y, c, lam, t):
    """``J(c) = (1/(2t)) ||G c - y||^2 + (lam/2) c^T G c`` (spec 7.1)."""
    return ((G @ c - y) @ (G @ c - y)) / (2 * t) + lam / 2 * (c @ G @ c)


@given(batch_problems())
def test_c25_system_normal_equations_optimality_and_minimal_value(problem):
    kernel, X, Y, lam = problem
    t = len(X)
    coefficients = ovk_ref.batch_ridge(X, Y, kernel, lam=lam)
    assert coefficients.shape == Y.shape
    G, y, c = block_gram(kernel, X), Y.ravel(), coefficients.ravel()
    system = G + t * lam * np.eye(len(y))
    residual_scale = np.linalg.norm(system, 2) * np.linalg.norm(c) + np.linalg.norm(y)
    residual = system @ c - y
    assert np.linalg.norm(residual) <= tolerances.IDENTITY_RTOL * residual_scale, "(G + t lam I) c != y"
    # normal equations G (G + t lam I) c = G y, and the gradient G((Gc - y)/t + lam c) of J vanishes
    assert np.linalg.norm(G @ residual) <= tolerances.IDENTITY_RTOL * np.linalg.norm(G, 2) * residual_scale
    # fitted values: h(x_i) = (G c)_i = y_i - t lam c_i (RKHS optimality, coefficient form)
    fitted = ovk_ref.evaluate(kernel, X, coefficients, X).ravel()
    assert np.linalg.norm(fitted - (y - t * lam * c)) <= tolerances.IDENTITY_RTOL * residual_scale
    # minimal value R_reg(f_t, t) = (lam/2) y^T (G + t lam I)^{-1} y = (lam/2) y^T c
    value_scale = lam / 2 * np.linalg.norm(c) * residual_scale + residual_scale**2 / (2 * t)
    assert abs(objective(G, y, c, lam, t) - lam / 2 * (y @ c)) <= tolerances.IDENTITY_RTOL * value_scale
    # ||f_t||^2 = c^T G c
    norm2 = ovk_ref.rkhs_norm2(kernel, X, coefficients)
    assert abs(norm2 - c @ G @ c) <= tolerances.IDENTITY_RTOL * np.linalg.norm(G, 2) * (c @ c)


@given(batch_problems(), st.data())
def test_c25_the_objective_grows_quadratically_around_the_solution(problem, data):
    """At the minimiser the linear term vanishes: ``J(c + e) - J(c) = (1/(2t)) ||G e||^2 + (lam/2) e^T G e``."""
    kernel, X, Y, lam = problem
    t = len(X)
    c = ovk_ref.batch_ridge(X, Y, kernel, lam=lam).ravel()
    e = data.draw(strategies.bounded_arrays(c.shape), label="perturbation")
    G, y = block_gram(kernel, X), Y.ravel()
    increase = objective(G, y, c + e, lam, t) - objective(G, y, c, lam, t)
    quadratic = (G @ e) @ (G @ e) / (2 * t) + lam / 2 * (e @ G @ e)
    system = G + t * lam * np.eye(len(y))
    residual_scale = np.linalg.norm(system, 2) * np.linalg.norm(c) + np.linalg.norm(y)
    scale = (objective(G, y, c, lam, t) + objective(G, y, c + e, lam, t) + quadratic
             + np.linalg.norm(G, 2) * np.linalg.norm(e) * residual_scale / t)
    assert abs(increase - quadratic) <= tolerances.IDENTITY_RTOL * scale


@given(batch_problems(separable=True))
def test_c25_separable_shortcut_equals_the_direct_solve(problem):
    """Spec 7.2: ``K = k B``: ``C = U [(U^T Y V) / (s beta^T + t lam)] V^T`` from the eigendecompositions of ``K_s`` and ``B``.
    The two solves agree to round-off times the condition number of ``G + t lam I``."""
    kernel, X, Y, lam = problem
    t = len(X)
    K_s = np.array([[kernel.scalar(xi, xj) for xj in X] for xi in X])
    s, U = np.linalg.eigh(K_s)
    beta, V = np.linalg.eigh(kernel.B)
    shortcut = U @ ((U.T @ Y @ V) / (np.outer(s, beta) + t * lam)) @ V.T
    coefficients = ovk_ref.batch_ridge(X, Y, kernel, lam=lam)
    condition = np.linalg.cond(block_gram(kernel, X) + t * lam * np.eye(Y.size))
    scale = condition * max(np.abs(shortcut).max(), np.abs(coefficients).max())
    assert_close(coefficients, shortcut, IDENTITY_OF_SCALE, scale=scale, what="coefficients")
