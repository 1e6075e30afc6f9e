"""A plain loop engine for ONORMA, MONORMA and batch ridge whose steps can be overridden one at a time.

It is the base of the regime faults (``ovk_conform.regime_faults.CONFORMANCE_MUTANTS``: a fault that shows only past
round 256, for windows >= 64, for d >= 5, ...) and of an honest float32 engine (``float32_engine``) that
measures the float32 tolerance model. Fast enough for the regimes (kernel rows from ``ovk_fast.kernel_rows``,
one query per round) and literal otherwise: round t predicts, steps, shrinks every kept coefficient, truncates
(spec 5.1, 6.1, 7.1). Returns ``predictions`` (and ``weights``, ``gamma`` for MONORMA) and the new coefficients.
"""
from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np

from ovk_fast.kernel_rows import KernelRows, diagonal_blocks
from ovk_ref import truncation as truncation_schedules
from ovk_ref.kernels import Gaussian, Separable, as_kernel
from ovk_ref.losses import as_loss


class PlainOnorma:
    """Algorithm 1 as a loop over rounds; ``dtype`` is the type coefficients and predictions are stored in."""

    dtype = np.float64

    def step_size(self, eta: float, t: int) -> float:
        return eta / math.sqrt(t)

    def shrink_factor(self, eta_t: float, lam: float) -> float:
        return 1.0 - eta_t * lam

    def window(self, schedule, t: int) -> int:
        return t if schedule is None else truncation_schedules.window(schedule, t)

    def kernel_values(self, kernel, x, stored_X, coefficients) -> np.ndarray:
        """``sum_i K(x, x_i) a_i`` over the stored points (separable Gaussian kernels directly, spec 3.1)."""
        if isinstance(kernel, Separable) and isinstance(kernel.scalar, Gaussian):
            differences = stored_X - x
            k = np.exp(-np.einsum("ip,ip->i", differences, differences) / kernel.scalar.mu)
            return kernel.B @ (k @ coefficients)
        return KernelRows(kernel, x[None, :], stored_X).apply(coefficients)[0]

    def first_term(self, t: int, n: int, lo: int) -> int:
        """The first stored term the prediction of round t (of n) sums: the window's first, ``lo`` (spec 5.1)."""
        return lo

    def after_round(self, t: int, alpha: np.ndarray, lo: int, factors: list) -> None:
        """Called after round t (``factors``: the shrink factors of rounds 1..t)."""

    def __call__(self, X, Y, kernel, *, lam, eta, loss="squared", truncation=None, precision=None):
        kernel, loss = as_kernel(kernel), as_loss(loss)
        schedule = truncation_schedules.as_schedule(truncation)
        X, Y = np.asarray(X, dtype=self.dtype), np.asarray(Y, dtype=self.dtype)
        n, d = Y.shape
        alpha = np.zeros((n, d), dtype=self.dtype)
        predictions, new_coefficients = np.zeros((n, d), dtype=self.dtype), np.zeros((n, d), dtype=self.dtype)
        support = np.zeros(n, dtype=int)
        lo, factors = 0, []
        for t in range(1, n + 1):
            first = self.first_term(t, n, lo)
            prediction = (self.kernel_values(kernel, X[t - 1], X[first:t - 1], alpha[first:t - 1]) if t - 1 > first
                          else np.zeros(d)).astype(self.dtype)
            eta_t = self.step_size(eta, t)
            c_t = self.shrink_factor(eta_t, lam)
            alpha[t - 1] = -eta_t * loss.gradient(prediction, Y[t - 1])
            alpha[lo:t - 1] *= self.dtype(c_t)
            factors.append(c_t)
            lo = max(lo, t - self.window(schedule, t))
            predictions[t - 1], new_coefficients[t - 1], support[t - 1] = prediction, alpha[t - 1], t - lo
            self.after_round(t, alpha, lo, factors)
        return {"predictions": predictions, "new_coefficients": new_coefficients, "support_sizes": support}


class PlainMonorma:
    """Algorithm 2 as a loop over rounds (spec 6.1-6.3; delta kept when every w_j = 0)."""

    dtype = np.float64

    def step_size(self, eta: float, t: int) -> float:
        return eta / math.sqrt(t)

    def gamma_update(self, t: int, gamma, c_t: float, v, new, diagonal) -> np.ndarray:
        """``gamma_t = c_t^2 gamma_{t-1} + a^T K_j(x_t, x_t) a + 2 c_t <v_j, a>`` (spec 6.2)."""
        return c_t * c_t * gamma + np.einsum("jde,d,e->j", diagonal, new, new) + 2 * c_t * (v @ new)

    def weight_update(self, weights, gamma, r: float) -> np.ndarray:
        w = weights ** 2 * np.maximum(gamma, 0.0)
        if not np.any(w):
            return weights
        return w ** (1 / (r + 1)) / np.sum(w ** (r / (r + 1))) ** (1 / r)

    def __call__(self, X, Y, kernels, *, lam, eta, r, loss="squared", all_zero="keep", precision=None):
        kernels, loss = [as_kernel(kernel) for kernel in kernels], as_loss(loss)
        X, Y = np.asarray(X, dtype=self.dtype), np.asarray(Y, dtype=self.dtype)
        n, d = Y.shape
        m = len(kernels)
        alpha = np.zeros((n, d), dtype=self.dtype)
        predictions, weights_record, gamma_record = np.zeros((n, d)), np.zeros((n, m)), np.zeros((n, m))
        weights, gamma = np.full(m, 1.0 / m), np.zeros(m)
        for t in range(1, n + 1):
            x = X[t - 1]
            v = (np.array([KernelRows(kernel, x[None, :], X[:t - 1]).apply(alpha[:t - 1])[0] for kernel in kernels])
                 if t > 1 else np.zeros((m, d)))
            prediction = (weights @ v).astype(self.dtype)
            eta_t = self.step_size(eta, t)
            c_t = 1.0 - eta_t * lam
            new = -eta_t * loss.gradient(prediction, Y[t - 1])
            alpha[:t - 1] *= c_t
            alpha[t - 1] = new
            diagonal = np.array([diagonal_blocks(kernel, x[None, :])[0] for kernel in kernels])
            gamma = self.gamma_update(t, gamma, c_t, v, new, diagonal)
            weights = self.weight_update(weights, gamma, r)
            predictions[t - 1], weights_record[t - 1], gamma_record[t - 1] = prediction, weights, gamma
        return {"predictions": predictions, "weights": weights_record, "gamma": gamma_record}


class PlainBatch:
    """``(G + t lam I) c = vec(Y)`` with the dense block Gram matrix (spec 7.1)."""

    def solve(self, system, rhs) -> np.ndarray:
        return np.linalg.solve(system, rhs)

    def __call__(self, X, Y, kernel, *, lam, precision=None):
        kernel = as_kernel(kernel)
        X, Y = np.asarray(X, dtype=float), np.asarray(Y, dtype=float)
        system = KernelRows(kernel, X, X).dense()
        system[np.diag_indices_from(system)] += len(X) * lam
        return self.solve(system, Y.reshape(-1)).reshape(Y.shape)


class Float32Onorma(PlainOnorma):
    """An honest float32 engine: inputs, kernel values, coefficients and predictions stored in float32."""

    dtype = np.float32


class Float32Monorma(PlainMonorma):
    dtype = np.float32


#: measures the float32 tolerance model: ``ovk-check conform ovk_conform.plain_engine:float32_engine
#: --precision float32``
float32_engine = SimpleNamespace(onorma=Float32Onorma(), monorma=Float32Monorma())
