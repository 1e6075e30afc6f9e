"""Every planted fault of proofs_check.faults, planted in the shared code it would live in, is caught by a claim in ci
(as scikit-learn runs each estimator check against an estimator broken on purpose and asserts the check fails)."""
import numpy as np
import pytest
from hypothesis import strategies as hypothesis_strategies

import ovk_ref
from ovk_ref.kernels import scalar
from ovk_ref.online_learner import OnlineLearner
from proofs_check import CLAIMS, MUTANTS, constants, run_claim, strategies
from proofs_check.claims.base import Claim
from proofs_check.faults import FAULTS, LAYERS, recording
from proofs_check.units import Unit, run_unit

KERNEL_FAULTS = [name for name, fault in FAULTS.items() if fault.layer == "kernel"]
LOSS_FAULTS = [name for name, fault in FAULTS.items() if fault.layer == "loss"]

#: (claim, fault): each claim names the planted faults it must turn false in ci (``Claim.faults``: its side is computed
#: independently of the code the fault breaks)
PAIRS = [(claim.id, fault) for claim in CLAIMS.values() for fault in claim.faults]


def test_every_fault_is_named_by_a_claim_and_every_layer_has_a_fault():
    assert {fault for _, fault in PAIRS} == set(FAULTS)
    assert {fault.layer for fault in FAULTS.values()} == set(LAYERS)
    assert all(fault.reason and "\n" not in fault.reason for fault in FAULTS.values())
    assert [claim for claim, fault in PAIRS if fault == "gaussian_bandwidth_doubled"] == ["kernel.values"]


@pytest.mark.parametrize(("claim_id", "fault"), PAIRS, ids=[f"{claim}-{fault}" for claim, fault in PAIRS])
def test_each_claim_turns_false_under_the_faults_it_names(claim_id, fault):
    with FAULTS[fault].applied():
        verdict = run_claim(claim_id, "ci", shrink=False)
    assert verdict.verdict == "false", f"{claim_id} did not catch {fault}: {verdict.verdict} {verdict.error}"


@pytest.mark.parametrize(("declared", "rule"), [
    (dict(faults=("no_such_fault",)), "faults must name planted faults"),
    (dict(faults=("shrink_halved",), expected="open"), "faults belong to claims expected to hold"),
])
def test_a_claim_naming_an_unknown_fault_or_one_it_cannot_catch_is_refused(declared, rule):
    fields = dict(id="test.claim", statement="s", reference="r", hypotheses="h", expected="holds",
                  instances=hypothesis_strategies.just({}), check=lambda instance, impl, precision=None: None,
                  informative="i")
    with pytest.raises(ValueError, match=rule):
        Claim(**{**fields, **declared})


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
