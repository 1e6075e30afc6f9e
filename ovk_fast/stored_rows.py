"""The rows of a block of queries against many stored points, applied to the stored coefficients tile by tile:
``out[k, r] = sum_j mask[r, j] K_k(X[r], Z[j]) C[j]`` (ONORMA's and MONORMA's kernel rows against the past).

The stored points go in tiles of ``TILE_COLUMNS``; a tile's kernel values are computed, applied and dropped
while in cache, in per-thread reusable memory (``Workspace``). Kernels that are sums of separable terms
``k(x, z) B`` with known scalars (the paper's) take the fused path ``SeparableTiles``: what does not depend on
the tile is computed once per block, a tile is one GEMM for its exponents or inner products, the values in place
(``exp``), and one GEMM with the coefficients (with numba, the Gaussians on the expansion's operands: one compiled
call, ``compiled.gaussian_tile``, their exponents kept in cache); ``B`` multiplies the sum over the tiles once.
Other kernels take their ``KernelRows`` tile by tile. Tiles run on ovk_fast's threads and are summed in tile order, so the result
does not depend on the threads.
"""
from __future__ import annotations

import functools
import math
import threading

import numpy as np

from ovk_fast import compiled, threads
from ovk_fast.distances import Expansion, StreamOperands, direct_squared_distances, gaussian_exponents
from ovk_fast.kernel_rows import KernelRows, PairGeometry, bandwidths, exponent_factor, separable_terms
from ovk_fast.threads import map_in_order
from ovk_ref.kernels import Constant, Gaussian, Linear, Polynomial

#: stored points per tile: a 256 x 512 tile of kernel values (1 MiB) stays in a core's L2 cache from its
#: exponent GEMM through the exp to its product with the coefficients, where the whole 256 x 5000 rows (10 MiB)
#: go to memory and back at each step (measured: 57 ms against 73 ms for the 12.5M Gaussian values of
#: t = 5000, one core)
TILE_COLUMNS = 512


class Workspace:
    """One thread's reusable scratch arrays: the tiles write their exponents and kernel values into the same
    memory tile after tile. A fresh array of 1 MiB is mapped from the system and faulted in page by page:
    measured at t = 5000, 46000 page faults per ONORMA run, half its CPU time."""

    _local = threading.local()

    def __init__(self):
        self._buffers = {}
        self._tile = (None, None, None)

    def tile_buffers(self, terms: int, d: int) -> tuple:
        """The stored points' operand of ``terms`` columns transposed (flat, ``compiled.transposed_size``) and the
        coefficients transposed (d x ``TILE_COLUMNS``) of a tile of Gaussians (``compiled.gaussian_tile``), looked up
        once for a run of tiles of one shape."""
        key = (terms, d, TILE_COLUMNS)
        if self._tile[0] != key:
            self._tile = (key, self.array("operand", (compiled.transposed_size(terms, TILE_COLUMNS),)),
                          self.array("coefficients", (d, TILE_COLUMNS)))
        return self._tile[1], self._tile[2]

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


def _tile_starts(n: int, split: int | None = None) -> list:
    """The first stored point of each tile of ``n``: every ``TILE_COLUMNS``, again from ``split`` where given."""
    if split is None:
        return list(range(0, n, TILE_COLUMNS))
    return list(range(0, split, TILE_COLUMNS)) + list(range(split, n, TILE_COLUMNS))


def _sum_in_order(partials: list, empty: np.ndarray) -> np.ndarray:
    total = partials[0] if partials else empty
    for term in partials[1:]:
        total += term
    return total


def call(job):
    """``job()``: what ``map_in_order`` and ``map_in_background`` apply to a list of jobs."""
    return job()


def _distinct_scalars(kernel_terms: list) -> tuple[list, list]:
    """The distinct scalar kernels of the terms, and ``(kernel index, scalar index, B)`` for every term."""
    scalars, outputs, keys = [], [], []
    for k, terms in enumerate(kernel_terms):
        for scalar, B in terms:
            key = (type(scalar), tuple(sorted(scalar.params().items())))
            if key not in keys:
                scalars.append(scalar)
                keys.append(key)
            outputs.append((k, keys.index(key), B))
    return scalars, outputs


def _exponent_scaling(gaussians: list) -> tuple[float, float]:
    """``(factor, fold)`` of the expansion for these Gaussians: the largest ``1/mu``, and the factor folded into
    the queries' operand: ``1/mu`` of the only bandwidth (the GEMM gives its exponents), else 1 (``-|x - z|^2``)."""
    with np.errstate(over="ignore", divide="ignore"):
        return exponent_factor([s.mu for s in gaussians]), (1.0 / gaussians[0].mu if len(gaussians) == 1 else 1.0)


