"""The learner's state is one frozen value (ovk_ref.learner_state): nothing changes it but a whole round, the
checkpoint writes and reads it field by field for either algorithm, and files of format version 1 written before
the state was typed (tests/ref/data, written by ovk_ref at commit 56031cc, on another CPU) still load, save back byte
for byte and resume as the same learner recomputed here, within ``ovk_ref.tolerances.ACROSS_MACHINES`` (the machine
that wrote them summed in another order); bit for bit on one machine is tests/ref/test_ref_checkpoint.py's."""
import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
import test_ref_checkpoint
from shared.closeness import assert_close
from shared.streams import linear_related_tasks
from test_ref_atomic_rounds import STATE, same_value

import ovk_ref
from ovk_ref import checkpoint, tolerances
from ovk_ref.learner_state import LearnerState, MonormaState, OnormaState

DATA = Path(__file__).parent / "data"
X, Y = linear_related_tasks(14, p=3, d=2, seed=3)
KERNEL = ovk_ref.gaussian_separable(1.0, 2)


def onorma_after(rounds, **options):
    learner = ovk_ref.ONORMA(KERNEL, lam=0.1, eta=0.5, **options)
    for t in range(rounds):
        learner.learn_one(X[t], Y[t])
    return learner


def monorma_after(rounds, **options):
    learner = ovk_ref.MONORMA([KERNEL, ovk_ref.gaussian_separable(0.3, 2)], lam=0.1, eta=0.5, r=1.5, **options)
    for t in range(rounds):
        learner.learn_one(X[t], Y[t])
    return learner


