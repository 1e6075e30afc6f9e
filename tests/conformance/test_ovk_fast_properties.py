"""ovk_fast computes what ovk_ref computes: every record field on random streams, and the batch system (C25).

Two float64 computations of one quantity in different summation orders agree to IDENTITY_RTOL of the field's
scale when the update is a continuous function of its inputs: losses with continuous gradients (squared,
Huber, softmax) here; the kinked losses are covered by the golden vectors. The engine's block size and its
rescale threshold are drawn too, so block boundaries and scale folds happen within a dozen rounds, and so is
the tile width of the kernel rows (several tiles, summed from the pool's threads).
"""
import dataclasses
import importlib
import inspect
import multiprocessing
from contextlib import ExitStack
from unittest import mock

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from shared.closeness import assert_close
from shared.streams import linear_related_tasks

import ovk_fast
import ovk_ref
from ovk_conform import tolerance
from ovk_conform.regime_faults import NormOneDowndatePerRound
from ovk_ref import tolerances
from proofs_check import strategies

onorma_module = importlib.import_module("ovk_fast.onorma")
monorma_module = importlib.import_module("ovk_fast.monorma")
batch_module = importlib.import_module("ovk_fast.batch")
kernel_rows_module = importlib.import_module("ovk_fast.kernel_rows")
stored_rows_module = importlib.import_module("ovk_fast.stored_rows")
threads_module = importlib.import_module("ovk_fast.threads")
literal_range_module = importlib.import_module("ovk_fast.literal_range")
compiled_module = importlib.import_module("ovk_fast.compiled")

#: the engines to certify: numpy's always, the compiled kernels (rounds, fused tiles) where numba is installed
ROUND_LOOPS = [False, True] if compiled_module.AVAILABLE else [False]

SMOOTH_LOSSES = ["squared", {"type": "huber", "delta": 0.5}, "softmax"]


def engine_settings():
    """(rounds per block, rescale threshold, stored points per tile): tiny blocks, a threshold that folds the
    scale every few rounds, and tiles of a few points, so that several tiles are summed (on the threads)."""
    return st.tuples(st.sampled_from([1, 2, 3, onorma_module.BLOCK_ROUNDS]), st.sampled_from([0.9, onorma_module.RESCALE_BELOW]),
                     st.sampled_from([1, 3, stored_rows_module.TILE_COLUMNS]))


def _engine(settings):
    block, rescale, tile = settings
    stack = ExitStack()
    stack.enter_context(mock.patch.object(stored_rows_module, "TILE_COLUMNS", tile))
    for module in (onorma_module, monorma_module):
        stack.enter_context(mock.patch.object(module, "BLOCK_ROUNDS", block))
    stack.enter_context(mock.patch.object(onorma_module, "RESCALE_BELOW", rescale))   # block_schedule's, for both
    return stack


def term_scales(X, Y, kernels, reference, eta) -> dict:
    """Per field, a bound on the terms it is summed from, for ``A = sum_t ||alpha_tt||`` (a bound on any sum of
    coefficients, shrinking only decreases them) and ``k = max_i ||K(x_i, x_i)||`` (it bounds every block of a
    PSD kernel: ``||K(x, z)|| <= sqrt(||K(x, x)|| ||K(z, z)||)``): predictions <= m k A, norms <= m k A^2,
    coefficients <= eta (m k A + max ||y|| + 1) (the gradient z - y, or softmax(z) - y).
    Round-off is relative to these terms, not to the result: ``||f||^2`` of a coefficient nearly orthogonal
    to ``K(x, x)`` is a difference of much larger terms. MONORMA multiplies every scale by its delta
    conditioning (below)."""
    k = max(_scaled_norm(ovk_ref.as_kernel(kernel)(x, x), ord=2) for kernel in kernels for x in X)
    new = np.array([_scaled_norm(row) for row in reference.new_coefficients])
    A = np.sum(new)
    m = len(kernels)
    gradient = m * k * A + np.max(np.linalg.norm(Y, axis=1)) + 1
    scales = {"predictions": m * k * A, "rkhs_norm2": m * k * A * A, "gamma": k * A * A, "weights": 1.0,
              "new_coefficients": eta * gradient, "coefficients": eta * gradient}
    if hasattr(reference, "gamma"):
        amplification = delta_conditioning(reference.gamma, new, k, A)
        scales = {name: amplification * scale for name, scale in scales.items()}
    return scales


def _scaled_norm(values, ord=None) -> float:
    """``np.linalg.norm(values, ord)`` computed on ``values / max|values|``: the squares of entries below 1e-154
    underflow to 0 (a norm of 0 for [5e-205, -5e-205]), and of entries above 1e154 overflow."""
    largest = float(np.max(np.abs(values), initial=0.0))
    if not 0.0 < largest < np.inf:
        return largest
    return largest * float(np.linalg.norm(np.asarray(values) / largest, ord=ord))


