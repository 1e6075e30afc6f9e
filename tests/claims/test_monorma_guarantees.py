"""MONORMA's guarantees: each false statement pinned by its shrunk counterexample, checked against
values derived by hand (below, from the spec's formulas), and replayed at 50 digits."""
import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ovk_ref
from ovk_ref import tolerances
from proofs_check import CLAIMS, MUTANTS, constants, run_claim, strategies
from proofs_check.claims import common, monorma_guarantees
from proofs_check.claims.monorma_guarantees import AMPLIFYING_2, AMPLIFYING_5, norm_factor2
from proofs_check.runner import evaluate

REPLAY_DIGITS = 50


def lockout(n: int, *, lam=1.0, eta=0.7, r=0.5, loss="norm") -> dict:
    """Round 1 at x = 1/2 (the fitting kernel A(x) = 2x - 1 is 0 there), then x = 1, 0, 1, ... with y = +1, -1, ..."""
    return {"kernels": [strategies.FITTING_KERNEL, strategies.CONSTANT_KERNEL], "p": 1, "d": 1,
            "X": [[0.5]] + [[1.0] if t % 2 else [0.0] for t in range(1, n)],
            "Y": [[1.0]] + [[1.0] if t % 2 else [-1.0] for t in range(1, n)],
            "lam": lam, "eta": eta, "r": r, "loss": loss, "kappa2": [1.0, 1.0], "C": 1.0}


def locked_average_loss(instance) -> float:
    """By hand: gamma^fit_1 = A(1/2)^2 alpha^2 = 0, so delta = (0, 1) from round 1 on and MONORMA is ONORMA with the
    constant kernel K = 1: p_t = S_{t-1}, S_t = (1 - eta_t lam) S_{t-1} - eta_t sign(p_t - y_t), norm loss |p_t - y_t|."""
    S, total = 0.0, 0.0
    for t, (y,) in enumerate(instance["Y"], start=1):
        eta_t = instance["eta"] / math.sqrt(t)
        total += abs(S - y)
        S = (1 - eta_t * instance["lam"]) * S - eta_t * math.copysign(1.0, S - y)
    return total / len(instance["Y"])


def fitting_kernel_risk(n: int, lam: float) -> float:
    """By hand: g = w A, R_reg(w) = (1/n)|0 - 1| + ((n-1)/n)|w - 1| + lam w^2 / 2 (A(1) = 1, A(0) = -1 with targets
    +-1), minimised at w = (n-1)/(n lam) <= 1."""
    w = (n - 1) / (n * lam)
    return 1 / n + (n - 1) / n * (1 - w) + lam * w**2 / 2


def theorem1_excess(n: int, lam: float, eta: float) -> float:
    """a/sqrt(n) + b/n with U = C kappa_max / lam = 1 / lam (spec 10): a = 2 lam U^2 (2 eta lam + 1/(eta lam)), b = U^2/(2 eta)."""
    U = 1 / lam
    return 2 * lam * U**2 * (2 * eta * lam + 1 / (eta * lam)) / math.sqrt(n) + U**2 / (2 * eta) / n


@pytest.mark.parametrize("claim_id", ["monorma.best_kernel", "monorma.best_combination"])
def test_lockout_breaks_the_cumulative_bound(claim_id):
    """n = 128: MONORMA's average loss 1.056 > min R_reg + excess = 0.5078 + 0.5056 (values by hand); at 50 digits too."""
    instance = lockout(128)
    lhs, risk, excess = locked_average_loss(instance), fitting_kernel_risk(128, 1.0), theorem1_excess(128, 1.0, 0.7)
    assert lhs > risk + excess
    violated, outcome, _ = evaluate(CLAIMS[claim_id], instance)
    assert violated
    assert math.isclose(outcome.observed, lhs, rel_tol=tolerances.IDENTITY_RTOL)
    assert math.isclose(outcome.quantities["min_R_reg_upper"], risk, rel_tol=1e-6)   # BFGS, certified bracket
    assert math.isclose(outcome.quantities["excess"], excess, rel_tol=tolerances.IDENTITY_RTOL)
    with mpmath.workdps(REPLAY_DIGITS):
        exact = CLAIMS[claim_id].check(instance, ovk_ref, precision=REPLAY_DIGITS)
    assert exact.margin < 0 and math.isclose(exact.observed, lhs, rel_tol=tolerances.IDENTITY_RTOL)


