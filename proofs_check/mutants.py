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
}


# --- regime faults for the conformance oracle (issue 9): each shows only in the regime its name says ----------
from proofs_check.conformance.regime_faults import CONFORMANCE_MUTANTS  # noqa: E402  (kept with the faults above)
