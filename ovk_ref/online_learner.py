"""What ONORMA and MONORMA share: the river-style ``learn_one`` / ``predict_one``, the step of spec 1, and the
run over a whole stream (``run_stream``).

A round is atomic: every check (x, y, the loss's target rule, the round's truncation window) runs before the
round; the round computes the learner's next state (``ovk_ref.learner_state``) from the current one, which it
does not change; the learner swaps the new state in at the end. An error, or an interruption, at any point
leaves the learner exactly as it was.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from ovk_ref import arithmetic, divergence, validation
from ovk_ref.arithmetic import Arithmetic
from ovk_ref.learner_state import LearnerState
from ovk_ref.losses import as_loss


def state_field(name: str) -> property:
    """``learner.<name>``: the field ``name`` of the learner's current state, read-only (a round replaces the
    state whole, ``ovk_ref.learner_state``)."""
    return property(lambda self: getattr(self.state, name))


class OnlineLearner:
    """Subclasses set ``d`` (and the kernels) before calling ``__init__`` and implement ``_first_state(p)``
    (``f_0 = 0``), ``_predict(x)`` (``f_t(x)``), ``_next_state(x, y, **round)`` (the state after one round),
    ``_squared_norms(state)`` (what the divergence check watches beside the prediction and the new coefficient)
    and ``_row(state)`` (the record's row of a round; ``record_class`` is the record's class).

    ``p`` is the input dimension: the kernel's; for a kernel that takes any, the ``p`` argument, or else the
    first example's (before it, ``predict_one`` accepts any width: ``f_0 = 0`` everywhere).
    """

    #: short name used in messages (``ONORMA``, ``MONORMA``)
    algorithm: str
    #: the class of what ``run_stream`` returns
    record_class: type
    d: int
    #: the state after round t (``ovk_ref.learner_state``); each round replaces it whole
    state: LearnerState

    t = state_field("t")
    p = state_field("p")
    centres = state_field("centres")
    alphas = state_field("alphas")
    last_prediction = state_field("last_prediction")
    last_new_coefficient = state_field("last_new_coefficient")
    last_kernel_evaluations = state_field("last_kernel_evaluations")
    diverged_at = state_field("diverged_at")

    def __init__(self, *, kernel_p, lam, eta, loss, precision, on_divergence, divergence_bound, p):
        if p is not None:
            p = validation.integer("p", p, minimum=1)
            if kernel_p is not None and p != kernel_p:
                raise ValueError(f"p must be the kernel's input dimension {kernel_p}, got {p}")
        self.loss = as_loss(loss)
        self.lam, self.eta = validation.step_parameters(lam, eta)
        self.num = Arithmetic(precision)
        self.on_divergence, self.divergence_bound = divergence.options(on_divergence, divergence_bound)
        with self.num.context():
            self.state = self._first_state(kernel_p if p is None else p)

    def sizes(self) -> dict:
        """The sizes the state's arrays are measured in, beside its own ``p`` (``learner_state.Form``)."""
        return {"d": self.d}

    def predict_one(self, x) -> np.ndarray:
        """``f_t(x)`` for the current t (the prediction for the next example)."""
        x = validation.point("x", x, self)
        with self.num.context(), np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            return self._predict(self.num.array(x))

    def learn_one(self, x, y) -> None:
        """Round t + 1 on the example ``(x, y)``; on any error the learner is left as it was."""
        x = validation.point("x", x, self)
        y = validation.target("y", y, self)
        self.loss.check_targets(y[None, :])
        round_parameters = self._round_parameters(self.t + 1)
        with self.num.context():
            self.state = self._round(self.num.array(x), self.num.array(y), round_parameters)

    def _round_parameters(self, t) -> dict:
        """What round t needs beyond (x, y) that a user setting could make fail (ONORMA: the window s_t)."""
        return {}

    def _round(self, x, y, round_parameters) -> LearnerState:
        """One round on checked inputs: the next state, checked for divergence; the current state is left alone."""
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):   # said once, below, not per operation
            state = self._next_state(x, y, **round_parameters)
        if state.diverged_at is None:
            found = divergence.first_divergent({"predictions": state.last_prediction[None],
                                                "new_coefficients": state.last_new_coefficient[None]},
                                               self._squared_norms(state), self.divergence_bound)
            if found is not None:
                divergence.report(self.algorithm, state.t, found[1], self.divergence_bound, self.on_divergence,
                                  stacklevel=4)
                state = dataclasses.replace(state, diverged_at=state.t)
        return state

    def _row(self, state) -> dict:
        """The fields of the record's row for the round that gave ``state``."""
        return {"predictions": state.last_prediction, "new_coefficients": state.last_new_coefficient,
                "kernel_evaluations": state.last_kernel_evaluations}

    def step_size(self, t):
        """``eta_t = eta / sqrt(t)``, t from 1 (spec 1)."""
        return self.num.scalar(self.eta) / arithmetic.sqrt(self.num.scalar(t))

    def shrink_factor(self, eta_t):
        """``c_t = 1 - eta_t lam`` (spec 1), the factor of "update old coefficients" (Algorithm 1 step 2, Algorithm 2
        step 1.2)."""
        return 1 - eta_t * self.lam

    def new_coefficient(self, eta_t, prediction, y):
        """``alpha_{t,t} = -eta_t u_t``, ``u_t`` the loss (sub)gradient at the prediction (Algorithm 1 step 1,
        Algorithm 2 step 1.1; spec 5.1 step 2, 6.1 step 3)."""
        return self.loss.gradient(prediction, y) * -eta_t

    def coefficients(self) -> np.ndarray:
        """t x d array of ``alpha_{i,t}`` (zero where truncated)."""
        result = self.num.zeros((self.t, self.d))
        for i, alpha in zip(self._indices(), self.alphas):
            result[i - 1] = alpha
        return result

    def _indices(self):
        """Round numbers i (1-based) of the stored terms."""
        return range(1, len(self.alphas) + 1)