def test_the_lockout_gap_needs_a_long_horizon():
    """The same stream at n = 96 is within the bound: the excess ~ 5.66/sqrt(n) still exceeds the gap ~ 1/2."""
    instance = lockout(96)
    assert locked_average_loss(instance) < fitting_kernel_risk(96, 1.0) + theorem1_excess(96, 1.0, 0.7)
    assert not evaluate(CLAIMS["monorma.best_kernel"], instance)[0]


def test_lockout_weights_by_hand():
    record = ovk_ref.monorma(lockout(5)["X"], lockout(5)["Y"], lockout(5)["kernels"], lam=1.0, eta=0.7, r=2.0, loss="norm")
    assert record["gamma"][0][0] == 0 and all(row[0] == 0 for row in record["weights"])


COPIES_2 = {"kernels": [{"type": "linear_quadratic", "mu": 0.0, "d": 1}] * 2, "p": 1, "d": 1, "X": [[1.0], [1.0]],
            "Y": [[1.0], [0.0]], "lam": 1.0, "eta": 0.5, "r": 2.0, "loss": "squared"}


@pytest.mark.parametrize("claim_id", ["monorma.beats_best_onorma", "monorma.beats_worst_onorma"])
def test_two_copies_lose_to_onorma(claim_id):
    """K(1, 1) = 1, y = (1, 0), eta_1 = 1/2: ONORMA predicts p_2 = 1/2, MONORMA (= ONORMA with sqrt(2) K, spec 6.4)
    p_2 = sqrt(2)/2; cumulative squared losses 1/2 + 1/8 = 5/8 against 1/2 + 1/4 = 3/4."""
    violated, outcome, _ = evaluate(CLAIMS[claim_id], COPIES_2)
    assert violated
    assert math.isclose(outcome.quantities["monorma"], 3 / 4, rel_tol=tolerances.IDENTITY_RTOL)
    assert math.isclose(outcome.quantities["onorma"], 5 / 8, rel_tol=tolerances.IDENTITY_RTOL)


#: r = 1, constant kernels 1 and 4 at x = 1, lam = 1, eta = 1/4, y = (1, 1, 0), squared loss (written out, not imported)
WEIGHT_SHIFT = {"kernels": [{"type": "constant_separable", "c": 1.0, "B": [[1.0]]}, {"type": "constant_separable", "c": 4.0, "B": [[1.0]]}],
                "p": 1, "d": 1, "X": [[1.0]] * 3, "Y": [[1.0], [1.0], [0.0]], "lam": 1.0, "eta": 0.25, "r": 1.0, "loss": "squared"}


def test_with_r_1_and_distinct_kernels_monorma_loses_to_each_onorma():
    """By hand (squared loss, eta_t = 1/(4 sqrt t), c_2 = 1 - 1/(4 sqrt2)): round 1 predicts 0 (loss 1/2), alpha_1 = 1/4.
    MONORMA at r = 1: delta_t proportional to delta_{t-1} sqrt(gamma^j_t) = delta_{t-1} sqrt(k_j) |A_t| at one point
    (A_t = sum_i alpha_{i,t}), so delta_1 = (1, 2)/3, K_delta = 3, p_2 = 3/4 (loss 1/32), u_2 = -1/4, A_2 = c_2/4 + 1/(16 sqrt2)
    = 1/4, delta_2 = (1, 4)/5, K_delta = 17/5, p_3 = 17/20 (loss 289/800): total 357/400. ONORMA with 4: p_2 = 1, p_3 = c_2,
    total 1/2 + c_2^2/2; with 1: p_2 = 1/4, p_3 = 1/4 + 1/(8 sqrt2), total 1/2 + 9/32 + p_3^2/2. Both below 357/400."""
    c2 = 1 - 1 / (4 * math.sqrt(2))
    with_four, with_one = 0.5 + c2**2 / 2, 0.5 + 9 / 32 + (0.25 + 1 / (8 * math.sqrt(2))) ** 2 / 2
    violated, outcome, _ = evaluate(CLAIMS["monorma.beats_worst_onorma_r1"], WEIGHT_SHIFT)
    assert violated and with_one < with_four < 357 / 400
    assert math.isclose(outcome.quantities["monorma"], 357 / 400, rel_tol=tolerances.IDENTITY_RTOL)
    assert math.isclose(outcome.quantities["onorma"], with_four, rel_tol=tolerances.IDENTITY_RTOL)


