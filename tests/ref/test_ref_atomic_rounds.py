"""Atomic rounds: a learn_one or predict_one that fails leaves the learner exactly as it was.

A Hypothesis state machine interleaves good and bad calls on one learner and feeds only the good ones to a
clean twin; after every step the two have the same state, bit for bit, and answer the same predictions.
Bad calls: x of the wrong width (against the kernel's p, or the first example's for a kernel of any
width), x or y not finite, complex or text, y of the wrong width, a target the loss refuses (hinge: not
one-hot), and (ONORMA) a truncation window that returns 0 or raises at that round.
"""
import dataclasses

import numpy as np
import pytest
from hypothesis import Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

import ovk_ref

D = 2
#: state attributes of a learner, compared after every step (the rest are its fixed parameters)
STATE = ("t", "p", "centres", "alphas", "indices", "norm2", "weights", "gamma", "last_prediction",
         "last_new_coefficient", "last_kernel_evaluations", "diverged_at")
values = st.floats(-2.0, 2.0, allow_nan=False)


class WindowFailure(Exception):
    """What the sabotaged truncation window raises."""


class SabotagedWindow:
    """``s_t = 3``, except while ``mode`` is set: then 0 (a ValueError in ovk_ref) or an exception."""

    def __init__(self):
        self.mode = None

    def __call__(self, t):
        if self.mode == "raise":
            raise WindowFailure(f"no window at round {t}")
        return 0 if self.mode == "zero" else 3


def same_value(a, b) -> bool:
    if isinstance(a, list):
        return len(a) == len(b) and all(same_value(u, v) for u, v in zip(a, b))
    if a is None or b is None:
        return a is b
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype == object or b.dtype == object:   # mpf numbers (never NaN here)
        return np.array_equal(a, b)
    return np.array_equal(a, b, equal_nan=True)   # bit for bit, NaN included (a diverged learner)


def assert_same_state(learner, clean):
    for name in STATE:
        if hasattr(clean, name):
            assert same_value(getattr(learner, name), getattr(clean, name)), f"{name} differs from the clean learner"


class AtomicRounds(RuleBasedStateMachine):
    #: the learner classes under test (a planted fault below swaps one)
    onorma_class, monorma_class = ovk_ref.ONORMA, ovk_ref.MONORMA

    @initialize(algorithm=st.sampled_from(["onorma", "monorma"]), fixed_width=st.booleans(),
                loss=st.sampled_from(["squared", "hinge", "huber"]), width=st.integers(1, 3))
    def build(self, algorithm, fixed_width, loss, width):
        if fixed_width:   # the feature kernel has an input dimension p; the Gaussian takes any (p = None)
            kernel = ovk_ref.random_feature(p=width, d=D, q=3, seed=1)
        else:
            kernel = ovk_ref.gaussian_separable(1.0, D)
        self.width, self.loss = width, loss
        kernels = [kernel, ovk_ref.gaussian_separable(0.3, D)]
        if algorithm == "onorma":
            def make(cls, window):
                return cls(kernel, lam=0.1, eta=0.5, loss=loss, truncation=window)
            classes = (self.onorma_class, ovk_ref.ONORMA)
        else:
            def make(cls, window):
                return cls(kernels, lam=0.1, eta=0.5, r=2.0, loss=loss)
            classes = (self.monorma_class, ovk_ref.MONORMA)
        self.window = SabotagedWindow()
        self.learner, self.clean = make(classes[0], self.window), make(classes[1], SabotagedWindow())

    def good_target(self, data):
        if self.loss == "hinge":
            return np.eye(D)[data.draw(st.integers(0, D - 1))]
        return np.array(data.draw(st.lists(values, min_size=D, max_size=D)))

    def width_known(self) -> bool:
        return self.learner.p is not None

    @rule(data=st.data())
    def learn_good(self, data):
        x = np.array(data.draw(st.lists(values, min_size=self.width, max_size=self.width)))
        y = self.good_target(data)
        self.learner.learn_one(x, y)
        self.clean.learn_one(x, y)

    @rule(data=st.data())
    def predict_good(self, data):
        x = np.array(data.draw(st.lists(values, min_size=self.width, max_size=self.width)))
        assert np.array_equal(self.learner.predict_one(x), self.clean.predict_one(x))

    @precondition(width_known)
    @rule(data=st.data(), call=st.sampled_from(["learn", "predict"]))
    def wrong_width(self, data, call):
        width = data.draw(st.integers(0, 5).filter(lambda n: n != self.width))
        x = np.zeros(width)
        with pytest.raises(ValueError, match=r"\bx\b.*input dimension"):
            if call == "learn":
                self.learner.learn_one(x, self.good_target(data))
            else:
                self.learner.predict_one(x)

    @rule(data=st.data(), bad=st.sampled_from([np.nan, np.inf, 1j, "0.5"]), call=st.sampled_from(["learn", "predict"]))
    def x_not_a_finite_real(self, data, bad, call):
        x = np.zeros(self.width, dtype=object)
        x[0] = bad
        with pytest.raises((ValueError, TypeError), match=r"^x "):
            if call == "learn":
                self.learner.learn_one(x, self.good_target(data))
            else:
                self.learner.predict_one(x)

    @rule(data=st.data(), kind=st.sampled_from(["nan", "complex", "text", "width"]))
    def bad_y(self, data, kind):
        y = self.good_target(data).astype(object)
        if kind == "width":
            y = np.append(y, 0.0)
        else:
            y[0] = {"nan": np.nan, "complex": 1 + 1j, "text": "1"}[kind]
        with pytest.raises((ValueError, TypeError), match=r"^y "):
            self.learner.learn_one(np.zeros(self.width), y)

    @precondition(lambda self: self.loss == "hinge")
    @rule()
    def target_not_one_hot(self):
        with pytest.raises(ValueError, match="one-hot"):
            self.learner.learn_one(np.zeros(self.width), np.full(D, 0.5))

    @precondition(lambda self: isinstance(self.learner, ovk_ref.ONORMA))
    @rule(data=st.data(), mode=st.sampled_from(["zero", "raise"]))
    def failing_window(self, data, mode):
        self.window.mode = mode
        try:
            with pytest.raises(ValueError if mode == "zero" else WindowFailure):
                self.learner.learn_one(np.zeros(self.width), self.good_target(data))
        finally:
            self.window.mode = None

    @invariant()
    def same_as_the_clean_learner(self):
        if hasattr(self, "learner"):
            assert_same_state(self.learner, self.clean)


