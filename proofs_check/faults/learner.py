"""Planted faults in the online learners (spec 1, 5, 6): step sizes, shrink, new coefficients, evaluation, truncation,
MONORMA's weights. Each patches the method of ``ovk_ref`` that holds the step, as a user's bug there would be."""
from __future__ import annotations

import numpy as np

from ovk_ref import arithmetic, truncation
from ovk_ref.kernels import OperatorKernel
from ovk_ref.monorma import MONORMA
from ovk_ref.online_learner import OnlineLearner
from ovk_ref.onorma import ONORMA
from proofs_check.faults.fault import Fault, Patch


def _shrink_skipped(original):
    def shrink_factor(self, eta_t):
        return 1 + 0 * eta_t
    return shrink_factor


def _shrink_halved(original):
    def shrink_factor(self, eta_t):
        return 1 - eta_t * self.lam / 2
    return shrink_factor


def _shrink_applied_to_new(original):
    def new_coefficient(self, eta_t, prediction, y):
        return self.shrink_factor(eta_t) * original(self, eta_t, prediction, y)
    return new_coefficient


def _next_step_size(original):
    def step_size(self, t):
        return original(self, t + 1)
    return step_size


def _step_size_over_t(original):
    def step_size(self, t):
        return self.num.scalar(self.eta) / self.num.scalar(t)
    return step_size


def _new_coefficient_without_decay(original):
    def new_coefficient(self, eta_t, prediction, y):
        return original(self, self.num.scalar(self.eta) + 0 * eta_t, prediction, y)
    return new_coefficient


def _new_coefficient_short(original):
    def new_coefficient(self, eta_t, prediction, y):
        return original(self, eta_t, prediction, y) * self.num.scalar(0.9)
    return new_coefficient


class _Transposed(OperatorKernel):
    """``K(z, x)`` in place of ``K(x, z)``."""

    def __init__(self, kernel):
        self.kernel, self.d, self.p = kernel, kernel.d, kernel.p

    def __call__(self, x, z):
        return self.kernel(z, x)

    def to_dict(self):
        return self.kernel.to_dict()


def _kernel_transposed(original):
    def __init__(self, kernel, **options):
        original(self, kernel, **options)
        self.kernel = _Transposed(self.kernel)
    return __init__


def _window_plus_one(original):
    def round_parameters(self, t):
        s_t = original(self, t)["s_t"]
        return {"s_t": None if s_t is None else s_t + 1}
    return round_parameters


def _exponent_halved(original):
    def schedule(self, t):
        if t <= self.t0:
            return t
        return self.t0 + truncation.floor_power(t - self.t0, repr(self.epsilon / 2))
    return schedule


def _norm_cross_term_once(original):
    def norm_update(self, previous, c_t, prediction, K_xx, new):
        return c_t**2 * previous + c_t * np.dot(prediction, new) + np.dot(K_xx @ new, new)
    return norm_update


def _norm_shrink_not_squared(original):
    def norm_update(self, previous, c_t, prediction, K_xx, new):
        return c_t * previous + 2 * c_t * np.dot(prediction, new) + np.dot(K_xx @ new, new)
    return norm_update


def _downdate_cross_term_sign(original):
    def norm_downdate(self, norm2, centres, alphas, j=0):
        value_at_centre, _ = self._evaluate(centres[j], centres, alphas)
        return norm2 + 2 * np.dot(value_at_centre, alphas[j]) + np.dot(self.kernel(centres[j], centres[j]) @ alphas[j], alphas[j])
    return norm_downdate


def _downdate_term_alone(original):
    def norm_downdate(self, norm2, centres, alphas, j=0):
        alpha = alphas[j]
        return norm2 - np.dot(self.kernel(centres[j], centres[j]) @ alpha, alpha)
    return norm_downdate


def _removal_keeps_unshrunk(original):
    def remove(self, t, norm2, centres, alphas, indices):
        norm2 = original(self, t, norm2, centres, alphas, indices)
        c_t = self.shrink_factor(self.step_size(t))
        for k in range(len(alphas) - 1):      # the kept older terms taken back from f_{t-1}, before round t's shrink
            alphas[k] = alphas[k] / c_t
        return norm2
    return remove