def stream_operands(kernels, X: np.ndarray, memory: "Workspace | None" = None) -> StreamOperands | None:
    """The expansion's operands for every input of the stream ``X``, for ``apply_rows(kernels, ...)`` (None where
    its kernels take no Gaussian expansion); in ``memory``'s arrays where given (``StreamOperands``)."""
    terms = [separable_terms(kernel) for kernel in kernels]
    if any(term is None for term in terms):
        return None
    gaussians = [s for s in _distinct_scalars(terms)[0] if isinstance(s, Gaussian)]
    return StreamOperands(X, *_exponent_scaling(gaussians), memory) if gaussians else None


class KernelSet:
    """Kernels ``K_k = sum_i k_ki(x, z) B_ki`` (``kernel_terms``: ``kernel_rows.separable_terms`` of each) as
    ``SeparableTiles`` computes them: their distinct scalars (``_distinct_scalars``), which are Gaussians, and
    whether the exponents' GEMM folds in the only bandwidth. Made once for a run's many blocks."""

    def __init__(self, kernel_terms: list):
        self.scalars, self.outputs = _distinct_scalars(kernel_terms)
        self.kernels = len(kernel_terms)
        self.gaussians = [s for s in self.scalars if isinstance(s, Gaussian)]
        self.folded = len(self.gaussians) == 1        # the GEMM gives the only Gaussian's exponents -|x - z|^2 / mu
        self.inner = any(isinstance(s, (Linear, Polynomial)) for s in self.scalars)
        self.gaussian_only = self.folded and self.scalars == self.gaussians


