"""Algorithm 1, ONORMA, line by line (spec 5.1).

Round t, with ``eta_t = eta / sqrt(t)`` and ``c_t = 1 - eta_t lam``:
  1. predict ``p_t = f_{t-1}(x_t) = sum_{i<t} K(x_t, x_i) alpha_{i,t-1}``;
  2. new coefficient ``alpha_{t,t} = -eta_t u_t``, ``u_t`` the (sub)gradient of the loss at ``p_t``;
  3. shrink ``alpha_{i,t} = c_t alpha_{i,t-1}`` for ``i < t``;
  4. truncate: keep only the ``s_t`` most recent coefficients.
"""
from __future__ import annotations

import numpy as np

from ovk_ref import truncation as truncation_schedules
from ovk_ref import validation
from ovk_ref.kernels import as_kernel
from ovk_ref.online_learner import OnlineLearner
from ovk_ref.records import OnormaRecord


class ONORMA(OnlineLearner):
    """Online learner: ``learn_one(x, y)`` runs one round, ``predict_one(x)`` evaluates ``f_t(x)``.

    ``truncation`` is None, an int window ``s >= 1``, or a callable ``t -> s_t``
    (``ovk_ref.theorem2_schedule`` builds the schedule of Theorem 2). ``precision`` is None for
    float64 or a number of decimal digits for mpmath. ``on_divergence`` ("warn" or "raise") and
    ``divergence_bound`` say what a divergent round does (``ovk_ref.divergence``). ``p`` fixes the input
    dimension from the start for a kernel that takes any (otherwise the first example fixes it).
    """

    algorithm = "ONORMA"

    def __init__(self, kernel, *, lam, eta, loss="squared", truncation=None, precision=None, on_divergence="warn",
                 divergence_bound=None, p=None):
        self.kernel = as_kernel(kernel)
        self.d, self.p = self.kernel.d, self.kernel.p
        super().__init__(lam=lam, eta=eta, loss=loss, precision=precision, on_divergence=on_divergence,
                         divergence_bound=divergence_bound, p=p)
        self.schedule = truncation_schedules.as_schedule(truncation)
        self.indices = []        # round numbers i of the stored terms (truncation removes the oldest)
        self.norm2 = self.num.scalar(0)   # ||f_t||^2, by the recursion of spec 6.2 (+ downdates, 6.5)

    def _evaluate(self, x, centres=None, alphas=None):
        """``f(x) = sum_i K(x, x_i) alpha_i`` over the stored terms (or the given ones); returns (value, evaluations)."""
        centres = self.centres if centres is None else centres
        alphas = self.alphas if alphas is None else alphas
        value = self.num.zeros(self.d)
        for centre, alpha in zip(centres, alphas):
            value = value + self.kernel(x, centre) @ alpha
        return value, len(centres)

    def _predict(self, x):
        return self._evaluate(x)[0]

    def _indices(self):
        return self.indices

    def _round_parameters(self, t) -> dict:
        return {"s_t": None if self.schedule is None else truncation_schedules.window(self.schedule, t)}

    def _divergence_fields(self, state):
        return ({"predictions": state["last_prediction"][None], "new_coefficients": state["last_new_coefficient"][None]},
                {"rkhs_norm2": [state["norm2"]]})

    def _next_state(self, x, y, s_t) -> dict:
        """Round t = self.t + 1 (steps 1-4 of the module docstring), as the learner's next state."""
        t = self.t + 1
        eta_t = self.step_size(t)
        c_t = self.shrink_factor(eta_t)
        # 1. predict with f_{t-1}
        prediction, evaluations = self._evaluate(x)
        # 2. new coefficient
        new = self.new_coefficient(eta_t, prediction, y)
        # ||f_t||^2 before truncation: c_t^2 ||f_{t-1}||^2 + 2 c_t <f_{t-1}(x_t), new> + <K(x_t,x_t) new, new>
        norm2 = c_t**2 * self.norm2 + 2 * c_t * np.dot(prediction, new) + np.dot(self.kernel(x, x) @ new, new)
        # 3. shrink the old coefficients
        alphas = [alpha * c_t for alpha in self.alphas] + [new]
        centres = self.centres + [x]
        indices = self.indices + [t]
        # 4. truncate: keep the s_t most recent terms (indices i > t - s_t)
        while s_t is not None and indices[0] <= t - s_t:
            norm2 = self._drop_oldest(norm2, centres, alphas)
            del centres[0], indices[0], alphas[0]
        return {"centres": centres, "indices": indices, "alphas": alphas, "norm2": norm2, "last_prediction": prediction,
                "last_new_coefficient": new, "last_kernel_evaluations": evaluations}

    def _drop_oldest(self, norm2, centres, alphas):
        """``||h||^2`` after removing the oldest term ``K(., x_i) a_i`` of ``h`` (spec 6.5):
        ``||h - K(.,x_i) a_i||^2 = ||h||^2 - 2 <h(x_i), a_i> + <K(x_i,x_i) a_i, a_i>``."""
        centre, alpha = centres[0], alphas[0]
        value_at_centre, _ = self._evaluate(centre, centres, alphas)
        return norm2 - 2 * np.dot(value_at_centre, alpha) + np.dot(self.kernel(centre, centre) @ alpha, alpha)


def onorma(X, Y, kernel, *, lam, eta, loss="squared", truncation=None, precision=None, on_divergence="warn",
           divergence_bound=None) -> OnormaRecord:
    """Run Algorithm 1 over the stream ``(X[t], Y[t])`` (spec 5); see ``ONORMA`` for the parameters."""
    return run_stream(ONORMA(kernel, lam=lam, eta=eta, loss=loss, truncation=truncation, precision=precision,
                             on_divergence=on_divergence, divergence_bound=divergence_bound), X, Y)


def run_stream(learner: ONORMA, X, Y) -> OnormaRecord:
    """Feed a fresh ``learner`` the whole stream, recording every round; inputs are checked first."""
    X, Y = validation.stream(X, Y, learner.kernel)
    learner.loss.check_targets(Y)
    n, d = Y.shape
    round_parameters = [learner._round_parameters(t) for t in range(1, n + 1)]   # every s_t checked before any work
    num = learner.num
    predictions, new_coefficients = num.zeros((n, d)), num.zeros((n, d))
    norms, evaluations, support = num.zeros(n), np.zeros(n, dtype=int), np.zeros(n, dtype=int)
    with num.context():
        for t in range(n):
            learner._learn(num.array(X[t]), num.array(Y[t]), round_parameters[t])
            predictions[t] = learner.last_prediction
            new_coefficients[t] = learner.last_new_coefficient
            norms[t] = learner.norm2
            evaluations[t] = learner.last_kernel_evaluations
            support[t] = len(learner.alphas)
    return OnormaRecord(predictions=predictions, coefficients=learner.coefficients(), new_coefficients=new_coefficients,
                        rkhs_norm2=norms, kernel_evaluations=evaluations, support_sizes=support,
                        diverged_at=learner.diverged_at)
