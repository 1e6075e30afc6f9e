"""Kernels (spec 2-3): hand values, the block Gram layout, C1 (Hermitian, PSD, reproducing) and the portable dict."""
import json
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import ovk_ref
from ovk_ref import tolerances
from proofs_check import strategies

B = np.array([[2.0, 1.0], [1.0, 3.0]])
X = np.array([1.0, 2.0])
Z = np.array([3.0, -1.0])          # <X, Z> = 1, ||X - Z||^2 = 13

M = np.array([[[1.0, 0.0, 2.0], [0.0, 1.0, 1.0]],      # M0
              [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]],      # M1 (times x_1)
              [[1.0, 0.0, 0.0], [0.0, 0.0, -1.0]]])    # M2 (times x_2)


def A(x):
    """``A(x) = M0 + x_1 M1 + x_2 M2`` written out (spec 3.3)."""
    return M[0] + x[0] * M[1] + x[1] * M[2]


HAND_VALUES = [
    pytest.param(ovk_ref.Separable(ovk_ref.Gaussian(2.0), B), math.exp(-13 / 2) * B, id="gaussian: exp(-||x-z||^2/mu) B"),
    pytest.param(ovk_ref.Separable(ovk_ref.Linear(), B), 1.0 * B, id="linear: <x,z> B"),
    pytest.param(ovk_ref.Separable(ovk_ref.Polynomial(3, offset=1.0), B), 8.0 * B, id="polynomial: (<x,z>+1)^3 B"),
    pytest.param(ovk_ref.Separable(ovk_ref.Constant(0.5), B), 0.5 * B, id="constant: c B"),
    # <x,z> = 1: mu * 1 * 11^T + (1 - mu) * 1 * I
    pytest.param(ovk_ref.LinearQuadratic(0.25, 2), np.array([[1.0, 0.25], [0.25, 1.0]]), id="linear_quadratic"),
    pytest.param(ovk_ref.Feature(M), A(X) @ A(Z).T, id="feature: A(x) A(z)^T"),
    pytest.param(ovk_ref.WeightedSum([(2.0, ovk_ref.Separable(ovk_ref.Linear(), B)), (0.5, ovk_ref.LinearQuadratic(1.0, 2))]),
                 2.0 * B + 0.5 * np.ones((2, 2)), id="weighted sum"),
]


@pytest.mark.parametrize("kernel, expected", HAND_VALUES)
def test_kernel_value_by_hand(kernel, expected):
    np.testing.assert_allclose(kernel(X, Z), expected, rtol=tolerances.IDENTITY_RTOL, atol=0)


def test_linear_quadratic_with_a_larger_inner_product():
    """x = (1, 2), z = (2, 1): <x,z> = 4, so 0.25 * 4 * 11^T + 0.75 * 16 * I = [[13, 1], [1, 13]]."""
    kernel = ovk_ref.LinearQuadratic(0.25, 2)
    np.testing.assert_allclose(kernel(X, np.array([2.0, 1.0])), [[13.0, 1.0], [1.0, 13.0]],
                               rtol=tolerances.IDENTITY_RTOL, atol=0)


def test_feature_kernel_blocks_are_not_symmetric():
    """The point of the feature kernel (spec 3.3, E3): ``K(x, z) != K(z, x)`` but ``K(x, z) = K(z, x)^T``."""
    kernel = ovk_ref.Feature(M)
    assert not np.allclose(kernel(X, Z), kernel(Z, X))
    np.testing.assert_allclose(kernel(X, Z), kernel(Z, X).T, rtol=tolerances.IDENTITY_RTOL, atol=0)


@pytest.mark.parametrize("d", [1, 2, 5])
def test_paper_J_entries_and_spectrum(d):
    """``J_ii = 1``, ``J_ij = 1/10``; eigenvalues 0.9 (d - 1 times) and 0.9 + 0.1 d (C3)."""
    J = ovk_ref.paper_J(d)
    assert np.array_equal(np.diag(J), np.ones(d))
    assert np.allclose(J[~np.eye(d, dtype=bool)], 0.1, rtol=0, atol=tolerances.IDENTITY_ATOL)
    np.testing.assert_allclose(np.linalg.eigvalsh(J), sorted([0.9] * (d - 1) + [0.9 + 0.1 * d]),
                               rtol=tolerances.IDENTITY_RTOL, atol=0)


def test_gaussian_separable_is_the_paper_kernel():
    kernel = ovk_ref.gaussian_separable(0.5, 3)
    np.testing.assert_allclose(kernel(np.zeros(2), np.ones(2)), math.exp(-2 / 0.5) * ovk_ref.paper_J(3),
                               rtol=tolerances.IDENTITY_RTOL, atol=0)


def test_gram_is_point_major_with_block_i_j_equal_to_k_of_x_i_and_z_j():
    """Spec 2.1 with different row and column point sets and the non-symmetric feature kernel."""
    Xs = np.array([[0.0, 1.0], [2.0, -1.0]])
    Zs = np.array([[1.0, 1.0], [0.5, 0.0], [-1.0, 3.0]])
    G = ovk_ref.gram(ovk_ref.Feature(M), Xs, Zs)
    assert G.shape == (4, 6)
    for i, x in enumerate(Xs):
        for j, z in enumerate(Zs):
            np.testing.assert_allclose(G[2 * i:2 * i + 2, 2 * j:2 * j + 2], A(x) @ A(z).T,
                                       rtol=tolerances.IDENTITY_RTOL, atol=tolerances.IDENTITY_ATOL)


