"""Checkpoint and resume: a learner saved after round k and loaded back makes exactly the
predictions, and ends in exactly the state, of the learner that was never interrupted, in float64 and at 50
digits; a corrupt, foreign or other-version file is a ValueError before anything is built."""
import json
import os

import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from shared.streams import linear_related_tasks  # any width: not the paper's data
from test_ref_atomic_rounds import STATE, same_value

import ovk_ref
from ovk_ref import checkpoint

X, Y = linear_related_tasks(14, p=3, d=2, seed=3)
ONORMA_CASES = {
    "gaussian-untruncated": dict(kernel=ovk_ref.gaussian_separable(1.0, 2), lam=0.1, eta=0.5),
    "feature-norm-window": dict(kernel=ovk_ref.random_feature(p=3, d=2, q=4, seed=2), lam=0.2, eta=0.5, loss="norm",
                                truncation=4),
    "sum-huber-theorem2": dict(kernel={"type": "sum", "terms": [
        {"weight": 0.5, "kernel": ovk_ref.gaussian_separable(0.5, 2).to_dict()},
        {"weight": 2.0, "kernel": {"type": "linear_quadratic", "mu": 0.3, "d": 2}}]},
        lam=0.05, eta=1.0, loss={"type": "huber", "delta": 0.5}, truncation=ovk_ref.theorem2_schedule(2, 0.3)),
}


def learners(algorithm, case, precision):
    if algorithm == "onorma":
        return lambda: ovk_ref.ONORMA(**ONORMA_CASES[case], precision=precision)
    kernels = [ovk_ref.gaussian_separable(mu, 2) for mu in (0.3, 1.0, 3.0)]
    return lambda: ovk_ref.MONORMA(kernels, lam=0.1, eta=0.5, r=1.5, loss="squared", precision=precision)


CASES = [("onorma", case) for case in ONORMA_CASES] + [("monorma", "three-gaussians")]


def assert_same_learner(resumed, uninterrupted):
    for name in STATE:
        if hasattr(uninterrupted, name):
            assert same_value(getattr(resumed, name), getattr(uninterrupted, name)), f"{name} differs"


def run_with_resume(make, stop, path, n=None):
    """Rounds 1..stop, save, load, rounds stop+1..n, recording predictions; and the same uninterrupted."""
    n = len(X) if n is None else n
    uninterrupted, learner = make(), make()
    expected, observed = [], []
    for t in range(n):
        if t == stop:
            ovk_ref.save_learner(learner, path)
            learner = ovk_ref.load_learner(path)
        observed.append(learner.predict_one(X[t]))
        expected.append(uninterrupted.predict_one(X[t]))
        learner.learn_one(X[t], Y[t])
        uninterrupted.learn_one(X[t], Y[t])
    return learner, uninterrupted, observed, expected


@pytest.mark.parametrize("precision", [None, 50], ids=["float64", "50-digits"])
@pytest.mark.parametrize("algorithm, case", CASES, ids=[f"{a}-{c}" for a, c in CASES])
def test_resumed_learner_is_the_uninterrupted_one_bit_for_bit(algorithm, case, precision, tmp_path):
    n = len(X) if precision is None else 8   # 50-digit rounds are slow
    resumed, uninterrupted, observed, expected = run_with_resume(learners(algorithm, case, precision), n // 2,
                                                                 tmp_path / "learner.json", n)
    for a, b in zip(observed, expected):
        assert same_value(a, b)   # exact: == on float64 numbers, == on mpf numbers
    assert_same_learner(resumed, uninterrupted)
    if precision is not None:
        assert isinstance(resumed.norm2 if algorithm == "onorma" else resumed.gamma[0], mpmath.mpf)


@given(stop=st.integers(0, len(X)), case=st.sampled_from(CASES))
def test_resume_after_any_round(stop, case, tmp_path_factory):
    path = tmp_path_factory.mktemp("checkpoint") / "learner.json"
    resumed, uninterrupted, observed, expected = run_with_resume(learners(*case, None), stop, path)
    assert all(np.array_equal(a, b) for a, b in zip(observed, expected))
    assert_same_learner(resumed, uninterrupted)


@given(st.lists(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300), min_size=1,
                max_size=5), st.integers(-300, 300))
def test_numbers_come_back_exactly_at_50_digits(values, exponent):
    """The decimal strings keep every bit of a 50-digit number (ceil(prec log10 2) + 1 digits)."""
    with mpmath.workdps(50):
        numbers = np.array([mpmath.mpf(v) / 3 * mpmath.mpf(10) ** exponent for v in values], dtype=object)
        text = checkpoint._encode(numbers, 50)
        back = checkpoint._decode(text, numbers.shape, 50, "test")
        assert all(a == b for a, b in zip(back, numbers))


def test_a_diverged_learner_round_trips(tmp_path):
    """inf and NaN survive (float.hex('inf') is 'inf'), and so does diverged_at."""
    learner = ovk_ref.ONORMA(ovk_ref.gaussian_separable(10.0, 2), lam=0.01, eta=90.0)
    Xd, Yd = linear_related_tasks(200, p=2, d=2, seed=0)
    with pytest.warns(ovk_ref.DivergenceWarning):
        for x, y in zip(Xd, Yd):
            learner.learn_one(x, y)
    ovk_ref.save_learner(learner, tmp_path / "diverged.json")
    resumed = ovk_ref.load_learner(tmp_path / "diverged.json")
    assert resumed.diverged_at == learner.diverged_at is not None
    assert_same_learner(resumed, learner)


