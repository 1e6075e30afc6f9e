"""The feature kernel ``K(x, z) = A(x) A(z)^T``, ``A(x) = M_0 + sum_k x_k M_k`` (spec 3.3).

Hermitian and PSD, but its blocks are not symmetric, so it tells ``K(x, x_i)`` from ``K(x_i, x)`` (E3).
Its RKHS is ``{A(.) w : w in R^q}`` with ``||A(.) w||_H = ||w||``.
"""
from __future__ import annotations

import numpy as np

from ovk_ref import arithmetic, validation
from ovk_ref.kernels.base import OperatorKernel


class Feature(OperatorKernel):
    """``M`` has shape (p + 1, d, q): ``M[0]`` is the constant term, ``M[k]`` multiplies ``x_k``."""

    family = "feature"
    fields = {"M": {"type": "array"}}

    def __init__(self, M):
        M = validation.finite_matrix("M", M, ndim=3)
        if M.shape[0] < 1 or M.shape[1] < 1 or M.shape[2] < 1:
            raise ValueError(f"M must have shape (p + 1, d, q) with every size >= 1, got {M.shape}")
        self.M = M
        self.p = M.shape[0] - 1
        self.d = M.shape[1]
        self.q = M.shape[2]

    def features(self, x) -> np.ndarray:
        """``A(x)``, a d x q matrix: ``M_0 + sum_k x_k M_k`` as one row-times-matrix product (what ``np.tensordot(x,
        M[1:], axes=1)`` computes, without its 15 us of argument handling: a verify run evaluates 10^5 kernels)."""
        M = arithmetic.lift(self.M, x)
        return M[0] + np.dot(np.reshape(x, (1, self.p)), M[1:].reshape(self.p, -1)).reshape(M.shape[1:])

    def __call__(self, x, z):
        return self.features(x) @ self.features(z).T

    def gram(self, X, Z=None) -> np.ndarray:
        """Block Gram matrix, block (i, j) = ``A(X[i]) A(Z[j])^T`` (spec 2.1, 3.3): ``K(X[i], Z[j])`` with each point's
        ``A`` computed once, not once per block."""
        left = [self.features(x) for x in X]
        right = left if Z is None else [self.features(z) for z in Z]
        rows = [np.concatenate([a @ b.T for b in right], axis=1) for a in left]
        return np.concatenate(rows, axis=0)

    def to_dict(self) -> dict:
        return {"type": "feature", "M": self.M.tolist()}

    @staticmethod
    def fresh_fields(rng, p: int, d: int) -> dict:
        """A typical member's fields drawn with numpy's ``rng`` (the conformance oracle's fresh cases): q = 3,
        ``||A(x)||`` about 1 for ``|x| <= 1``."""
        return {"M": (0.5 / np.sqrt(p + 1) * rng.standard_normal((p + 1, d, 3))).tolist()}


def random_feature(p: int, d: int, q: int, seed: int) -> Feature:
    """A feature kernel with standard normal ``M`` drawn from ``numpy.random.default_rng(seed)``."""
    rng = np.random.default_rng(seed)
    return Feature(rng.standard_normal((p + 1, d, q)))
