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