def delta_conditioning(gamma, new, k, A) -> float:
    """``1 + sum_t max_j terms^j_t / gamma^j_t``, ``terms`` bounding the three terms of the gamma recursion (spec 6.2):
    gamma^j_t is computed with a relative error of about eps times this ratio, and delta_t is a product of powers
    of gamma_1..gamma_t (spec 6.3), so to first order the relative errors add up in delta and from delta reach
    every field. Exactly-zero gammas are exact in both runs (zero coefficients) and are skipped."""
    previous = np.vstack([np.zeros((1, gamma.shape[1])), gamma[:-1]])
    terms = previous + (k * new**2 + 2 * k * A * new)[:, None]
    ratio = np.divide(terms, gamma, out=np.zeros_like(gamma), where=gamma > 0)
    return 1.0 + float(np.sum(np.max(ratio, axis=1)))


#: the norm recursion (spec 6.5) applying at most one of a round's downdates: a schedule that drops several terms in
#: one round sees it (the oracle's regime fault of the same name plants the same)
ONE_DOWNDATE_PER_ROUND = NormOneDowndatePerRound.FAULT


def plant_fault(module, old: str, new: str) -> dict:
    """``module``'s source with one planted fault (``old``, which occurs once, replaced by ``new``), run as plain
    Python (not compiled): its namespace."""
    source = inspect.getsource(module)
    assert source.count(old) == 1, f"the planted fault's target {old!r} must occur once"
    namespace = {"__name__": f"planted_{module.__name__.rsplit('.', 1)[-1]}"}
    exec(source.replace(old, new), namespace)
    return namespace


def assert_same_record(fast, reference, scales):
    """Float fields within IDENTITY_RTOL of the larger of their scale max|reference| and their terms' scale;
    integer fields (counts) exactly."""
    for name, expected in reference.to_dict().items():
        actual = getattr(fast, name)
        assert actual.shape == expected.shape, name
        if expected.dtype.kind == "i":
            assert np.array_equal(actual, expected), name
            continue
        scale = max(np.max(np.abs(expected)), scales[name])
        error = np.max(np.abs(actual - expected))
        assert error <= tolerances.IDENTITY_RTOL * scale, f"{name}: error {error:.3g} at scale {scale:.3g}"


@st.composite
def smooth_losses(draw, d):
    return draw(st.sampled_from(SMOOTH_LOSSES if d >= 2 else SMOOTH_LOSSES[:2]))


class ListedSchedule:
    """``s_t`` read from a list (the last value from there on): any schedule ``t -> s_t >= 1``, which ONORMA takes
    (spec 5.1). One that shrinks drops several terms in one round; a window or Theorem 2's drops one at most."""

    def __init__(self, s):
        self.s = tuple(s)

    def __call__(self, t: int) -> int:
        return self.s[min(t, len(self.s)) - 1]

    def __repr__(self) -> str:
        return f"ListedSchedule({list(self.s)})"


@st.composite
def truncations(draw, n):
    return draw(st.one_of(st.none(), st.integers(1, n + 1),
                          st.builds(ovk_ref.theorem2_schedule, st.integers(1, 4), st.floats(0.05, 0.45)),
                          st.lists(st.integers(1, n + 1), min_size=1, max_size=n).map(ListedSchedule)))


@given(data=st.data())
def test_onorma_matches_the_reference(data):
    d, p = data.draw(strategies.dimensions, label="d"), data.draw(strategies.dimensions, label="p")
    kernel = data.draw(strategies.kernels(d, p), label="kernel")
    loss = data.draw(smooth_losses(d), label="loss")
    X, Y = data.draw(strategies.streams(p, d, loss=loss, max_n=12), label="stream")
    lam, eta = data.draw(strategies.step_parameters(), label="lam, eta")
    truncation = data.draw(truncations(len(X)), label="truncation")
    reference = ovk_ref.onorma(X, Y, kernel, lam=lam, eta=eta, loss=loss, truncation=truncation)
    with _engine(data.draw(engine_settings(), label="engine")), \
            mock.patch.object(compiled_module, "AVAILABLE", data.draw(st.sampled_from(ROUND_LOOPS), label="compiled")):
        fast = ovk_fast.onorma(X, Y, kernel.to_dict(), lam=lam, eta=eta, loss=loss, truncation=truncation)
    assert_same_record(fast, reference, term_scales(X, Y, [kernel], reference, eta))


