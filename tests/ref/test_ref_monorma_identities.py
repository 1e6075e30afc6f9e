"""MONORMA (Algorithm 2) against the identities the spec proves: C16, C17, C24, the degenerate cases of
spec 6.3 (all gamma = 0: keep delta; an absorbing zero weight), and the online API."""
import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from ref_checks import assert_rounds_close, gram_norm2_scale, shrink_products, step_sizes
from shared.strategies import smooth_losses

import ovk_ref
from ovk_ref import tolerances
from proofs_check import strategies


@st.composite
def monorma_problems(draw, max_kernels=3):
    d, p = draw(strategies.dimensions), draw(strategies.dimensions)
    kernels = draw(st.lists(strategies.kernels(d, p), min_size=1, max_size=max_kernels))
    loss = draw(strategies.losses(d))
    X, Y = draw(strategies.streams(p, d, loss=loss))
    lam, eta = draw(strategies.step_parameters())
    r = draw(st.floats(0.1, 5.0))
    return dict(kernels=kernels, X=X, Y=Y, lam=lam, eta=eta, r=r, loss=loss)


def run(problem, kernels=None):
    return ovk_ref.monorma(problem["X"], problem["Y"], problem["kernels"] if kernels is None else kernels,
                           lam=problem["lam"], eta=problem["eta"], r=problem["r"], loss=problem["loss"])


@given(monorma_problems())
def test_c16_weights_are_normalised_and_follow_the_closed_form(problem):
    """After a round with some ``w_j = (delta^j_{t-1})^2 gamma^j_t > 0``: ``sum_j (delta^j_t)^r = 1``, ``delta >= 0``
    and ``delta^j_t = nu_j^(2/(r+1)) / (sum_k nu_k^(2r/(r+1)))^(1/r)``, ``nu_j = delta^j_{t-1} sqrt(gamma^j_t)``
    (spec 6.3 form (d)); after a round with every ``w_j = 0`` the weights are kept (E22).

    Outside the claim: a round where the literal ``w_j`` underflows (below 2.2e-308) while ``nu_j > 0``
    (``nu_j < 1.5e-154``); ovk_ref's weight then loses its digits, or becomes 0 for ever if ``w_j = 0``,
    where the closed form keeps a tiny positive weight."""
    record = run(problem)
    r, m = problem["r"], len(problem["kernels"])
    previous = np.full(m, 1 / m)
    for t, (weights, gamma) in enumerate(zip(record.weights, record.gamma), start=1):
        nu = previous * np.sqrt(np.maximum(gamma, 0))
        assume(not np.any((nu > 0) & (previous**2 * np.maximum(gamma, 0) < np.finfo(float).tiny)))
        if not np.any(nu > 0):
            assert np.array_equal(weights, previous), f"round {t}: every w_j = 0 but delta changed"
        else:
            assert np.all(weights >= 0)
            assert abs(np.sum(weights**r) - 1) <= tolerances.DELTA_NORMALISATION, f"round {t}: sum delta^r != 1"
            closed_form = nu ** (2 / (r + 1)) / np.sum(nu ** (2 * r / (r + 1))) ** (1 / r)
            np.testing.assert_allclose(weights, closed_form, rtol=tolerances.IDENTITY_RTOL, atol=0)
        previous = weights


def test_e20_the_misparsed_exponents_break_the_normalisation():
    """Spec 6.3: with ``w = (0.3, 1.7, 0.05)`` and ``r = 2`` the update gives ``sum delta^2 = 1``; the literal
    parse ``w^((1/r)+1) / (sum w^((r/r)+1))^(1/r)`` does not."""
    w, r = np.array([0.3, 1.7, 0.05]), 2.0
    learner = ovk_ref.MONORMA([ovk_ref.gaussian_separable(1.0, 1)] * 3, lam=0.1, eta=1.0, r=r)
    delta = learner.weight_update(w)
    np.testing.assert_allclose(delta, w ** (1 / 3) / np.sum(w ** (2 / 3)) ** 0.5, rtol=tolerances.IDENTITY_RTOL, atol=0)
    assert abs(np.sum(delta**r) - 1) <= tolerances.DELTA_NORMALISATION
    misparsed = w ** (1 / r + 1) / np.sum(w ** (r / r + 1)) ** (1 / r)
    assert abs(np.sum(misparsed**r) - 1) > 0.1


@st.composite
def one_kernel_problems(draw):
    """MONORMA instances with one kernel and a smooth loss: C17 compares whole trajectories, and at a kink of a
    non-smooth loss two float64 computations may pick different subgradients."""
    d, p = draw(strategies.dimensions), draw(strategies.dimensions)
    loss = draw(smooth_losses(d))
    X, Y = draw(strategies.streams(p, d, loss=loss))
    lam, eta = draw(strategies.step_parameters())
    return dict(kernels=[draw(strategies.kernels(d, p))], X=X, Y=Y, lam=lam, eta=eta, r=draw(st.floats(0.1, 5.0)),
                loss=loss)


