"""ovk_fast and ovk_ref say the same thing about divergence (``diverged_at``, spec: ``ovk_ref.divergence``) on the
stored golden vectors and at every input scale the validation accepts (finite float64 inputs, any mu > 0), and
where neither diverges their records agree. ovk_fast's own rounds do it: ovk_ref's learner, which ovk_fast runs
from a round whose numbers could reach float64's limits (``ovk_fast.literal_rounds``), runs no earlier than the
divergent round on these streams (``literal_starts``).

ovk_fast computes Gaussian exponents by an expansion ``|a|^2 + |b|^2 - 2 a.b`` that overflows for inputs of norm
beyond ~1e150 (NaN predictions, ``diverged_at = 1``, where ovk_ref's ``x - z`` stays finite) and loses the kernel
values of nearby points far from the centre; ``ovk_fast.distances`` takes the direct sum there."""
import importlib
import warnings
from contextlib import ExitStack, contextmanager
from unittest import mock

import numpy as np
import pytest
from test_ovk_fast_properties import _engine, assert_same_record, plant_fault, term_scales

import ovk_fast
import ovk_ref
from ovk_conform import load_cases
from ovk_conform.regimes import REGIMES
from ovk_ref import divergence

LARGEST = np.finfo(float).max
onorma_module = importlib.import_module("ovk_fast.onorma")
divergence_watch_module = importlib.import_module("ovk_fast.divergence_watch")


def _stream(n=10, p=3, d=2, seed=0):
    rng = np.random.default_rng(seed)
    return rng.uniform(-1.0, 1.0, (n, p)), rng.standard_normal((n, d))


#: X -> the stream's inputs at the scales the validation accepts: scaled from 1e-300 to the largest finite
#: float64, offset far from the origin, and nearby points (a repeated input) far apart from each other
TRANSFORMS = {
    "scaled 1e-300": lambda X: X * 1e-300,
    "scaled 1e100": lambda X: X * 1e100,
    "scaled 1e155": lambda X: X * 1e155,
    "scaled 1e200": lambda X: X * 1e200,
    "scaled to the float64 limit": lambda X: X / np.max(np.abs(X)) * LARGEST,
    "offset 1e8": lambda X: X + 1e8,
    "offset 1e155": lambda X: X + 1e155,
    "offset 1e300": lambda X: X * 1e290 + 1e300,
    "repeats spread 1e9": lambda X: np.repeat(X[:5] * 1e9, 2, axis=0),
    "repeated stream spread 1e9": lambda X: np.tile(X[:5] * 1e9, (2, 1)),
    # each point met again a block later 0.7 away: a kernel value e^-1.5 whose exponent the stream-centred expansion
    # loses to the cancellation of |a|^2 ~ 1e18 (an exact repeat can come out 0 exactly, its two operands rounded alike)
    "near repeats spread 1e9": lambda X: np.vstack([X[:5] * 1e9, X[:5] * 1e9 + np.array([0.7, 0.0, 0.0])]),
}

KERNELS = {
    "gaussian mu=1": [ovk_ref.gaussian_separable(1.0, 2)],
    "gaussian mu=1e-300": [ovk_ref.gaussian_separable(1e-300, 2)],
    "gaussian mu=5e-324": [ovk_ref.gaussian_separable(5e-324, 2)],
    "gaussian mu=1e300": [ovk_ref.gaussian_separable(1e300, 2)],
    "gaussian sum": [ovk_ref.WeightedSum([(0.5, ovk_ref.gaussian_separable(1.0, 2)),
                                          (0.5, ovk_ref.gaussian_separable(1e6, 2))])],
    "linear": [ovk_ref.Separable(ovk_ref.Linear(), np.eye(2))],
    "three gaussians (MONORMA)": [ovk_ref.gaussian_separable(mu, 2) for mu in (1e-2, 1.0, 1e2)],
}


def _runs(X, Y, kernels):
    """(ovk_ref's record, ovk_fast's) of ONORMA with one kernel, MONORMA with several."""
    arguments = {"lam": 0.1, "eta": 0.5}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", divergence.DivergenceWarning)    # diverged_at says it
        if len(kernels) == 1:
            return ovk_ref.onorma(X, Y, kernels[0], **arguments), ovk_fast.onorma(X, Y, kernels[0], **arguments)
        return ovk_ref.monorma(X, Y, kernels, r=1.0, **arguments), ovk_fast.monorma(X, Y, kernels, r=1.0, **arguments)