def test_onorma_norm_that_cancels_is_judged_against_its_terms():
    """Found by Hypothesis: alpha = (1/4, -1/4) is orthogonal to 11^T, so ||f_1||^2 = <K(x,x) alpha, alpha> keeps only
    the (1 - mu) s^2 part (~5e-13) of terms ~1e-7; the two summation orders differ by ~5e-23."""
    kernel = ovk_ref.WeightedSum([(1.071887159211611, ovk_ref.LinearQuadratic(0.7578125, 2))])
    X, Y = np.array([[0.001953125]]), np.array([[1.0, 0.0]])
    reference = ovk_ref.onorma(X, Y, kernel, lam=1.0, eta=0.5, loss="softmax")
    fast = ovk_fast.onorma(X, Y, kernel, lam=1.0, eta=0.5, loss="softmax")
    assert_same_record(fast, reference, term_scales(X, Y, [kernel], reference, 0.5))


def test_monorma_weights_with_a_nearly_cancelling_gamma_are_judged_by_their_conditioning():
    """Found by Hypothesis: x = 0, so g^j = B_j sum_i alpha_i; the shrink and the new coefficient nearly cancel in
    sum_i alpha_i, gamma_t is a small difference of larger terms, and r = 1 multiplies the ratio of the two
    kernels' weights by sqrt(gamma^1_t / gamma^2_t) every round: the weights differ by ~3e-10 between two
    summation orders, inside the tolerance scaled by the run's delta conditioning."""
    kernels = [{"type": "gaussian_separable", "mu": 1.0, "B": [[2.0]]},
               {"type": "gaussian_separable", "mu": 1.0, "B": [[1.125]]}]
    X, Y = np.zeros((5, 1)), np.array([[0.0], [1.0], [0.0], [0.0], [0.0]])
    reference = ovk_ref.monorma(X, Y, kernels, lam=0.5, eta=1.0, r=1.0)
    with _engine((1, 0.9, 1)):
        fast = ovk_fast.monorma(X, Y, kernels, lam=0.5, eta=1.0, r=1.0)
    assert_same_record(fast, reference, term_scales(X, Y, kernels, reference, 1.0))


@st.composite
def positive_definite_kernels(draw, d):
    """Gaussian kernels with a positive definite output matrix: gamma = ||g||^2 stays away from the round-off
    level, where delta's update (a power 1/(r+1) of gamma) is not Lipschitz."""
    mu = draw(st.floats(0.1, 10.0))
    B = ovk_ref.paper_J(d) * draw(st.floats(0.2, 2.0))
    return {"type": "gaussian_separable", "mu": mu, "B": B.tolist()}


@given(data=st.data())
def test_monorma_matches_the_reference(data):
    d, p = data.draw(strategies.dimensions, label="d"), data.draw(strategies.dimensions, label="p")
    kernels = data.draw(st.lists(positive_definite_kernels(d), min_size=1, max_size=3), label="kernels")
    loss = data.draw(smooth_losses(d), label="loss")
    X, Y = data.draw(strategies.streams(p, d, loss=loss, max_n=12), label="stream")
    lam, eta = data.draw(strategies.step_parameters(), label="lam, eta")
    r = data.draw(st.floats(0.25, 4.0), label="r")
    reference = ovk_ref.monorma(X, Y, kernels, lam=lam, eta=eta, r=r, loss=loss)
    with _engine(data.draw(engine_settings(), label="engine")), \
            mock.patch.object(compiled_module, "AVAILABLE", data.draw(st.sampled_from(ROUND_LOOPS), label="compiled")):
        fast = ovk_fast.monorma(X, Y, kernels, lam=lam, eta=eta, r=r, loss=loss)
    assert_same_record(fast, reference, term_scales(X, Y, kernels, reference, eta))


def assert_solves_the_batch_system(X, Y, kernel, lam, coefficients):
    """``(G + t lam I) c = vec(Y)`` (spec 7.1) with the reference Gram matrix, to a backward-error bound."""
    t = len(X)
    system = ovk_ref.gram(kernel, X) + t * lam * np.eye(system_size := t * Y.shape[1])
    c = coefficients.reshape(system_size)
    residual = np.max(np.abs(system @ c - Y.reshape(-1)))
    bound = tolerances.IDENTITY_RTOL * (np.max(np.abs(system).sum(axis=1)) * np.max(np.abs(c)) + np.max(np.abs(Y)))
    assert residual <= bound


@given(data=st.data())
def test_batch_ridge_solves_the_system(data):
    d, p = data.draw(strategies.dimensions, label="d"), data.draw(strategies.dimensions, label="p")
    kernel = data.draw(strategies.kernels(d, p), label="kernel")
    X, Y = data.draw(strategies.streams(p, d, max_n=12), label="stream")
    lam = data.draw(st.floats(1e-3, 10.0), label="lam")
    assert_solves_the_batch_system(X, Y, kernel, lam, ovk_fast.batch_ridge(X, Y, kernel.to_dict(), lam=lam))


