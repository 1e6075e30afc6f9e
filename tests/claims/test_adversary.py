"""The steered adversarial search (proofs_check.adversary, ``ovk-check tightness``): every point it tries satisfies the
claim's hypotheses, it climbs towards the bound, and a planted fault that breaks a bound shows as a ratio above 1."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ovk_cli import cli
from proofs_check import CLAIMS
from proofs_check.adversary import BOUND_CLAIMS, Layout, search
from proofs_check.faults import FAULTS
from proofs_check.runner import sample


@pytest.mark.parametrize("claim_id", ["prop1.ii", "prop2.i", "thm1.sharpened", "monorma.norm_prop2_factor", "thm2.certificate"])
def test_every_vector_decodes_to_an_instance_of_the_claims_hypotheses(claim_id):
    start = sample(claim_id, 1)[0]
    layout = Layout(start)
    size = len(layout.encode(start))

    @settings(max_examples=30, deadline=None)
    @given(st.lists(st.floats(-50, 50), min_size=size, max_size=size))
    def decoded(vector):
        instance = layout.decode(np.array(vector))
        if layout.certificate:
            assert 0.5 <= instance["rho"] <= 0.95 and 0.25 <= instance["epsilon"] <= 0.45
            return
        X, Y = np.asarray(instance["X"]), np.asarray(instance["Y"])
        assert np.all((0 <= X) & (X <= 1)) and 0 < instance["eta"] * instance["lam"] < 1
        if layout.hyp3:
            assert np.all(np.linalg.norm(Y, axis=1) <= instance["C_y"])
            kappa2 = max(np.atleast_1d(instance["kappa2"]))
            assert instance["lam"] > 2 * kappa2
    decoded()


def test_the_search_reaches_an_attained_bound_and_a_fault_carries_it_past():
    found = search("prop1.ii", draws_count=10, starts=1, evaluations=40)
    assert 0.999 <= found.ratio <= 1 + 1e-12 and found.t is not None
    with FAULTS["shrink_halved"].applied():
        broken = search("prop1.ii", draws_count=10, starts=1, evaluations=40)
    assert broken.ratio > 1


def test_the_search_refines_its_start():
    """Powell's method from a start: Theorem 2's certificate is tightest at the corner rho = 1/2, epsilon = 1/4 of its
    box, and the search walks there from the middle."""
    start = {"rho": 0.8, "epsilon": 0.4, "t0": 1}
    found = search("thm2.certificate", draws_count=0, extra_starts=[start], starts=1, evaluations=60)
    assert found.ratio > 1 - CLAIMS["thm2.certificate"].check(start).relative_margin + 0.2
    assert found.instance["rho"] < 0.6 and found.instance["epsilon"] < 0.3


def test_tightness_names_only_bound_claims(capsys):
    assert cli.main(["tightness", "--claim", "prop2.iv"]) == 2
    assert "--claim must be a bound claim" in capsys.readouterr().err
    assert set(BOUND_CLAIMS) <= set(CLAIMS)
