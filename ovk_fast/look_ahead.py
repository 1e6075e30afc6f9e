"""The next block's work that a block's rounds do not change, done on another thread while they run (the online
engines without truncation, for kernels ``sum_k k_k(x, z) B_k``: ``kernel_rows.separable_terms``).

Before its rounds, a block needs its rows against every earlier point applied to the coefficients
(``stored_rows``). For the block after the current one, the rows against the points stored before the current
block do not depend on the current block's rounds: they are started when it starts, on one of ovk_fast's threads
(``threads.map_in_background``), with any other job the engine adds (ONORMA's own Gaussian values); the rows against
the current block's points are added once its rounds give their coefficients; the next block's start takes what
is left on its own thread. The coefficients are taken times the fold the next block's start applies to the stored
ones (each product as numpy's ``C * scale``), so the sums are the same bits whichever thread computes which job, and
whenever (``tests/conformance/test_ovk_fast_look_ahead.py``: jobs run eagerly, lazily, at any line of the run's
thread and on threads). Jobs that will not be taken (a hand-over to ovk_ref's learner, a run that ends by an
exception: the engine's ``with`` block) are dropped: none starts after ``drop``.
"""
from __future__ import annotations

from ovk_fast.kernel_rows import separable_terms
from ovk_fast.stored_rows import KernelSet, SeparableTiles, call
from ovk_fast.threads import map_in_background


class LookAhead:
    """The next block's rows of ``kernels`` against the stream ``X``'s earlier points (and jobs of the engine's),
    started early. ``usable``: the kernels are sums of separable terms (else the engine computes its rows itself);
    ``operands``: the stream's expansion operands (``stored_rows.stream_operands``), or None. A context manager:
    leaving it drops what is started (``drop``)."""

    def __init__(self, kernels, X, operands):
        terms = [separable_terms(kernel) for kernel in kernels]
        self.kernels = KernelSet(terms) if all(term is not None for term in terms) else None
        self.usable = self.kernels is not None
        self.X, self.operands = X, operands
        self.pending = None     # (rows, jobs, number of the engine's jobs, tiles, d)

    def _tiles(self, rows: tuple, lo: int, hi: int, scale: float) -> SeparableTiles:
        """The rows ``rows`` against the points ``lo..hi-1``, on the stream's operands where they are accurate."""
        left = None if self.operands is None else self.operands.left(*rows)
        operands = None if left is None else (left, self.operands.right[lo:hi])
        return SeparableTiles(self.kernels, self.X[rows[0]:rows[1]], self.X[lo:hi], operands, scale, leading=lo == 0)

    def start(self, rows: tuple, stored: int, C, scale: float, jobs=()) -> None:
        """Start the block ``rows`` (start, stop): the engine's ``jobs`` (first) and its rows against the points
        ``0..stored-1`` with the coefficients ``C[:stored]`` times ``scale``."""
        tiles = self._tiles(rows, 0, stored, scale)
        self.pending = (rows, map_in_background(call, list(jobs) + tiles.tiles(C[:stored])), len(jobs), tiles,
                        C.shape[1])

    def behind(self, lo: int, hi: int, C) -> None:
        """Add the started block's rows against the points ``lo..hi-1``, with their coefficients ``C`` (times the
        same scale)."""
        if self.pending is not None:
            rows, jobs, _, tiles, _ = self.pending
            jobs.extend(self._tiles(rows, lo, hi, tiles.scale).tiles(C))

    def __enter__(self) -> "LookAhead":
        return self

    def __exit__(self, *exception) -> None:
        """A run that ends, by an exception too (a DivergenceError, Ctrl-C), leaves no job running on the pool."""
        self.drop()

    def drop(self) -> None:
        """Forget the started block's jobs: none is started any more, and the one running is waited for (it reads the
        stored points and coefficients the caller is about to change, or the run is ending)."""
        if self.pending is not None:
            self.pending[1].cancel()
            self.pending = None

    def take(self, rows) -> tuple:
        """``(applied, results)`` for the block ``rows``: its rows applied to the coefficients, (m, n_x, d) summed in
        the jobs' order, and the results of the engine's jobs; ``(None, None)`` where none was started for these
        rows (those started are dropped). Waits for the jobs, computing those not yet started on this thread."""
        if self.pending is None or self.pending[0] != rows:
            self.drop()
            return None, None
        _, jobs, count, tiles, d = self.pending
        self.pending = None
        results = jobs.result()
        return tiles.total(results[count:], d), results[:count]