def assert_same_run(monorma, onorma, kernel, X, eta, lam, norms=None):
    """MONORMA's record equals ONORMA's. Round-off scales: the terms ``|K(x_t, x_i)|_1 |alpha_{i,t-1}|_1`` of each
    prediction (a prediction may cancel to ~0), carried into ``alpha_{t,t}`` by ``eta_t`` and shrunk by
    ``P_{i,n}``; the Gram terms for ``||f_t||^2``. ``alpha_{i,t} = alpha_{i,i} P_{i,t}`` (C5, tested apart)."""
    n = len(X)
    products = [shrink_products(eta, lam, t) for t in range(1, n + 1)]
    prediction_scales = [sum(np.abs(kernel(X[t], X[i])).sum() * np.abs(onorma.new_coefficients[i]).sum() * products[t - 1][i]
                             for i in range(t)) for t in range(n)]
    prediction_scales = np.maximum.accumulate(prediction_scales)
    new_scales = step_sizes(eta, n) * prediction_scales + np.abs(onorma.new_coefficients).max(axis=1)
    assert_rounds_close(monorma.predictions, onorma.predictions, "predictions", prediction_scales)
    assert_rounds_close(monorma.new_coefficients, onorma.new_coefficients, "alpha_{t,t}", new_scales)
    assert_rounds_close(monorma.coefficients, onorma.coefficients, "alpha_{i,n}", new_scales * products[-1])
    if norms is not None:
        norm_scales = [gram_norm2_scale(kernel, X[:t], onorma.new_coefficients[:t] * products[t - 1][:, None])
                       for t in range(1, n + 1)]
        assert_rounds_close(norms, onorma.rkhs_norm2, "gamma vs rkhs_norm2", np.maximum.accumulate(norm_scales))


@given(one_kernel_problems())
def test_c17_one_kernel_is_onorma(problem):
    """m = 1: ``delta_t = 1`` and MONORMA is ONORMA (predictions, coefficients, ``gamma = ||f_t||^2``; spec 6.4)."""
    kernel = problem["kernels"][0]
    record = run(problem)
    onorma = ovk_ref.onorma(problem["X"], problem["Y"], kernel, lam=problem["lam"], eta=problem["eta"],
                            loss=problem["loss"])
    np.testing.assert_allclose(record.weights, 1.0, rtol=tolerances.DELTA_NORMALISATION, atol=0)
    assert_same_run(record, onorma, kernel, problem["X"], problem["eta"], problem["lam"], norms=record.gamma[:, 0])


@given(one_kernel_problems(), st.integers(2, 4))
def test_c17_m_copies_of_one_kernel_is_onorma_with_the_scaled_kernel(problem, m):
    """m copies of K: ``delta^j_t = m^(-1/r)`` once some ``gamma > 0`` (1/m before, when ``f = 0``), so
    MONORMA is ONORMA with ``m^(1 - 1/r) K`` (spec 6.4)."""
    kernel, r = problem["kernels"][0], problem["r"]
    scaled = ovk_ref.WeightedSum([(m ** (1 - 1 / r), kernel)])
    record = run(problem, kernels=[kernel] * m)
    onorma = ovk_ref.onorma(problem["X"], problem["Y"], scaled, lam=problem["lam"], eta=problem["eta"], loss=problem["loss"])
    started = np.maximum.accumulate(np.any(record.gamma > 0, axis=1))
    expected_weights = np.where(started[:, None], m ** (-1 / r), 1 / m) * np.ones((1, m))
    np.testing.assert_allclose(record.weights, expected_weights, rtol=tolerances.IDENTITY_RTOL, atol=0)
    assert_same_run(record, onorma, scaled, problem["X"], problem["eta"], problem["lam"])


@given(monorma_problems())
def test_c24_kernel_evaluations_are_m_t(problem):
    record = run(problem)
    m = len(problem["kernels"])
    assert list(record.kernel_evaluations) == [m * t for t in range(1, len(problem["Y"]) + 1)]


@given(monorma_problems())
def test_learn_one_and_predict_one_replay_the_whole_stream_run(problem):
    record = run(problem)
    learner = ovk_ref.MONORMA(problem["kernels"], lam=problem["lam"], eta=problem["eta"], r=problem["r"],
                              loss=problem["loss"])
    for t, (x, y) in enumerate(zip(problem["X"], problem["Y"])):
        assert np.array_equal(learner.predict_one(x), record.predictions[t])
        learner.learn_one(x, y)
        assert np.array_equal(learner.weights, record.weights[t])
    assert np.array_equal(learner.coefficients(), record.coefficients)


