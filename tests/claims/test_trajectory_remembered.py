"""``common.Trajectory`` remembers ``||f_t||`` and ``f_t(x)`` per kernel, round and point: asked in any order, for
several kernels, at float64 and at 50 digits, each is what ovk_ref computes from the coefficients."""
import mpmath
import numpy as np
import pytest

import ovk_ref
from proofs_check.claims import common

INSTANCE = {"kernel": ovk_ref.Feature(np.arange(12.0).reshape(3, 2, 2) / 10).to_dict(), "p": 2, "d": 2,
            "X": [[0.1, 0.9], [0.5, 0.2], [0.7, 0.4]], "Y": [[1.0, 0.0], [0.0, -1.0], [0.5, 0.5]],
            "lam": 0.3, "eta": 0.8, "loss": "squared", "truncation": None}


@pytest.mark.parametrize("precision", [None, 50])
def test_remembered_norms_and_values_are_the_computed_ones(precision):
    with mpmath.workdps(precision or 15):
        trajectory = common.trajectory(ovk_ref, INSTANCE, precision)
        kernels = [common.kernel(INSTANCE), ovk_ref.gaussian_separable(0.5, 2)]
        for t in (3, 1, 2, 3, 1, 2):
            for K in kernels:
                norm2 = ovk_ref.rkhs_norm2(K, trajectory.X[:t], trajectory.coefficients[t - 1])
                assert trajectory.norm(K, t) == ovk_ref.arithmetic.sqrt(norm2)
                for x in (trajectory.X[t - 1], trajectory.X[0]):
                    expected = ovk_ref.evaluate(K, trajectory.X[:t], trajectory.coefficients[t - 1], x[None, :])[0]
                    assert list(trajectory.value(K, t, x)) == list(expected)
        assert trajectory.norm(kernels[0], 1) != trajectory.norm(kernels[0], 3)
        assert trajectory.norm(kernels[0], 2) != trajectory.norm(kernels[1], 2)
