"""Scalar kernels k(x, z), the first factor of a separable kernel k(x, z) B (spec 3.1, 3.3)."""
from __future__ import annotations

import numpy as np

from ovk_ref import arithmetic, validation


class Gaussian:
    """``exp(-||x - z||^2 / mu)``, ``mu > 0`` (spec 3.1: the bandwidth enters as ``/mu``)."""

    name = "gaussian"

    def __init__(self, mu):
        self.mu = validation.positive("mu", mu)

    def __call__(self, x, z):
        diff = x - z
        return arithmetic.exp(-np.dot(diff, diff) / arithmetic.lift(self.mu, x))

    def params(self) -> dict:
        return {"mu": self.mu}


class Linear:
    """``<x, z>``."""

    name = "linear"

    def __call__(self, x, z):
        return np.dot(x, z)

    def params(self) -> dict:
        return {}


class Polynomial:
    """``(<x, z> + offset)^degree``, ``degree >= 1`` integer and ``offset >= 0`` (PSD for these)."""

    name = "polynomial"

    def __init__(self, degree, offset=0.0):
        self.degree = validation.integer("degree", degree, minimum=1)
        self.offset = validation.non_negative("offset", offset)

    def __call__(self, x, z):
        return (np.dot(x, z) + arithmetic.lift(self.offset, x)) ** self.degree

    def params(self) -> dict:
        return {"degree": self.degree, "offset": self.offset}


class Constant:
    """``c >= 0`` for every pair (spec 3.3: ``K = c I`` gives tiny closed-form cases)."""

    name = "constant"

    def __init__(self, c):
        self.c = validation.non_negative("c", c)

    def __call__(self, x, z):
        return arithmetic.lift(self.c, x)

    def params(self) -> dict:
        return {"c": self.c}


SCALAR_KERNELS = {cls.name: cls for cls in (Gaussian, Linear, Polynomial, Constant)}