@pytest.mark.parametrize("scalar", [ovk_ref.Gaussian(0.7), ovk_ref.Polynomial(2, 1.0)], ids=["gaussian", "polynomial"])
def test_batch_ridge_with_many_distinct_output_eigenvalues_takes_the_eigendecomposition_path(scalar):
    d = batch_module.CHOLESKY_SOLVES_PER_EIGH + 1    # d distinct eigenvalues of B: spec 7.2 through K_s = U diag(s) U^T
    rng = np.random.default_rng(7)
    R = rng.standard_normal((d, d + 2))
    kernel = ovk_ref.Separable(scalar, R @ R.T / d)
    assert len(batch_module.eigenvalue_groups(np.linalg.eigvalsh(kernel.B))) == d
    X, Y = rng.uniform(size=(9, 2)), rng.standard_normal((9, d))
    assert_solves_the_batch_system(X, Y, kernel, 0.05, ovk_fast.batch_ridge(X, Y, kernel, lam=0.05))


@pytest.mark.parametrize("d", [1, 2, 10])
def test_the_paper_output_matrix_needs_at_most_two_factorisations(d):
    """spec 3.1: J = 0.9 I + 0.1 11^T has eigenvalues 0.9 (d - 1 times) and 0.9 + 0.1 d."""
    groups = batch_module.eigenvalue_groups(np.linalg.eigvalsh(ovk_ref.paper_J(d)))
    assert [len(group) for group in groups] == ([1] if d == 1 else [d - 1, 1])


BAD_INPUTS = [
    (dict(lam=-1.0), ValueError, "lam must be > 0"),
    (dict(eta=20.0), ValueError, "eta\\*lam must be < 1"),
    (dict(precision=50), ValueError, "precision must be None"),
    (dict(loss="cubic"), ValueError, "unknown loss"),
    (dict(truncation=0), ValueError, "truncation must be >= 1"),
]


@pytest.mark.parametrize("change, error, message", BAD_INPUTS, ids=[m for _, _, m in BAD_INPUTS])
def test_onorma_rejects_bad_parameters_before_any_work(change, error, message):
    arguments = dict(lam=0.1, eta=1.0, loss="squared") | change
    X, Y = np.zeros((3, 2)), np.zeros((3, 2))
    with pytest.raises(error, match=message):
        ovk_fast.onorma(X, Y, ovk_ref.gaussian_separable(1.0, 2).to_dict(), **arguments)


def test_bad_shapes_and_parameters_name_the_parameter():
    kernel = ovk_ref.gaussian_separable(1.0, 2)
    with pytest.raises(ValueError, match="Y must have the kernel's output dimension d = 2"):
        ovk_fast.onorma(np.zeros((3, 2)), np.zeros((3, 3)), kernel, lam=0.1, eta=1.0)
    with pytest.raises(ValueError, match="r must be > 0"):
        ovk_fast.monorma(np.zeros((3, 2)), np.zeros((3, 2)), [kernel], lam=0.1, eta=1.0, r=0.0)
    with pytest.raises(ValueError, match="X and Y must have the same number of rows"):
        ovk_fast.batch_ridge(np.zeros((3, 2)), np.zeros((2, 2)), kernel, lam=0.1)


class _ShiftedGaussian(ovk_ref.OperatorKernel):
    """A kernel class ovk_fast does not know, ``exp(-||x - z||^2) R R^T`` (PSD): it takes the explicit-block path."""

    d, p = 2, 2
    R = np.array([[1.0, 0.5], [0.0, 0.7]])

    def __call__(self, x, z):
        diff = x - z
        return np.exp(-np.dot(diff, diff)) * (self.R @ self.R.T)

    def to_dict(self):
        return {"type": "shifted_gaussian"}


def test_an_unknown_kernel_class_takes_the_generic_path_and_agrees():
    kernel = _ShiftedGaussian()
    rng = np.random.default_rng(3)
    X, Y = rng.uniform(size=(9, 2)), rng.standard_normal((9, 2))
    for truncation in (None, 3):
        reference = ovk_ref.onorma(X, Y, kernel, lam=0.1, eta=0.5, truncation=truncation)
        fast = ovk_fast.onorma(X, Y, kernel, lam=0.1, eta=0.5, truncation=truncation)
        assert_same_record(fast, reference, term_scales(X, Y, [kernel], reference, 0.5))
    reference = ovk_ref.monorma(X, Y, [kernel, ovk_ref.gaussian_separable(1.0, 2)], lam=0.1, eta=0.5, r=2.0)
    fast = ovk_fast.monorma(X, Y, [kernel, ovk_ref.gaussian_separable(1.0, 2)], lam=0.1, eta=0.5, r=2.0)
    assert_same_record(fast, reference, term_scales(X, Y, [kernel], reference, 0.5))
    assert_solves_the_batch_system(X, Y, kernel, 0.1, ovk_fast.batch_ridge(X, Y, kernel, lam=0.1))


