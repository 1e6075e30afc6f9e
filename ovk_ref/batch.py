"""The batch baseline: regularised least squares with an operator-valued kernel (spec 7.1)."""
from __future__ import annotations

import numpy as np

from ovk_ref import validation
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
        G = kernel.gram(num.array(X))
        system = G + num.scalar(t) * num.scalar(lam) * num.array(np.eye(t * d))
        return num.solve(system, num.array(Y).reshape(-1)).reshape(t, d)