# --- the degenerate delta updates of spec 6.3 (E22) ---------------------------------------------------

TWO_KERNELS = [ovk_ref.LinearQuadratic(1.0, 2), ovk_ref.gaussian_separable(1.0, 2)]


def test_all_zero_gamma_keeps_delta():
    """``y_1 = 0`` with the squared loss: ``alpha_{1,1} = 0``, every ``gamma^j_1 = 0``, so ``delta_1 = delta_0 = 1/m``.
    Round 2 then starts from ``f_1 = 0``: ``alpha_{2,2} = eta_2 y_2`` and ``gamma^j_2 = <K^j(x_2,x_2) a, a>``."""
    X = np.array([[1.0, 0.5], [0.5, 1.0]])
    Y = np.array([[0.0, 0.0], [1.0, -2.0]])
    eta, r = 0.5, 2.0
    record = ovk_ref.monorma(X, Y, TWO_KERNELS, lam=0.1, eta=eta, r=r)
    assert np.array_equal(record.gamma[0], [0.0, 0.0])
    assert np.array_equal(record.weights[0], [0.5, 0.5])
    assert np.array_equal(record.predictions[1], [0.0, 0.0])
    a = eta / np.sqrt(2) * Y[1]
    gamma = np.array([a @ kernel(X[1], X[1]) @ a for kernel in TWO_KERNELS])
    np.testing.assert_allclose(record.gamma[1], gamma, rtol=tolerances.IDENTITY_RTOL, atol=0)
    nu = 0.5 * np.sqrt(gamma)
    np.testing.assert_allclose(record.weights[1], nu ** (2 / 3) / np.sum(nu ** (4 / 3)) ** 0.5,
                               rtol=tolerances.IDENTITY_RTOL, atol=0)


def test_all_zero_gamma_at_a_zero_input():
    """``x_1 = 0`` with the linear/quadratic kernels: ``K^j(0, 0) = 0``, so every ``gamma^j_1 = 0`` although
    ``alpha_{1,1} != 0``; delta is kept (spec 6.3)."""
    kernels = [ovk_ref.LinearQuadratic(1.0, 2), ovk_ref.LinearQuadratic(0.0, 2)]
    record = ovk_ref.monorma([[0.0, 0.0], [1.0, 1.0]], [[1.0, 2.0], [0.5, 0.5]], kernels, lam=0.1, eta=0.5, r=3.0)
    assert np.any(record.new_coefficients[0] != 0)
    assert np.array_equal(record.gamma[0], [0.0, 0.0])
    assert np.array_equal(record.weights[0], [0.5, 0.5])


def test_all_zero_gamma_literal_option_gives_nan_for_ever_after():
    """``all_zero="literal"``: the literal 0/0 of the box, NaN weights and predictions from then on (E22)."""
    X = np.array([[1.0, 0.5], [0.5, 1.0], [0.2, 0.3]])
    Y = np.array([[0.0, 0.0], [1.0, -2.0], [0.5, 0.5]])
    with pytest.warns(ovk_ref.DivergenceWarning, match="round 2: predictions"):   # NaN is not finite: said once
        record = ovk_ref.monorma(X, Y, TWO_KERNELS, lam=0.1, eta=0.5, r=2.0, all_zero="literal")
    assert np.all(np.isnan(record.weights))
    assert np.all(np.isnan(record.predictions[1:]))
    assert record.diverged_at == 2


def test_absorbing_zero_weight():
    """Spec 6.3: ``K^1 = <x,x'> 11^T``, squared loss, ``y_1 = (1, -1, 0)`` orthogonal to 1: ``alpha_{1,1} = eta y_1``
    so ``gamma^1_1 = 0`` and ``delta^1_1 = 0``, which stays 0 for ever (``w_1 = 0``), while the other weight is 1."""
    kernels = [ovk_ref.LinearQuadratic(1.0, 3), ovk_ref.LinearQuadratic(0.0, 3)]
    X = np.array([[1.0, 0.5], [0.5, 1.0], [0.2, 0.9], [1.0, 1.0]])
    Y = np.array([[1.0, -1.0, 0.0], [2.0, 1.0, 0.5], [-1.0, 0.5, 1.0], [0.3, 0.3, 0.3]])
    record = ovk_ref.monorma(X, Y, kernels, lam=0.1, eta=0.5, r=1.5)
    assert record.gamma[0, 0] == 0.0
    assert np.all(record.gamma[1:, 0] > 0), "g^1 is not zero after round 1: the zero weight is absorbing, not gamma"
    assert np.array_equal(record.weights[:, 0], np.zeros(4))
    np.testing.assert_allclose(record.weights[:, 1], 1.0, rtol=tolerances.DELTA_NORMALISATION, atol=0)
