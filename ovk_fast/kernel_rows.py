"""Kernel rows as arrays: ``K(x_r, z_j)`` for a whole block of queries against all stored points at once.

``KernelRows(kernel, X, Z)`` dispatches on the kernel class and keeps the rows in the cheapest exact form:
* separable terms ``k(x, z) B`` (``Separable`` with a scalar kernel that declares its vectorised form, ``vectorised``;
  ``LinearQuadratic`` = ``mu <x,z> 11^T + (1 - mu) <x,z>^2 I``, spec 3.2) as the scalar matrix ``k(X, Z)`` (the scalar
  kernel's own vectorised form) and ``B``: applying them to coefficients is two GEMMs (spec 7.2);
* the feature kernel ``A(x) A(z)^T`` (spec 3.3) as the factors ``A(X)``, ``A(Z)``;
* any other ``OperatorKernel`` as explicit d x d blocks (the generic, slower path);
* ``WeightedSum``: the weighted parts of its terms.

``ovk_fast.stored_rows`` applies such rows against many stored points tile by tile.
"""
from __future__ import annotations

import numpy as np

from ovk_fast.distances import Expansion, gaussian_exponents, squared_distances
from ovk_ref.kernels import Feature, Gaussian, Linear, LinearQuadratic, Polynomial, Separable, WeightedSum


class PairGeometry:
    """Inner products and squared distances of every pair ``(X[r], Z[j])``, each computed at most once and
    shared by all the scalar kernels evaluated on these pairs (several kernels, several terms); ``bandwidths``
    are the mu of their Gaussians (``bandwidths``): they decide how the distances are computed
    (``ovk_fast.distances``), and with a single one its exponents come from one GEMM.

    With a ``workspace`` (``ovk_fast.stored_rows.Workspace``), these and the kernel values on the pairs are
    written into its arrays, in the order they are asked for (the n-th array asked of a geometry is the
    workspace's n-th): valid until the next geometry on the same workspace. ``operands``: the expansion's
    ``(left, right)`` rows of ``X`` and ``Z`` sliced from the stream's (``distances.StreamOperands``, built for
    these bandwidths), where the caller has them: the only bandwidth's exponents are then their product."""

    def __init__(self, X: np.ndarray, Z: np.ndarray, workspace=None, bandwidths=(), operands=None):
        self.X, self.Z, self._operands = X, Z, operands
        self._inner = self._sqdist = None
        self._workspace, self._arrays = workspace, 0
        self._factor = exponent_factor(bandwidths)
        self._only = bandwidths[0] if len(set(bandwidths)) == 1 else None

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
            self._sqdist = squared_distances(self.X, self.Z, self.new_array((len(self.X), len(self.Z))), self._factor)
        return self._sqdist

    def exponents(self, mu: float) -> np.ndarray:
        """``-|x - z|^2 / mu`` on the pairs (a new array): where ``mu`` is the geometry's only bandwidth and the
        expansion is accurate, one GEMM with ``1/mu`` folded in (not clipped at 0: its round-off is within the
        accuracy bound); else from the squared distances."""
        shape = (len(self.X), len(self.Z))
        if self._sqdist is None and mu == self._only and self._operands is not None:
            left, right = self._operands
            return np.matmul(left, right.T, out=self.new_array(shape))
        if self._sqdist is None and mu == self._only:
            expansion = Expansion(self.X, self._factor, fold=1.0 / mu)
            right = expansion.right(self.Z, np.empty((len(self.Z), self.Z.shape[1] + 2))) if expansion.usable else None
            if right is not None:
                return np.matmul(expansion.left, right.T, out=self.new_array(shape))
        return gaussian_exponents(self.sqdist, mu, self.new_array(self.sqdist.shape))


def vectorised(scalar) -> bool:
    """Whether a scalar kernel declares a vectorised form (``ovk_ref.kernels.scalar``: ``vectorised(pairs)``, with
    this module's ``PairGeometry`` as the pairs); a ``Separable`` kernel with one that does not (it says
    ``vectorised = None``, or is no family of ovk_ref's) takes the explicit-block path, through its own ``__call__``."""
    return getattr(scalar, "vectorised", None) is not None


