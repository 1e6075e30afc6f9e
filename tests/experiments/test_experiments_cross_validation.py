"""5-fold cross-validation of the batch lam picks the minimiser where it is known."""
import numpy as np
import pytest

import ovk_ref
from ovk_experiments.protocol import scores
from ovk_experiments.protocol.cross_validation import cross_validate
from ovk_ref import tolerances


def test_cv_returns_the_argmin_of_a_known_validation_curve_and_sees_each_example_once():
    X = np.arange(20.0)[:, None]
    Y = np.zeros((20, 1))
    validated = []

    def fit_predict(X_fit, Y_fit, X_val, lam):
        validated.append((lam, X_val[:, 0].tolist()))
        assert not set(X_fit[:, 0]) & set(X_val[:, 0]), "a validation example was used for fitting"
        return np.full((len(X_val), 1), np.log10(lam) + 2.0)     # error (log10 lam + 2)^2: minimal at 1e-2

    lams = [1e-4, 1e-3, 1e-2, 1e-1, 1.0]
    best, errors = cross_validate(X, Y, lams, fit_predict, scores.squared_errors, folds=5)
    assert best == 1e-2
    np.testing.assert_allclose(errors, [4.0, 1.0, 0.0, 1.0, 4.0], atol=tolerances.IDENTITY_ATOL)
    for lam in lams:
        seen = sorted(x for fold_lam, block in validated if fold_lam == lam for x in block)
        assert seen == list(range(20)), f"lam={lam}: every example validated exactly once"


def test_cv_picks_the_smallest_lam_on_noiseless_data_inside_the_rkhs():
    """y = W x with the linear kernel: ridge shrinks every component of W towards 0 by a factor
    s / (s + t lam) that decreases in lam, so the validation error increases with lam."""
    rng = np.random.default_rng(3)
    X = rng.standard_normal((60, 3))
    Y = X @ rng.standard_normal((3, 2))
    kernel = ovk_ref.Separable(ovk_ref.Linear(), np.eye(2))

    def fit_predict(X_fit, Y_fit, X_val, lam):
        return ovk_ref.evaluate(kernel, X_fit, ovk_ref.batch_ridge(X_fit, Y_fit, kernel, lam=lam), X_val)

    best, errors = cross_validate(X, Y, [1e-1, 1e-6, 1e-3, 10.0], fit_predict, scores.squared_errors)
    assert best == 1e-6
    assert np.all(np.diff(errors[[1, 2, 0, 3]]) > 0), f"validation error must grow with lam, got {errors}"


def test_cv_never_picks_a_non_finite_score():
    def fit_predict(X_fit, Y_fit, X_val, lam):
        return np.full((len(X_val), 1), np.nan if lam == 1e-3 else lam)

    best, _ = cross_validate(np.zeros((10, 1)), np.zeros((10, 1)), [1e-3, 1.0, 2.0], fit_predict, scores.squared_errors)
    assert best == 1.0


def test_cv_rejects_a_bad_grid():
    with pytest.raises(ValueError, match="lams must be"):
        cross_validate(np.zeros((10, 1)), np.zeros((10, 1)), [0.0], None, None)
