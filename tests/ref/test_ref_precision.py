"""float64 against ``precision=50``: the same literal code, every record field within
``FLOAT64_VS_MPMATH_RTOL`` of the field's scale. A few tiny cases only: 50-digit runs are slow."""
import mpmath
import numpy as np
import pytest
from shared.streams import linear_related_tasks

import ovk_ref
from ovk_ref import tolerances

X, Y = linear_related_tasks(12, p=3, d=2, seed=1)   # any width: not the paper's data
LABELS = np.eye(2)[(Y[:, 0] > 0).astype(int)]
X_E30, Y_E30 = ovk_ref.synthetic(25, p=20, d=4, seed=0)

CASES = [
    pytest.param(ovk_ref.onorma, (X, Y, ovk_ref.gaussian_separable(1.0, 2)), dict(lam=0.01, eta=1.0), id="onorma gaussian J"),
    pytest.param(ovk_ref.onorma, (X, Y, ovk_ref.LinearQuadratic(0.2, 2)),
                 dict(lam=0.1, eta=0.5, truncation=ovk_ref.theorem2_schedule(2, 0.25)), id="onorma theorem2 truncation"),
    pytest.param(ovk_ref.onorma, (X, LABELS, ovk_ref.random_feature(3, 2, 3, seed=0)), dict(lam=0.1, eta=0.5, loss="softmax"),
                 id="onorma feature softmax"),
    # spec E30: the paper's non-separable setting diverges; the relative error stays small
    pytest.param(ovk_ref.onorma, (X_E30, Y_E30, ovk_ref.LinearQuadratic(0.2, 4)), dict(lam=0.01, eta=1.0),
                 id="onorma E30 diverging"),
    pytest.param(ovk_ref.monorma, (X, Y, [ovk_ref.gaussian_separable(mu, 2) for mu in (0.1, 1.0, 10.0)]),
                 dict(lam=0.01, eta=1.0, r=2.0), id="monorma r=2"),
    pytest.param(ovk_ref.monorma, (X, Y, [ovk_ref.gaussian_separable(0.5, 2), ovk_ref.LinearQuadratic(0.5, 2)]),
                 dict(lam=0.1, eta=0.5, r=0.5, loss={"type": "huber", "delta": 0.1}), id="monorma r=0.5 huber"),
]


def assert_agrees(high, low, what):
    assert isinstance(high, np.ndarray) and high.dtype == object, f"{what}: the 50-digit run returned {high.dtype}"
    assert all(isinstance(value, mpmath.mpf) for value in high.flat), f"{what}: not mpmath numbers"
    high = np.array([float(value) for value in high.flat]).reshape(high.shape)
    scale = np.abs(high).max()
    error = np.abs(high - low).max()
    assert error <= tolerances.FLOAT64_VS_MPMATH_RTOL * scale, f"{what}: error {error:.3e}, scale {scale:.3e}"


@pytest.mark.parametrize("algorithm, args, options", CASES)
def test_float64_run_agrees_with_the_50_digit_run(algorithm, args, options):
    low = algorithm(*args, **options)
    high = algorithm(*args, **options, precision=50)
    for name, values in low.to_dict().items():
        if values.dtype.kind == "i":
            assert np.array_equal(high[name], values), name
        else:
            assert_agrees(high[name], values, name)


def test_batch_float64_agrees_with_the_50_digit_solve():
    kernel = ovk_ref.gaussian_separable(1.0, 2)
    assert_agrees(ovk_ref.batch_ridge(X, Y, kernel, lam=0.01, precision=50), ovk_ref.batch_ridge(X, Y, kernel, lam=0.01),
                  "batch coefficients")


def test_precision_runs_restore_mpmath_precision():
    """The 50-digit run works inside ``mpmath.workdps``: the global precision is left as it was."""
    before = mpmath.mp.prec
    ovk_ref.onorma(X[:3], Y[:3], ovk_ref.gaussian_separable(1.0, 2), lam=0.01, eta=1.0, precision=50)
    assert mpmath.mp.prec == before
