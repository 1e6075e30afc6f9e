"""Every planted fault of proofs_check.faults, planted in the shared code it would live in, is caught by a claim in ci
(as scikit-learn runs each estimator check against an estimator broken on purpose and asserts the check fails)."""
import numpy as np
import pytest
from hypothesis import strategies as hypothesis_strategies

import ovk_ref
from ovk_ref.kernels import scalar
from ovk_ref.online_learner import OnlineLearner
from proofs_check import CLAIMS, MUTANTS, constants, run_claim, strategies
from proofs_check.faults import FAULTS, LAYERS, recording
from proofs_check.units import Unit, run_unit

KERNEL_FAULTS = [name for name, fault in FAULTS.items() if fault.layer == "kernel"]
LOSS_FAULTS = [name for name, fault in FAULTS.items() if fault.layer == "loss"]

#: fault -> the claim that must turn false under it in ci (its natural detector: a side computed independently of
#: the code the fault breaks)
CATCHER = {
    "eta_next_index": "onorma.closed_form",
    "step_size_over_t": "onorma.closed_form",
    "shrink_skipped": "onorma.closed_form",
    "shrink_halved": "prop1.ii",
    "shrink_applied_to_new_coefficient": "onorma.sgd",
    "new_coefficient_without_decay": "prop1.i",
    "new_coefficient_short": "onorma.sgd",
    "kernel_transposed": "onorma.sgd",
    "evaluate_kernel_transposed": "def1.reproducing",
    "truncation_keeps_one_more": "onorma.truncation_support",
    "theorem2_exponent_halved": "trunc.schedule",
    "delta_exponents_misparsed": "monorma.delta_normalised",
    "monorma_weights_without_square": "monorma.delta_log_linear",
    "monorma_zero_weight_revived": "monorma.zero_weight_absorbing",
    "monorma_weights_on_simplex": "monorma.delta_normalised",
    "monorma_prediction_without_weights": "monorma.copies",
    "gamma_cross_term_once": "monorma.gamma",
    "all_zero_resets_delta": "monorma.all_zero_keeps_delta",
    **{name: "kernel.values" for name in KERNEL_FAULTS},
    **{name: "loss.values" for name in LOSS_FAULTS},
    "batch_ridge_without_t": "batch.optimality",
    "rkhs_norm_column_major": "rkhs.feature_norm",
}


#: the claims of spec 5-8 registered last (C10 and C12 from f_0 != 0, C14 corrected and tight, C16's homogeneity, C19's
#: descent step and sum bound, C20's dropped part, C25's minimal value and the shortcuts of 7.2-7.3) -> a planted fault
#: each turns false in ci (an existing fault where one breaks the claim; squared_gradient_without_half was added for
#: prop2.i_from_f0, which no other fault breaks)
CAUGHT_BY = {
    "prop1.ii_from_f0": "shrink_halved",
    "prop2.i_from_f0": "squared_gradient_without_half",
    "prop2.iv_tight": "batch_ridge_without_t",
    "monorma.delta_homogeneous": "delta_exponents_misparsed",
    "thm1.descent": "eta_next_index",
    "thm1.phi_sum": "norm_gradient_unnormalised",
    "thm2.dropped_norm": "truncation_keeps_one_more",
    "batch.minimal_value": "batch_ridge_without_t",
    "batch.separable_shortcut": "separable_scalar_at_x",
    "batch.commuting_shortcut": "linear_quadratic_weights_swapped",
}


@pytest.mark.parametrize("claim_id", sorted(CAUGHT_BY))
def test_each_new_claim_catches_its_planted_fault(claim_id):
    assert CLAIMS[claim_id].expected == "holds"
    assert run_claim(claim_id, "ci", shrink=False).verdict == "holds"
    with FAULTS[CAUGHT_BY[claim_id]].applied():
        verdict = run_claim(claim_id, "ci", shrink=False)
    assert verdict.verdict == "false", f"{claim_id} did not catch {CAUGHT_BY[claim_id]}: {verdict.verdict} {verdict.error}"


def test_every_fault_has_a_catcher_and_every_layer_a_fault():
    assert set(CATCHER) == set(FAULTS)
    assert {fault.layer for fault in FAULTS.values()} == set(LAYERS)
    assert all(fault.reason and "\n" not in fault.reason for fault in FAULTS.values())


@pytest.mark.parametrize("fault", list(FAULTS))
def test_the_catcher_turns_false_under_the_fault(fault):
    claim_id = CATCHER[fault]
    assert CLAIMS[claim_id].expected == "holds"
    with FAULTS[fault].applied():
        verdict = run_claim(claim_id, "ci", shrink=False)
    assert verdict.verdict == "false", f"{claim_id} did not catch {fault}: {verdict.verdict} {verdict.error}"


