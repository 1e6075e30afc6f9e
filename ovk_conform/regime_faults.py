"""Planted faults that show only in one regime: each is the plain engine (``plain_engine.py``), or ovk_fast, with
one step wrong past the boundary a fast engine introduces. ``CONFORMANCE_MUTANTS`` maps a name to an
implementation object; ``FAULT_REGIMES`` names the stored regime that must reject it (and the quick level
must not: the fault hides there).
"""
from __future__ import annotations

import functools
import inspect
import math
import textwrap
from types import SimpleNamespace
from unittest import mock

import numpy as np

import ovk_fast
from ovk_conform.plain_engine import PlainBatch, PlainMonorma, PlainOnorma
from ovk_fast import compiled
from ovk_fast.kernel_rows import KernelRows
from ovk_ref.kernels import Gaussian, Polynomial, Separable, as_kernel

#: rounds per block of the blocked engine these faults imitate
BLOCK = 256


class StepIndexRestarts(PlainOnorma):
    """``eta_t`` with the round index counted from the start of the current block of 256."""

    def step_size(self, eta, t):
        return eta / math.sqrt((t - 1) % BLOCK + 1)


class ScaleNotFoldedAtLaterBlock(PlainOnorma):
    """A running-scale engine that resets the scale at the start of block 3 (round 513) without folding it into
    the stored coefficients: they lose the shrink of block 2."""

    def after_round(self, t, alpha, lo, factors):
        if t == 2 * BLOCK:
            alpha[:t] /= np.prod(factors[BLOCK:t])


class WindowOffByOneFrom64(PlainOnorma):
    """Keeps ``s_t + 1`` coefficients once the window reaches 64."""

    def window(self, schedule, t):
        s = super().window(schedule, t)
        return s + 1 if schedule is not None and s >= 64 else s


class TransposedFromD5(PlainOnorma):
    """``K(x_i, x)`` for ``K(x, x_i)`` when d >= 5 (a kernel layout for wide outputs)."""

    def kernel_values(self, kernel, x, stored_X, coefficients):
        if kernel.d < 5 or not len(stored_X):
            return super().kernel_values(kernel, x, stored_X, coefficients)
        blocks = KernelRows(kernel, x[None, :], stored_X).dense().reshape(kernel.d, len(stored_X), kernel.d)
        return np.einsum("jed,je->d", blocks.transpose(1, 0, 2), coefficients)


class IndexSlipFrom4Kernels(PlainMonorma):
    """Kernel j >= 4 (1-based) gets the gamma of kernel j - 1 in the weight update."""

    def weight_update(self, weights, gamma, r):
        slipped = gamma.copy()
        slipped[3:] = gamma[2:-1]
        return super().weight_update(weights, slipped, r)


class GammaFaultAfter300(PlainMonorma):
    """After round 300 the gamma recursion shrinks by ``c_t`` instead of ``c_t^2``."""

    def gamma_update(self, t, gamma, c_t, v, new, diagonal):
        if t <= 300:
            return super().gamma_update(t, gamma, c_t, v, new, diagonal)
        return super().gamma_update(t, gamma / c_t, c_t, v, new, diagonal)


class BatchStopsEarly(PlainBatch):
    """Conjugate gradients stopped after 4 iterations once t > 300 (an exact solve below)."""

    def __call__(self, X, Y, kernel, *, lam, precision=None):
        self.iterations = 4 if len(X) > 300 else None
        return super().__call__(X, Y, kernel, lam=lam)

    def solve(self, system, rhs):
        if self.iterations is None:
            return super().solve(system, rhs)
        x = np.zeros_like(rhs)
        residual = rhs.copy()
        direction = residual.copy()
        for _ in range(self.iterations):
            step = system @ direction
            a = (residual @ residual) / (direction @ step)
            x += a * direction
            new_residual = residual - a * step
            direction = new_residual + (new_residual @ new_residual) / (residual @ residual) * direction
            residual = new_residual
        return x


