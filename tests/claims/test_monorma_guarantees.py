"""MONORMA's guarantees (issue 11): each false statement pinned by its shrunk counterexample, checked against
values derived by hand (below, from the spec's formulas), and replayed at 50 digits."""
import math

import mpmath
import pytest

import ovk_ref
from ovk_ref import tolerances
from proofs_check import CLAIMS, strategies
from proofs_check.claims.monorma_guarantees import norm_factor2
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