def test_the_r_1_finding_is_the_live_search_s_shrunk_counterexample():
    """Found live in ci (not replayed) and shrunk to the pinned 3-round stream; at n = 2 no stream loses (MONORMA's p_2
    is a convex combination of the ONORMAs' p_2, the loss convex): the search's 2-round draws never violate."""
    verdict = run_claim("monorma.beats_worst_onorma_r1", "ci")
    assert verdict.verdict == "false" and not verdict.known and verdict.counterexample == WEIGHT_SHIFT


@settings(max_examples=40, deadline=None)
@given(strategies.monorma_instances(min_m=2, max_n=2, min_n=2, among=strategies.SMOOTH_LOSSES))
def test_two_rounds_never_lose_to_every_onorma(instance):
    """The convexity argument at n = 2 (docs/monorma-guarantees.md, statement 3 at r = 1), a property for any kernels."""
    violated, _, _ = evaluate(CLAIMS["monorma.beats_worst_onorma_r1"], {**instance, "r": 1.0})
    assert not violated


NORM_COPIES = {"kernels": [{"type": "gaussian_separable", "mu": 1.0, "B": [[1.0]]}] * 2, "p": 1, "d": 1, "X": [[1.0]],
               "Y": [[1.0]], "lam": 1.0, "eta": 0.75, "r": 10.0, "loss": "norm", "kappa2": [1.0, 1.0], "C": 1.0}


def test_norm_bound_of_prop1_fails_for_r_above_one():
    """Two copies, r = 10: delta_j = 2^(-1/10), ||f_1||^2_{H_delta} = 2 * 2^(-1/10) * eta^2 = 2^(9/10) * 0.75^2, so
    ||f_1|| = 0.75 * 2^(0.45) = 1.0245 > C kappa / lam = 1."""
    violated, outcome, _ = evaluate(CLAIMS["monorma.norm_prop1"], NORM_COPIES)
    assert violated and math.isclose(outcome.observed, 0.75 * 2**0.45, rel_tol=tolerances.IDENTITY_RTOL)
    with mpmath.workdps(REPLAY_DIGITS):
        assert CLAIMS["monorma.norm_prop1"].check(NORM_COPIES, ovk_ref, precision=REPLAY_DIGITS).margin < 0


def test_the_factor_is_reached_by_copies():
    """With the factor m^((1-1/r)+/2) the bound holds, and step (c) of the proof is an equality for copies."""
    violated, outcome, _ = evaluate(CLAIMS["monorma.norm_prop1_factor"], NORM_COPIES)
    assert not violated
    assert math.isclose(float(norm_factor2(2, 10.0)), 2**0.9) and float(norm_factor2(3, 0.5)) == 1.0
    with mpmath.workdps(REPLAY_DIGITS):
        exact = CLAIMS["monorma.norm_prop1_factor"].check(NORM_COPIES, ovk_ref, precision=REPLAY_DIGITS)
    # two steps are attained: ||u_1|| = C (norm loss) and (c), sum_j delta_j = 2 * 2^(-1/10) = 2^(9/10) (by hand)
    assert abs(exact.margin) < 1e-40 * exact.scale and exact.quantities["inequality"] in ("||u_t|| <= G", "sum_j delta^j_t <= m^((1-1/r)_+)")
    with mpmath.workdps(REPLAY_DIGITS):
        run = ovk_ref.monorma(NORM_COPIES["X"], NORM_COPIES["Y"], NORM_COPIES["kernels"], lam=1.0, eta=0.75, r=10.0, loss="norm",
                              precision=REPLAY_DIGITS)
        assert abs(sum(run["weights"][-1]) - mpmath.mpf(2) ** mpmath.mpf("0.9")) < mpmath.mpf(10) ** -45


# --- Hyp. 3 (lam > 2 kappa_max^2) is not enough for MONORMA: copies make K_delta = S K, S = m^(1-1/r) ---------------