def run_stream(learner: OnlineLearner, X, Y):
    """Feed a fresh ``learner`` the whole stream ``(X[t], Y[t])``, recording every round (spec 5, 6); every input,
    and every round's parameters (ONORMA's windows ``s_t``), checked before any work."""
    return _run(learner, X, Y, every_prefix=False)[-1]


def run_prefixes(learner: OnlineLearner, X, Y) -> list:
    """What ``run_stream`` returns on each prefix ``(X[:t], Y[:t])``, t = 1..n, from one pass of a fresh ``learner``:
    round t depends on the examples up to t alone (an online algorithm, spec 5, 6), so the record of the prefix of
    length t is the first t rows and the coefficients of the state after round t, the same numbers, bit for bit, as a
    run of its own (for checks that need every iterate ``f_t``: n runs cost n^3 / 3 kernel evaluations, this n^2 / 2)."""
    return _run(learner, X, Y, every_prefix=True)


def _run(learner: OnlineLearner, X, Y, *, every_prefix: bool) -> list:
    """The records of ``run_stream`` on the whole stream (``every_prefix`` False) or on each prefix."""
    X, Y = validation.stream(X, Y, learner)
    learner.loss.check_targets(Y)
    num = learner.num
    round_parameters = [learner._round_parameters(t) for t in range(1, len(Y) + 1)]
    rows, ends = [], []   # ends: the coefficients and diverged_at after each round a record is made for
    with num.context():
        for x, y, parameters in zip(X, Y, round_parameters):
            learner.state = learner._round(num.array(x), num.array(y), parameters)
            rows.append(learner._row(learner.state))
            if every_prefix:
                ends.append((len(rows), learner.coefficients(), learner.diverged_at))
    if not every_prefix:
        ends.append((len(rows), learner.coefficients(), learner.diverged_at))
    return [learner.record_class(**{name: np.array([row[name] for row in rows[:t]]) for name in rows[0]},
                                 coefficients=coefficients, diverged_at=diverged_at) for t, coefficients, diverged_at in ends]
