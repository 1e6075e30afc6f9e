"""``evaluate`` and ``rkhs_norm2`` (spec 2.3) reject bad input with a message naming the parameter and the rule."""
import re

import numpy as np
import pytest

import ovk_ref

KERNEL = ovk_ref.random_feature(p=1, d=2, q=2, seed=0)   # p = 1, d = 2
X = np.array([[0.5], [-1.0], [2.0]])
A = np.array([[1.0, 0.0], [0.5, -1.0], [0.0, 2.0]])
X_NEW = np.array([[0.0], [1.5]])
NAN = np.nan


def evaluate(X=X, coefficients=A, X_new=X_NEW):
    return ovk_ref.evaluate(KERNEL, X, coefficients, X_new)


def norm2(X=X, coefficients=A):
    return ovk_ref.rkhs_norm2(KERNEL, X, coefficients)


CASES = [  # (keyword arguments, error type, message)
    (dict(X=[[0.5], [NAN], [2.0]]), ValueError, "X must be finite"),
    (dict(X=[["a"], ["b"], ["c"]]), TypeError, "X must be an array of real numbers"),
    (dict(X=np.ones((3, 2))), ValueError, "X must have the kernel's input dimension p = 1 columns, got 2"),
    (dict(coefficients=[[1.0, NAN], [0.0, 0.0], [0.0, 0.0]]), ValueError, "coefficients must be finite"),
    (dict(coefficients=np.ones((3, 1))), ValueError, "coefficients must have shape (len(X), d) = (3, 2), got (3, 1)"),
    (dict(coefficients=np.ones((2, 2))), ValueError, "coefficients must have shape (len(X), d) = (3, 2), got (2, 2)"),
]


@pytest.mark.parametrize("function", [evaluate, norm2], ids=["evaluate", "rkhs_norm2"])
@pytest.mark.parametrize("overrides, error_type, message", CASES, ids=[message for _, _, message in CASES])
def test_bad_expansion_is_rejected(function, overrides, error_type, message):
    with pytest.raises(error_type, match="^" + re.escape(message)):
        function(**overrides)


@pytest.mark.parametrize("X_new, message", [
    ([[0.0], [NAN]], "X_new must be finite"),
    (np.ones((2, 2)), "X_new must have the same number of columns as X_train (1), got 2"),
])
def test_bad_evaluation_points_are_rejected(X_new, message):
    with pytest.raises(ValueError, match="^" + re.escape(message)):
        evaluate(X_new=X_new)