class SeparableTiles:
    """The stored rows of kernels ``K_k = sum_i k_ki(x, z) B_ki`` (scalars with a vectorised form).

    Per distinct scalar ``s``, ``P_s = sum_tiles s(X, Z_tile) C_tile`` (n_x x d); then
    ``out[k] = sum_s P_s Bsum_ks^T`` with ``Bsum_ks`` the sum of kernel k's ``B`` on scalar s; a tile takes its
    coefficients ``C_tile`` times ``scale`` (each product as numpy's ``C * scale``: ``ovk_fast.look_ahead`` starts
    the next block's tiles before that block's start folds its scale into the stored coefficients). The Gaussians'
    exponents come from the expansion, per tile (with numba in ``compiled.gaussian_tile``, else one GEMM): on
    ``operands`` ``(left, right)`` sliced from the stream's (``stream_operands``) where given, else on the queries'
    operand built once (``distances.Expansion``) and the tile's built in the tile; with a single bandwidth the factor
    ``1/mu`` is folded in, so the product gives the exponents themselves. The direct sum where the expansion is not
    accurate (``ovk_fast.distances``)."""

    def __init__(self, kernels: "KernelSet", X: np.ndarray, Z: np.ndarray, operands=None, scale: float = 1.0,
                 leading: bool = True, split: int | None = None):
        """``leading``: ``Z`` starts at the first stored point, so that these tiles' sums come first in a total
        (``ovk_fast.look_ahead`` adds tiles against later points after them); ``split``: the tiles start again there
        (``_tile_starts``: ONORMA on one thread splits them where its look-ahead would)."""
        self.X, self.Z, self.scale, self.leading = X, Z, scale, leading
        self.bounds = _tile_starts(len(Z), split) + [len(Z)]     # tile t: the stored points bounds[t]..bounds[t+1]-1
        self.scalars, self.outputs, self.kernels = kernels.scalars, kernels.outputs, kernels.kernels
        self.folded, self.gaussians, self.inner = kernels.folded, bool(kernels.gaussians), kernels.inner
        self.left, self.right = operands if operands is not None else (None, None)
        self.expansion = None
        if kernels.gaussians and self.left is None:
            self.expansion = Expansion(X, *_exponent_scaling(kernels.gaussians))
        # a single Gaussian on the stream's operands: a tile is one compiled call, no Python around it (_gaussian_tile)
        self.gaussian_only = compiled.AVAILABLE and kernels.gaussian_only and self.right is not None

    def _tile(self, tile: int, C: np.ndarray, mask) -> np.ndarray:
        """``[s(X, Z_tile) C_tile for each scalar s]``: an (n_scalars, n_x, d) array. With numba, the Gaussians on the
        expansion's operands in one compiled call (``_compiled_gaussians``), the other scalars by numpy."""
        lo, hi = self.bounds[tile], self.bounds[tile + 1]
        X, Z = self.X, self.Z[lo:hi]
        workspace, shape = Workspace.of_this_thread(), (len(X), len(Z))
        operands = self._operands(lo, Z, workspace) if self.gaussians else None
        products = np.empty((len(self.scalars), len(X), C.shape[1]))
        tile_mask = None if mask is None else mask[:, lo:hi]
        done = []
        if compiled.AVAILABLE and operands is not None:
            done = self._compiled_gaussians(operands, C[lo:hi], tile_mask, workspace, products)
        exponents, direct = self._exponents(operands, Z, workspace, shape) if self.gaussians and not done else (None, None)
        inner = np.matmul(X, Z.T, out=workspace.array("inner", shape)) if self.inner else None
        C = C[lo:hi] if self.scale == 1.0 else np.multiply(C[lo:hi], self.scale)
        for index, scalar in enumerate(self.scalars):
            if index in done:
                continue
            values = self._values(scalar, exponents, direct, inner, workspace, Z)
            if mask is not None:
                values = np.multiply(values, tile_mask, out=workspace.array("masked", shape))
            np.matmul(values, C, out=products[index])
        return products

    def _compiled_gaussians(self, operands, C: np.ndarray, mask, workspace: Workspace, products: np.ndarray) -> list:
        """The Gaussians' products of a tile (``C``: its coefficients, unscaled; ``mask``: its columns, or None) into
        their slots of ``products``, in one compiled call on the expansion's ``operands`` (``compiled.gaussian_tile``:
        their exponents computed once and kept in cache); returns those slots."""
        gaussians = [index for index, scalar in enumerate(self.scalars) if isinstance(scalar, Gaussian)]
        factors = [1.0 if self.folded else 1.0 / self.scalars[index].mu for index in gaussians]
        operand, CT = workspace.tile_buffers(operands[0].shape[1], C.shape[1])
        products[gaussians] = compiled.gaussian_tile(*operands, C, self.scale, operand, CT,
                                                     np.empty((len(gaussians),) + products.shape[1:]),
                                                     factors=factors, mask=mask)
        return gaussians

    def _operands(self, lo: int, Z: np.ndarray, workspace: Workspace) -> tuple | None:
        """The expansion's ``(left, right)`` for the tile of stored points ``Z`` from ``lo``, or None where it takes
        the direct sum (``ovk_fast.distances``)."""
        if self.right is not None:
            return self.left, self.right[lo:lo + len(Z)]
        if not self.expansion.usable:
            return None
        right = self.expansion.right(Z, workspace.array("right", (len(Z), self.X.shape[1] + 2)))
        return None if right is None else (self.expansion.left, right)

    def _exponents(self, operands, Z: np.ndarray, workspace: Workspace, shape) -> tuple:
        """``(-fold |x - z|^2, False)`` for the tile of stored points ``Z`` by one GEMM on the expansion's
        ``operands``, or ``(|x - z|^2, True)`` by the direct sum where they are None."""
        exponents = workspace.array("exponents", shape)
        if operands is None:
            return direct_squared_distances(self.X, Z, exponents, workspace.array("scratch", shape)), True
        left, right = operands
        return np.matmul(left, right.T, out=exponents), False

    def _values(self, scalar, exponents, direct, inner, workspace, Z) -> np.ndarray:
        shape = (len(self.X), len(Z))
        if isinstance(scalar, Gaussian):
            if direct:                      # the direct sum gave |x - z|^2
                values = gaussian_exponents(exponents, scalar.mu, workspace.array("values", shape))
            elif self.folded:
                values = exponents
            else:
                values = np.multiply(exponents, 1.0 / scalar.mu, out=workspace.array("values", shape))
            return np.exp(values, out=values)
        if isinstance(scalar, Linear):
            return inner
        if isinstance(scalar, Polynomial):
            values = np.add(inner, scalar.offset, out=workspace.array("values", shape))
            return np.power(values, scalar.degree, out=values)
        if isinstance(scalar, Constant):
            values = workspace.array("values", shape)
            values.fill(scalar.c)
            return values
        return scalar.vectorised(PairGeometry(self.X, Z))   # a family without a tile form here: its own vectorised form

    def _gaussian_tile(self, tile: int, C: np.ndarray, products: np.ndarray) -> np.ndarray:
        """``_tile`` for a single Gaussian on the stream's operands (``gaussian_only``), without a mask: one compiled
        call (``compiled.gaussian_tile``: its exponents, the coefficients times ``scale``, exp and the product),
        into ``products[tile]``."""
        operand, CT = Workspace.of_this_thread().tile_buffers(self.left.shape[1], C.shape[1])
        lo, hi = self.bounds[tile], self.bounds[tile + 1]
        compiled.gaussian_tile(self.left, self.right[lo:hi], C[lo:hi], self.scale, operand, CT, products[tile])
        return products[tile]

    def _gaussian_rows(self, C: np.ndarray) -> np.ndarray:
        """The tiles of ``_gaussian_tile`` in one compiled call, summed in their order as ``total`` sums them
        (``compiled.gaussian_rows``): a (1, n_x, d) partial."""
        operand, CT = Workspace.of_this_thread().tile_buffers(self.left.shape[1], C.shape[1])
        tile, out = np.empty((1, len(self.X), C.shape[1])), np.empty((1, len(self.X), C.shape[1]))
        compiled.gaussian_rows(self.left, self.right, C, self.scale, np.array(self.bounds), operand, CT, tile, out)
        return out

    def tiles(self, C: np.ndarray, mask=None) -> list:
        """A job per tile, in the tiles' order: each returns its tile's ``[s(X, Z_tile) C_tile for each scalar s]``
        (a single Gaussian on the stream's operands without a mask: ``_gaussian_tile``, into one array for all; on
        one thread, where they come first in the total, one job for all of them, ``_gaussian_rows``: the same sums in
        the same order, without a hundred calls of Python a run)."""
        count = len(self.bounds) - 1
        if not (self.gaussian_only and mask is None):
            return [functools.partial(self._tile, tile, C, mask) for tile in range(count)]
        if threads.THREADS < 2 and self.leading and count:
            return [functools.partial(self._gaussian_rows, C)]
        products = np.empty((count, 1, len(self.X), C.shape[1]))
        return [functools.partial(self._gaussian_tile, tile, C, products) for tile in range(count)]

    def partials(self, C: np.ndarray, mask=None) -> list:
        """The tiles' partial sums (``tiles``), computed on ovk_fast's threads (``threads.map_in_order``)."""
        return map_in_order(call, self.tiles(C, mask))

    def total(self, partials: list, d: int) -> np.ndarray:
        """``out[k] = sum_s (sum of the partials)[s] Bsum_ks^T``: the (m, n_x, d) rows applied, from the partials of
        tiles of this kernel set against any stored points, summed in their order."""
        P = _sum_in_order(partials, np.zeros((len(self.scalars), len(self.X), d)))
        out = np.zeros((self.kernels, len(self.X), d))
        for k, index, B in self.outputs:
            out[k] += P[index] @ B.T
        return out

    def apply(self, C: np.ndarray, mask) -> np.ndarray:
        return self.total(self.partials(C, mask), C.shape[1])


