"""Algorithm 1 of the paper, ONORMA, step by step as the paper's box numbers its steps (spec 5.1).

Round t, on the example ``(x_t, y_t)``, with ``eta_t = eta / sqrt(t)`` and ``c_t = 1 - eta_t lam``:
  1. New coefficient: ``alpha_{t,t} = -eta_t u_t``, ``u_t`` the (sub)gradient of the loss at
     ``z = f_{t-1}(x_t) = sum_{i<t} K(x_t, x_i) alpha_{i,t-1}`` (the online prediction, which is scored);
  2. Update old coefficients: ``alpha_{i,t} = c_t alpha_{i,t-1}`` for ``1 <= i <= t-1``;
  3. (Optional) truncation: ``alpha_{i,t} = 0`` for ``i <= t - s_t``: the ``s_t`` most recent terms are kept; or a
     removal policy (``truncation.RemovalPolicy``) removes older terms of its choice down to its budget;
  4. Obtain ``f_t = sum_{i<=t} K(., x_i) alpha_{i,t}``: the stored terms, which ``predict_one`` evaluates.
Beside the box: ``||f_t||^2`` by the recursion of spec 6.2 with one kernel, and a downdate per dropped term (6.5).

The spec numbers the same round in five steps: its 1 (predict ``p_t = f_{t-1}(x_t)``) and 2 (new coefficient)
are the paper's step 1; its 3 (shrink), 4 (truncate) and 5 (``f_t``) are the paper's 2, 3 and 4.
"""
from __future__ import annotations

import numpy as np

from ovk_ref import truncation as truncation_schedules
from ovk_ref.kernels import as_kernel
from ovk_ref.learner_state import OnormaState
from ovk_ref.online_learner import OnlineLearner, run_prefixes, run_stream, state_field
from ovk_ref.records import OnormaRecord


