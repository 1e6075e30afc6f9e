"""ovk_fast and ovk_ref agree on divergence at the limits of float64, for every kernel family, loss, truncation and
MONORMA exponent the validation accepts.

The spec: a run diverges at its first round whose prediction, new coefficient or norm is not finite, or past the
divergence bound, as ovk_ref's literal float64 operations compute them (``ovk_ref.divergence``). ovk_fast orders
the same operations otherwise, so near float64's limits one engine overflows or underflows where the other does not
(``ovk_fast.literal_range`` lists the orders); it hands such rounds to ovk_ref's own learner
(``ovk_fast.literal_rounds``). The property tests draw instances scaled towards the validation's limits: inputs,
targets, output matrices, bandwidths, weights, offsets and ``lam``, ``eta`` from 1e-300 to 1e300 (``eta lam`` up
to 1 - 2^-52), polynomial degrees up to 2000, divergence bounds, every r of the accepted range, and ovk_fast's
block, tile and rescale settings; they assert the same ``diverged_at`` (up to the first decision the reference
takes on a number float64 does not resolve, a tie: ``first_tie``), and where neither run diverges and the loss is
smooth, the same records (at a kink of a non-smooth loss two computations of one prediction may pick different
subgradients: an O(1) difference that is no error). Each disagreement the search found is pinned below (``PINNED``),
with the fix planted away to show it caught.
"""
import importlib
import threading
import warnings
from contextlib import ExitStack, contextmanager
from unittest import mock

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from shared.strategies import class_arrays
from shared.streams import linear_related_tasks
from test_ovk_fast_divergence import _expansion_everywhere, _stream, without_literal_rounds
from test_ovk_fast_properties import (
    ROUND_LOOPS,
    _engine,
    _scaled_norm,
    assert_same_record,
    compiled_module,
    engine_settings,
    term_scales,
)

import ovk_fast
import ovk_ref
from ovk_conform import tolerance as conform_tolerance
from ovk_ref import divergence, tolerances
from ovk_ref.kernels.scalar import SCALAR_KERNELS
from ovk_ref.monorma import r_range
from proofs_check import strategies

literal_range = importlib.import_module("ovk_fast.literal_range")
literal_rounds = importlib.import_module("ovk_fast.literal_rounds")
onorma_module = importlib.import_module("ovk_fast.onorma")
look_ahead_module = importlib.import_module("ovk_fast.look_ahead")
magnitude = literal_range.magnitude

#: losses whose gradient is continuous in the prediction: their records are compared (module docstring)
SMOOTH = ("squared", "huber", "softmax")


# --- extreme instances ----------------------------------------------------------------------------------------------

def magnitudes():
    """1, or a power of ten over float64's normal range (shrinks towards 1)."""
    return st.one_of(st.just(1.0), st.integers(-300, 300).map(lambda e: 10.0 ** e))


class _Laplacian:
    """A scalar kernel ovk_fast does not know, ``exp(-|x - z|)`` (PSD): its Separable kernel takes the generic path."""

    name = "laplacian"

    def __call__(self, x, z):
        diff = x - z
        return np.exp(-np.sqrt(np.dot(diff, diff)))

    def params(self):
        return {}


class _ScaledGaussian(ovk_ref.OperatorKernel):
    """A kernel class ovk_fast does not know, ``scale exp(-|x - z|^2) I`` (PSD): the generic path."""

    p = None

    def __init__(self, d, scale):
        self.d, self.scale = d, scale

    def __call__(self, x, z):
        diff = x - z
        return np.exp(-np.dot(diff, diff)) * self.scale * np.eye(self.d)

    def to_dict(self):
        return {"type": "scaled_gaussian", "scale": self.scale}


#: the scalar families drawn at their extremes below, and every other one of ovk_ref's (drawn by its own strategies)
EXTREMES = ("gaussian", "linear", "polynomial", "constant")
FAMILIES = (*EXTREMES, "linear_quadratic", "feature", "unknown scalar", "unknown class",
            *(name for name in SCALAR_KERNELS if name not in EXTREMES), "sum")


