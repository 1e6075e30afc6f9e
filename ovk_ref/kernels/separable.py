"""Separable kernels ``K(x, z) = k(x, z) B`` (spec 3.1, 7.2)."""
from __future__ import annotations

import numpy as np

from ovk_ref import arithmetic, validation
from ovk_ref.kernels.base import OperatorKernel
from ovk_ref.kernels.scalar import Gaussian


def paper_J(d: int) -> np.ndarray:
    """The paper's output matrix: 1 on the diagonal, 1/10 elsewhere (spec 3.1: ``0.9 I + 0.1 11^T``)."""
    d = validation.integer("d", d, minimum=1)
    return 0.9 * np.eye(d) + 0.1 * np.ones((d, d))


class Separable(OperatorKernel):
    """``k(x, z) * B`` with a scalar kernel ``k`` and a symmetric PSD ``B`` (PSD: ``G = K_s (x) B``)."""

    #: beside the scalar kernel's fields (its family is ``<scalar name>_separable``)
    fields = {"B": {"$ref": "#/$defs/realmatrix"}}

    def __init__(self, scalar, B):
        self.scalar = scalar
        self.B = validation.symmetric_psd("B", B)
        self.d = self.B.shape[0]

    def __call__(self, x, z):
        return arithmetic.lift(self.B, x) * self.scalar(x, z)

    def to_dict(self) -> dict:
        return {"type": f"{self.scalar.name}_separable", **self.scalar.params(), "B": self.B.tolist()}


def gaussian_separable(mu, d: int) -> Separable:
    """The paper's experiment kernel ``exp(-||x - z||^2 / mu) J`` (spec 3.1)."""
    return Separable(Gaussian(mu), paper_J(d))
