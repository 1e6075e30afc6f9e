"""proofs_check.constants against the spec's own derivations (spec 3.2, 10)."""
import sympy as sp

import ovk_ref
from proofs_check import constants as K


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
