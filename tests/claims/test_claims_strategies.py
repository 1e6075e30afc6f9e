"""Meta-tests of the claim-instance strategies: valid by construction for the hypotheses they promise."""
import numpy as np
from hypothesis import given

import ovk_ref
from proofs_check import strategies


@given(strategies.onorma_instances("hyp3", truncation=True))
def test_hyp3_instances_satisfy_hypothesis_3(instance):
    Y = np.asarray(instance["Y"])
    assert instance["loss"] == "squared"
    assert np.all(np.linalg.norm(Y, axis=1) <= instance["C_y"] * (1 + 1e-15))
    assert instance["lam"] >= 2 * instance["kappa2"] * (1 - 1e-15)
    assert 0 < instance["eta"] * instance["lam"] < 1


@given(strategies.onorma_instances("hyp3", lam_boundary=False))
def test_strict_hyp3_instances_have_lam_above_two_kappa2(instance):
    assert instance["lam"] > 2 * instance["kappa2"]


@given(strategies.onorma_instances("hyp3_without_lam"))
def test_instances_breaking_hyp3_iii_break_only_it(instance):
    assert instance["lam"] < 2 * instance["kappa2"]
    assert np.all(np.linalg.norm(np.asarray(instance["Y"]), axis=1) <= instance["C_y"] * (1 + 1e-15))
    assert 0 < instance["eta"] * instance["lam"] < 1


@given(strategies.onorma_instances("hyp2", feature_only=True))
def test_hyp2_instances_have_a_lipschitz_loss_and_a_feature_kernel(instance):
    assert ovk_ref.as_loss(instance["loss"]).lipschitz == instance["C"]
    assert instance["C"] is not None and instance["kernel"]["type"] == "feature"


@given(strategies.kernels_with_kappa2(2, 3))
def test_kappa2_bounds_the_kernel_at_every_vertex_of_the_box(pair):
    kernel, kappa2 = pair
    for vertex in np.array(np.meshgrid(*[[0.0, 1.0]] * 3)).reshape(3, -1).T:
        assert np.linalg.eigvalsh(kernel(vertex, vertex)).max() <= kappa2 * (1 + ovk_ref.tolerances.IDENTITY_RTOL)