class ONORMA(OnlineLearner):
    """Online learner: ``learn_one(x, y)`` runs one round, ``predict_one(x)`` evaluates ``f_t(x)``.

    ``truncation`` is None, an int window ``s >= 1``, a schedule of ``ovk_ref.truncation`` or its portable dict
    (``ovk_ref.theorem2_schedule`` builds the schedule of Theorem 2, ``ListedSchedule`` lists one ``s_t`` per
    round), or any callable ``t -> s_t`` (which a checkpoint cannot save). ``precision`` is None for
    float64 or a number of decimal digits for mpmath. ``on_divergence`` ("warn" or "raise") and
    ``divergence_bound`` say what a divergent round does (``ovk_ref.divergence``). ``p`` fixes the input
    dimension from the start for a kernel that takes any (otherwise the first example fixes it).
    The state after round t is ``state`` (``OnormaState``); its fields read as attributes too.
    """

    algorithm = "ONORMA"
    record_class = OnormaRecord
    state: OnormaState

    indices = state_field("indices")
    norm2 = state_field("norm2")

    def __init__(self, kernel, *, lam, eta, loss="squared", truncation=None, precision=None, on_divergence="warn",
                 divergence_bound=None, p=None):
        self.kernel = as_kernel(kernel)
        self.d = self.kernel.d
        super().__init__(kernel_p=self.kernel.p, lam=lam, eta=eta, loss=loss, precision=precision,
                         on_divergence=on_divergence, divergence_bound=divergence_bound, p=p)
        self.schedule = truncation_schedules.as_schedule(truncation)

    def _first_state(self, p) -> OnormaState:
        """``f_0 = 0``: no terms, ``||f_0||^2 = 0``."""
        return OnormaState(p=p, norm2=self.num.scalar(0))

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

    def _squared_norms(self, state):
        return {"rkhs_norm2": [state.norm2]}

    def _row(self, state) -> dict:
        return {**super()._row(state), "rkhs_norm2": state.norm2, "support_sizes": len(state.alphas)}

    def _next_state(self, x, y, s_t) -> OnormaState:
        """Round t = self.t + 1, steps 1-4 of Algorithm 1 (the module docstring), as the learner's next state."""
        t = self.t + 1
        eta_t = self.step_size(t)
        c_t = self.shrink_factor(eta_t)
        # 1. new coefficient, the gradient taken at z = f_{t-1}(x_t)
        prediction, evaluations = self._evaluate(x)
        new = self.new_coefficient(eta_t, prediction, y)
        # ||f_t||^2 before truncation (spec 6.2 with one kernel)
        norm2 = self.norm_update(self.norm2, c_t, prediction, self.kernel(x, x), new)
        # 2. update old coefficients
        alphas = [alpha * c_t for alpha in self.alphas] + [new]
        centres = [*self.centres, x]
        indices = [*self.indices, t]
        # 3. (optional) truncation: keep the s_t most recent terms (indices i > t - s_t), or a removal policy's
        while isinstance(self.schedule, truncation_schedules.RemovalPolicy) and len(alphas) > s_t:
            norm2 = self._remove(t, norm2, centres, alphas, indices)
        while s_t is not None and not isinstance(self.schedule, truncation_schedules.RemovalPolicy) and indices[0] <= t - s_t:
            norm2 = self.norm_downdate(norm2, centres, alphas)
            del centres[0], indices[0], alphas[0]
        # 4. f_t: its terms
        return OnormaState(t=t, p=len(x), centres=tuple(centres), alphas=tuple(alphas), indices=tuple(indices),
                           norm2=norm2, last_prediction=prediction, last_new_coefficient=new,
                           last_kernel_evaluations=evaluations, diverged_at=self.diverged_at)

    def norm_update(self, previous, c_t, prediction, K_xx, new):
        """``||c_t f_{t-1} + K(., x_t) alpha_{t,t}||^2 = c_t^2 ||f_{t-1}||^2 + 2 c_t <f_{t-1}(x_t), alpha_{t,t}>
        + <K(x_t, x_t) alpha_{t,t}, alpha_{t,t}>`` (spec 6.2 with one kernel)."""
        return c_t**2 * previous + 2 * c_t * np.dot(prediction, new) + np.dot(K_xx @ new, new)

    def norm_downdate(self, norm2, centres, alphas, j=0):
        """``||h||^2`` after removing the term ``K(., x_j) a_j`` of ``h``, the oldest by default (spec 6.5):
        ``||h - K(.,x_j) a_j||^2 = ||h||^2 - 2 <h(x_j), a_j> + <K(x_j,x_j) a_j, a_j>``."""
        centre, alpha = centres[j], alphas[j]
        value_at_centre, _ = self._evaluate(centre, centres, alphas)
        return norm2 - 2 * np.dot(value_at_centre, alpha) + np.dot(self.kernel(centre, centre) @ alpha, alpha)

    def _remove(self, t, norm2, centres, alphas, indices):
        """The removal policy's step (``truncation.RemovalPolicy``): the term at the position it chooses leaves the lists;
        a projecting policy first adds the term's projection onto the span of the others to their coefficients, and
        ``||h||^2`` drops by the residual ``r``: ``||h - r||^2 = ||h||^2 - 2 <h, r> + ||r||^2``."""
        j = self.schedule.choose(t, alphas)
        if self.schedule.projects:
            norm2 = self._project_out(j, norm2, centres, alphas)
        else:
            norm2 = self.norm_downdate(norm2, centres, alphas, j)
        del centres[j], indices[j], alphas[j]
        return norm2

    def _project_out(self, j, norm2, centres, alphas):
        """Replace ``K(., x_j) a_j`` by its projection ``sum_{k != j} K(., x_k) b_k`` onto the other terms' span (in
        place on ``alphas``): ``b`` solves ``G b = v``, ``G`` the others' Gram matrix, ``v_k = K(x_k, x_j) a_j`` (the
        normal equations, least norm where G is singular: ``Arithmetic.project``). The residual
        ``r = K(., x_j) a_j - sum_k K(., x_k) b_k`` has ``<h, r> = <h(x_j), a_j> - sum_k <h(x_k), b_k>`` and
        ``||r||^2 = <K(x_j, x_j) a_j, a_j> - 2 <b, v> + <b, G b>``; returns ``||h - r||^2``."""
        others = [k for k in range(len(alphas)) if k != j]
        d = self.d
        G = self.num.zeros((len(others) * d, len(others) * d))
        v = self.num.zeros(len(others) * d)
        for row, k in enumerate(others):
            v[row * d:(row + 1) * d] = self.kernel(centres[k], centres[j]) @ alphas[j]
            for column, other in enumerate(others):
                G[row * d:(row + 1) * d, column * d:(column + 1) * d] = self.kernel(centres[k], centres[other])
        b = self.num.project(G, v)
        inner = np.dot(self._evaluate(centres[j], centres, alphas)[0], alphas[j])
        for row, k in enumerate(others):
            inner = inner - np.dot(self._evaluate(centres[k], centres, alphas)[0], b[row * d:(row + 1) * d])
        residual2 = np.dot(self.kernel(centres[j], centres[j]) @ alphas[j], alphas[j]) - 2 * np.dot(b, v) + np.dot(b, G @ b)
        for row, k in enumerate(others):
            alphas[k] = alphas[k] + b[row * d:(row + 1) * d]
        return norm2 - 2 * inner + residual2

def onorma(X, Y, kernel, *, lam, eta, loss="squared", truncation=None, precision=None, on_divergence="warn",
           divergence_bound=None) -> OnormaRecord:
    """Run Algorithm 1 over the stream ``(X[t], Y[t])`` (spec 5); see ``ONORMA`` for the parameters."""
    return run_stream(ONORMA(kernel, lam=lam, eta=eta, loss=loss, truncation=truncation, precision=precision,
                             on_divergence=on_divergence, divergence_bound=divergence_bound), X, Y)


def onorma_prefixes(X, Y, kernel, *, lam, eta, loss="squared", truncation=None, precision=None, on_divergence="warn",
                    divergence_bound=None) -> list:
    """``[onorma(X[:t], Y[:t], ...) for t = 1..n]``, the same records from one run (``run_prefixes``)."""
    return run_prefixes(ONORMA(kernel, lam=lam, eta=eta, loss=loss, truncation=truncation, precision=precision,
                               on_divergence=on_divergence, divergence_bound=divergence_bound), X, Y)