@st.composite
def extreme_kernels(draw, d: int, p: int, sums: bool = True):
    family = draw(st.sampled_from(FAMILIES if sums else FAMILIES[:-1]), label="family")
    B = draw(strategies.output_matrices(d)) * draw(magnitudes())
    if family == "gaussian":
        mu = draw(st.one_of(magnitudes(), st.sampled_from([5e-324, 1.7e308])))
        return ovk_ref.Separable(ovk_ref.Gaussian(mu), B)
    if family == "linear":
        return ovk_ref.Separable(ovk_ref.Linear(), B)
    if family == "polynomial":
        degree = draw(st.one_of(st.integers(1, 3), st.integers(4, 2000)))
        offset = draw(st.one_of(st.sampled_from([0.0, 1.0]), magnitudes()))
        return ovk_ref.Separable(ovk_ref.Polynomial(degree, offset), B)
    if family == "constant":
        return ovk_ref.Separable(ovk_ref.Constant(draw(st.one_of(st.just(0.0), magnitudes()))), B)
    if family == "linear_quadratic":
        return ovk_ref.LinearQuadratic(draw(st.one_of(st.sampled_from([0.0, 1.0]), st.floats(0.0, 1.0))), d)
    if family == "feature":
        q = draw(st.integers(1, 3))
        return ovk_ref.Feature(draw(strategies.bounded_arrays((p + 1, d, q))) * draw(magnitudes()))
    if family == "unknown scalar":
        return ovk_ref.Separable(_Laplacian(), B)
    if family == "unknown class":
        return _ScaledGaussian(d, draw(magnitudes()))
    if family in SCALAR_KERNELS:
        return ovk_ref.Separable(draw(strategies.scalar_kernels().filter(lambda k: k.name == family)), B)
    terms = draw(st.lists(st.tuples(st.one_of(st.sampled_from([0.0, 1.0]), magnitudes()),
                                    extreme_kernels(d, p, sums=False)), min_size=1, max_size=3))
    return ovk_ref.WeightedSum(terms)