def saved_text(tmp_path):
    learner = ovk_ref.ONORMA(ovk_ref.gaussian_separable(1.0, 2), lam=0.1, eta=0.5)
    for x, y in zip(X[:3], Y[:3]):
        learner.learn_one(x, y)
    ovk_ref.save_learner(learner, tmp_path / "learner.json")
    return (tmp_path / "learner.json").read_text()


def rewritten(text, change):
    content = json.loads(text)
    change(content)
    return json.dumps(content)


def with_digest(change):
    """A change made by someone who also recomputes the digest: the field checks must catch it."""
    def apply(content):
        change(content)
        body = {key: value for key, value in content.items() if key != "sha256"}
        content["sha256"] = checkpoint._digest(body)
    return apply


BAD_FILES = {
    "empty": (lambda text: "", "not JSON"),
    "truncated": (lambda text: text[: len(text) // 2], "not JSON"),
    "a JSON list": (lambda text: "[1, 2]", "not an ovk learner checkpoint"),
    "a conformance vector file": (lambda text: json.dumps({"format": "ovk-vectors-1", "cases": []}),
                                  "not an ovk learner checkpoint"),
    "version 2": (lambda text: rewritten(text, lambda c: c.update(version=2)), "version 2"),
    "one digit changed": (lambda text: text.replace('"0x1.', '"0x1.1', 1), "sha256"),
    "digest removed": (lambda text: rewritten(text, lambda c: c.pop("sha256")), "sha256"),
    "unknown algorithm": (lambda text: rewritten(text, with_digest(lambda c: c.update(algorithm="NORMA"))),
                          "algorithm"),
    "a centre of the wrong length": (lambda text: rewritten(text, with_digest(
        lambda c: c["state"]["centres"][0].append("0x0p+0"))), "state.centres"),
    "a number that is not one": (lambda text: rewritten(text, with_digest(
        lambda c: c["state"]["alphas"][0].__setitem__(0, "zero"))), "state.alphas"),
    "lam negative": (lambda text: rewritten(text, with_digest(
        lambda c: c["parameters"].update(lam=(-0.1).hex()))), "lam"),
    "t smaller than the stored terms": (lambda text: rewritten(text, with_digest(lambda c: c["state"].update(t=1))),
                                        "state"),
}


@pytest.mark.parametrize("name", BAD_FILES)
def test_corrupt_or_foreign_files_are_a_clear_value_error(name, tmp_path):
    change, message = BAD_FILES[name]
    (tmp_path / "bad.json").write_text(change(saved_text(tmp_path)))
    with pytest.raises(ValueError, match=message):
        ovk_ref.load_learner(tmp_path / "bad.json")


def test_binary_file_is_a_value_error(tmp_path):
    (tmp_path / "bad.json").write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ValueError, match="not UTF-8"):
        ovk_ref.load_learner(tmp_path / "bad.json")


def test_what_has_no_portable_form_is_refused_at_save(tmp_path):
    with pytest.raises(TypeError, match="truncation"):
        ovk_ref.save_learner(ovk_ref.ONORMA(ovk_ref.gaussian_separable(1.0, 2), lam=0.1, eta=0.5,
                                            truncation=lambda t: 3), tmp_path / "x.json")
    with pytest.raises(TypeError, match="learner"):
        ovk_ref.save_learner("not a learner", tmp_path / "x.json")
    assert not list(tmp_path.iterdir())


def test_an_interrupted_save_keeps_the_previous_checkpoint(tmp_path, monkeypatch):
    text = saved_text(tmp_path)
    learner = ovk_ref.load_learner(tmp_path / "learner.json")
    learner.learn_one(X[3], Y[3])

    def interrupted(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        ovk_ref.save_learner(learner, tmp_path / "learner.json")
    assert (tmp_path / "learner.json").read_text() == text
    assert [path.name for path in tmp_path.iterdir()] == ["learner.json"]   # no temporary file left


def _fifteen_digits(value, precision):
    return format(float(value), ".15e") if precision is None else mpmath.nstr(value, 15)


def _fifty_digits(value, precision):
    return float(value).hex() if precision is None else mpmath.libmp.to_str(mpmath.mpf(value)._mpf_, 50)


def _read_decimal(text, precision, where):
    if precision is not None:
        return mpmath.mpf(text)
    return float.fromhex(text) if "0x" in text else float(text)   # the parameters stay in float.hex


@pytest.mark.parametrize("precision, writer", [(None, _fifteen_digits), (50, _fifty_digits)],
                         ids=["float64 as 15 digits", "50-digit values as 50 digits"])
def test_planted_lossy_number_format_is_caught(precision, writer, tmp_path, monkeypatch):
    """Planted faults: numbers written with too few digits; the resumed run then differs in the last bits."""
    monkeypatch.setattr(checkpoint, "_number_to_text", writer)
    monkeypatch.setattr(checkpoint, "_text_to_number", _read_decimal)
    with pytest.raises(AssertionError):
        test_resumed_learner_is_the_uninterrupted_one_bit_for_bit("monorma", "three-gaussians", precision, tmp_path)