def test_monorma_literal_all_zero_gives_nan_weights_as_the_reference():
    """all_zero="literal": the 0/0 of an all-zero round is NaN, and stays NaN (spec 6.3, E22)."""
    kernels = [ovk_ref.gaussian_separable(0.5, 2), ovk_ref.gaussian_separable(2.0, 2)]
    X, Y = np.random.default_rng(4).uniform(size=(4, 2)), np.ones((4, 2))
    Y[0] = 0.0
    with pytest.warns(ovk_ref.DivergenceWarning):   # NaN predictions from round 2: said once by each engine
        reference = ovk_ref.monorma(X, Y, kernels, lam=0.1, eta=0.3, r=2.0, all_zero="literal")
    with pytest.warns(ovk_ref.DivergenceWarning):
        fast = ovk_fast.monorma(X, Y, kernels, lam=0.1, eta=0.3, r=2.0, all_zero="literal")
    assert np.all(np.isnan(reference.weights)) and np.all(np.isnan(fast.weights))
    assert reference.diverged_at == fast.diverged_at == 2


@pytest.mark.parametrize("truncation", [None, ovk_ref.theorem2_schedule(50, 0.3)], ids=["untruncated", "theorem2"])
def test_a_stream_longer_than_two_blocks_matches_the_reference(truncation):
    """The default block size, with blocks that start after drops and a ring buffer that wraps."""
    n = 2 * onorma_module.BLOCK_ROUNDS + 8
    X, Y = linear_related_tasks(n, p=2, d=2, seed=5)
    kernel = ovk_ref.gaussian_separable(0.5, 2)
    reference = ovk_ref.onorma(X, Y, kernel, lam=0.05, eta=0.5, truncation=truncation)
    fast = ovk_fast.onorma(X, Y, kernel, lam=0.05, eta=0.5, truncation=truncation)
    assert_same_record(fast, reference, term_scales(X, Y, [kernel], reference, 0.5))
    if truncation is not None:
        assert fast.support_sizes[-1] < onorma_module.BLOCK_ROUNDS < n


@pytest.mark.parametrize("compiled", ROUND_LOOPS, ids=lambda compiled: "compiled" if compiled else "numpy loop")
def test_monorma_longer_than_a_block_matches_the_reference(compiled):
    n = onorma_module.BLOCK_ROUNDS + 8
    X, Y = linear_related_tasks(n, p=2, d=2, seed=6)
    kernels = [ovk_ref.gaussian_separable(0.5, 2), ovk_ref.gaussian_separable(2.0, 2)]
    reference = ovk_ref.monorma(X, Y, kernels, lam=0.05, eta=0.5, r=1.5)
    with mock.patch.object(compiled_module, "AVAILABLE", compiled):
        fast = ovk_fast.monorma(X, Y, kernels, lam=0.05, eta=0.5, r=1.5)
    assert_same_record(fast, reference, term_scales(X, Y, kernels, reference, 0.5))


@pytest.mark.skipif(not compiled_module.AVAILABLE, reason="numba is not installed: the numpy loop is the engine")
def test_the_compiled_rounds_are_taken_and_a_planted_fault_in_them_is_caught():
    """Where numba is installed, MONORMA's squared-loss rounds run compiled (so the checks above certify them);
    the same loop with the cross term of the gamma recursion (spec 6.2) dropped fails the comparison."""
    X, Y = linear_related_tasks(40, p=2, d=2, seed=6)
    kernels = [ovk_ref.gaussian_separable(0.5, 2), ovk_ref.gaussian_separable(2.0, 2)]
    reference = ovk_ref.monorma(X, Y, kernels, lam=0.05, eta=0.5, r=1.5)
    scales = term_scales(X, Y, kernels, reference, 0.5)
    calls = []
    original = compiled_module.squared_rounds
    with mock.patch.object(compiled_module, "squared_rounds", lambda *a: calls.append(1) or original(*a)):
        assert_same_record(ovk_fast.monorma(X, Y, kernels, lam=0.05, eta=0.5, r=1.5), reference, scales)
    assert calls
    rounds = plant_fault(compiled_module, " + 2 * c * cross", "")["_squared_rounds"]
    with mock.patch.object(compiled_module, "squared_rounds", rounds):
        planted = ovk_fast.monorma(X, Y, kernels, lam=0.05, eta=0.5, r=1.5)
    with pytest.raises(AssertionError, match="gamma|weights|predictions"):
        assert_same_record(planted, reference, scales)


