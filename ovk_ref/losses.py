"""Losses ``l(z, y)`` with ``z`` the prediction, their (sub)gradients in ``z`` and Lipschitz constants (spec 4).

A loss is a subclass of ``Loss`` listed in ``LOSSES``, and declares on itself everything the project needs to know
about it: ``name`` (its portable dict's ``"type"``), ``fields`` (the dict's other fields, the constructor's
parameters, each with the JSON Schema of its value), ``value(z, y)``, ``gradient(z, y)`` (a deterministic subgradient
selection at kinks, as tabulated in spec 4), ``lipschitz`` (``C``, or None when not globally Lipschitz),
``one_hot_targets`` (classification: ``y = e_c``), ``exact_value(fields, z, y)`` and ``exact_gradient(fields, z, y)``
(sympy, from the formulas, not from ``value``/``gradient``: the claims compare the two), ``strategy()`` (a
Hypothesis strategy of its name or portable dict) and ``fresh_fields()`` (the fields the conformance oracle's fresh
cases use). sympy and Hypothesis are imported by the methods that need them.
"""
from __future__ import annotations

import functools
import inspect
import math

import numpy as np

from ovk_ref import arithmetic, validation

#: Hypothesis' float options of every drawn parameter (no NaN, infinity or subnormal)
FLOATS = dict(allow_nan=False, allow_infinity=False, allow_subnormal=False)


def norm(r):
    """``||r||``; in float64 by ``math.hypot``, since ``sqrt(r . r)`` underflows to 0 for ``||r|| < 1e-154``."""
    if arithmetic.is_multiprecision(r):
        return arithmetic.sqrt(np.dot(r, r))
    return math.hypot(*r)


def _exact_norm(r):
    import sympy as sp
    return sp.sqrt(sum(v**2 for v in r))


def _class_of(y) -> int:
    """``c`` of a one-hot target ``y = e_c``."""
    return list(y).index(1)


class Loss:
    name: str
    #: field -> JSON Schema of its value, in the portable dict's order
    fields: dict = {}
    lipschitz: float | None = None
    #: classification losses take one-hot targets ``y = e_c``
    one_hot_targets = False

    def value(self, z, y):
        raise NotImplementedError

    def gradient(self, z, y):
        raise NotImplementedError

    def params(self) -> dict:
        return {name: getattr(self, name) for name in self.fields}

    @staticmethod
    def exact_value(fields: dict, z, y):
        """``l(z, y)`` in sympy from the dict's field values, ``z`` and ``y`` (sympy column matrices, exact)."""
        raise NotImplementedError

    @staticmethod
    def exact_gradient(fields: dict, z, y):
        """The (sub)gradient spec 4 tabulates, its selection at kinks included, as a sympy column matrix."""
        raise NotImplementedError

    @classmethod
    def strategy(cls):
        """A Hypothesis strategy of the loss's name (no field) or portable dict."""
        from hypothesis import strategies as st
        return st.just(cls.name)

    @staticmethod
    def fresh_fields() -> dict:
        return {}

    def to_dict(self) -> dict:
        return {"type": self.name, **self.params()}

    def check_targets(self, Y: np.ndarray) -> None:
        """Raise ValueError when a row of ``Y`` is not a target this loss accepts."""
        if self.one_hot_targets:
            if Y.shape[1] < 2:
                raise ValueError(f"Y must have at least 2 columns (classes) for the {self.name!r} loss, got {Y.shape[1]}")
            ok = np.all((Y == 0) | (Y == 1), axis=1) & (Y.sum(axis=1) == 1)
            if not np.all(ok):
                raise ValueError(f"Y must be one-hot rows (y = e_c) for the {self.name!r} loss; row {int(np.argmin(ok))} is not")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.params()})"


class Squared(Loss):
    """``0.5 ||z - y||^2``, gradient ``z - y``; not globally Lipschitz (spec 4, Hypothesis 3)."""

    name = "squared"

    def value(self, z, y):
        r = z - y
        return np.dot(r, r) / 2

    def gradient(self, z, y):
        return z - y

    @staticmethod
    def exact_value(fields, z, y):
        r = z - y
        return r.dot(r) / 2

    @staticmethod
    def exact_gradient(fields, z, y):
        return z - y


