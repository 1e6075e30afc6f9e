"""The proofs as chains (proofs_check.proofs): the step that fails on each stored counterexample, derived by hand;
no step fails on instances that satisfy a claim's hypotheses; planted faults make the step they break fail."""
import json
import math

import pytest
from hypothesis import HealthCheck, given, settings

import ovk_ref
from ovk_cli.cli import main
from ovk_ref import tolerances
from proofs_check import CLAIMS, MUTANTS, run_claim, strategies
from proofs_check.proofs import chain, chains, explain, symbolic


def test_every_chain_belongs_to_a_claim_and_names_real_proofs():
    for claim_id, proof in chains().items():
        assert claim_id in CLAIMS and proof.steps[-1].name == "conclusion"
        for step in proof.steps:
            assert step.symbolic is None or step.symbolic in symbolic.PROOFS, (claim_id, step.name)
            assert step.refuted is None or step.refuted in symbolic.WRONG_VARIANTS, (claim_id, step.name)


def test_every_proof_of_the_paper_has_a_chain():
    """Props. 1(i)-(iii), 2(i)-(iv), Theorems 1-2 (spec C18-C21), spec 10 and MONORMA's candidates."""
    expected = {"prop1.i", "prop1.ii", "prop1.iii", "prop2.i", "prop2.iii", "prop2.iv", "prop2.iv_U", "prop2.i_without_lam",
                "thm1.predictor", "thm1.sharpened", "thm1.post_update", "thm1.squared_without_lam", "thm2.any_truncation",
                "thm2.exists_t0",
                "bound.eta_star", "monorma.best_kernel", "monorma.best_combination", "monorma.best_kernel_hyp3",
                "monorma.norm_prop1", "monorma.norm_prop1_factor", "monorma.norm_prop2", "monorma.norm_prop2_factor",
                "monorma.norm_prop2_factor_hyp3",
                # the spec's proofs of the claims registered last (C10, C12 from f_0 != 0, C14 corrected, C16, C19, C20, C25)
                "prop1.ii_from_f0", "prop2.i_from_f0", "prop2.iv_tight", "monorma.delta_homogeneous", "thm1.descent",
                "thm1.phi_sum", "thm2.dropped_norm", "batch.minimal_value", "batch.separable_shortcut", "batch.commuting_shortcut"}
    assert expected <= set(chains())


# the first failing step on each false claim's first stored counterexample (claim.known_counterexamples[0]), with the
# reason by hand; each also makes the conclusion fail (the chain is consistent with the claim's verdict)
FAILING_STEPS = {
    # lam = 100 > 4: C_y/sqrt(lam) = 0.1 > 2 C_y/lam = 0.02 (margin (0.02 - 0.1)/0.1 = -0.8), while steps 1-4 hold
    "prop2.iv": ("hence", 1, -0.8),
    # kappa^2 = 1, lam = 0.1 < 2: eta_1 C_y (2 kappa - lam/kappa) = 5 * 1.9 > 0 at round 1, margin -(2 - 0.1)/0.1 = -19
    "prop2.i_without_lam": ("hypothesis3", 1, -19.0),
    # x = 0 repeated, K = 1, eta = 5: f_1 = 5 K(., 0), ||f_1|| = 5 > C_y/kappa = 1 at round 2: margin (1 - 5)/5 = -0.8
    "thm1.squared_without_lam": ("prop2_i", 2, -0.8),
    # the lockout stream: MONORMA keeps the constant kernel (delta = (0, 1) from round 1), whose min R_reg + excess is
    # about 1 + 0.506 against the fitting kernel's 0.508 + 0.506 (docs/monorma-guarantees.md)
    "monorma.best_kernel": ("comparator", 128, None),
    "monorma.best_combination": ("comparator", 128, None),
    # 4 copies, r = 100: K_delta = 4^0.99 K, kappa_delta^2 = 3.945 and lam = 2 + 1e-8 < 2 kappa_delta^2 = 7.89
    "monorma.best_kernel_hyp3": ("hypothesis_for_K_delta", 5, (2 + 1e-8 - 2 * 4**0.99) / (2 * 4**0.99)),
    # 2 copies, r = 10: sum_j delta_j = 2 * 2^(-1/10) = 2^0.9 > 1 at round 1: margin (1 - 2^0.9)/2^0.9
    "monorma.norm_prop1": ("weight_sum", 1, (1 - 2**0.9) / 2**0.9),
    # 7 copies, r = 5: sum_j delta_j = 7^0.8 > 1 at round 1
    "monorma.norm_prop2": ("weight_sum", 1, (1 - 7**0.8) / 7**0.8),
    # the same copies: (c) holds with the factor; at round 2, |p_2 - y_2| = |sqrt(S) ... | > 2 C_y (the notes' step (u))
    "monorma.norm_prop2_factor_hyp3": ("gradient", 2, None),
}


