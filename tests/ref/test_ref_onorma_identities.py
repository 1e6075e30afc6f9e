"""ONORMA (Algorithm 1) against the identities the spec proves: C5, C6, C7, C8, C23, and the online API."""
import math

import numpy as np
from hypothesis import example, given
from hypothesis import strategies as st
from ref_checks import assert_rounds_close, shrink_products, step_sizes
from shared.strategies import problems, smooth_losses

import ovk_ref
from ovk_ref import tolerances
from proofs_check import strategies
from proofs_check import tolerances as proofs_tolerances
from proofs_check.claims.onorma import schedule_formula


@given(problems())
def test_c5_closed_form_of_the_coefficients(problem):
    """Without truncation ``alpha_{i,n} = alpha_{i,i} P_{i,n}``."""
    record = ovk_ref.onorma(problem["X"], problem["Y"], problem["kernel"], lam=problem["lam"], eta=problem["eta"],
                            loss=problem["loss"])
    n = len(problem["Y"])
    expected = record.new_coefficients * shrink_products(problem["eta"], problem["lam"], n)[:, None]
    assert_rounds_close(record.coefficients, expected, "alpha_{i,n}")


@st.composite
def feature_problems(draw):
    d, p = draw(strategies.dimensions), draw(strategies.dimensions)
    kernel = draw(strategies.feature_kernels(d, p))
    loss = draw(smooth_losses(d))
    X, Y = draw(strategies.streams(p, d, loss=loss))
    lam, eta = draw(strategies.step_parameters())
    return kernel, X, Y, lam, eta, loss


@given(feature_problems())
def test_c6_feature_kernel_onorma_is_sgd_on_the_feature_weights(case):
    """Spec 5.2 feature form: ``w_t = w_{t-1} - eta_t (A(x_t)^T u_t + lam w_{t-1})``, prediction ``A(x_t) w_{t-1}``,
    ``||f_t||^2 = ||w_t||^2``. The blocks of the feature kernel are not symmetric (catches E3). Smooth losses only:
    at a kink the two computations may pick different subgradients.

    Round-off scale: ``m_t = sum_i |A(x_i)|_1 |alpha_{i,t}|_1`` (entrywise sums) bounds the terms of
    ``w_t = sum_i A(x_i)^T alpha_{i,t}``, so ``|A(x_t)|_1 m_{t-1}`` bounds those of the prediction and ``m_t^2``
    those of the norm."""
    kernel, X, Y, lam, eta, loss = case
    record = ovk_ref.onorma(X, Y, kernel, lam=lam, eta=eta, loss=loss)
    loss = ovk_ref.as_loss(loss)
    w, m = np.zeros(kernel.M.shape[2]), 0.0
    predictions, norms, prediction_scales, norm_scales = [], [], [], []
    for eta_t, x, y in zip(step_sizes(eta, len(X)), X, Y):
        features = kernel.M[0] + np.einsum("k,kab->ab", x, kernel.M[1:])
        prediction = features @ w
        u = loss.gradient(prediction, y)
        w = w - eta_t * (features.T @ u + lam * w)
        prediction_scales.append(np.abs(features).sum() * m)
        m = (1 - eta_t * lam) * m + eta_t * np.abs(features).sum() * np.abs(u).sum()
        predictions.append(prediction)
        norms.append(w @ w)
        norm_scales.append(m**2)
    assert_rounds_close(record.predictions, predictions, "predictions", prediction_scales)
    assert_rounds_close(record.rkhs_norm2, norms, "||f_t||^2", norm_scales)


# --- C7: scalar NORMA of Kivinen, Smola & Williamson (2004), written independently -------------------

SCALAR_KERNELS = {
    "gaussian": (lambda mu: ovk_ref.Gaussian(mu), lambda mu: lambda x, z: math.exp(-float((x - z) @ (x - z)) / mu)),
    "linear": (lambda _: ovk_ref.Linear(), lambda _: lambda x, z: float(x @ z)),
    "quadratic": (lambda offset: ovk_ref.Polynomial(2, offset), lambda offset: lambda x, z: (float(x @ z) + offset) ** 2),
    "constant": (lambda c: ovk_ref.Constant(c), lambda c: lambda x, z: c),
}

#: scalar loss: (ovk_ref name or dict, derivative l'(r) in r = z - y with the choices of spec 4 at kinks, kinks in r)
SCALAR_LOSSES = {
    "squared": lambda _: ("squared", lambda r: r, []),
    "norm": lambda _: ("norm", lambda r: float(np.sign(r)), [0.0]),
    "huber": lambda h: ({"type": "huber", "delta": h}, lambda r: r if abs(r) <= h else h * float(np.sign(r)), []),
    "epsilon_insensitive": lambda e: ({"type": "epsilon_insensitive", "epsilon": e},
                                      lambda r: 0.0 if abs(r) <= e else float(np.sign(r)), [-e, e]),
}


