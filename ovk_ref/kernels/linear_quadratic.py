"""The paper's non-separable kernel ``mu <x,z> 11^T + (1 - mu) <x,z>^2 I`` (spec 3.2)."""
from __future__ import annotations

import numpy as np

from ovk_ref import arithmetic, validation
from ovk_ref.kernels.base import OperatorKernel


class LinearQuadratic(OperatorKernel):
    """Hermitian and PSD exactly for ``mu`` in [0, 1] (spec 3.2, C3); ``mu = 1``: ``<x,z> 11^T``; ``mu = 0``: ``<x,z>^2 I``."""

    family = "linear_quadratic"
    fields = {"mu": {"type": "number", "minimum": 0, "maximum": 1}, "d": {"type": "integer", "minimum": 1}}

    def __init__(self, mu, d):
        mu = validation.real_number("mu", mu)
        if not 0.0 <= mu <= 1.0:
            raise ValueError(f"mu must lie in [0, 1] for the non-separable kernel (spec 3.2: PSD only there), got {mu!r}")
        self.mu = mu
        self.d = validation.integer("d", d, minimum=1)

    def __call__(self, x, z):
        inner = np.dot(x, z)
        ones = arithmetic.lift(np.ones((self.d, self.d)), x)
        identity = arithmetic.lift(np.eye(self.d), x)
        mu = arithmetic.lift(self.mu, x)
        return ones * (mu * inner) + identity * ((1 - mu) * inner**2)

    def to_dict(self) -> dict:
        return {"type": "linear_quadratic", "mu": self.mu, "d": self.d}

    @staticmethod
    def fresh_fields(rng, p: int, d: int) -> dict:
        """A typical member's fields drawn with numpy's ``rng`` (the conformance oracle's fresh cases)."""
        return {"mu": float(rng.uniform(0.0, 1.0)), "d": d}

    @staticmethod
    def kappa2_on_box():
        """``sup_{x in [0,1]^p} ||K(x, x)||_op = p (mu d + (1 - mu) p)``, attained at x = 1 (spec 3.2), in sympy."""
        from ovk_ref.kernels.scalar import symbol
        p, mu, d = symbol("p"), symbol("mu"), symbol("d")
        return p * (mu * d + (1 - mu) * p)