TestAtomicRounds = AtomicRounds.TestCase


class _TouchesStateFirst(ovk_ref.MONORMA):
    """Planted fault: the issue's bug, state changed before the checks (here the evaluation count)."""

    def learn_one(self, x, y):
        self.state = dataclasses.replace(self.state, last_kernel_evaluations=-1)
        super().learn_one(x, y)


def test_the_state_machine_catches_a_learner_that_changes_state_before_its_checks():
    class Faulty(AtomicRounds):
        monorma_class = _TouchesStateFirst

    with pytest.raises(AssertionError, match="last_kernel_evaluations differs"):
        run_state_machine_as_test(Faulty, settings=settings(max_examples=200, database=None, derandomize=True,
                                                                    phases=[Phase.generate]))   # no shrinking needed


def test_predict_one_refuses_a_wrong_width_before_and_after_the_first_example():
    """With a kernel of any input width, the first example fixes p; with a kernel's p, from the start."""
    fixed = ovk_ref.ONORMA(ovk_ref.random_feature(p=2, d=D, q=3, seed=0), lam=0.1, eta=0.5)
    with pytest.raises(ValueError, match="input dimension p = 2"):
        fixed.predict_one(np.zeros(3))
    any_width = ovk_ref.ONORMA(ovk_ref.gaussian_separable(1.0, D), lam=0.1, eta=0.5)
    any_width.learn_one(np.zeros(2), np.ones(D))
    for learner in (fixed, any_width):
        with pytest.raises(ValueError, match="input dimension p = 2"):
            learner.predict_one(np.zeros(3))


@pytest.mark.parametrize("make", [
    lambda: ovk_ref.ONORMA(ovk_ref.gaussian_separable(1.0, D), lam=0.1, eta=0.5, p=2),
    lambda: ovk_ref.MONORMA([ovk_ref.gaussian_separable(1.0, D)] * 2, lam=0.1, eta=0.5, r=2.0, p=2),
], ids=["onorma", "monorma"])
def test_p_fixes_the_width_before_the_first_example_for_a_kernel_of_any_width(make):
    learner = make()
    with pytest.raises(ValueError, match="input dimension p = 2"):
        learner.predict_one(np.zeros(3))
    with pytest.raises(ValueError, match="input dimension p = 2"):
        learner.learn_one(np.zeros(1), np.ones(D))
    assert learner.t == 0


@pytest.mark.parametrize("p, error", [(0, ValueError), (2.0, TypeError), (3, ValueError)])
def test_p_must_be_a_positive_int_agreeing_with_the_kernel(p, error):
    with pytest.raises(error, match=r"^p must"):
        ovk_ref.ONORMA(ovk_ref.random_feature(p=2, d=D, q=3, seed=0), lam=0.1, eta=0.5, p=p)


def test_the_issue_case_wrong_width_no_longer_advances_t():
    """The issue's report: learn_one with an x of the wrong length raised a broadcast error after t += 1."""
    learner = ovk_ref.ONORMA(ovk_ref.gaussian_separable(1.0, D), lam=0.1, eta=0.5)
    learner.learn_one(np.array([0.1, 0.2]), np.ones(D))
    with pytest.raises(ValueError, match="input dimension"):
        learner.learn_one(np.array([0.1, 0.2, 0.3]), np.ones(D))
    assert learner.t == 1 and len(learner.alphas) == 1


def test_an_interrupted_round_leaves_the_learner_as_it_was():
    """A KeyboardInterrupt in the middle of a round (here: in the kernel, after the prediction) changes nothing."""
    calls = {"n": 0}

    class Interrupting(ovk_ref.OperatorKernel):
        d, p = D, None

        def __call__(self, x, z):
            calls["n"] += 1
            if calls["n"] == 3:
                raise KeyboardInterrupt
            return ovk_ref.gaussian_separable(1.0, D)(x, z)

        def to_dict(self):
            return {}

    learner = ovk_ref.ONORMA(Interrupting(), lam=0.1, eta=0.5)
    clean = ovk_ref.ONORMA(ovk_ref.gaussian_separable(1.0, D), lam=0.1, eta=0.5)
    for learner_ in (learner, clean):
        learner_.learn_one(np.array([0.1]), np.ones(D))   # 1 kernel evaluation (K(x1, x1))
    with pytest.raises(KeyboardInterrupt):
        learner.learn_one(np.array([0.3]), np.zeros(D))   # K(x2, x1) for the prediction, then interrupted at K(x2, x2)
    assert_same_state(learner, clean)