class Norm(Loss):
    """``||z - y||``, subgradient ``r / ||r||`` and 0 at ``r = 0``; ``C = 1``."""

    name = "norm"
    lipschitz = 1.0

    def value(self, z, y):
        return norm(z - y)

    def gradient(self, z, y):
        r = z - y
        length = norm(r)
        return r * 0 if length == 0 else r / length

    @staticmethod
    def exact_value(fields, z, y):
        return _exact_norm(z - y)

    @staticmethod
    def exact_gradient(fields, z, y):
        import sympy as sp
        r = z - y
        return sp.zeros(len(z), 1) if _exact_norm(r) == 0 else r / _exact_norm(r)


class Huber(Loss):
    """``0.5 ||r||^2`` if ``||r|| <= delta`` else ``delta ||r|| - delta^2 / 2``; ``C = delta``."""

    name = "huber"
    fields = {"delta": {"type": "number", "exclusiveMinimum": 0}}

    def __init__(self, delta=1.0):
        self.delta = validation.positive("delta", delta)
        self.lipschitz = self.delta

    def value(self, z, y):
        r = z - y
        length = norm(r)
        delta = arithmetic.lift(self.delta, length)
        return np.dot(r, r) / 2 if length <= delta else delta * length - delta**2 / 2

    def gradient(self, z, y):
        r = z - y
        length = norm(r)
        delta = arithmetic.lift(self.delta, length)
        return r if length <= delta else r * delta / length

    @staticmethod
    def exact_value(fields, z, y):
        r, delta = z - y, fields["delta"]
        return r.dot(r) / 2 if _exact_norm(r) <= delta else delta * _exact_norm(r) - delta**2 / 2

    @staticmethod
    def exact_gradient(fields, z, y):
        r, delta = z - y, fields["delta"]
        return r if _exact_norm(r) <= delta else delta * r / _exact_norm(r)

    @classmethod
    def strategy(cls):
        from hypothesis import strategies as st
        return st.builds(lambda delta: {"type": "huber", "delta": delta}, st.floats(0.05, 2.0, **FLOATS))

    @staticmethod
    def fresh_fields():
        return {"delta": 0.5}


class EpsilonInsensitive(Loss):
    """``max(0, ||r|| - epsilon)``, subgradient 0 if ``||r|| <= epsilon`` else ``r / ||r||``; ``C = 1``."""

    name = "epsilon_insensitive"
    fields = {"epsilon": {"type": "number", "minimum": 0}}
    lipschitz = 1.0

    def __init__(self, epsilon=0.1):
        self.epsilon = validation.non_negative("epsilon", epsilon)

    def value(self, z, y):
        excess = norm(z - y) - arithmetic.lift(self.epsilon, z[0])
        return excess if excess > 0 else excess * 0

    def gradient(self, z, y):
        r = z - y
        length = norm(r)
        return r * 0 if length <= arithmetic.lift(self.epsilon, length) else r / length

    @staticmethod
    def exact_value(fields, z, y):
        import sympy as sp
        return sp.Max(0, _exact_norm(z - y) - fields["epsilon"])

    @staticmethod
    def exact_gradient(fields, z, y):
        import sympy as sp
        r = z - y
        return sp.zeros(len(z), 1) if _exact_norm(r) <= fields["epsilon"] else r / _exact_norm(r)

    @classmethod
    def strategy(cls):
        from hypothesis import strategies as st
        return st.builds(lambda eps: {"type": "epsilon_insensitive", "epsilon": eps}, st.floats(0.0, 1.0, **FLOATS))

    @staticmethod
    def fresh_fields():
        return {"epsilon": 0.2}


def _rival(z, c):
    """First argmax of ``z_k`` over ``k != c``."""
    candidates = [k for k in range(len(z)) if k != c]
    return max(candidates, key=lambda k: (z[k], -k))


