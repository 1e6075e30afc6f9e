"""Truncation schedules ``t -> s_t``: after round t, ``f_t`` keeps the ``s_t`` most recent coefficients (Algorithm 1
step 3, the optional truncation; spec 5.1 step 4, 5.3), and their one portable format.

A truncation is None (no truncation: the kind ``none``) or a schedule of one of ``KINDS``. Each kind is a class that
says, beside its ``s_t``:

* ``kind``: its name, the ``"type"`` of its portable dict (``{"type": "window", "s": 4}``) and its value on the
  conformance scope's truncation axis;
* ``fields``: the portable dict's other fields, each with its JSON Schema (the protocol's schemas are derived from
  these: ``ovk_conform.vocabulary``);
* ``from_fields(fields, rounds)``: the schedule of a dict's fields, checked (ValueError/TypeError naming the field);
  ``rounds``, when known, the stream's number of rounds;
* ``to_dict()``: the portable dict (what a checkpoint, a stored case and the ``ovk-conform-1`` request hold);
* ``sizes(n)``: ``s_1, ..., s_n`` as an int array;
* ``argument()``: what a Python implementation's ``truncation=`` receives for it (an int for a window, else the
  schedule itself, a callable ``t -> s_t``).

A ``RemovalPolicy`` (``smallest``, ``random``, ``projection``) is a budget: ``s_t = budget`` terms kept, which ones
chosen by the policy instead of the window's newest.

``from_dict``/``to_dict`` read and write the format (the learners, ``ovk_ref.checkpoint``, the protocol and
``ovk_conform.limits`` all go through them); an unknown ``"type"`` raises there, naming the known ones. A new kind
(a removal policy, say) is one class here with those members, added to ``KINDS``: the checkpoint, the protocol's
schemas and scope, the time limits and ONORMA then take it.
"""
from __future__ import annotations

import math
from functools import lru_cache
from typing import Callable

import mpmath
import numpy as np

from ovk_ref import tolerances, validation

#: the kind of "no truncation" (a truncation of None)
NONE = "none"


class Schedule:
    """What every kind of schedule offers (module docstring); ``__call__(t)`` is its ``s_t``."""

    kind: str
    #: field name -> JSON Schema of its value, in the portable dict's order
    fields: dict = {}

    def __call__(self, t: int) -> int:
        raise NotImplementedError

    @classmethod
    def from_fields(cls, fields: dict, rounds: int | None = None) -> "Schedule":
        return cls(**fields)

    def params(self) -> dict:
        return {name: getattr(self, name) for name in self.fields}

    def to_dict(self) -> dict:
        return {"type": self.kind, **self.params()}

    def sizes(self, n: int) -> np.ndarray:
        """``s_1, ..., s_n``."""
        return np.array([self(t) for t in range(1, n + 1)], dtype=int)

    def argument(self):
        """What ovk_ref's ``truncation=`` takes for this schedule (the protocol passes it to implementations)."""
        return self

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{name}={value!r}' for name, value in self.params().items())})"


class FixedWindow(Schedule):
    """``s_t = s`` for every t (a window of the s most recent examples)."""

    kind = "window"
    fields = {"s": {"type": "integer", "minimum": 1}}

    def __init__(self, s):
        self.s = validation.integer("truncation", s, minimum=1)

    def __call__(self, t: int) -> int:
        return self.s

    def sizes(self, n: int) -> np.ndarray:
        return np.full(n, self.s, dtype=int)

    def argument(self):
        return self.s

    def __repr__(self) -> str:
        return f"FixedWindow({self.s})"


class Theorem2Schedule(Schedule):
    """``s_t = min(t, t0) + 1[t > t0] floor((t - t0)^(1/2 + epsilon))`` with ``0 < epsilon < 1/2`` (spec 5.3).

    ``epsilon`` is read as the decimal it prints as (``0.1`` is 1/10, not the nearest binary float), and
    the floor is taken at ``SCHEDULE_DIGITS`` digits, so that exact powers land on their integer:
    ``(t - t0) = 32``, ``epsilon = 0.1`` gives ``32^0.6 = 8`` (float64 ``32 ** 0.6`` is 7.999...).
    """

    kind = "theorem2"
    fields = {"t0": {"type": "integer", "minimum": 1}, "epsilon": {"type": "number", "exclusiveMinimum": 0}}

    def __init__(self, t0, epsilon):
        self.t0 = validation.integer("t0", t0, minimum=1)
        epsilon = validation.real_number("epsilon", epsilon)
        if not 0 < epsilon < 0.5:
            raise ValueError(f"epsilon must lie in (0, 1/2) (Theorem 2), got {epsilon!r}")
        self.epsilon = epsilon
        self.epsilon_text = repr(epsilon)   # the decimal epsilon prints as

    def __call__(self, t: int) -> int:
        if t <= self.t0:
            return t
        return self.t0 + floor_power(t - self.t0, self.epsilon_text)

    def __repr__(self) -> str:
        return f"Theorem2Schedule(t0={self.t0}, epsilon={self.epsilon})"


