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
}


# --- regime faults for the conformance oracle (issue 9): each shows only in the regime its name says ----------
from proofs_check.conformance.regime_faults import CONFORMANCE_MUTANTS  # noqa: E402  (kept with the faults above)
