"""``claims.common.PointsGram``: the Gram matrix of a prefix of an instance's points (or of one point against a prefix)
read off the Gram matrix of all of them is the kernel's own Gram matrix, bit for bit, at float64 and at 50 digits
(so a trajectory's ``||f_t||`` and ``f_t(x)`` are the same numbers as before); any other point set gets the kernel's
own. A wrong shortcut (the blocks one row off, or the float64 Gram matrix reused in a 50-digit recheck) is told
apart by the same comparison."""
from __future__ import annotations

import mpmath
import numpy as np
import pytest

import ovk_ref
from ovk_ref import arithmetic
from proofs_check.claims.common import PointsGram


def _same(one, other) -> bool:
    one, other = np.asarray(one), np.asarray(other)
    if one.shape != other.shape or one.dtype != other.dtype:
        return False
    if one.dtype == object:
        return all(a._mpf_ == b._mpf_ for a, b in zip(one.ravel(), other.ravel()))
    return one.tobytes() == other.tobytes()


def _psd(rng, d):
    A = rng.standard_normal((d, d))
    return A @ A.T


def _kernels():
    rng = np.random.default_rng(7)
    return [ovk_ref.WeightedSum([(3.5, ovk_ref.gaussian_separable(0.7, 2))]),
            ovk_ref.random_feature(3, 2, 3, seed=1), ovk_ref.LinearQuadratic(0.3, 3),
            ovk_ref.WeightedSum([(0.5, ovk_ref.Separable(ovk_ref.Polynomial(2, 0.5), _psd(rng, 2))),
                                 (2.0, ovk_ref.LinearQuadratic(0.9, 2))])]


def _points(kernel, n=6):
    rng = np.random.default_rng(11)
    X = rng.uniform(size=(n, kernel.p or 3))
    X[2] = -0.0 * X[2]         # a row of negative zeros: told apart from zeros bit for bit
    X[4] = X[1]                # a repeated point
    return X


@pytest.mark.parametrize("kernel", _kernels(), ids=lambda kernel: type(kernel).__name__)
@pytest.mark.parametrize("precision", [None, 50])
def test_prefix_and_point_grams_are_the_kernels_own_bit_for_bit(kernel, precision):
    X = _points(kernel)
    remembered = PointsGram(kernel, X)
    with mpmath.workdps(precision or mpmath.mp.dps):
        lifted = arithmetic.mpf_array(X) if precision else X
        for t in range(1, len(X) + 1):
            assert _same(remembered.gram(lifted[:t]), kernel.gram(lifted[:t]))
            for k in range(len(X)):
                assert _same(remembered.gram(lifted[k:k + 1], lifted[:t]), kernel.gram(lifted[k:k + 1], lifted[:t]))
        coefficients = arithmetic.lift(np.linspace(-1, 1, 3 * kernel.d).reshape(3, kernel.d), lifted)
        assert _same(ovk_ref.rkhs_norm2(remembered, X[:3], coefficients), ovk_ref.rkhs_norm2(kernel, X[:3], coefficients))
        other = lifted[1:4]        # not a prefix: the kernel's own Gram matrix
        assert _same(remembered.gram(other), kernel.gram(other))


def test_a_wrong_shortcut_is_told_apart():
    kernel = _kernels()[0]
    X = _points(kernel)

    class OneRowOff(PointsGram):
        def gram(self, X, Z=None):
            points, G = self._of_points(np.asarray(X).dtype)
            d, t = self.d, len(X)
            return np.array(G[d: (t + 1) * d, d: (t + 1) * d]) if Z is None and t < len(points) else super().gram(X, Z)

    class FloatInRecheck(PointsGram):
        def _of_points(self, dtype):
            points, G = super()._of_points(np.dtype(float))
            return (arithmetic.mpf_array(points), arithmetic.mpf_array(G)) if dtype.kind == "O" else (points, G)

    assert not _same(OneRowOff(kernel, X).gram(X[:3]), kernel.gram(X[:3]))
    with mpmath.workdps(50):
        lifted = arithmetic.mpf_array(X)
        assert not _same(FloatInRecheck(kernel, X).gram(lifted[:3]), kernel.gram(lifted[:3]))


@pytest.mark.parametrize("precision", [None, 50])
def test_the_closed_form_comparator_of_every_prefix_is_the_same_with_the_points_gram(precision):
    """``comparators.ridge`` (the squared loss' ``min R_reg`` and ``||f_n||``, spec 7.1) on each prefix, as Prop. 2(iv) and
    Theorems 1-2 take it (``bounds._prefix_kernel``): the same numbers as with the kernel's own Gram matrices."""
    from proofs_check import comparators

    for kernel in _kernels():
        X = _points(kernel)
        Y = np.linspace(-1, 1, len(X) * kernel.d).reshape(len(X), kernel.d)
        remembered = PointsGram(kernel, X)
        with mpmath.workdps(precision or mpmath.mp.dps):
            for n in range(1, len(X) + 1):
                one, other = (comparators.ridge(k, X[:n], Y[:n], 0.3, precision) for k in (remembered, kernel))
                assert all(_same(getattr(one, name), getattr(other, name)) for name in ("upper", "lower", "norm", "minimiser"))


@pytest.mark.parametrize("claim_id", ["thm1.descent", "thm2.dropped_norm", "monorma.gamma", "monorma.norm_prop1_factor"])
@pytest.mark.parametrize("precision", [None, 50])
def test_the_claims_are_the_same_with_every_gram_matrix_computed_anew(monkeypatch, claim_id, precision):
    """Claims that read norms off Gram matrices computed once for the whole stream (``Trajectory.points_gram`` for
    ``||G_t||`` and ``||Delta_t||``, ``PointsGram`` for MONORMA's gamma magnitudes, ``explicit.kernel_blocks`` for the
    explicit double sums): every field of their outcomes on drawn instances is the same as with every Gram matrix and
    kernel block computed anew for each prefix."""
    from hypothesis import HealthCheck, given, settings

    from proofs_check.claims import CLAIMS, common, explicit

    claim = CLAIMS[claim_id]

    def double_sum(kernel, centres, coefficients, blocks=None):   # every block evaluated where the sum needs it
        return float(sum(np.dot(kernel(x_i, x_k) @ a_k, a_i)
                         for x_i, a_i in zip(centres, coefficients) for x_k, a_k in zip(centres, coefficients)))

    def outcome(instance):
        with mpmath.workdps(precision or mpmath.mp.dps):
            return claim.check(instance, ovk_ref, precision=precision)

    @settings(max_examples=6 if precision else 20, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(claim.instances)
    def compare(instance):
        remembered = outcome(instance)
        with monkeypatch.context() as anew:
            anew.setattr(common.Trajectory, "points_gram", lambda self, kernel: kernel)
            anew.setattr(common.PointsGram, "gram", lambda self, X, Z=None: self.kernel.gram(X, Z))
            anew.setattr(explicit, "norm2", double_sum)
            own = outcome(instance)
        assert repr(remembered) == repr(own)

    compare()
