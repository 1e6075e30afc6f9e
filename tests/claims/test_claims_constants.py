"""proofs_check.constants against the spec's own derivations (spec 3.2, 3.3, 10)."""
import itertools
import json

import mpmath
import numpy as np
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import ovk_ref
from proofs_check import constants as K
from proofs_check import strategies


def test_eta_star_is_the_stationary_point_and_minimum_symbolically():
    s = sp.symbols("s", positive=True)           # n = s^4: sympy then simplifies the nested radicals (spec 10 tip)
    excess = K.THEOREM1_EXCESS.subs(K.n, s**4)
    star = K.ETA_STAR.subs(K.n, s**4)
    assert sp.simplify(sp.diff(excess, K.eta).subs(K.eta, star)) == 0
    assert sp.simplify(excess.subs(K.eta, star) - K.THEOREM1_MINIMUM.subs(K.n, s**4)) == 0
    assert sp.simplify(sp.diff(excess, K.eta, 2)) .subs({K.eta: star}).is_positive


def test_eta_star_lam_runs_from_sqrt10_over_4_to_one_over_sqrt2():
    assert K.evaluate(K.ETA_STAR * K.lam, n=1) == K.evaluate(sp.sqrt(10) / 4)
    assert abs(K.value(K.ETA_STAR * K.lam, n=10**12) - 2**-0.5) < 1e-6


def test_kappa2_of_the_synthetic_setting_is_336():
    assert K.kappa2(ovk_ref.LinearQuadratic(0.2, 4), 20) == K.paper_kappa2(ovk_ref.LinearQuadratic(0.2, 4), 20)
    assert abs(K.kappa2(ovk_ref.LinearQuadratic(0.2, 4), 20) - 336) < 1e-12


def test_U_of_proposition_2_takes_the_larger_branch():
    assert K.value(K.U_PROP2, C_y=1.0, kappa2=4.0, lam=0.5) == 4.0      # 2 C_y / lam = 4 > C_y / kappa = 0.5
    assert K.value(K.U_PROP2, C_y=1.0, kappa2=0.25, lam=8.0) == 2.0     # C_y / kappa = 2 > 2 C_y / lam = 0.25


def test_evaluate_reads_floats_as_exact_rationals():
    assert K.evaluate(K.B, U=0.1, eta=0.1) == K.evaluate(sp.Rational(0.1) ** 2 / (2 * sp.Rational(0.1)))


def _kappa2_at_every_vertex(kernel, p: int):
    """kappa^2 of a feature kernel as spec 3.3 defines it: the 60-digit max of ||K(v, v)||_op over all 2^p vertices."""
    with mpmath.workdps(K.DIGITS):
        vertices = [np.array([mpmath.mpf(c) for c in v], dtype=object) for v in itertools.product((0, 1), repeat=p)]
        return max(K._largest_eigenvalue(kernel(v, v)) for v in vertices)


def _kappa2_computed_afresh(kernel, p: int):
    return K._kappa2.__wrapped__(json.dumps(kernel.to_dict(), sort_keys=True), p)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 4).flatmap(lambda p: st.tuples(st.just(p), strategies.dimensions).flatmap(
    lambda pd: st.tuples(st.just(pd[0]), strategies.feature_kernels(pd[1], pd[0]), strategies.log_uniform(1e-3, 1e3)))))
def test_feature_kappa2_solves_the_contending_vertices_only_and_is_the_max_over_all(case):
    """The float64 screen of the vertices (``tolerances.KAPPA2_CONTENDER_GAP``) never drops the one that attains the
    max: the 60-digit kappa^2 is the same number as over all 2^p vertices."""
    p, kernel, scale = case
    kernel = strategies.scaled(kernel, scale)
    assert _kappa2_computed_afresh(kernel, p) == _kappa2_at_every_vertex(kernel, p)


def test_feature_kappa2_where_the_max_is_not_at_the_all_ones_vertex_or_is_attained_twice():
    M0 = np.array([[1.0, 0.5], [0.25, -1.0]])
    away = ovk_ref.Feature(np.stack([M0, -M0, 0.1 * M0]))          # A(1, 0) = 0: the max is at (0, 0) or (0, 1)
    tie = ovk_ref.Feature(np.stack([M0, -2.0 * M0]))                 # A(0) = M0, A(1) = -M0: equal norms
    for kernel, p in ((away, 2), (tie, 1)):
        assert _kappa2_computed_afresh(kernel, p) == _kappa2_at_every_vertex(kernel, p)
    assert K._contending_vertices(tie, 1) == [(0,), (1,)]
