"""Losses (spec 4): values and (sub)gradients by hand, the documented choice at kinks, and C4."""
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from shared.closeness import INEQUALITY_RTOL

import ovk_ref
from ovk_ref import tolerances
from proofs_check import strategies

R34 = np.array([3.0, 4.0])           # ||r|| = 5
SMALL = np.array([0.3, 0.4])         # ||r|| = 0.5
UNIT = np.array([0.6, 0.8])          # ||r|| = 1
ZERO = np.zeros(2)
E0 = np.array([1.0, 0.0, 0.0])

HAND_VALUES = [
    # loss, z, y, value, (sub)gradient
    pytest.param("squared", np.array([1.0, 2.0]), ZERO, 2.5, [1.0, 2.0], id="squared"),
    pytest.param("norm", R34, ZERO, 5.0, [0.6, 0.8], id="norm"),
    pytest.param("norm", ZERO, ZERO, 0.0, [0.0, 0.0], id="norm at r=0: subgradient 0"),
    # 0 < ||r|| < 1e-154: sqrt(r . r) underflows to 0, and ovk_ref once returned value 0 and subgradient 0 here
    pytest.param("norm", np.array([3e-200, 4e-200]), ZERO, 5e-200, [0.6, 0.8], id="norm at tiny r"),
    pytest.param({"type": "epsilon_insensitive", "epsilon": 0.0}, np.array([3e-200, 4e-200]), ZERO, 5e-200, [0.6, 0.8],
                 id="eps-insensitive, eps=0, at tiny r"),
    pytest.param({"type": "huber", "delta": 1.0}, R34, ZERO, 4.5, [0.6, 0.8], id="huber linear part"),
    pytest.param({"type": "huber", "delta": 1.0}, SMALL, ZERO, 0.125, [0.3, 0.4], id="huber quadratic part"),
    pytest.param({"type": "huber", "delta": 1.0}, UNIT, ZERO, 0.5, [0.6, 0.8], id="huber at ||r||=delta"),
    pytest.param({"type": "epsilon_insensitive", "epsilon": 1.0}, R34, ZERO, 4.0, [0.6, 0.8], id="eps-insensitive outside"),
    pytest.param({"type": "epsilon_insensitive", "epsilon": 1.0}, SMALL, ZERO, 0.0, [0.0, 0.0], id="eps-insensitive inside"),
    pytest.param({"type": "epsilon_insensitive", "epsilon": 1.0}, UNIT, ZERO, 0.0, [0.0, 0.0],
                 id="eps-insensitive at ||r||=eps: 0"),
    # y = e_0; rivals z_1 = z_2 = 1 tie: k* is the first, k = 1; margin 1 + 1 - 0.5
    pytest.param("hinge", np.array([0.5, 1.0, 1.0]), E0, 1.5, [-1.0, 1.0, 0.0], id="hinge active, tie -> first rival"),
    pytest.param("hinge", np.array([3.0, 1.0, 0.0]), E0, 0.0, [0.0, 0.0, 0.0], id="hinge inactive"),
    pytest.param("hinge", np.array([2.0, 1.0, 0.0]), E0, 0.0, [0.0, 0.0, 0.0], id="hinge at margin 0: subgradient 0"),
    pytest.param("softmax", np.array([0.0, math.log(2.0), 0.0]), E0, math.log(4.0), [-0.75, 0.5, 0.25], id="softmax"),
    pytest.param("softmax", np.array([1000.0, 0.0, 0.0]), E0, 0.0, [0.0, 0.0, 0.0], id="softmax, large logits"),
]


@pytest.mark.parametrize("loss, z, y, value, gradient", HAND_VALUES)
def test_loss_value_and_gradient_by_hand(loss, z, y, value, gradient):
    loss = ovk_ref.as_loss(loss)
    assert abs(loss.value(z, y) - value) <= tolerances.IDENTITY_RTOL * abs(value)
    np.testing.assert_allclose(loss.gradient(z, y), gradient, rtol=tolerances.IDENTITY_RTOL, atol=tolerances.IDENTITY_ATOL)


@pytest.mark.parametrize("spec, lipschitz", [("squared", None), ("norm", 1.0), ({"type": "huber", "delta": 0.7}, 0.7),
                                             ({"type": "epsilon_insensitive", "epsilon": 0.2}, 1.0),
                                             ("hinge", math.sqrt(2)), ("softmax", math.sqrt(2))])
def test_lipschitz_constants_are_the_tabulated_ones(spec, lipschitz):
    assert ovk_ref.as_loss(spec).lipschitz == lipschitz


@pytest.mark.parametrize("spec", ["squared", "norm", "hinge", "softmax", {"type": "huber", "delta": 0.7},
                                  {"type": "epsilon_insensitive", "epsilon": 0.2}])
def test_loss_by_name_or_dict_round_trips(spec):
    loss = ovk_ref.as_loss(spec)
    spec = {"type": spec} if isinstance(spec, str) else spec
    assert loss.to_dict() == spec
    assert ovk_ref.as_loss(loss.to_dict()).to_dict() == spec
    assert ovk_ref.as_loss(loss) is loss


@st.composite
def loss_and_points(draw):
    """A loss of spec 4, a target y and two predictions z, z' (entries in [-5, 5])."""
    d = draw(strategies.dimensions)
    loss = ovk_ref.as_loss(draw(strategies.losses(d)))
    if loss.one_hot_targets:
        y = np.eye(d)[draw(st.integers(0, d - 1))]
    else:
        y = draw(strategies.bounded_arrays(d, bound=5.0))
    z = draw(strategies.bounded_arrays(d, bound=5.0))
    z2 = draw(strategies.bounded_arrays(d, bound=5.0))
    return loss, y, z, z2


def _margin(*terms):
    """Room for round-off when the two sides tie: relative to the size of the terms compared."""
    return INEQUALITY_RTOL * max(abs(float(term)) for term in terms)


@given(loss_and_points(), st.floats(0.0, 1.0))
def test_c4_convexity(case, theta):
    loss, y, z, z2 = case
    point = theta * z + (1 - theta) * z2
    left = loss.value(point, y)
    right = theta * loss.value(z, y) + (1 - theta) * loss.value(z2, y)
    # the computed point is off the segment by round-off ~ eps (|z| + |z'|), which moves the loss by <= ||u|| that
    point_error = np.linalg.norm(loss.gradient(point, y)) * (np.abs(z).sum() + np.abs(z2).sum())
    assert left <= right + _margin(left, right, point_error)


@given(loss_and_points())
def test_c4_subgradient_inequality(case):
    """``l(z') >= l(z) + <u, z' - z>`` for the returned ``u``."""
    loss, y, z, z2 = case
    u = loss.gradient(z, y)
    left, right = loss.value(z2, y), loss.value(z, y) + u @ (z2 - z)
    assert left >= right - _margin(left, loss.value(z, y), np.abs(u) @ np.abs(z2 - z))


@given(loss_and_points())
def test_c4_lipschitz_constant(case):
    """``|l(z) - l(z')| <= C ||z - z'||`` and ``||u|| <= C`` for the tabulated ``C``; values are >= 0."""
    loss, y, z, z2 = case
    assert loss.value(z, y) >= 0
    if loss.lipschitz is None:
        return
    difference = abs(loss.value(z, y) - loss.value(z2, y))
    assert difference <= loss.lipschitz * np.linalg.norm(z - z2) + _margin(loss.value(z, y), loss.value(z2, y))
    assert np.linalg.norm(loss.gradient(z, y)) <= loss.lipschitz * (1 + INEQUALITY_RTOL)
