"""ONORMA (Algorithm 1, spec 5), vectorised: same inputs and record as ``ovk_ref.onorma``.

* Shrink as a running scale factor: ``alpha_{i,t} = scale_t beta_i`` with ``scale_t = prod c_k``, so step 3
  costs one multiplication; ``beta`` is folded back (``beta *= scale``, ``scale = 1``) at every block start,
  and a block ends early when ``scale`` falls below ``RESCALE_BELOW``.
* Stored inputs and coefficients in a preallocated ring buffer of ``capacity`` = the largest support
  (+1: the oldest term is still needed for the norm downdate of the round that drops it); entry i lives in
  slot ``i % capacity``; truncation only moves the first kept index.
* Rounds in blocks of ``BLOCK_ROUNDS``: the kernel rows of the whole block against the stored points and
  their contribution to every prediction of the block are computed tile by tile (``stored_rows.apply_rows``,
  on ovk_fast's threads; the Gaussian exponents on operands built once per run, ``distances.StreamOperands``,
  kept in the ring beside the points); the old coefficients only rescale within the block. Inside the block each round adds
  the terms of the block's earlier rounds: for the squared loss and a kernel ``k(x, z) B``, a compiled loop where
  numba is installed (``ovk_fast.compiled``: each round's term added to every later round's sum at once, on the
  block's own Gaussian values transposed, of which only the strict upper triangle is computed), else that triangular
  linear system solved at once in B's eigenbasis; otherwise a loop over the rounds does only what depends on the
  previous round. With numba, a single Gaussian's tile is one compiled call too (``compiled.gaussian_tile``: the
  exponents' GEMM, exp and the product with the coefficients).
* Look-ahead (without truncation, for kernels ``sum_k k_k(x, z) B_k``): what the next block needs and a block's
  rounds do not change is started on another of ovk_fast's threads while they run (``threads.map_in_background``):
  the next block's rows against the points stored before the block, its own Gaussian values, and, once the rounds
  give their coefficients, its rows against the block's points; the next block's start takes what is left of these
  jobs on its own thread. The coefficients are taken times the fold the next block's start applies, so the sums are
  the same bits whichever thread and whenever (measured at t = 5000, d = 10: ONORMA on 2 threads 1.39x faster than
  on 1, where the tiles alone, with the rounds waiting for them, gave 1.0x).
* Near float64's limits, where this order of a round's operations could overflow or underflow where ovk_ref's does
  not, or the reverse (``ovk_fast.literal_range``), the block's rounds from there are run by ovk_ref's own learner
  (``ovk_fast.literal_rounds``): a run diverges where ovk_ref's literal operations do (``ovk_ref.divergence``).
"""
from __future__ import annotations

import functools

import numpy as np
from scipy import linalg

from ovk_fast import compiled, threads
from ovk_fast.batch import eigenvalue_groups
from ovk_fast.divergence_watch import DivergenceWatch
from ovk_fast.kernel_rows import KernelRows, PairGeometry, bandwidths, diagonal_quadratic, gaussian_factors
from ovk_fast.literal_range import LiteralBound, finite_rounds, magnitude
from ovk_fast.literal_rounds import run_literally
from ovk_fast.look_ahead import LookAhead
from ovk_fast.precision import float64_only
from ovk_fast.stored_rows import Workspace, apply_rows, stream_operands
from ovk_fast.support import first_kept, kept_before
from ovk_fast.threads import single_blas_thread
from ovk_ref import validation
from ovk_ref.kernels import Separable
from ovk_ref.losses import Squared
from ovk_ref.onorma import ONORMA
from ovk_ref.records import OnormaRecord

#: rounds per block: a block's kernel rows are a BLOCK_ROUNDS x capacity GEMM; inside the block each round
#: does a matvec over at most BLOCK_ROUNDS terms. 256 keeps both small and the blocks few.
BLOCK_ROUNDS = 256
#: ``beta = alpha / scale`` grows like 1/scale; fold the scale in long before 1/scale can overflow
#: (float64 max ~1e308) or coefficients lose range. Not a tolerance: results do not depend on it.
RESCALE_BELOW = 1e-100


def step_sizes(eta: float, lam: float, n: int) -> tuple:
    """Step sizes ``eta_t = eta / sqrt(t)`` and shrink factors ``c_t = 1 - eta_t lam`` of rounds t = 1..n, for
    ``block_schedule``: computed once per run (each entry as for its round alone)."""
    eta_t = eta / np.sqrt(np.arange(1, n + 1))
    return eta_t, 1.0 - eta_t * lam


