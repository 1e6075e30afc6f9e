"""MONORMA (Algorithm 2, spec 6), vectorised: same inputs and record as ``ovk_ref.monorma``.

As ``ovk_fast.onorma``: one shared coefficient array with a running scale factor, rounds in blocks whose
kernel rows (one set per kernel, one distance computation per tile shared by the kernels) against the earlier
inputs are applied tile by tile on ovk_fast's threads (``stored_rows.apply_rows``); within a block the m rows of
a round are applied together (``KernelRowsStack``); the gamma recursion (spec 6.2) and the delta update (6.3)
act on all m kernels at once, in a loop of numpy calls (``_rounds``) or, for the squared loss and separable
kernels where numba is installed, compiled (``ovk_fast.compiled``). No truncation (spec 6.5, E23), as in ovk_ref.
Near float64's limits a block's rounds go to ovk_ref's learner (``ovk_fast.literal_range``, as in ``ovk_fast.onorma``).
The next block's rows are started on another thread while a block's rounds run (``ovk_fast.look_ahead``).
"""
from __future__ import annotations

import numpy as np

from ovk_fast import compiled
from ovk_fast.divergence_watch import DivergenceWatch
from ovk_fast.kernel_rows import KernelRowsStack, diagonal_blocks, gaussian_factors
from ovk_fast.literal_range import LiteralBound, finite_rounds, magnitude
from ovk_fast.literal_rounds import run_literally
from ovk_fast.look_ahead import LookAhead
from ovk_fast.onorma import BLOCK_ROUNDS, block_schedule, step_sizes
from ovk_fast.precision import float64_only
from ovk_fast.stored_rows import Workspace, apply_rows, stream_operands
from ovk_fast.threads import single_blas_thread
from ovk_ref import validation
from ovk_ref.losses import Squared
from ovk_ref.monorma import MONORMA
from ovk_ref.records import MonormaRecord


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
    workspace = Workspace()     # the block's own rows: the same memory block after block
    operands = stream_operands(kernels, X)
    literal_bound, largest = LiteralBound(kernels, X, Y, eta, checked.divergence_bound), 0.0
    ahead = LookAhead(kernels, X, operands)     # the next block's rows, while a block's rounds run
    steps = step_sizes(eta, lam, n)
    with single_blas_thread(), np.errstate(over="ignore", invalid="ignore", divide="ignore"), ahead:
        while start < n:
            eta_t, c_t, scales = block_schedule(steps, start, min(n, start + BLOCK_ROUNDS))
            stop = start + len(scales)
            old, _ = ahead.take((start, stop))          # before the fold: its jobs read the stored beta
            beta[:start] *= scale
            block, block_beta = X[start:stop], beta[start:stop]
            left = operands.left(start, stop) if operands is not None else None
            if old is None:
                old = apply_rows(kernels, block, X[:start], beta[:start], None,                  # m x B x d
                                 None if left is None else (left, operands.right[:start]))
            if ahead.usable and stop < n:
                following = stop + len(block_schedule(steps, stop, min(n, stop + BLOCK_ROUNDS))[2])
                ahead.start((stop, following), start, beta, scales[-1])
            scale_list = scales.tolist()
            records = (predictions[start:stop], new_coefficients[start:stop], block_beta, gamma_record[start:stop],
                       weights_record[start:stop])
            initial = weights, gamma
            own = _compiled_rows(kernels, block, left, operands, start, workspace) \
                if compiled.AVAILABLE and isinstance(loss, Squared) else None
            if own is not None and len(own[1]):     # Gaussian kernels: K_j(x, x) = exp(0) B_j = B_j exactly
                diagonal = np.broadcast_to(own[2][:, None], (m, stop - start, d, d))
            else:
                diagonal = np.array([diagonal_blocks(kernel, block) for kernel in kernels])    # m x B x d x d
            if own is not None:
                weights, gamma = weights.copy(), gamma.copy()       # updated in place
                compiled.squared_rounds(*own, old, diagonal, Y[start:stop], c_t,
                                        np.concatenate(([1.0], scales[:-1])), scales, -eta_t, weights, gamma, r,
                                        all_zero == "keep", *records)
            else:
                rows = KernelRowsStack(kernels, block, block, workspace)
                weights, gamma = _rounds(rows, old, diagonal, Y[start:stop], c_t.tolist(), scale_list, (-eta_t).tolist(),
                                         weights, gamma, checked, records)
            ahead.behind(start, stop, block_beta)
            scale = scale_list[-1]
            unsafe = _first_unsafe(literal_bound, largest, start, records, initial[1]) if watch.diverged_at is None else None
            if unsafe is not None:      # ovk_ref's learner from there (ovk_fast.literal_rounds)
                ahead.drop()            # its jobs read beta
                stop, weights, gamma = _literal_rounds(checked, X, Y, beta, start, unsafe, stop, scales, initial, records)
                scale = 1.0
            largest = np.maximum(largest, magnitude(new_coefficients[start:stop]))
            watch.rounds(start, stop, {"predictions": predictions, "new_coefficients": new_coefficients},
                         {"gamma": gamma_record})
            start = stop
    return MonormaRecord(predictions=predictions, weights=weights_record, gamma=gamma_record,
                         coefficients=scale * beta, new_coefficients=new_coefficients,
                         kernel_evaluations=m * np.arange(1, n + 1), diverged_at=watch.diverged_at)