def scalar_norma(k, derivative, kinks, X, Y, lam, eta):
    """KSW's NORMA: predict ``f(x_t) = sum_i a_i k(x_i, x_t)``, then ``a_i <- (1 - eta_t lam) a_i`` and
    ``a_t = -eta_t l'(f(x_t) - y_t)``, with ``eta_t = eta / sqrt(t)``.

    Returns the predictions, the sizes ``sum_i |a_i k(x_i, x_t)|`` of their terms, and the number of rounds
    that can be compared: up to the first whose residual is within round-off of a kink of the derivative,
    where another float64 computation may pick the other side."""
    a, centres, predictions, scales = [], [], [], []
    comparable = len(X)
    for t, (x, y) in enumerate(zip(X, Y), start=1):
        eta_t = eta / math.sqrt(t)
        prediction = sum(a_i * k(c_i, x) for a_i, c_i in zip(a, centres))
        scale = sum(abs(a_i * k(c_i, x)) for a_i, c_i in zip(a, centres))
        predictions.append(prediction)
        scales.append(scale)
        if comparable == len(X) and any(abs(prediction - y - kink) <= tolerances.IDENTITY_RTOL * (scale + abs(y))
                                        for kink in kinks):
            comparable = t
        a = [(1 - eta_t * lam) * a_i for a_i in a] + [-eta_t * derivative(prediction - y)]
        centres.append(x)
    return np.array(predictions), np.array(scales), comparable


@given(st.sampled_from(sorted(SCALAR_KERNELS)), st.floats(0.1, 2.0), st.sampled_from(sorted(SCALAR_LOSSES)),
       st.floats(0.05, 1.0), strategies.streams(p=2, d=1), strategies.step_parameters())
def test_c7_one_output_onorma_is_scalar_norma(kernel_name, kernel_parameter, loss_name, loss_parameter, stream, steps):
    """d = 1 and B = [[1]]: ONORMA's predictions are those of scalar NORMA (spec 5.2, C7)."""
    X, Y = stream
    lam, eta = steps
    make_kernel, make_k = SCALAR_KERNELS[kernel_name]
    loss, derivative, kinks = SCALAR_LOSSES[loss_name](loss_parameter)
    record = ovk_ref.onorma(X, Y, ovk_ref.Separable(make_kernel(kernel_parameter), [[1.0]]), lam=lam, eta=eta, loss=loss)
    expected, scales, comparable = scalar_norma(make_k(kernel_parameter), derivative, kinks, X, Y[:, 0], lam, eta)
    assert_rounds_close(record.predictions[:comparable, 0], expected[:comparable], "predictions", scales[:comparable])


# --- truncation (C8, spec 5.3) and kernel evaluations (C23, spec 5.4) ---------------------------------

def integer_power_floor(u: int, numerator: int, denominator: int) -> int:
    """``floor(u^(numerator/denominator))`` exactly: the largest k with ``k^denominator <= u^numerator``."""
    target = u ** numerator
    k = int(u ** (numerator / denominator))
    while k ** denominator > target:
        k -= 1
    while (k + 1) ** denominator <= target:
        k += 1
    return k


@given(st.integers(1, 40), st.integers(1, 49), st.integers(1, 300))
@example(1, 10, 40)   # eps = 0.1, t - t0 = 32: 32^0.6 = 8 exactly, where float64 gives 7.999...
def test_theorem2_schedule_formula_and_facts(t0, hundredths, horizon):
    """``s_t = min(t, t0) + 1[t > t0] floor((t - t0)^(1/2 + eps))`` (exact integer arithmetic, eps = k/100 read as
    the decimal it prints as); ``s_t = t`` up to ``t0 + 1``; the cut ``t - s_t`` starts at ``t0 + 2`` and grows by 0
    or 1 per round (spec 5.3)."""
    schedule = ovk_ref.theorem2_schedule(t0, hundredths / 100)
    expected = [t if t <= t0 else t0 + integer_power_floor(t - t0, 50 + hundredths, 100) for t in range(1, horizon + 1)]
    assert [schedule(t) for t in range(1, horizon + 1)] == expected
    cuts = [t - s for t, s in zip(range(1, horizon + 1), expected)]
    assert all(cut == 0 for cut in cuts[:t0 + 1])
    if horizon >= t0 + 2:
        assert cuts[t0 + 1] == 1
    assert all(later - earlier in (0, 1) for earlier, later in zip(cuts, cuts[1:]))


def exact_schedule(t0: int, hundredths: int, horizon: int) -> list:
    """``s_t`` with ``epsilon = hundredths / 100`` by integer arithmetic: ``floor(b^((50 + hundredths) / 100))``."""
    return [t if t <= t0 else t0 + integer_power_floor(t - t0, 50 + hundredths, 100) for t in range(1, horizon + 1)]


