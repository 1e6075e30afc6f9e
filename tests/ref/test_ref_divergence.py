"""Divergence, said once and the same way.

Both engines find the first round whose prediction, new coefficient or norm is not finite (or, with
``divergence_bound``, passes the bound), record it as ``diverged_at``, warn once naming it (``on_divergence="warn"``)
or stop there (``"raise"``), and agree in every per-round field before it. Batch ridge refuses a
non-finite Gram matrix in both engines.
"""
import re
import warnings

import numpy as np
import pytest
from shared.streams import linear_related_tasks  # any width: not the paper's data

import ovk_fast
import ovk_fast.divergence_watch
import ovk_ref
from ovk_ref import divergence, tolerances

ENGINES = [ovk_ref, ovk_fast]
#: the issue's case: Gaussian kernel, eta = 90, lam = 0.01 (eta_1 kappa^2 = 90 >> 2: the norm explodes)
GAUSSIAN = dict(kernel=ovk_ref.gaussian_separable(10.0, 2), lam=0.01, eta=90.0)
X, Y = linear_related_tasks(200, p=2, d=2, seed=0)
#: the paper's non-separable synthetic setting (spec E30(a)): finite but huge (1.7e27 by round 40), so only a bound stops it
PAPER_X, PAPER_Y = ovk_ref.synthetic(40, p=20, d=4, seed=0)
PAPER = dict(kernel=ovk_ref.LinearQuadratic(0.2, 4), lam=0.01, eta=1.0)
MONORMA = dict(kernels=[ovk_ref.gaussian_separable(mu, 2) for mu in (1.0, 10.0)], lam=0.01, eta=90.0, r=2.0)
ROUND_FIELDS = {"onorma": ("predictions", "new_coefficients", "rkhs_norm2", "kernel_evaluations", "support_sizes"),
                "monorma": ("predictions", "new_coefficients", "gamma", "weights", "kernel_evaluations")}


def run_recording_warnings(engine, algorithm, X, Y, options):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        record = getattr(engine, algorithm)(X, Y, **options)
    return record, [w for w in caught if issubclass(w.category, ovk_ref.DivergenceWarning)], caught


def assert_agree_before(reference, fast, fields, rounds):
    """Every per-round field equal within IDENTITY_RTOL of its scale over the first ``rounds`` rounds."""
    for name in fields:
        expected, actual = np.asarray(getattr(reference, name))[:rounds], np.asarray(getattr(fast, name))[:rounds]
        if expected.dtype.kind == "i":
            assert np.array_equal(actual, expected), name
            continue
        scale = np.max(np.abs(expected))
        assert np.max(np.abs(actual - expected)) <= tolerances.IDENTITY_RTOL * scale, name


@pytest.mark.parametrize("algorithm, X, Y, options", [
    ("onorma", X, Y, GAUSSIAN),
    ("onorma", X, Y, {**GAUSSIAN, "truncation": 30}),
    ("monorma", X, Y, MONORMA),
    ("onorma", PAPER_X, PAPER_Y, {**PAPER, "divergence_bound": 1e6}),
], ids=["gaussian-eta90", "gaussian-eta90-window30", "monorma-eta90", "paper-setting-bound"])
def test_both_engines_say_the_same_round_once_and_agree_before_it(algorithm, X, Y, options):
    reference, reference_warnings, _ = run_recording_warnings(ovk_ref, algorithm, X, Y, options)
    fast, fast_warnings, _ = run_recording_warnings(ovk_fast, algorithm, X, Y, options)
    k = reference.diverged_at
    assert k is not None and fast.diverged_at == k
    for said in (reference_warnings, fast_warnings):
        assert len(said) == 1 and f"diverged at round {k}:" in str(said[0].message)
    assert str(reference_warnings[0].message) == str(fast_warnings[0].message)
    assert_agree_before(reference, fast, ROUND_FIELDS[algorithm], k - 1)


def test_the_issue_case_diverges_where_the_norm_stops_being_finite():
    """Round k is the first whose ||f_k||^2 is not finite; every earlier row of every field is finite."""
    record, _, caught = run_recording_warnings(ovk_ref, "onorma", X, Y, GAUSSIAN)
    k = record.diverged_at
    assert not np.isfinite(record.rkhs_norm2[k - 1])
    for name in ("predictions", "new_coefficients", "rkhs_norm2"):
        assert np.all(np.isfinite(getattr(record, name)[: k - 1])), name
    assert [w.category for w in caught] == [ovk_ref.DivergenceWarning]   # no numpy RuntimeWarnings besides


def test_the_papers_setting_is_finite_without_a_bound():
    """Huge is finite: without divergence_bound nothing is said (and the default stays backward compatible)."""
    for engine in ENGINES:
        record, said, caught = run_recording_warnings(engine, "onorma", PAPER_X, PAPER_Y, PAPER)
        assert record.diverged_at is None and not caught
        assert "diverged_at" not in record.to_dict()
        assert np.max(np.abs(record.predictions)) > 1e20   # 1.7e27 by round 40


@pytest.mark.parametrize("engine", ENGINES, ids=["ovk_ref", "ovk_fast"])
def test_raise_stops_at_the_round(engine):
    with pytest.raises(ovk_ref.DivergenceError, match="round") as raised:
        engine.onorma(X, Y, **GAUSSIAN, on_divergence="raise")
    reference, _, _ = run_recording_warnings(ovk_ref, "onorma", X, Y, GAUSSIAN)
    assert raised.value.round == reference.diverged_at


