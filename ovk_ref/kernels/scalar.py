"""Scalar kernels k(x, z), the first factor of a separable kernel k(x, z) B (spec 3.1, 3.3), each a family of the
portable dicts (``<name>_separable``) that declares, on itself, everything the project needs to know about it.

A scalar kernel family is a subclass of ``ScalarKernel`` listed in ``SCALAR_KERNELS``; beside ``__call__`` (the
literal value) it declares:

* ``name``: the family is ``<name>_separable`` (``{"type": "gaussian_separable", "mu": 1.0, "B": ...}``);
* ``fields``: the portable dict's fields besides ``B``, each with the JSON Schema of its value (the constructor's
  parameters: required unless it has a default); ``params()`` gives their values;
* ``sup_on_box()``: ``sup_{x in [0, 1]^p} k(x, x)`` as a sympy expression in ``p`` and the fields (``kappa^2`` of
  ``k B`` is it times ``||B||_op``; spec 3), exact;
* ``exact(fields, x, z)``: ``k(x, z)`` as a sympy expression from the dict's field values and points (exact
  numbers), written from the formula, not from ``__call__`` (the claims compare the two);
* ``parameter_strategies()``: a Hypothesis strategy of each field (the claims' searches draw kernels with them);
* ``fresh_fields(rng, scale)``: the fields of a typical member drawn with numpy's ``rng`` (the conformance
  oracle's fresh cases): ``k(x, x) <= 2^3`` for ``|x| <= 1``, a bandwidth following the inputs' squared ``scale``;
* ``vectorised(pairs)``: ``k`` on many pairs at once from ``pairs.inner``, ``pairs.sqdist`` and
  ``pairs.exponents(mu)`` (``-|x - z|^2 / mu``) -- ovk_fast's ``PairGeometry`` -- and ``intermediate_bound(reach, p)``,
  a bound on every intermediate of ``__call__`` for inputs with entries ``|x_k| <= reach``; or ``vectorised = None``
  (ovk_fast then evaluates the kernel's blocks one by one, through ``__call__``).

sympy and Hypothesis are imported by the methods that need them (the conformance oracle's start needs neither).
"""
from __future__ import annotations

import functools
import inspect

import numpy as np

from ovk_ref import arithmetic, validation

#: Hypothesis' float options of every drawn parameter (no NaN, infinity or subnormal)
FLOATS = dict(allow_nan=False, allow_infinity=False, allow_subnormal=False)


def symbol(name: str):
    """The sympy symbol of a field or of ``p`` (the inputs' dimension), with its assumptions: the symbols of
    ``proofs_check.constants`` (an integer ``degree`` >= 1; every other one >= 0)."""
    import sympy as sp
    if name == "degree":
        return sp.Symbol(name, positive=True, integer=True)
    return sp.Symbol(name, nonnegative=True)


class ScalarKernel:
    """What a scalar kernel family declares (module docstring)."""

    name: str
    #: field -> JSON Schema of its value, in the portable dict's order
    fields: dict = {}
    #: ``k`` on many pairs (module docstring), or None
    vectorised = None

    def __call__(self, x, z):
        raise NotImplementedError

    def params(self) -> dict:
        return {name: getattr(self, name) for name in self.fields}

    @classmethod
    def required(cls) -> tuple:
        """The fields without a default in the constructor."""
        parameters = _parameters(cls)
        return tuple(name for name in cls.fields if parameters[name].default is inspect.Parameter.empty)

    @classmethod
    def defaults(cls) -> dict:
        parameters = _parameters(cls)
        return {name: parameters[name].default for name in cls.fields if parameters[name].default is not inspect.Parameter.empty}

    @staticmethod
    def sup_on_box():
        raise NotImplementedError

    @staticmethod
    def exact(fields: dict, x: list, z: list):
        raise NotImplementedError

    @staticmethod
    def parameter_strategies() -> dict:
        return {}

    @staticmethod
    def fresh_fields(rng, scale: float) -> dict:
        return {}

    def intermediate_bound(self, reach: np.ndarray, p: int) -> np.ndarray:
        raise NotImplementedError


@functools.cache
def _parameters(cls) -> dict:
    """A family's constructor parameters, read once (``inspect.signature`` takes 0.5 ms, and a verify run builds a
    kernel from its dict some 10^5 times)."""
    return dict(inspect.signature(cls).parameters)


def _inner(x, z):
    return sum(a * b for a, b in zip(x, z))