@pytest.mark.parametrize("compiled", ROUND_LOOPS, ids=lambda compiled: "compiled" if compiled else "numpy loop")
def test_a_schedule_that_drops_several_terms_in_one_round_and_a_planted_fault_in_the_norm_downdates(compiled):
    """A schedule that shrinks from 6 to 2 drops 4 terms in one round: ||f_t||^2 takes each one's downdate (spec 6.5).
    Planted, caught: the norm recursion (``compiled.norm_recursion``) taking one downdate per round at most."""
    X, Y = linear_related_tasks(16, p=2, d=2, seed=9)
    kernel, truncation = ovk_ref.gaussian_separable(0.7, 2), ListedSchedule([6] * 9 + [2])
    reference = ovk_ref.onorma(X, Y, kernel, lam=0.05, eta=0.5, truncation=truncation)
    assert list(np.diff(reference.support_sizes)) == [1] * 5 + [0] * 3 + [-4] + [0] * 6
    scales = term_scales(X, Y, [kernel], reference, 0.5)
    recursion = plant_fault(compiled_module, *ONE_DOWNDATE_PER_ROUND)["norm_recursion"]
    with mock.patch.object(compiled_module, "AVAILABLE", compiled):
        assert_same_record(ovk_fast.onorma(X, Y, kernel, lam=0.05, eta=0.5, truncation=truncation), reference, scales)
        with mock.patch.object(compiled_module, "norm_recursion_compiled", recursion):
            planted = ovk_fast.onorma(X, Y, kernel, lam=0.05, eta=0.5, truncation=truncation)
    with pytest.raises(AssertionError, match="rkhs_norm2"):
        assert_same_record(planted, reference, scales)


def _small_gaussian_run(n):
    X = np.linspace(0.0, 1.0, 2 * n).reshape(n, 2)
    return ovk_fast.onorma(X, np.cos(X), {"type": "gaussian_separable", "mu": 1.0, "B": np.eye(2).tolist()},
                           lam=0.1, eta=0.5).predictions


@given(data=st.data())
def test_results_do_not_depend_on_the_threads(data):
    """Kernel rows are tiles summed in tile order whichever thread computed them: ONORMA and MONORMA give the same
    bits on one thread as on several."""
    d, p = data.draw(strategies.dimensions, label="d"), data.draw(strategies.dimensions, label="p")
    kernels = data.draw(st.lists(positive_definite_kernels(d), min_size=1, max_size=3), label="kernels")
    X, Y = data.draw(strategies.streams(p, d, max_n=12), label="stream")
    settings = data.draw(engine_settings(), label="engine")

    def runs():
        return (ovk_fast.onorma(X, Y, kernels[0], lam=0.1, eta=0.5), ovk_fast.monorma(X, Y, kernels, lam=0.1, eta=0.5, r=1.0))

    with _engine(settings), mock.patch.object(threads_module, "THREADS", 1):
        serial = runs()
    with _engine(settings), mock.patch.object(threads_module, "THREADS", 4):
        threaded = runs()
    for one, several in zip(serial, threaded):
        for field in dataclasses.fields(one):
            np.testing.assert_array_equal(getattr(several, field.name), getattr(one, field.name), err_msg=field.name)


#: ONORMA's one-thread path planted wrong: the look-ahead's split dropped (each block's rows in tiles from the first
#: stored point), or the tiles not started again at the split (``stored_rows._tile_starts``)
ONE_THREAD_SPLIT_FAULTS = {
    "the split dropped": (onorma_module, ("            self.split = start\n            return\n", "            return\n")),
    "the tiles not started again at the split": (
        stored_rows_module, ("    return list(range(0, split, TILE_COLUMNS)) + list(range(split, n, TILE_COLUMNS))",
                             "    return list(range(0, n, TILE_COLUMNS))")),
    # found by an adversary's fuzzing (a stream of targets near 1e-300 that hands a block over): the block after a
    # hand-over split where the look-ahead, dropped with it, would have split it
    "the split kept over a hand-over": (
        onorma_module, ("            self.split = None                 # the next block computes its rows whole, as after a drop\n",
                        "")),
}