@st.composite
def extreme_streams(draw, p: int, d: int, loss):
    n = draw(st.integers(1, 12), label="n")
    X = draw(strategies.unit_interval_arrays((n, p))) * draw(magnitudes(), label="input scale")
    X = X + draw(st.one_of(st.just(0.0), magnitudes()), label="input offset")
    if draw(st.booleans(), label="repeated inputs"):
        X = X[np.arange(n) % max(1, n // 2)]
    if ovk_ref.as_loss(loss).one_hot_targets:
        return X, np.eye(d)[draw(class_arrays(n, d))]
    return X, draw(strategies.bounded_arrays((n, d))) * draw(magnitudes(), label="target scale")


@st.composite
def extreme_losses(draw, d: int):
    names = ["squared", "norm", "huber", "epsilon_insensitive"] + (["hinge", "softmax"] if d >= 2 else [])
    name = draw(st.sampled_from(names))
    if name == "huber":
        return {"type": "huber", "delta": draw(magnitudes())}
    if name == "epsilon_insensitive":
        return {"type": "epsilon_insensitive", "epsilon": draw(st.one_of(st.just(0.0), magnitudes()))}
    return name


@st.composite
def extreme_steps(draw):
    """``lam`` from 1e-300 to 1e300, ``eta lam`` from 1e-300 to 1 - 2^-52, and a divergence bound or none."""
    lam = draw(magnitudes(), label="lam")
    rho = draw(st.one_of(st.floats(1e-3, 0.999), magnitudes().filter(lambda m: m < 1), st.just(1 - 2.0 ** -52)))
    eta = rho / lam
    assume(0 < eta < np.inf and eta * lam < 1)
    bound = draw(st.one_of(st.none(), st.none(), magnitudes()), label="divergence_bound")
    return {"lam": lam, "eta": eta, "divergence_bound": bound}


@st.composite
def extreme_runs(draw, algorithm: str):
    """``(X, Y, kernels, arguments)`` of an ONORMA run (one kernel) or a MONORMA run (one to three)."""
    d, p = draw(strategies.dimensions, label="d"), draw(strategies.dimensions, label="p")
    loss = draw(extreme_losses(d), label="loss")
    X, Y = draw(extreme_streams(p, d, loss), label="stream")
    arguments = {"loss": loss, **draw(extreme_steps(), label="steps")}
    if algorithm == "onorma":
        arguments["truncation"] = draw(st.one_of(st.none(), st.integers(1, len(X) + 1), st.builds(
            ovk_ref.theorem2_schedule, st.integers(1, 4), st.floats(0.05, 0.45))), label="truncation")
        return X, Y, [draw(extreme_kernels(d, p), label="kernel")], arguments
    kernels = draw(st.lists(extreme_kernels(d, p), min_size=1, max_size=3), label="kernels")
    low, high = r_range(len(kernels))
    arguments["r"] = draw(st.one_of(st.sampled_from([low, high, 1.0]), st.floats(low, high)), label="r")
    arguments["all_zero"] = draw(st.sampled_from(["keep", "literal"]), label="all_zero")
    return X, Y, kernels, arguments


def runs(algorithm, X, Y, kernels, arguments):
    """(ovk_ref's record, ovk_fast's record)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", divergence.DivergenceWarning)
        if algorithm == "onorma":
            return ovk_ref.onorma(X, Y, kernels[0], **arguments), ovk_fast.onorma(X, Y, kernels[0], **arguments)
        return ovk_ref.monorma(X, Y, kernels, **arguments), ovk_fast.monorma(X, Y, kernels, **arguments)


# --- the comparison -------------------------------------------------------------------------------------------------

def underflow_floor(reference, X, Y, kernels, arguments) -> float:
    """An absolute error by which two float64 orders of a round can differ through underflow: an operation whose
    result falls below the smallest normal number loses up to half a subnormal step (UNDERFLOW_ATOL eps / 2)
    absolutely, which the later factors of the round multiply by at most ovk_fast's bound on every number of a
    round (``ovk_fast.literal_range``: from the kernel's intermediates, whose magnitudes the records do not show:
    ``s = <x, x>^3 = 1e180`` times ``a^T B a = 1e-349``), and eta; once per operation. A bound too small would make
    this check stricter, not looser."""
    n, d = reference.new_coefficients.shape
    bound = literal_range.LiteralBound(kernels, X, Y, arguments["eta"], arguments.get("divergence_bound"))
    with np.errstate(over="ignore", invalid="ignore"):
        coefficient = magnitude(reference.new_coefficients)
        largest = bound.kernels_bound[-1] * max(1.0, n * d * coefficient) * max(1.0, d * coefficient)
        floor = tolerances.UNDERFLOW_ATOL * n * d * (X.shape[1] + 2 * d) * largest * max(1.0, arguments["eta"])
    return floor if np.isfinite(floor) else np.inf


def assert_same_records(reference, fast, X, Y, kernels, arguments):
    """Every float field within CONFORMANCE_RTOL of its scale (the larger of max|reference| and the scale of the terms
    it sums, ``term_scales``), plus the underflow floor; NaN where the reference has NaN; counts exactly."""
    with np.errstate(over="ignore", invalid="ignore"):
        scales = term_scales(X, Y, kernels, reference, arguments["eta"])
    floor = underflow_floor(reference, X, Y, kernels, arguments)
    for name, expected in reference.to_dict().items():
        actual = getattr(fast, name)
        if expected.dtype.kind == "i":
            assert np.array_equal(actual, expected), name
            continue
        np.testing.assert_array_equal(np.isnan(actual), np.isnan(expected), err_msg=name)
        known = ~np.isnan(expected)
        with np.errstate(over="ignore", invalid="ignore"):
            scale = max(float(np.max(np.abs(expected[known]), initial=0.0)), scales[name])
            error = float(np.max(np.abs(actual[known] - expected[known]), initial=0.0))
        assert error <= conform_tolerance.CONFORMANCE_RTOL * scale + floor, \
            f"{name}: error {error:.3g} at scale {scale:.3g} (underflow floor {floor:.3g})"


def first_tie(reference, X, Y, kernels, arguments) -> int | None:
    """The first round (1-based) at which the reference decides on a number that float64 does not resolve, or None:
    a MONORMA gamma below GAMMA_CANCELLATION of the size of its terms (its sign and size, which steer the weights,
    spec 6.3, are then the last digits of terms that cancel: 0 exactly in one order, 1e-104 in another, and with
    r = 0.05 that makes the kernel's weight 1 or 0), or, with a divergence bound, a prediction, new coefficient or
    norm whose distance to the bound is within CONFORMANCE_RTOL of the size of its terms. Either engine's decision
    there is right: two float64 orders of one sum round differently, and ovk_fast does not reproduce ovk_ref's
    rounding (only its range: ``ovk_fast.literal_range``). Term sizes as ``term_scales``, round by round."""
    n = len(reference.new_coefficients)
    m, bound = len(kernels), arguments.get("divergence_bound")
    with np.errstate(over="ignore", invalid="ignore"):
        k = max(_scaled_norm(ovk_ref.as_kernel(kernel)(x, x), ord=2) for kernel in kernels for x in X)
        new = np.array([_scaled_norm(row) for row in reference.new_coefficients])
        before = np.concatenate([[0.0], np.cumsum(new)[:-1]])          # sum of |alpha_i|, i < t: bounds f_{t-1}'s terms
        eta_t = arguments["eta"] / np.sqrt(np.arange(1, n + 1))
        predictions = m * k * before
        coefficients = eta_t * (predictions + np.array([_scaled_norm(y) for y in Y]) + 1)
        norms = reference.rkhs_norm2[:, None] if hasattr(reference, "rkhs_norm2") else reference.gamma
        previous = np.vstack([np.zeros((1, norms.shape[1])), np.abs(norms[:-1])])
        norm_terms = previous + (k * new * new + 2 * k * before * new)[:, None]
        if hasattr(reference, "rkhs_norm2") and arguments.get("truncation") is not None:
            norm_terms = norm_terms + (3 * k * (before + new) ** 2)[:, None]     # downdates (spec 6.5)
        ties = np.zeros(n, dtype=bool)
        if hasattr(reference, "gamma"):
            ties |= np.any((norm_terms > 0) & (np.abs(norms) < tolerances.GAMMA_CANCELLATION * norm_terms), axis=1)
        if bound is not None:
            rtol = conform_tolerance.CONFORMANCE_RTOL
            ties |= np.abs(np.max(np.abs(reference.predictions), axis=1) - bound) <= rtol * predictions
            ties |= np.abs(np.max(np.abs(reference.new_coefficients), axis=1) - bound) <= rtol * coefficients
            ties |= np.any(np.abs(np.abs(norms) - bound * bound) <= rtol * norm_terms, axis=1)
    return int(np.argmax(ties)) + 1 if ties.any() else None


def assert_engines_agree(algorithm, X, Y, kernels, arguments):
    """The same ``diverged_at`` (before the reference's first tie, if any: ``first_tie``), and where neither run
    diverges nor ties, with a smooth loss, the same records."""
    reference, fast = runs(algorithm, X, Y, kernels, arguments)
    tie = first_tie(reference, X, Y, kernels, arguments)
    if tie is None or reference.diverged_at is not None and reference.diverged_at < tie:
        assert fast.diverged_at == reference.diverged_at
    else:
        assert fast.diverged_at is None or fast.diverged_at >= tie, f"ovk_fast diverges before the tie at round {tie}"
    loss = arguments["loss"]
    if reference.diverged_at is None and tie is None and (loss if isinstance(loss, str) else loss["type"]) in SMOOTH:
        assert_same_records(reference, fast, X, Y, kernels, arguments)


@given(data=st.data())
def test_onorma_diverges_where_the_reference_does_at_every_scale(data):
    X, Y, kernels, arguments = data.draw(extreme_runs("onorma"), label="run")
    with _engine(data.draw(engine_settings(), label="engine")):
        assert_engines_agree("onorma", X, Y, kernels, arguments)


@given(data=st.data())
def test_monorma_diverges_where_the_reference_does_at_every_scale(data):
    X, Y, kernels, arguments = data.draw(extreme_runs("monorma"), label="run")
    with _engine(data.draw(engine_settings(), label="engine")), \
            mock.patch.object(compiled_module, "AVAILABLE", data.draw(st.sampled_from(ROUND_LOOPS), label="compiled")):
        assert_engines_agree("monorma", X, Y, kernels, arguments)


# --- the disagreements found, pinned --------------------------------------------------------------------------------

def _separable(scalar, b):
    return ovk_ref.Separable(scalar, [[b]])


_STEP = {"lam": 0.1, "eta": 0.5}
_SHRINK_TO_EPS = {"lam": 1.0, "eta": 1 - 2.0 ** -52}          # c_1 = 1 - eta lam = 2^-52
_RNG = np.random.default_rng(0)
_NORMAL_X, _NORMAL_Y = _RNG.standard_normal((40, 2)), _RNG.standard_normal((40, 1))

#: name -> (algorithm, X, Y, kernels, arguments, the reference's diverged_at): every instance on which ovk_fast (at
#: b204edf..5f273a6) reported another round than ovk_ref, and why; d = 1 and eta_1 = 0.5 unless said otherwise
PINNED = {
    # ovk_ref: K(x, x) = 0 B = 0, ||f_1||^2 = 0; ovk_fast: 0 (a B a) = 0 * (2.5e19 * 1e300 = inf) = NaN at round 1
    "constant 0 times a huge B": ("onorma", [[0.0]], [[1e10]], [_separable(ovk_ref.Constant(0.0), 1e300)], _STEP, None),
    # a = 5e199, <x, x> = 1e-200: ovk_ref's (K a) a = 0.5 a = 2.5e199; ovk_fast's <x, x> (a a) = 1e-200 * inf
    "a tiny kernel value times a coefficient whose square overflows": (
        "onorma", [[1e-100]], [[1e200]], [ovk_ref.LinearQuadratic(1.0, 1)], _STEP, None),
    # alpha_1 = c_1 new_1 = 2^-52 * 1e300 is finite; ovk_fast's unscaled beta_1 = new_1 / c_1 overflows: NaN at round 2
    "an unscaled coefficient overflows (ONORMA)": (
        "onorma", [[0.0], [0.0]], [[1e300], [0.0]], [_separable(ovk_ref.Gaussian(1.0), 1e-300)], _SHRINK_TO_EPS, None),
    "an unscaled coefficient overflows (MONORMA)": (
        "monorma", [[0.0], [0.0]], [[1e300], [0.0]], [_separable(ovk_ref.Gaussian(1.0), 1e-300)],
        {**_SHRINK_TO_EPS, "r": 1.0}, None),
    # ovk_ref's s B overflows (s = (1e80)^3, B = 1e200) although ||f_1||^2 = s B a^2 = 2.5e239 is finite: the literal
    # reference diverges at round 1 (spec: ovk_ref.divergence), where ovk_fast's s (a B a) did not
    "ovk_ref's polynomial value times B overflows": (
        "onorma", [[1e40]], [[1e-100]], [_separable(ovk_ref.Polynomial(3, 0.0), 1e200)], _STEP, 1),
    "ovk_ref's linear value times B overflows": (
        "onorma", [[1e120]], [[1e-100]], [_separable(ovk_ref.Linear(), 1e100)], _STEP, 1),
    "ovk_ref's constant times B overflows": (
        "onorma", [[1.0]], [[1e-100]], [_separable(ovk_ref.Constant(1e200), 1e200)], _STEP, 1),
    # target 0, so alpha_1 = 0 and ||f_1||^2 = 0; ovk_ref's K(x, x) = s B = 1e246 * 1e100 = inf, times 0 is NaN: the
    # literal reference diverges at round 1 (the underflow check does not see it: every coefficient is 0)
    "ovk_ref's kernel value overflows times a zero coefficient": (
        "onorma", [[1e41]], [[0.0]], [_separable(ovk_ref.Polynomial(3, 0.0), 1e100)], _STEP, 1),
    # ovk_ref: w (s B) = 1e-300 (1e120 * 1e200 = inf); ovk_fast: s (w B) = 1e120 * 1e-100
    "ovk_ref's weighted term overflows before its weight": (
        "onorma", [[1e60]], [[1.0]], [ovk_ref.WeightedSum([(1e-300, _separable(ovk_ref.Linear(), 1e200))])], _STEP, 1),
    # eta lam = 1 - 3e-16: the block solve's eta_1 / scale_1 = 1e293 / 3e-16 overflows, and times the target 0 is NaN in
    # the unscaled coefficient beta_1, where alpha_1 = 0 (found by Hypothesis in the thorough profile)
    "a step over a tiny scale times a zero target": (
        "onorma", [[0.0], [0.0]], [[0.0], [0.0]], [_separable(ovk_ref.Gaussian(1.0), 1.0)],
        {"lam": 1e-293, "eta": 9.999999999999997e+292}, None),
    # f_1(x_2) = w <x_2, x_1> alpha_1: ovk_ref's (w s) alpha = 1e162 * 5e-243; ovk_fast's (s alpha) w underflows to 0, and
    # the run that grows by 1e162 a round from there (overflowing at round 3) stayed 0 (huber with a huge delta is the
    # squared loss on the round-by-round path)
    "a product underflows before a weight of 1e286 (ONORMA)": (
        "onorma", [[1e-62]] * 6, [[1e-242]] + [[0.0]] * 5,
        [ovk_ref.WeightedSum([(1e286, _separable(ovk_ref.Linear(), 1.0))])],
        {**_STEP, "loss": {"type": "huber", "delta": 1e300}}, 3),
    "a product underflows before a weight of 1e286 (MONORMA)": (
        "monorma", [[1e-62]] * 6, [[1e-242]] + [[0.0]] * 5,
        [ovk_ref.WeightedSum([(1e286, _separable(ovk_ref.Linear(), 1.0))])], {**_STEP, "r": 1.0}, 3),
    # f_1(x_2) = (c B) alpha_1 = 1.3e131 * 5e-242 > divergence_bound; ovk_fast's (c alpha_1) B underflowed to 0 < bound
    "a product underflows below the divergence bound": (
        "monorma", [[1.0], [1.0]], [[1e32], [1e32]], [_separable(ovk_ref.Constant(1e-130), 1e261)],
        {"lam": 1e273, "eta": 5e-274, "r": 1.0, "divergence_bound": 1e-118}, 2),
    # the report (polynomial degree >= 100, offset 1, standard normal inputs): ovk_ref 8 and 4; ovk_fast agrees
    "polynomial degree 100, offset 1": (
        "onorma", _NORMAL_X, _NORMAL_Y, [_separable(ovk_ref.Polynomial(100, 1.0), 1.0)], _STEP, 8),
    "polynomial degree 400, offset 1": (
        "onorma", _NORMAL_X, _NORMAL_Y, [_separable(ovk_ref.Polynomial(400, 1.0), 1.0)], _STEP, 4),
}


def check_pinned(name):
    algorithm, X, Y, kernels, arguments, reference_round = PINNED[name]
    X, Y, arguments = np.asarray(X, dtype=float), np.asarray(Y, dtype=float), {"loss": "squared", **arguments}
    reference, _ = runs(algorithm, X, Y, kernels, arguments)
    assert reference.diverged_at == reference_round
    assert first_tie(reference, X, Y, kernels, arguments) is None
    assert_engines_agree(algorithm, X, Y, kernels, arguments)


@pytest.mark.parametrize("compiled", ROUND_LOOPS, ids=lambda compiled: "compiled" if compiled else "numpy")
@pytest.mark.parametrize("name", list(PINNED))
def test_a_disagreement_found_is_gone(name, compiled):
    with mock.patch.object(compiled_module, "AVAILABLE", compiled):
        check_pinned(name)


# --- the faults each fix guards against, planted back ---------------------------------------------------------------

@contextmanager
def _patched(target, name, value):
    with mock.patch.object(target, name, value):
        yield


def _no_rounds(self, *arguments):
    return np.zeros(np.shape(arguments[0]), dtype=bool)


@contextmanager
def _beta_unchecked():
    """``finite_rounds`` and ``magnitude`` of the unscaled coefficients planted to see every number finite."""
    with ExitStack() as stack:
        for name in ("onorma", "monorma"):
            module = importlib.import_module(f"ovk_fast.{name}")
            stack.enter_context(mock.patch.object(module, "finite_rounds", lambda values: np.ones(len(values), bool)))
            stack.enter_context(mock.patch.object(module, "magnitude", lambda values: np.nan_to_num(magnitude(values))))
        yield


def _scalar_bound_without(kind):
    """``kind``'s declared ``intermediate_bound`` planted as 1 (that family's values forgotten)."""
    return _patched(kind, "intermediate_bound", lambda self, reach, p: np.ones_like(reach))


def _weights_folded_into_B():
    """A weighted sum bounded as ovk_fast multiplies it, ``s (w B)``, instead of ovk_ref's ``w (s B)``."""
    original = literal_range.LiteralBound.kernel_bound

    def planted(self, kernel, rounds):
        if isinstance(kernel, ovk_ref.WeightedSum):
            return sum(original(self, ovk_ref.Separable(term.scalar, weight * term.B), rounds)
                       for weight, term in kernel.terms)
        return original(self, kernel, rounds)

    return _patched(literal_range.LiteralBound, "kernel_bound", planted)


def _bounds_without_the_divergence_bound(self, kernels, X, Y, eta, divergence_bound,
                                        original=literal_range.LiteralBound.__init__):
    original(self, kernels, X, Y, eta, None)


_UNDERFLOWS = [name for name in PINNED if "underflows" in name]
_BEFORE = [name for name in PINNED if not name.startswith("polynomial degree")]
#: found on the numpy block solve (``eta_t / scale_t`` overflows); the compiled rounds divide after the product
_NUMPY_SOLVE = ["a step over a tiny scale times a zero target"]

#: planted fault -> (its context manager, the pinned cases it must fail)
PLANTED = {
    "ovk_fast before: no literal rounds": (without_literal_rounds, _BEFORE),
    "ovk_fast's compiled kernels without literal rounds": (
        lambda: _compiled_engine(without_literal_rounds), [name for name in _BEFORE if name not in _NUMPY_SOLVE]),
    # the underflow check also fails where the bound is infinite and a coefficient is not 0
    "no overflow check": (lambda: _patched(literal_range.LiteralBound, "overflow", _no_rounds),
                          ["ovk_ref's kernel value overflows times a zero coefficient"]),
    "the unscaled coefficients not checked": (_beta_unchecked, ["a step over a tiny scale times a zero target"]),
    "no underflow check": (lambda: _patched(literal_range.LiteralBound, "underflow", _no_rounds), _UNDERFLOWS),
    "the divergence bound left out of the resolution": (
        lambda: _patched(literal_range.LiteralBound, "__init__", _bounds_without_the_divergence_bound),
        ["a product underflows below the divergence bound"]),
    "polynomial values bounded by 1": (lambda: _scalar_bound_without(ovk_ref.Polynomial),
                                       ["ovk_ref's polynomial value times B overflows"]),
    "linear values bounded by 1": (lambda: _scalar_bound_without(ovk_ref.Linear), ["ovk_ref's linear value times B overflows"]),
    "constant values bounded by 1": (lambda: _scalar_bound_without(ovk_ref.Constant), ["ovk_ref's constant times B overflows"]),
    "a weighted sum's weight folded into B": (_weights_folded_into_B, ["ovk_ref's weighted term overflows before its weight"]),
}


@contextmanager
def _compiled_engine(planted, compiled=True):
    with mock.patch.object(compiled_module, "AVAILABLE", compiled), planted():
        yield


@pytest.mark.parametrize("plant", list(PLANTED))
def test_each_fix_planted_away_fails_its_pinned_cases(plant):
    """The fixes were made on the numpy engine: planted away there (the compiled kernels where a plant says so),
    each fails its pinned cases."""
    planted, names = PLANTED[plant]
    for name in names:
        with _compiled_engine(planted, compiled=False) if "compiled" not in plant else planted(), \
                pytest.raises(AssertionError):
            check_pinned(name)


def _comparisons_passing_nan(self, bound, norms):
    """``overflow`` written with comparisons that NaN passes (``bound >= LIMIT`` is False for NaN)."""
    return (bound >= literal_range.LIMIT) | (4.0 * norms >= literal_range.LIMIT)


def test_a_non_finite_number_of_ovk_fast_is_run_literally():
    """The safety net: a fault of ovk_fast's own that makes a number non-finite (planted: the Gaussian exponents'
    expansion at inputs of norm 1e155, where it overflows to NaN) gives the reference's record, ovk_ref's learner
    running those rounds (the NaN makes the round's bound NaN, which fails the comparisons), on both engines; with
    the comparisons planted to let NaN pass, the numpy engine's record is the fault's NaN (the compiled rounds' NaN
    unscaled coefficients are caught before the bound: ``finite_rounds``)."""
    X, Y = _stream()
    X = X * 1e155
    kernels = [ovk_ref.gaussian_separable(1.0, 2)]
    distances, stored_rows = (importlib.import_module(f"ovk_fast.{name}") for name in ("distances", "stored_rows"))
    with mock.patch.object(stored_rows, "direct_squared_distances", _expansion_everywhere), \
            mock.patch.object(distances, "direct_squared_distances", _expansion_everywhere):
        for compiled in ROUND_LOOPS:
            with mock.patch.object(compiled_module, "AVAILABLE", compiled):
                assert_engines_agree("onorma", X, Y, kernels, {"loss": "squared", **_STEP})
        with mock.patch.object(compiled_module, "AVAILABLE", False), \
                _patched(literal_range.LiteralBound, "overflow", _comparisons_passing_nan), \
                _patched(literal_range.LiteralBound, "underflow", _no_rounds), pytest.raises(AssertionError):
            assert_engines_agree("onorma", X, Y, kernels, {"loss": "squared", **_STEP})


@pytest.mark.parametrize("truncation", [None, 3], ids=["next block started on the pool", "tiles on the pool"])
def test_floating_point_errors_on_ovk_fasts_threads_are_the_runs_own(truncation):
    """numpy's error handling is per thread: a run's tiles on the pool's threads (several tiles of 2 points: the
    next block's, started while a block runs, and with truncation a block's own, ``map_in_order``) ignore overflow
    as the run does, and the run says its divergence once (a DivergenceWarning); with the threads planted back to
    numpy's default, an overflow in a tile is a RuntimeWarning (an error under the test suite's filter). The next
    block's tiles are shared between the pool and the run's thread: each run waits until the pool has taken one."""
    threads = importlib.import_module("ovk_fast.threads")
    X, Y = np.full((8, 1), 1e78), np.ones((8, 1))
    kernel = _separable(ovk_ref.Polynomial(2, 1.0), 1.0)

    def started_on_the_pool(function, items):
        items, taken = list(items), threading.Event()

        def item_run(item):
            if threading.current_thread() is not threading.main_thread():
                taken.set()
            return function(item)

        shared = threads.map_in_background(item_run, items)
        assert not items or taken.wait(timeout=60), "the pool took none of the next block's tiles"
        return shared

    def run():
        with warnings.catch_warnings(record=True) as caught, _engine((2, 0.9, 2)), \
                mock.patch.object(threads, "THREADS", 2), mock.patch.object(look_ahead_module, "map_in_background",
                                                                            started_on_the_pool):
            warnings.simplefilter("always")
            ovk_fast.onorma(X, Y, kernel, truncation=truncation, **_STEP)
        return [type(warning.message) for warning in caught]

    assert run() == [divergence.DivergenceWarning]
    with mock.patch.object(threads, "_under_errstate", lambda function: function):
        assert RuntimeWarning in run()


@given(data=st.data())
def test_a_handover_to_ovk_refs_learner_at_any_round_continues_the_run(data):
    """Wherever ovk_fast hands rounds to ovk_ref's learner (here at drawn rounds, forced), the learner starts from the
    state ovk_fast had (coefficients folded out of the block's running scale, the ring's support after drops, the
    norm, MONORMA's weights and gammas) and ovk_fast continues from the learner's: the records are the reference's,
    on ordinary streams, with truncation, several blocks and tiles."""
    algorithm = data.draw(st.sampled_from(["onorma", "monorma"]), label="algorithm")
    d, p = data.draw(strategies.dimensions, label="d"), data.draw(strategies.dimensions, label="p")
    loss = data.draw(st.sampled_from(SMOOTH[:2]), label="loss")
    X, Y = data.draw(strategies.streams(p, d, loss=loss, max_n=12), label="stream")
    lam, eta = data.draw(strategies.step_parameters(), label="lam, eta")
    arguments = {"loss": loss, "lam": lam, "eta": eta}
    if algorithm == "onorma":
        kernels = [data.draw(strategies.kernels(d, p), label="kernel")]
        arguments["truncation"] = data.draw(st.one_of(st.none(), st.integers(1, len(X) + 1)), label="truncation")
    else:
        kernels = [ovk_ref.gaussian_separable(mu, d) for mu in data.draw(st.lists(st.floats(0.1, 10.0), min_size=1,
                                                                                    max_size=3), label="mu")]
        arguments["r"] = data.draw(st.floats(0.25, 4.0), label="r")
    forced = data.draw(st.sets(st.integers(0, len(X) - 1), min_size=1), label="handed over")

    def unsafe(self, rounds, *arguments):
        return np.isin(rounds, list(forced)) if np.ndim(rounds) else True

    with _engine(data.draw(engine_settings(), label="engine")), \
            mock.patch.object(literal_range.LiteralBound, "unsafe", unsafe):
        reference, fast = runs(algorithm, X, Y, kernels, arguments)
    assert reference.diverged_at is None
    assert_same_record(fast, reference, term_scales(X, Y, kernels, reference, eta))


@pytest.mark.parametrize("algorithm, field", [("onorma", "alphas"), ("onorma", "norm2"), ("monorma", "alphas"),
                                              ("monorma", "weights"), ("monorma", "gamma")])
def test_a_handover_planted_one_shrink_off_is_caught(algorithm, field):
    """The planted fault: one field of the state handed to ovk_ref's learner off by a shrink factor (0.99, what a
    scale taken one round late does); the handover is taken (rounds 5 and 13 forced, blocks of 8, a window of 4)
    and the records then differ from the reference's."""
    X, Y = linear_related_tasks(20, p=2, d=2, seed=3)
    kernels = [ovk_ref.gaussian_separable(0.5, 2), ovk_ref.gaussian_separable(2.0, 2)]
    arguments = {"loss": "squared", "lam": 0.1, "eta": 0.5}
    arguments.update(truncation=4) if algorithm == "onorma" else arguments.update(r=1.5)
    kernels = kernels[:1] if algorithm == "onorma" else kernels
    handed = []

    def unsafe(self, rounds, *arguments):
        return np.isin(rounds, [5, 13]) if np.ndim(rounds) else True

    def off(checked, state, *arguments, original=literal_rounds.run_literally):
        handed.append(state)
        value = state[field]
        state = {**state, field: tuple(0.99 * a for a in value) if isinstance(value, tuple) else 0.99 * value}
        return original(checked, state, *arguments)

    module = importlib.import_module(f"ovk_fast.{algorithm}")
    with _engine((8, onorma_module.RESCALE_BELOW, 3)), mock.patch.object(literal_range.LiteralBound, "unsafe", unsafe):
        reference, fast = runs(algorithm, X, Y, kernels, arguments)
        assert_same_record(fast, reference, term_scales(X, Y, kernels, reference, 0.5))
        with mock.patch.object(module, "run_literally", off), pytest.raises(AssertionError):
            _, planted = runs(algorithm, X, Y, kernels, arguments)
            assert_same_record(planted, reference, term_scales(X, Y, kernels, reference, 0.5))
    assert len(handed) == 2