def test_a_fault_is_removed_with_its_block_everywhere_it_was_bound():
    originals = (scalar.Gaussian.__call__, ovk_ref.batch_ridge, ovk_ref.batch.batch_ridge, OnlineLearner.shrink_factor)
    kernel = ovk_ref.gaussian_separable(1.0, 1)
    before = kernel(np.zeros(1), np.ones(1))
    with FAULTS["gaussian_bandwidth_doubled"].applied(), FAULTS["batch_ridge_without_t"].applied(), \
            FAULTS["shrink_halved"].applied():
        assert kernel(np.zeros(1), np.ones(1)) != before
        assert ovk_ref.batch_ridge is not originals[1] and ovk_ref.batch.batch_ridge is not originals[2]
    assert (scalar.Gaussian.__call__, ovk_ref.batch_ridge, ovk_ref.batch.batch_ridge, OnlineLearner.shrink_factor) == originals
    assert kernel(np.zeros(1), np.ones(1)) == before


def test_values_computed_through_a_faulty_kernel_do_not_outlive_it():
    """kappa^2 of a feature kernel is computed with the kernel's code and remembered: planting and removing a fault
    forgets it, so that a fault's kappa^2 never reaches a later search in the same worker."""
    kernel = {"type": "feature", "M": [[[1.0]], [[1.0]]]}          # A(x) = 1 + x: kappa^2 = 4 at x = 1
    assert float(constants.kappa2(kernel, 1)) == 4.0
    with FAULTS["feature_constant_term_dropped"].applied():       # A(x) = x: kappa^2 = 1
        assert float(constants.kappa2(kernel, 1)) == 1.0
    assert float(constants.kappa2(kernel, 1)) == 4.0


@pytest.mark.parametrize("mutant", ["shrink_halved", "eta_next_index", "new_coefficient_without_decay"])
def test_a_mutant_object_runs_the_fault_the_patch_plants(mutant):
    """MUTANTS (subclasses, nothing patched) and FAULTS (the shared code patched) are one definition."""
    X, Y = np.linspace(0, 1, 5)[:, None], np.sin(np.arange(5))[:, None]
    kernel = ovk_ref.gaussian_separable(0.5, 1)
    from_object = MUTANTS[mutant].onorma(X, Y, kernel, lam=0.5, eta=1.0)
    with FAULTS[mutant].applied():
        patched = ovk_ref.onorma(X, Y, kernel, lam=0.5, eta=1.0)
    np.testing.assert_array_equal(from_object["predictions"], patched["predictions"])
    assert not np.array_equal(ovk_ref.onorma(X, Y, kernel, lam=0.5, eta=1.0)["predictions"], patched["predictions"])


def test_recording_finds_the_faults_whose_code_a_search_runs():
    with recording(FAULTS.values()) as touched:
        run_claim("loss.values", "ci")
    assert set(LOSS_FAULTS) <= touched and not touched & set(KERNEL_FAULTS)
    with recording(FAULTS.values()) as touched:
        run_claim("kernel.values", "ci")
    assert set(KERNEL_FAULTS) <= touched and "shrink_halved" not in touched


def test_a_unit_plants_its_fault_in_the_process_that_runs_it():
    result = run_unit(Unit("onorma.closed_form", "ci", None, fault="shrink_halved"))
    # no shrinking (a shrink pass runs the claim on dozens of candidates): the first violation among the first draws
    assert result["verdict"] == "false" and result["instances"] <= 3
    assert run_unit(Unit("onorma.closed_form", "ci", None))["verdict"] == "holds"


@pytest.mark.parametrize(("claim_id", "fault", "drawn_before"), [
    ("prop1.ii", "shrink_halved", strategies.onorma_instances("hyp2", truncation=True, min_n=2)),
    ("thm1.predictor", "norm_gradient_unnormalised",
     hypothesis_strategies.one_of(strategies.onorma_instances("hyp2", feature_only=True, max_n=8, min_n=2),
                                  strategies.onorma_instances("hyp3", max_n=8, min_n=2)))])
def test_the_tight_streams_catch_the_fault_alone(monkeypatch, claim_id, fault, drawn_before):
    """strategies.tight_onorma_instances (one point at the top of K(x, x), targets along its top eigenvector) alone
    catch the fault in ci. (The claim's drawn streams of before missed it in ci when arrays were drawn sparse; drawn
    as lists of rounds they catch it too.)"""
    with FAULTS[fault].applied():
        monkeypatch.setattr(CLAIMS[claim_id], "instances", drawn_before)
        assert run_claim(claim_id, "ci", shrink=False).verdict == "false"
        monkeypatch.setattr(CLAIMS[claim_id], "instances", strategies.tight_onorma_instances("hyp2", feature_only=True))
        assert run_claim(claim_id, "ci", shrink=False).verdict == "false"
