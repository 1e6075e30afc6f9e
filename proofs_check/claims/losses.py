"""Claims on the losses of spec 4 (C4): convexity, the Lipschitz constant, the subgradient inequality.

At ``precision`` digits the values are computed with mpmath numbers (the losses accept them), so that a
tie (a linear piece, where both sides are equal) is not reported as a violation through round-off.
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
from hypothesis import assume
from hypothesis import strategies as st

import ovk_ref
from ovk_ref.arithmetic import Arithmetic
from ovk_ref.losses import LOSSES
from proofs_check import closed_forms, faults, strategies, tolerances
from proofs_check.claims.base import Outcome, claim
from proofs_check.claims.common import resolved


def _scale(*terms) -> float:
    """1 + the sizes of the compared terms: the drawn losses are O(1) (entries in [-3, 3]), so two sides that are
    both ~0 (a tie at a minimum of the loss) are compared on the scale 1, not on their own vanishing size."""
    return 1.0 + float(sum(abs(term) for term in terms))


def _values(instance, precision):
    num = Arithmetic(precision)
    loss = ovk_ref.as_loss(instance["loss"])
    return loss, num, [num.array(instance[key]) for key in ("z", "z2", "y")]


@claim("loss.convex", statement="l(theta z + (1-theta) z', y) <= theta l(z, y) + (1-theta) l(z', y)",
       reference="Hyp. 2 (sigma-admissible); spec 4, C4", hypotheses="each loss of spec 4", expected="holds",
       instances=strategies.loss_points(), informative="z != z', 0 < theta < 1 and a chord > 0; margin relative to the chord")
def convex(instance, impl=None, precision=None):
    loss, num, (z, z2, y) = _values(instance, precision)
    with num.context():
        theta = num.scalar(instance["theta"])
        chord = theta * loss.value(z, y) + (1 - theta) * loss.value(z2, y)
        middle = loss.value(theta * z + (1 - theta) * z2, y)
        return Outcome(margin=float(chord - middle), scale=max(float(chord), 1e-300), magnitude=_scale(chord, middle),
                       quantities={"chord": float(chord), "value": float(middle)}, observed=float(middle), bound=float(chord),
                       informative=bool(0 < instance["theta"] < 1 and instance["z"] != instance["z2"] and resolved(float(chord))))


@claim("loss.lipschitz", statement="|l(z, y) - l(z', y)| <= C ||z - z'|| and ||u|| <= C for the returned subgradient u",
       reference="Hyp. 2; spec 4, C4", hypotheses="the Lipschitz losses of spec 4 (all but squared)", expected="holds",
       instances=strategies.loss_points().filter(lambda i: ovk_ref.as_loss(i["loss"]).lipschitz is not None),
       informative="z != z'; margin the smaller of 1 - |change|/(C ||z - z'||) and 1 - ||u||/C")
def lipschitz(instance, impl=None, precision=None):
    loss, num, (z, z2, y) = _values(instance, precision)
    with num.context():
        C = num.scalar(loss.lipschitz)
        distance = mpmath.sqrt(np.dot(z - z2, z - z2)) if num.multiprecision else float(np.linalg.norm(z - z2))
        change = abs(loss.value(z, y) - loss.value(z2, y))
        u = loss.gradient(z, y)
        u_norm = mpmath.sqrt(np.dot(u, u)) if num.multiprecision else float(np.linalg.norm(u))
        sides = min([(change, C * distance), (u_norm, C)], key=lambda pair: (pair[1] - pair[0]) / pair[1] if pair[1] else 1)
        return Outcome(margin=float(sides[1] - sides[0]), scale=max(float(sides[1]), 1e-300), magnitude=float(C * (distance + 1)),
                       quantities={"change": float(change), "distance": float(distance), "subgradient_norm": float(u_norm)},
                       informative=resolved(float(distance)), observed=float(sides[0]), bound=float(sides[1]))


@claim("loss.subgradient", statement="l(z', y) >= l(z, y) + <u, z' - z> for the returned (sub)gradient u at z",
       reference="spec 4, C4, E4", hypotheses="each loss of spec 4, its deterministic selection at kinks", expected="holds",
       instances=strategies.loss_points(), informative="z != z' and a non-zero side; margin relative to the sides' size")
def subgradient(instance, impl=None, precision=None):
    loss, num, (z, z2, y) = _values(instance, precision)
    with num.context():
        u = loss.gradient(z, y)
        linear = loss.value(z, y) + np.dot(u, z2 - z)
        value = loss.value(z2, y)
        size = _scale(value, loss.value(z, y), np.dot(u, z2 - z)) - 1
        return Outcome(margin=float(value - linear), scale=max(size, 1e-300), magnitude=size + 1,
                       quantities={"value": float(value), "linearisation": float(linear)}, observed=float(linear),
                       bound=float(value), informative=bool(instance["z"] != instance["z2"] and resolved(size)))


def _loss_fields() -> list:
    """The fields of every loss of ``ovk_ref.losses.LOSSES`` (Huber's ``delta``, the tube's ``epsilon``, ...)."""
    return list(dict.fromkeys(name for loss in LOSSES.values() for name in loss.fields))   # a shared name: one field


@st.composite
def _every_loss(draw):
    """Every loss of spec 4 (``ovk_ref.losses.LOSSES``) at one prediction ``z`` (entries in [-3, 3], d in 2..4): a
    regression target ``y`` with ``||y|| <= 2``, a class ``c``, and each loss's field in [0.05, 3] (Huber's ``delta``
    and the tube's ``epsilon``: both pieces of each)."""
    d = draw(st.integers(2, 4))
    z = draw(strategies.bounded_arrays(d, bound=3.0))
    y = draw(strategies.bounded_arrays(d, bound=2.0))
    assume(np.any(z != y))
    return {"d": d, "z": z.tolist(), "y": y.tolist(), "c": draw(st.integers(0, d - 1)),
            **{name: draw(st.floats(0.05, 3.0)) for name in _loss_fields()}}


