"""Finite RKHS computations for ``f = sum_i K(., x_i) a_i`` (spec 2.3).

Coefficients may be float64 or mpf (object) arrays; with mpf, call inside ``mpmath.workdps``.
"""
from __future__ import annotations

import numpy as np

from ovk_ref import arithmetic, validation
from ovk_ref.kernels import as_kernel


def expansion(kernel, X, coefficients):
    """``(kernel, X, coefficients)`` of an expansion ``f = sum_i K(., x_i) a_i``, checked (ValueError naming the
    argument) and in the coefficients' arithmetic."""
    kernel = as_kernel(kernel)
    X = validation.finite_matrix("X", X)
    if not arithmetic.is_multiprecision(coefficients):
        coefficients = validation.finite_matrix("coefficients", coefficients)
    if coefficients.ndim != 2 or coefficients.shape != (X.shape[0], kernel.d):
        raise ValueError(f"coefficients must have shape (len(X), d) = {(X.shape[0], kernel.d)}, got {coefficients.shape}")
    if kernel.p is not None and X.shape[1] != kernel.p:
        raise ValueError(f"X must have the kernel's input dimension p = {kernel.p} columns, got {X.shape[1]}")
    return kernel, arithmetic.lift(X, coefficients), coefficients


def evaluate(kernel, X_train, coefficients, X_new) -> np.ndarray:
    """``f(x) = sum_i K(x, x_i) a_i`` at every row of ``X_new`` (spec 1, E3): an (n_new x d) array."""
    kernel, X_train, coefficients = expansion(kernel, X_train, coefficients)
    X_new = validation.finite_matrix("X_new", X_new)
    if X_new.shape[1] != X_train.shape[1]:
        raise ValueError(f"X_new must have the same number of columns as X_train ({X_train.shape[1]}), got {X_new.shape[1]}")
    G = kernel.gram(arithmetic.lift(X_new, coefficients), X_train)
    return (G @ coefficients.reshape(-1)).reshape(len(X_new), kernel.d)


def rkhs_norm2(kernel, X, coefficients):
    """``||f||_H^2 = vec(A)^T G vec(A)`` (spec 2.3), with ``vec(A) = A.ravel()`` point-major."""
    kernel, X, coefficients = expansion(kernel, X, coefficients)
    a = coefficients.reshape(-1)
    return a @ kernel.gram(X) @ a
