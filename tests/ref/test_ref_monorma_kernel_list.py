"""MONORMA's kernels K^1..K^m share one input space R^p and one output space R^d (spec 6.1): a bad list is
rejected with a message that names ``kernels`` and the rule, and p is taken from any kernel that fixes it."""
import re

import numpy as np
import pytest

import ovk_ref

GOOD = dict(lam=0.1, eta=0.5, r=2.0)
ANY_P = ovk_ref.gaussian_separable(1.0, 2)            # defined for every input dimension (p = None)
P1 = ovk_ref.random_feature(p=1, d=2, q=2, seed=0)   # inputs of dimension 1
P2 = ovk_ref.random_feature(p=2, d=2, q=2, seed=1)   # inputs of dimension 2


@pytest.mark.parametrize("kernels, error_type, message", [
    pytest.param(ANY_P, TypeError, "kernels must be a sequence of kernels", id="one kernel, not a list"),
    pytest.param({"type": "gaussian_separable", "mu": 1.0, "B": [[1.0]]}, TypeError,
                 "kernels must be a sequence of kernels", id="one kernel dict, not a list"),
    pytest.param([], ValueError, "kernels must hold at least one kernel", id="no kernel"),
    pytest.param([ANY_P, ovk_ref.gaussian_separable(1.0, 3)], ValueError,
                 "kernels must share one output dimension d, got [2, 3]", id="two output dimensions"),
    pytest.param([P1, ANY_P, P2], ValueError, "kernels must share one input dimension p, got [1, None, 2]",
                 id="two input dimensions"),
])
def test_a_bad_kernel_list_is_rejected_naming_the_rule(kernels, error_type, message):
    with pytest.raises(error_type, match="^" + re.escape(message)):
        ovk_ref.MONORMA(kernels, **GOOD)


def test_an_unknown_all_zero_choice_is_rejected():
    with pytest.raises(ValueError, match="^" + re.escape("all_zero must be one of ('keep', 'literal'), got 'nan'")):
        ovk_ref.MONORMA([ANY_P], all_zero="nan", **GOOD)


@pytest.mark.parametrize("kernels", [[P1, ANY_P], [ANY_P, P1]], ids=["fixed first", "fixed second"])
def test_the_input_dimension_comes_from_the_kernel_that_fixes_it(kernels):
    learner = ovk_ref.MONORMA(kernels, **GOOD)
    assert learner.p == 1
    with pytest.raises(ValueError, match="^" + re.escape("x must have the input dimension p = 1 (the kernel's, or the first example's), got length 2")):
        learner.learn_one(np.array([0.5, 0.5]), np.array([1.0, 0.0]))
    with pytest.raises(ValueError, match="^" + re.escape("X must have the kernel's input dimension p = 1 columns, got 2")):
        ovk_ref.monorma(np.ones((3, 2)), np.ones((3, 2)), kernels, **GOOD)
