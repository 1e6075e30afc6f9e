"""The regimes: each planted regime fault hides in the quick cases and is rejected by its regime, with the regime
and the first diverging round named; ovk_fast passes every regime."""
import pytest

import ovk_fast
from ovk_conform import run
from ovk_conform.levels import LEVELS
from ovk_conform.manifest import load_cases
from ovk_conform.regime_faults import CONFORMANCE_MUTANTS, FAULT_REGIMES
from ovk_conform.regimes import REGIMES, stored_rounds
from ovk_conform.vectors import ALGORITHMS

# fault -> (first diverging round, field), derived from the fault: eta_257 restarts at eta_1, so alpha_{257,257}
# is the first wrong value; the lost fold of block 2 first shows in the prediction of round 513; a window of 65
# for s = 64 keeps one more term after round 65; K(x_i, x) differs from K(x, x_i) as soon as round 2 predicts
# with a term; the slipped gamma changes the weights of round 1; the gamma fault starts at round 301 but the
# stored rounds of a 1100-round stream are 289..291, 317..323, ... (the first stored after 300 is 317); the
# shrink of round 2 is the first to act on a stored coefficient, so a wrong shrink first shows in prediction 3;
# the lone round is the last, 257; gamma_1 = a^T B_j a differs at round 1 with the first kernel's B, and so do
# the weights of round 1 (compared before gamma); with y_1 orthogonal to the last B only w_2 = 0 at round 1, and
# delta_1 is kept; a norm recursion taking one downdate per round first errs at round 20, where the listed schedule
# drops 4 terms (the norm does not feed back into the predictions)
EXPECTED = {
    "step_index_restarts_after_256": (257, "new_coefficients"),
    "scale_not_folded_at_block_3": (513, "predictions"),
    "window_off_by_one_from_64": (65, "support_sizes"),
    "kernel_transposed_from_d5": (2, "predictions"),
    "index_slip_from_4_kernels": (1, "weights"),
    "gamma_fault_after_300": (int(min(t for t in stored_rounds(1100) if t > 300)), "gamma"),
    "gaussian_uncentred_distance": (2, "predictions"),
    "first_order_shrink": (3, "predictions"),
    "polynomial_degree_two": (2, "predictions"),
    "lone_round_unmasked": (257, "predictions"),
    "first_output_matrix_in_gamma": (1, "weights"),
    "last_weight_decides_update": (1, "weights"),
    "norm_one_downdate_per_round": (20, "rkhs_norm2"),
}
#: faults that the quick cases cannot see (the others also fail some quick case)
HIDDEN_IN_QUICK = set(FAULT_REGIMES) - {"first_order_shrink"}


def _algorithm(implementation):
    return next(name for name in ALGORITHMS if hasattr(implementation, name))


def _regime_outcome(fault):
    implementation = CONFORMANCE_MUTANTS[fault]
    regime, case_id = FAULT_REGIMES[fault]
    algorithm = _algorithm(implementation)
    cases = [case for case in load_cases((algorithm,), (regime,), basic=False) if case.id == case_id]
    return run(implementation, (algorithm,), cases=cases).outcomes[0]


def test_every_regime_has_a_planted_fault():
    assert {regime for regime, _ in FAULT_REGIMES.values()} == set(REGIMES)
    assert set(FAULT_REGIMES) == set(CONFORMANCE_MUTANTS)


@pytest.mark.parametrize("fault", sorted(set(FAULT_REGIMES) - {"scale_never_folded", "batch_stops_early_above_300"}))
def test_regime_fault_is_rejected_by_its_regime_at_its_first_diverging_round(fault):
    outcome = _regime_outcome(fault)
    assert (outcome.status, outcome.regime) == ("fail", FAULT_REGIMES[fault][0])
    assert (outcome.diverging_round, outcome.diverging_field) == EXPECTED[fault]


def test_batch_solver_stopping_early_is_rejected_by_the_large_batch_regime():
    outcome = _regime_outcome("batch_stops_early_above_300")
    assert (outcome.status, outcome.regime, outcome.diverging_field) == ("fail", "large-batch", "coefficients")
    assert outcome.diverging_index is not None


@pytest.mark.slow
def test_scale_never_folded_fails_once_the_shrink_product_underflows():
    outcome = _regime_outcome("scale_never_folded")
    assert (outcome.status, outcome.regime, outcome.diverging_field) == ("fail", "shrink-underflow", "predictions")
    assert 120_000 < outcome.diverging_round <= 140_000 and "non-finite where the reference is finite" in outcome.message


@pytest.mark.parametrize("fault", sorted(HIDDEN_IN_QUICK))
def test_regime_fault_hides_in_the_quick_cases(fault):
    implementation = CONFORMANCE_MUTANTS[fault]
    assert run(implementation, (_algorithm(implementation),), level="quick", fuzz=0).passed


def test_ovk_fast_passes_every_regime_but_the_longest():
    cases = [case for case in load_cases(ALGORITHMS, LEVELS["standard"].regimes) if len(case.X) <= 5000]
    assert len(cases) == 35 + sum(len(build()) for _, build in REGIMES.values()) - 1
    report = run(ovk_fast, cases=cases)
    assert report.passed, report.text(verbose=True)
    assert set(report.regimes) == {"basic"} | set(REGIMES) - {"shrink-underflow"}


def test_stored_rounds_cover_every_block_boundary():
    rounds = set(stored_rounds(4096).tolist())
    for boundary in (64, 256, 512, 1024, 4096):
        assert {boundary - 1, boundary, boundary + 1} & set(range(1, 4097)) <= rounds
    assert list(stored_rounds(300)) == list(range(1, 301))


def test_an_implementation_declaring_no_far_inputs_is_not_sent_them_and_its_uncentred_distance_passes():
    """The scope's inputs axis: the uncentred distance cancels only far from the origin (the offset cases)."""
    from types import SimpleNamespace
    fault = CONFORMANCE_MUTANTS["gaussian_uncentred_distance"]
    near = SimpleNamespace(onorma=fault.onorma, conformance_scope={"algorithms": {"onorma": {"inputs": ["near", "scaled"]}}})
    cases = load_cases(("onorma",), ("far-inputs",), basic=False)
    declared = run(near, ("onorma",), cases=cases, reruns=0)
    assert declared.passed and [outcome.status for outcome in declared.outcomes] == ["skip", "skip", "pass", "pass"]
    assert run(fault, ("onorma",), cases=cases, reruns=0).outcomes[1].status == "fail"
