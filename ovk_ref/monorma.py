"""Algorithm 2 of the paper, MONORMA, step by step as the paper's box numbers its steps (spec 6.1).

One shared coefficient sequence ``alpha_{i,t}``; ``g^j_t = sum_i K^j(., x_i) alpha_{i,t}``;
``f_t = sum_j delta^j_t g^j_t``. Round t, on the example ``(x_t, y_t)``, with ``eta_t = eta / sqrt(t)`` and
``c_t = 1 - eta_t lam``:
  1. alpha update phase:
     1.1 New coefficient: ``alpha_{t,t} = -eta_t u_t``, ``u_t`` the (sub)gradient of the loss at
         ``z = f_{t-1}(x_t) = sum_j delta^j_{t-1} v_j``, ``v_j = g^j_{t-1}(x_t)`` for every kernel;
     1.2 Update old coefficients: ``alpha_{i,t} = c_t alpha_{i,t-1}`` for ``1 <= i <= t-1``;
  2. delta update phase:
     2.1 ``gamma^j_t = c_t^2 gamma^j_{t-1} + <K^j(x_t,x_t) alpha_{t,t}, alpha_{t,t}> + 2 c_t <v_j, alpha_{t,t}>``
         (``= ||g^j_t||^2``, spec 6.2);
     2.2 ``w_j = (delta^j_{t-1})^2 max(gamma^j_t, 0)``;
         ``delta^j_t = w_j^(1/(r+1)) / (sum_k w_k^(r/(r+1)))^(1/r)``, or keep ``delta_{t-1}`` when every
         ``w_j = 0`` (spec 6.3, E22);
  3. f_t update phase (optional in the paper): 3.1 ``g^j_t``, 3.2 ``f_t = sum_j delta^j_t g^j_t``: the stored
     terms and the new weights, which ``predict_one`` evaluates.
No truncation: the paper's box has no truncation step (spec 6.5, E23).

The spec numbers the same round in seven steps: its 1 (``v_j``), 2 (predict) and 3 (new coefficient) are the
paper's step 1.1; its 4 (shrink) is 1.2, its 5 (gamma) 2.1, its 6 (delta) 2.2, and its 7 (``f_t``) the paper's 3.
"""
from __future__ import annotations

import math

import mpmath
import numpy as np

from ovk_ref import arithmetic, tolerances, validation
from ovk_ref.kernels import as_kernel
from ovk_ref.learner_state import MonormaState
from ovk_ref.online_learner import OnlineLearner, run_prefixes, run_stream, state_field
from ovk_ref.records import MonormaRecord

#: what to do when every w_j is 0 (spec 6.3): keep delta_{t-1}, or the literal 0/0 (NaN for ever after)
ALL_ZERO_CHOICES = ("keep", "literal")


def r_range(m: int, precision: int | None = None) -> tuple[float, float]:
    """The values of ``r`` for which the delta update of ``m`` kernels keeps its invariants in the arithmetic of
    ``precision`` (float64 for None): ``sum_j delta_j^r = 1``, ``delta_j > 0`` wherever ``w_j > 0``, and weights
    accurate to the precision's tolerance (measured by ``benchmarks/measure_r_range.py``; spec 6.3).

    Below the range, float64 loses weights to underflow: a weight whose ``w_j`` underflows drops out for ever
    although its share ``w_j^(r/(r+1))`` of the normalisation is not negligible when r is small (r = 0.03: the other
    weights off by 1e-8 after 40 rounds), and for many kernels all of them go (the largest is ``m^(-1/r)`` or more:
    r = 1e-4, m = 2 gives 0 for every weight, for ever). With mpmath the exponent has no floor, and the bound is
    where the root ``^(1/r)`` magnifies rounding errors past the tolerance. Above it, ``delta_j^r`` magnifies the
    rounding error of ``delta_j`` ``r`` times and ``sum_j delta_j^r = 1`` is lost (float64 rounds every ``delta_j``
    to 1 for r beyond about 1e16: r = 1e20 keeps every weight 1, the sum is m).
    """
    if precision is None:
        return max(tolerances.R_MIN_FLOAT64, math.log(m) / tolerances.R_UNDERFLOW_LOG), tolerances.R_MAX_FLOAT64
    unit_ratio = 2.0 ** (mpmath.libmp.dps_to_prec(precision) - 53)   # float64's unit roundoff / the precision's
    return tolerances.R_MIN_MULTIPRECISION, tolerances.R_MAX_FLOAT64 * unit_ratio


