"""The new bounds docs/bounds.md says are attained are attained on the instances derived there (one point x with
``K(x, x) = kappa^2 = 1``): the claim's margin, recomputed at 50 digits, is a tie; and prop2.i_from_f0, approached but
not attained, has the ratio ``|1 - rho (1 + 2/c)|`` derived there."""
import math

import pytest

from proofs_check import CLAIMS, tolerances
from proofs_check.runner import evaluate

GAUSSIAN = {"type": "gaussian_separable", "mu": 1.0, "B": [[1.0]]}


def one_point(n, y, *, lam, eta, loss="squared", C=None, C_y=1.0, **fields):
    return {"kernel": GAUSSIAN, "p": 1, "d": 1, "X": [[0.0]] * n, "Y": [[value] for value in y], "lam": lam, "eta": eta,
            "loss": loss, "kappa2": 1.0, "C": C, "C_y": C_y, "truncation": None, **fields}


ATTAINED = {
    # ||f_n|| = kappa C_y / (kappa^2 + lam) for every prefix: y_i = C_y on one point with K(x, x) = kappa^2
    "prop2.iv_tight": one_point(3, [1.0] * 3, lam=2.0, eta=0.3),
    # f_0 = K(., x), ||f_0|| = U = 1, the norm loss's subgradient -1 every round: ||f_t|| = P_{0,t} + (1 - P_{0,t}) = 1
    "prop1.ii_from_f0": one_point(3, [10.0] * 3, lam=1.0, eta=0.5, loss="norm", C=1.0,
                                  f0={"X": [[0.0]], "A": [[1.0]], "fraction": 1.0}),
    # G_t along K(., x): ||G_t(x)|| = kappa ||G_t|| at every round
    "thm1.descent": one_point(3, [1.0] * 3, lam=2.0, eta=0.3),
    # a window of 1: each dropped term K(., x) alpha_{i,t} has norm eta_i C P_{i,t} = lam U eta_i P_{i,t}
    "thm2.dropped_norm": {**one_point(4, [10.0] * 4, lam=1.0, eta=0.5, loss="norm", C=1.0), "truncation": {"window": 1}},
}


@pytest.mark.parametrize("claim_id", sorted(ATTAINED))
def test_the_bound_is_attained(claim_id):
    violated, outcome, rechecked = evaluate(CLAIMS[claim_id], ATTAINED[claim_id])
    assert not violated and outcome.informative and rechecked
    assert abs(outcome.relative_margin) < tolerances.HIGH_PRECISION_TIE, outcome


@pytest.mark.parametrize("rho", [0.9, 0.99, 0.999])
def test_prop2_i_from_f0_tends_to_its_bound_at_the_boundary(rho):
    """f_0 = -K(., x) (||f_0|| = C_y / kappa), y = C_y, lam = 2 kappa^2: ||f_1|| = |1 - 2 rho| C_y / kappa."""
    instance = one_point(1, [1.0], lam=2.0, eta=rho / 2.0, f0={"X": [[0.0]], "A": [[-1.0]], "fraction": 1.0})
    violated, outcome, _ = evaluate(CLAIMS["prop2.i_from_f0"], instance)
    assert not violated and outcome.informative
    assert outcome.relative_margin == pytest.approx(1 - abs(1 - 2 * rho), rel=1e-12)
    assert math.isclose(outcome.quantities["norm"], abs(1 - 2 * rho), rel_tol=1e-12)
