"""Before and after round 1 (spec 5.1, 6.1, 6.4), squared loss: a fresh learner is ``f_0 = 0`` (no prediction, no
coefficient, no kernel evaluation), and after ``(x_1, y_1)`` it predicts ``f_1(x) = c K(x, x_1) eta y_1`` with
``alpha_{1,1} = -eta_1 (f_0(x_1) - y_1) = eta y_1``; ``c = 1`` for ONORMA, and ``c = m^(1 - 1/r)`` for MONORMA with m
copies of K (``delta^j_1 = m^(-1/r)``)."""
import numpy as np
import pytest

import ovk_ref
from ovk_ref import tolerances

KERNEL = ovk_ref.gaussian_separable(1.0, 2)
ETA, R = 0.5, 1.5
LEARNERS = [pytest.param(lambda: ovk_ref.ONORMA(KERNEL, lam=0.1, eta=ETA), 1.0, id="onorma"),
            pytest.param(lambda: ovk_ref.MONORMA([KERNEL, KERNEL], lam=0.1, eta=ETA, r=R), 2 ** (1 - 1 / R),
                         id="monorma, 2 copies")]


@pytest.mark.parametrize("new_learner, scale", LEARNERS)
def test_a_fresh_learner_is_f0(new_learner, scale):
    learner = new_learner()
    assert learner.t == 0 and learner.coefficients().shape == (0, 2)
    assert learner.last_prediction is None and learner.last_new_coefficient is None
    assert learner.last_kernel_evaluations == 0
    assert np.array_equal(learner.predict_one(np.array([0.3, -0.2])), np.zeros(2))
    assert learner.last_kernel_evaluations == 0  # predicting with f_0 evaluates no kernel and is not a round


@pytest.mark.parametrize("new_learner, scale", LEARNERS)
def test_after_round_one_the_learner_predicts_f1(new_learner, scale):
    learner = new_learner()
    x1, y1, x = np.array([0.1, 0.2]), np.array([1.0, -2.0]), np.array([0.3, -0.2])
    learner.learn_one(x1, y1)
    expected = scale * KERNEL(x, x1) @ (ETA * y1)
    np.testing.assert_allclose(learner.predict_one(x), expected, rtol=tolerances.IDENTITY_RTOL)