def test_a_learner_that_raises_keeps_its_last_finite_state():
    learner = ovk_ref.ONORMA(**GAUSSIAN, on_divergence="raise")
    for t, (x, y) in enumerate(zip(X, Y), start=1):
        try:
            learner.learn_one(x, y)
        except ovk_ref.DivergenceError as error:
            assert error.round == t and learner.t == t - 1 and np.isfinite(learner.norm2)
            break
    else:
        pytest.fail("never diverged")


def test_a_learner_warns_once_and_records_the_round():
    learner = ovk_ref.ONORMA(**GAUSSIAN)
    with pytest.warns(ovk_ref.DivergenceWarning) as said:
        for x, y in zip(X, Y):
            learner.learn_one(x, y)
    assert len([w for w in said if w.category is ovk_ref.DivergenceWarning]) == 1
    record, _, _ = run_recording_warnings(ovk_ref, "onorma", X, Y, GAUSSIAN)
    assert learner.diverged_at == record.diverged_at is not None
    assert f"round {learner.diverged_at}:" in str(said[0].message)


@pytest.mark.parametrize("bad, message", [(dict(on_divergence="ignore"), "on_divergence"),
                                          (dict(on_divergence=None), "on_divergence"),
                                          (dict(divergence_bound=0.0), "divergence_bound"),
                                          (dict(divergence_bound="big"), "divergence_bound")])
@pytest.mark.parametrize("engine", ENGINES, ids=["ovk_ref", "ovk_fast"])
def test_bad_divergence_options_are_refused(engine, bad, message):
    with pytest.raises((ValueError, TypeError), match=message):
        engine.onorma(X[:3], Y[:3], **GAUSSIAN, **bad)


OVERFLOWING = [
    ("linear separable", ovk_ref.Separable(ovk_ref.Linear(), np.eye(2))),
    ("non-separable", ovk_ref.LinearQuadratic(0.5, 2)),
    ("non-separable mu=1", ovk_ref.LinearQuadratic(1.0, 2)),
    ("sum", {"type": "sum", "terms": [{"weight": 1.0, "kernel": {"type": "polynomial_separable", "degree": 3,
                                                                  "B": [[1.0, 0.0], [0.0, 1.0]]}}]}),
]


@pytest.mark.parametrize("name, kernel", OVERFLOWING, ids=[name for name, _ in OVERFLOWING])
@pytest.mark.parametrize("engine", ENGINES, ids=["ovk_ref", "ovk_fast"])
def test_batch_ridge_refuses_a_gram_matrix_that_overflows(engine, name, kernel):
    """The issue: ovk_ref returned NaN and ovk_fast all-zero coefficients."""
    X_big = np.array([[1e160, 0.0], [0.0, 1e160], [1.0, 1.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # and no numpy RuntimeWarning on the way
        with pytest.raises(ValueError, match=re.escape("Gram matrix of the kernel on X is not finite")):
            engine.batch_ridge(X_big, np.ones((3, 2)), kernel, lam=0.1)


def test_first_divergent_takes_the_earliest_round_over_all_fields():
    fields = {"predictions": np.array([[0.0], [1.0], [np.nan]]), "new_coefficients": np.array([[0.0], [np.inf], [0.0]])}
    assert divergence.first_divergent(fields, {}, None) == (1, "new_coefficients")
    assert divergence.first_divergent(fields, {"norm": np.array([0.0, 4.0, 9.0])}, 1.5) == (1, "new_coefficients")
    assert divergence.first_divergent({}, {"norm": np.array([0.0, 4.0, 9.0])}, 1.5) == (1, "norm")   # 4 > 1.5^2
    assert divergence.first_divergent({"p": np.array([[3.0]])}, {}, 2.0) == (0, "p")
    assert divergence.first_divergent({"p": np.array([[2.0]])}, {}, 2.0) is None


@pytest.mark.parametrize("shift", [-1, 1])
def test_planted_off_by_one_round_in_the_fast_engine_is_caught(shift, monkeypatch):
    """Planted fault: ovk_fast reports the round one off; the agreement test fails."""
    original = ovk_fast.divergence_watch.DivergenceWatch.rounds

    def shifted(self, start, stop, fields, squared_norms):
        original(self, start, stop, fields, squared_norms)
        if self.diverged_at is not None and not getattr(self, "shifted", False):
            self.diverged_at += shift
            self.shifted = True

    monkeypatch.setattr(ovk_fast.divergence_watch.DivergenceWatch, "rounds", shifted)
    with pytest.raises(AssertionError):
        test_both_engines_say_the_same_round_once_and_agree_before_it("onorma", X, Y, GAUSSIAN)


def test_batch_ridge_on_a_numerically_singular_system_is_a_value_error():
    """Found by the API fuzz test: two equal rows with K ~ 2.8e14 swallow t lam = 0.03, so LU meets an exact zero
    pivot; that is a ValueError naming the cause, not numpy's LinAlgError."""
    X_twice = np.array([[0.0, 0.0], [51.0, 251.0], [51.0, 251.0]])
    kernel = {"type": "polynomial_separable", "degree": 3, "offset": 1.0, "B": [[1.0]]}
    with pytest.raises(ValueError, match="singular at this precision") as raised:
        ovk_ref.batch_ridge(X_twice, np.ones((3, 1)), kernel, lam=0.01)
    assert type(raised.value) is ValueError
