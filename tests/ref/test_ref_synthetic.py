"""The paper's synthetic data (spec 3.4): its law, checked on draws of ``ovk_ref.synthetic``.

Each law check is a function of a generator (``synthetic``, ``features``); the generator passes every check and
each planted wrong reading of spec 3.4 (``SYNTHETIC_MUTANTS``) fails the one meant for it.

Statistical bounds (a fixed seed set, so each check is deterministic; a correct generator would fail one with
probability at most ``FALSE_ALARM`` over all the entries it tests, by a union bound):
* diagonal of the covariance: ``sum_s w_k(s)^2 / D_kk`` over N independent draws is exactly chi-square(N)
  (the mean is known to be 0), so it must lie between the chi-square quantiles at ``alpha/2`` and ``1 - alpha/2``;
* off-diagonal entries (within a task, and the same entry across two tasks): ``sum_s w_j(s) w_k(s)`` has mean 0
  and variance ``N D_jj D_kk``; by the central limit theorem (N = 4000 or 2000 terms) it must lie within
  ``z_{1 - alpha/2} sqrt(N D_jj D_kk)``.
"""
import importlib
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats

import ovk_ref
from ovk_ref.synthetic import NAMED_INPUTS, WEIGHT_VARIANCES

#: the module (``ovk_ref.synthetic`` the attribute is its function): it offers ``synthetic`` and ``features``, as
#: each mutant does
generator = importlib.import_module("ovk_ref.synthetic")
VARIANCES = np.array(generator.WEIGHT_VARIANCES)
FALSE_ALARM = 1e-6
SEEDS = range(2000)


def explicit_outputs(X, W):
    """``y^i = w^i_1 x_1^2 + w^i_2 x_4^2 + w^i_3 x_1 x_2 + w^i_4 x_3 x_5 + w^i_5 x_2 + w^i_6 x_4 + w^i_7``, term by
    term as printed, and the summation error bound ``7 u sum_k |w_k phi_k(x)|`` (u = unit roundoff)."""
    x1, x2, x3, x4, x5 = X[:, 0], X[:, 1], X[:, 2], X[:, 3], X[:, 4]
    terms = np.stack([np.outer(x1 * x1, W[:, 0]), np.outer(x4 * x4, W[:, 1]), np.outer(x1 * x2, W[:, 2]),
                      np.outer(x3 * x5, W[:, 3]), np.outer(x2, W[:, 4]), np.outer(x4, W[:, 5]),
                      np.outer(np.ones(len(X)), W[:, 6])])
    return terms.sum(axis=0), 8 * np.finfo(float).eps / 2 * np.abs(terms).sum(axis=0)


def check_outputs_are_W_phi(gen):
    """Y = W phi(X) for the returned W, on the paper's two sizes and a few others."""
    for n, p, d, seed in [(500, 20, 4, 0), (5000, 20, 10, 0), (7, 5, 1, 3), (30, 33, 6, 11)]:
        X, Y, W = gen.synthetic(n, p=p, d=d, seed=seed, return_weights=True)
        assert X.shape == (n, p) and Y.shape == (n, d) and W.shape == (d, 7)
        expected, bound = explicit_outputs(X, W)
        assert np.all(np.abs(Y - expected) <= bound), f"Y != W phi(X) for n={n}, p={p}, d={d}, seed={seed}"


def _weights(gen, d):
    return np.array([gen.synthetic(1, d=d, seed=seed, return_weights=True)[2] for seed in SEEDS])


def check_weight_covariance(gen):
    """Sample covariance of w over seeds 0..1999 (d = 2: 4000 draws) against Diag(0.5, 0.25, ...), and the
    two tasks of a seed uncorrelated."""
    W = _weights(gen, 2)
    within = W.reshape(-1, 7)
    N, entries = len(within), 7 + 21 + 7
    alpha = FALSE_ALARM / entries
    low, high = stats.chi2.ppf([alpha / 2, 1 - alpha / 2], N)
    z = stats.norm.ppf(1 - alpha / 2)
    chi2 = np.sum(within ** 2, axis=0) / VARIANCES
    assert np.all((low <= chi2) & (chi2 <= high)), f"variances {np.mean(within ** 2, axis=0)} vs {VARIANCES}"
    products = within.T @ within
    for j in range(7):
        for k in range(j + 1, 7):
            assert abs(products[j, k]) <= z * np.sqrt(N * VARIANCES[j] * VARIANCES[k]), f"cov(w_{j + 1}, w_{k + 1})"
    across = np.sum(W[:, 0, :] * W[:, 1, :], axis=0)
    assert np.all(np.abs(across) <= z * np.sqrt(len(W)) * VARIANCES), f"tasks 1 and 2 correlated: {across / len(W)}"


def check_inputs_uniform(gen):
    """Inputs in [0, 1], and uniform by a Kolmogorov-Smirnov test at FALSE_ALARM (500 x 20 values)."""
    X, _ = gen.synthetic(500, p=20, d=4, seed=0)
    assert np.all((X >= 0) & (X <= 1))
    assert stats.kstest(X.ravel(), "uniform").pvalue > FALSE_ALARM


def check_only_named_inputs_matter(gen):
    """phi(x) is unchanged when x_6..x_p change, and changes with each of x_1..x_5."""
    X = np.random.default_rng(0).uniform(size=(50, 20))
    moved = X.copy()
    moved[:, 5:] = np.random.default_rng(1).uniform(size=(50, 15))
    assert np.array_equal(gen.features(moved), gen.features(X)), "a distractor input changed phi"
    for column in range(5):
        moved = X.copy()
        moved[:, column] += 0.5
        assert not np.array_equal(gen.features(moved), gen.features(X)), f"x_{column + 1} does not enter phi"


