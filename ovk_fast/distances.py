"""Squared distances ``|x_r - z_j|^2`` of many pairs, and the Gaussian exponents ``-|x_r - z_j|^2 / mu``.

Two ways, chosen per set of pairs:
* the **expansion** ``|a|^2 + |b|^2 - 2 a.b`` on the points centred on the mean of the queries (``a = x - c``,
  ``b = z - c``): one GEMM of augmented rows, the factor ``-1/mu`` folded into the left operand. Centring removes
  the cancellation of the uncentred form far from the origin (inputs offset by 1e8 would lose every digit of a
  distance of order 1 to ``|x|^2 = 1e16``). Its round-off on an exponent is at most
  ``2 (p + 2) eps (|a|^2 + |b|^2) / mu`` (a dot product of p + 2 terms, each at most ``(|a|^2 + |b|^2) / mu``);
* the **direct** sum ``sum_k (x_k - z_k)^2``, coordinate by coordinate, as ``ovk_ref`` computes it (p passes
  over the pairs, about ten times the GEMM's time): exact to a few ulps at any scale, and ``inf`` (a kernel value
  of 0) where a difference overflows, never NaN.

The expansion is taken where its round-off bound stays within ``tolerances.IDENTITY_RTOL`` for every pair, which
also keeps each of its terms far from overflow; the direct sum elsewhere: points far apart relative to
``sqrt(mu)`` (where the expansion's round-off on a pair of nearby points far from the centre would reach the
kernel value itself), points of norm beyond ~1e150 (where ``|a|^2`` overflows), and ``1/mu`` beyond float64.
"""
from __future__ import annotations

import numpy as np

from ovk_ref import tolerances

_EPS = float(np.finfo(float).eps)


class Expansion:
    """Operands of the expansion: ``left @ right.T = -fold |x_r - z_j|^2`` (``left`` n_x x (p+2), ``right``
    n_z x (p+2)) for distances that exponents multiply by at most ``factor`` (the largest ``1/mu``), or ``None``
    attributes (``usable`` False) where the direct sum must be used instead."""

    def __init__(self, X: np.ndarray, Z: np.ndarray, factor: float, fold: float):
        self.left = self.right = None
        if not (np.isfinite(factor) and np.isfinite(fold)) or len(X) == 0:
            return
        p = X.shape[1]
        self.left, self.right = np.empty((len(X), p + 2)), np.empty((len(Z), p + 2))
        with np.errstate(over="ignore", invalid="ignore"):
            centre = np.mean(X, axis=0)
            A, B = np.subtract(X, centre, out=self.left[:, :p]), np.subtract(Z, centre, out=self.right[:, :p])
            norms_a, norms_b = np.einsum("ij,ij->i", A, A), np.einsum("ij,ij->i", B, B)
            spread = np.max(norms_a) + (np.max(norms_b) if len(B) else 0.0)
        if not np.isfinite(4 * spread * max(factor, abs(fold))) or (
                2 * (p + 2) * _EPS * spread * factor > tolerances.IDENTITY_RTOL):
            self.left = self.right = None
            return
        A *= 2 * fold
        np.multiply(norms_a, -fold, out=self.left[:, p])
        self.left[:, p + 1] = -fold
        self.right[:, p], self.right[:, p + 1] = 1.0, norms_b

    @property
    def usable(self) -> bool:
        return self.left is not None


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
    round-off leaves +-eps |a|^2 where x = z) when it is accurate for exponents ``-|x - z|^2 * factor``, else by
    the direct sum."""
    out = np.empty((len(X), len(Z))) if out is None else out
    expansion = Expansion(X, Z, factor, fold=-1.0)
    if not expansion.usable:
        return direct_squared_distances(X, Z, out, np.empty_like(out))
    np.matmul(expansion.left, expansion.right.T, out=out)
    return np.maximum(out, 0.0, out=out)


def gaussian_exponents(squared: np.ndarray, mu: float, out: np.ndarray) -> np.ndarray:
    """``-squared / mu`` into ``out``: a product with ``-1/mu`` (a division costs several times more), or the
    division where ``1/mu`` overflows (mu below ~6e-309), as ovk_ref divides: there ``0 * (1/mu)`` is NaN where
    ``0 / mu`` is 0."""
    factor = -1.0 / mu if mu > 1.0 / np.finfo(float).max else None
    return np.multiply(squared, factor, out=out) if factor is not None else np.divide(squared, -mu, out=out)