class UncentredGaussian(PlainOnorma):
    """Gaussian distances as ``|x|^2 + |z|^2 - 2 <x, z>`` (cancels far from the origin)."""

    def kernel_values(self, kernel, x, stored_X, coefficients):
        if not (isinstance(kernel, Separable) and isinstance(kernel.scalar, Gaussian)):
            return super().kernel_values(kernel, x, stored_X, coefficients)
        sqdist = np.maximum(x @ x + np.sum(stored_X * stored_X, axis=1) - 2 * stored_X @ x, 0.0)
        return kernel.B @ (np.exp(-sqdist / kernel.scalar.mu) @ coefficients)


class FirstOrderShrink(PlainOnorma):
    """``1 / (1 + eta_t lam)`` for ``1 - eta_t lam`` (equal to first order: differs when eta lam is near 1)."""

    def shrink_factor(self, eta_t, lam):
        return 1.0 / (1.0 + eta_t * lam)


class ScaleNeverFolded(PlainOnorma):
    """``alpha_i = S beta_i`` with the running product ``S`` of every shrink factor, never folded back:
    once S underflows the coefficients are lost."""

    def __call__(self, X, Y, kernel, **arguments):
        self.scale = 1.0
        return super().__call__(X, Y, kernel, **arguments)

    def after_round(self, t, alpha, lo, factors):
        # store beta = alpha / S and read alpha back as S * beta, as the running-scale engine does
        self.scale *= factors[-1]
        with np.errstate(all="ignore"):
            alpha[lo:t] = self.scale * (alpha[lo:t] / self.scale)


class PolynomialDegreeTwo(PlainOnorma):
    """Every polynomial kernel evaluated with degree 2 (a hard-coded degree)."""

    def kernel_values(self, kernel, x, stored_X, coefficients):
        if isinstance(kernel, Separable) and isinstance(kernel.scalar, Polynomial):
            kernel = Separable(Polynomial(2, kernel.scalar.offset), kernel.B)
        return super().kernel_values(kernel, x, stored_X, coefficients)


class LoneRoundUnmasked(PlainOnorma):
    """A blocked engine that drops the window's mask for a block of a single round (the last round of a stream of
    ``256 k + 1`` rounds): that round's prediction sums every term stored since round t - 256, the dropped included."""

    def first_term(self, t, n, lo):
        return max(0, t - 1 - BLOCK) if t == n > BLOCK and (t - 1) % BLOCK == 0 else lo


def _all_gaussian(kernels) -> bool:
    return all(isinstance(kernel, Separable) and isinstance(kernel.scalar, Gaussian) for kernel in kernels)


class FirstOutputMatrixInGamma(PlainMonorma):
    """When every kernel is a separable Gaussian (an engine's shortcut: ``K_j(x, x) = B_j``), every kernel's gamma
    update takes the first kernel's ``B``."""

    def __call__(self, X, Y, kernels, **arguments):
        self.gaussians = _all_gaussian(as_kernel(kernel) for kernel in kernels)
        return super().__call__(X, Y, kernels, **arguments)

    def gamma_update(self, t, gamma, c_t, v, new, diagonal):
        if self.gaussians:
            diagonal = np.broadcast_to(diagonal[:1], diagonal.shape)
        return super().gamma_update(t, gamma, c_t, v, new, diagonal)


class LastWeightDecidesUpdate(PlainMonorma):
    """delta kept (as when every ``w_j = 0``, spec 6.3) whenever the last kernel's ``w_m`` is 0."""

    def weight_update(self, weights, gamma, r):
        if weights[-1] ** 2 * max(gamma[-1], 0.0) == 0.0:
            return weights
        return super().weight_update(weights, gamma, r)