@pytest.mark.parametrize("claim_id", sorted(FAILING_STEPS))
def test_the_first_failing_step_on_the_stored_counterexample(claim_id):
    step, round_, margin = FAILING_STEPS[claim_id]
    result = explain(claim_id, CLAIMS[claim_id].known_counterexamples[0], ovk_ref)
    assert (result.first_failing, result.first_failing_round) == (step, round_)
    entries = {entry.name: entry for entry in result.steps}
    assert entries["conclusion"].status == "fails"
    if margin is not None:
        assert math.isclose(result.first_failing_margin, margin, rel_tol=tolerances.IDENTITY_RTOL)


def test_the_failing_step_of_prop2_iv_is_refuted_symbolically():
    """The paper's 'Hence' is false for every lam > 4: sympy refutes it, and proves it on (0, 4]."""
    step = chains()["prop2.iv"].step("hence")
    witness = symbolic.refute(symbolic.WRONG_VARIANTS[step.refuted])
    assert witness is not None and witness[symbolic.x] ** 2 > 4
    assert symbolic.prove(symbolic.PROOFS["prop2_iv_hence"])


#: claims that hold, with their chains: on instances of the claim's own strategy no step may fail (a failing step
#: would be a wrong step in the proof, or a finding)
HOLDING = ["prop1.i", "prop1.ii", "prop2.i", "prop2.iii", "prop2.iv_U", "thm1.sharpened", "thm1.post_update", "thm2.any_truncation",
           "bound.eta_star",
           "monorma.norm_prop1_factor", "monorma.norm_prop2_factor",
           "prop1.ii_from_f0", "prop2.i_from_f0", "prop2.iv_tight", "monorma.delta_homogeneous", "thm1.descent", "thm1.phi_sum",
           "thm2.dropped_norm", "batch.minimal_value", "batch.separable_shortcut", "batch.commuting_shortcut"]


@pytest.mark.parametrize("claim_id", HOLDING)
def test_no_step_fails_where_the_hypotheses_hold(claim_id):
    @settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True, database=None)
    @given(CLAIMS[claim_id].instances)
    def every_step_holds(instance):
        result = explain(claim_id, instance, ovk_ref)
        assert result.first_failing is None, (result.first_failing, result.first_failing_round, json.dumps(instance))
    every_step_holds()


def test_the_descent_conclusion_is_a_tie_where_float64_cannot_resolve_the_decrease():
    """``eta_t ||G_t||^2`` of about 2e-8 against risks of about 0.5: the float64 risks differ from the exact ones by more
    than the chain's tie of the decrease; the claim's 50-digit recheck finds a tie, and so does the chain. Planted: the
    margin relative to the decrease alone (no resolution), and the float64 noise fails the step."""
    from proofs_check.proofs import theorems

    instance = {"kernel": {"type": "sum", "terms": [{"weight": 1.0, "kernel": {"type": "linear_separable", "B": [[1.0]]}}]},
                "p": 1, "d": 1, "X": [[1.0]] * 3, "Y": [[0.9999999999999991]] * 3, "lam": 100.0, "eta": 1e-08,
                "loss": "squared", "kappa2": 1.0, "C": None, "C_y": 1.0, "truncation": None}
    assert explain("thm1.descent", instance, ovk_ref).first_failing is None
    steep = {**instance, "eta": 1e-3, "lam": 1.0}
    assert explain("thm1.descent", steep, ovk_ref).first_failing is None
    original = theorems._descent_scale
    try:
        theorems._descent_scale = lambda decrease, after, before: decrease
        assert explain("thm1.descent", instance, ovk_ref).first_failing == "conclusion"
    finally:
        theorems._descent_scale = original


