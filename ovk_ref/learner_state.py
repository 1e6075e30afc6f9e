"""The state of an online learner after round t: frozen, and replaced whole by each round (spec 5.1, 6.1).

``f_t = sum_{i<=t} K(., x_i) alpha_{i,t}`` is stored as its terms: the centres ``x_i`` and the coefficients
``alpha_{i,t}`` of the terms kept (ONORMA's truncation drops the oldest). A round computes the next state from
the current one and the example, without changing the current one, and the learner swaps it in at the end
(``OnlineLearner.learn_one``): an error or an interruption anywhere in a round leaves the learner as it was.
The arrays of a state are read-only, so that nothing outside a round changes a state either.

Each field says what it holds (its ``Form``); that is all ``ovk_ref.checkpoint`` needs to write a state and to
read it back, field by field, for either algorithm.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Form:
    """What a field of a state holds.

    ``kind``: ``"count"`` an int ``>= minimum``; ``"numbers"`` an array of ``shape`` (one number for
    ``shape == ()``); ``"terms"`` a tuple of such arrays, one per stored term; ``"rounds"`` a tuple of
    round numbers ``>= minimum``. ``shape`` names sizes: the learner's (``d``, ``m``) or an earlier
    field's (``p``). ``optional``: None is a value too.
    """

    kind: str
    shape: tuple[str, ...] = ()
    minimum: int = 0
    optional: bool = False


def _field(form: Form, default=dataclasses.MISSING):
    return dataclasses.field(default=default, metadata={"form": form})


def _read_only(value) -> None:
    if isinstance(value, np.ndarray):
        value.setflags(write=False)
    elif isinstance(value, tuple):
        for item in value:
            _read_only(item)


@dataclass(frozen=True, kw_only=True)
class LearnerState:
    """What ONORMA and MONORMA both hold after round t; a fresh learner's is ``f_0 = 0`` (no terms)."""

    #: rounds run
    t: int = _field(Form("count"), 0)
    #: input dimension: the kernel's, the ``p`` argument, or the first example's (None before it, for a kernel
    #: that takes any)
    p: int | None = _field(Form("count", minimum=1, optional=True), None)
    #: first divergent round (``ovk_ref.divergence``), None while every round is finite
    diverged_at: int | None = _field(Form("count", minimum=1, optional=True), None)
    #: ``x_i`` of the stored terms, oldest first
    centres: tuple = _field(Form("terms", ("p",)), ())
    #: their coefficients ``alpha_{i,t}``
    alphas: tuple = _field(Form("terms", ("d",)), ())
    #: ``f_{t-1}(x_t)``, the prediction of round t (None before round 1)
    last_prediction: np.ndarray | None = _field(Form("numbers", ("d",), optional=True), None)
    #: ``alpha_{t,t}``, the coefficient round t added (None before round 1)
    last_new_coefficient: np.ndarray | None = _field(Form("numbers", ("d",), optional=True), None)
    #: kernel evaluations (d x d blocks) of round t (spec 5.4, 6.6)
    last_kernel_evaluations: int = _field(Form("count"), 0)

    def __post_init__(self):
        for field in dataclasses.fields(self):
            _read_only(getattr(self, field.name))

    def check(self) -> None:
        """ValueError naming the fields that do not fit together (a state read from a file)."""
        if not len(self.centres) == len(self.alphas) <= self.t:
            raise ValueError("state.centres and state.alphas must be lists of the same length, at most t")
        for name in ("last_prediction", "last_new_coefficient"):
            if (getattr(self, name) is None) != (self.t == 0):
                raise ValueError(f"state.{name} must be None before round 1 and set after it")


@dataclass(frozen=True, kw_only=True)
class OnormaState(LearnerState):
    """Algorithm 1's state after round t (spec 5.1)."""

    #: round numbers i of the stored terms, increasing (truncation removes the oldest)
    indices: tuple = _field(Form("rounds", minimum=1), ())
    #: ``||f_t||^2``, by the recursion of spec 6.2 with one kernel, and the downdates of 6.5
    norm2: object = _field(Form("numbers"))

    def check(self) -> None:
        super().check()
        if not (len(self.indices) == len(self.alphas) and list(self.indices) == sorted(set(self.indices))
                and (not self.indices or self.indices[-1] == self.t)):
            raise ValueError("state.indices must be the increasing rounds of the stored terms, the last one t")


@dataclass(frozen=True, kw_only=True)
class MonormaState(LearnerState):
    """Algorithm 2's state after round t (spec 6.1): every coefficient is kept (no truncation, spec 6.5)."""

    #: ``delta_t``, the kernels' weights
    weights: np.ndarray = _field(Form("numbers", ("m",)))
    #: ``gamma_t``, ``gamma^j_t = ||g^j_t||^2`` by the recursion of Algorithm 2 step 2.1 (spec 6.2)
    gamma: np.ndarray = _field(Form("numbers", ("m",)))

    def check(self) -> None:
        super().check()
        if len(self.alphas) != self.t:
            raise ValueError("state.alphas must hold t coefficients (MONORMA keeps every one)")
