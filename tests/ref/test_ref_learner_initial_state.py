"""Before round 1 (spec 5.1, 6.1: f_0 = 0, no coefficient): a fresh learner has made no prediction, computed no
coefficient and evaluated no kernel, and it predicts 0 everywhere."""
import numpy as np
import pytest

import ovk_ref

KERNEL = ovk_ref.gaussian_separable(1.0, 2)


@pytest.mark.parametrize("new_learner", [lambda: ovk_ref.ONORMA(KERNEL, lam=0.1, eta=0.5),
                                         lambda: ovk_ref.MONORMA([KERNEL, KERNEL], lam=0.1, eta=0.5, r=1.5)],
                         ids=["onorma", "monorma"])
def test_a_fresh_learner_is_f0(new_learner):
    learner = new_learner()
    assert learner.t == 0 and learner.coefficients().shape == (0, 2)
    assert learner.last_prediction is None and learner.last_new_coefficient is None
    assert learner.last_kernel_evaluations == 0
    assert np.array_equal(learner.predict_one(np.array([0.3, -0.2])), np.zeros(2))
    assert learner.last_kernel_evaluations == 0  # predicting with f_0 evaluates no kernel and is not a round