GAUSS = {"type": "gaussian_separable", "mu": 1.0, "B": [[1.0]]}
HYP2 = {"kernel": GAUSS, "p": 1, "d": 1, "X": [[0.0], [0.5], [1.0]], "Y": [[1.0], [-1.0], [1.0]], "lam": 1.0, "eta": 0.5,
        "loss": "norm", "kappa2": 1.0, "C": 1.0, "C_y": 1.0, "truncation": None}
HYP3_FEATURE = {**HYP2, "kernel": {"type": "feature", "M": [[[1.0]], [[0.5]]]}, "loss": "squared", "lam": 2.5, "eta": 0.2, "C": None}
COPIES = {"kernels": [GAUSS, GAUSS], "p": 1, "d": 1, "X": [[1.0]] * 6, "Y": [[5.0]] * 6, "lam": 1.0, "eta": 0.9, "r": 10.0,
          "loss": "norm", "kappa2": [1.0, 1.0], "C": 1.0}


@pytest.mark.parametrize("mutant, claim_id, instance, step", [
    ("shrink_skipped", "prop1.ii", HYP2, "closed_form"),            # alpha_{i,t} = alpha_{i,i}, not alpha_{i,i} P_{i,t}
    ("shrink_halved", "prop1.ii", HYP2, "closed_form"),
    ("eta_next_index", "prop1.i", HYP2, "new_coefficient"),          # alpha_{t,t} = -eta_{t+1} u_t
    ("new_coefficient_without_decay", "prop1.i", HYP2, "new_coefficient"),
    ("shrink_applied_to_new_coefficient", "prop1.i", HYP2, "new_coefficient"),
    ("shrink_halved", "thm1.sharpened", HYP3_FEATURE, "sgd_step"),   # f_t != f_{t-1} - eta_t G_t
    ("monorma_shrink_skipped", "monorma.norm_prop1_factor", COPIES, "kernel_norms"),   # ||g_t|| grows like sum_t eta_t
    ("monorma_zero_weight_revived", "monorma.best_kernel", strategies.lockout_instance(8, lam=1.0, eta=0.7, r=0.5, loss="norm"),
     "weights_settle"),
    ("monorma_shrink_skipped", "monorma.best_kernel", strategies.lockout_instance(8, lam=1.0, eta=0.7, r=0.5, loss="norm"),
     "onorma_with_K_delta"),
    ("eta_next_index", "thm1.descent", HYP3_FEATURE, "sgd_step"),     # f_t = f_{t-1} - eta_{t+1} G_t
    ("truncation_keeps_one_more", "thm2.dropped_norm", {**HYP2, "truncation": {"window": 1}}, "removed"),   # nothing dropped at t = 2
    # f_0 = K(., 0) at the bound, the target beyond reach: f_2 = P_{0,2} f_0 + (eta_1 + eta_2) K(., 0) is not c_2 f_1 + K alpha
    ("shrink_skipped", "prop1.ii_from_f0", {**HYP2, "X": [[0.0]] * 3, "Y": [[10.0]] * 3, "f0": {"X": [[0.0]], "A": [[1.0]], "fraction": 1.0}},
     "one_step"),
])
def test_a_planted_fault_fails_the_step_it_breaks(mutant, claim_id, instance, step):
    reference, planted = explain(claim_id, instance, ovk_ref), explain(claim_id, instance, MUTANTS[mutant])
    assert step not in [entry.name for entry in reference.steps if entry.status == "fails"]
    assert planted.first_failing == step