def apply_rows(kernels, X: np.ndarray, Z: np.ndarray, C: np.ndarray, mask: np.ndarray | None = None,
               operands=None, split: int | None = None) -> np.ndarray:
    """``out[k, r] = sum_j mask[r, j] K_k(X[r], Z[j]) C[j]`` for each kernel ``K_k`` of ``kernels`` (all j when
    ``mask`` is None): an (m, n_x, d) array, as ``KernelRows(K_k, X, Z).apply(C, mask)``. ``operands``: the
    expansion's ``(left, right)`` rows of ``X`` and ``Z`` from ``stream_operands(kernels, ...)``, if any; ``split``:
    the tiles start again there (``SeparableTiles``)."""
    terms = [separable_terms(kernel) for kernel in kernels]
    if all(term is not None for term in terms):
        return SeparableTiles(KernelSet(terms), X, Z, operands, split=split).apply(C, mask)
    mus = bandwidths(kernels)

    def tile(lo):
        hi = min(lo + TILE_COLUMNS, len(Z))
        geometry = PairGeometry(X, Z[lo:hi], Workspace.of_this_thread(), mus)
        tile_mask = None if mask is None else mask[:, lo:hi]
        return np.array([KernelRows(kernel, X, Z[lo:hi], geometry).apply(C[lo:hi], tile_mask) for kernel in kernels])

    return _sum_in_order(map_in_order(tile, _tile_starts(len(Z))), np.zeros((len(kernels), len(X), C.shape[1])))