@lru_cache(maxsize=65536)
def floor_power(base: int, epsilon: str) -> int:
    """``floor(base^(1/2 + epsilon))`` for the decimal ``epsilon``, exact except within SCHEDULE_INTEGER_SNAP of an integer:
    read off the float64 power when that is farther than SCHEDULE_FLOAT_GUARD from every integer (the same floor),
    else evaluated at SCHEDULE_DIGITS digits."""
    power = float(base) ** (0.5 + float(epsilon))
    if abs(power - round(power)) > tolerances.SCHEDULE_FLOAT_GUARD * power:
        return math.floor(power)
    with mpmath.workdps(tolerances.SCHEDULE_DIGITS):
        power = mpmath.power(base, mpmath.mpf(1) / 2 + mpmath.mpf(epsilon))
        return int(mpmath.floor(power + tolerances.SCHEDULE_INTEGER_SNAP))


class ListedSchedule(Schedule):
    """``s_t = s[t - 1]`` for the rounds t = 1..n of a stream: any schedule ``t -> s_t >= 1`` (spec 5.1), which
    may shrink by several terms in one round (a window or Theorem 2's drops one at most). Round t keeps the terms
    ``i > max over u <= t of (u - s_u)``: a dropped term never returns. Round n + 1 has no ``s_t`` (ValueError)."""

    kind = "listed"
    fields = {"s": {"type": "array", "minItems": 1, "items": {"type": "integer", "minimum": 1}}}

    def __init__(self, s, rounds: int | None = None):
        if not isinstance(s, (list, tuple)) or not s:
            raise ValueError(f"truncation.s of a listed schedule must be a non-empty list of integers >= 1, got {s!r:.80}")
        for t, value in enumerate(s, start=1):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"truncation.s[{t - 1}] (s_{t}) must be an integer >= 1, got {value!r:.40}")
        if rounds is not None and len(s) != rounds:
            raise ValueError(f"truncation.s must list one s_t per round: {rounds} rounds, got {len(s)} values")
        self.s = tuple(s)

    @classmethod
    def from_fields(cls, fields: dict, rounds: int | None = None) -> "ListedSchedule":
        return cls(fields["s"], rounds)

    def __call__(self, t: int) -> int:
        if not 1 <= t <= len(self.s):
            raise ValueError(f"truncation lists s_t for rounds 1..{len(self.s)}; round {t} has none")
        return self.s[t - 1]

    def params(self) -> dict:
        return {"s": list(self.s)}

    def sizes(self, n: int) -> np.ndarray:
        return np.array(self.s[:n], dtype=int)

    def __repr__(self) -> str:
        return f"ListedSchedule({list(self.s)})"


class RemovalPolicy(Schedule):
    """A budget: after round t, when ``f_t`` holds more than ``budget`` terms, the policy removes one of the older
    terms (never the new one, ``alpha_{t,t}``, as ``s_t >= 1`` never drops it: spec 5.1), the budget literature's way
    instead of the window's oldest. ``s_t = budget`` is the number of terms kept; which terms, the policy says
    (``choose``), so an implementation that reads ``s_t`` as a window is a different algorithm (``ovk_fast`` refuses
    these kinds). Theorem 2' (spec C20) holds for any truncation: its ``Delta_t`` is what the policy removed.

    ``choose(t, alphas)`` is the position (0-based, oldest first, never the last) of the term to remove from the
    terms ``alphas`` after round t's shrink and new coefficient; ``projects``: the removed term is projected onto
    the span of the kept ones (ONORMA adds the projection to the kept coefficients; Delta_t is the residual).
    Every choice is a function of the round and the terms alone (no state beside the learner's), so a checkpoint
    and a resumed run choose the same."""

    fields = {"budget": {"type": "integer", "minimum": 1}}
    projects = False

    def __init__(self, budget):
        self.budget = validation.integer("truncation.budget", budget, minimum=1)

    def __call__(self, t: int) -> int:
        return self.budget

    def choose(self, t: int, alphas) -> int:
        raise NotImplementedError


class SmallestPolicy(RemovalPolicy):
    """Remove the older term whose coefficient has the smallest Euclidean norm (the oldest among equals)."""

    kind = "smallest"

    def choose(self, t: int, alphas) -> int:
        norms2 = [np.dot(alpha, alpha) for alpha in alphas[:-1]]
        return min(range(len(norms2)), key=lambda position: (norms2[position], position))