@pytest.mark.parametrize("precision", [None, 50])
def test_feature_gram_blocks_are_the_kernels_own_bit_for_bit(precision):
    """``Feature.gram`` computes each point's ``A`` once: every block is ``K(x_i, z_j)``, the same numbers, at float64
    and at 50 digits, with and without a second point set."""
    import mpmath

    from ovk_ref import arithmetic

    kernel = ovk_ref.random_feature(3, 2, 4, seed=5)
    rng = np.random.default_rng(5)
    Xs, Zs = rng.uniform(size=(4, 3)), rng.uniform(size=(3, 3))
    with mpmath.workdps(precision or mpmath.mp.dps):
        if precision:
            Xs, Zs = arithmetic.mpf_array(Xs), arithmetic.mpf_array(Zs)
        for rows, columns, G in ((Xs, Xs, kernel.gram(Xs)), (Xs, Zs, kernel.gram(Xs, Zs))):
            blocks = np.concatenate([np.concatenate([kernel(x, z) for z in columns], axis=1) for x in rows], axis=0)
            assert G.dtype == blocks.dtype and G.shape == blocks.shape
            if precision:
                assert all(a._mpf_ == b._mpf_ for a, b in zip(G.ravel(), blocks.ravel()))
            else:
                assert G.tobytes() == blocks.tobytes()


PORTABLE_EXAMPLES = [
    ({"type": "gaussian_separable", "mu": 2.0, "B": B.tolist()}, math.exp(-13 / 2) * B),
    ({"type": "linear_separable", "B": B.tolist()}, B),
    ({"type": "polynomial_separable", "degree": 3, "offset": 1.0, "B": B.tolist()}, 8.0 * B),
    ({"type": "constant_separable", "c": 0.5, "B": B.tolist()}, 0.5 * B),
    ({"type": "linear_quadratic", "mu": 0.25, "d": 2}, np.array([[1.0, 0.25], [0.25, 1.0]])),
    ({"type": "feature", "M": M.tolist()}, A(X) @ A(Z).T),
    ({"type": "sum", "terms": [{"weight": 2.0, "kernel": {"type": "linear_separable", "B": B.tolist()}},
                               {"weight": 0.5, "kernel": {"type": "linear_quadratic", "mu": 1.0, "d": 2}}]},
     2.0 * B + 0.5 * np.ones((2, 2))),
]


@pytest.mark.parametrize("spec, expected", PORTABLE_EXAMPLES,
                         ids=lambda value: value.get("type") if isinstance(value, dict) else "")
def test_portable_dict_names_the_kernel_it_describes(spec, expected):
    kernel = ovk_ref.kernel_from_dict(spec)
    np.testing.assert_allclose(kernel(X, Z), expected, rtol=tolerances.IDENTITY_RTOL, atol=0)
    assert kernel.to_dict() == spec


def _symmetry_and_psd(G):
    scale = max(1.0, float(np.max(np.abs(G))))
    assert np.allclose(G, G.T, rtol=0, atol=tolerances.IDENTITY_RTOL * scale), "block Gram matrix is not symmetric"
    smallest = float(np.linalg.eigvalsh((G + G.T) / 2).min())
    assert smallest >= -tolerances.PSD_EIGENVALUE * scale, f"smallest eigenvalue {smallest}"


@st.composite
def kernel_and_points(draw):
    d, p = draw(strategies.dimensions), draw(strategies.dimensions)
    kernel = draw(strategies.kernels(d, p))
    k = draw(st.integers(1, 5))
    return kernel, draw(strategies.unit_interval_arrays((k, p)))


@given(kernel_and_points())
def test_c1_block_gram_is_hermitian_and_psd(case):
    """C1 (Definition 1 corrected): ``K(x_i, x_j) = K(x_j, x_i)^T`` and ``G >= 0`` on any finite point set."""
    kernel, points = case
    for x in points:
        for z in points:
            scale = max(1.0, float(np.max(np.abs(kernel(x, z)))))
            np.testing.assert_allclose(kernel(x, z), kernel(z, x).T, rtol=0, atol=tolerances.IDENTITY_RTOL * scale)
    _symmetry_and_psd(ovk_ref.gram(kernel, points))


@given(kernel_and_points(), st.data())
def test_c1_reproducing_property(case, data):
    """D-ii: ``<f(x), y> = <f, K(., x) y>_H``, the right side from the Gram matrix of ``{x_1..x_k, x}`` (spec 2.2)."""
    kernel, points = case
    k, d = len(points), kernel.d
    a = data.draw(strategies.bounded_arrays((k, d)), label="coefficients")
    x = data.draw(strategies.unit_interval_arrays((1, points.shape[1])), label="x")
    y = data.draw(strategies.bounded_arrays(d), label="y")
    augmented = np.concatenate([points, x])
    G = ovk_ref.gram(kernel, augmented)
    left = ovk_ref.evaluate(kernel, points, a, x)[0] @ y
    right = np.concatenate([a.ravel(), np.zeros(d)]) @ G @ np.concatenate([np.zeros(k * d), y])
    scale = max(1.0, float(np.abs(G).sum()))
    assert abs(left - right) <= tolerances.IDENTITY_RTOL * scale


@given(kernel_and_points())
def test_portable_dict_round_trip(case):
    """``kernel_from_dict(k.to_dict()) == k``, through JSON too, and the rebuilt kernel gives the same blocks."""
    kernel, points = case
    spec = kernel.to_dict()
    rebuilt = ovk_ref.kernel_from_dict(json.loads(json.dumps(spec)))
    assert rebuilt == kernel
    assert ovk_ref.kernel_from_dict(spec) == kernel
    assert np.array_equal(ovk_ref.gram(rebuilt, points), ovk_ref.gram(kernel, points))
