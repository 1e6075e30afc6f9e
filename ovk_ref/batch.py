"""The batch baseline: regularised least squares with an operator-valued kernel (spec 7.1)."""
from __future__ import annotations

import numpy as np

from ovk_ref import arithmetic, validation
from ovk_ref.arithmetic import Arithmetic
from ovk_ref.kernels import as_kernel


def batch_ridge(X, Y, kernel, *, lam, precision=None) -> np.ndarray:
    """Coefficients (t x d) of the minimiser of ``(1/t) sum 0.5||h(x_i) - y_i||^2 + (lam/2)||h||^2``.

    Solves ``(G + t lam I) c = vec(Y)`` directly (spec 7.1), G the point-major block Gram matrix.
    """
    kernel = as_kernel(kernel)
    X, Y = validation.stream(X, Y, kernel)
    lam = validation.positive("lam", lam)
    num = Arithmetic(precision)
    t, d = Y.shape
    with num.context():
        with np.errstate(over="ignore", invalid="ignore"):
            G = kernel.gram(num.array(X))
        check_finite_gram(arithmetic.finite_entries(G).all())
        system = G + num.scalar(t) * num.scalar(lam) * num.array(np.eye(t * d))
        try:
            return num.solve(system, num.array(Y).reshape(-1)).reshape(t, d)
        except (np.linalg.LinAlgError, ZeroDivisionError):
            raise singular_system(t * lam) from None


def check_finite_gram(finite: bool) -> None:
    """ValueError when the kernel's Gram matrix on X is not finite (both engines; a solve would return NaN or 0)."""
    if not finite:
        raise ValueError("batch_ridge: the Gram matrix of the kernel on X is not finite (the kernel overflows on "
                         "these inputs); scale X or change the kernel's parameters")


def singular_system(shift) -> ValueError:
    """The error of both engines when ``G + t lam I`` is singular at the working precision: ``t lam`` is below the
    round-off of G's largest entries (G is PSD, so the exact system is positive definite)."""
    return ValueError(f"batch_ridge: the system G + t*lam*I is singular at this precision (t*lam = {shift:.3g} is lost "
                      "in the round-off of G's entries); raise lam, scale X, or use precision=50")
