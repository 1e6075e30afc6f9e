"""Scaling is fitted on the training half only, and does what each option says."""
import numpy as np
import pytest

from ovk_experiments import data
from ovk_experiments.data import Dataset
from ovk_experiments.protocol.prepare import prepare
from ovk_ref import tolerances


def _toy(n=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-5, 30, size=(n, 3))
    X[3, 1] = np.nan
    return Dataset("toy", "toy", X, rng.standard_normal((n, 2)) * 7 + 3, "regression", False, "test")


def test_unit_box_maps_the_training_inputs_onto_0_1_and_imputes_the_training_median():
    prepared = prepare(_toy(), seed=0, max_examples=None, input_scaling="unit-box", target_scaling="standardize")
    np.testing.assert_allclose(prepared.X_train.min(axis=0), 0.0, atol=tolerances.IDENTITY_ATOL)
    np.testing.assert_allclose(prepared.X_train.max(axis=0), 1.0, rtol=tolerances.IDENTITY_RTOL)
    assert np.all(np.isfinite(prepared.X_train)) and np.all(np.isfinite(prepared.X_test))
    np.testing.assert_allclose(prepared.Y_train.mean(axis=0), 0.0, atol=tolerances.IDENTITY_ATOL)
    np.testing.assert_allclose(prepared.Y_train.std(axis=0), 1.0, rtol=tolerances.IDENTITY_RTOL)


def test_unit_ball_puts_every_training_input_in_the_unit_ball():
    prepared = prepare(_toy(), seed=0, max_examples=None, input_scaling="unit-ball", target_scaling="none")
    assert np.all(np.linalg.norm(prepared.X_train, axis=1) <= 1 + tolerances.IDENTITY_RTOL)


def test_none_keeps_inputs_and_targets_and_max_examples_takes_that_many_distinct_rows():
    dataset = _toy()
    prepared = prepare(dataset, seed=0, max_examples=20, input_scaling="none", target_scaling="none")
    assert len(prepared.X_train) == 10 and len(prepared.X_test) == 10
    rows = [int(np.flatnonzero((dataset.Y == y).all(axis=1))[0]) for y in np.vstack([prepared.Y_train, prepared.Y_test])]
    assert len(set(rows)) == 20, "20 distinct rows of the data set, inputs and targets unchanged"
    for row, x in zip(rows, np.vstack([prepared.X_train, prepared.X_test])):
        assert np.array_equal(x, dataset.X[row], equal_nan=False) or row == 3   # row 3 had a NaN, imputed


def test_classification_targets_stay_one_hot():
    prepared = prepare(data.load("dermatology", seed=0), seed=0, max_examples=None, input_scaling="unit-box",
                       target_scaling="standardize")
    assert set(np.unique(prepared.Y_train)) == {0.0, 1.0} and np.all(prepared.Y_train.sum(axis=1) == 1)


def test_unknown_scaling_is_refused():
    with pytest.raises(ValueError, match="input_scaling must be one of"):
        prepare(_toy(), seed=0, max_examples=None, input_scaling="zscore", target_scaling="none")