def _compiled_rows(kernels, block, left, operands, start, workspace) -> tuple | None:
    """The block's own rows for ``compiled.squared_rounds``: ``(E, factors, B)``, Gaussian exponents on the stream's
    operands (where the block has its ``left`` operand) exponentiated in the loop for the terms it needs
    (``kernel_rows.gaussian_factors``), else ``(S, [], B)`` the kernels' scalar rows; None where a kernel is not one
    separable term."""
    factors = None if left is None else gaussian_factors(kernels, operands.fold)
    n = len(block)
    if factors is not None:
        E = np.matmul(left, operands.right[start:start + n].T, out=workspace.array("own", (n, n)))
        return E[None], factors, np.array([np.asarray(kernel.B, dtype=float) for kernel in kernels])
    rows = KernelRowsStack(kernels, block, block, workspace)
    return None if rows.S is None else (rows.S, np.zeros(0), rows.B)


def _rounds(rows, old, diagonal, Y, c_t, scales, steps, weights, gamma, checked, records):
    """Steps 1-6 of a block's rounds one after the other (any loss, any kernel; spec 6.1-6.3), written into
    ``records`` (the block's predictions, new coefficients, unscaled coefficients, gammas and weights); returns
    the last round's weights and gammas."""
    loss, r, all_zero = checked.loss, checked.r, checked.all_zero
    predictions, new_coefficients, block_beta, gamma_record, weights_record = records
    for b, (c, previous, scale, step) in enumerate(zip(c_t, [1.0] + scales, scales, steps)):
        within = rows.apply_row(b, 0, b, block_beta) if b else 0.0
        v = previous * (old[:, b] + within)                                 # 1. v_j = g^j_{t-1}(x_t)
        prediction = predictions[b] = weights @ v                        # 2.
        new = new_coefficients[b] = step * loss.gradient(prediction, Y[b])   # 3.
        block_beta[b] = new / scale                                      # 4. shrink
        gamma = gamma_record[b] = c * c * gamma + (diagonal[:, b] @ new) @ new + 2 * c * (v @ new)   # 5. (6.2)
        w = weights**2 * np.maximum(gamma, 0.0)                          # 6.
        if not (all_zero == "keep" and not w.any()):
            numerator = w ** (1 / (r + 1))
            denominator = (w ** (r / (r + 1))).sum() ** (1 / r)
            weights = numerator / denominator if denominator > 0 else numerator * np.nan
        weights_record[b] = weights
    return weights, gamma


def _first_unsafe(literal_bound, largest, start, records, gamma) -> int | None:
    """The first round of the block (0-based, in the stream) where ovk_fast's order may decide differently from
    ovk_ref's whether the round is finite (``ovk_fast.literal_range``), or whose unscaled coefficient is not finite;
    None for none (as ``ovk_fast.onorma``'s).
    ``largest`` is the largest |new coefficient| before the block (a bound on every alpha_{i,t}: no truncation),
    ``gamma`` the gammas before the block."""
    predictions, new_coefficients, block_beta, gamma_record, _ = records
    stop = start + len(predictions)
    block, rounds = slice(start, stop), np.arange(start, stop)
    coefficients = np.maximum(largest, magnitude(new_coefficients))
    norms = np.maximum(magnitude(gamma), magnitude(gamma_record))
    if np.isfinite(magnitude(block_beta)) and not literal_bound.unsafe(stop - 1, stop, coefficients, norms,
                                                                       np.min(literal_bound.target_resolution[block])):
        return None
    coefficients = np.maximum(largest, np.maximum.accumulate(np.max(np.abs(new_coefficients), axis=1)))
    norms = np.maximum(magnitude(gamma), np.maximum.accumulate(np.max(np.abs(gamma_record), axis=1)))
    unsafe = ~finite_rounds(block_beta) | literal_bound.unsafe(rounds, rounds + 1, coefficients, norms,
                                                                literal_bound.resolution(rounds, predictions))
    return start + int(np.argmax(unsafe)) if unsafe.any() else None


def _literal_rounds(checked, X, Y, beta, start, first, stop, scales, initial, records):
    """Rounds ``first..stop-1`` of the block starting at ``start`` run by ovk_ref's learner from the state after
    round ``first - 1`` (``alpha_{i,first-1} = beta_i`` times the block's scale then), written into the block's
    ``records``; ``beta[:end]`` then holds the coefficients with scale 1. Returns the first round not run ``end``,
    and the weights and gammas after round ``end - 1``."""
    predictions, new_coefficients, _, gamma_record, weights_record = records
    previous = 1.0 if first == start else scales[first - 1 - start]
    weights, gamma = initial if first == start else (weights_record[first - 1 - start], gamma_record[first - 1 - start])
    state = {"centres": tuple(X[:first]), "alphas": tuple(previous * beta[:first]), "weights": weights.copy(),
             "gamma": gamma.copy()}

    def record(t, learner):
        b = t - start
        predictions[b], new_coefficients[b] = learner.last_prediction, learner.last_new_coefficient
        gamma_record[b], weights_record[b] = learner.gamma, learner.weights

    end, learner = run_literally(checked, state, X, Y, first, stop, record)
    beta[:end] = learner.alphas
    return end, np.array(learner.weights, dtype=float), np.array(learner.gamma, dtype=float)
