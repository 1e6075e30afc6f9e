"""What a user is told when a run goes wrong: the divergence options reach the learner from ``onorma`` and
``monorma``, the message names the first field that diverged, a diverged learner still predicts without
floating-point warnings, and a singular batch system says what to do."""
import re
import warnings

import numpy as np
import pytest

import ovk_ref

KERNEL = ovk_ref.gaussian_separable(1.0, 2)
# round 1: f_0 = 0 predicts 0, alpha_{1,1} = -eta_1 (0 - y_1) = eta y_1 = (2, 0): the new coefficient is the
# first field past divergence_bound = 1 (the prediction, 0, is within it)
X1, Y1 = np.array([[0.1, 0.2]]), np.array([[4.0, 0.0]])
OPTIONS = dict(lam=0.1, eta=0.5, divergence_bound=1.0)
RUNS = [pytest.param(lambda **extra: ovk_ref.onorma(X1, Y1, KERNEL, **OPTIONS, **extra), "ONORMA", id="onorma"),
        pytest.param(lambda **extra: ovk_ref.monorma(X1, Y1, [KERNEL, KERNEL], r=1.5, **OPTIONS, **extra), "MONORMA",
                     id="monorma")]
MESSAGE = "{} diverged at round 1: new_coefficients is not finite or exceeds divergence_bound = 1.0"
# one point twice, y = 1 (test_a_prediction_past_the_bound_is_named)
X2, Y2 = np.zeros((2, 1)), np.ones((2, 1))


@pytest.mark.parametrize("run, algorithm", RUNS)
def test_divergence_bound_and_raise_reach_the_run(run, algorithm):
    with pytest.raises(ovk_ref.DivergenceError, match="^" + re.escape(MESSAGE.format(algorithm))) as raised:
        run(on_divergence="raise")
    assert raised.value.round == 1


@pytest.mark.parametrize("run, algorithm", RUNS)
def test_divergence_bound_with_warn_records_the_round(run, algorithm):
    with pytest.warns(ovk_ref.DivergenceWarning, match="^" + re.escape(MESSAGE.format(algorithm))):
        record = run()
    assert record.diverged_at == 1


@pytest.mark.parametrize("new_learner", [
    lambda: ovk_ref.ONORMA(KERNEL, lam=0.001, eta=900.0),
    lambda: ovk_ref.MONORMA([KERNEL, ovk_ref.gaussian_separable(10.0, 2)], lam=0.001, eta=900.0, r=2.0),
], ids=["onorma", "monorma"])
def test_a_diverged_learner_predicts_without_floating_point_warnings(new_learner):
    """One point x over and over: each round multiplies f(x) by about eta_t ||J|| = 990 / sqrt(t) (far from
    lam > 2 kappa^2), so f_t(x) overflows within a few hundred rounds; it is then returned as it is."""
    learner = new_learner()
    x, y = np.array([0.5, 0.5]), np.array([1.0, -1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        while np.all(np.isfinite(learner.predict_one(x))):   # up to the first f_t(x) that overflows
            assert learner.t < 400, "the run did not overflow"
            learner.learn_one(x, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        prediction = learner.predict_one(x)
    assert not np.all(np.isfinite(prediction))


def test_a_prediction_that_overflows_is_inf_without_a_floating_point_warning():
    """alpha_{1,1} = eta y_1 = 1.7e308 (1, 1) is finite (||f_1||^2 is not: the run diverges at round 1), and
    f_1(x_1) = J alpha_{1,1} = 1.1 * 1.7e308 (1, 1) overflows to inf."""
    learner = ovk_ref.ONORMA(KERNEL, lam=0.1, eta=1.0)
    with pytest.warns(ovk_ref.DivergenceWarning, match="rkhs_norm2"):
        learner.learn_one(X1[0], np.array([1.7e308, 1.7e308]))
    assert np.all(np.isfinite(learner.last_new_coefficient))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        prediction = learner.predict_one(X1[0])
    assert np.array_equal(prediction, [np.inf, np.inf])


def test_a_singular_batch_system_says_what_to_do():
    """Two equal rows with K ~ 2.8e14 swallow t lam = 0.03 (the case of test_ref_divergence)."""
    X_twice = np.array([[0.0, 0.0], [51.0, 251.0], [51.0, 251.0]])
    kernel = {"type": "polynomial_separable", "degree": 3, "offset": 1.0, "B": [[1.0]]}
    message = ("batch_ridge: the system G + t*lam*I is singular at this precision (t*lam = 0.03 is lost in the "
               "round-off of G's entries); raise lam, scale X, or use precision=50")
    with pytest.raises(ValueError, match="^" + re.escape(message) + "$"):
        ovk_ref.batch_ridge(X_twice, np.ones((3, 1)), kernel, lam=0.01)


def test_a_gram_matrix_that_overflows_says_what_to_do():
    """<x, x> = 2e400 is not a float64: the Gram matrix is not finite, and batch_ridge says so before solving."""
    kernel = ovk_ref.Separable(ovk_ref.Linear(), np.eye(2))
    message = ("batch_ridge: the Gram matrix of the kernel on X is not finite (the kernel overflows on these inputs); "
               "scale X or change the kernel's parameters")
    with pytest.raises(ValueError, match="^" + re.escape(message) + "$"):
        ovk_ref.batch_ridge([[1e200, 1e200], [1.0, 1.0]], np.ones((2, 2)), kernel, lam=0.1)


@pytest.mark.parametrize("run, algorithm", [
    pytest.param(lambda kernel, **options: ovk_ref.onorma(X2, Y2, kernel, **options), "ONORMA", id="onorma"),
    pytest.param(lambda kernel, **options: ovk_ref.monorma(X2, Y2, [kernel], r=2.0, **options), "MONORMA", id="monorma"),
])
def test_a_prediction_past_the_bound_is_named(run, algorithm):
    """K = 4 (d = 1), eta = 1/2, y = 1: round 1 has p_1 = 0, alpha_{1,1} = 1/2 and ||f_1||^2 = 4/4 = 1, all within
    divergence_bound = 1; round 2 predicts f_1(x_2) = 4 * 1/2 = 2 > 1 (delta = 1 for one kernel)."""
    kernel = ovk_ref.Separable(ovk_ref.Constant(4.0), [[1.0]])
    message = f"{algorithm} diverged at round 2: predictions is not finite or exceeds divergence_bound = 1.0"
    with pytest.raises(ovk_ref.DivergenceError, match="^" + re.escape(message)):
        run(kernel, lam=0.1, eta=0.5, divergence_bound=1.0, on_divergence="raise")
