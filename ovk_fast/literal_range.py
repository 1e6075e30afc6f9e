"""Where ovk_fast's order of a round's operations may decide differently from ovk_ref's whether the round is finite:
near float64's limits, where ``ovk_fast.literal_rounds`` hands the round to ovk_ref's learner.

A run diverges at its first round whose prediction, new coefficient or norm is not finite, or past the divergence
bound, as ovk_ref's literal float64 operations compute them (``ovk_ref.divergence``). ovk_fast multiplies the same
factors in another order: ``s (a^T B a)`` for ovk_ref's ``<(s B) a, a>``; unscaled coefficients ``alpha / scale``
(up to 1 / RESCALE_BELOW larger than ``alpha``); ``S C`` before ``B`` for ``(s B) alpha``; a weighted sum's
weight folded into ``B``, ``s (w B)`` for ``w (s B)``. Near float64's limits one order overflows or underflows where
the other does not (found by ``tests/conformance/test_ovk_fast_extremes.py``): a kernel ``c = 0`` times a huge ``B``
is 0 in ovk_ref and ``0 * inf = NaN`` in ovk_fast; ``(s B) a`` with a tiny ``s`` is finite where ``a^T B a``
overflows; ovk_ref's ``s B`` overflows where ``s (a^T B a)`` is finite; ``s alpha`` underflows to 0 before a weight
of 1e286 multiplies it, where ovk_ref's ``w s`` does not.

* **Overflow.** Every number of a literal round is a product of kernel intermediates and coefficients, or a sum of
  such products: ``kernel_bound`` (a bound >= 1 on every intermediate of ovk_ref's ``K(x, z)``, per kernel family,
  from the inputs' largest entry: spec 3; a scalar kernel's own, ``intermediate_bound``) times
  ``max(1, N d A) max(1, d A)`` (``A`` the largest |coefficient|, ``N`` the terms of an expansion) bounds every
  partial product and sum of the prediction ``sum_i K(x, x_i) a_i``, of ``<K(x, x) a, a>`` and of ``<f(x), a>``, in
  any order. Below ``LIMIT`` (and norms
  below it) no order overflows.
* **Underflow.** An operation whose result falls below float64's smallest normal number loses up to half a
  subnormal step (2^-1075) absolutely; the later factors of the round multiply that by at most the same bound. Where
  the round's numbers are far above that loss (its ``resolution``), the two orders differ by rounding only.

Elsewhere ovk_ref's learner runs the round; so it does wherever ovk_fast's own numbers are not finite: a NaN or an
infinity among a round's predictions, coefficients or norms makes its bound or its resolution NaN or infinite, and
the comparisons below are written so that NaN fails them; the unscaled coefficients of a block, which no record
shows (ONORMA's block solve multiplies the targets by ``eta_t / scale``: ``1e293 / 3e-16 = inf`` times a target 0
is NaN where every coefficient is 0), are checked by ``finite_rounds``.
"""
from __future__ import annotations

import numpy as np

from ovk_fast import compiled
from ovk_fast.kernel_rows import vectorised
from ovk_ref.kernels import Feature, LinearQuadratic, Separable, WeightedSum

#: the overflow bound must stay this far below float64's largest number: the norm recursion adds three bounded
#: terms (spec 6.2), one of them doubled, and the bound is taken on ovk_fast's values, a few ulps from ovk_ref's.
#: Not a tolerance: below it both orders are finite; above it the literal rounds decide.
LIMIT = float(np.finfo(float).max) / 64
#: smallest normal float64: underflow loses at most 2^-1075 = TINY eps / 2 per operation
TINY = float(np.finfo(float).tiny)


def finite_rounds(values: np.ndarray) -> np.ndarray:
    """Per round (the leading axis): every number of the round finite."""
    return np.isfinite(values).reshape(len(values), -1).all(axis=1)


def magnitude(values: np.ndarray) -> float:
    """``max |values|`` (NaN if one is NaN): a C-contiguous float64 array in one compiled pass where numba is installed
    (``compiled.largest_magnitude``), else by numpy's ``max`` and ``min`` without ``np.abs``'s temporary array (an
    integer's ``abs`` can overflow: they take numpy's way)."""
    if not values.size:
        return 0.0
    if compiled.AVAILABLE and values.dtype == np.float64 and values.flags.c_contiguous:
        return compiled.largest_magnitude_compiled(values.reshape(-1))
    return max(float(values.max()), -float(values.min()))


