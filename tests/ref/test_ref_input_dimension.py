"""``p`` fixes the input dimension from the start for kernels that take any (spec 1: X ⊆ R^p, p >= 1)."""
import re

import numpy as np
import pytest

import ovk_ref

KERNEL = ovk_ref.gaussian_separable(1.0, 2)   # any input dimension


@pytest.mark.parametrize("new_learner", [lambda **p: ovk_ref.ONORMA(KERNEL, lam=0.1, eta=0.5, **p),
                                         lambda **p: ovk_ref.MONORMA([KERNEL], lam=0.1, eta=0.5, r=2.0, **p)],
                         ids=["onorma", "monorma"])
def test_p_one_is_an_input_dimension_and_p_zero_is_not(new_learner):
    learner = new_learner(p=1)
    with pytest.raises(ValueError, match="^" + re.escape("x must have the input dimension p = 1")):
        learner.predict_one(np.array([0.5, 0.5]))
    learner.learn_one(np.array([0.5]), np.array([1.0, 0.0]))
    assert learner.t == 1
    with pytest.raises(ValueError, match="^" + re.escape("p must be >= 1, got 0")):
        new_learner(p=0)
