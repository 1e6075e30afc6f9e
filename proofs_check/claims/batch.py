"""Claims on the batch baseline (spec 7, C25): the minimal value of ``R_reg`` and the structured solves of spec 7.2-7.3.

The solves of spec 7.2 (separable ``k B``: two eigendecompositions) and 7.3 (the paper's non-separable kernel: two
``t x t`` systems) are written out here from the spec's formulas, with ``K_s``, ``B``, ``L = [<x_i, x_j>]`` and ``mu``
read from the kernel's parameters (not through its ``__call__``), and compared with ``impl.batch_ridge``'s solution
of the ``td x td`` system (spec 7.1).
"""
from __future__ import annotations

import numpy as np

from ovk_ref.kernels import as_kernel
from proofs_check import strategies, tolerances
from proofs_check.claims import common
from proofs_check.claims.base import Outcome, claim


def solution(impl, instance) -> np.ndarray:
    X, Y = common.arrays(instance)
    return np.asarray(impl.batch_ridge(X, Y, instance["kernel"], lam=instance["lam"]), dtype=float)


@claim("batch.minimal_value", statement="R_reg(f_t, t) = (1/t) sum_i ||f_t(x_i) - y_i||^2 / 2 + (lam/2)||f_t||^2 = (lam/2) y^T (G + t lam I)^(-1) y",
       reference="spec 7.1, C25", hypotheses="any kernel, lam > 0, squared loss", expected="holds",
       instances=strategies.onorma_instances("any", min_n=2, among=("squared",)), uses=("batch_ridge",),
       informative="two examples or more and a non-zero solution c",
       notes="G c - y = -t lam c at the minimiser, so (1/(2t))||G c - y||^2 + (lam/2) c^T G c = (lam/2)(c^T G c + t lam ||c||^2) = "
             "(lam/2) y^T c (symbolic.PROOFS['batch_minimal_value']); the comparator of Theorems 1-2 uses the right side "
             "(proofs_check.comparators.ridge)", faults=("batch_ridge_without_t",))
def minimal_value(instance, impl, precision=None):
    X, Y = common.arrays(instance)
    c = solution(impl, instance).reshape(-1)
    G = common.kernel(instance).gram(X)
    t, lam, y = len(X), instance["lam"], Y.reshape(-1)
    residual = G @ c - y
    direct = float(residual @ residual) / (2 * t) + lam / 2 * float(c @ G @ c)
    formula = lam / 2 * float(y @ c)
    # the terms both sides are sums of: a solve accurate to round-off relative to them
    magnitude = float(np.abs(residual) @ np.abs(residual)) / (2 * t) + lam / 2 * float(np.abs(c) @ np.abs(G) @ np.abs(c)) + \
        lam / 2 * float(np.abs(y) @ np.abs(c))
    outcome = common.close([direct], [formula], magnitude=magnitude, direct=direct, formula=formula)
    outcome.informative = common.resolved(c)
    return outcome


def _compare(instance, impl, shortcut: np.ndarray) -> Outcome:
    """``impl.batch_ridge`` against a shortcut's coefficients: they agree to round-off times the condition number of
    ``G + t lam I`` (a backward-stable solve of either); margin relative to that allowance."""
    X, _ = common.arrays(instance)
    direct = solution(impl, instance)
    system = common.kernel(instance).gram(X) + len(X) * instance["lam"] * np.eye(direct.size)
    condition = float(np.linalg.cond(system))
    size = max(float(np.max(np.abs(shortcut))), float(np.max(np.abs(direct))))
    allowed = tolerances.IDENTITY_RTOL * condition * size + tolerances.IDENTITY_ATOL
    error = float(np.max(np.abs(direct - shortcut))) if np.all(np.isfinite(direct)) else float("inf")
    return Outcome(margin=allowed - error, scale=allowed, quantities={"max_error": error, "condition": condition},
                   informative=len(X) >= 2 and common.resolved(shortcut), observed=error, bound=allowed)


def separable_shortcut(instance) -> np.ndarray:
    """Spec 7.2: ``K = k B``, ``K_s = U diag(s) U^T``, ``B = V diag(beta) V^T``: ``C = U [(U^T Y V) / (s beta^T + t lam)] V^T``."""
    kernel = as_kernel(instance["kernel"])
    X, Y = common.arrays(instance)
    K_s = np.array([[float(kernel.scalar(x_i, x_j)) for x_j in X] for x_i in X])
    s, U = np.linalg.eigh(K_s)
    beta, V = np.linalg.eigh(kernel.B)
    return U @ ((U.T @ Y @ V) / (np.outer(s, beta) + len(X) * instance["lam"])) @ V.T


def commuting_shortcut(instance) -> np.ndarray:
    """Spec 7.3: ``K = mu <x,x'> 11^T + (1 - mu) <x,x'>^2 I``; with ``V`` orthonormal, first column ``1/sqrt(d)``, and
    ``C' = C V``, ``Y' = Y V``: column 1 solves ``(mu d L + (1 - mu) L o L + t lam I) c'_1 = y'_1``, every other
    ``((1 - mu) L o L + t lam I) c'_k = y'_k``, ``L = [<x_i, x_j>]``."""
    kernel = as_kernel(instance["kernel"])
    X, Y = common.arrays(instance)
    t, d, mu = len(X), Y.shape[1], kernel.mu
    L = X @ X.T
    V, _ = np.linalg.qr(np.column_stack([np.ones(d), np.eye(d)[:, 1:]]))
    rotated = Y @ V
    other = (1 - mu) * L * L + t * instance["lam"] * np.eye(t)
    columns = [np.linalg.solve(other + mu * d * L if k == 0 else other, rotated[:, k]) for k in range(d)]
    return np.column_stack(columns) @ V.T


@claim("batch.separable_shortcut", statement="for a separable kernel k B, C = U [(U^T Y V) / (s beta^T + t lam)] V^T (two eigendecompositions) "
                 "is the solution of (G + t lam I) c = vec(Y)",
       reference="spec 7.2, C25", hypotheses="K = k B, lam > 0", expected="holds",
       instances=strategies.batch_instances("separable"), uses=("batch_ridge",),
       informative="two examples or more and a non-zero solution; the shortcut from k and B, written out in the claim",
       faults=("separable_scalar_at_x",))
def separable(instance, impl, precision=None):
    return _compare(instance, impl, separable_shortcut(instance))


@claim("batch.commuting_shortcut", statement="for mu <x,x'> 11^T + (1-mu) <x,x'>^2 I, two t x t systems in the basis (1/sqrt(d), ...) give "
                 "the solution of (G + t lam I) c = vec(Y)",
       reference="spec 7.3, C25", hypotheses="the paper's non-separable kernel, mu in [0, 1], lam > 0", expected="holds",
       instances=strategies.batch_instances("linear_quadratic"), uses=("batch_ridge",),
       informative="two examples or more and a non-zero solution; the two systems from L = X X^T and mu, written out in the claim",
       faults=("linear_quadratic_weights_swapped",))
def commuting(instance, impl, precision=None):
    return _compare(instance, impl, commuting_shortcut(instance))
