"""What ONORMA and MONORMA share: the river-style ``learn_one`` / ``predict_one`` and the step of spec 1.

A round is atomic (issue 13, item 1): every check (x, y, the loss's target rule, the round's truncation
window) runs before the round; the round computes the learner's next state without touching the current
one (``_next_state``); the state is replaced in one step at the end. An error, or an interruption, at any
point leaves the learner exactly as it was.
"""
from __future__ import annotations

import numpy as np

from ovk_ref import arithmetic, divergence, validation
from ovk_ref.arithmetic import Arithmetic
from ovk_ref.losses import as_loss


class OnlineLearner:
    """Subclasses set ``d`` and ``p`` and implement ``_predict(x)`` (``f_t(x)``), ``_next_state(x, y, **round)``
    (the state after one round, a dict of attributes) and ``_divergence_fields(state)``.

    ``p`` is the input dimension: the kernel's; for a kernel that takes any, the ``p`` argument, or else the
    first example's (before it, ``predict_one`` accepts any width: ``f_0 = 0`` everywhere).
    """

    #: short name used in messages (``ONORMA``, ``MONORMA``)
    algorithm: str
    d: int
    p: int | None

    def __init__(self, *, lam, eta, loss, precision, on_divergence="warn", divergence_bound=None, p=None):
        if p is not None:
            p = validation.integer("p", p, minimum=1)
            if self.p is not None and p != self.p:
                raise ValueError(f"p must be the kernel's input dimension {self.p}, got {p}")
            self.p = p
        self.loss = as_loss(loss)
        self.lam, self.eta = validation.step_parameters(lam, eta)
        self.num = Arithmetic(precision)
        self.on_divergence, self.divergence_bound = divergence.options(on_divergence, divergence_bound)
        self.t = 0
        self.centres = []        # x_i of the stored terms
        self.alphas = []         # their coefficients alpha_{i,t}
        self.last_prediction = None
        self.last_new_coefficient = None
        self.last_kernel_evaluations = 0
        self.diverged_at = None  # first divergent round (ovk_ref.divergence), None while every round is finite

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
            self._learn(self.num.array(x), self.num.array(y), round_parameters)

    def _round_parameters(self, t) -> dict:
        """What round t needs beyond (x, y) that a user setting could make fail (ONORMA: the window s_t)."""
        return {}

    def _learn(self, x, y, round_parameters) -> None:
        """One round on checked inputs: compute the next state, check it for divergence, then replace the state."""
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):   # said once, below, not per operation
            state = self._next_state(x, y, **round_parameters)
        state["t"] = self.t + 1
        if self.p is None:
            state["p"] = len(x)
        if self.diverged_at is None:
            found = divergence.first_divergent(*self._divergence_fields(state), self.divergence_bound)
            if found is not None:
                divergence.report(self.algorithm, state["t"], found[1], self.divergence_bound, self.on_divergence,
                                  stacklevel=4)
                state["diverged_at"] = state["t"]
        self.__dict__.update(state)

    def step_size(self, t):
        """``eta_t = eta / sqrt(t)``, t from 1 (spec 1)."""
        return self.num.scalar(self.eta) / arithmetic.sqrt(self.num.scalar(t))

    def shrink_factor(self, eta_t):
        """``c_t = 1 - eta_t lam`` (spec 1)."""
        return 1 - eta_t * self.lam

    def new_coefficient(self, eta_t, prediction, y):
        """``alpha_{t,t} = -eta_t u_t``, ``u_t`` the loss (sub)gradient at the prediction (spec 5.1 step 2, 6.1 step 3)."""
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