def copies_predictions(instance) -> list:
    """By hand: m copies of a kernel with K(x, x) = 1 at the one point x of the stream keep delta_j = m^(-1/r), so
    MONORMA is ONORMA with S K (spec 6.4): p_1 = 0, p_{t+1} = (1 - eta_t lam) p_t - eta_t S (p_t - y_t); returns
    p_1..p_{n+1} (p_{t+1} = f_t(x))."""
    S = len(instance["kernels"]) ** (1 - 1 / instance["r"])
    p = [0.0]
    for t, (y,) in enumerate(instance["Y"], start=1):
        eta_t = instance["eta"] / math.sqrt(t)
        p.append((1 - eta_t * instance["lam"]) * p[-1] - eta_t * S * (p[-1] - y))
    return p


def ridge_at_one_point(Y, lam: float) -> float:
    """By hand: min over g = c K(., x), K(x, x) = 1, ||g||^2 = c^2, of (1/n) sum_t (c - y_t)^2 / 2 + lam c^2 / 2:
    c = mean(y) / (1 + lam), value var(y)/2 + mean(y)^2 lam / (2 (1 + lam))."""
    mean = sum(Y) / len(Y)
    var = sum(y * y for y in Y) / len(Y) - mean**2
    return var / 2 + mean**2 * lam / (2 * (1 + lam))


def satisfies_hypothesis_3(instance) -> bool:
    """Hyp. 1, 3 as the claims state them: squared loss, kappa_j^2 >= sup ||K^j(x, x)|| on the box, ||y_t|| <= C_y,
    lam > 2 kappa_max^2, 0 < eta lam < 1."""
    kappa2 = instance["kappa2"]
    return (instance["loss"] == "squared" and 0 < instance["eta"] * instance["lam"] < 1 and instance["lam"] > 2 * max(kappa2)
            and all(k2 >= float(constants.kappa2(kernel, instance["p"])) for k2, kernel in zip(kappa2, instance["kernels"]))
            and all(common.rows_norm(np.array(instance["Y"])) <= instance["C_y"]))


def test_amplifying_copies_satisfy_hypothesis_3():
    """The deciding instances are inside the statements' hypotheses, with lam <= 2 S kappa_max^2 (where the proof of
    monorma.norm_prop2_factor does not apply)."""
    for instance in (AMPLIFYING_2, AMPLIFYING_5):
        S = len(instance["kernels"]) ** (1 - 1 / instance["r"])
        assert satisfies_hypothesis_3(instance) and instance["lam"] <= 2 * S * max(instance["kappa2"])
        assert float(constants.kappa2(instance["kernels"][0], 1)) == 1.0


@settings(max_examples=30)
@given(st.one_of(monorma_guarantees._amplifying_copies(), monorma_guarantees._hyp3_instances()))
def test_hyp3_searches_draw_inside_hypothesis_3(instance):
    assert satisfies_hypothesis_3(instance) and instance["r"] > 0


def test_hyp3_cumulative_bound_fails_at_n_5():
    """4 copies, r = 100 (S = 4^0.99 = 3.945), lam = 2 + 1e-8, eta = 0.495, y = (1, -1, 1, -1, 1): p = (0, 1.953,
    -3.491, 3.568, -2.658) (by hand, above), losses (0.5, 4.359, 10.086, 10.433, 6.691), average 6.4139 > min R_reg
    0.4933 (37/75 at lam = 2) + excess 5.5509 = 6.0442 (U = max(C_y / kappa, 2 C_y / lam) = 1, a = 2 lam U^2 (2 rho +
    1/rho) = 11.96, b = U^2 / (2 eta))."""
    instance = AMPLIFYING_5
    lam, eta, n = instance["lam"], instance["eta"], 5
    Y = [y for (y,) in instance["Y"]]
    p = copies_predictions(instance)
    lhs = sum((p_t - y) ** 2 / 2 for p_t, y in zip(p, Y)) / n
    risk = ridge_at_one_point(Y, lam)
    excess = 2 * lam * (2 * eta * lam + 1 / (eta * lam)) / math.sqrt(n) + 1 / (2 * eta) / n
    assert math.isclose(risk, 37 / 75, rel_tol=1e-8) and lhs > risk + excess + 0.3
    violated, outcome, _ = evaluate(CLAIMS["monorma.best_kernel_hyp3"], instance)
    assert violated
    assert math.isclose(outcome.observed, lhs, rel_tol=tolerances.IDENTITY_RTOL)
    assert math.isclose(outcome.quantities["min_R_reg_upper"], risk, rel_tol=tolerances.IDENTITY_RTOL)
    assert math.isclose(outcome.quantities["excess"], excess, rel_tol=tolerances.IDENTITY_RTOL)
    with mpmath.workdps(REPLAY_DIGITS):
        exact = CLAIMS["monorma.best_kernel_hyp3"].check(instance, ovk_ref, precision=REPLAY_DIGITS)
    assert exact.margin < 0 and math.isclose(exact.observed, lhs, rel_tol=tolerances.IDENTITY_RTOL)