def check_r(r, m: int, precision: int | None = None) -> float:
    """``r`` as a float, checked to lie in ``r_range(m, precision)``; ValueError naming the range otherwise."""
    r = validation.positive("r", r)
    low, high = r_range(m, precision)
    if not low <= r <= high:
        where = "float64" if precision is None else f"precision={precision}"
        other = (f"with precision=50: [{r_range(m, 50)[0]:.3g}, {r_range(m, 50)[1]:.3g}]" if precision is None
                 else f"in float64: [{r_range(m)[0]:.3g}, {r_range(m)[1]:.3g}]")
        raise ValueError(f"r must lie in the usable range [{low:.3g}, {high:.3g}] for {m} kernel{'s' * (m != 1)} in "
                         f"{where} ({other}), got {r!r}: outside it the delta update loses sum_j delta_j^r = 1 or "
                         "its weights to rounding (spec 6.3)")
    return r


def _as_kernels(kernels) -> list:
    if isinstance(kernels, dict) or not hasattr(kernels, "__iter__"):
        raise TypeError("kernels must be a sequence of kernels (objects or dicts)")
    kernels = [as_kernel(kernel) for kernel in kernels]
    if not kernels:
        raise ValueError("kernels must hold at least one kernel")
    if len({kernel.d for kernel in kernels}) != 1:
        raise ValueError(f"kernels must share one output dimension d, got {[kernel.d for kernel in kernels]}")
    if len({kernel.p for kernel in kernels} - {None}) > 1:
        raise ValueError(f"kernels must share one input dimension p, got {[kernel.p for kernel in kernels]}")
    return kernels


