"""The one truncation format (``ovk_ref.truncation``): every kind round-trips through its portable dict; a learner
with any kind of schedule, a listed one included, is checkpointed and resumed bit for bit at any round (a Hypothesis
stateful test), and planted faults in the format are caught; a malformed or unknown dict is refused naming the
field; a kind added in one place is taken by the checkpoint, the protocol and the time limits."""
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)
from test_ref_atomic_rounds import STATE, same_value

import ovk_ref
from ovk_conform import limits, protocol
from ovk_ref import truncation
from ovk_ref.truncation import (
    FixedWindow,
    ListedSchedule,
    ProjectionPolicy,
    RandomPolicy,
    SmallestPolicy,
    Theorem2Schedule,
)

ROUNDS = 12
P, D = 2, 2
KERNEL = ovk_ref.gaussian_separable(0.7, D)

#: a schedule of each kind over ROUNDS rounds (listed: a window that may shrink by several terms in one round)
SCHEDULES = {
    "window": st.integers(1, ROUNDS).map(FixedWindow),
    "theorem2": st.builds(Theorem2Schedule, st.integers(1, 4), st.sampled_from([0.1, 0.25, 0.4])),
    "listed": st.lists(st.integers(1, ROUNDS), min_size=ROUNDS, max_size=ROUNDS).map(ListedSchedule),
    "smallest": st.integers(1, ROUNDS).map(SmallestPolicy),
    "random": st.builds(RandomPolicy, st.integers(1, ROUNDS), st.integers(0, 2**31)),
    "projection": st.integers(1, ROUNDS).map(ProjectionPolicy),
}
schedules = st.one_of(*SCHEDULES.values())


def test_every_kind_has_a_strategy_here():
    assert set(SCHEDULES) == set(truncation.KINDS)


class CheckpointMachine(RuleBasedStateMachine):
    """Two learners on one stream: one never interrupted, one saved and loaded back whenever the rule fires; they
    must agree bit for bit on every prediction and every field of the state."""

    def __init__(self):
        super().__init__()
        self.directory = None

    @initialize(schedule=schedules, seed=st.integers(0, 2**16))
    def start(self, schedule, seed):
        rng = np.random.default_rng(seed)
        self.X, self.Y = rng.uniform(size=(ROUNDS, P)), rng.standard_normal((ROUNDS, D))
        self.t = 0
        make = lambda: ovk_ref.ONORMA(KERNEL, lam=0.2, eta=0.8, truncation=schedule)   # noqa: E731
        self.uninterrupted, self.resumed = make(), make()

    @precondition(lambda self: self.t < ROUNDS)
    @rule()
    def learn(self):
        x, y = self.X[self.t], self.Y[self.t]
        assert same_value(self.resumed.predict_one(x), self.uninterrupted.predict_one(x))
        self.resumed.learn_one(x, y)
        self.uninterrupted.learn_one(x, y)
        self.t += 1

    @rule()
    def checkpoint_and_resume(self):
        text = ovk_ref.checkpoint.learner_to_json(self.resumed)
        self.resumed = ovk_ref.checkpoint.learner_from_json(json.loads(json.dumps(text)))

    @invariant()
    def same_learner(self):
        if not hasattr(self, "uninterrupted"):
            return
        for name in STATE:
            if hasattr(self.uninterrupted, name):
                assert same_value(getattr(self.resumed, name), getattr(self.uninterrupted, name)), f"{name} differs"
        assert truncation.to_dict(self.resumed.schedule) == truncation.to_dict(self.uninterrupted.schedule)


SEARCH = settings(max_examples=60, stateful_step_count=2 * ROUNDS + 4, derandomize=True, database=None, deadline=None,
                  suppress_health_check=[HealthCheck.too_slow])
TestCheckpointMachine = CheckpointMachine.TestCase
TestCheckpointMachine.settings = SEARCH


def _listed_shifted(original):
    def params(self):   # s_t stored one round late: the resumed learner truncates a round late
        return {"s": [self.s[0], *self.s[:-1]]}
    return params


def _window_widened(original):
    def to_dict(self):
        return {"type": "window", "s": self.s + 1}
    return to_dict


def _theorem2_t0_counted_from_zero(original):
    def params(self):
        return {"t0": self.t0 + 1, "epsilon": self.epsilon}
    return params


def _random_seed_not_saved(original):
    def params(self):   # the checkpoint writes the default seed: the resumed learner draws other terms
        return {"budget": self.budget, "seed": 0 if self.seed else 1}
    return params


def _projection_saved_as_smallest(original):
    def to_dict(self):
        return {"type": "smallest", "budget": self.budget}
    return to_dict


