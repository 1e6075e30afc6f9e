"""The steps proved by sympy (proofs_check.proofs.symbolic): every proof is discharged and its statement holds at
exact sample points; every planted wrong variant is not proved and is refuted at an exact point of its domain.

The whole module runs 36 sympy proofs and their 36 variants (about 15 s): each proof is a few simplifications; the
variants are the planted faults of the proofs, so they cannot be skipped."""
import itertools

import pytest
import sympy as sp

from proofs_check.proofs import chains, symbolic

#: digits of the numerical sanity check ``holds_at_samples``
SANITY_DIGITS = 30


def holds_at_samples(proof: symbolic.SymbolicProof) -> bool:
    """The relation of a proved statement evaluated at the sample points of its domain, to SANITY_DIGITS digits: a
    check that the statement the obligations prove is the one written (an exact zero test of a true radical
    identity can take sympy minutes; ``refute`` is for the wrong variants)."""
    relation, kind, domain, _ = proof.parts()
    symbols = sorted(domain, key=str)
    choices = [[value for value in symbolic.SAMPLES + tuple(domain[symbol][2])
                if symbolic._inside(value, domain[symbol]) and (not symbol.is_integer or sp.Integer(value) == value)] for symbol in symbols]
    tolerance = sp.Float(10) ** (5 - SANITY_DIGITS)
    for point in itertools.product(*choices):
        value = sp.N(relation.subs(dict(zip(symbols, point))).doit(), SANITY_DIGITS)
        if (kind == "zero" and abs(value) > tolerance) or (kind == "nonnegative" and value < -tolerance) or (
                kind == "positive" and value <= 0):
            return False
    return True


@pytest.mark.parametrize("name", sorted(symbolic.PROOFS))
def test_the_step_is_proved(name):
    proof = symbolic.PROOFS[name]
    assert symbolic.prove(proof)
    assert holds_at_samples(proof)


@pytest.mark.parametrize("name", sorted(symbolic.WRONG_VARIANTS))
def test_the_wrong_variant_is_refuted(name):
    wrong = symbolic.WRONG_VARIANTS[name]
    assert not symbolic.prove(wrong)
    witness = symbolic.refute(wrong)
    assert witness is not None
    relation, kind, _, _ = wrong.parts()
    value = sp.N(relation.subs(witness).doit(), 30)        # the witness, rechecked independently of refute
    assert (value != 0) if kind == "zero" else (value < 0 if kind == "nonnegative" else value <= 0)


def test_every_proof_has_a_variant_and_at_least_ten_chain_steps_are_proved():
    assert set(symbolic.PROOFS) == set(symbolic.WRONG_VARIANTS)
    used = {step.symbolic for proof in chains().values() for step in proof.steps if step.symbolic}
    assert used <= set(symbolic.PROOFS) and len(used) >= 10


def test_sympy_does_not_prove_a_false_identity_by_accident():
    """The prover's own planted fault: an identity that is false by a term sympy could drop if it simplified
    carelessly (x - sqrt(x^2) is 0 only for x >= 0; our symbols are positive, so it is 0; with a real x it is not)."""
    real = sp.Symbol("y", real=True)
    assert not symbolic._holds("zero", real - sp.sqrt(real**2))
    assert symbolic._holds("zero", symbolic.x - sp.sqrt(symbolic.x**2))


@pytest.mark.parametrize("name", sorted(symbolic.BOUNDARY_VARIANTS))
def test_a_failure_near_a_boundary_is_refuted(name):
    """The planted variants whose failure lies only near a boundary of the domain: the grid of SAMPLES misses each,
    the boundary pass of ``refute`` finds an exact point near a boundary, rechecked independently."""
    wrong = symbolic.BOUNDARY_VARIANTS[name]
    assert not symbolic.prove(wrong)
    assert symbolic.refute(wrong, boundaries=False) is None
    witness = symbolic.refute(wrong)
    assert witness is not None
    relation, kind, domain, _ = wrong.parts()
    value = sp.N(relation.subs(witness).doit(), 30)
    assert (value < 0) if kind == "nonnegative" else (value <= 0)
    near = [symbol for symbol, point in witness.items()
            if any(bound is not None and bool(abs(point - bound) <= sp.Rational(1, 1000)) for bound in domain[symbol][:2])
            or point >= 1000]
    assert near, f"{name}: the witness {witness} is not near a boundary"
