"""kappa^2 read off a ball of FLINT's arb (proofs_check.kappa2_ball) gives an instance the same float as the 60-digit
path of constants.kappa2: the smallest float >= kappa^2. The certified path and the fallback are both taken, and a
wrong ball (planted below) is caught by the same comparison. A planted fault in a feature kernel's code reaches the
instance's kappa^2 by either path, as it did before the ball existed (ovk-check sensitivity's matrix stays the same)."""
from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ovk_ref
from proofs_check import constants, kappa2_ball, strategies


def _portable(kernel) -> str:
    return json.dumps(ovk_ref.as_kernel(kernel).to_dict(), sort_keys=True)


def _certified(kernel, p):
    return kappa2_ball.certified_ceiling(ovk_ref.as_kernel(kernel), p, constants.scalar_sup, constants.LINEAR_QUADRATIC_KAPPA2,
                                         constants.feature_blocks)


def _exact(kernel, p) -> float:
    """The smallest float >= kappa^2, from the 60-digit value (constants.kappa2), without any ball."""
    exact = constants.kappa2(kernel, p)
    value = float(exact)
    return float(np.nextafter(value, np.inf)) if value < exact else value


def _kernels() -> list:
    """Kernels of every family of spec 3 with their p, fixed by a seed: separable with random PSD B, the paper's
    Gaussian, feature kernels, the non-separable kernel, weighted sums."""
    rng = np.random.default_rng(2026)
    kernels = []
    for d, p in ((1, 1), (2, 3), (3, 2), (4, 4)):
        A = rng.standard_normal((d, d))
        B = A @ A.T
        feature = ovk_ref.Feature(rng.standard_normal((p + 1, d, 2)))
        kernels += [(ovk_ref.Separable(ovk_ref.Gaussian(0.7), B), p), (ovk_ref.Separable(ovk_ref.Linear(), B), p),
                    (ovk_ref.Separable(ovk_ref.Polynomial(2, 0.3), B), p), (ovk_ref.gaussian_separable(1.3, d), p),
                    (feature, p), (ovk_ref.LinearQuadratic(0.37, d), p),
                    (ovk_ref.WeightedSum([(0.3, feature), (2.9, ovk_ref.Separable(ovk_ref.Constant(0.45), B))]), p)]
    return kernels


def _disagreements(kernels) -> list:
    """The kernels whose certified float (where the ball decides one) is not the 60-digit path's."""
    return [(kernel, p) for kernel, p in kernels if (certified := _certified(kernel, p)) is not None
            and certified != _exact(kernel, p)]


def test_every_certified_float_is_the_exact_paths():
    kernels = _kernels()
    assert _disagreements(kernels) == []
    undecided = [(kernel.to_dict()["type"], kernel.d) for kernel, p in kernels if _certified(kernel, p) is None]
    # the ball decides all but the kernels whose kappa^2 is a product of a few floats, often a float itself
    assert all(kind == "linear_quadratic" or d == 1 for kind, d in undecided), undecided
    assert len(undecided) <= 8, undecided
    assert all(_certified(kernel, p) is not None for kernel, p in kernels if isinstance(kernel, ovk_ref.Feature) and kernel.d > 1)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 3).flatmap(lambda d: st.integers(1, 3).flatmap(
    lambda p: st.tuples(strategies.kernels_with_kappa2(d, p), st.just(p)))))
def test_a_drawn_instances_kappa2_is_the_smallest_float_above_the_60_digit_value(pair):
    (kernel, kappa2), p = pair
    assert kappa2 == _exact(kernel, p)
    assert _disagreements([(kernel, p)]) == []


def test_the_certified_path_is_taken_where_the_ball_decides():
    kernel = ovk_ref.Separable(ovk_ref.Gaussian(1.0), np.array([[2.0, 0.3], [0.3, 1.0]]))   # 1.5 + sqrt(0.34): irrational
    assert _certified(kernel, 2) is not None
    assert constants.kappa2_ceiling(kernel, 2) == _certified(kernel, 2) == _exact(kernel, 2)


def test_a_ball_that_holds_a_float_goes_to_the_60_digit_path():
    kernel = ovk_ref.LinearQuadratic(0.5, 2)   # kappa^2 = 1 (0.5 * 2 + 0.5 * 1) = 1.5 exactly, a float
    assert _certified(kernel, 1) is None
    assert constants.kappa2_ceiling(kernel, 1) == _exact(kernel, 1) == 1.5
    identity = ovk_ref.Separable(ovk_ref.Gaussian(1.0), np.eye(3))   # a triple eigenvalue 1: FLINT's ball is {1}
    assert _certified(identity, 2) is None
    assert constants.kappa2_ceiling(identity, 2) == 1.0


