"""MONORMA (Algorithm 2, spec 6), vectorised: same inputs and record as ``ovk_ref.monorma``.

As ``ovk_fast.onorma``: one shared coefficient array with a running scale factor, rounds in blocks whose
kernel rows (one set per kernel) against the earlier inputs are GEMMs; the gamma recursion (spec 6.2) and
the delta update (6.3) act on all m kernels at once. No truncation (spec 6.5, E23), as in ovk_ref.
"""
from __future__ import annotations

import math

import numpy as np

from ovk_ref import validation
from ovk_ref.monorma import MONORMA
from ovk_ref.records import MonormaRecord
from ovk_fast.divergence_watch import DivergenceWatch
from ovk_fast.kernel_rows import KernelRows, PairGeometry, diagonal_blocks
from ovk_fast.onorma import BLOCK_ROUNDS, RESCALE_BELOW
from ovk_fast.precision import float64_only
from ovk_fast.threads import single_blas_thread


def monorma(X, Y, kernels, *, lam, eta, r, loss="squared", all_zero="keep", precision=None, on_divergence="warn",
            divergence_bound=None) -> MonormaRecord:
    """Run Algorithm 2 over the stream ``(X[t], Y[t])``; parameters and record as ``ovk_ref.monorma``."""
    float64_only(precision)
    # ovk_ref's learner checks every parameter (and holds the kernels, loss, d and p); it does no work
    checked = MONORMA(kernels, lam=lam, eta=eta, r=r, loss=loss, all_zero=all_zero, on_divergence=on_divergence,
                      divergence_bound=divergence_bound)
    kernels, loss, lam, eta, r = checked.kernels, checked.loss, checked.lam, checked.eta, checked.r
    X, Y = validation.stream(X, Y, checked)
    loss.check_targets(Y)
    n, d = Y.shape
    m = len(kernels)

    beta = np.zeros((n, d))        # alpha_{i,t} = scale * beta_i; folded at every block start
    predictions, new_coefficients = np.zeros((n, d)), np.zeros((n, d))
    weights_record, gamma_record = np.zeros((n, m)), np.zeros((n, m))
    weights, gamma = np.full(m, 1.0 / m), np.zeros(m)   # delta_0 = 1/m, gamma_0 = 0 (spec 6.1, E21)
    scale, start = 1.0, 0
    watch = DivergenceWatch(checked)
    with single_blas_thread(), np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        while start < n:
            stop = min(n, start + BLOCK_ROUNDS)
            beta[:start] *= scale
            scale = 1.0
            block = X[start:stop]
            old_pairs, block_pairs = PairGeometry(block, X[:start]), PairGeometry(block, block)   # shared by the kernels
            old = np.array([KernelRows(kernel, block, X[:start], old_pairs).apply(beta[:start]) for kernel in kernels])
            rows = [KernelRows(kernel, block, block, block_pairs) for kernel in kernels]
            diagonal = np.array([diagonal_blocks(kernel, block) for kernel in kernels])                         # m x B x d x d
            for b in range(stop - start):
                t = start + b
                within = np.array([rows_j.apply_row(b, 0, b, beta[start:]) for rows_j in rows]) if b else 0.0
                v = scale * (old[:, b] + within)                                 # 1. v_j = g^j_{t-1}(x_t)
                prediction = weights @ v                                         # 2.
                eta_t = eta / math.sqrt(t + 1)
                c_t = 1.0 - eta_t * lam
                new = -eta_t * loss.gradient(prediction, Y[t])                   # 3.
                scale *= c_t                                                     # 4. shrink
                beta[t] = new / scale
                gamma = c_t * c_t * gamma + (diagonal[:, b] @ new) @ new + 2 * c_t * (v @ new)   # 5. (spec 6.2)
                w = weights**2 * np.maximum(gamma, 0.0)                          # 6.
                if not (all_zero == "keep" and not np.any(w)):
                    numerator = w ** (1 / (r + 1))
                    denominator = np.sum(w ** (r / (r + 1))) ** (1 / r)
                    weights = numerator / denominator if denominator > 0 else numerator * np.nan
                predictions[t], new_coefficients[t] = prediction, new
                weights_record[t], gamma_record[t] = weights, gamma
                if scale < RESCALE_BELOW:
                    stop = t + 1
                    break
            watch.rounds(start, stop, {"predictions": predictions, "new_coefficients": new_coefficients},
                         {"gamma": gamma_record})
            start = stop
    return MonormaRecord(predictions=predictions, weights=weights_record, gamma=gamma_record,
                         coefficients=scale * beta, new_coefficients=new_coefficients,
                         kernel_evaluations=m * np.arange(1, n + 1), diverged_at=watch.diverged_at)

