"""Squared distances ``|x_r - z_j|^2`` of many pairs, and the Gaussian exponents ``-|x_r - z_j|^2 / mu``.

Two ways, chosen per block of queries and per tile of stored points:
* the **expansion** ``2 a.b - |a|^2 - |b|^2`` on centred points (``a = x - c``, ``b = z - c``; ``c`` the mean of
  the whole stream, operands built once per run, ``StreamOperands``, or of the block of queries where the block is
  too far from it, ``Expansion``): one GEMM of augmented rows, a factor (``1/mu``) folded into the queries'
  operand. Centring removes the cancellation of the uncentred form far from the origin (inputs offset by 1e8
  would lose every digit of a distance of order 1 to ``|x|^2 = 1e16``);
* the **direct** sum ``sum_k (x_k - z_k)^2``, coordinate by coordinate, as ``ovk_ref`` computes it (p passes
  over the pairs, about ten times the GEMM's time): a few ulps at any scale, and ``inf`` (a kernel value of 0)
  where a difference overflows, never NaN.

Accuracy of the expansion. Its round-off on the exponent of a pair is at most ``g (|a|^2 + |b|^2) f`` with
``g = 2 (p + 2) eps`` (a dot product of p + 2 terms) and ``f = 1/mu``. Where ``|b| >= 2 |a|``, ``d = |a - b|
>= |b| / 2`` and ``|a|^2 + |b|^2 <= 5 d^2``: the error is ``5 g`` relative to the exponent ``E = d^2 f``, so at
most ``5 g E e^-E <= 2 g`` on the kernel value ``e^-E``; likewise where ``|a| >= 2 |b|``; elsewhere
``|a|^2 + |b|^2 < 5 |a|^2``. So every kernel value is within ``5 g max_r |a_r|^2 f`` (plus ``2 g``) of its
exact value: the expansion is taken for a block of queries while that stays within ``tolerances.IDENTITY_RTOL``
(a spread of the queries ``max |a|^2`` up to ~1e4 mu for p = 20), whatever the stored points; the direct sum
elsewhere (queries spread far apart relative to ``sqrt(mu)``, where the expansion would lose the kernel value of
two nearby points far from the centre). A tile also takes the direct sum where one of the expansion's terms could
overflow (inputs of norm beyond ~1e150, ``1/mu`` beyond float64).
"""
from __future__ import annotations

import numpy as np

from ovk_fast import compiled
from ovk_ref import tolerances

_EPS = float(np.finfo(float).eps)
#: the expansion's partial sums are at most twice ``(|a|^2 + |b|^2) * |fold|``: kept this far below float64's max
_OVERFLOW_MARGIN = 4.0


class Expansion:
    """The queries' side of the expansion: ``left @ right(Z).T = -fold |x_r - z_j|^2``, ``left`` n_x x (p+2),
    for exponents that multiply distances by at most ``factor`` (the largest ``1/mu``), centred on the queries'
    mean. ``usable`` is False where the queries' spread makes the expansion inaccurate (module docstring) or one of
    its terms could overflow: the direct sum is used instead."""

    def __init__(self, X: np.ndarray, factor: float, fold: float, left: np.ndarray | None = None,
                 right: np.ndarray | None = None):
        """``left``: memory for it, if given; ``right``: memory for the queries' own right operand (``own_right``),
        built in the same compiled pass as ``left`` where numba is installed (``compiled.expansion_operands``)."""
        p = X.shape[1]
        self.X, self.factor, self.fold = X, factor, fold
        self.left = np.empty((len(X), p + 2)) if left is None else left
        self._scale = max(factor, abs(fold))
        self._own_right = right if right is not None and compiled.AVAILABLE and len(X) else None
        with np.errstate(over="ignore", invalid="ignore"):
            if self._own_right is not None:
                self.centre, self.norms = np.empty(p), np.empty(len(X))
                compiled.expansion_operands(X, fold, self.left, self._own_right, self.centre, self.norms)
            else:
                self.centre = np.mean(X, axis=0) if len(X) else np.zeros(p)
                A = np.subtract(X, self.centre, out=self.left[:, :p])
                self.norms = np.einsum("ij,ij->i", A, A)          # |a_r|^2
            self.spread = float(np.max(self.norms, initial=0.0))
            self.finite = bool(np.isfinite(_OVERFLOW_MARGIN * self.spread * self._scale))
        self.usable = self.finite and self.accurate(self.spread)
        if self.finite and self._own_right is None:
            A *= 2 * fold
            np.multiply(self.norms, -fold, out=self.left[:, p])
            self.left[:, p + 1] = -fold

    def accurate(self, spread: float) -> bool:
        """The bound on the kernel values' round-off for queries with ``max |a|^2 = spread`` is within tolerance."""
        return 10 * (len(self.centre) + 2) * _EPS * spread * self.factor <= tolerances.IDENTITY_RTOL

    def right(self, Z: np.ndarray, out: np.ndarray) -> np.ndarray | None:
        """The stored points' operand ``[z - c, 1, |z - c|^2]`` (n_z x (p+2), into ``out``), or None where a term
        of the expansion could overflow on these points."""
        p = Z.shape[1]
        with np.errstate(over="ignore", invalid="ignore"):
            B = np.subtract(Z, self.centre, out=out[:, :p])
            norms = np.einsum("ij,ij->i", B, B, out=out[:, p + 1])
            largest = float(np.max(norms, initial=0.0))
        if not self._fits(largest):
            return None
        out[:, p] = 1.0
        return out

    def own_right(self, out: np.ndarray) -> np.ndarray | None:
        """``right(X, out)`` for the queries ``X`` themselves: the operand built with ``left`` where it was (``right``
        given), else computed into ``out``."""
        if self._own_right is None:
            return self.right(self.X, out)
        return self._own_right if self._fits(self.spread) else None

    def _fits(self, largest: float) -> bool:
        """No term of the expansion overflows for stored points with ``max |z - c|^2 = largest``."""
        return bool(np.isfinite(_OVERFLOW_MARGIN * (self.spread + largest) * self._scale))