@pytest.mark.parametrize(("claim_id", "factor"), [("monorma.norm_prop2", 1.0), ("monorma.norm_prop2_factor_hyp3", 7 ** 0.4)])
def test_hyp3_norm_bounds_fail_at_t_2(claim_id, factor):
    """Same copies, y = (1, -1): alpha_1 = eta after round 1; round 2 shrinks it by c_2 = 1 - eta lam / sqrt(2) and adds
    -(eta / sqrt(2)) (S eta + 1), so ||f_2||_{H_delta} = sqrt(S) |c_2 eta - (eta / sqrt(2)) (S eta + 1)| = 2.2288 (by
    hand), above 2 kappa_max C_y / lam = 1 and above the factor's 7^(2/5) * 1 = 2.1779 (at t = 1, ||f_1|| = sqrt(S) eta = 1.078)."""
    instance = AMPLIFYING_2
    lam, eta = instance["lam"], instance["eta"]
    S = 7 ** 0.8
    norm = math.sqrt(S) * abs((1 - eta * lam / math.sqrt(2)) * eta - eta / math.sqrt(2) * (S * eta + 1))
    assert math.isclose(norm, abs(copies_predictions(instance)[2]) / math.sqrt(S), rel_tol=1e-12)   # ||f_2|| = |f_2(x)| / sqrt(S)
    bound = factor * 2 / lam
    assert norm > bound + 0.05
    violated, outcome, _ = evaluate(CLAIMS[claim_id], instance)
    assert violated and outcome.quantities["round"] == 2
    assert math.isclose(outcome.observed, norm, rel_tol=tolerances.IDENTITY_RTOL)
    assert math.isclose(outcome.bound, bound, rel_tol=tolerances.IDENTITY_RTOL)
    with mpmath.workdps(REPLAY_DIGITS):
        assert CLAIMS[claim_id].check(instance, ovk_ref, precision=REPLAY_DIGITS).margin < 0


HYP3_FINDINGS = ["monorma.best_kernel_hyp3", "monorma.norm_prop2", "monorma.norm_prop2_factor_hyp3"]


@pytest.mark.parametrize("claim_id", HYP3_FINDINGS)
def test_hyp3_findings_come_from_the_live_search(claim_id):
    verdict = run_claim(claim_id, "ci")
    assert verdict.verdict == "false" and not verdict.known
    assert evaluate(CLAIMS[claim_id], verdict.counterexample)[0] and satisfies_hypothesis_3(verdict.counterexample)


@pytest.mark.parametrize("claim_id", HYP3_FINDINGS)
def test_weights_on_the_simplex_hide_the_hyp3_findings(claim_id):
    """The planted fault monorma_weights_on_simplex (sum_j delta_j = 1 whatever r) removes the amplification S: the
    pinned counterexample no longer violates and the search finds none, so `ovk-check verify` against such an
    implementation reports 'holds' where 'false' is expected (and monorma.delta_normalised rejects it:
    test_claims_mutants)."""
    mutant = MUTANTS["monorma_weights_on_simplex"]
    pin = CLAIMS[claim_id].known_counterexamples[0]
    assert evaluate(CLAIMS[claim_id], pin)[0] and not evaluate(CLAIMS[claim_id], pin, mutant)[0]
    verdict = run_claim(claim_id, "ci", impl=mutant, shrink=False)
    assert verdict.verdict == "holds" and not verdict.passed