class LiteralBound:
    """The bounds of one run on the stream ``(X, Y)`` with ``kernels`` (several: MONORMA's g^j, summed with weights
    <= 1), step ``eta`` and ``divergence_bound``.

    ``rounds`` below are 0-based rounds r: round r's numbers involve the inputs ``X[:r + 1]`` at most, whose entries
    are bounded by their largest norm (``reach``). A kernel ovk_fast does not know (its values come from the kernel's own calls
    in both engines) is bounded by its largest diagonal entry over the stream, PSD: ``|K(x, z)_ij| <=
    sqrt(K(x, x)_ii K(z, z)_jj)`` (spec 2.1). What depends only on the stream is computed once per run."""

    def __init__(self, kernels, X: np.ndarray, Y: np.ndarray, eta: float, divergence_bound: float | None):
        self.kernels, self.p, self.d = kernels, X.shape[1], kernels[0].d
        self._diagonals = {}
        for kernel in kernels:
            self._find_unknown(kernel, X)
        rounds = np.arange(len(X))
        with np.errstate(over="ignore", invalid="ignore"):
            self.reach = np.maximum.accumulate(np.sqrt(np.einsum("ij,ij->i", X, X)))     # |x|, at least max_k |x_k|
            #: per round, m times the largest kernel's bound (MONORMA's prediction sums m values with weights <= 1)
            self.kernels_bound = len(kernels) * np.max([self.kernel_bound(kernel, rounds) for kernel in kernels], axis=0)
            # with a divergence bound b, predictions, new coefficients (eta_t <= eta times a prediction's error) and
            # norms are compared with b, b and b^2: their errors must stay far below those too
            bound_scale = np.inf if divergence_bound is None else min(divergence_bound / max(1.0, eta),
                                                                      divergence_bound * divergence_bound)
            # max_k |y_k| >= |y| / sqrt(d), and at least 1e150 where |y|^2 overflows
            self._targets = np.minimum(np.sqrt(np.einsum("ij,ij->i", Y, Y) / self.d), 1e150)
            #: per round, a lower bound on its ``resolution`` that does not need the predictions
            self.target_resolution = np.minimum(self._targets, bound_scale)
            self._bound_scale = bound_scale

    def _find_unknown(self, kernel, X) -> None:
        if isinstance(kernel, WeightedSum):
            for _, term in kernel.terms:
                self._find_unknown(term, X)
        elif not (isinstance(kernel, (LinearQuadratic, Feature)) or isinstance(kernel, Separable) and vectorised(kernel.scalar)):
            with np.errstate(over="ignore", invalid="ignore"):
                largest = [np.max(np.abs(np.asarray(kernel(x, x), dtype=float))) for x in X]
            self._diagonals[id(kernel)] = np.maximum.accumulate(np.where(np.isnan(largest), np.inf, largest))

    def kernel_bound(self, kernel, rounds: np.ndarray) -> np.ndarray:
        """A bound >= 1 on every intermediate of ovk_ref's ``kernel(x, z)`` for the inputs of each of ``rounds``."""
        reach = self.reach[rounds]
        with np.errstate(over="ignore", invalid="ignore"):
            if isinstance(kernel, Separable) and vectorised(kernel.scalar):   # k(x, z) B, k's bound as the family declares it
                return np.maximum(1.0, kernel.scalar.intermediate_bound(reach, self.p)) * max(1.0, np.max(np.abs(kernel.B)))
            if isinstance(kernel, LinearQuadratic):      # mu <x,z> 11^T + (1 - mu) <x,z>^2 I
                return np.maximum(1.0, self.p * reach * reach) ** 2
            if isinstance(kernel, Feature):              # A(x) A(z)^T, A(x) = M_0 + sum_k x_k M_k
                return kernel.q * np.maximum(1.0, np.max(np.abs(kernel.M)) * (1.0 + self.p * reach)) ** 2
            if isinstance(kernel, WeightedSum):          # sum_j w_j K_j
                return sum(max(1.0, weight) * self.kernel_bound(term, rounds) for weight, term in kernel.terms)
            return np.maximum(1.0, self._diagonals[id(kernel)][rounds])

    def resolution(self, rounds: np.ndarray, predictions: np.ndarray) -> np.ndarray:
        """Per round, the scale an error of the round's numbers must stay far below: the larger of |prediction|
        and |target| (the new coefficient is a function of their difference), or the divergence bound's scale."""
        return np.minimum(np.maximum(np.max(np.abs(predictions), axis=1), self._targets[rounds]), self._bound_scale)

    def unsafe(self, rounds, terms, coefficients, norms, resolution):
        """Per round (arrays) or for one round (floats): may ovk_fast's order decide differently from ovk_ref's
        whether the round is finite? ``terms`` is the size of its expansions (N), ``coefficients`` the largest
        |coefficient| it involves (A), ``norms`` the largest |norm| it involves (module docstring); every
        comparison fails for NaN. Called within the run's ``np.errstate`` (overflow to inf is the point)."""
        bound = self.kernels_bound[rounds] * np.maximum(1.0, terms * self.d * coefficients) \
            * np.maximum(1.0, self.d * coefficients)
        return self.overflow(bound, norms) | self.underflow(bound, terms, coefficients, resolution)

    @staticmethod
    def overflow(bound, norms):
        """Could some order of the round's operations overflow? ``bound``: on every number of the round."""
        return np.logical_not(bound < LIMIT) | np.logical_not(4.0 * norms < LIMIT)

    def underflow(self, bound, terms, coefficients, resolution):
        """Could the underflow of some order move the round's numbers by eps of its ``resolution``? Not with all
        coefficients 0 (every product is exactly 0); else the loss, 2^-1075 per operation (N d (p + 2d) of them)
        times the later factors (at most ``bound``), against eps times the resolution."""
        operations = terms * self.d * (self.p + 2 * self.d)
        return (coefficients > 0) & np.logical_not(resolution > operations * TINY * bound)