@pytest.mark.parametrize("fault", [None, *ONE_THREAD_SPLIT_FAULTS])
def test_onorma_on_one_thread_splits_its_tiles_as_the_look_ahead_does(fault):
    """On one thread ONORMA computes each block's rows itself (``onorma.LOOK_AHEAD_THREADS``), its tiles split where
    the look-ahead splits them: the same bits as on four threads, in blocks of 8 with tiles of 3 points (the part
    after the split several tiles), with and without blocks cut by the rescale, and with round 13 handed over to
    ovk_ref's learner (the look-ahead dropped there); each planted fault (``ONE_THREAD_SPLIT_FAULTS``) changes some
    bits."""
    X, Y = linear_related_tasks(40, p=3, d=2, seed=5)
    kernel = ovk_ref.gaussian_separable(1.0, 2)
    one_thread, planted, engine = ovk_fast.onorma, ExitStack(), {}
    if fault is not None:
        module, planting = ONE_THREAD_SPLIT_FAULTS[fault]
        namespace = plant_fault(module, *planting)
        if module is onorma_module:     # the planted engine's own constants, as _engine sets the module's below
            one_thread, engine = namespace["onorma"], namespace
        else:
            planted.enter_context(mock.patch.dict(namespace, {"TILE_COLUMNS": 3}))
            planted.enter_context(mock.patch.object(onorma_module, "apply_rows", namespace["apply_rows"]))
    same = []
    with planted:
        for rescale, handed_over in ((onorma_module.RESCALE_BELOW, []), (0.9, []), (onorma_module.RESCALE_BELOW, [13])):
            def unsafe(self, rounds, *arguments, handed_over=handed_over):   # round 13 run by ovk_ref's learner
                return np.isin(rounds, handed_over) if np.ndim(rounds) else bool(handed_over)

            with _engine((8, rescale, 3)), mock.patch.dict(engine, {"BLOCK_ROUNDS": 8, "RESCALE_BELOW": rescale} if engine else {}), \
                    mock.patch.object(literal_range_module.LiteralBound, "unsafe", unsafe):
                with mock.patch.object(threads_module, "THREADS", 4):
                    several = ovk_fast.onorma(X, Y, kernel, lam=0.1, eta=0.5)
                with mock.patch.object(threads_module, "THREADS", 1):
                    one = one_thread(X, Y, kernel, lam=0.1, eta=0.5)
            same += [np.array_equal(getattr(one, field.name), getattr(several, field.name))
                     for field in dataclasses.fields(one)]
    assert all(same) if fault is None else not all(same), fault


@pytest.mark.filterwarnings("ignore:.*fork.*:DeprecationWarning")   # the multi-threaded parent is the point
def test_a_process_forked_after_the_pool_started_makes_its_own():
    """The pool's threads do not survive a fork: a child forked after the parent used them must not queue its tiles
    on the parent's (dead) pool, where they would wait for ever."""
    with _engine((2, onorma_module.RESCALE_BELOW, 2)), mock.patch.object(threads_module, "THREADS", 2):
        expected = _small_gaussian_run(9)                                   # several tiles: the pool starts
        assert threads_module._pool is not None
        with multiprocessing.get_context("fork").Pool(1) as pool:
            np.testing.assert_array_equal(pool.apply_async(_small_gaussian_run, (9,)).get(timeout=120), expected)


@pytest.mark.parametrize("value", ["0", "-1", "two", "", "1.5"])
def test_a_bad_thread_count_is_refused_by_name(value):
    with pytest.raises(ValueError, match="OVK_FAST_THREADS must be a positive integer.*" + repr(value).replace(".", r"\.")):
        threads_module.threads_from(value)


def test_the_thread_count_is_read_or_defaults_to_the_cores():
    assert threads_module.threads_from("3") == 3
    assert threads_module.threads_from(None) == threads_module.usable_cores() >= 1


@given(data=st.data())
def test_tiled_rows_of_several_kernels_equal_each_kernels_own_rows(data):
    """``apply_rows`` (tiles whose distances and kernel values share one reused workspace per thread) equals each
    kernel's own rows: sums of several Gaussian terms, the feature kernel and several kernels on one geometry must
    not write over each other's values."""
    d, p = data.draw(strategies.dimensions, label="d"), data.draw(strategies.dimensions, label="p")
    kernels = data.draw(st.lists(strategies.kernels(d, p), min_size=1, max_size=3), label="kernels")
    X, _ = data.draw(strategies.streams(p, d, max_n=6), label="queries")
    Z, C = data.draw(strategies.streams(p, d, max_n=12), label="stored points, coefficients")
    with mock.patch.object(stored_rows_module, "TILE_COLUMNS", data.draw(st.sampled_from([1, 2, 5]), label="tile")):
        tiled = stored_rows_module.apply_rows(kernels, X, Z, C)
    for kernel, rows in zip(kernels, tiled):
        own = kernel_rows_module.KernelRows(kernel, X, Z)
        # two summation orders of the same terms K(x_r, z_j) c_j: round-off relative to the terms, not to the sum
        terms = np.max(np.abs(own.dense()), initial=0.0) * np.sum(np.abs(C))
        assert np.max(np.abs(rows - own.apply(C)), initial=0.0) <= tolerances.IDENTITY_RTOL * terms