@pytest.mark.parametrize("make", [onorma_after, monorma_after], ids=["onorma", "monorma"])
def test_nothing_but_a_round_changes_the_state(make):
    learner = make(3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        learner.state.t = 0
    with pytest.raises(AttributeError):
        learner.t = 0                       # the attributes read the state; they cannot be set
    with pytest.raises(ValueError, match="read-only"):
        learner.alphas[0][0] = 0.0          # nor can its arrays be changed in place
    with pytest.raises(ValueError, match="read-only"):
        learner.last_prediction[0] = 0.0
    assert isinstance(learner.alphas, tuple) and isinstance(learner.centres, tuple)
    before = learner.state
    learner.learn_one(X[3], Y[3])
    assert learner.state is not before and before.t == 3 and learner.t == 4   # the old state is intact


def test_the_weights_and_gamma_of_monorma_are_read_only():
    learner = monorma_after(2)
    for array in (learner.weights, learner.gamma):
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 1.0


def test_a_misspelt_state_field_is_an_error_not_a_new_attribute():
    with pytest.raises(TypeError, match="nrom2"):
        OnormaState(t=1, nrom2=0.0)


def test_every_state_field_reads_as_an_attribute_of_the_learner():
    """What the rest of the project reads on a learner (ovk_fast, proofs_check, tests, notebooks) stays readable."""
    for learner, state_class in ((onorma_after(2), OnormaState), (monorma_after(2), MonormaState)):
        names = [field.name for field in dataclasses.fields(state_class)]
        assert set(names) <= set(STATE)
        for name in names:
            assert same_value(getattr(learner, name), getattr(learner.state, name)), name


# --- format version 1 ------------------------------------------------------------------------------------------

def continue_both(resumed, uninterrupted, start, stop, same=same_value):
    """Both learners predict and learn rounds ``start..stop - 1`` and end in the same state (``same``)."""
    for t in range(start, stop):
        assert same(resumed.predict_one(X[t]), uninterrupted.predict_one(X[t])), f"the predictions of round {t + 1} differ"
        resumed.learn_one(X[t], Y[t])
        uninterrupted.learn_one(X[t], Y[t])
    for name in STATE:
        if hasattr(uninterrupted, name):
            assert same(getattr(resumed, name), getattr(uninterrupted, name)), f"{name} differs"


def close_across_machines(a, b) -> bool:
    """``same_value`` for what any CPU computes alike (integers, None), numbers (float64 or mpmath) within
    ``ACROSS_MACHINES``: the two sides were computed on different CPUs (a 30-digit run too: its kernel values start
    from float64 ones, measured 3e-17 apart under OpenBLAS's SandyBridge and SkylakeX kernels)."""
    if isinstance(a, list):
        return len(a) == len(b) and all(close_across_machines(u, v) for u, v in zip(a, b))
    if a is None or b is None or np.asarray(a).dtype.kind not in "fO" or np.asarray(b).dtype.kind not in "fO":
        return same_value(a, b)
    a, b = (np.asarray(side, dtype=float) for side in (a, b))
    assert_close(np.atleast_1d(a), np.atleast_1d(b), tolerances.ACROSS_MACHINES, what="a float64 value stored on another CPU")
    return True


V1_FILES = {
    "checkpoint-v1-onorma-theorem2-round7.json": (7, lambda: ovk_ref.ONORMA(
        {"type": "sum", "terms": [{"weight": 0.5, "kernel": ovk_ref.gaussian_separable(0.5, 2).to_dict()},
                                  {"weight": 2.0, "kernel": {"type": "linear_quadratic", "mu": 0.3, "d": 2}}]},
        lam=0.05, eta=1.0, loss={"type": "huber", "delta": 0.5}, truncation=ovk_ref.theorem2_schedule(2, 0.3))),
    "checkpoint-v1-monorma-30-digits-round4.json": (4, lambda: ovk_ref.MONORMA(
        [ovk_ref.gaussian_separable(mu, 2) for mu in (0.3, 3.0)], lam=0.1, eta=0.5, r=1.5, precision=30)),
}


@pytest.mark.parametrize("name", V1_FILES)
def test_a_version_1_file_written_before_the_typed_state_resumes_as_recomputed_here(name, tmp_path):
    rounds, make = V1_FILES[name]
    resumed, uninterrupted = ovk_ref.load_learner(DATA / name), make()
    for t in range(rounds):
        uninterrupted.learn_one(X[t], Y[t])
    ovk_ref.save_learner(resumed, tmp_path / name)
    assert (tmp_path / name).read_text() == (DATA / name).read_text()   # written back byte for byte
    continue_both(resumed, uninterrupted, rounds, rounds + 4, same=close_across_machines)


# --- a state that does not fit together is refused, naming the field -------------------------------------------

def saved(learner) -> dict:
    return json.loads(checkpoint.learner_to_json(learner))


def loaded(content: dict):
    body = {key: value for key, value in content.items() if key != "sha256"}
    return checkpoint.learner_from_json(json.dumps({**body, "sha256": checkpoint._digest(body)}))


def changed(content: dict, **state) -> dict:
    return {**content, "state": {**content["state"], **state}}


def without(content: dict, name: str) -> dict:
    return {**content, "state": {key: value for key, value in content["state"].items() if key != name}}


ONORMA_WINDOW = saved(onorma_after(5, truncation=3))      # indices 3, 4, 5
MONORMA_3 = saved(monorma_after(3))
FRESH = saved(ovk_ref.ONORMA(KERNEL, lam=0.1, eta=0.5))

#: the whole rules, word-bounded: a state's check names the field and its rule in full
INDICES_RULE = r"\bstate\.indices must be the increasing rounds of the stored terms, the last one t\b"
TERMS_RULE = r"\bstate\.centres and state\.alphas must be lists of the same length, at most t\b"
MONORMA_TERMS_RULE = r"\bstate\.alphas must hold t coefficients \(MONORMA keeps every one\)"

BAD_STATES = {
    "indices not increasing": (changed(ONORMA_WINDOW, indices=[4, 3, 5]), INDICES_RULE),
    "indices repeated": (changed(ONORMA_WINDOW, indices=[3, 5, 5]), INDICES_RULE),
    "last index not t": (changed(ONORMA_WINDOW, indices=[2, 3, 4]), INDICES_RULE),
    "one index too few": (changed(ONORMA_WINDOW, indices=[4, 5]), INDICES_RULE),
    "index 0": (changed(ONORMA_WINDOW, indices=[0, 4, 5]), "state.indices must be >= 1"),
    "index a float": (changed(ONORMA_WINDOW, indices=[3.0, 4, 5]), "state.indices must be an int"),
    "index a bool": (changed(ONORMA_WINDOW, indices=[True, 4, 5]), "state.indices must be an int"),
    "indices not a list": (changed(ONORMA_WINDOW, indices="345"), "state.indices must be a list"),
    "indices missing": (without(ONORMA_WINDOW, "indices"), "state.indices must be a list"),
    "norm2 missing": (without(ONORMA_WINDOW, "norm2"), "state.norm2 must be a number written as a string"),
    "norm2 an array": (changed(ONORMA_WINDOW, norm2=["0x0p+0"]), r"state.norm2 must have shape \(\)"),
    "more terms than rounds": (changed(ONORMA_WINDOW, t=2), TERMS_RULE),
    "a centre too many": (changed(ONORMA_WINDOW, centres=ONORMA_WINDOW["state"]["centres"] * 2),
                          TERMS_RULE),
    "centres not a list": (changed(ONORMA_WINDOW, centres={}), "state.centres must be a list"),
    "a coefficient of the wrong length": (changed(MONORMA_3, alphas=[a + ["0x0p+0"] for a in MONORMA_3["state"]["alphas"]]),
                                          r"state.alphas\[0\] must have shape \(2,\)"),
    "monorma without every coefficient": (
        changed(MONORMA_3, t=4, last_prediction=MONORMA_3["state"]["last_prediction"]),
        MONORMA_TERMS_RULE),
    "a weight too many": (changed(MONORMA_3, weights=MONORMA_3["state"]["weights"] * 2),
                          r"state.weights must have shape \(2,\)"),
    "gamma of the wrong size": (changed(MONORMA_3, gamma=MONORMA_3["state"]["gamma"][:1]),
                                r"state.gamma must have shape \(2,\)"),
    "no prediction after round 1": (changed(MONORMA_3, last_prediction=None),
                                    "state.last_prediction must be None before round 1 and set after it"),
    "no new coefficient after round 1": (changed(ONORMA_WINDOW, last_new_coefficient=None),
                                         "state.last_new_coefficient must be None before round 1"),
    "a prediction before round 1": (changed(FRESH, last_prediction=["0x0p+0", "0x0p+0"]),
                                    "state.last_prediction must be None before round 1"),
    "t negative": (changed(FRESH, t=-1), "state.t must be >= 0"),
    "t missing": (without(FRESH, "t"), "state.t must be an int"),
    "evaluations negative": (changed(ONORMA_WINDOW, last_kernel_evaluations=-1),
                             "state.last_kernel_evaluations must be >= 0"),
    "diverged at round 0": (changed(ONORMA_WINDOW, diverged_at=0), "state.diverged_at must be >= 1"),
    "p 0": (changed(FRESH, p=0), "state.p must be >= 1"),
    "terms without p": (changed(ONORMA_WINDOW, p=None), "state.p must be set once state.centres holds values"),
    "a centre of another width": (changed(ONORMA_WINDOW, p=2), r"state.centres\[0\] must have shape \(2,\)"),
    "state not a dict": ({**FRESH, "state": []}, "state must be a dict"),
}


@pytest.mark.parametrize("name", BAD_STATES)
def test_a_state_that_does_not_fit_together_is_refused_naming_the_field(name):
    content, message = BAD_STATES[name]
    with pytest.raises(ValueError, match=message):
        loaded(content)


def test_p_must_be_the_kernels_input_dimension():
    learner = ovk_ref.ONORMA(ovk_ref.random_feature(p=3, d=2, q=4, seed=2), lam=0.1, eta=0.5)
    with pytest.raises(ValueError, match="state.p must be the kernel's input dimension 3, got 2"):
        loaded(changed(saved(learner), p=2))
    with pytest.raises(ValueError, match="state.p must be the kernel's input dimension 3, got None"):
        loaded(changed(saved(learner), p=None))


def test_the_unchanged_files_load():
    """The bad states above are each one change away from these."""
    for content in (ONORMA_WINDOW, MONORMA_3, FRESH):
        assert loaded(content).t == content["state"]["t"]


def test_planted_fault_a_restore_that_does_not_check_the_fields_together_is_caught(monkeypatch):
    monkeypatch.setattr(LearnerState, "check", lambda self: None)
    monkeypatch.setattr(OnormaState, "check", lambda self: None)
    with pytest.raises(pytest.fail.Exception):
        test_a_state_that_does_not_fit_together_is_refused_naming_the_field("indices not increasing")
    with pytest.raises(pytest.fail.Exception):
        test_a_state_that_does_not_fit_together_is_refused_naming_the_field("more terms than rounds")


def test_planted_fault_a_field_read_back_wrong_is_caught(monkeypatch, tmp_path):
    """A restore that reads every gamma^j as 0 (the fresh learner's gamma_0): the resumed run differs."""
    decode = checkpoint._decode_field

    def gamma_forgotten(value, form, sizes, precision, where):
        return decode(["0x0p+0"] * len(value) if where == "state.gamma" else value, form, sizes, precision, where)

    monkeypatch.setattr(checkpoint, "_decode_field", gamma_forgotten)
    with pytest.raises(AssertionError):   # the predictions after the resume differ
        test_ref_checkpoint.test_resumed_learner_is_the_uninterrupted_one_bit_for_bit("monorma", "three-gaussians", None,
                                                                                      tmp_path)


def test_run_stream_checks_the_stream_against_the_learners_p():
    """The ``p`` argument of a learner whose kernel takes any width holds for a run over a stream too."""
    learner = ovk_ref.ONORMA(KERNEL, lam=0.1, eta=0.5, p=2)
    with pytest.raises(ValueError, match="X must have the kernel's input dimension p = 2 columns, got 3"):
        ovk_ref.run_onorma(learner, X, Y)
    assert learner.t == 0