class Gaussian(ScalarKernel):
    """``exp(-||x - z||^2 / mu)``, ``mu > 0`` (spec 3.1: the bandwidth enters as ``/mu``)."""

    name = "gaussian"
    fields = {"mu": {"type": "number", "exclusiveMinimum": 0}}

    def __init__(self, mu):
        self.mu = validation.positive("mu", mu)

    def __call__(self, x, z):
        diff = x - z
        return arithmetic.exp(-np.dot(diff, diff) / arithmetic.lift(self.mu, x))

    @staticmethod
    def sup_on_box():
        import sympy as sp
        return sp.Integer(1)                                   # k(x, x) = 1

    @staticmethod
    def exact(fields, x, z):
        import sympy as sp
        return sp.exp(-sum((a - b) ** 2 for a, b in zip(x, z)) / fields["mu"])   # positive: no cancellation

    @staticmethod
    def parameter_strategies():
        from hypothesis import strategies as st
        return {"mu": st.floats(1e-3, 1e2, **FLOATS)}

    @staticmethod
    def fresh_fields(rng, scale):
        return {"mu": float(rng.uniform(0.3, 3.0)) * scale}

    def vectorised(self, pairs):
        exponent = pairs.exponents(self.mu)
        return np.exp(exponent, out=exponent)

    def intermediate_bound(self, reach, p):
        return np.ones_like(reach)      # exp(-|x - z|^2 / mu) <= 1; an overflowing |x - z|^2 is exp(-inf) = 0


class Linear(ScalarKernel):
    """``<x, z>``."""

    name = "linear"

    def __call__(self, x, z):
        return np.dot(x, z)

    @staticmethod
    def sup_on_box():
        return symbol("p")

    @staticmethod
    def exact(fields, x, z):
        return _inner(x, z)

    def vectorised(self, pairs):
        return pairs.inner

    def intermediate_bound(self, reach, p):
        return p * reach * reach          # |<x, z>| and its partial sums


class Polynomial(ScalarKernel):
    """``(<x, z> + offset)^degree``, ``degree >= 1`` integer and ``offset >= 0`` (PSD for these)."""

    name = "polynomial"
    fields = {"degree": {"type": "integer", "minimum": 1}, "offset": {"type": "number", "minimum": 0}}

    def __init__(self, degree, offset=0.0):
        self.degree = validation.integer("degree", degree, minimum=1)
        self.offset = validation.non_negative("offset", offset)

    def __call__(self, x, z):
        return (np.dot(x, z) + arithmetic.lift(self.offset, x)) ** self.degree

    @staticmethod
    def sup_on_box():
        return (symbol("p") + symbol("offset")) ** symbol("degree")

    @staticmethod
    def exact(fields, x, z):
        return (_inner(x, z) + fields["offset"]) ** int(fields["degree"])

    @staticmethod
    def parameter_strategies():
        from hypothesis import strategies as st
        return {"degree": st.integers(1, 3), "offset": st.floats(0.0, 1.0, **FLOATS)}

    @staticmethod
    def fresh_fields(rng, scale):
        return {"degree": int(rng.integers(2, 4)), "offset": 0.5}

    def vectorised(self, pairs):
        return (pairs.inner + self.offset) ** self.degree

    def intermediate_bound(self, reach, p):
        return np.maximum(1.0, p * reach * reach + self.offset) ** self.degree


class Constant(ScalarKernel):
    """``c >= 0`` for every pair (spec 3.3: ``K = c I`` gives tiny closed-form cases)."""

    name = "constant"
    fields = {"c": {"type": "number", "minimum": 0}}

    def __init__(self, c):
        self.c = validation.non_negative("c", c)

    def __call__(self, x, z):
        return arithmetic.lift(self.c, x)

    @staticmethod
    def sup_on_box():
        return symbol("c")

    @staticmethod
    def exact(fields, x, z):
        return fields["c"]

    @staticmethod
    def parameter_strategies():
        from hypothesis import strategies as st
        return {"c": st.floats(1e-3, 2.0, **FLOATS)}

    @staticmethod
    def fresh_fields(rng, scale):
        return {"c": float(rng.uniform(0.2, 1.0))}

    def vectorised(self, pairs):
        return np.full_like(pairs.inner, self.c)

    def intermediate_bound(self, reach, p):
        return np.full_like(reach, self.c)


#: name -> scalar kernel family, in the order the claims draw them and the schemas list them
SCALAR_KERNELS = {cls.name: cls for cls in (Gaussian, Linear, Polynomial, Constant)}