class NormOneDowndatePerRound:
    """ovk_fast's ONORMA with ``if`` for the ``while`` that applies the downdates in its norm recursion
    (``compiled.norm_recursion``, spec 6.5): at most one dropped term's downdate per round, right for a window or
    Theorem 2's schedule (one drop per round at most), wrong for a schedule that drops several terms at once."""

    #: the loop of ``compiled.norm_recursion`` over the terms dropped in round r, and the fault
    FAULT = ("while k < len(rounds) and rounds[k] == r:", "if k < len(rounds) and rounds[k] == r:")

    @functools.cached_property
    def norm_recursion(self):
        """Built at the first call, not at import: the oracle imports this module whatever ovk_fast's source holds."""
        source = textwrap.dedent(inspect.getsource(compiled.norm_recursion))
        if source.count(self.FAULT[0]) != 1:
            raise RuntimeError("compiled.norm_recursion no longer has the downdate loop this fault replaces")
        namespace = {}
        exec(source.replace(*self.FAULT), namespace)   # the planted fault: the source with its loop made an if
        return namespace["norm_recursion"]

    def __call__(self, X, Y, kernel, **arguments):
        with mock.patch.object(compiled, "norm_recursion_compiled", self.norm_recursion):
            return ovk_fast.onorma(X, Y, kernel, **arguments)


CONFORMANCE_MUTANTS = {
    "step_index_restarts_after_256": SimpleNamespace(onorma=StepIndexRestarts()),
    "scale_not_folded_at_block_3": SimpleNamespace(onorma=ScaleNotFoldedAtLaterBlock()),
    "window_off_by_one_from_64": SimpleNamespace(onorma=WindowOffByOneFrom64()),
    "kernel_transposed_from_d5": SimpleNamespace(onorma=TransposedFromD5()),
    "index_slip_from_4_kernels": SimpleNamespace(monorma=IndexSlipFrom4Kernels()),
    "gamma_fault_after_300": SimpleNamespace(monorma=GammaFaultAfter300()),
    "batch_stops_early_above_300": SimpleNamespace(batch_ridge=BatchStopsEarly()),
    "gaussian_uncentred_distance": SimpleNamespace(onorma=UncentredGaussian()),
    "first_order_shrink": SimpleNamespace(onorma=FirstOrderShrink()),
    "scale_never_folded": SimpleNamespace(onorma=ScaleNeverFolded()),
    "polynomial_degree_two": SimpleNamespace(onorma=PolynomialDegreeTwo()),
    "lone_round_unmasked": SimpleNamespace(onorma=LoneRoundUnmasked()),
    "first_output_matrix_in_gamma": SimpleNamespace(monorma=FirstOutputMatrixInGamma()),
    "last_weight_decides_update": SimpleNamespace(monorma=LastWeightDecidesUpdate()),
    "norm_one_downdate_per_round": SimpleNamespace(onorma=NormOneDowndatePerRound()),
}

#: fault -> (the regime that rejects it, its case id there)
FAULT_REGIMES = {
    "step_index_restarts_after_256": ("long-stream", "onorma-t4096-gaussian-d2"),
    "scale_not_folded_at_block_3": ("long-stream", "onorma-t4096-gaussian-d2"),
    "window_off_by_one_from_64": ("wide-window", "window-64-t1500"),
    "kernel_transposed_from_d5": ("high-dimension", "feature-d6-p8"),
    "index_slip_from_4_kernels": ("many-kernels", "m8-r0.1"),
    "gamma_fault_after_300": ("long-stream", "monorma-t1100-m3"),
    "batch_stops_early_above_300": ("large-batch", "gaussian-t1000-d4"),
    "gaussian_uncentred_distance": ("far-inputs", "offset-1e8"),
    "first_order_shrink": ("strong-shrink", "eta-lam-0.999"),
    "scale_never_folded": ("shrink-underflow", "window-8-t140000"),
    "polynomial_degree_two": ("kernel-family", "polynomial-separable-huber"),
    "lone_round_unmasked": ("corner-cases", "window-16-t257"),
    "first_output_matrix_in_gamma": ("corner-cases", "distinct-outputs-m2"),
    "last_weight_decides_update": ("corner-cases", "zero-last-weight"),
    "norm_one_downdate_per_round": ("corner-cases", "listed-collapse-t40"),
}

