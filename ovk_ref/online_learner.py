"""What ONORMA and MONORMA share: the river-style ``learn_one`` / ``predict_one`` and the step of spec 1."""
from __future__ import annotations

import numpy as np

from ovk_ref import arithmetic, validation
from ovk_ref.arithmetic import Arithmetic
from ovk_ref.losses import as_loss


class OnlineLearner:
    """Subclasses set ``d`` and ``p`` and implement ``_predict(x)`` (``f_t(x)``) and ``_round(x, y)`` (one round)."""

    d: int
    p: int | None

    def __init__(self, *, lam, eta, loss, precision):
        self.loss = as_loss(loss)
        self.lam, self.eta = validation.step_parameters(lam, eta)
        self.num = Arithmetic(precision)
        self.t = 0
        self.centres = []        # x_i of the stored terms
        self.alphas = []         # their coefficients alpha_{i,t}
        self.last_prediction = None
        self.last_new_coefficient = None
        self.last_kernel_evaluations = 0

    def predict_one(self, x) -> np.ndarray:
        """``f_t(x)`` for the current t (the prediction for the next example)."""
        x = validation.point("x", x, self)
        with self.num.context():
            return self._predict(self.num.array(x))

    def learn_one(self, x, y) -> None:
        """Round t + 1 on the example ``(x, y)``."""
        x = validation.point("x", x, self)
        y = validation.target("y", y, self)
        self.loss.check_targets(y[None, :])
        with self.num.context():
            self._round(self.num.array(x), self.num.array(y))

    def step_size(self, t):
        """``eta_t = eta / sqrt(t)``, t from 1 (spec 1)."""
        return self.num.scalar(self.eta) / arithmetic.sqrt(self.num.scalar(t))

    def shrink_factor(self, eta_t):
        """``c_t = 1 - eta_t lam`` (spec 1)."""
        return 1 - eta_t * self.lam

    def new_coefficient(self, eta_t, prediction, y):
        """``alpha_{t,t} = -eta_t u_t``, ``u_t`` the loss (sub)gradient at the prediction (spec 5.1 step 2, 6.1 step 3)."""
        return -eta_t * self.loss.gradient(prediction, y)

    def coefficients(self) -> np.ndarray:
        """t x d array of ``alpha_{i,t}`` (zero where truncated)."""
        result = self.num.zeros((self.t, self.d))
        for i, alpha in zip(self._indices(), self.alphas):
            result[i - 1] = alpha
        return result

    def _indices(self):
        """Round numbers i (1-based) of the stored terms."""
        return range(1, len(self.alphas) + 1)