#: ONORMA's squared-loss solves of a block: numpy's triangular solve, and the compiled rounds where numba is installed
BLOCK_SOLVES = ["_affine_rounds"] + (["_compiled_rounds"] if compiled_module.AVAILABLE else [])


@pytest.mark.parametrize("solve", BLOCK_SOLVES)
@pytest.mark.parametrize("truncation", [None, 40])
def test_the_block_solve_runs_the_rounds_the_loop_runs_up_to_and_at_the_divergence(truncation, solve):
    """ONORMA's squared-loss block solves (``_Run._affine_rounds``, ``_Run._compiled_rounds``) against the
    round-by-round loop they replace, on a stream that overflows (eta = 90): the solve is taken, the records agree
    before the divergence, and both report the same round and the same non-finite entries after it."""
    rng = np.random.default_rng(0)
    X, Y = rng.random((600, 3)), rng.standard_normal((600, 2))
    kernel = ovk_ref.gaussian_separable(1.0, 2)
    solved = []
    original = getattr(onorma_module._Run, solve)

    def counted(self, *args):
        beta = original(self, *args)
        solved.append(beta is not None)
        return beta

    with pytest.warns(ovk_ref.DivergenceWarning), mock.patch.object(onorma_module._Run, solve, counted), \
            mock.patch.object(compiled_module, "AVAILABLE", solve == "_compiled_rounds"):
        block = ovk_fast.onorma(X, Y, kernel, lam=1e-3, eta=90.0, truncation=truncation)
    with pytest.warns(ovk_ref.DivergenceWarning), mock.patch.object(onorma_module._Run, "_affine_rounds", lambda *a: None), \
            mock.patch.object(compiled_module, "AVAILABLE", False):
        loop = ovk_fast.onorma(X, Y, kernel, lam=1e-3, eta=90.0, truncation=truncation)
    assert solved and all(solved)
    assert block.diverged_at == loop.diverged_at is not None
    before = block.diverged_at - 1
    assert_close(block.predictions[:before], loop.predictions[:before], tolerance.CLASSES["float64"],
                 scale=np.abs(loop.predictions[:before]), what="block against loop predictions")
    for field in ("predictions", "new_coefficients", "rkhs_norm2"):
        np.testing.assert_array_equal(np.isfinite(getattr(block, field)), np.isfinite(getattr(loop, field)), err_msg=field)


def test_a_drifting_stream_centres_each_block_where_the_streams_centre_is_too_far():
    """The Gaussian exponents' expansion is centred on the stream's mean while a block of queries stays close enough
    to it for the accuracy bound (``ovk_fast.distances``), else on the block's own mean: a stream whose last rounds
    drift away by 200 + 1 per round (mu = 1) takes both, and matches the reference; so does MONORMA."""
    rng = np.random.default_rng(8)
    n = 48
    X = rng.uniform(size=(n, 2)) + np.where(np.arange(n) < 44, 0.0, 200.0 + np.arange(n))[:, None]
    Y = rng.standard_normal((n, 2))
    kernel = ovk_ref.gaussian_separable(1.0, 2)
    distances_module = importlib.import_module("ovk_fast.distances")
    sliced = []
    original = distances_module.StreamOperands.left
    with _engine((8, onorma_module.RESCALE_BELOW, 4)), mock.patch.object(
            distances_module.StreamOperands, "left", lambda self, *a: sliced.append(original(self, *a)) or sliced[-1]):
        fast = ovk_fast.onorma(X, Y, kernel, lam=0.1, eta=0.5)
        fast_m = ovk_fast.monorma(X, Y, [kernel, ovk_ref.gaussian_separable(3.0, 2)], lam=0.1, eta=0.5, r=1.0)
    assert any(left is None for left in sliced) and any(left is not None for left in sliced)
    reference = ovk_ref.onorma(X, Y, kernel, lam=0.1, eta=0.5)
    assert_same_record(fast, reference, term_scales(X, Y, [kernel], reference, 0.5))
    kernels = [kernel, ovk_ref.gaussian_separable(3.0, 2)]
    reference_m = ovk_ref.monorma(X, Y, kernels, lam=0.1, eta=0.5, r=1.0)
    assert_same_record(fast_m, reference_m, term_scales(X, Y, kernels, reference_m, 0.5))