class RandomPolicy(RemovalPolicy):
    """Remove an older term drawn uniformly, by ``numpy.random.default_rng([seed, t])`` (a function of the seed
    and the round: a resumed run draws the same)."""

    kind = "random"
    fields = {"budget": {"type": "integer", "minimum": 1}, "seed": {"type": "integer", "minimum": 0}}

    def __init__(self, budget, seed):
        super().__init__(budget)
        self.seed = validation.integer("truncation.seed", seed, minimum=0)

    def choose(self, t: int, alphas) -> int:
        return int(np.random.default_rng([self.seed, t]).integers(len(alphas) - 1))


#: a projection budget at most this: each projection solves a symmetric system of (budget - 1) d unknowns by an
#: eigendecomposition, literally, in float64 or mpmath (at 50 digits a system of 64 unknowns takes seconds)
PROJECTION_BUDGET = 64


class ProjectionPolicy(RemovalPolicy):
    """Remove the oldest term and add its projection onto the span of the kept terms to their coefficients (the
    Projectron's idea, Orabona, Keshet and Caputo 2009, applied at removal): ``f_t`` loses only the residual
    ``Delta_t = K(., x_j) a_j - P K(., x_j) a_j``, never more than the window's ``K(., x_j) a_j``."""

    kind = "projection"
    fields = {"budget": {"type": "integer", "minimum": 1, "maximum": PROJECTION_BUDGET}}
    projects = True

    def __init__(self, budget):
        super().__init__(budget)
        if self.budget > PROJECTION_BUDGET:
            raise ValueError(f"truncation.budget of a projection must be at most {PROJECTION_BUDGET} (PROJECTION_BUDGET: "
                             f"each removal solves a system of (budget - 1) d unknowns), got {self.budget}")

    def choose(self, t: int, alphas) -> int:
        return 0


#: the removal policies (budgets)
POLICIES = (SmallestPolicy, RandomPolicy, ProjectionPolicy)
#: kind -> its class, in the order the scope reports and the schemas list them (after ``none``)
KINDS = {cls.kind: cls for cls in (FixedWindow, Theorem2Schedule, ListedSchedule, *POLICIES)}


def kind_names() -> tuple:
    """Every kind's name, ``none`` first: the values of the conformance scope's truncation axis."""
    return (NONE, *KINDS)


def kind_of(spec) -> str:
    """The kind of a portable truncation dict (``none`` for None)."""
    return NONE if spec is None else spec["type"]


def from_dict(spec, rounds: int | None = None, where: str = "truncation") -> Schedule | None:
    """The schedule of a portable dict (None for None); ValueError naming ``where`` and the rule a malformed dict
    breaks (an unknown ``"type"``, a missing or unknown field, a value out of range)."""
    if spec is None:
        return None
    if not isinstance(spec, dict):
        raise ValueError(f"{where} must be None or a dict with a field 'type', got {validation.shown(spec)}")
    kind = spec.get("type")
    if kind not in KINDS:
        raise ValueError(f"unknown truncation type {validation.shown(kind)} in {where}; known types: {', '.join(KINDS)}")
    cls = KINDS[kind]
    fields = {name: value for name, value in spec.items() if name != "type"}
    missing, unknown = set(cls.fields) - set(fields), set(fields) - set(cls.fields)
    if missing or unknown:
        raise ValueError(f"{where} of type {kind!r} must have the fields {sorted(cls.fields)}, got {sorted(fields)}")
    try:
        return cls.from_fields(fields, rounds)
    except TypeError as error:      # a field of the wrong JSON type: a malformed dict
        raise ValueError(str(error)) from None


def to_dict(schedule) -> dict | None:
    """The portable dict of a schedule (None for None); TypeError for a callable that has none."""
    if schedule is None:
        return None
    if not isinstance(schedule, Schedule):
        raise TypeError(f"truncation {schedule!r} has no portable form: only None, an int window and the schedules "
                        f"of ovk_ref.truncation ({', '.join(cls.__name__ for cls in KINDS.values())}) have one")
    return schedule.to_dict()


def theorem2_schedule(t0: int, epsilon: float) -> Theorem2Schedule:
    """The truncation schedule of Theorem 2 (spec 5.3)."""
    return Theorem2Schedule(t0, epsilon)


def as_schedule(truncation) -> Callable[[int], int] | None:
    """None (no truncation), an int window s >= 1, a portable dict, or a callable ``t -> s_t``."""
    if truncation is None or callable(truncation):
        return truncation
    if isinstance(truncation, dict):
        return from_dict(truncation)
    return FixedWindow(truncation)


def window(schedule, t: int) -> int:
    """``s_t`` checked to be an int >= 1 (``s_t = 0`` would drop the new coefficient, spec 5.1)."""
    return validation.integer(f"truncation({t})", schedule(t), minimum=1)