class MONORMA(OnlineLearner):
    """Online learner for Algorithm 2: ``learn_one(x, y)``, ``predict_one(x)``; ``weights`` is ``delta_t``.

    ``on_divergence``, ``divergence_bound`` and ``p`` as for ``ONORMA``. The state after round t is ``state``
    (``MonormaState``); its fields read as attributes too."""

    algorithm = "MONORMA"
    record_class = MonormaRecord
    state: MonormaState

    weights = state_field("weights")
    gamma = state_field("gamma")

    def __init__(self, kernels, *, lam, eta, r, loss="squared", all_zero="keep", precision=None, on_divergence="warn",
                 divergence_bound=None, p=None):
        self.kernels = _as_kernels(kernels)
        self.d = self.kernels[0].d
        super().__init__(kernel_p=next((kernel.p for kernel in self.kernels if kernel.p is not None), None), lam=lam,
                         eta=eta, loss=loss, precision=precision, on_divergence=on_divergence,
                         divergence_bound=divergence_bound, p=p)
        self.r = check_r(r, len(self.kernels), self.num.precision)
        if not isinstance(all_zero, str) or all_zero not in ALL_ZERO_CHOICES:
            raise ValueError(f"all_zero must be one of {ALL_ZERO_CHOICES}, got {validation.shown(all_zero)}")
        self.all_zero = all_zero

    def _first_state(self, p) -> MonormaState:
        """``f_0 = 0``: no terms, ``delta_0 = 1/m`` (spec 6.1, E21), ``gamma_0 = 0``."""
        m = len(self.kernels)
        return MonormaState(p=p, weights=self.num.array(np.full(m, 1.0)) / m, gamma=self.num.zeros(m))

    def sizes(self) -> dict:
        return {**super().sizes(), "m": len(self.kernels)}

    def _components(self, x):
        """``g^j_t(x)`` for every kernel j, as an m x d array; and the number of kernel evaluations."""
        values = self.num.zeros((len(self.kernels), self.d))
        for j, kernel in enumerate(self.kernels):
            for centre, alpha in zip(self.centres, self.alphas):
                values[j] = values[j] + kernel(x, centre) @ alpha
        return values, len(self.kernels) * len(self.centres)

    def _predict(self, x):
        """``f_t(x) = sum_j delta^j_t g^j_t(x)`` (step 3)."""
        return self.weights @ self._components(x)[0]

    def weight_update(self, w):
        """``delta^j_t = w_j^(1/(r+1)) / (sum_k w_k^(r/(r+1)))^(1/r)`` (step 2.2; spec 6.1 step 6, 6.3)."""
        r = self.num.scalar(self.r)
        numerator = arithmetic.power(w, 1 / (r + 1))
        denominator = np.sum(arithmetic.power(w, r / (r + 1))) ** (1 / r)
        if denominator == 0:  # all w_j = 0 with all_zero="literal": the literal 0/0 (spec 6.3)
            return numerator * self.num.scalar(float("nan"))
        return numerator / denominator

    def gamma_recursion(self, previous, c_t, K_xx, v_j, new):
        """``gamma^j_t = c_t^2 gamma^j_{t-1} + <K^j(x_t,x_t) alpha_{t,t}, alpha_{t,t}> + 2 c_t <v_j, alpha_{t,t}>``
        (step 2.1; spec 6.2)."""
        return c_t**2 * previous + np.dot(K_xx @ new, new) + 2 * c_t * np.dot(v_j, new)

    def next_weights(self, w):
        """``delta_t`` from ``w``: ``weight_update(w)``, or ``delta_{t-1}`` kept when every ``w_j = 0`` (step 2.2;
        spec 6.3, E22)."""
        if self.all_zero == "keep" and all(w_j == 0 for w_j in w):
            return self.weights
        return self.weight_update(w)

    def _squared_norms(self, state):
        return {"gamma": state.gamma[None]}

    def _row(self, state) -> dict:
        return {**super()._row(state), "weights": state.weights, "gamma": state.gamma}

    def _next_state(self, x, y) -> MonormaState:
        """Round t = self.t + 1, steps 1.1-3 of Algorithm 2 (the module docstring), as the learner's next state."""
        t = self.t + 1
        eta_t = self.step_size(t)
        c_t = self.shrink_factor(eta_t)
        # 1.1 new coefficient, the gradient taken at z = f_{t-1}(x_t) = sum_j delta^j_{t-1} v_j, v_j = g^j_{t-1}(x_t)
        v, evaluations = self._components(x)
        prediction = self.weights @ v
        new = self.new_coefficient(eta_t, prediction, y)
        # 1.2 update old coefficients
        alphas = tuple(alpha * c_t for alpha in self.alphas) + (new,)
        centres = (*self.centres, x)
        # 2.1 gamma recursion, one evaluation K^j(x_t, x_t) per kernel
        gamma = self.gamma.copy()
        for j, kernel in enumerate(self.kernels):
            gamma[j] = self.gamma_recursion(self.gamma[j], c_t, kernel(x, x), v[j], new)
        evaluations += len(self.kernels)
        # 2.2 delta update
        w = np.array([self.weights[j] ** 2 * max(gamma[j], 0 * gamma[j]) for j in range(len(self.kernels))],
                     dtype=self.weights.dtype)
        weights = self.next_weights(w)
        # 3. g^j_t and f_t: the terms with the new weights
        return MonormaState(t=t, p=len(x), centres=centres, alphas=alphas, gamma=gamma, weights=weights,
                            last_prediction=prediction, last_new_coefficient=new, last_kernel_evaluations=evaluations,
                            diverged_at=self.diverged_at)


def monorma(X, Y, kernels, *, lam, eta, r, loss="squared", all_zero="keep", precision=None, on_divergence="warn",
            divergence_bound=None) -> MonormaRecord:
    """Run Algorithm 2 over the stream ``(X[t], Y[t])`` with kernels ``K^1..K^m`` (spec 6)."""
    return run_stream(MONORMA(kernels, lam=lam, eta=eta, r=r, loss=loss, all_zero=all_zero, precision=precision,
                              on_divergence=on_divergence, divergence_bound=divergence_bound), X, Y)


def monorma_prefixes(X, Y, kernels, *, lam, eta, r, loss="squared", all_zero="keep", precision=None, on_divergence="warn",
                     divergence_bound=None) -> list:
    """``[monorma(X[:t], Y[:t], ...) for t = 1..n]``, the same records from one run (``run_prefixes``)."""
    return run_prefixes(MONORMA(kernels, lam=lam, eta=eta, r=r, loss=loss, all_zero=all_zero, precision=precision,
                                on_divergence=on_divergence, divergence_bound=divergence_bound), X, Y)
