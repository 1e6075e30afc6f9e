"""Theorem 1 at its edge (proofs_check.theorem1_edge, docs/bounds.md): the best constant of each Theorem 1 claim over the
one-point family, bracketed between a pinned instance and an upper end certified in arb ball arithmetic."""
import pytest

from proofs_check import theorem1_edge

KINDS = sorted(theorem1_edge.KINDS)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("n", [2, 3])
def test_the_family_closed_form_and_the_claim_agree_on_the_pinned_instance(kind, n):
    """The closed form of the family (sign patterns, each target's supremum) and the claim's own pieces (ovk_ref's run,
    the claim's risks and excess, the certified comparator) give the same ratio on the pinned instance."""
    closed_form, _, _ = theorem1_edge.best_pattern(kind, n)
    lower, instance = theorem1_edge.lower_bound(kind, n)
    assert lower == pytest.approx(closed_form, rel=1e-8)
    assert instance["eta"] * instance["lam"] < 1 and instance["X"] == [[0.0]] * n


@pytest.mark.parametrize(("kind", "n"), [(kind, 2) for kind in KINDS] + [("thm1.sharpened", 3), ("thm1.predictor", 5)])
def test_the_upper_end_is_certified_and_a_bound_below_the_pinned_instance_is_not(kind, n):
    lower, _ = theorem1_edge.lower_bound(kind, n)
    proof = theorem1_edge.certified_upper(kind, n, lower + 2e-3)
    assert proof["below_floor"] < lower and proof["cells"] > 1
    with pytest.raises(ArithmeticError):     # the branch and bound cannot prove what the pinned instance refutes
        theorem1_edge.certified_upper(kind, n, lower - 1e-3, max_cells=20000)


def test_the_sharpened_claim_is_tightest_at_three_rounds_on_the_family():
    """Over n = 2..5 the certified brackets of thm1.sharpened do not overlap n = 3's: its best constant is at n = 3."""
    lower3, _ = theorem1_edge.lower_bound("thm1.sharpened", 3)
    for n in (2, 4, 5):
        theorem1_edge.certified_upper("thm1.sharpened", n, lower3 - 1e-4)