def _delta_exponents_misparsed(original):
    def weight_update(self, w):
        r = self.num.scalar(self.r)
        return arithmetic.power(w, 1 / r + 1) / np.sum(arithmetic.power(w, r / r + 1)) ** (1 / r)
    return weight_update


def _weights_without_square(original):
    def weight_update(self, w):
        once = [w_j / delta_j if delta_j != 0 else w_j for w_j, delta_j in zip(w, self.weights)]
        return original(self, np.array(once, dtype=w.dtype))
    return weight_update


def _zero_weight_revived(original):
    def weight_update(self, w):
        return original(self, w + 1e-12 * np.sum(w))
    return weight_update


def _weights_on_simplex(original):
    def weight_update(self, w):
        numerator = arithmetic.power(w, 1 / (self.num.scalar(self.r) + 1))
        return numerator / np.sum(numerator)
    return weight_update


def _components_remembered(original):
    def components(self, x):
        values, evaluations = original(self, x)
        self._unweighted = np.sum(values, axis=0)
        return values, evaluations
    return components


def _gradient_at_unweighted(original):
    def new_coefficient(self, eta_t, prediction, y):
        return original(self, eta_t, self._unweighted, y)
    return new_coefficient


def _cross_term_once(original):
    def gamma_recursion(self, previous, c_t, K_xx, v_j, new):
        return c_t**2 * previous + np.dot(K_xx @ new, new) + c_t * np.dot(v_j, new)
    return gamma_recursion


def _all_zero_resets(original):
    def next_weights(self, w):
        if all(w_j == 0 for w_j in w):
            return self.num.array(np.full(len(w), 1.0)) / len(w)
        return original(self, w)
    return next_weights


