"""The quantities of one ONORMA run that the proofs of Propositions 1-2 and Theorems 1-2 compare (spec 5, 8).

Computed once per instance, in float64, from the implementation's run on every prefix (``common.trajectory``: an
online learner's ``f_t`` depends on the first t examples only) and from the spec's formulas: the gradient
``u_t`` of the loss at the prediction ``p_t = f_{t-1}(x_t)``, the shrink products ``P_{i,t}`` (spec 5.2), the norms
``||K(., x_i) alpha_{i,t}||_H = <K(x_i, x_i) alpha_{i,t}, alpha_{i,t}>^(1/2)`` of the terms of the expansion.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

import ovk_ref
from proofs_check.claims import common


@dataclass
class OnormaRun:
    instance: dict
    X: np.ndarray
    Y: np.ndarray
    etas: np.ndarray              # eta_t, t = 1..n (index t - 1)
    kernel: object
    loss: object
    kappa: float
    predictions: np.ndarray       # p_t = f_{t-1}(x_t)
    new: np.ndarray               # alpha_{t,t}
    coefficients: list            # f_t as its t x d coefficients on x_1..x_t, t = 1..n
    norms: np.ndarray             # ||f_t||_H, t = 0..n

    @property
    def n(self) -> int:
        return len(self.X)

    @property
    def lam(self) -> float:
        return float(self.instance["lam"])

    @functools.cached_property
    def gradients(self) -> np.ndarray:
        """``u_t``: the loss's (sub)gradient at ``p_t`` (the selection of ovk_ref's loss, spec 4)."""
        return np.array([self.loss.gradient(p, y) for p, y in zip(self.predictions, self.Y)], dtype=float)

    @functools.cached_property
    def log_products(self) -> np.ndarray:
        """``log prod_{k<=t} (1 - eta_k lam)``, t = 0..n: ``P_{i,t} = exp(L_t - L_i)``."""
        return np.concatenate([[0.0], np.cumsum(np.log1p(-self.etas * self.lam))])

    def product(self, i: int, t: int) -> float:
        """``P_{i,t} = prod_{k=i+1}^t (1 - eta_k lam)`` (``P_{t,t} = 1``)."""
        return float(np.exp(self.log_products[t] - self.log_products[i]))

    def term_norms(self, t: int) -> np.ndarray:
        """``||K(., x_i) alpha_{i,t}||_H`` for i = 1..t (0 for a truncated term)."""
        coefficients = np.asarray(self.coefficients[t - 1], dtype=float)
        return np.array([math.sqrt(max(float(a @ self.kernel(x, x) @ a), 0.0)) for x, a in zip(self.X[:t], coefficients)])

    def kept(self, t: int) -> np.ndarray:
        """Indices i (1-based) of the terms of ``f_t`` that truncation kept."""
        return np.arange(max(1, t - common.window(self.instance, t) + 1), t + 1)


def onorma_run(instance, impl) -> OnormaRun:
    trajectory = common.trajectory(impl, instance)
    kernel = common.kernel(instance)
    n = len(trajectory.X)
    norms = np.array([0.0] + [float(trajectory.norm(kernel, t)) for t in range(1, n + 1)])
    return OnormaRun(instance=instance, X=trajectory.X, Y=trajectory.Y, etas=common.step_sizes(instance, n), kernel=kernel,
                     loss=ovk_ref.as_loss(instance["loss"]), kappa=math.sqrt(float(instance["kappa2"])),
                     predictions=np.asarray(trajectory.record["predictions"], dtype=float),
                     new=np.asarray(trajectory.record["new_coefficients"], dtype=float),
                     coefficients=[np.asarray(c, dtype=float) for c in trajectory.coefficients], norms=norms)


def warm_onorma_run(instance, impl, bound: float) -> OnormaRun:
    """The run started from the instance's ``f0`` scaled to ``||f_0|| = fraction * bound`` (``common.warm_trajectory``):
    ``predictions`` are ``f_{t-1}(x_t)`` with ``f_0``'s share, ``norms`` the ``||f_t||``, t = 0..n; ``coefficients`` those
    of the part learnt from the stream."""
    warm = common.warm_trajectory(impl, instance, bound)
    kernel = common.kernel(instance)
    n = len(warm.run.X)
    return OnormaRun(instance=instance, X=warm.run.X, Y=common.arrays(instance)[1], etas=common.step_sizes(instance, n),
                     kernel=kernel, loss=ovk_ref.as_loss(instance["loss"]), kappa=math.sqrt(float(instance["kappa2"])),
                     predictions=np.asarray(warm.predictions(), dtype=float),
                     new=np.asarray(warm.run.record["new_coefficients"], dtype=float),
                     coefficients=[np.asarray(c, dtype=float) for c in warm.run.coefficients],
                     norms=np.array([float(warm.norm(kernel, t)) for t in range(n + 1)]))
