"""Deliberately wrong copies of the algorithms, each one plausible mistake (planted faults).

The claim checks (issue 3) and the conformance runner (issue 4) must reject every one of them.
Each mutant is a module-like object offering ``onorma``/``monorma``/``batch_ridge`` with ovk_ref's
signatures; it differs from ovk_ref in exactly the one step its name says.
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

import ovk_ref
from ovk_ref import arithmetic
from ovk_ref import truncation as truncation_schedules
from ovk_ref.kernels import OperatorKernel, as_kernel


class _ShrinkSkipped(ovk_ref.ONORMA):
    def shrink_factor(self, eta_t):
        return 1 + 0 * eta_t


class _ShrinkAppliedToNew(ovk_ref.ONORMA):
    def new_coefficient(self, eta_t, prediction, y):
        return self.shrink_factor(eta_t) * super().new_coefficient(eta_t, prediction, y)


class _NextStepSize(ovk_ref.ONORMA):
    def step_size(self, t):
        return super().step_size(t + 1)


class _NextStepSizeMonorma(ovk_ref.MONORMA):
    def step_size(self, t):
        return super().step_size(t + 1)


class _DeltaExponentsMisparsed(ovk_ref.MONORMA):
    """The box's ``1/r+1`` and ``r/r+1`` read as ``(1/r)+1`` and ``(r/r)+1 = 2`` (spec 6.3, E20)."""

    def weight_update(self, w):
        r = self.num.scalar(self.r)
        return arithmetic.power(w, 1 / r + 1) / np.sum(arithmetic.power(w, r / r + 1)) ** (1 / r)


class _NewCoefficientWithoutDecay:
    """``alpha_{t,t} = -eta u_t``: the new coefficient takes ``eta``, not ``eta_t = eta / sqrt(t)`` (issue 10);
    the shrink still uses ``eta_t``. Mixed into ONORMA and MONORMA, which share ``new_coefficient``."""

    def new_coefficient(self, eta_t, prediction, y):
        return super().new_coefficient(self.num.scalar(self.eta) + 0 * eta_t, prediction, y)


class _NoDecayOnorma(_NewCoefficientWithoutDecay, ovk_ref.ONORMA):
    pass


class _NoDecayMonorma(_NewCoefficientWithoutDecay, ovk_ref.MONORMA):
    pass


class _ShrinkHalved:
    """``c_t = 1 - eta_t lam / 2`` (issue 10): the regulariser's gradient halved."""

    def shrink_factor(self, eta_t):
        return 1 - eta_t * self.lam / 2


class _ShrinkHalvedOnorma(_ShrinkHalved, ovk_ref.ONORMA):
    pass


class _ShrinkHalvedMonorma(_ShrinkHalved, ovk_ref.MONORMA):
    pass


class _PredictionWithoutWeights(ovk_ref.MONORMA):
    """The round's prediction, at which the loss gradient is taken, is ``sum_j g^j_{t-1}(x_t)``: ``delta_{t-1}``
    left out (issue 10). With one kernel ``delta = 1`` and nothing changes."""

    def _components(self, x):
        values, evaluations = super()._components(x)
        self._unweighted = np.sum(values, axis=0)
        return values, evaluations

    def new_coefficient(self, eta_t, prediction, y):
        return super().new_coefficient(eta_t, self._unweighted, y)


class _WeightsWithoutSquare(ovk_ref.MONORMA):
    """``w_j = delta^j_{t-1} gamma^j_t`` in place of ``(delta^j_{t-1})^2 gamma^j_t`` (issue 10): the update still
    normalises, so only the weights' history shows it."""

    def weight_update(self, w):
        once = [w_j / delta_j if delta_j != 0 else w_j for w_j, delta_j in zip(w, self.weights)]
        return super().weight_update(np.array(once, dtype=w.dtype))


class _ShrinkSkippedMonorma(ovk_ref.MONORMA):
    """``c_t = 1`` in MONORMA (issue 11): no regularisation, the norms grow like ``sum_t eta_t``."""

    def shrink_factor(self, eta_t):
        return 1 + 0 * eta_t


class _ZeroWeightRevived(ovk_ref.MONORMA):
    """``w_j + 1e-12 sum_k w_k`` in place of ``w_j`` (issue 11): an epsilon that keeps every power finite, and
    gives a kernel whose weight was 0 its weight back (spec 6.3, "absorbing zero")."""

    def weight_update(self, w):
        return super().weight_update(w + 1e-12 * np.sum(w))


class _WeightsOnSimplex(ovk_ref.MONORMA):
    """``delta_j = w_j^(1/(r+1)) / sum_k w_k^(1/(r+1))`` (issue 11): the weights normalised to ``sum_j delta_j = 1``
    (the simplex of r = 1) whatever r, in place of ``sum_j delta_j^r = 1`` (spec 6.3). It hides the amplification
    ``S = m^(1-1/r)`` of m copies, and with it the counterexamples of ``monorma.best_kernel_hyp3``,
    ``monorma.norm_prop2`` and ``monorma.norm_prop2_factor_hyp3``."""

    def weight_update(self, w):
        r = self.num.scalar(self.r)
        numerator = arithmetic.power(w, 1 / (r + 1))
        return numerator / np.sum(numerator)


class _Transposed(OperatorKernel):
    """``K(z, x)`` in place of ``K(x, z)``: the ``K(x_i, .)`` reading of E3."""

    def __init__(self, kernel):
        self.kernel, self.d, self.p = kernel, kernel.d, kernel.p

    def __call__(self, x, z):
        return self.kernel(z, x)

    def to_dict(self):
        return self.kernel.to_dict()


