"""Batch ridge (spec 7), through the kernel's structure instead of the td x td solve where it has one.

* Separable ``k(x, z) B`` (7.2): with ``B = V diag(beta) V^T`` and ``C' = C V``, ``Y' = Y V``, column k solves
  ``(beta_k K_s + t lam I) c'_k = y'_k``: one Cholesky factorisation per distinct eigenvalue of B (two for
  the paper's J) while there are at most ``CHOLESKY_SOLVES_PER_EIGH`` of them; beyond, one eigendecomposition
  ``K_s = U diag(s) U^T`` gives all columns at once, ``C' = U [(U^T Y') / (s beta^T + t lam)]``.
* The paper's non-separable kernel (7.3): with V orthonormal, first column ``1/sqrt(d)``: column 1 solves
  ``(mu d L + (1 - mu) L o L + t lam I) c'_1 = y'_1``, the others share ``(1 - mu) L o L + t lam I``.
* Any other kernel: the vectorised block Gram matrix and a direct solve (7.1).
"""
from __future__ import annotations

import math

import numpy as np
from scipy import linalg

from ovk_fast import tolerances
from ovk_fast.kernel_rows import KernelRows, scalar_matrix, vectorised
from ovk_fast.precision import float64_only
from ovk_fast.threads import single_blas_thread
from ovk_ref import validation
from ovk_ref.batch import check_finite_gram, singular_system
from ovk_ref.kernels import LinearQuadratic, Separable, as_kernel

#: an eigendecomposition of a t x t matrix costs about as much as this many Cholesky solves
#: (measured on the 2-core machine at t = 5000, two BLAS threads: eigh 14.7 s, Cholesky 0.85 s)
CHOLESKY_SOLVES_PER_EIGH = 16


def batch_ridge(X, Y, kernel, *, lam, precision=None) -> np.ndarray:
    """Coefficients (t x d) of the batch minimiser; same parameters and result as ``ovk_ref.batch_ridge``."""
    float64_only(precision)
    kernel = as_kernel(kernel)
    X, Y = validation.stream(X, Y, kernel)
    lam = validation.positive("lam", lam)
    with single_blas_thread(), np.errstate(over="ignore", invalid="ignore"):
        try:
            return _solve(X, Y, kernel, Y.shape[0] * lam)
        except np.linalg.LinAlgError:
            raise singular_system(Y.shape[0] * lam) from None


def _solve(X, Y, kernel, shift):
    """``(G + shift I)^{-1} vec(Y)`` through the kernel's structure (module docstring), as a t x d array;
    ValueError (``ovk_ref.batch.check_finite_gram``) when G is not finite."""
    if isinstance(kernel, Separable) and vectorised(kernel.scalar):
        K_s = scalar_matrix(kernel.scalar, X, X)
        # G's entries are K_s[i, j] B[k, l]: all finite iff the largest product is
        check_finite_gram(bool(np.all(np.isfinite(K_s))) and math.isfinite(np.max(np.abs(K_s)) * np.max(np.abs(kernel.B))))
        return _separable(K_s, kernel.B, Y, shift)
    if isinstance(kernel, LinearQuadratic):
        return _linear_quadratic(X, Y, kernel.mu, shift)
    system = KernelRows(kernel, X, X).dense()
    check_finite_gram(bool(np.all(np.isfinite(system))))
    system[np.diag_indices_from(system)] += shift
    return np.linalg.solve(system, Y.reshape(-1)).reshape(Y.shape)


def _shifted_solve(matrix, shift, rhs):
    """``(matrix + shift I)^{-1} rhs`` for a symmetric PSD ``matrix`` and ``shift > 0`` (Cholesky, overwriting ``matrix``)."""
    matrix[np.diag_indices_from(matrix)] += shift
    factor = linalg.cho_factor(matrix, overwrite_a=True, check_finite=False)   # inputs are validated finite
    return linalg.cho_solve(factor, rhs, check_finite=False)


def eigenvalue_groups(beta) -> list:
    """Runs of ascending eigenvalues within EIGENVALUE_TIE (relative to the largest) of their neighbour."""
    gap = tolerances.EIGENVALUE_TIE * max(np.max(np.abs(beta)), np.finfo(float).tiny)
    starts = np.flatnonzero(np.diff(beta) > gap) + 1
    return np.split(np.arange(len(beta)), starts)


def _separable(K_s, B, Y, shift):
    beta, V = np.linalg.eigh(B)
    rotated = Y @ V
    groups = eigenvalue_groups(beta)
    if len(groups) <= CHOLESKY_SOLVES_PER_EIGH:
        columns = np.empty_like(rotated)
        for group in groups:
            columns[:, group] = _shifted_solve(np.mean(beta[group]) * K_s, shift, rotated[:, group])
        return columns @ V.T
    s, U = np.linalg.eigh(K_s)
    return U @ ((U.T @ rotated) / (s[:, None] * beta[None, :] + shift)) @ V.T


def _linear_quadratic(X, Y, mu, shift):
    d = Y.shape[1]
    V, _ = np.linalg.qr(np.column_stack([np.ones(d), np.eye(d)[:, :d - 1]]))   # first column +-1/sqrt(d)
    rotated = Y @ V
    L = X @ X.T
    quadratic = (1 - mu) * L * L
    check_finite_gram(bool(np.all(np.isfinite(quadratic))) and bool(np.all(np.isfinite(mu * d * L + quadratic))))
    first = _shifted_solve(mu * d * L + quadratic, shift, rotated[:, 0])
    others = _shifted_solve(quadratic, shift, rotated[:, 1:]) if d > 1 else np.zeros((len(Y), 0))
    return np.column_stack([first, others]) @ V.T