class StreamOperands:
    """Both operands of the expansion for every input of a stream, centred once on the stream's mean: a block of
    queries and the stored points then take slices, with no work per block or tile. ``left(start, stop)`` is None
    where the expansion is not accurate for that block around this centre (a stream that drifts: the caller
    centres that block on its own mean, ``Expansion``) or could overflow."""

    def __init__(self, X: np.ndarray, factor: float, fold: float, memory=None):
        """``memory``: a ``stored_rows.Workspace`` to hold both operands (a run's: the same memory run after run,
        where 2 x 0.9 MB mapped afresh cost a run at t = 5000 about 0.4 ms of page faults), or None for new arrays."""
        shape = (len(X), X.shape[1] + 2)
        left, right = (None, np.empty(shape)) if memory is None else (memory.array("stream left", shape),
                                                                      memory.array("stream right", shape))
        self._expansion = Expansion(X, factor, fold, left, right)
        self.fold = fold        # left @ right.T = -fold |x - z|^2
        self.right, self._lefts = None, {}
        if self._expansion.finite:
            self.right = self._expansion.own_right(right)

    def left(self, start: int, stop: int) -> np.ndarray | None:
        if (start, stop) not in self._lefts:        # asked for by several steps of a block: decided once
            accurate = self.right is not None and self._expansion.accurate(float(np.max(self._expansion.norms[start:stop])))
            self._lefts[start, stop] = self._expansion.left[start:stop] if accurate else None
        return self._lefts[start, stop]


def direct_squared_distances(X: np.ndarray, Z: np.ndarray, out: np.ndarray, scratch: np.ndarray) -> np.ndarray:
    """``sum_k (x_rk - z_jk)^2`` into ``out`` (n_x x n_z), one coordinate at a time (``scratch``: same shape)."""
    out.fill(0.0)
    with np.errstate(over="ignore", invalid="ignore"):
        for k in range(X.shape[1]):
            np.subtract(X[:, k, None], Z[None, :, k], out=scratch)
            np.multiply(scratch, scratch, out=scratch)
            out += scratch
    return out


def squared_distances(X: np.ndarray, Z: np.ndarray, out: np.ndarray | None = None, factor: float = 1.0) -> np.ndarray:
    """``|x_r - z_j|^2`` for every pair (n_x x n_z, into ``out`` when given), by the expansion (clipped at 0:
    round-off leaves +-eps |a|^2 where x = z) where it is accurate for exponents ``-|x - z|^2 * factor``, else by
    the direct sum."""
    out = np.empty((len(X), len(Z))) if out is None else out
    expansion = Expansion(X, factor, fold=-1.0)
    right = expansion.right(Z, np.empty((len(Z), Z.shape[1] + 2))) if expansion.usable else None
    if right is None:
        return direct_squared_distances(X, Z, out, np.empty_like(out))
    np.matmul(expansion.left, right.T, out=out)
    return np.maximum(out, 0.0, out=out)


def gaussian_exponents(squared: np.ndarray, mu: float, out: np.ndarray) -> np.ndarray:
    """``-squared / mu`` into ``out``: a product with ``-1/mu`` (a division costs several times more), or the
    division where ``1/mu`` overflows (mu below ~6e-309), as ovk_ref divides: there ``0 * (1/mu)`` is NaN where
    ``0 / mu`` is 0."""
    factor = -1.0 / mu if mu > 1.0 / np.finfo(float).max else None
    return np.multiply(squared, factor, out=out) if factor is not None else np.divide(squared, -mu, out=out)