@contextmanager
def literal_starts():
    """The rounds (0-based) from which ovk_fast handed a block to ovk_ref's learner (``ovk_fast.literal_rounds``),
    collected in a list while the context is open."""
    starts = []
    with ExitStack() as stack:
        for name in ("onorma", "monorma"):
            module = importlib.import_module(f"ovk_fast.{name}")

            def spy(checked, state, X, Y, start, stop, record, original=module.run_literally):
                starts.append(start)
                return original(checked, state, X, Y, start, stop, record)

            stack.enter_context(mock.patch.object(module, "run_literally", spy))
        yield starts


def assert_same_divergence_by_its_own_rounds(reference, fast, starts):
    """The same ``diverged_at``, and ovk_fast's own rounds finite wherever the reference's are: its literal rounds
    start at the divergent round or later."""
    assert fast.diverged_at == reference.diverged_at
    assert all(reference.diverged_at is not None and start + 1 >= reference.diverged_at for start in starts), \
        f"ovk_ref's learner ran from round {min(starts) + 1}; the reference diverges at {reference.diverged_at}"


def assert_engines_agree(X, Y, kernels):
    with literal_starts() as starts:
        reference, fast = _runs(X, Y, kernels)
    assert_same_divergence_by_its_own_rounds(reference, fast, starts)
    if reference.diverged_at is None:
        assert_same_record(fast, reference, term_scales(X, Y, kernels, reference, 0.5))


@pytest.mark.parametrize("kernel_name", list(KERNELS))
@pytest.mark.parametrize("transform", list(TRANSFORMS))
def test_both_engines_agree_on_divergence_at_every_input_scale(transform, kernel_name):
    X, Y = _stream()
    X = TRANSFORMS[transform](X)
    assert_engines_agree(X, Y[:len(X)], KERNELS[kernel_name])


def _expansion_everywhere(X, Z, out, scratch):
    """The planted fault: the direct sum replaced by the centred expansion (ovk_fast before the direct path)."""
    centre = np.mean(X, axis=0)
    A, B = X - centre, Z - centre
    left = np.hstack([A, np.sum(A * A, axis=1)[:, None], np.ones((len(A), 1))])
    right = np.hstack([-2 * B, np.ones((len(B), 1)), np.sum(B * B, axis=1)[:, None]])
    return np.maximum(np.matmul(left, right.T, out=out), 0.0, out=out)


@pytest.mark.parametrize("transform", ["scaled 1e155", "repeats spread 1e9"])
def test_a_direct_sum_planted_as_the_expansion_is_caught(transform):
    X, Y = _stream()
    X = TRANSFORMS[transform](X)
    distances, stored_rows = (importlib.import_module(f"ovk_fast.{name}") for name in ("distances", "stored_rows"))
    with mock.patch.object(stored_rows, "direct_squared_distances", _expansion_everywhere), \
            mock.patch.object(distances, "direct_squared_distances", _expansion_everywhere), \
            np.errstate(over="ignore", invalid="ignore"), pytest.raises(AssertionError):
        assert_engines_agree(X, Y[:len(X)], KERNELS["gaussian mu=1"])


def _stored_cases():
    return load_cases(("onorma", "monorma"), regimes=tuple(REGIMES))


@pytest.mark.parametrize("case", _stored_cases(), ids=lambda case: case.name)
def test_on_the_stored_vectors_ovk_fast_diverges_where_the_reference_does(case):
    """The stored records are the reference's (at 50 digits); its first divergent round by the rule of
    ``ovk_ref.divergence`` is the round ovk_fast must report (None: no divergence)."""
    names = ("predictions", "new_coefficients")
    norms = ("rkhs_norm2",) if case.algorithm == "onorma" else ("gamma",)
    found = divergence.first_divergent({name: case.expected[name] for name in names if name in case.expected},
                                       {name: case.expected[name] for name in norms if name in case.expected},
                                       case.arguments.get("divergence_bound"))
    expected = None if found is None else int(case.rounds[found[0]] if case.rounds is not None else found[0] + 1)
    engine = ovk_fast.onorma if case.algorithm == "onorma" else ovk_fast.monorma
    assert engine(case.X, case.Y, **case.call_arguments()).diverged_at == expected