def test_a_step_is_a_tie_within_round_off_only():
    assert chain.inequality("s", 1.0, 1.0 - chain.TIE / 10).margin > -chain.TIE
    assert chain.inequality("s", 1.0, 1.0 - 10 * chain.TIE).margin < -chain.TIE
    assert chain.identity("s", 1.0, 1.0 + 100 * tolerances.IDENTITY_RTOL).margin < 0
    assert chain.identity("s", 1.0, 1.0 + tolerances.IDENTITY_RTOL / 100).margin > 0


def test_verify_names_the_failing_step_and_the_tightest():
    false_verdict = run_claim("prop2.iv", "ci")
    assert false_verdict.verdict == "false" and false_verdict.chain["first_failing"] == "hence"
    holding = run_claim("prop1.i", "ci")
    assert holding.chain["first_failing"] is None and holding.chain["tightest"] in {"gradient", "conclusion", "new_coefficient"}
    assert holding.worst_instance is not None


def test_explain_prints_every_step(capsys):
    assert main(["explain", "thm1.squared_without_lam"]) == 0
    out = capsys.readouterr().out
    assert "first failing step: prop2_i (round 2)" in out and "proved by sympy" in out and out.count("because:") == 16


def test_explain_refuses_a_claim_without_chain(capsys):
    assert main(["explain", "loss.convex"]) == 2
    assert "CLAIM must be a claim with a proof chain" in capsys.readouterr().err
    assert main(["explain", "prop2.iv", "--instance", "[1]"]) == 2
    assert main(["explain", "prop2.iv", "--instance", '{"a": 1}']) == 2
    assert "--instance must be an instance of prop2.iv" in capsys.readouterr().err


@pytest.mark.parametrize("claim_id", ["monorma.best_kernel", "monorma.best_combination"])
def test_the_cumulative_chain_concludes_what_the_claim_checks(claim_id):
    """The chain's last step is the claim's own comparison (one definition: monorma_guarantees.cumulative_bound)."""
    instance = CLAIMS[claim_id].known_counterexamples[0]
    result = explain(claim_id, instance, ovk_ref)
    conclusion = next(entry for entry in result.steps if entry.name == "conclusion")
    assert math.isclose(conclusion.margin, CLAIMS[claim_id].check(instance, ovk_ref).relative_margin, rel_tol=tolerances.IDENTITY_RTOL)


def test_the_tightest_step_is_the_first_in_chain_order_among_margins_equal_up_to_round_off():
    """Margins that print alike (0 for a tie, else 3 digits) are equal up to round-off, whose last bits depend on the
    CPU: the chain's order picks among them (monorma.delta_homogeneous named "conclusion" on one CPU and "homogeneity" on
    another before), a margin beyond it wins, NaN first."""
    def entries(*margins):
        return [chain.StepResult(f"s{index}", "", None, margin=margin) for index, margin in enumerate(margins)]
    assert chain.tightest(entries(1.0, 1.0 - 2.2e-16)) == "s0"
    assert chain.tightest(entries(1.0 - 2.2e-16, 1.0)) == "s0"
    assert chain.tightest(entries(-3.57e-16, 0.0, -3.93e-16)) == "s0"
    assert chain.tightest(entries(1 - 1.6e-6, 1 - 1.7e-6)) == "s0"      # identities: 1 - round-off / allowed error
    assert chain.tightest(entries(0.5, 0.0, -1e-6)) == "s2"
    assert chain.tightest(entries(0.5, math.nan, -1.0)) == "s1"


def test_a_margin_within_the_tie_tolerance_prints_as_0_and_others_to_3_digits():
    from proofs_check.report import shown_margin
    assert shown_margin(-3.57e-16) == shown_margin(-3.93e-16) == shown_margin(-2.7e-51) == shown_margin(0.0) == "0"
    assert shown_margin(-1.2e-6) == "-1.2e-06" and shown_margin(0.9214) == "0.921" and shown_margin(-math.inf) == "-inf"

