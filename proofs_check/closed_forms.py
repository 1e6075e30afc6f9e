"""Kernels and losses written out from the paper's formulas in sympy, exactly, from their portable dicts (spec 3, 4).

Nothing here calls ``ovk_ref``'s kernel or loss code: a fault shared by the algorithm and the checks (a bandwidth
read as ``2 mu``, a gradient without its normalisation) shows as a difference from these closed forms. A scalar
kernel and a loss write their own closed form beside their code (``exact``, ``exact_value``, ``exact_gradient``:
the formula, not a call of ``__call__``, ``value`` or ``gradient``); the operator structure (``k B``, spec 3.2's
kernel, the feature kernel, sums) is written here. Floats are read as the exact binary rationals they are
(``constants.exact``); ``numeric(expr)`` evaluates at ``DIGITS``.

* ``kernel_block(spec, x, z)``: ``K(x, z)`` as a sympy Matrix for every kernel dict of spec 3 (sums included);
  ``absolute=True`` gives the same formula on the absolute values of every parameter and point, the size of the
  terms a float64 evaluation sums (its round-off is relative to that, not to a sum that cancels);
* ``paper_gaussian(mu, d, x, z)``: the paper's experiment kernel ``exp(-||x - z||^2 / mu) J``, ``J = 0.9 I + 0.1 11^T``;
* ``loss_value(spec, z, y)``, ``loss_gradient(spec, z, y)``: the losses of spec 4 and the subgradient selection
  tabulated there (0 at a kink of the norm and epsilon-insensitive losses, the first argmax as the hinge's rival).
"""
from __future__ import annotations

import sympy as sp

from ovk_ref.kernels.scalar import SCALAR_KERNELS
from ovk_ref.losses import LOSSES
from proofs_check.constants import exact

#: decimal digits of every evaluation of a closed form
DIGITS = 50


def numeric(expr) -> float:
    """A closed form evaluated at ``DIGITS`` digits, as the nearest float."""
    return float(sp.N(expr, DIGITS))


def _vector(values) -> list:
    return [exact(value) for value in values]


def _matrix(rows, absolute: bool) -> sp.Matrix:
    return sp.Matrix([[abs(exact(v)) if absolute else exact(v) for v in row] for row in rows])


def _fields(cls, spec: dict) -> dict:
    """The exact values of a portable dict's fields (a field left out: the constructor's default)."""
    values = {**getattr(cls, "defaults", dict)(), **{name: spec[name] for name in cls.fields if name in spec}}
    return {name: exact(value) for name, value in values.items()}


def _scalar(kind: str, spec: dict, x, z):
    if kind not in SCALAR_KERNELS:
        raise ValueError(f"kernel type must be one of spec 3's, got {kind}_separable")
    cls = SCALAR_KERNELS[kind]
    return cls.exact(_fields(cls, spec), x, z)


def kernel_block(spec: dict, x, z, *, absolute: bool = False) -> sp.Matrix:
    """``K(x, z)`` of the kernel dict ``spec`` (spec 3), exactly; with ``absolute``, on absolute values."""
    x, z = _vector(x), _vector(z)
    if absolute:
        x, z = [abs(v) for v in x], [abs(v) for v in z]
    kind = spec["type"]
    if kind.endswith("_separable"):
        return _scalar(kind[: -len("_separable")], spec, x, z) * _matrix(spec["B"], absolute)
    if kind == "linear_quadratic":   # mu <x,z> 11^T + (1 - mu) <x,z>^2 I (spec 3.2)
        d, mu, inner = int(spec["d"]), exact(spec["mu"]), sum(a * b for a, b in zip(x, z))
        return mu * inner * sp.ones(d, d) + (1 - mu) * inner**2 * sp.eye(d)
    if kind == "feature":            # A(x) A(z)^T, A(x) = M_0 + sum_k x_k M_k (spec 3.3)
        M = [_matrix(block, absolute) for block in spec["M"]]
        features = [M[0] + sum((v * block for v, block in zip(point, M[1:])), sp.zeros(*M[0].shape)) for point in (x, z)]
        return features[0] * features[1].T
    if kind == "sum":
        terms = [exact(term["weight"]) * kernel_block(term["kernel"], x, z, absolute=absolute) for term in spec["terms"]]
        return sum(terms[1:], terms[0])
    raise ValueError(f"kernel type must be one of spec 3's, got {kind!r}")


def paper_J(d: int) -> sp.Matrix:
    """``J``: 1 on the diagonal, 1/10 elsewhere (spec 3.1)."""
    return sp.Rational(9, 10) * sp.eye(d) + sp.Rational(1, 10) * sp.ones(d, d)


def paper_gaussian(mu, d: int, x, z) -> sp.Matrix:
    """The paper's experiment kernel ``exp(-||x - z||^2 / mu) J`` (spec 3.1)."""
    return _scalar("gaussian", {"mu": mu}, _vector(x), _vector(z)) * paper_J(d)


def _loss(spec: dict):
    if spec["type"] not in LOSSES:
        raise ValueError(f"loss type must be one of spec 4's, got {spec['type']!r}")
    return LOSSES[spec["type"]]


def loss_value(spec: dict, z, y):
    """``l(z, y)`` of spec 4 (targets ``y = e_c`` for the hinge and softmax losses)."""
    cls = _loss(spec)
    return cls.exact_value(_fields(cls, spec), sp.Matrix(_vector(z)), sp.Matrix(_vector(y)))


def loss_gradient(spec: dict, z, y) -> sp.Matrix:
    """The (sub)gradient in ``z`` that spec 4 tabulates, with its selection at kinks."""
    cls = _loss(spec)
    return cls.exact_gradient(_fields(cls, spec), sp.Matrix(_vector(z)), sp.Matrix(_vector(y)))
