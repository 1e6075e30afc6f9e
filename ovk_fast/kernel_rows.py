"""Kernel rows as arrays: ``K(x_r, z_j)`` for a whole block of queries against all stored points at once.

``KernelRows(kernel, X, Z)`` dispatches on the kernel class and keeps the rows in the cheapest exact form:
* separable terms ``k(x, z) B`` (``Separable``; ``LinearQuadratic`` = ``mu <x,z> 11^T + (1 - mu) <x,z>^2 I``,
  spec 3.2) as the scalar matrix ``k(X, Z)`` and ``B``: applying them to coefficients is two GEMMs (spec 7.2);
* the feature kernel ``A(x) A(z)^T`` (spec 3.3) as the factors ``A(X)``, ``A(Z)``;
* any other ``OperatorKernel`` as explicit d x d blocks (the generic, slower path);
* ``WeightedSum``: the weighted parts of its terms.

``apply_rows`` applies the rows of a block of queries against many stored points tile by tile, on ovk_fast's
threads.
"""
from __future__ import annotations

import math
import threading

import numpy as np

from ovk_ref.kernels import Constant, Feature, Gaussian, Linear, LinearQuadratic, Polynomial, Separable, WeightedSum
from ovk_fast.threads import map_in_order

#: stored points per tile in ``apply_rows``: a 256 x 512 tile of scalar kernel values (1 MiB) stays in a core's
#: L2 cache from its distance GEMM through the exp to its product with the coefficients, where the whole
#: 256 x 5000 rows (10 MiB) go to memory and back at each step (measured: 57 ms against 73 ms for the
#: 12.5M Gaussian values of t = 5000, one core)
TILE_COLUMNS = 512


class Workspace:
    """One thread's reusable scratch arrays: the tiles of ``apply_rows`` write their distances and kernel values
    into the same memory tile after tile. A fresh array of 1 MiB is mapped from the system and faulted in page by
    page: measured at t = 5000, 46000 page faults per ONORMA run, half its CPU time."""

    _local = threading.local()

    def __init__(self):
        self._buffers = {}

    @classmethod
    def of_this_thread(cls) -> "Workspace":
        if not hasattr(cls._local, "workspace"):
            cls._local.workspace = cls()
        return cls._local.workspace

    def array(self, key, shape) -> np.ndarray:
        """An uninitialised C-contiguous array of ``shape``, the same memory for the same ``key`` each time."""
        size = math.prod(shape)
        buffer = self._buffers.get(key)
        if buffer is None or buffer.size < size:
            buffer = self._buffers[key] = np.empty(size)
        return buffer[:size].reshape(shape)


class PairGeometry:
    """Inner products and squared distances of every pair ``(X[r], Z[j])``, each computed at most once (one
    GEMM) and shared by all the scalar kernels evaluated on these pairs (several kernels, several terms).

    With a ``workspace``, these and the kernel values on the pairs are written into its arrays, in the order
    they are asked for (the n-th array asked of a geometry is the workspace's n-th): valid until the next
    geometry on the same workspace."""

    def __init__(self, X: np.ndarray, Z: np.ndarray, workspace: Workspace | None = None):
        self.X, self.Z = X, Z
        self._inner = self._sqdist = None
        self._workspace, self._arrays = workspace, 0

    def new_array(self, shape) -> np.ndarray:
        """An uninitialised array for values on these pairs (from the workspace, if any)."""
        if self._workspace is None:
            return np.empty(shape)
        self._arrays += 1
        return self._workspace.array(self._arrays, shape)

    @classmethod
    def diagonal(cls, X: np.ndarray) -> "PairGeometry":
        """The pairs ``(X[r], X[r])``: inner products ``|x_r|^2``, distances 0."""
        geometry = cls(X, X)
        geometry._inner = np.sum(X * X, axis=1)
        geometry._sqdist = np.zeros(len(X))
        return geometry

    @property
    def inner(self) -> np.ndarray:
        if self._inner is None:
            self._inner = np.matmul(self.X, self.Z.T, out=self.new_array((len(self.X), len(self.Z))))
        return self._inner

    @property
    def sqdist(self) -> np.ndarray:
        if self._sqdist is None:
            self._sqdist = squared_distances(self.X, self.Z, out=self.new_array((len(self.X), len(self.Z))))
        return self._sqdist


