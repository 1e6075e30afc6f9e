"""Every gamma^j_1 = 0 (y_1 = 0, squared loss: alpha_{1,1} = 0) at 50 digits behaves as in float64 (spec 6.3, E22):
"keep" keeps delta_0 = 1/m, "literal" makes the box's 0/0 a NaN (mpmath raises on 0/0, so no division by 0 may
happen on either path)."""
import math
import warnings

import numpy as np
import pytest
from shared.closeness import IDENTITY_OF_SCALE, assert_close

import ovk_ref

KERNELS = [ovk_ref.LinearQuadratic(1.0, 2), ovk_ref.gaussian_separable(1.0, 2)]
X = np.array([[1.0, 0.5], [0.5, 1.0]])
Y = np.array([[0.0, 0.0], [1.0, -2.0]])


@pytest.mark.parametrize("all_zero", ["keep", "literal"])
def test_all_zero_gamma_at_50_digits_matches_float64(all_zero):
    runs = []
    for precision in (None, 50):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ovk_ref.DivergenceWarning)   # literal: NaN from round 1 on
            runs.append(ovk_ref.monorma(X, Y, KERNELS, lam=0.1, eta=0.5, r=1.5, all_zero=all_zero, precision=precision))
    float64, digits50 = runs
    assert [float(g) for g in digits50.gamma[0]] == [0.0, 0.0]
    first = [float(w) for w in digits50.weights[0]]
    if all_zero == "keep":
        assert first == [0.5, 0.5]
        assert_close(np.asarray(digits50.weights, dtype=float), float64.weights, IDENTITY_OF_SCALE,
                     scale=np.abs(float64.weights), what="weights at 50 digits against float64")
    else:
        assert all(math.isnan(w) for w in first) and np.all(np.isnan(float64.weights[0]))