def _losses_of(instance) -> list:
    """``(portable dict, target)`` of every loss of spec 4 at the instance."""
    one_hot = np.eye(instance["d"])[instance["c"]].tolist()
    return [({"type": name, **{field: instance[field] for field in loss.fields}},
             one_hot if loss.one_hot_targets else instance["y"]) for name, loss in LOSSES.items()]


@claim("loss.values", statement="every loss of spec 4 and its (sub)gradient equal the table's formulas, selection at kinks included",
       reference="spec 4, E4", hypotheses="each loss of spec 4 at z != y", expected="holds", instances=_every_loss(),
       informative="a non-zero value or gradient (every loss is checked in every instance); the closed forms are "
                   "sympy at 50 digits from the portable dict, not ovk_ref's loss code", faults=faults.of_layer("loss"))
def loss_values(instance, impl=None, precision=None):
    z = np.asarray(instance["z"], dtype=float)
    worst, sizes = None, []
    for spec, y in _losses_of(instance):
        loss = ovk_ref.as_loss(spec)
        observed = np.concatenate([[float(loss.value(z, np.asarray(y, dtype=float)))],
                                   np.asarray(loss.gradient(z, np.asarray(y, dtype=float)), dtype=float)])
        expected = np.array([closed_forms.numeric(closed_forms.loss_value(spec, z, y))] +
                            [closed_forms.numeric(v) for v in closed_forms.loss_gradient(spec, z, y)])
        sizes.append(float(np.max(np.abs(expected))))
        error = float(np.max(np.abs(observed - expected))) if np.all(np.isfinite(observed)) else math.inf
        allowed = tolerances.IDENTITY_RTOL * _scale(*expected) + tolerances.IDENTITY_ATOL
        outcome = Outcome(margin=allowed - error, scale=allowed, quantities={"loss": spec["type"], "max_error": error},
                          observed=error, bound=allowed)
        if worst is None or outcome.relative_margin < worst.relative_margin:
            worst = outcome
    worst.informative = resolved(sizes)
    return worst