LEARNER_FAULTS = [
    Fault("shrink_skipped", "shrink", "c_t = 1: the regulariser's gradient step left out of the update",
          (Patch(OnlineLearner, "shrink_factor", _shrink_skipped),)),
    Fault("shrink_halved", "shrink", "c_t = 1 - eta_t lam / 2: the gradient of (lam/2)||f||^2 taken as (lam/2) f",
          (Patch(OnlineLearner, "shrink_factor", _shrink_halved),)),
    Fault("shrink_applied_to_new_coefficient", "shrink",
          "alpha_{t,t} = -c_t eta_t u_t: the shrink applied to every coefficient, the new one included",
          (Patch(OnlineLearner, "new_coefficient", _shrink_applied_to_new),)),
    Fault("eta_next_index", "step size", "eta_{t+1} at round t: the round counted from 0 inside the loop, from 1 in the formula",
          (Patch(OnlineLearner, "step_size", _next_step_size),)),
    Fault("step_size_over_t", "step size", "eta_t = eta / t: the 1/t rate of SGD for strongly convex losses, not the "
          "paper's 1/sqrt(t)", (Patch(OnlineLearner, "step_size", _step_size_over_t),)),
    Fault("new_coefficient_without_decay", "new coefficient",
          "alpha_{t,t} = -eta u_t: the new coefficient takes eta, not eta_t = eta / sqrt(t) (the shrink still uses eta_t)",
          (Patch(OnlineLearner, "new_coefficient", _new_coefficient_without_decay),)),
    Fault("new_coefficient_short", "new coefficient", "alpha_{t,t} = -0.9 eta_t u_t: a damping factor left in from tuning",
          (Patch(OnlineLearner, "new_coefficient", _new_coefficient_short),)),
    Fault("kernel_transposed", "evaluation", "K(x_i, x) in place of K(x, x_i) in ONORMA (the K(x_i, .) reading of E3)",
          (Patch(ONORMA, "__init__", _kernel_transposed),)),
    Fault("truncation_keeps_one_more", "truncation", "the window keeps s_t + 1 terms: an inclusive bound on the oldest index",
          (Patch(ONORMA, "_round_parameters", _window_plus_one),)),
    Fault("theorem2_exponent_halved", "truncation",
          "Theorem 2's s_t = t0 + floor((t - t0)^(1/2 + epsilon/2)): the exponent's epsilon halved",
          (Patch(truncation.Theorem2Schedule, "__call__", _exponent_halved),)),
    Fault("onorma_norm_cross_term_once", "norm recursion",
          "||f_t||^2 = c_t^2 ||f_{t-1}||^2 + c_t <f_{t-1}(x_t), alpha_{t,t}> + <K alpha, alpha>: the cross term counted once",
          (Patch(ONORMA, "norm_update", _norm_cross_term_once),)),
    Fault("onorma_norm_shrink_not_squared", "norm recursion",
          "c_t ||f_{t-1}||^2 in place of c_t^2 ||f_{t-1}||^2: the shrink of the coefficients carried to their norm unsquared",
          (Patch(ONORMA, "norm_update", _norm_shrink_not_squared),)),
    Fault("onorma_downdate_cross_term_sign", "norm recursion",
          "||h - K(., x_i) a_i||^2 = ||h||^2 + 2 <h(x_i), a_i> + <K a_i, a_i>: the sign of the cross term of the downdate",
          (Patch(ONORMA, "norm_downdate", _downdate_cross_term_sign),)),
    Fault("onorma_downdate_term_alone", "norm recursion",
          "||h||^2 - <K(x_i, x_i) a_i, a_i> for a dropped term: its own norm taken off, its cross terms with the rest kept",
          (Patch(ONORMA, "norm_downdate", _downdate_term_alone),)),
    Fault("removal_keeps_unshrunk", "truncation",
          "a removal policy's budget rebuilds the kept terms from f_{t-1}'s coefficients: the kept older ones miss round "
          "t's shrink c_t whenever a term is removed", (Patch(ONORMA, "_remove", _removal_keeps_unshrunk),)),
    Fault("delta_exponents_misparsed", "MONORMA weights",
          "the box's 1/r+1 and r/r+1 read as (1/r)+1 and (r/r)+1 = 2 (spec 6.3, E20)",
          (Patch(MONORMA, "weight_update", _delta_exponents_misparsed),)),
    Fault("monorma_weights_without_square", "MONORMA weights",
          "w_j = delta^j_{t-1} gamma^j_t in place of (delta^j_{t-1})^2 gamma^j_t",
          (Patch(MONORMA, "weight_update", _weights_without_square),)),
    Fault("monorma_zero_weight_revived", "MONORMA weights",
          "w_j + 1e-12 sum_k w_k: an epsilon that keeps every power finite and revives a zero weight (spec 6.3)",
          (Patch(MONORMA, "weight_update", _zero_weight_revived),)),
    Fault("monorma_weights_on_simplex", "MONORMA weights",
          "delta normalised to sum_j delta_j = 1 (the simplex of r = 1) whatever r, not sum_j delta_j^r = 1",
          (Patch(MONORMA, "weight_update", _weights_on_simplex),)),
    Fault("monorma_prediction_without_weights", "MONORMA weights",
          "the gradient taken at sum_j g^j_{t-1}(x_t): delta_{t-1} left out of the prediction it uses",
          (Patch(MONORMA, "_components", _components_remembered), Patch(MONORMA, "new_coefficient", _gradient_at_unweighted))),
    Fault("gamma_cross_term_once", "MONORMA weights",
          "gamma^j_t = c_t^2 gamma^j_{t-1} + <K alpha, alpha> + c_t <v_j, alpha>: the cross term of ||c g + K alpha||^2 "
          "counted once", (Patch(MONORMA, "gamma_recursion", _cross_term_once),)),
    Fault("all_zero_resets_delta", "MONORMA weights",
          "an all-zero round (every w_j = 0) resets delta to 1/m instead of keeping delta_{t-1} (spec 6.3, E22)",
          (Patch(MONORMA, "next_weights", _all_zero_resets),)),
]
