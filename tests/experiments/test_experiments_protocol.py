"""The protocol pieces of ``ovk-check reproduce``: half split, folds, errors, cumulative error, divergence."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import ovk_ref
from ovk_experiments.protocol import scores
from ovk_experiments.protocol.divergence import first_divergent_round
from ovk_experiments.protocol.split import half_split, k_folds
from ovk_ref import tolerances


@given(n=st.integers(2, 500), seed=st.integers(0, 2**32 - 1))
def test_half_split_is_a_seeded_partition_into_halves(n, seed):
    train, test = half_split(n, seed)
    assert len(train) == n // 2 and len(test) == n - n // 2
    assert sorted(np.concatenate([train, test]).tolist()) == list(range(n)), "every index exactly once"
    again_train, again_test = half_split(n, seed)
    assert np.array_equal(train, again_train) and np.array_equal(test, again_test), "same seed, same split"


@given(n=st.integers(2, 300), data=st.data())
def test_half_split_of_a_subset_draws_distinct_indices_from_the_whole_range(n, data):
    size = data.draw(st.integers(2, n), label="size")
    train, test = half_split(n, 0, size)
    both = np.concatenate([train, test])
    assert len(train) == size // 2 and len(both) == size and len(set(both.tolist())) == size
    assert both.min() >= 0 and both.max() < n


def test_half_split_depends_on_the_seed():
    assert not np.array_equal(half_split(100, 0)[0], half_split(100, 1)[0])


def test_half_split_rejects_too_few_examples():
    with pytest.raises(ValueError, match="n must be >= 2"):
        half_split(1, 0)


@given(n=st.integers(2, 300), folds=st.integers(2, 10))
def test_k_folds_partition_into_nearly_equal_blocks(n, folds):
    if folds > n:
        with pytest.raises(ValueError, match="folds must be <="):
            k_folds(n, folds)
        return
    blocks = k_folds(n, folds)
    assert len(blocks) == folds
    assert np.array_equal(np.concatenate(blocks), np.arange(n))
    sizes = [len(block) for block in blocks]
    assert max(sizes) - min(sizes) <= 1


def test_cumulative_mean_by_hand():
    # errors 1, 3, 5, 7: running means 1, 2, 3, 4
    assert np.array_equal(scores.cumulative_mean([1.0, 3.0, 5.0, 7.0]), [1.0, 2.0, 3.0, 4.0])


@given(st.lists(st.floats(0, 1e6), min_size=1, max_size=200))
def test_cumulative_mean_ends_at_the_mean_and_is_a_running_average(errors):
    curve = scores.cumulative_mean(errors)
    t = np.arange(1, len(errors) + 1)
    # t c_t - (t - 1) c_{t-1} recovers e_t
    recovered = t * curve - np.concatenate([[0.0], (t[:-1] * curve[:-1])])
    np.testing.assert_allclose(recovered, errors, rtol=tolerances.IDENTITY_RTOL,
                               atol=tolerances.IDENTITY_ATOL * max(1.0, max(errors)) * len(errors))
    np.testing.assert_allclose(curve[-1], np.mean(errors), rtol=tolerances.IDENTITY_RTOL)


def test_squared_errors_and_misclassification_by_hand():
    predictions = np.array([[1.0, 2.0], [0.0, -1.0], [3.0, 3.5]])
    targets = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    assert np.array_equal(scores.squared_errors(predictions, targets), [4.0, 2.0, 15.25])
    # argmax: 1 vs 0 (wrong), 0 vs 0 (right), 1 vs 1 (right)
    assert np.array_equal(scores.misclassified(predictions, targets), [1.0, 0.0, 0.0])


def test_non_finite_predictions_count_as_errors_without_a_warning():
    predictions = np.array([[np.inf, 0.0], [np.nan, 1.0], [1e300, -1e300]])
    targets = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]])
    errors = scores.squared_errors(predictions, targets)          # pytest turns any warning into an error
    assert np.isinf(errors[0]) and np.isnan(errors[1]) and np.isinf(errors[2])
    assert np.array_equal(scores.misclassified(predictions, targets), [1.0, 1.0, 0.0])


def test_divergence_is_found_at_the_first_exploding_round():
    targets = np.ones((6, 2))
    predictions = np.ones((6, 2))
    predictions[3] = [1e9, 0.0]       # round 4: squared error ~1e18 >> 1e6 * mean ||y||^2 = 2e6
    predictions[5] = [np.nan, 0.0]
    assert first_divergent_round(predictions, targets) == 4
    assert first_divergent_round(np.zeros((6, 2)), targets) is None


def test_the_papers_non_separable_synthetic_setting_diverges_and_the_scaled_variant_does_not():
    """Spec E30(a): eta = 1, lam = 0.01, mu = 0.2, inputs in [0,1]^20 (kappa^2 = 336, eta_1 kappa^2 >> 2)."""
    X, Y = ovk_ref.synthetic(40, p=20, d=4, seed=0)
    kernel = ovk_ref.LinearQuadratic(0.2, 4)
    with np.errstate(all="ignore"):
        paper = ovk_ref.onorma(X, Y, kernel, lam=0.01, eta=1.0)
    assert first_divergent_round(paper.predictions, Y) is not None
    scaled = ovk_ref.onorma(X / np.sqrt(20), Y, kernel, lam=0.01, eta=1.0)
    assert first_divergent_round(scaled.predictions, Y) is None
