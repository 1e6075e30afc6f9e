"""A second decision procedure agrees with sympy (proofs_check.proofs.second_opinion): every proved step that is a
polynomial inequality or identity is proved by z3's nonlinear real arithmetic from its relation alone, every planted
wrong variant of those (and every boundary variant) is refuted by z3 with a model that sympy confirms exactly, and a
disagreement fails (a planted one is caught)."""
import pytest
import sympy as sp

from proofs_check.proofs import second_opinion, symbolic

pytest.importorskip("z3", reason="z3-solver is not installed (the 'proofs' extra): the second opinion is skipped")

#: the proofs and variants z3 can decide (rational relations over real symbols)
POLYNOMIAL_PROOFS = sorted(name for name, proof in symbolic.PROOFS.items() if second_opinion.polynomial(proof))
POLYNOMIAL_VARIANTS = sorted(name for name, proof in symbolic.WRONG_VARIANTS.items() if second_opinion.polynomial(proof))
POLYNOMIAL_BOUNDARY = sorted(name for name, proof in symbolic.BOUNDARY_VARIANTS.items() if second_opinion.polynomial(proof))


def test_the_second_opinion_covers_the_polynomial_steps():
    """17 of the proofs are polynomial today: the count may grow, not silently shrink."""
    assert len(POLYNOMIAL_PROOFS) >= 17 and len(POLYNOMIAL_VARIANTS) >= 17 and len(POLYNOMIAL_BOUNDARY) >= 2


@pytest.mark.parametrize("name", POLYNOMIAL_PROOFS)
def test_z3_proves_what_sympy_proves(name):
    proof = symbolic.PROOFS[name]
    assert symbolic.prove(proof)
    assert second_opinion.decide(proof)[0] == "proved"


def confirmed_by_sympy(proof, model: dict) -> bool:
    """z3's model substituted exactly into the relation: it violates it (independent of z3's arithmetic)."""
    relation, kind, domain, _ = proof.parts()
    point = {symbol: sp.Rational(model[str(symbol)]) for symbol in sp.sympify(relation).free_symbols}
    value = sp.sympify(relation).subs(point)
    return bool(value != 0) if kind == "zero" else bool(value < 0) if kind == "nonnegative" else bool(value <= 0)


@pytest.mark.parametrize("table, name", [("WRONG_VARIANTS", name) for name in POLYNOMIAL_VARIANTS]
                         + [("BOUNDARY_VARIANTS", name) for name in POLYNOMIAL_BOUNDARY])
def test_z3_refutes_what_sympy_refutes(table, name):
    wrong = getattr(symbolic, table)[name]
    assert not symbolic.prove(wrong)
    verdict, model = second_opinion.decide(wrong)
    assert verdict == "refuted" and confirmed_by_sympy(wrong, model)


def test_a_disagreement_is_caught():
    """The planted fault: a false step (2 kappa C_y <= lam U with lam >= kappa^2 only) whose obligation sympy is
    made to accept (an obligation that is trivially 0): sympy 'proves' it, z3 refutes it, and the test's comparison
    says they disagree."""
    kappa, C_y, s, v = symbolic.kappa, symbolic.C_y, symbolic.s, symbolic.v
    difference = (kappa**2 + s) * (C_y / kappa + v) - 2 * kappa * C_y
    careless = symbolic.SymbolicProof("careless", "2 kappa C_y <= lam U for lam >= kappa^2", "an obligation that proves nothing",
                                      lambda: (difference, "nonnegative", {kappa: (0, None, ()), C_y: (0, None, ()), s: (0, None, ()),
                                                                           v: (0, None, ())}, [("zero", sp.Integer(0))]))
    assert symbolic.prove(careless) and second_opinion.polynomial(careless)
    verdict, model = second_opinion.decide(careless)
    assert verdict == "refuted" and confirmed_by_sympy(careless, model)