@given(st.integers(1, 50), st.integers(1, 49))
@example(1, 10)   # 1/a = 5/3: k = 8 gives 32 exactly, where float64 gives 31.999...
@example(7, 25)   # 1/a = 4/3
def test_the_claims_schedule_formula_is_the_exact_schedule(t0, hundredths):
    """``trunc.schedule``'s own evaluation (``claims.onorma.schedule_formula``: a threshold read off the float64 power
    only away from integers) is the schedule of exact integer arithmetic, exact powers included."""
    assert schedule_formula(t0, hundredths / 100, 2000) == exact_schedule(t0, hundredths, 2000)


def test_the_claims_schedule_formula_without_its_guard_misses_exact_powers(monkeypatch):
    """Planted fault: every threshold read off the float64 power (``SCHEDULE_FORMULA_FLOAT_GUARD`` 0)."""
    monkeypatch.setattr(proofs_tolerances, "SCHEDULE_FORMULA_FLOAT_GUARD", 0.0)
    assert [hundredths for hundredths in (10, 20, 25, 40)
            if schedule_formula(1, hundredths / 100, 2000) != exact_schedule(1, hundredths, 2000)]


@st.composite
def truncated_problems(draw):
    problem = draw(problems())
    problem["truncation"] = draw(st.one_of(
        st.integers(1, 6),
        st.builds(ovk_ref.theorem2_schedule, st.integers(1, 4), st.floats(0.01, 0.49))))
    return problem


def window(truncation, t):
    return truncation if isinstance(truncation, int) else truncation(t)


@given(truncated_problems())
def test_c8_truncation_keeps_exactly_the_most_recent_coefficients(problem):
    """After round t the support is ``{max(1, t - s_t + 1), ..., t}`` and the kept coefficients are untouched by
    the truncation: ``alpha_{i,t} = alpha_{i,i} P_{i,t}`` (spec 5.1 step 4, C8)."""
    learner = ovk_ref.ONORMA(problem["kernel"], lam=problem["lam"], eta=problem["eta"], loss=problem["loss"],
                             truncation=problem["truncation"])
    new_coefficients = []
    for t, (x, y) in enumerate(zip(problem["X"], problem["Y"]), start=1):
        learner.learn_one(x, y)
        coefficients = learner.coefficients()
        new_coefficients.append(coefficients[-1].copy())
        cut = max(0, t - window(problem["truncation"], t))
        assert not coefficients[:cut].any(), f"round {t}: a coefficient with i <= t - s_t = {cut} survived"
        kept = np.array(new_coefficients[cut:]) * shrink_products(problem["eta"], problem["lam"], t)[cut:, None]
        assert_rounds_close(coefficients[cut:], kept, f"kept coefficients after round {t}")


@given(st.one_of(problems(), truncated_problems()))
def test_c23_kernel_evaluations_per_round(problem):
    """``t - 1`` per round without truncation, ``min(t - 1, s_{t-1})`` with it (spec 5.4, C23)."""
    truncation = problem.get("truncation")
    record = ovk_ref.onorma(problem["X"], problem["Y"], problem["kernel"], lam=problem["lam"], eta=problem["eta"],
                            loss=problem["loss"], truncation=truncation)
    n = len(problem["Y"])
    expected = [t - 1 if truncation is None or t == 1 else min(t - 1, window(truncation, t - 1)) for t in range(1, n + 1)]
    assert list(record.kernel_evaluations) == expected
    assert sum(expected) <= n * (n - 1) // 2


@given(st.one_of(problems(), truncated_problems()))
def test_learn_one_and_predict_one_replay_the_whole_stream_run(problem):
    """Predicting ``x_t`` before learning it gives the record's prediction; the final coefficients agree."""
    truncation = problem.get("truncation")
    options = dict(lam=problem["lam"], eta=problem["eta"], loss=problem["loss"], truncation=truncation)
    record = ovk_ref.onorma(problem["X"], problem["Y"], problem["kernel"], **options)
    learner = ovk_ref.ONORMA(problem["kernel"], **options)
    for t, (x, y) in enumerate(zip(problem["X"], problem["Y"])):
        assert np.array_equal(learner.predict_one(x), record.predictions[t])
        assert np.array_equal(learner.predict_one(x), record.predictions[t]), "predict_one changed the state"
        learner.learn_one(x, y)
    assert np.array_equal(learner.coefficients(), record.coefficients)


@given(problems(max_n=5))
def test_kernel_and_loss_may_be_given_as_dicts(problem):
    options = dict(lam=problem["lam"], eta=problem["eta"])
    loss = ovk_ref.as_loss(problem["loss"])
    by_object = ovk_ref.onorma(problem["X"], problem["Y"], problem["kernel"], loss=loss, **options)
    by_dict = ovk_ref.onorma(problem["X"], problem["Y"], problem["kernel"].to_dict(), loss=loss.to_dict(), **options)
    assert np.array_equal(by_object.predictions, by_dict.predictions)
    assert np.array_equal(by_object.rkhs_norm2, by_dict.rkhs_norm2)