@pytest.mark.parametrize(("owner", "name", "make"), [
    (ListedSchedule, "params", _listed_shifted),
    (FixedWindow, "to_dict", _window_widened),
    (Theorem2Schedule, "params", _theorem2_t0_counted_from_zero),
    (RandomPolicy, "params", _random_seed_not_saved),
    (ProjectionPolicy, "to_dict", _projection_saved_as_smallest),
], ids=["listed-shifted", "window-widened", "theorem2-t0-from-zero", "random-seed-not-saved", "projection-as-smallest"])
def test_planted_fault_in_the_format_is_caught_by_the_checkpoint_machine(monkeypatch, owner, name, make):
    monkeypatch.setattr(owner, name, make(getattr(owner, name)))
    with pytest.raises(AssertionError):   # the first failing run is enough: no shrinking
        run_state_machine_as_test(CheckpointMachine, settings=settings(SEARCH, phases=[Phase.generate]))


@settings(max_examples=200, deadline=None)
@given(schedules)
def test_every_kind_round_trips_through_its_portable_dict(schedule):
    spec = truncation.to_dict(schedule)
    assert spec["type"] == schedule.kind and json.loads(json.dumps(spec)) == spec
    back = truncation.from_dict(json.loads(json.dumps(spec)), ROUNDS)
    assert type(back) is type(schedule) and truncation.to_dict(back) == spec
    assert back.sizes(ROUNDS).tolist() == [schedule(t) for t in range(1, ROUNDS + 1)]


def test_a_listed_schedule_has_no_s_t_past_its_last_round():
    learner = ovk_ref.ONORMA(KERNEL, lam=0.2, eta=0.8, truncation=ListedSchedule([1, 2]))
    for x, y in zip(np.ones((2, P)), np.ones((2, D))):
        learner.learn_one(x, y)
    before = ovk_ref.checkpoint.learner_to_json(learner)
    with pytest.raises(ValueError, match="rounds 1..2; round 3 has none"):
        learner.learn_one(np.ones(P), np.ones(D))
    assert ovk_ref.checkpoint.learner_to_json(learner) == before     # refused before any work


@pytest.mark.parametrize(("spec", "message"), [
    ({"type": "sliding", "s": 3}, r"unknown truncation type 'sliding' in truncation; known types: window, theorem2, listed, smallest, random, projection"),
    ({"type": "window"}, r"truncation of type 'window' must have the fields \['s'\], got \[\]"),
    ({"type": "window", "s": 3, "t0": 1}, r"must have the fields \['s'\], got \['s', 't0'\]"),
    ({"type": "window", "s": "3"}, "truncation must be an int"),
    ({"type": "window", "s": 0}, "truncation must be >= 1"),
    ({"type": "theorem2", "t0": 1, "epsilon": 0.5}, r"epsilon must lie in \(0, 1/2\)"),
    ({"type": "listed", "s": [1, 0]}, r"truncation.s\[1\] \(s_2\) must be an integer >= 1"),
    ([3], "truncation must be None or a dict"),
])
def test_a_malformed_or_unknown_dict_is_refused_naming_the_field(spec, message):
    with pytest.raises(ValueError, match=message):
        truncation.from_dict(spec)


def test_a_callable_without_portable_form_is_refused_naming_the_kinds():
    with pytest.raises(TypeError, match="FixedWindow, Theorem2Schedule, ListedSchedule"):
        truncation.to_dict(lambda t: 3)


class EveryOther(truncation.Schedule):
    """A kind added for this test only: ``s_t = 1`` at odd rounds, ``s`` at even ones."""

    kind = "every_other"
    fields = {"s": {"type": "integer", "minimum": 1}}

    def __init__(self, s):
        self.s = s

    def __call__(self, t):
        return 1 if t % 2 else self.s


def test_a_kind_added_in_one_place_is_taken_everywhere(monkeypatch, tmp_path):
    """ovk_ref.truncation.KINDS is the only list: a kind added there is saved and resumed by the checkpoint, passed
    by the protocol and counted by the time limits, with nothing else changed."""
    monkeypatch.setitem(truncation.KINDS, EveryOther.kind, EveryOther)
    spec = {"type": "every_other", "s": 3}
    learner = ovk_ref.ONORMA(KERNEL, lam=0.2, eta=0.8, truncation=spec)
    X, Y = np.random.default_rng(0).uniform(size=(6, P)), np.ones((6, D))
    for x, y in zip(X[:3], Y[:3]):
        learner.learn_one(x, y)
    ovk_ref.save_learner(learner, tmp_path / "learner.json")
    resumed = ovk_ref.load_learner(tmp_path / "learner.json")
    for x, y in zip(X[3:], Y[3:]):
        assert same_value(resumed.predict_one(x), learner.predict_one(x))
        resumed.learn_one(x, y)
        learner.learn_one(x, y)
    assert isinstance(protocol.call_arguments({"truncation": spec}, 6)["truncation"], EveryOther)
    assert limits._windows(spec, 6).tolist() == [0, 1, 2, 1, 3, 1]     # at most t - 1 and s_{t-1}
    assert "every_other" in truncation.kind_names()
