"""Every planted fault of proofs_check.mutants is caught by a named claim ("What it must show")."""
import pytest

import ovk_ref
from proofs_check import CLAIMS, MUTANTS, run_claim

#: mutant -> the claims that must reject it (the first one is the fault's natural detector)
CATCHERS = {
    "shrink_skipped": ["onorma.closed_form"],
    "shrink_applied_to_new_coefficient": ["onorma.sgd"],
    "eta_next_index": ["onorma.closed_form", "onorma.sgd", "monorma.one_kernel"],
    "kernel_transposed": ["onorma.sgd"],
    "delta_exponents_misparsed": ["monorma.delta_normalised", "monorma.copies"],
    "truncation_keeps_one_more": ["onorma.truncation_support"],
    # faults in what ONORMA and MONORMA share (OnlineLearner): the MONORMA identities see them because their
    # comparators are the spec's formulas written out in the claim, not ovk_ref.onorma
    "new_coefficient_without_decay": ["onorma.sgd", "monorma.one_kernel", "monorma.copies"],
    "shrink_halved": ["onorma.closed_form", "monorma.gamma", "monorma.delta_log_linear", "monorma.one_kernel", "monorma.copies"],
    # delta = 1 for one kernel: only m >= 2 copies see a prediction that ignores the weights
    "monorma_prediction_without_weights": ["monorma.copies"],
    # the update still normalises (delta_normalised holds): the log-linear form over time sees it
    "monorma_weights_without_square": ["monorma.delta_log_linear"],
    # MONORMA's guarantees (docs/monorma-guarantees.md) that hold see a MONORMA without shrink (norm bound) and a revived zero weight
    "monorma_shrink_skipped": ["monorma.norm_prop1_factor", "monorma.norm_prop2_factor"],
    "monorma_zero_weight_revived": ["monorma.zero_weight_absorbing"],
    # weights on the simplex whatever r: the normalisation and the copies identity see it (and the findings of
    # monorma.best_kernel_hyp3, monorma.norm_prop2*, which rest on sum_j delta_j = m^(1-1/r), vanish: test_monorma_guarantees)
    "monorma_weights_on_simplex": ["monorma.delta_normalised", "monorma.copies"],
}


def test_every_mutant_has_a_catcher():
    assert set(CATCHERS) == set(MUTANTS), "a planted fault without a claim that catches it"


@pytest.mark.parametrize(("mutant", "claim_id"), [(m, c) for m, claims in CATCHERS.items() for c in claims],
                         ids=lambda value: value)
def test_claim_catches_mutant(mutant, claim_id):
    verdict = run_claim(claim_id, "ci", impl=MUTANTS[mutant], shrink=False)
    assert verdict.verdict == "false", f"{claim_id} did not catch the mutant {mutant}: {verdict.verdict}"
    assert CLAIMS[claim_id].expected == "holds"


@pytest.mark.parametrize("claim_id", ["onorma.closed_form", "onorma.sgd", "onorma.truncation_support", "monorma.delta_normalised",
                                      "monorma.gamma", "monorma.delta_log_linear", "monorma.one_kernel", "monorma.copies",
                                      "monorma.norm_prop1_factor", "monorma.norm_prop2_factor", "monorma.zero_weight_absorbing"])
def test_catchers_accept_the_reference(claim_id):
    assert run_claim(claim_id, "ci").verdict == "holds"


def test_monorma_identities_do_not_compare_with_ovk_ref_onorma(monkeypatch):
    """Their ONORMA is Algorithm 1 written out in the claim: a broken ovk_ref.onorma moves nothing."""
    def broken(*args, **kwargs):
        raise AssertionError("a MONORMA identity called ovk_ref.onorma")
    monkeypatch.setattr(ovk_ref, "onorma", broken)
    for claim_id in ("monorma.one_kernel", "monorma.copies"):
        verdict = run_claim(claim_id, "ci", shrink=False)
        assert verdict.verdict == "holds", (claim_id, verdict.error)
