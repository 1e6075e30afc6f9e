"""Theorem 2 for every (rho, eps): the closed-form t0 of proofs_check.proofs.theorem2_formula (docs/theorem2-certificate.md,
"The formula") is certified by the ball-arithmetic certifier (an independent proof of ``S_n <= 8 rho sqrt(n)`` for every
n) on grid points and on seeded random (rho, eps); a formula that is too small by a constant factor is caught."""
import random
from fractions import Fraction

import pytest

from proofs_check.proofs import theorem2_certificate as certificate
from proofs_check.proofs import theorem2_formula as formula

pytest.importorskip("flint")

#: seed of the random (rho, eps) checked (docs/theorem2-certificate.md reports the same draw with more points)
SEED = 35


@pytest.mark.parametrize("rho, epsilon", [("0.1", "0.1"), ("0.3", "0.25"), ("0.5", "0.25"), ("0.1", "0.4"), ("0.9", "0.4")])
def test_the_formula_is_certified_on_the_grid(rho, epsilon):
    t0 = formula.sufficient_t0(rho, epsilon).t0
    assert certificate.certify(rho, epsilon, t0).status == "certified"


def random_points(count: int, seed: int = SEED) -> list:
    """``count`` decimal (rho, eps): rho in [0.15, 0.95], eps in [0.12, 0.45], two decimals (seeded)."""
    draw = random.Random(seed)
    return [(f"{draw.randint(15, 95) / 100}", f"{draw.randint(12, 45) / 100}") for _ in range(count)]


@pytest.mark.parametrize("rho, epsilon", random_points(4))
def test_the_formula_is_certified_on_random_points(rho, epsilon):
    t0 = formula.sufficient_t0(rho, epsilon).t0
    assert certificate.certify(rho, epsilon, t0).status == "certified"


def test_a_formula_a_twentieth_too_small_is_caught():
    """The planted fault: t0(0.1, 0.1)/20 = 2.2e12, below the certifier's proved failures (2.6e13 is refuted)."""
    t0 = formula.sufficient_t0("0.1", "0.1").t0 // 20
    assert certificate.certify("0.1", "0.1", t0).status == "refuted"


def test_every_larger_t0_is_covered_and_the_lemmas_hold_at_the_formula():
    """The formula is a threshold: t0(rho, eps) + 1 and 2 t0(rho, eps) are certified too; the roots satisfy lemma R
    exactly (balls) for every (K, omega)."""
    found = formula.sufficient_t0("0.3", "0.25")
    for t0 in (found.t0 + 1, 2 * found.t0):
        assert certificate.certify("0.3", "0.25", t0).status == "certified"
    for split in formula.SPLITS:
        for weight in formula.WEIGHTS:
            parts = formula.parts("0.3", "0.25", split, weight)
            Z, A = formula._ball(parts["Z"]), formula._ball(parts["A"])
            assert parts["A"] == weight / Fraction("0.25") and parts["Z"] >= parts["A"]
            assert Z - A * Z.log() > parts["B"]          # balls apart: proved, not rounded


@pytest.mark.parametrize("rho, epsilon, name", [("1.5", "0.1", "rho"), ("0", "0.1", "rho"), ("0.5", "0.5", "epsilon"),
                                                ("0.5", "-0.1", "epsilon")])
def test_bad_input_is_refused_naming_the_parameter(rho, epsilon, name):
    with pytest.raises(ValueError, match=name):
        formula.sufficient_t0(rho, epsilon)