def test_without_python_flint_every_kappa2_takes_the_60_digit_path(monkeypatch):
    monkeypatch.setattr(kappa2_ball, "_flint", lambda: None)
    constants._kappa2_ceiling.cache_clear()
    try:
        kernels = _kernels()
        assert all(_certified(kernel, p) is None for kernel, p in kernels)
        assert [constants.kappa2_ceiling(kernel, p) for kernel, p in kernels] == [_exact(kernel, p) for kernel, p in kernels]
    finally:
        constants._kappa2_ceiling.cache_clear()


def _ulps_up(largest_eigenvalue):
    """Planted fault: an enclosure moved up by 4 float64 ulps (a float64 step slipped into the ball arithmetic)."""
    return lambda flint, rows: largest_eigenvalue(flint, rows) * (1 + flint.arb(2.0**-50))


def _smallest_eigenvalue(flint, rows):
    """Planted fault: the ball of the smallest eigenvalue (min for max)."""
    eigenvalues = flint.acb_mat(flint.arb_mat(rows)).eig(multiple=True)
    return min((value.real for value in eigenvalues), key=lambda value: float(value.mid()))


def _mantissa_sign_dropped(flint, value):
    """Planted fault: an mpf entry of K(v, v) read without its sign (|x| for x)."""
    _, man, exp, _ = value._mpf_
    return flint.arb((man, exp))


def _feature_kernels():
    """Feature kernels with blocks of mixed signs, d = 1..4, fixed by a seed."""
    rng = np.random.default_rng(7)
    return [(ovk_ref.Feature(rng.standard_normal((p + 1, d, q))), p)
            for d, p, q in ((1, 2, 2), (2, 3, 2), (3, 2, 3), (4, 4, 4), (3, 3, 4), (2, 1, 3))]


@pytest.mark.parametrize("fault", ["ulps_up", "smallest_eigenvalue", "mantissa_sign_dropped"])
def test_a_wrong_ball_is_caught(monkeypatch, fault):
    if fault == "mantissa_sign_dropped":
        monkeypatch.setattr(kappa2_ball, "exact_ball", _mantissa_sign_dropped)
        # |K| has K's eigenvalues when its sign pattern is that of a diagonal similarity (rank one, or by chance)
        assert len(_disagreements(_feature_kernels())) >= 1
        return
    wrong = _ulps_up(kappa2_ball.largest_eigenvalue) if fault == "ulps_up" else _smallest_eigenvalue
    monkeypatch.setattr(kappa2_ball, "largest_eigenvalue", wrong)
    assert len(_disagreements(_kernels())) >= 3


def test_feature_kernels_take_the_ball_and_agree_with_the_60_digit_path():
    kernels = _feature_kernels()
    assert _disagreements(kernels) == []
    assert all(_certified(kernel, p) is not None for kernel, p in kernels)


def test_a_feature_block_not_exactly_symmetric_goes_to_the_60_digit_path(monkeypatch):
    """A faulty kernel whose K(v, v) is not symmetric: FLINT's general eigensolver and mpmath's symmetric one would
    read it differently, so the ball is not used."""
    kernel, p = _feature_kernels()[2]
    blocks = constants.feature_blocks(kernel, p)
    skewed = [block + np.triu(np.ones_like(block, dtype=float) * 1e-3, 1).astype(object) for block in blocks]
    monkeypatch.setattr(constants, "feature_blocks", lambda kernel, p: skewed)
    with pytest.raises(kappa2_ball.Uncertified):
        kappa2_ball.feature_ball(kappa2_ball._flint(), skewed)
    assert _certified(kernel, p) is None


@pytest.mark.parametrize("entry", [float("nan"), float("inf")])
def test_a_feature_block_with_a_non_finite_entry_is_uncertified(entry):
    import mpmath

    flint = kappa2_ball._flint()
    for value in (entry, mpmath.mpf(entry)):
        with pytest.raises(kappa2_ball.Uncertified):
            kappa2_ball.feature_ball(flint, [np.array([[value]], dtype=object)])


def test_a_fault_in_a_feature_kernels_code_reaches_its_kappa2_as_on_the_60_digit_path():
    """The float is remembered per kernel; planting a fault forgets it (proofs_check.faults), and a feature kernel's
    kappa^2 goes through its own (faulty) code, as the 60-digit path computes it."""
    from proofs_check.faults import FAULTS

    kernel, p = next((kernel, p) for kernel, p in _kernels() if isinstance(kernel, ovk_ref.Feature) and kernel.d == 2)
    correct = constants.kappa2_ceiling(kernel, p)          # remembered
    with FAULTS["feature_constant_term_dropped"].applied():
        faulty = constants.kappa2_ceiling(kernel, p)
        assert faulty == _exact(kernel, p) != correct
    assert constants.kappa2_ceiling(kernel, p) == correct
