"""Kernels and losses written out from the paper's formulas in sympy, exactly, from their portable dicts (spec 3, 4).

Nothing here calls ``ovk_ref``'s kernel or loss code: a fault shared by the algorithm and the checks (a bandwidth
read as ``2 mu``, a gradient without its normalisation) shows as a difference from these closed forms. Floats are
read as the exact binary rationals they are (``constants.exact``); ``numeric(expr)`` evaluates at ``DIGITS``.

* ``kernel_block(spec, x, z)``: ``K(x, z)`` as a sympy Matrix for every kernel dict of spec 3 (sums included);
  ``absolute=True`` gives the same formula on the absolute values of every parameter and point, the size of the
  terms a float64 evaluation sums (its round-off is relative to that, not to a sum that cancels);
* ``paper_gaussian(mu, d, x, z)``: the paper's experiment kernel ``exp(-||x - z||^2 / mu) J``, ``J = 0.9 I + 0.1 11^T``;
* ``loss_value(spec, z, y)``, ``loss_gradient(spec, z, y)``: the losses of spec 4 and the subgradient selection
  tabulated there (0 at a kink of the norm and epsilon-insensitive losses, the first argmax as the hinge's rival).
"""
from __future__ import annotations

import sympy as sp

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


def _scalar(kind: str, spec: dict, x, z):
    inner = sum(a * b for a, b in zip(x, z))
    if kind == "gaussian":      # exp(-||x - z||^2 / mu): positive, no cancellation (spec 3.1)
        return sp.exp(-sum((a - b) ** 2 for a, b in zip(x, z)) / exact(spec["mu"]))
    if kind == "linear":
        return inner
    if kind == "polynomial":
        return (inner + exact(spec.get("offset", 0.0))) ** int(spec["degree"])
    if kind == "constant":
        return exact(spec["c"])
    raise ValueError(f"kernel type must be one of spec 3's, got {kind}_separable")


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


def _norm(r):
    return sp.sqrt(sum(v**2 for v in r))


def loss_value(spec: dict, z, y):
    """``l(z, y)`` of spec 4 (targets ``y = e_c`` for the hinge and softmax losses)."""
    z, y = sp.Matrix(_vector(z)), sp.Matrix(_vector(y))
    r, kind = z - y, spec["type"]
    if kind == "squared":
        return r.dot(r) / 2
    if kind == "norm":
        return _norm(r)
    if kind == "huber":
        delta = exact(spec["delta"])
        return r.dot(r) / 2 if _norm(r) <= delta else delta * _norm(r) - delta**2 / 2
    if kind == "epsilon_insensitive":
        return sp.Max(0, _norm(r) - exact(spec["epsilon"]))
    c = list(y).index(1)
    if kind == "hinge":
        return sp.Max(0, 1 + max(z[k] for k in range(len(z)) if k != c) - z[c])
    if kind == "softmax":
        return sp.log(sum(sp.exp(v) for v in z)) - z[c]
    raise ValueError(f"loss type must be one of spec 4's, got {kind!r}")


def loss_gradient(spec: dict, z, y) -> sp.Matrix:
    """The (sub)gradient in ``z`` that spec 4 tabulates, with its selection at kinks."""
    z, y = sp.Matrix(_vector(z)), sp.Matrix(_vector(y))
    r, kind = z - y, spec["type"]
    zero = sp.zeros(len(z), 1)
    if kind == "squared":
        return r
    if kind == "norm":
        return zero if _norm(r) == 0 else r / _norm(r)
    if kind == "huber":
        delta = exact(spec["delta"])
        return r if _norm(r) <= delta else delta * r / _norm(r)
    if kind == "epsilon_insensitive":
        return zero if _norm(r) <= exact(spec["epsilon"]) else r / _norm(r)
    c = list(y).index(1)
    if kind == "hinge":
        rival = max((k for k in range(len(z)) if k != c), key=lambda k: (z[k], -k))   # first argmax over k != c
        if 1 + z[rival] - z[c] <= 0:
            return zero
        gradient = zero.copy()
        gradient[rival], gradient[c] = 1, -1
        return gradient
    if kind == "softmax":
        exponentials = [sp.exp(v) for v in z]
        return sp.Matrix([e / sum(exponentials) for e in exponentials]) - y
    raise ValueError(f"loss type must be one of spec 4's, got {kind!r}")