def test_stream_operands_planted_without_their_accuracy_check_are_caught():
    """The planted fault: the stream-centred expansion used for every block (of 2 rounds here, so that blocks see
    stored points), however spread its queries."""
    X, Y = _stream()
    X = TRANSFORMS["near repeats spread 1e9"](X)      # x_{i+5} = x_i + 0.7 e_1: a point meets its neighbour a block later
    distances = importlib.import_module("ovk_fast.distances")
    with _engine((2, 1e-100, 4)), \
            mock.patch.object(distances.StreamOperands, "left", lambda self, start, stop: self._expansion.left[start:stop]), \
            np.errstate(over="ignore", invalid="ignore"), pytest.raises(AssertionError):
        assert_engines_agree(X, Y[:len(X)], KERNELS["gaussian mu=1"])


@pytest.mark.parametrize("block", [7, 256])
@pytest.mark.parametrize("truncation", [3, 40, "theorem2"])
def test_truncated_streams_that_overflow_diverge_at_the_reference_round(truncation, block):
    """eta = 2000 makes the coefficients overflow within a block, while rounds of that block still drop earlier
    terms: the predictions and norm downdates of the rounds before the overflow stay finite (ovk_fast solves and
    downdates a block's rounds at once), so both engines report the same round. The reference runs the stream
    up to 10 rounds past ovk_fast's report (its rounds are those of the whole stream)."""
    rng = np.random.default_rng(0)
    X, Y = rng.random((600, 3)), rng.standard_normal((600, 2))
    kernel = ovk_ref.gaussian_separable(1.0, 2)
    schedule = ovk_ref.theorem2_schedule(5, 0.3) if truncation == "theorem2" else truncation
    with warnings.catch_warnings(), _engine((block, 1e-100, 512)):
        warnings.simplefilter("ignore", divergence.DivergenceWarning)
        fast = ovk_fast.onorma(X, Y, kernel, lam=1e-4, eta=2000.0, truncation=schedule)
        rounds = len(X) if fast.diverged_at is None else fast.diverged_at + 10
        reference = ovk_ref.onorma(X[:rounds], Y[:rounds], kernel, lam=1e-4, eta=2000.0, truncation=schedule)
    assert fast.diverged_at == reference.diverged_at is not None


class _NumpySeeingNoOverflow:
    """numpy, except that ``isfinite`` says every entry is finite: ovk_fast.onorma's overflow guards planted away."""

    def __getattr__(self, name):
        return getattr(np, name)

    @staticmethod
    def isfinite(values):
        return np.ones(np.shape(values), dtype=bool)


@contextmanager
def without_literal_rounds():
    """ovk_fast's own rounds only: no block handed to ovk_ref's learner (which would run a block that overflows
    literally, and so hide a fault of ovk_fast's own overflow handling behind the reference's speed)."""
    with mock.patch.object(importlib.import_module("ovk_fast.onorma")._Run, "_first_unsafe", lambda *a: None), \
            mock.patch.object(importlib.import_module("ovk_fast.monorma"), "_first_unsafe", lambda *a: None):
        yield


def test_the_overflow_guards_planted_away_are_caught():
    with without_literal_rounds():
        test_truncated_streams_that_overflow_diverge_at_the_reference_round(40, 256)     # its own rounds pass
        with mock.patch.object(importlib.import_module("ovk_fast.onorma"), "np", _NumpySeeingNoOverflow()), \
                pytest.raises(AssertionError):
            test_truncated_streams_that_overflow_diverge_at_the_reference_round(40, 256)


def test_an_infinite_norm_under_a_bound_whose_square_overflows_is_divergent_and_a_planted_fast_check_is_caught():
    """The divergence watch's quick look at a block (``DivergenceWatch._within``: the largest magnitude of each field
    against the bound) counts an infinite ``||f||^2`` as divergent even where ``bound^2`` overflows to inf (found by
    ``test_ovk_fast_extremes``' search: lam = 1e-78, eta = 5e77, bound 1e156, the second round's norm inf, ovk_ref's
    round 2); planted, a quick look that compares with the bound only, the round is missed."""
    X, Y = np.array([[1.0], [1.0]]), np.array([[1.0], [0.0]])
    kernel = {"type": "linear_separable", "B": [[1.0]]}
    run = dict(lam=1e-78, eta=5e77, divergence_bound=1e156)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", divergence.DivergenceWarning)
        assert ovk_ref.onorma(X, Y, kernel, **run).diverged_at == 2
        assert ovk_fast.onorma(X, Y, kernel, **run).diverged_at == 2
        planted = plant_fault(divergence_watch_module, 'largest < float("inf") and (limit is None or largest <= limit)',
                              '(largest <= limit if limit is not None else largest < float("inf"))')
        with mock.patch.object(onorma_module, "DivergenceWatch", planted["DivergenceWatch"]):
            assert ovk_fast.onorma(X, Y, kernel, **run).diverged_at is None