def block_schedule(steps: tuple, start: int, stop: int):
    """Step sizes, shrink factors (``step_sizes``) and running scales ``prod c`` (from 1 at ``start``) of rounds
    ``start..stop-1`` (0-based), cut after the first round whose scale falls below ``RESCALE_BELOW`` (the block
    ends there). They do not depend on the data."""
    eta_t, c_t = steps[0][start:stop], steps[1][start:stop]
    scales = np.cumprod(c_t)
    small = scales < RESCALE_BELOW
    if small.any():
        cut = int(np.argmax(small)) + 1
        return eta_t[:cut], c_t[:cut], scales[:cut]
    return eta_t, c_t, scales


#: the fewest threads of ovk_fast's pool with which ONORMA starts the next block's jobs early (``_look_ahead``)
LOOK_AHEAD_THREADS = 2
#: rows of a block's own exponents per GEMM (_upper_exponents)
UPPER_ROWS = 64


def _upper_exponents(right: np.ndarray, left: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``out = right @ left.T`` (n x n, a block's own exponents transposed) on and above the diagonal blocks of
    ``UPPER_ROWS`` rows, which hold the strict upper triangle the compiled rounds read: 5/8 of the GEMM for
    n = 256 (measured 45 us against 57 for the whole square, one core); the rest of ``out`` is not written."""
    for i in range(0, len(right), UPPER_ROWS):
        np.matmul(right[i:i + UPPER_ROWS], left[i:].T, out=out[i:i + UPPER_ROWS, i:])
    return out


@functools.cache
def _strictly_lower(n: int) -> np.ndarray:
    """``j < r`` for r, j < n (read-only: made once per block size)."""
    mask = np.tri(n, n, -1, dtype=bool)
    mask.flags.writeable = False
    return mask


class _Ring:
    """Preallocated stored inputs ``X``, unscaled coefficients ``beta``, their stream indices (-1: empty) and, with
    the stream's expansion operands, their ``right`` operands. Where it holds the whole stream (no truncation: entry i
    in slot i), its inputs and operands are the stream's own arrays, not copies."""

    def __init__(self, capacity: int, stream: np.ndarray, d: int, operands):
        p, whole = stream.shape[1], capacity >= len(stream)
        self.beta = np.zeros((capacity, d))
        self.index = np.full(capacity, -1)
        self.stored = 0         # entries put so far
        self.operands = operands if operands is not None and operands.right is not None else None
        self.X = stream if whole else np.zeros((capacity, p))
        self.right = None
        if self.operands is not None:
            self.right = self.operands.right if whole else np.zeros((capacity, p + 2))
        self.copies = not whole

    def put(self, start: int, X, beta) -> None:
        """Store entries ``start, start + 1, ...``; of more than ``capacity``, only the last ``capacity`` stay."""
        kept = slice(max(0, len(X) - len(self.index)), len(X))
        indices = np.arange(start, start + len(X))[kept]
        slots = indices % len(self.index)
        if slots[-1] - slots[0] == len(slots) - 1:      # no wrap: slices, not index arrays
            slots = slice(slots[0], slots[-1] + 1)
        self.beta[slots], self.index[slots] = beta[kept], indices
        self.stored = max(self.stored, start + len(X))
        if self.copies:
            self.X[slots] = X[kept]
            if self.right is not None:
                self.right[slots] = self.operands.right[indices[0]:indices[-1] + 1]

    def filled(self) -> int:
        """Slots in use; they are ``0..filled-1`` (entry i goes to slot ``i % capacity``, i = 0, 1, ...)."""
        return min(self.stored, len(self.index))


def onorma(X, Y, kernel, *, lam, eta, loss="squared", truncation=None, precision=None, on_divergence="warn",
           divergence_bound=None) -> OnormaRecord:
    """Run Algorithm 1 over the stream ``(X[t], Y[t])``; parameters and record as ``ovk_ref.onorma``."""
    float64_only(precision)
    # ovk_ref's learner checks every parameter (and holds the kernel, loss and schedule); it does no work
    checked = ONORMA(kernel, lam=lam, eta=eta, loss=loss, truncation=truncation, on_divergence=on_divergence,
                     divergence_bound=divergence_bound)
    X, Y = validation.stream(X, Y, checked.kernel)
    checked.loss.check_targets(Y)
    n, d = Y.shape
    lo = first_kept(checked.schedule, n)
    run = _Run(checked, X, Y, lo)
    watch = DivergenceWatch(checked)
    with single_blas_thread(), np.errstate(over="ignore", invalid="ignore", divide="ignore"), run.ahead:
        start = 0
        while start < n:
            stop = run.block(start, min(n, start + BLOCK_ROUNDS), literal=watch.diverged_at is None)
            watch.rounds(start, stop, {"predictions": run.predictions, "new_coefficients": run.new_coefficients},
                         {"rkhs_norm2": run.norms})
            start = stop
    if not run.ring.copies and run.ring.stored == n and lo[-1] == 0:    # entry i in slot i, every one kept
        coefficients = np.multiply(run.ring.beta, run.scale, out=run.ring.beta)     # its memory: no new pages
    else:
        coefficients = np.zeros((n, d))
        kept = run.ring.index >= lo[-1]
        coefficients[run.ring.index[kept]] = run.scale * run.ring.beta[kept]
    return OnormaRecord(predictions=run.predictions, coefficients=coefficients, new_coefficients=run.new_coefficients,
                        rkhs_norm2=run.norms, kernel_evaluations=np.arange(n) - run.before,
                        support_sizes=np.arange(n) - lo + 1, diverged_at=watch.diverged_at)


class _Run:
    """State of one run: ``alpha_{i,t} = scale * ring.beta[slot of i]``, ``norm2 = ||f_t||^2``, and the records."""

    def __init__(self, checked: ONORMA, X, Y, lo):
        self.checked = checked
        self.kernel, self.loss, self.lam, self.eta = checked.kernel, checked.loss, checked.lam, checked.eta
        self.X, self.Y, self.lo = X, Y, lo
        self.before = kept_before(lo)                 # support of f_{t-1} is [before[t], t)
        self.truncated = checked.schedule is not None
        n, d = Y.shape
        capacity = int(np.max(np.arange(n) - self.before)) + 1   # support of f_{t-1} plus the new term
        # the stream's operands in the workspace of the run's thread: the run's jobs on other threads end with it
        self.ring = _Ring(capacity, X, d, stream_operands([self.kernel], X, Workspace.of_this_thread()))
        self.literal_bound = LiteralBound([self.kernel], X, Y, checked.eta, checked.divergence_bound)
        self.largest = 0.0      # the largest |alpha_{i,t}| so far: at most the largest |new coefficient|
        self.scale, self.norm2 = 1.0, 0.0
        self._eigen = None              # (Q, [(indices, eigenvalue), ...]) of B for _affine_rounds, once per run
        # a separable kernel's B as the compiled rounds take it (C-contiguous float64), once per run
        self.output_matrix = np.ascontiguousarray(self.kernel.B, dtype=float) if isinstance(self.kernel, Separable) else None
        self.bandwidths = bandwidths([self.kernel])
        # a single Gaussian's B (K(x, x) = B) where the norms' terms take compiled.norm_terms (_norms)
        self.gaussian_output = self.output_matrix if compiled.AVAILABLE and self.bandwidths \
            and isinstance(self.kernel, Separable) else None
        self.workspace = Workspace()    # the block's own rows and solve: the same memory block after block
        self.ahead = LookAhead([self.kernel], X, self.ring.operands)     # the next block's work (_look_ahead)
        # a block's own values and the next's: in the workspace of the run's thread, the same memory run after run
        self.own_buffers = [Workspace.of_this_thread().array(("own values", i), (BLOCK_ROUNDS ** 2,)) for i in range(2)]
        self.schedule = (None, None)    # (rows, block_schedule of these rounds)
        self.split = None               # one thread: where the look-ahead would split the next block's tiles
        self.steps = step_sizes(self.eta, self.lam, n)
        self.predictions, self.new_coefficients, self.norms = np.zeros((n, d)), np.zeros((n, d)), np.zeros(n)

    def _left_operand(self, rows: range):
        """The expansion's left operand of the inputs ``rows`` (``distances.StreamOperands.left``), or None."""
        return self.ring.operands.left(rows.start, rows.stop) if self.ring.operands is not None else None

    def _old_terms(self, rows: range, first):
        """``sum_j K(x_r, x_j) beta_j`` for the inputs ``r`` in ``rows``, over stored j >= first[r] (all stored j
        without truncation)."""
        filled = self.ring.filled()
        mask = self.ring.index[None, :filled] >= first[:, None] if self.truncated else None
        left = self._left_operand(rows)
        split = self.split if self.split is not None and 0 < self.split < filled else None   # one thread: _look_ahead
        operands = None if left is None else (left, self.ring.right[:filled])
        return apply_rows([self.kernel], self.X[rows.start:rows.stop], self.ring.X[:filled], self.ring.beta[:filled],
                          mask, operands, split)[0]

    def _look_ahead(self, start: int, stop: int, scale: float) -> None:
        """Start the next block's work on another thread (``ovk_fast.look_ahead``): its rows against the points
        stored before this block (``start``), the coefficients times ``scale`` (the next block's fold), and its own
        Gaussian values (``_own_values``). Without truncation only: the ring then never overwrites a stored point
        (slot i holds entry i). On one thread, where the jobs would only run when the next block asks for them, the
        next block computes its rows itself, its tiles split at ``start`` as the look-ahead's (``split``: the same
        sums, so the same bits on any number of threads), and its own values in its rounds (measured at t = 5000,
        d = 10, one thread, the work besides the tiles: about 0.15 ms less a run than the jobs run on the same thread,
        their tiles already in one call)."""
        n = len(self.Y)
        self.split = None
        if self.truncated or not self.ahead.usable or stop >= n:
            return
        if threads.THREADS < LOOK_AHEAD_THREADS:
            self.split = start
            return
        following = stop + len(self._schedule(stop, min(n, stop + BLOCK_ROUNDS))[2])
        own = self._own_values(stop, following, self._left_operand(range(stop, following)))
        self.ahead.start((stop, following), start, self.ring.beta, scale, [own] if own else [])

    def _own_values(self, start: int, stop: int, left):
        """A job computing the block's own Gaussian values ``exp(factor E)`` (E the exponents on the stream's
        operands), transposed and on the strict upper triangle, as the compiled rounds read them, into the buffer the
        block after it does not use; None where the compiled rounds do not take them (``_compiled_rounds``)."""
        factors = None if left is None else gaussian_factors([self.kernel], self.ring.operands.fold)
        if not (compiled.AVAILABLE and isinstance(self.loss, Squared)) or factors is None:
            return None
        self.own_buffers.reverse()
        n, buffer, right = stop - start, self.own_buffers[0], self.ring.operands.right[start:stop]

        def job():
            exponents = _upper_exponents(right, left, Workspace.of_this_thread().array("own exponents", (n, n)))
            return compiled.exp_upper(exponents, buffer[:n * n].reshape(n, n), float(factors[0]))
        return job

    def _schedule(self, start: int, stop: int) -> tuple:
        """``block_schedule`` of rounds ``start..stop-1``; the last one is kept (``_look_ahead`` asks for the next
        block's first)."""
        if self.schedule[0] != (start, stop):
            self.schedule = ((start, stop), block_schedule(self.steps, start, stop))
        return self.schedule[1]

    def block(self, start: int, stop: int, literal: bool = True) -> int:
        """Rounds ``start..stop-1`` (0-based); returns the first round not run (earlier if ``scale`` gets small, or
        after a divergent round run literally).

        Only steps 1-2 (prediction, new coefficient) depend on the previous round's result: where they are linear
        (squared loss, kernel ``k B``) ``_compiled_rounds`` runs them compiled, or without numba ``_affine_rounds``
        solves them for the whole block; ``_rounds`` loops over the rounds elsewhere. The step sizes and shrink
        factors do not depend on the data and are computed first; the norm recursion (spec 6.2, 6.5), the records
        and the ring buffer follow. With ``literal`` (no divergence yet), the rounds from the first whose numbers could reach float64's limits
        (``_first_unsafe``) are run by ovk_ref's learner (``_literal_rounds``)."""
        X, Y, before = self.X, self.Y, self.before
        eta_t, c_t, scales = self._schedule(start, stop)
        stop = start + len(scales)
        applied, jobs = self.ahead.take((start, stop))          # before the fold: its jobs read the stored beta
        self.ring.beta[:self.ring.filled()] *= self.scale     # fold the scale: stored beta are alpha_{i,start-1} now
        queries = X[start:stop]
        old = applied[0] if applied is not None else self._old_terms(range(start, stop), before[start:stop])
        self._look_ahead(start, stop, scales[-1])
        firsts = np.maximum(before[start:stop] - start, 0)
        steps = -eta_t
        records = self.predictions[start:stop], self.new_coefficients[start:stop]
        own = jobs[0] if jobs else None     # the own values job's result (_own_values)
        beta = self._compiled_rounds(start, stop, old, firsts, scales, steps, records, own) if compiled.AVAILABLE else None
        if beta is None:
            rows = self._own_rows(start, stop)
            beta = self._affine_rounds(rows, old, firsts, scales, steps, Y[start:stop], records)
            if beta is None:
                beta = self._rounds(rows, old, firsts, scales, steps, Y[start:stop], records)
        self.ahead.behind(start, stop, beta)
        norm2 = self.norm2
        self._norms(start, stop, c_t, scales, beta)
        unsafe = self._first_unsafe(start, stop, beta, norm2) if literal else None
        if unsafe is not None:
            self.ahead.drop()                 # its jobs read the ring
            self.split = None                 # the next block computes its rows whole, as after a drop
            return self._literal_rounds(start, unsafe, stop, scales, beta, norm2)
        self.ring.put(start, queries, beta)
        self.scale = float(scales[-1])
        return stop

    def _own_rows(self, start: int, stop: int) -> KernelRows:
        """The rows of the block's inputs against themselves (the Gaussian exponents on the stream's operands)."""
        queries, left = self.X[start:stop], self._left_operand(range(start, stop))
        own = None if left is None else (left, self.ring.operands.right[start:stop])
        return KernelRows(self.kernel, queries, queries, PairGeometry(queries, queries, self.workspace, self.bandwidths, own))

    def _compiled_rounds(self, start, stop, old, firsts, scales, steps, records, own=None):
        """``_rounds`` compiled (``compiled.onorma_squared_rounds``) for the squared loss and a kernel ``k(x, z) B``,
        on the block's own rows transposed: a Gaussian's own values computed ahead (``own``, ``_own_values``), or its
        rows as exponents on the stream's operands, exponentiated in the loop for the terms it needs
        (``kernel_rows.gaussian_factors``), else the block's own scalar rows. None where it does not apply."""
        if not isinstance(self.loss, Squared):
            return None
        n, left = stop - start, self._left_operand(range(start, stop))
        factors = None if left is None or own is not None else gaussian_factors([self.kernel], self.ring.operands.fold)
        if own is not None:
            T, B, factors = own, self.output_matrix, np.zeros(0)
        elif factors is not None:
            T = _upper_exponents(self.ring.operands.right[start:stop], left, self.workspace.array("own", (n, n)))
            B = self.output_matrix
        elif (form := self._own_rows(start, stop).separable_form()) is not None:
            (S, B), factors = form, np.zeros(0)
            T, B = np.ascontiguousarray(S.T), np.ascontiguousarray(B, dtype=float)
        else:
            return None
        beta = np.empty((n, self.Y.shape[1]))
        compiled.onorma_squared_rounds(T, factors, B, old,
                                       np.concatenate(([1.0], scales[:-1])), scales, steps, firsts,
                                       self.Y[start:stop], *records, beta)
        return beta

    def _first_unsafe(self, start, stop, beta, norm2) -> int | None:
        """The first round of the block (0-based, in the stream) where ovk_fast's order may decide differently from
        ovk_ref's whether the round is finite (``ovk_fast.literal_range``), or whose unscaled coefficient ``beta``
        is not finite; None for none. One check for the whole block first (the largest bound, coefficient and norm
        of the block's rounds, the smallest resolution its targets allow), round by round only where it fails."""
        block, bound = slice(start, stop), self.literal_bound
        self.largest = np.maximum(self.largest, magnitude(self.new_coefficients[block]))   # NaN stays NaN
        norm = np.maximum(abs(norm2), magnitude(self.norms[block]))
        if np.isfinite(magnitude(beta)) and not bound.unsafe(stop - 1, len(self.ring.index), self.largest, norm,
                                                             np.min(bound.target_resolution[block])):
            return None
        filled = self.ring.filled()
        stored = np.max(np.abs(self.ring.beta[:filled]), initial=0.0)        # alpha_{i,start-1}, folded
        rounds = np.arange(start, stop)
        coefficients = np.maximum(stored, np.maximum.accumulate(np.max(np.abs(self.new_coefficients[block]), axis=1)))
        norms = np.maximum(abs(norm2), np.maximum.accumulate(np.abs(self.norms[block])))
        unsafe = ~finite_rounds(beta) | bound.unsafe(rounds, rounds - self.before[rounds] + 1, coefficients, norms,
                                                     bound.resolution(rounds, self.predictions[block]))
        return start + int(np.argmax(unsafe)) if unsafe.any() else None

    def _literal_rounds(self, start, first, stop, scales, beta, norm2) -> int:
        """Rounds ``first..stop-1`` of the block starting at ``start`` run by ovk_ref's learner
        (``ovk_fast.literal_rounds``) from the state after round ``first - 1`` (``alpha_{i,first-1} = beta_i``
        times the block's scale then); returns the first round not run. The ring then holds every coefficient of
        ``f`` at that round, with scale 1."""
        ring, capacity = self.ring, len(self.ring.index)
        previous = 1.0 if first == start else scales[first - 1 - start]
        indices = np.arange(self.before[first], first)                      # the support of f_{first-1}
        alphas = previous * np.where((indices >= start)[:, None], beta[np.maximum(indices - start, 0)],
                                     ring.beta[indices % capacity])
        state = {"centres": tuple(self.X[indices]), "alphas": tuple(alphas), "indices": tuple((indices + 1).tolist()),
                 "norm2": norm2 if first == start else float(self.norms[first - 1])}

        def record(t, learner):
            self.predictions[t], self.new_coefficients[t], self.norms[t] = (learner.last_prediction,
                                                                              learner.last_new_coefficient, learner.norm2)

        end, learner = run_literally(self.checked, state, self.X, self.Y, first, stop, record)
        ring.put(start, self.X[start:end], np.zeros((end - start, self.Y.shape[1])))
        if learner.alphas:
            ring.beta[(np.array(learner.indices) - 1) % capacity] = learner.alphas
        self.scale, self.norm2 = 1.0, float(learner.norm2)
        return end

    def _rounds(self, rows, old, firsts, scales, steps, Y, records):
        """Steps 1-3 of the block's rounds one after the other (any loss, any kernel), written into ``records``
        (the block's predictions and new coefficients); returns the block's unscaled coefficients ``beta``."""
        predictions, new_coefficients = records
        beta = np.zeros(Y.shape)
        scale_list = scales.tolist()
        rounds = zip(firsts.tolist(), [1.0] + scale_list, scale_list, steps.tolist(), Y)
        for r, (first, previous, scale, step, y) in enumerate(rounds):
            within = rows.apply_row(r, first, r, beta) if r else 0.0
            prediction = predictions[r] = previous * (old[r] + within)             # 1. f_{t-1}(x_t)
            new = new_coefficients[r] = step * self.loss.gradient(prediction, y)   # 2. alpha_{t,t}
            beta[r] = new / scale                                          # 3. shrink every stored term
        return beta

    def _affine_rounds(self, rows, old, firsts, scales, steps, Y, records):
        """``_rounds`` solved at once where the rounds are linear in each other: the squared loss (gradient
        ``z - y``) and a kernel ``k(x, z) B`` (rows ``S[r, j] B``, B symmetric). With ``prev_r`` the scale before
        round r and ``a_r = step_r / scale_r``, steps 1-3 read
        ``beta_r = a_r (prev_r (old_r + B sum_{first_r <= j < r} S[r, j] beta_j) - y_r)``: a lower-triangular
        system in the rounds, which B's eigenvectors ``B = Q diag(w) Q^T`` split into one triangular solve per
        distinct eigenvalue. The same forward substitution as ``_rounds``, in another basis (an overflow reaches
        the same round: measured equal ``diverged_at`` and non-finite entries on a diverging stream). None where
        it does not apply."""
        form = rows.separable_form()
        if form is None or not isinstance(self.loss, Squared) or not np.array_equal(form[1], form[1].T):
            return None
        S, B = form
        n = len(scales)
        previous = np.concatenate(([1.0], scales[:-1]))
        kept = _strictly_lower(n)               # j < r; and j >= first[r] with truncation
        if self.truncated:
            kept = kept & (np.arange(n)[None, :] >= firsts[:, None])
        lower = np.multiply(S, kept, out=self.workspace.array("lower", (n, n)))
        a = steps / scales
        h = a * previous
        if self._eigen is None:         # B is the kernel's, the same in every block
            w, Q = np.linalg.eigh(B)
            self._eigen = Q, [(group, np.mean(w[group])) for group in eigenvalue_groups(w)]
        Q, groups = self._eigen
        right = (h[:, None] * old - a[:, None] * Y) @ Q
        Z, system = np.empty_like(right), self.workspace.array("system", (n, n))
        for group, eigenvalue in groups:     # one solve per distinct eigenvalue (the paper's J has two)
            np.multiply(lower, (-eigenvalue * h)[:, None], out=system)   # I + system: unit diagonal, not stored
            Z[:, group] = linalg.solve_triangular(system, right[:, group], lower=True, unit_diagonal=True,
                                                  check_finite=False)
        beta = Z @ Q.T
        earlier = lower @ beta
        overflow = np.flatnonzero(~np.isfinite(beta).all(axis=1))
        if len(overflow):   # the zeros of lower's upper part times a later infinite beta are NaN: not in the loop
            first = overflow[0]
            earlier[:first + 1] = lower[:first + 1, :first] @ beta[:first]
        predictions = previous[:, None] * (old + earlier @ B.T)                    # 1. f_{t-1}(x_t)
        records[0][:] = predictions
        records[1][:] = steps[:, None] * (predictions - Y)                           # 2. alpha_{t,t}
        return beta

    def _norms(self, start, stop, c_t, scales, beta):
        """``||f_t||^2`` of rounds ``start..stop-1``: the recursion of spec 6.2, downdated by every term that step 4
        drops (6.5, ``_downdates``); the ring still holds the stored terms of the block's start."""
        predictions, new_coefficients = self.predictions[start:stop], self.new_coefficients[start:stop]
        # the terms of 6.2 without ||f_{t-1}||^2: 2 c_t <f_{t-1}(x_t), alpha_tt> + <K(x_t, x_t) alpha_tt, alpha_tt>
        if self.gaussian_output is not None:     # K(x, x) = B: one compiled call
            added = compiled.norm_terms(c_t, predictions, new_coefficients, self.gaussian_output)
        else:
            added = (2 * c_t * np.einsum("rd,rd->r", predictions, new_coefficients)
                     + diagonal_quadratic(self.kernel, self.X[start:stop], new_coefficients))
        rounds, downdates = self._downdates(start, stop, scales, beta)
        self.norm2 = compiled.norm_recursion_compiled(c_t, added, self.norm2, rounds, downdates, self.norms[start:stop])

    def _downdates(self, start, stop, scales, beta) -> tuple:
        """``(rounds, terms)``: for each index i that the block's rounds drop (in order), the round r that drops it
        (ascending) and spec 6.5's
        ``-2 <f_t(x_i), alpha_i> + <K(x_i, x_i) alpha_i, alpha_i>`` with ``f_t`` the expansion before the drops:
        the stored terms ``j >= i`` (``_old_terms``) and the block's rounds ``j <= r``, all drops at once."""
        dropped = np.arange(self.before[start], self.lo[stop - 1])          # indices the block's rounds drop, in order
        if not len(dropped):
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        rounds = np.searchsorted(self.lo[start:stop], dropped, side="right")   # i is dropped at the first r with lo > i
        block = np.arange(stop - start)
        within = (block[None, :] >= np.maximum(dropped - start, 0)[:, None]) & (block[None, :] <= rounds[:, None])
        rows = KernelRows(self.kernel, self.X[dropped], self.X[start:stop])
        earlier = rows.apply(beta, within)
        finite = np.isfinite(beta).all(axis=1)
        if not finite.all():    # a later infinite beta times the mask's zeros is NaN, where the loop's drops before it are finite
            before_it = rounds < np.argmin(finite)
            earlier[before_it] = rows.apply(np.where(finite[:, None], beta, 0.0), within)[before_it]
        scale = scales[rounds][:, None]
        h = scale * (self._old_terms(range(dropped[0], dropped[-1] + 1), dropped) + earlier)
        ring = self.ring
        a = scale * np.where((dropped >= start)[:, None], beta[np.maximum(dropped - start, 0)],
                             ring.beta[dropped % len(ring.index)])
        terms = -2 * np.einsum("kd,kd->k", h, a) + diagonal_quadratic(self.kernel, self.X[dropped], a)   # spec 6.5
        return rounds, terms