class _WindowPlusOne:
    def __init__(self, schedule):
        self.schedule = schedule

    def __call__(self, t):
        return self.schedule(t) + 1


def _onorma_with(learner_class, *, transpose=False, window_plus_one=False):
    def onorma(X, Y, kernel, *, lam, eta, loss="squared", truncation=None, precision=None):
        kernel = as_kernel(kernel)
        schedule = truncation_schedules.as_schedule(truncation)
        if window_plus_one and schedule is not None:
            schedule = _WindowPlusOne(schedule)
        learner = learner_class(_Transposed(kernel) if transpose else kernel, lam=lam, eta=eta, loss=loss,
                                truncation=schedule, precision=precision)
        return ovk_ref.run_onorma(learner, X, Y)
    return onorma


def _monorma_with(learner_class):
    def monorma(X, Y, kernels, *, lam, eta, r, loss="squared", all_zero="keep", precision=None):
        learner = learner_class(kernels, lam=lam, eta=eta, r=r, loss=loss, all_zero=all_zero, precision=precision)
        return ovk_ref.run_monorma(learner, X, Y)
    return monorma


#: name -> implementation object; each differs from ovk_ref in the one step its name says
MUTANTS = {
    "shrink_skipped": SimpleNamespace(onorma=_onorma_with(_ShrinkSkipped)),
    "shrink_applied_to_new_coefficient": SimpleNamespace(onorma=_onorma_with(_ShrinkAppliedToNew)),
    "eta_next_index": SimpleNamespace(onorma=_onorma_with(_NextStepSize), monorma=_monorma_with(_NextStepSizeMonorma)),
    "kernel_transposed": SimpleNamespace(onorma=_onorma_with(ovk_ref.ONORMA, transpose=True)),
    "delta_exponents_misparsed": SimpleNamespace(monorma=_monorma_with(_DeltaExponentsMisparsed)),
    "truncation_keeps_one_more": SimpleNamespace(onorma=_onorma_with(ovk_ref.ONORMA, window_plus_one=True)),
    "new_coefficient_without_decay": SimpleNamespace(onorma=_onorma_with(_NoDecayOnorma), monorma=_monorma_with(_NoDecayMonorma)),
    "shrink_halved": SimpleNamespace(onorma=_onorma_with(_ShrinkHalvedOnorma), monorma=_monorma_with(_ShrinkHalvedMonorma)),
    "monorma_prediction_without_weights": SimpleNamespace(monorma=_monorma_with(_PredictionWithoutWeights)),
    "monorma_weights_without_square": SimpleNamespace(monorma=_monorma_with(_WeightsWithoutSquare)),
    "monorma_shrink_skipped": SimpleNamespace(monorma=_monorma_with(_ShrinkSkippedMonorma)),
    "monorma_zero_weight_revived": SimpleNamespace(monorma=_monorma_with(_ZeroWeightRevived)),
    "monorma_weights_on_simplex": SimpleNamespace(monorma=_monorma_with(_WeightsOnSimplex)),
}


def _synthetic_with(*, weight_scale=None, per_example_weights=False, shared_weights=False, phi_offset=0):
    """The paper's generator (``ovk_ref.synthetic``, spec 3.4) with one plausible mistake."""
    from ovk_ref.synthetic import WEIGHT_VARIANCES, NAMED_INPUTS

    variances = np.asarray(WEIGHT_VARIANCES)

    def features(X):
        X = np.asarray(X, dtype=float)
        x1, x2, x3, x4, x5 = (X[:, i - 1 + phi_offset] for i in NAMED_INPUTS)
        return np.column_stack([x1 ** 2, x4 ** 2, x1 * x2, x3 * x5, x2, x4, np.ones(len(X))])

    def synthetic(n, p=20, d=4, *, seed=0, noise=0.0, return_weights=False):
        rng = np.random.default_rng(seed)
        scale = np.sqrt(variances) if weight_scale is None else weight_scale(variances)
        W = rng.standard_normal((1 if shared_weights else d, len(variances))) * scale
        W = np.repeat(W, d, axis=0) if shared_weights else W
        X = rng.uniform(0.0, 1.0, size=(n, p))
        if per_example_weights:
            rows = [W] + [rng.standard_normal(W.shape) * scale for _ in range(n - 1)]
            Y = np.array([features(X[i:i + 1])[0] @ rows[i].T for i in range(n)])
        else:
            Y = features(X) @ W.T
        return (X, Y, W) if return_weights else (X, Y)

    return SimpleNamespace(synthetic=synthetic, features=features)


#: name -> a wrong reading of the paper's synthetic data (spec 3.4), with ``synthetic`` and ``features``
SYNTHETIC_MUTANTS = {
    "variances_used_as_standard_deviations": _synthetic_with(weight_scale=lambda variances: variances),
    "weights_redrawn_per_example": _synthetic_with(per_example_weights=True),
    "one_weight_vector_for_all_tasks": _synthetic_with(shared_weights=True),
    "phi_indices_read_zero_based": _synthetic_with(phi_offset=1),
}


# --- regime faults for the conformance oracle (issue 9): each shows only in the regime its name says ----------
from proofs_check.conformance.regime_faults import CONFORMANCE_MUTANTS  # noqa: E402  (kept with the faults above)