CHECKS = [check_outputs_are_W_phi, check_weight_covariance, check_inputs_uniform, check_only_named_inputs_matter]


@pytest.mark.parametrize("check", CHECKS, ids=lambda check: check.__name__)
def test_the_generator_follows_the_papers_law(check):
    check(generator)


def _synthetic_with(*, weight_scale=None, per_example_weights=False, shared_weights=False, phi_offset=0):
    """The paper's generator (``ovk_ref.synthetic``, spec 3.4) with one plausible mistake."""
    variances = np.asarray(WEIGHT_VARIANCES)

    def features(X):
        X = np.asarray(X, dtype=float)
        x1, x2, x3, x4, x5 = (X[:, i - 1 + phi_offset] for i in NAMED_INPUTS)
        return np.column_stack([x1 ** 2, x4 ** 2, x1 * x2, x3 * x5, x2, x4, np.ones(len(X))])

    def synthetic(n, p=20, d=4, *, seed=0, noise=0.0, return_weights=False):
        rng = np.random.default_rng(seed)
        scale = np.sqrt(variances) if weight_scale is None else weight_scale(variances)
        W = rng.standard_normal((1 if shared_weights else d, len(variances))) * scale
        W = np.repeat(W, d, axis=0) if shared_weights else W
        X = rng.uniform(0.0, 1.0, size=(n, p))
        if per_example_weights:
            rows = [W] + [rng.standard_normal(W.shape) * scale for _ in range(n - 1)]
            Y = np.array([features(X[i:i + 1])[0] @ rows[i].T for i in range(n)])
        else:
            Y = features(X) @ W.T
        return (X, Y, W) if return_weights else (X, Y)

    return SimpleNamespace(synthetic=synthetic, features=features)


#: name -> a wrong reading of the paper's synthetic data (spec 3.4), with ``synthetic`` and ``features``
SYNTHETIC_MUTANTS = {
    "variances_used_as_standard_deviations": _synthetic_with(weight_scale=lambda variances: variances),
    "weights_redrawn_per_example": _synthetic_with(per_example_weights=True),
    "one_weight_vector_for_all_tasks": _synthetic_with(shared_weights=True),
    "phi_indices_read_zero_based": _synthetic_with(phi_offset=1),
}


CAUGHT_BY = {
    "variances_used_as_standard_deviations": check_weight_covariance,
    "weights_redrawn_per_example": check_outputs_are_W_phi,
    "one_weight_vector_for_all_tasks": check_weight_covariance,
    "phi_indices_read_zero_based": check_only_named_inputs_matter,
}


def test_every_planted_fault_has_a_check():
    assert set(CAUGHT_BY) == set(SYNTHETIC_MUTANTS)


@pytest.mark.parametrize("name", sorted(SYNTHETIC_MUTANTS))
def test_a_wrong_reading_of_the_law_is_caught(name):
    with pytest.raises(AssertionError):
        CAUGHT_BY[name](SYNTHETIC_MUTANTS[name])


@given(arrays(float, (6, 12), elements=st.floats(0, 1)), arrays(float, (6, 7), elements=st.floats(-10, 10)))
def test_distractor_inputs_never_change_phi(X, distractors):
    moved = X.copy()
    moved[:, 5:] = distractors
    assert np.array_equal(generator.features(moved), generator.features(X))


def test_seeded_and_every_size():
    first = ovk_ref.synthetic(40, p=7, d=3, seed=5)
    again = ovk_ref.synthetic(40, p=7, d=3, seed=5)
    other = ovk_ref.synthetic(40, p=7, d=3, seed=6)
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    assert not np.array_equal(first[1], other[1])
    for n, d in [(1, 1), (3, 17), (250, 2)]:
        X, Y = ovk_ref.synthetic(n, d=d, seed=0)
        assert X.shape == (n, 20) and Y.shape == (n, d)


def test_one_weight_vector_per_task_shared_by_all_examples():
    """The paper is silent; our reading (spec 3.4 note): a longer draw keeps the same W, and the first examples."""
    X_short, Y_short, W_short = ovk_ref.synthetic(10, d=3, seed=2, return_weights=True)
    X_long, Y_long, W_long = ovk_ref.synthetic(1000, d=3, seed=2, return_weights=True)
    assert np.array_equal(W_short, W_long)
    assert np.array_equal(X_short, X_long[:10]) and np.array_equal(Y_short, Y_long[:10])


def test_noise_is_off_by_default_and_adds_its_variance():
    X, clean, W = ovk_ref.synthetic(4000, d=2, seed=1, return_weights=True)
    _, noisy = ovk_ref.synthetic(4000, d=2, seed=1, noise=0.3)
    residual = (noisy - clean).ravel()
    low, high = stats.chi2.ppf([FALSE_ALARM / 2, 1 - FALSE_ALARM / 2], residual.size)
    assert low <= np.sum(residual ** 2) / 0.3 ** 2 <= high


@pytest.mark.parametrize("arguments, error, words", [
    (dict(n=0), ValueError, "n must be >= 1"),
    (dict(n=10, p=4), ValueError, "p must be >= 5"),
    (dict(n=10, d=0), ValueError, "d must be >= 1"),
    (dict(n=10, seed=-1), ValueError, "seed must be >= 0"),
    (dict(n=10, noise=-0.1), ValueError, "noise must be >= 0"),
    (dict(n=2.5), TypeError, "n must be an int"),
])
def test_bad_arguments_are_refused_by_name(arguments, error, words):
    with pytest.raises(error, match=words):
        ovk_ref.synthetic(**arguments)


def test_features_refuse_too_few_columns():
    with pytest.raises(ValueError, match="at least 5 columns"):
        generator.features(np.zeros((3, 4)))