def squared_distances(X: np.ndarray, Z: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``|x_r - z_j|^2`` for every pair, as one GEMM of augmented rows ``|a|^2 + |b|^2 - 2 a.b`` on the centred
    points ``a = x - c``, ``b = z - c`` with ``c`` the mean of ``Z``. Centring removes the cancellation of the
    uncentred form far from the origin (inputs offset by 1e8 lose every digit of a distance of order 1 to
    ``|x|^2 = 1e16``); for points within a factor 2 of ``c`` the subtraction is exact (Sterbenz), so the
    remaining round-off is relative to the spread of the points, not to their offset. Clipped at 0 in place
    (round-off leaves +-eps |a|^2 where x = z). Written into ``out`` (n_x x n_z) when given."""
    centre = np.mean(Z, axis=0) if len(Z) else np.zeros(X.shape[1])
    A, B = X - centre, Z - centre
    left = np.hstack([A, np.sum(A * A, axis=1)[:, None], np.ones((len(A), 1))])
    right = np.hstack([-2 * B, np.ones((len(B), 1)), np.sum(B * B, axis=1)[:, None]])
    product = np.matmul(left, right.T, out=out)
    return np.maximum(product, 0.0, out=product)


def _scalar_values(scalar, geometry: PairGeometry) -> np.ndarray:
    """``k`` on the pairs of ``geometry`` for the scalar kernels ovk_fast knows (``KNOWN_SCALARS``)."""
    if isinstance(scalar, Gaussian):
        exponent = np.multiply(geometry.sqdist, -1.0 / scalar.mu, out=geometry.new_array(geometry.sqdist.shape))
        return np.exp(exponent, out=exponent)
    if isinstance(scalar, Linear):
        return geometry.inner
    if isinstance(scalar, Polynomial):
        return (geometry.inner + scalar.offset) ** scalar.degree
    return np.full_like(geometry.inner, scalar.c)   # Constant


#: the scalar kernels with a vectorised form here; a Separable kernel with another scalar takes the generic path
KNOWN_SCALARS = (Gaussian, Linear, Polynomial, Constant)


def scalar_matrix(scalar, X: np.ndarray, Z: np.ndarray) -> np.ndarray:
    """``[k(X[r], Z[j])]`` (n_x x n_z) for a scalar kernel in ``KNOWN_SCALARS``."""
    return _scalar_values(scalar, PairGeometry(X, Z))


def separable_terms(kernel) -> list | None:
    """``K = sum_k k_k(x, z) B_k`` as ``[(scalar k_k, B_k), ...]``, or None when ``K`` has no such known form."""
    if isinstance(kernel, Separable):
        return [(kernel.scalar, kernel.B)] if isinstance(kernel.scalar, KNOWN_SCALARS) else None
    if isinstance(kernel, LinearQuadratic):
        d = kernel.d
        return [(Linear(), kernel.mu * np.ones((d, d))), (Polynomial(2), (1 - kernel.mu) * np.eye(d))]
    if isinstance(kernel, WeightedSum):
        terms = [(weight, separable_terms(part)) for weight, part in kernel.terms]
        if any(part is None for _, part in terms):
            return None
        return [(scalar, weight * B) for weight, part in terms for scalar, B in part]
    return None


class _SeparablePart:
    """``S[r, j] B``."""

    def __init__(self, S, B):
        self.S, self.B = S, B

    def apply(self, C, mask):
        S = self.S if mask is None else self.S * mask
        return S @ C @ self.B.T

    def apply_row(self, r, lo, hi, C):
        return self.B @ (self.S[r, lo:hi] @ C[lo:hi])

    def dense(self):
        return np.kron(self.S, self.B)


class _FeaturePart:
    """``A(x_r) A(z_j)^T`` from the factors ``AX`` (n_x, d, q) and ``AZ`` (n_z, d, q)."""

    def __init__(self, AX, AZ):
        self.AX, self.AZ = AX, AZ

    def apply(self, C, mask):
        if mask is None:
            return self.AX @ np.einsum("jeq,je->q", self.AZ, C)
        return np.einsum("rdq,rq->rd", self.AX, np.einsum("rj,jeq,je->rq", mask, self.AZ, C))

    def apply_row(self, r, lo, hi, C):
        return self.AX[r] @ np.einsum("jeq,je->q", self.AZ[lo:hi], C[lo:hi])

    def dense(self):
        n_x, d, _ = self.AX.shape
        return np.einsum("rdq,jeq->rdje", self.AX, self.AZ).reshape(n_x * d, -1)


class _BlockPart:
    """Explicit blocks ``(n_x, n_z, d, d)``."""

    def __init__(self, blocks):
        self.blocks = blocks

    def apply(self, C, mask):
        blocks = self.blocks if mask is None else self.blocks * mask[:, :, None, None]
        return np.einsum("rjde,je->rd", blocks, C)

    def apply_row(self, r, lo, hi, C):
        return np.einsum("jde,je->d", self.blocks[r, lo:hi], C[lo:hi])

    def dense(self):
        n_x, n_z, d, _ = self.blocks.shape
        return self.blocks.transpose(0, 2, 1, 3).reshape(n_x * d, n_z * d)


def _features(kernel: Feature, X):
    return kernel.M[0] + np.tensordot(X, kernel.M[1:], axes=1)


def _parts(kernel, geometry: PairGeometry, weight=1.0) -> list:
    X, Z = geometry.X, geometry.Z
    terms = separable_terms(kernel)
    if terms is not None:
        return [_SeparablePart(_scalar_values(scalar, geometry), weight * B) for scalar, B in terms]
    if isinstance(kernel, Feature):
        return [_FeaturePart(weight * _features(kernel, X), _features(kernel, Z))]
    if isinstance(kernel, WeightedSum):
        return [part for w, term in kernel.terms for part in _parts(term, geometry, weight * w)]
    blocks = np.array([[kernel(x, z) for z in Z] for x in X], dtype=float).reshape(len(X), len(Z), kernel.d, kernel.d)
    return [_BlockPart(weight * blocks)]


class KernelRows:
    """``K(X[r], Z[j])`` for every query r and stored point j, kept in the parts' compact forms.

    Pass the same ``geometry`` (a ``PairGeometry(X, Z)``) to the rows of several kernels on the same pairs."""

    def __init__(self, kernel, X: np.ndarray, Z: np.ndarray, geometry: PairGeometry | None = None):
        self.parts = _parts(kernel, geometry if geometry is not None else PairGeometry(X, Z))

    def apply(self, C: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        """``out[r] = sum_j mask[r, j] K(X[r], Z[j]) C[j]`` (all j when ``mask`` is None): an (n_x, d) array."""
        return sum(part.apply(C, mask) for part in self.parts)

    def apply_row(self, r: int, lo: int, hi: int, C: np.ndarray) -> np.ndarray:
        """``sum_{lo <= j < hi} K(X[r], Z[j]) C[j]``: the value at ``X[r]`` of an expansion over ``Z[lo:hi]``."""
        if len(self.parts) == 1:   # the common case, called once per round: skip the generator
            return self.parts[0].apply_row(r, lo, hi, C)
        return sum(part.apply_row(r, lo, hi, C) for part in self.parts)

    def dense(self) -> np.ndarray:
        """The point-major block Gram matrix (spec 2.1), ``n_x d x n_z d``."""
        return sum(part.dense() for part in self.parts)

    def separable_form(self) -> tuple | None:
        """``(S, B)`` when the rows are one separable term ``S[r, j] B``, else None."""
        if len(self.parts) == 1 and isinstance(self.parts[0], _SeparablePart):
            return self.parts[0].S, self.parts[0].B
        return None


class KernelRowsStack:
    """The rows of several kernels on the same pairs (one ``PairGeometry``), applied together: MONORMA's m
    values ``g^j(x)`` per round. When every kernel is one separable term ``k_j(x, z) B_j``, a row of all m
    kernels is two stacked products instead of m calls."""

    def __init__(self, kernels, X: np.ndarray, Z: np.ndarray):
        geometry = PairGeometry(X, Z)
        self.rows = [KernelRows(kernel, X, Z, geometry) for kernel in kernels]
        forms = [rows.separable_form() for rows in self.rows]
        separable = all(form is not None for form in forms)
        self.S = np.array([S for S, _ in forms]) if separable else None     # m x n_x x n_z
        self.B = np.array([B for _, B in forms]) if separable else None     # m x d x d

    def apply_row(self, r: int, lo: int, hi: int, C: np.ndarray) -> np.ndarray:
        """``[KernelRows(K_j, X, Z).apply_row(r, lo, hi, C) for each kernel j]``: an (m, d) array."""
        if self.S is None:
            return np.array([rows.apply_row(r, lo, hi, C) for rows in self.rows])
        return (self.B @ (self.S[:, r, lo:hi] @ C[lo:hi])[:, :, None])[:, :, 0]


def diagonal_blocks(kernel, X: np.ndarray) -> np.ndarray:
    """``K(X[r], X[r])`` for every r: an (n, d, d) array."""
    terms = separable_terms(kernel)
    if terms is not None:
        geometry = PairGeometry.diagonal(X)
        return sum(_scalar_values(scalar, geometry)[:, None, None] * B for scalar, B in terms)
    if isinstance(kernel, Feature):
        A = _features(kernel, X)
        return np.einsum("rdq,req->rde", A, A)
    if isinstance(kernel, WeightedSum):
        return sum(weight * diagonal_blocks(term, X) for weight, term in kernel.terms)
    return np.array([kernel(x, x) for x in X], dtype=float).reshape(len(X), kernel.d, kernel.d)


def apply_rows(kernels, X: np.ndarray, Z: np.ndarray, C: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """``out[k, r] = sum_j mask[r, j] K_k(X[r], Z[j]) C[j]`` for each kernel ``K_k`` of ``kernels`` (all j when
    ``mask`` is None): an (m, n_x, d) array, as ``KernelRows(K_k, X, Z).apply(C, mask)``.

    The stored points go in tiles of ``TILE_COLUMNS``; a tile's rows (one ``PairGeometry``, its distances
    centred on the tile, shared by the kernels) are computed, applied and dropped while in cache. Tiles run on
    ovk_fast's threads and are summed in tile order, so the result does not depend on the threads."""
    def tile(lo):
        hi = min(lo + TILE_COLUMNS, len(Z))
        geometry = PairGeometry(X, Z[lo:hi], Workspace.of_this_thread())
        tile_mask = None if mask is None else mask[:, lo:hi]
        return np.array([KernelRows(kernel, X, Z[lo:hi], geometry).apply(C[lo:hi], tile_mask) for kernel in kernels])

    partial = map_in_order(tile, range(0, len(Z), TILE_COLUMNS))
    total = partial[0] if partial else np.zeros((len(kernels), len(X), C.shape[1]))
    for term in partial[1:]:
        total += term
    return total
