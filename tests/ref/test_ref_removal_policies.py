"""The removal policies of ``ovk_ref.truncation`` (a budget: ``smallest``, ``random``, ``projection``), as facts about
the terms each round keeps: the budget and the new term are kept, the smallest policy removes the smallest older
coefficient, the random one what its seed draws, the projection loses only a residual orthogonal to the kept terms
(never more than the window's term); the tracked ``||f_t||^2`` is the Gram norm, float64 agrees with 50 digits, and
ovk_fast refuses them naming the parameter."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shared.closeness import assert_close

import ovk_fast
import ovk_ref
from ovk_ref import tolerances, truncation
from ovk_ref.tolerances import IDENTITY
from ovk_ref.truncation import ProjectionPolicy, RandomPolicy, SmallestPolicy

P, D = 2, 2
KERNELS = [ovk_ref.gaussian_separable(0.7, D), {"type": "linear_separable", "B": [[2.0, 1.0], [1.0, 1.0]]},
           {"type": "feature", "M": [[[1.0], [0.0]], [[0.5], [0.0]], [[0.0], [1.0]]]}]   # rank <= 1: singular Gram

policies = st.one_of(st.builds(SmallestPolicy, st.integers(1, 6)),
                     st.builds(RandomPolicy, st.integers(1, 6), st.integers(0, 2**31)),
                     st.builds(ProjectionPolicy, st.integers(1, 6)))


@st.composite
def runs(draw, policy=policies):
    """A stream of 3 to 14 rounds, on a few points (repeats make Gram matrices singular), and a policy."""
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    n = draw(st.integers(3, 14))
    points = rng.uniform(size=(draw(st.integers(1, n)), P))
    X = points[rng.integers(len(points), size=n)]
    Y = rng.standard_normal((n, D))
    kernel = draw(st.sampled_from(KERNELS))
    return X, Y, kernel, draw(policy)


def _run(X, Y, kernel, policy, precision=None):
    return ovk_ref.onorma(X, Y, kernel, lam=0.3, eta=1.5, loss="squared", truncation=policy, precision=precision)


def _iterates(X, Y, kernel, policy):
    """Every f_t's coefficients (t x d, zero where removed), and f_t's kept indices."""
    records = ovk_ref.onorma_prefixes(X, Y, kernel, lam=0.3, eta=1.5, truncation=policy)
    return [record.coefficients for record in records]


@settings(max_examples=60, deadline=None)
@given(runs())
def test_the_budget_and_the_new_term_are_kept(run):
    X, Y, kernel, policy = run
    coefficients = _iterates(X, Y, kernel, policy)
    record = _run(X, Y, kernel, policy)
    for t, C in enumerate(coefficients, start=1):
        assert record.support_sizes[t - 1] == min(t, policy.budget)
        assert np.any(C[t - 1] != 0) or not np.any(record.new_coefficients[t - 1])   # the new term is never removed
        if not policy.projects:   # kept terms are the new one and the shrunk older ones (a projection moves them)
            assert np.array_equal(C[t - 1], record.new_coefficients[t - 1])
        if t > 1 and not policy.projects:
            previous = np.vstack([coefficients[t - 2], np.zeros((1, D))])
            c_t = 1 - 1.5 / np.sqrt(t) * 0.3
            kept = np.flatnonzero(np.any(C != 0, axis=1))[:-1]
            assert_close(C[kept], c_t * previous[kept], IDENTITY)


@settings(max_examples=60, deadline=None)
@given(runs(st.builds(SmallestPolicy, st.integers(1, 5))))
def test_smallest_removes_the_smallest_older_coefficient(run):
    X, Y, kernel, policy = run
    coefficients = _iterates(X, Y, kernel, policy)
    for t in range(2, len(X) + 1):
        before = np.any(coefficients[t - 2] != 0, axis=1).nonzero()[0]
        after = set(np.any(coefficients[t - 1] != 0, axis=1).nonzero()[0])
        removed = [i for i in before if i not in after]
        assert len(removed) <= 1
        if removed:   # the older terms after the shrink c_t, compared as the policy does (squared norms)
            shrunk = (1 - 1.5 / np.sqrt(t) * 0.3) * coefficients[t - 2][before]
            norms2 = [np.dot(alpha, alpha) for alpha in shrunk]
            assert removed[0] == before[int(np.argmin(norms2))]      # argmin: the oldest among equals


def test_random_draws_by_its_seed_and_round():
    X, Y = np.random.default_rng(1).uniform(size=(30, P)), np.random.default_rng(2).standard_normal((30, D))
    kept = {seed: np.any(_run(X, Y, KERNELS[0], RandomPolicy(4, seed)).coefficients != 0, axis=1).nonzero()[0].tolist()
            for seed in range(4)}
    assert kept[0] == np.any(_run(X, Y, KERNELS[0], {"type": "random", "budget": 4, "seed": 0}).coefficients != 0,
                             axis=1).nonzero()[0].tolist()
    assert len({tuple(value) for value in kept.values()}) > 1          # the seed chooses
    assert all(value[-1] == 29 and len(value) == 4 for value in kept.values())


@settings(max_examples=60, deadline=None)
@given(runs(st.builds(ProjectionPolicy, st.integers(1, 5))))
def test_projection_loses_a_residual_orthogonal_to_the_kept_terms_and_no_more_than_the_window(run):
    """Delta_t = c_t f_{t-1} + K(., x_t) alpha_tt - f_t is orthogonal to every kept K(., x_k) e: Delta_t(x_k) = 0; and
    ||Delta_t|| <= ||K(., x_j) alpha_j||, the term the window of the same budget would drop (the oldest)."""
    X, Y, kernel, policy = run
    K = ovk_ref.kernels.as_kernel(kernel)
    coefficients = _iterates(X, Y, kernel, policy)
    record = _run(X, Y, kernel, policy)
    for t in range(2, len(X) + 1):
        c_t = 1 - 1.5 / np.sqrt(t) * 0.3
        before = np.vstack([c_t * coefficients[t - 2], record.new_coefficients[t - 1][None]])
        delta = before - coefficients[t - 1]
        kept = np.any(coefficients[t - 1] != 0, axis=1).nonzero()[0]
        scale = np.sqrt(max(ovk_ref.rkhs_norm2(K, X[:t], before), 1e-300)) * np.sqrt(K(X[0], X[0]).max())
        at_kept = ovk_ref.evaluate(K, X[:t], delta, X[kept])
        assert np.max(np.abs(at_kept)) <= 1e-9 * scale
        oldest = np.any(coefficients[t - 2] != 0, axis=1).nonzero()[0][0]
        if oldest not in kept:
            dropped = np.zeros_like(before)
            dropped[oldest] = before[oldest]
            assert ovk_ref.rkhs_norm2(K, X[:t], delta) <= ovk_ref.rkhs_norm2(K, X[:t], dropped) * (1 + 1e-9) + 1e-15


@settings(max_examples=60, deadline=None)
@given(runs())
def test_the_tracked_norm_is_the_gram_norm(run):
    X, Y, kernel, policy = run
    record = _run(X, Y, kernel, policy)
    norm2 = ovk_ref.rkhs_norm2(kernel, X, record.coefficients)
    scale = float(np.max(np.abs(record.rkhs_norm2))) + float(np.sum(np.abs(record.new_coefficients))) ** 2
    assert_close(record.rkhs_norm2[-1:], [norm2], IDENTITY, scale=scale * len(X))


@pytest.mark.parametrize("policy", [SmallestPolicy(3), RandomPolicy(3, 7), ProjectionPolicy(3)], ids=lambda p: p.kind)
def test_float64_agrees_with_50_digits(policy):
    X, Y = np.random.default_rng(3).uniform(size=(9, P)), np.random.default_rng(4).standard_normal((9, D))
    exact, fast = _run(X, Y, KERNELS[0], policy, precision=50), _run(X, Y, KERNELS[0], policy)
    for name in ("predictions", "rkhs_norm2", "coefficients"):
        values = np.asarray(getattr(exact, name), dtype=float)
        assert np.max(np.abs(values - getattr(fast, name))) <= tolerances.FLOAT64_VS_MPMATH_RTOL * np.max(np.abs(values))


@pytest.mark.parametrize(("spec", "message"), [
    ({"type": "smallest", "budget": 0}, "truncation.budget must be >= 1"),
    ({"type": "random", "budget": 3}, r"must have the fields \['budget', 'seed'\]"),
    ({"type": "random", "budget": 3, "seed": -1}, "truncation.seed must be >= 0"),
    ({"type": "projection", "budget": truncation.PROJECTION_BUDGET + 1}, "must be at most 64"),
])
def test_a_malformed_policy_is_refused_naming_the_field(spec, message):
    with pytest.raises(ValueError, match=message):
        truncation.from_dict(spec)


@pytest.mark.parametrize("spec", [{"type": "smallest", "budget": 3}, {"type": "random", "budget": 3, "seed": 0},
                                  {"type": "projection", "budget": 3}], ids=lambda spec: spec["type"])
def test_ovk_fast_refuses_a_removal_policy_naming_the_parameter(spec):
    X, Y = np.ones((4, P)), np.ones((4, D))
    with pytest.raises(ValueError, match=f"truncation: .*removal policy '{spec['type']}'.*ovk_ref.onorma"):
        ovk_fast.onorma(X, Y, KERNELS[0], lam=0.3, eta=1.5, truncation=spec)