class Hinge(Loss):
    """Multiclass hinge ``max(0, 1 + max_{k != c} z_k - z_c)`` for ``y = e_c``; ``C = sqrt(2)``.

    Subgradient ``e_{k*} - e_c`` when the max is > 0 (``k*`` the first argmax over ``k != c``), else 0.
    Needs ``d >= 2``.
    """

    name = "hinge"
    lipschitz = math.sqrt(2)
    one_hot_targets = True

    def _margin(self, z, y):
        c = int(np.argmax(arithmetic.to_float(y)))
        k = _rival(z, c)
        return 1 + z[k] - z[c], k, c

    def value(self, z, y):
        margin, _, _ = self._margin(z, y)
        return margin if margin > 0 else margin * 0

    def gradient(self, z, y):
        margin, k, c = self._margin(z, y)
        u = z * 0
        if margin > 0:
            u[k] += 1
            u[c] -= 1
        return u

    @staticmethod
    def exact_value(fields, z, y):
        import sympy as sp
        c = _class_of(y)
        return sp.Max(0, 1 + max(z[k] for k in range(len(z)) if k != c) - z[c])

    @staticmethod
    def exact_gradient(fields, z, y):
        import sympy as sp
        c = _class_of(y)
        rival = max((k for k in range(len(z)) if k != c), key=lambda k: (z[k], -k))   # first argmax over k != c
        gradient = sp.zeros(len(z), 1)
        if 1 + z[rival] - z[c] <= 0:
            return gradient
        gradient[rival], gradient[c] = 1, -1
        return gradient


class Softmax(Loss):
    """Softmax cross-entropy ``log sum_k exp(z_k) - z_c`` for ``y = e_c``; gradient ``softmax(z) - e_c``; ``C = sqrt(2)``."""

    name = "softmax"
    lipschitz = math.sqrt(2)
    one_hot_targets = True

    def value(self, z, y):
        top = max(z)
        return top + arithmetic.log(np.sum(arithmetic.exp(z - top))) - np.dot(z, y)

    def gradient(self, z, y):
        weights = arithmetic.exp(z - max(z))
        return weights / np.sum(weights) - y

    @staticmethod
    def exact_value(fields, z, y):
        import sympy as sp
        return sp.log(sum(sp.exp(v) for v in z)) - z[_class_of(y)]

    @staticmethod
    def exact_gradient(fields, z, y):
        import sympy as sp
        exponentials = [sp.exp(v) for v in z]
        return sp.Matrix([e / sum(exponentials) for e in exponentials]) - y


#: name -> loss, in the order the claims draw them and the schemas list them
LOSSES = {cls.name: cls for cls in (Squared, Norm, Huber, EpsilonInsensitive, Hinge, Softmax)}


@functools.cache
def _signature(loss_class) -> inspect.Signature:
    """The parameters a loss class takes, read once (``inspect.signature`` takes 0.5 ms, and a verify run reads a loss
    from its dict about 10^4 times)."""
    return inspect.signature(loss_class)


def as_loss(loss) -> Loss:
    """A Loss from itself, a name (``"squared"``) or a dict (``{"type": "huber", "delta": 1.0}``)."""
    if isinstance(loss, Loss):
        return loss
    if isinstance(loss, str):
        loss = {"type": loss}
    if not isinstance(loss, dict):
        raise TypeError(f"loss must be a Loss, a name or a dict, got {type(loss).__name__}")
    kind = loss.get("type")
    if not isinstance(kind, str):
        raise ValueError(f"loss dict must have a string field 'type', got {type(kind).__name__} {validation.shown(kind)}")
    if kind not in LOSSES:
        raise ValueError(f"unknown loss {kind!r}; known losses: {', '.join(sorted(LOSSES))}")
    params = {key: value for key, value in loss.items() if key != "type"}
    try:
        _signature(LOSSES[kind]).bind(**params)
    except TypeError as error:
        raise ValueError(f"loss dict {validation.shown(loss)} has fields that the {kind!r} loss does not take ({error})") from None
    return LOSSES[kind](**params)