def _scalar_values(scalar, geometry: PairGeometry) -> np.ndarray:
    """``k`` on the pairs of ``geometry``, by the scalar kernel's own vectorised form (``vectorised``)."""
    return scalar.vectorised(geometry)


def scalar_matrix(scalar, X: np.ndarray, Z: np.ndarray) -> np.ndarray:
    """``[k(X[r], Z[j])]`` (n_x x n_z) for a scalar kernel with a vectorised form."""
    return _scalar_values(scalar, PairGeometry(X, Z, bandwidths=[scalar.mu] if isinstance(scalar, Gaussian) else []))


def bandwidths(kernels) -> list:
    """The mu of the Gaussian scalar kernels of ``kernels`` (``Separable`` ones, also as terms of a
    ``WeightedSum``)."""
    found = []
    for kernel in kernels:
        if isinstance(kernel, WeightedSum):
            found += bandwidths([term for _, term in kernel.terms])
        elif isinstance(kernel, Separable) and isinstance(kernel.scalar, Gaussian):
            found.append(kernel.scalar.mu)
    return found


def gaussian_factors(kernels, fold: float) -> np.ndarray | None:
    """``f_j`` with ``K_j(x, z) = exp(f_j E) B_j`` for exponents ``E = -fold |x - z|^2`` (``distances.StreamOperands``),
    where every kernel is ``Separable`` with a Gaussian scalar, else None: ``(1/mu_j) / fold``, exactly 1 where the
    operands fold the only bandwidth in and ``1/mu_j`` where they fold none (the factors the tiles multiply by)."""
    if not all(isinstance(kernel, Separable) and isinstance(kernel.scalar, Gaussian) for kernel in kernels):
        return None
    return np.array([(1.0 / kernel.scalar.mu) / fold for kernel in kernels])


def exponent_factor(mus) -> float:
    """The largest ``1/mu`` of ``mus`` (1 without any): what Gaussian exponents multiply a squared distance by,
    at most (inf for a mu below ~6e-309)."""
    with np.errstate(over="ignore", divide="ignore"):
        return max([1.0 / mu for mu in mus], default=1.0)


def separable_terms(kernel) -> list | None:
    """``K = sum_k k_k(x, z) B_k`` as ``[(scalar k_k, B_k), ...]``, or None when ``K`` has no such known form."""
    if isinstance(kernel, Separable):
        return [(kernel.scalar, kernel.B)] if vectorised(kernel.scalar) else None
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
        self.parts = _parts(kernel, geometry if geometry is not None else
                             PairGeometry(X, Z, bandwidths=bandwidths([kernel])))

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
    kernels is two stacked products instead of m calls. With a ``workspace``, the rows are written into its
    arrays (as ``PairGeometry``'s): valid until the next rows on the same workspace."""

    def __init__(self, kernels, X: np.ndarray, Z: np.ndarray, workspace=None):
        geometry = PairGeometry(X, Z, workspace, bandwidths(kernels))
        self.rows = [KernelRows(kernel, X, Z, geometry) for kernel in kernels]
        forms = [rows.separable_form() for rows in self.rows]
        separable = all(form is not None for form in forms)
        self.S = None                                                        # m x n_x x n_z
        if separable:
            self.S = geometry.new_array((len(kernels), len(X), len(Z)))
            np.stack([S for S, _ in forms], out=self.S)
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


def diagonal_quadratic(kernel, X: np.ndarray, A: np.ndarray) -> np.ndarray:
    """``<K(X[r], X[r]) A[r], A[r]>`` for every r: with separable terms ``sum_k s_k(x_r, x_r) <B_k a_r, a_r>``,
    without forming the d x d blocks (a Gaussian's ``s(x, x) = exp(-0 / mu)`` is 1 exactly: the inputs are finite);
    else through ``diagonal_blocks``."""
    terms = separable_terms(kernel)
    if terms is None:
        return np.einsum("rd,rde,re->r", A, diagonal_blocks(kernel, X), A)
    geometry = None if all(isinstance(scalar, Gaussian) for scalar, _ in terms) else PairGeometry.diagonal(X)

    def diagonal_values(scalar):
        return 1.0 if isinstance(scalar, Gaussian) else _scalar_values(scalar, geometry)
    return sum(diagonal_values(scalar) * np.einsum("re,re->r", A @ B.T, A) for scalar, B in terms)
