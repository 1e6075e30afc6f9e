"""All Hypothesis strategies of the project, in one module, valid by construction (spec 11 "Generators").

Small sizes (streams of at most a few dozen rounds, d <= 4, p <= 4) so that shrinking gives readable
counterexamples; magnitudes bounded so that float64 round-off stays far below the checked margins.
Compose them: ``kernels(d, p)``, ``streams(p, d, ...)``, ``step_parameters()``, ``losses()``.
The claim checks (proofs_check.claims) draw plain JSON-able instance dicts: ``onorma_instances(regime)`` (a
regime satisfies a claim's hypotheses, or breaks exactly one: ``hyp3_without_lam``), ``monorma_instances()``,
``kernel_point_sets()``, ``loss_points()``; kernels come with their kappa^2 on the box (``kernels_with_kappa2``).
"""
from __future__ import annotations

import fractions
import functools
import itertools
import math

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st

import ovk_ref
from ovk_ref.kernels.scalar import SCALAR_KERNELS
from ovk_ref.losses import LOSSES
from proofs_check import constants

FLOATS = dict(allow_nan=False, allow_infinity=False, allow_subnormal=False)

#: every strategy factory of this module returns the same strategy object for the same arguments: a strategy built
#: anew inside each draw is validated anew, and leaves its closures as cyclic garbage (measured in a thorough search
#: of ``prop1.iii``: 650,000 garbage objects per 64 instances, most of them cells and functions of strategies, and a
#: 0.5-1 s collection each time); the strategies, hence the draws of a seed, are the same
reused = functools.cache


#: smallest non-zero magnitude of a drawn entry, relative to its bound: squares of smaller numbers underflow
#: (1e-180^2 = 0 in float64) and turn identities into noise without adding any mathematics
TINY = 1e-8


# --- array entries: one float choice each -----------------------------------------------------------------------
#
# Hypothesis spends ~14 us on each choice it draws, and more on the span around each draw: an entry is one float
# choice (read as 0 below the TINY floor), not a one_of of 0 and two signed ranges in a sparse array. An array of a
# varying size is a list of its rows (a stream's rounds, a point set's points, a kernel's columns), each row one span,
# so that the shrinker deletes a row whole and the choices that follow still line up with what they drew; a row is
# drawn at the largest width (MAX_DIMENSION) and cut to p or d, so that lowering p or d leaves every row's choices in
# line too. An input coordinate shrinks towards 1 (``_folded``). A draw that must not be all 0 is made non-zero by
# construction (``lifted``), so no test case is thrown away. docs/distributed.md, "Streams as lists of rounds".


def _floored(value: float, floor: float) -> float:
    return value if abs(value) >= floor else 0.0


def _folded(u: float) -> float:
    """An input coordinate in [0, 1] from a choice ``u`` in [-1, 1]: ``1 - u`` for ``u >= +0.0``, ``|u|`` for ``u <= -0.0``.
    The shrinker's first try, ``u = 0``, is the box's vertex 1 (where
    ``||K(x, x)||`` is largest for most kernels: a zeroed round still acts, and a counterexample shrinks to few rounds
    of 1s rather than many rounds of 0s); Hypothesis' favourite choices near 0 of either sign still give inputs at and
    near the box's faces (13% of the coordinates 0, 11% 1, 14% in (0, 1e-3))."""
    return 1.0 - u if math.copysign(1.0, u) > 0 else -u


@reused
@st.composite
def box_rows(draw, width: int) -> list:
    """``width`` coordinates in [0, 1], each one float choice ``u`` in [-1, 1] read by ``_folded`` (then as 0 below TINY)."""
    choice = floats(-1.0, 1.0, **FLOATS)
    return [_floored(_folded(draw(choice)), TINY) for _ in range(width)]


@reused
@st.composite
def entry_rows(draw, width: int, low: float, high: float) -> list:
    """``width`` floats in [low, high], each one float choice, a magnitude below ``TINY * max(|low|, |high|)`` read
    as 0 (shrinks entry by entry towards 0, then towards the simplest floats: 1, -1, ...)."""
    choice, floor = floats(low, high, **FLOATS), TINY * max(abs(low), abs(high))
    return [_floored(draw(choice), floor) for _ in range(width)]


@reused
def entry_arrays(shape, low: float, high: float):
    """Arrays of ``shape`` with entries as ``entry_rows(size, low, high)`` (dense: one choice per entry)."""
    return entry_rows(int(np.prod(shape, dtype=int)), low, high).map(lambda values: np.array(values, dtype=float).reshape(shape))


def lifted(values):
    """``values`` (a list of entries or an array, entries in [-1, 1] or [0, 1]), or a copy with its first entry read as
    1 if every entry is 0: a draw that must not be all 0 is never thrown away, and the simplest non-zero one is a
    vertex of the box, a target of full norm, a kernel's first unit entry (a drawn value is never changed in place:
    Hypothesis keeps it)."""
    if isinstance(values, list):
        return values if any(values) else [1.0, *values[1:]]
    if np.any(values):
        return values
    values = np.array(values, dtype=float)
    values.flat[0] = 1.0
    return values


@reused
def not_all_zero(arrays, *, first_row: bool = False):
    """The arrays of the strategy ``arrays`` that are not all 0 (``first_row``: whose first row is not all 0), by
    Hypothesis' filter, which draws the array again in place, up to three times: for any array strategy. The
    strategies of this module make their draws non-zero by construction instead (``lifted``)."""
    return arrays.filter(_first_row_nonzero if first_row else np.any)


def _first_row_nonzero(array: np.ndarray) -> bool:
    return bool(np.any(array[0]))


def unit_interval_arrays(shape):
    """Arrays with entries in [0, 1] (the paper's input box)."""
    return entry_arrays(shape, 0.0, 1.0)


def bounded_arrays(shape, bound=1.0):
    return entry_arrays(shape, -bound, bound)


integers = reused(st.integers)
floats = reused(st.floats)



#: inputs and outputs have dimension 1 to MAX_DIMENSION
MAX_DIMENSION = 4
dimensions = st.integers(1, MAX_DIMENSION)


@reused
def weights():
    """Non-negative weights: exactly 0, or in [1e-3, 2] (a weight like 1e-242 only makes underflow, not mathematics)."""
    return st.one_of(st.just(0.0), positive_weights())


@reused
def positive_weights():
    return st.floats(1e-3, 2.0, **FLOATS)


@reused
@st.composite
def psd_matrices(draw, d: int):
    """Symmetric PSD ``R R^T / q`` with ``R`` of shape (d, q), entries in [-1, 1] (rank may be < d), not 0: ``R``'s
    q columns drawn as a list (1 to d + 1 columns; the shrinker deletes a column whole)."""
    columns = draw(st.lists(entry_rows(MAX_DIMENSION, -1.0, 1.0), min_size=1, max_size=d + 1))
    R = lifted(np.array(columns, dtype=float)[:, :d].T)
    return R @ R.T / R.shape[1]


@reused
def output_matrices(d: int):
    """The paper's ``J`` (a fresh array each draw, from ``ovk_ref.paper_J`` as bound at the draw: a cached strategy
    never keeps a function a planted fault replaced) or a drawn PSD matrix."""
    return st.one_of(st.just(d).map(lambda size: ovk_ref.paper_J(size)), psd_matrices(d))


def scalar_parameters(family, ranges: dict) -> dict:
    """The strategy of each parameter of a scalar kernel family: its own (``parameter_strategies``), or the one
    ``ranges`` gives for a parameter of that name (a claim that needs, say, bandwidths in log scale)."""
    return {name: ranges.get(name, strategy) for name, strategy in family.parameter_strategies().items()}


def scalar_families(excluding: tuple = ()) -> list:
    """The scalar kernel families of ``ovk_ref.kernels.scalar.SCALAR_KERNELS`` (in their order), but ``excluding``."""
    return [family for family in SCALAR_KERNELS.values() if family not in excluding]


def scalar_kernels(excluding: tuple = (), **ranges):
    """A scalar kernel of every family of ``SCALAR_KERNELS`` (spec 3.1; each family's parameters drawn by its own
    strategies, or by ``ranges`` for the parameters named there), but ``excluding``."""
    return _scalar_kernels(tuple(scalar_families(excluding)), tuple(sorted(ranges.items())))


@reused
def _scalar_kernels(families: tuple, ranges: tuple):
    return st.one_of(*(st.builds(family, **scalar_parameters(family, dict(ranges))) for family in families))


@reused
def lists_of(elements, size: int):
    """Lists of ``size`` draws of ``elements``."""
    return st.lists(elements, min_size=size, max_size=size)


@reused
def separable_kernels(d: int):
    """``k(x, z) B`` with a scalar kernel of any family (``scalar_kernels``)."""
    return st.builds(lambda B, scalar: ovk_ref.Separable(scalar, B), output_matrices(d), scalar_kernels())


@reused
def linear_quadratic_kernels(d: int):
    """The paper's non-separable kernel, ``mu`` over its whole admissible range [0, 1] (spec 3.2)."""
    return st.builds(ovk_ref.LinearQuadratic, mu=st.floats(0.0, 1.0, **FLOATS), d=st.just(d))


@reused
@st.composite
def feature_kernels(draw, d: int, p: int):
    """``A(x) A(z)^T`` (spec 3.3): blocks not symmetric, so it catches transpositions. ``M`` of shape (p + 1, d, q),
    entries in [-1, 1], not 0: its q columns ``M[:, :, j]`` drawn as a list (1 to 4 columns)."""
    columns = draw(st.lists(entry_rows((MAX_DIMENSION + 1) * MAX_DIMENSION, -1.0, 1.0), min_size=1, max_size=4))
    M = np.array(columns, dtype=float).reshape(-1, MAX_DIMENSION + 1, MAX_DIMENSION)[:, :p + 1, :d]
    return ovk_ref.Feature(lifted(np.ascontiguousarray(M.transpose(1, 2, 0))))


@reused
def weighted_terms(d: int):
    """One to three ``(weight, kernel)`` pairs, separable or non-separable kernels."""
    return st.lists(st.tuples(weights(), st.one_of(separable_kernels(d), linear_quadratic_kernels(d))), min_size=1, max_size=3)


@reused
@st.composite
def weighted_sums(draw, d: int, p: int):
    """One to three weighted terms, separable or non-separable kernels, not every weight 0."""
    terms = draw(weighted_terms(d))
    if not any(weight for weight, _ in terms):
        terms[0] = (draw(positive_weights()), terms[0][1])
    return ovk_ref.WeightedSum(terms)


@reused
def kernels(d: int, p: int, *, feature: bool = True, sums: bool = True):
    """Any kernel of spec 3 with output dimension ``d`` on inputs of dimension ``p`` (``sums``: weighted sums too)."""
    options = [separable_kernels(d), linear_quadratic_kernels(d)] + ([weighted_sums(d, p)] if sums else [])
    if feature:
        options.append(feature_kernels(d, p))
    return st.one_of(*options)


@reused
@st.composite
def step_parameters(draw, max_lam: float = 10.0):
    """``(lam, eta)`` with ``lam > 0``, ``eta > 0`` and ``rho = eta lam`` over all of (0, 1)."""
    lam = draw(floats(1e-3, max_lam, **FLOATS))
    rho = draw(floats(1e-3, 0.999, **FLOATS))
    return lam, rho / lam


#: the regression losses of spec 4 (``ovk_ref.losses.LOSSES``), each as its strategy of its name or portable dict
REGRESSION_LOSSES = {name: loss.strategy() for name, loss in LOSSES.items() if not loss.one_hot_targets}
#: the classification losses of spec 4 (one-hot targets, d >= 2), drawn by name
CLASSIFICATION_LOSSES = tuple(name for name, loss in LOSSES.items() if loss.one_hot_targets)
#: the losses with a Lipschitz constant (Hyp. 2): every one but the squared loss
LIPSCHITZ_LOSSES = tuple(name for name in (*REGRESSION_LOSSES, *CLASSIFICATION_LOSSES) if ovk_ref.as_loss(name).lipschitz is not None)
#: the losses with a continuous gradient (``smooth_losses``): for trajectory identities compared in float64 (at a kink of a non-smooth
#: loss two computations of the same prediction may fall on different sides and pick different subgradients, an
#: O(1) difference that is no error)
SMOOTH_LOSSES = ("squared", "huber", "softmax")


@reused
def regression_losses():
    return st.one_of(*REGRESSION_LOSSES.values())


def losses(d: int, among: tuple | None = None):
    """Names/dicts of the losses of spec 4 usable with output dimension ``d`` (classification needs d >= 2); with
    ``among`` (a tuple of names), only the losses of those names, drawn directly (not by rejecting the others)."""
    if among is not None and not (isinstance(among, tuple) and all(isinstance(name, str) for name in among)):
        raise TypeError(f"among must be a tuple of loss names, got {among!r}")
    return _losses(d, among)


@reused
def _losses(d: int, among: tuple | None):
    if among is None:
        return regression_losses() if d < 2 else st.one_of(regression_losses(), st.sampled_from(CLASSIFICATION_LOSSES))
    unknown = set(among) - set(REGRESSION_LOSSES) - set(CLASSIFICATION_LOSSES)
    if unknown:
        raise ValueError(f"among must name losses of spec 4 ({sorted(REGRESSION_LOSSES) + list(CLASSIFICATION_LOSSES)}), got {sorted(unknown)}")
    regression = [strategy for name, strategy in REGRESSION_LOSSES.items() if name in among]
    classification = [name for name in CLASSIFICATION_LOSSES if name in among] if d >= 2 else []
    if not regression and not classification:
        raise ValueError(f"among must hold a loss usable with d = {d} (classification losses need d >= 2), got {among}")
    return st.one_of(*regression, *([st.sampled_from(classification)] if classification else []))


@reused
def vertices(p: int, nonzero: bool = False):
    """A vertex of ``[0, 1]^p`` as one integer choice ``k``: entry ``i`` is 0 where bit ``i`` of ``k`` is set, so ``k``
    shrinks towards (1, ..., 1); with ``nonzero``, never the vertex 0."""
    return integers(0, 2**p - 1 - nonzero).map(lambda k: [0.0 if k >> i & 1 else 1.0 for i in range(p)])


@reused
@st.composite
def rounds(draw, p: int, d: int, one_hot: bool, extreme: bool, nonzero: bool):
    """One round ``(x_t, y_t)``, one span: ``x_t`` in ``[0, 1]^p`` (``extreme``: a vertex), ``y_t`` a class index
    (``one_hot``) or in ``[-1, 1]^d`` (``streams`` scales it); with ``nonzero``, neither is 0 (``lifted``)."""
    x = draw(vertices(p, nonzero)) if extreme else draw(box_rows(MAX_DIMENSION))[:p]
    y = draw(integers(0, d - 1)) if one_hot else draw(entry_rows(MAX_DIMENSION, -1.0, 1.0))[:d]
    if nonzero:
        x, y = x if extreme else lifted(x), y if one_hot else lifted(y)
    return x, y


@reused
def round_lists(p: int, d: int, one_hot: bool, extreme: bool, min_n: int, max_n: int):
    return st.lists(rounds(p, d, one_hot, extreme, False), min_size=min_n, max_size=max_n)


@reused
@st.composite
def round_arrays(draw, p: int, d: int, min_n: int, max_n: int, *, nonzero: bool = False, one_hot: bool = False,
                 extreme: bool = False):
    """``min_n`` to ``max_n`` ``rounds`` as arrays ``(X, Y)`` of shapes (n, p) and (n, d) (``one_hot``: Y of shape
    (n,), class indices): a list of rounds, so that the shrinker deletes rounds whole; with ``nonzero``, the first
    round drawn apart and lifted (neither ``x_1`` nor ``y_1`` is 0)."""
    first = [draw(rounds(p, d, one_hot, extreme, True))] if nonzero else []
    drawn = first + draw(round_lists(p, d, one_hot, extreme, max(min_n - len(first), 0), max_n - len(first)))
    X = np.array([x for x, _ in drawn], dtype=float).reshape(len(drawn), p)
    return X, np.array([y for _, y in drawn], dtype=int if one_hot else float).reshape((len(drawn),) if one_hot else (len(drawn), d))


@st.composite
def streams(draw, p: int, d: int, *, loss="squared", min_n: int = 1, max_n: int = 12, y_bound: float = 1.0,
            nonzero: bool = False, extreme: bool = False):
    """``(X, Y)``: X in ``[0, 1]^p``, rows of Y with ``||y|| <= y_bound`` (one-hot for hinge/softmax); with
    ``nonzero``, ``x_1`` and ``y_1`` are not 0 (a stream that starts at 0 tests little); with ``extreme``,
    every ``x_t`` is a vertex of the box (where ``||K(x, x)||`` reaches kappa^2) and every non-zero ``y_t`` has
    norm ``y_bound``: where norm bounds are tight. Drawn as a list of ``rounds`` (``x_1, y_1`` apart with
    ``nonzero``), so that the shrinker deletes rounds whole; a target's entries are drawn in [-1, 1] and scaled
    by ``y_bound``."""
    one_hot = ovk_ref.as_loss(loss).one_hot_targets
    X, Y = draw(round_arrays(p, d, min_n, max_n, nonzero=nonzero, one_hot=one_hot, extreme=extreme))
    if one_hot:
        return X, np.eye(d)[Y.astype(int)].reshape(len(X), d)
    Y = y_bound * Y
    if extreme:
        norms = np.linalg.norm(Y, axis=1, keepdims=True)
        Y = np.where(norms > 0, Y * (y_bound / np.maximum(norms, 1e-300)), Y)
    return X, within_bound(Y, y_bound)


def within_bound(Y, y_bound: float):
    """``Y`` with every row's exact norm at most ``y_bound`` (Hyp. 1, ``||y_t|| <= C_y``): a row over it is rescaled to
    ``y_bound`` less a few ulps, so that the bound survives the rounding of the division. Exactly, not as float64
    rounds the norm: ``0.5773502691896258 (1, 1, 1)`` has float64 norm 1 and squared norm ``1 + 2.7e-16``."""
    norms = np.linalg.norm(Y, axis=1, keepdims=True)
    near = norms[:, 0] >= y_bound * (1 - 8 * np.finfo(float).eps)   # float64's norm is within a few ulps of the exact one
    over = [norm > y_bound or (close and sum(fractions.Fraction(float(value)) ** 2 for value in row)
                               > fractions.Fraction(y_bound) ** 2) for row, norm, close in zip(Y, norms[:, 0], near)]
    return np.where(np.array(over, dtype=bool).reshape(-1, 1),
                    Y * (y_bound / np.maximum(norms, 1e-300) * (1 - 4 * np.finfo(float).eps)), Y)


# --- claim instances: plain JSON-able dicts, so a shrunk counterexample can be pasted back ----------
#
# Every instance dict may hold: "kernel" (portable dict), "p", "d", "X", "Y" (lists), "lam", "eta", "loss",
# "kappa2" (the kernel's kappa^2 on [0,1]^p, proofs_check.constants), "C" (Lipschitz constant), "C_y"
# (bound on ||y_t||), "truncation" (None, {"window": s}, {"t0": t0, "epsilon": e} or a removal policy's portable dict,
# {"type": "smallest", "budget": b}), "kernels", "r".

#: rho = eta * lam drawn over (0, 1), ends included up to these margins (float64 keeps 1 - rho > 0 exact)
RHO_RANGE = (1e-6, 1.0 - 1e-9)


#: kappa^2 drawn within these bounds: beyond them eta = rho / lam (with lam ~ kappa^2) and the bound constants
#: (~ U^2 / eta) leave the range where float64 margins mean anything (kappa^2 = 1e-294 gave eta_t C_y = inf)
KAPPA2_RANGE = (1e-8, 1e8)


@reused
def log_uniform(low: float, high: float, *, towards_low: bool = False):
    """Floats spread evenly in log scale over [low, high]; shrinks towards 10^0 when inside the range (``towards_low``:
    towards ``low``, through ``low`` times powers of 10)."""
    if towards_low:
        return st.floats(0.0, np.log10(high / low), **FLOATS).map(lambda exponent: min(float(low * 10.0**exponent), high))
    return st.floats(np.log10(low), np.log10(high), **FLOATS).map(lambda exponent: float(10.0**exponent))


def scaled(kernel, scale: float):
    """``scale * K`` as an ovk_ref kernel (a feature kernel stays one: ``M -> sqrt(scale) M``)."""
    if isinstance(kernel, ovk_ref.Feature):
        return ovk_ref.Feature(np.sqrt(scale) * kernel.M)
    return ovk_ref.WeightedSum([(scale, kernel)])


@reused
@st.composite
def kernels_with_kappa2(draw, d: int, p: int, *, feature: bool = True, feature_only: bool = False,
                        scale=(1e-3, 1e3), sums: bool = True):
    """``(kernel, kappa2)``: a kernel of spec 3 times a log-uniform scale (so kappa covers small and large
    values) and its ``kappa^2`` on ``[0,1]^p`` (Hypothesis 1), within KAPPA2_RANGE (> 0: E31); without ``sums``, no
    weighted sum of several kernels (every kernel left attains its kappa^2 at a vertex of the box)."""
    base = draw(feature_kernels(d, p)) if feature_only else draw(kernels(d, p, feature=feature, sums=sums))
    kernel = scaled(base, draw(log_uniform(*scale)))
    kappa2 = constants.kappa2_ceiling(kernel, p)   # rounded up: the float still bounds ||K(x,x)||_op (Hypothesis 1)
    assume(KAPPA2_RANGE[0] <= kappa2 <= KAPPA2_RANGE[1])
    return kernel, kappa2


@reused
def kernel_lists(d: int, p: int, m: int):
    """``m`` pairs ``(kernel, kappa2)`` of ``kernels_with_kappa2(d, p)`` (MONORMA's kernels)."""
    return st.lists(kernels_with_kappa2(d, p), min_size=m, max_size=m)


@reused
def rhos():
    return st.floats(*RHO_RANGE, **FLOATS)


def lipschitz_names(among: tuple | None) -> tuple:
    """The names of ``among`` (default: every loss) with a Lipschitz constant (Hyp. 2)."""
    names = tuple(name for name in (LIPSCHITZ_LOSSES if among is None else among) if name in LIPSCHITZ_LOSSES)
    if not names:
        raise ValueError(f"among must hold a loss with a Lipschitz constant (Hyp. 2: {LIPSCHITZ_LOSSES}), got {among!r}")
    return names


@reused
def truncations(n: int, schedule_only: bool = False):
    """None, a fixed window ``s`` in [1, n], or the schedule of Theorem 2 (spec 5.3) as a portable dict; with
    ``schedule_only``, the schedule alone."""
    schedules = st.builds(lambda t0, e: {"t0": t0, "epsilon": e}, st.integers(1, 6), st.floats(0.01, 0.49, **FLOATS))
    return schedules if schedule_only else st.one_of(st.none(), st.builds(lambda s: {"window": s}, st.integers(1, n)), schedules)


@reused
def removal_policies(n: int):
    """A removal policy of ``ovk_ref.truncation`` (``smallest``, ``random`` with a seed, ``projection``) with a budget in
    [1, n], as its portable dict (the instance's ``truncation``)."""
    budgets = st.integers(1, max(1, n))
    return st.one_of(st.builds(lambda b: {"type": "smallest", "budget": b}, budgets),
                     st.builds(lambda b, seed: {"type": "random", "budget": b, "seed": seed}, budgets, st.integers(0, 2**16)),
                     st.builds(lambda b: {"type": "projection", "budget": b}, budgets))


def _portable(kernel, X, Y, **fields) -> dict:
    return {"kernel": kernel.to_dict(), "p": X.shape[1], "d": Y.shape[1], "X": X.tolist(), "Y": Y.tolist(), **fields}


#: the hypothesis sets an ONORMA instance can be drawn under (spec 8)
REGIMES = ("any", "hyp2", "hyp3", "hyp3_without_lam")


@reused
def hyp3_ratios(boundary: bool):
    """``c = lam / kappa^2`` under Hyp. 3(iii): ``c`` in [2, 1e3], ``c = 2`` itself (E17) only with ``boundary``."""
    return st.one_of(st.just(2.0), log_uniform(2.0, 1e3)) if boundary else log_uniform(2.0, 1e3).filter(lambda c: c > 2)


@reused
def below_hyp3_ratios():
    """``c = lam / kappa^2`` in [1e-3, 2): exactly Hyp. 3(iii) broken; log-uniform, shrinking towards ``c = 1e-3``
    (the farthest breach: a counterexample shrinks to few rounds there, not to many rounds at a nearer ``c``)."""
    return log_uniform(1e-3, 2.0, towards_low=True).filter(lambda c: c < 2.0)


@reused
def monorma_exponents():
    """MONORMA's ``r``: 1 (the paper's experiments) or log-uniform in [0.1, 10]."""
    return st.one_of(st.just(1.0), log_uniform(0.1, 10.0))


@st.composite
def onorma_instances(draw, regime: str = "any", *, feature_only: bool = False, truncation: bool = False,
                     max_n: int = 10, min_n: int = 1, lam_boundary: bool = True, extreme: bool = False,
                     among: tuple | None = None):
    """An ONORMA instance under ``regime``:

    * ``any``: any loss, any ``lam > 0``, ``rho = eta lam`` in (0, 1);
    * ``hyp2``: Hyp. 1-2: a Lipschitz loss (``C`` its constant), ``lam`` log-uniform in [1e-3, 1e2];
    * ``hyp3``: Hyp. 1, 3: squared loss, ``||y_t|| <= C_y``, ``lam = c kappa^2`` with ``c >= 2`` up to ``c = 1e3``
      (``c = 2`` itself, E17, only with ``lam_boundary``; else ``c > 2`` as the paper states);
    * ``hyp3_without_lam``: as ``hyp3`` but ``c`` in [1e-3, 2): breaks exactly Hyp. 3(iii) ``lam > 2 kappa^2``.

    ``extreme`` draws the stream where norm bounds are tight (``streams``): for a search of a claim that is false.
    ``among`` restricts the losses to those names (``losses``; ``hyp3`` regimes use the squared loss whatever it says).
    ``truncation``: False (none), True (any of ``truncations``), ``"schedule"`` (Theorem 2's schedule) or ``"policy"``
    (a removal policy, ``removal_policies``).
    """
    if regime not in REGIMES:
        raise ValueError(f"regime must be one of {REGIMES}, got {regime!r}")
    d, p = draw(dimensions), draw(dimensions)
    kernel, kappa2 = draw(kernels_with_kappa2(d, p, feature_only=feature_only))
    if regime in ("hyp3", "hyp3_without_lam"):
        loss = "squared"
    elif regime == "hyp2":
        loss = draw(losses(d, lipschitz_names(among)))
    else:
        loss = draw(losses(d, among))
    C_y = draw(log_uniform(1e-2, 1e2))
    X, Y = draw(streams(p, d, loss=loss, min_n=min_n, max_n=max_n, y_bound=C_y, nonzero=True, extreme=extreme))
    if regime == "hyp3":
        lam = kappa2 * draw(hyp3_ratios(lam_boundary))
        assume(lam_boundary or lam > 2 * kappa2)
    elif regime == "hyp3_without_lam":
        lam = kappa2 * draw(below_hyp3_ratios())
    else:
        lam = draw(log_uniform(1e-3, 1e2))
    eta = draw(rhos()) / lam
    assume(0 < eta * lam < 1)
    if truncation == "policy":
        drawn = draw(removal_policies(len(X)))
    else:
        drawn = draw(truncations(len(X), truncation == "schedule")) if truncation else None
    fields = {"lam": lam, "eta": eta, "loss": loss, "kappa2": kappa2, "C": ovk_ref.as_loss(loss).lipschitz,
              "C_y": C_y, "truncation": drawn}
    return _portable(kernel, X, Y, **fields)


def top_direction(kernel, p: int) -> tuple:
    """``(x*, v)``: the vertex of ``[0, 1]^p`` where ``||K(x, x)||_op`` is largest and the top eigenvector of
    ``K(x*, x*)`` (for every kernel of spec 3 but sums of several, ``||K(x*, x*)||_op = kappa^2``, C3)."""
    vertices = [np.array(v, dtype=float) for v in itertools.product((1.0, 0.0), repeat=p)]
    tops = [np.linalg.eigh((kernel(v, v) + kernel(v, v).T) / 2) for v in vertices]
    best = max(range(len(vertices)), key=lambda i: tops[i][0][-1])
    return vertices[best], tops[best][1][:, -1]


#: the Lipschitz losses whose subgradient keeps norm C and one direction while ||r_t|| > their threshold
CONSTANT_GRADIENT_LOSSES = ("norm", "huber", "epsilon_insensitive")


@st.composite
def tight_onorma_instances(draw, regime: str, *, feature_only: bool = False, min_n: int = 3, max_n: int = 8,
                           reversal: bool = False):
    """Where the norm bounds of Propositions 1-2 are tightest once every step has acted (spec C10, C12;
    docs/bounds.md): one point ``x*`` repeated, the vertex where ``||K(x, x)||_op = kappa^2``, every target along the
    top eigenvector ``v`` of ``K(x*, x*)``, so that ``f_t`` stays a multiple of ``K(., x*) v`` and the triangle
    inequality of the proofs is an equality; no truncation.

    * ``hyp2``: a loss of ``CONSTANT_GRADIENT_LOSSES`` and ``y_t = Y v`` with ``Y`` beyond ``C kappa^2 / lam`` plus the
      loss's threshold: the prediction (at most ``C kappa^2 / lam``) never reaches the target, the subgradient is
      ``-C v`` every round and ``||f_t|| = U (1 - prod_k (1 - eta_k lam))`` exactly (prop1.ii attained at every t);
    * ``hyp3``: squared loss, ``y_t = C_y v``, ``lam = c kappa^2`` with ``c`` in [100, 1e4]: ``||f_t|| / bound_t`` tends
      to ``c / (2 (c + 1))`` (prop2.i's best constant is 1/2); with ``reversal``, ``c`` in [2, 4] and the last target
      ``-C_y v``: the residual ``||f_{n-1}(x*) + C_y v||`` exceeds ``C_y`` by the prediction built up (prop2.iii).
    Fields as ``onorma_instances``."""
    d, p = draw(dimensions), draw(dimensions)
    kernel, kappa2 = draw(kernels_with_kappa2(d, p, feature_only=feature_only, sums=False))
    x, v = top_direction(kernel, p)
    n = draw(integers(min_n, max_n))
    if regime == "hyp2":
        name = draw(st.sampled_from(CONSTANT_GRADIENT_LOSSES))
        threshold = draw(st.floats(0.05, 2.0, **FLOATS))
        loss = {"norm": "norm", "huber": {"type": "huber", "delta": threshold},
                "epsilon_insensitive": {"type": "epsilon_insensitive", "epsilon": threshold}}[name]
        C = ovk_ref.as_loss(loss).lipschitz
        lam = draw(log_uniform(1e-3, 1e2))
        size = (C * kappa2 / lam + (0.0 if name == "norm" else threshold)) * draw(log_uniform(1.01, 100.0))
        C_y = size
    elif regime == "hyp3":
        loss, C = "squared", None
        lam = kappa2 * draw(log_uniform(2.0, 4.0) if reversal else log_uniform(100.0, 1e4))
        C_y = size = draw(log_uniform(1e-2, 1e2))
    else:
        raise ValueError(f"regime must be hyp2 or hyp3, got {regime!r}")
    eta = draw(rhos()) / lam
    assume(0 < eta * lam < 1)
    Y = np.repeat((size * (1 - 4 * np.finfo(float).eps) * v)[None, :], n, axis=0)
    if reversal:
        Y[-1] = -Y[-1]
    return _portable(kernel, np.repeat(x[None, :], n, axis=0), Y, lam=lam, eta=eta, loss=loss, kappa2=kappa2, C=C,
                     C_y=C_y, truncation=None)


#: the target patterns of ``edge_onorma_instances``: every target on one side, or alternating sides
EDGE_PATTERNS = ("constant", "alternating")


@st.composite
def edge_onorma_instances(draw, *, max_n: int = 10):
    """Theorem 1 at its edge (docs/bounds.md, proofs_check.theorem1_edge): one point ``x*`` at the top of ``K(x, x)``
    (a feature kernel: the comparator is certified), the norm loss, ``rho = eta lam`` near 1 (``1 - rho`` log-uniform in
    [1e-6, 1/2]) and targets ``+-Y v`` beyond reach, on one side or alternating sides: the one-point family whose best
    ratios are the largest found (alternating targets at ``rho -> 1``, n in [2, max_n - 1]), and where a shrink left out
    lets ``||f_t||`` grow as ``rho sum_k k^(-1/2)`` (constant targets, n in [max_n - 2, max_n]). Fields as ``onorma_instances``; no truncation."""
    d, p = draw(dimensions), draw(dimensions)
    kernel, kappa2 = draw(kernels_with_kappa2(d, p, feature_only=True, sums=False))
    x, v = top_direction(kernel, p)
    constant = draw(st.sampled_from(EDGE_PATTERNS)) == "constant"
    n = draw(integers(max_n - 2, max_n) if constant else integers(2, max_n - 1))   # the growth needs rounds to show
    lam = draw(log_uniform(1e-3, 1e2))
    rho = 1 - draw(log_uniform(1e-6, 0.5))
    size = kappa2 / lam * draw(log_uniform(1.01, 100.0))     # beyond C kappa^2 / lam, the largest prediction (C = 1)
    signs = np.ones(n) if constant else (-1.0) ** np.arange(n)
    Y = (signs * draw(st.sampled_from((1.0, -1.0))))[:, None] * (size * v)[None, :]
    return _portable(kernel, np.repeat(x[None, :], n, axis=0), Y, lam=lam, eta=rho / lam, loss="norm", kappa2=kappa2,
                     C=1.0, C_y=size, truncation=None)


#: the Lipschitz losses (Hyp. 2) that are functions of ``z - y``: ONORMA from ``f_0`` is then ONORMA from 0 on shifted
#: targets plus the shrunk ``f_0`` (``claims.common.warm_trajectory``); the classification losses are not
SHIFT_INVARIANT_LIPSCHITZ = ("norm", "huber", "epsilon_insensitive")
#: ``||f_0||`` as a fraction of the bound it must respect: the bound itself, or in [1/2, 1] (a start that the
#: ``f_0 = 0`` bound says nothing about)
START_FRACTIONS = (0.5, 1.0)


@reused
def start_fractions():
    return st.one_of(st.just(START_FRACTIONS[1]), floats(*START_FRACTIONS, **FLOATS))


def _with_start(instance: dict, centres, coefficients, fraction: float) -> dict:
    return {**instance, "f0": {"X": np.asarray(centres, dtype=float).tolist(), "A": np.asarray(coefficients, dtype=float).tolist(),
                               "fraction": fraction}}


@st.composite
def warm_onorma_instances(draw, regime: str, *, max_terms: int = 3, **options):
    """An ONORMA instance of ``onorma_instances(regime, **options)`` (no truncation) with a start ``f_0 = sum_j K(., z_j)
    b_j`` (spec C10, C12 with ``f_0 != 0``): the field ``f0`` holds the centres ``z_j`` (in the box), the direction
    ``b_j`` and ``fraction``, the claim scales ``b`` so that ``||f_0|| = fraction * bound`` (U of Prop. 1, C_y / kappa
    of Prop. 2). Under ``hyp2`` the losses are those of ``SHIFT_INVARIANT_LIPSCHITZ``. The direction has a norm
    above round-off (a kernel that vanishes at the centres is drawn again)."""
    among = SHIFT_INVARIANT_LIPSCHITZ if regime == "hyp2" else None
    instance = draw(onorma_instances(regime, among=among, **options))
    centres, coefficients = draw(round_arrays(instance["p"], instance["d"], 1, max_terms, nonzero=True))
    # a direction whose norm is round-off of its terms (a kernel that vanishes at the centres) is drawn again
    assume(float(ovk_ref.rkhs_norm2(instance["kernel"], centres, coefficients)) > TINY * instance["kappa2"] * np.sum(coefficients**2))
    return _with_start(instance, centres, coefficients, draw(start_fractions()))


@st.composite
def tight_warm_onorma_instances(draw, regime: str, **options):
    """``tight_onorma_instances(regime)`` started from ``f_0 = b K(., x*) v`` (``f0`` as ``warm_onorma_instances``).

    * ``hyp2``: ``b > 0``: every new term ``eta_t C K(., x*) v`` points along ``f_0``, so ``||f_t|| = P_{0,t} ||f_0|| +
      (1 - P_{0,t}) U`` exactly (C10 from ``f_0 != 0`` attained at every t);
    * ``hyp3``: ``lam = c kappa^2`` with ``c = 2`` (E17) or in [2, 4], ``b < 0`` against the targets ``C_y v`` (the last
      one reversed, ``tight_onorma_instances(reversal=True)``): at ``||f_0|| = C_y / kappa`` the first step gives ``||f_1|| =
      |1 - rho (1 + 2 / c)| C_y / kappa``, which tends to the bound as ``rho -> 0``, and as ``rho -> 1`` at ``c = 2``."""
    instance = draw(tight_onorma_instances(regime, reversal=regime == "hyp3", **options))
    x, y = np.asarray(instance["X"][0]), np.asarray(instance["Y"][0])
    if regime == "hyp3":
        rho, lam = instance["eta"] * instance["lam"], instance["kappa2"] * draw(st.one_of(st.just(2.0), log_uniform(2.0, 4.0)))
        instance = {**instance, "lam": lam, "eta": rho / lam}
        y = -y
    return _with_start(instance, [x], [y / np.linalg.norm(y)], draw(start_fractions()))


@st.composite
def tight_truncated_onorma_instances(draw, regime: str, **options):
    """``tight_onorma_instances(regime)`` truncated to a window ``s`` in [1, n - 1] (spec 5.1 step 4): one term dropped
    per round from round ``s + 1`` on, each of norm ``kappa ||alpha_{i,t}||`` (the point is at the top of ``K(x, x)``)."""
    instance = draw(tight_onorma_instances(regime, **options))
    return {**instance, "truncation": {"window": draw(integers(1, len(instance["X"]) - 1))}}


@st.composite
def tight_policy_onorma_instances(draw, regime: str, **options):
    """``tight_onorma_instances(regime)`` with a removal policy of budget ``b`` in [1, n - 1]: one term removed per round
    from round ``b + 1`` on, each of norm ``kappa ||alpha_{i,t}||`` (the point is at the top of ``K(x, x)``; a projection
    onto kept terms at the same point loses nothing)."""
    instance = draw(tight_onorma_instances(regime, **options))
    return {**instance, "truncation": draw(removal_policies(len(instance["X"]) - 1))}


#: the kernel structures of spec 7.2-7.3 a batch instance is drawn with
BATCH_STRUCTURES = ("separable", "linear_quadratic")


@st.composite
def batch_instances(draw, structure: str, *, min_n: int = 2, max_n: int = 8):
    """A batch ridge problem (spec 7.1) with a kernel of ``structure``: ``separable`` (``k B``, spec 7.2) or
    ``linear_quadratic`` (the paper's non-separable kernel, spec 7.3); ``lam = c kappa^2`` with ``c`` log-uniform in
    [1e-3, 1e2], so that ``G + t lam I`` has a condition number below ``1 + 1/c`` (the solves agree to round-off)."""
    if structure not in BATCH_STRUCTURES:
        raise ValueError(f"structure must be one of {BATCH_STRUCTURES}, got {structure!r}")
    d, p = draw(dimensions), draw(dimensions)
    kernel = draw(separable_kernels(d) if structure == "separable" else linear_quadratic_kernels(d))
    kappa2 = float(constants.kappa2(kernel, p))
    assume(KAPPA2_RANGE[0] <= kappa2 <= KAPPA2_RANGE[1])
    X, Y = draw(streams(p, d, min_n=min_n, max_n=max_n, nonzero=True))
    lam = kappa2 * draw(log_uniform(1e-3, 1e2))
    return _portable(kernel, X, Y, lam=lam, loss="squared", kappa2=kappa2)


#: the named uniform starts ``delta_0 = c 1`` of MONORMA (spec 6.3, E21): the paper's 1/m and the normalised m^(-1/r)
NAMED_DELTA_STARTS = ("1/m", "m^(-1/r)")


@reused
def delta_starts():
    """The ``c`` of a uniform ``delta_0 = c 1`` (spec 6.3: every uniform start gives the same run): a name of
    ``NAMED_DELTA_STARTS``, or a number log-uniform in [1e-3, 1e3]."""
    return st.one_of(st.sampled_from(NAMED_DELTA_STARTS), log_uniform(1e-3, 1e3))


@st.composite
def monorma_instances(draw, *, max_n: int = 8, min_n: int = 1, max_m: int = 3, min_m: int = 1, copies: bool = False,
                      hyp2: bool = False, extreme: bool = False, among: tuple | None = None):
    """A MONORMA instance: ``m`` kernels with one ``d`` and ``p`` (or ``m`` copies of one kernel), ``r`` log-uniform
    in [0.1, 10] (``r = 1`` included), any loss, any ``lam``, ``rho`` in (0, 1). With ``hyp2``: a Lipschitz loss
    (Hyp. 2; ``C`` its constant) and every kernel's ``kappa^2`` on the box (``kappa2``, a list); ``extreme`` as
    for ``streams`` (vertices of the box, where norm bounds are tight); ``among`` restricts the losses to those
    names (``losses``)."""
    d, p = draw(dimensions), draw(dimensions)
    m = draw(integers(min_m, max_m))
    # kernels_with_kappa2: scaled, and never 0 on the whole box (a zero kernel has gamma = 0 for ever)
    if copies:
        pairs = [draw(kernels_with_kappa2(d, p))] * m
    else:
        pairs = draw(kernel_lists(d, p, m))
    kernel_list = [pair[0] for pair in pairs]
    loss = draw(losses(d, lipschitz_names(among)) if hyp2 else losses(d, among))
    X, Y = draw(streams(p, d, loss=loss, min_n=min_n, max_n=max_n, nonzero=True, extreme=extreme))
    lam = draw(log_uniform(1e-3, 1e2))
    eta = draw(rhos()) / lam
    assume(0 < eta * lam < 1)
    r = draw(monorma_exponents())
    hypothesis_fields = {"kappa2": [pair[1] for pair in pairs], "C": ovk_ref.as_loss(loss).lipschitz} if hyp2 else {}
    return {"kernels": [kernel.to_dict() for kernel in kernel_list], "p": p, "d": d, "X": X.tolist(), "Y": Y.tolist(),
            "lam": lam, "eta": eta, "r": r, "loss": loss, **hypothesis_fields}


#: the kernel that can fit a lockout stream, ``A(x) = 2 x - 1`` (0 at x = 1/2, +-1 at the ends: kappa^2 = 1), and
#: the one that cannot, the constant ``A(x) = 1`` (spec 3.3 feature kernels, p = d = q = 1)
FITTING_KERNEL = {"type": "feature", "M": [[[-1.0]], [[2.0]]]}
CONSTANT_KERNEL = {"type": "feature", "M": [[[1.0]], [[0.0]]]}
#: the Lipschitz losses (Hyp. 2) a lockout stream is drawn with
LOCKOUT_LOSSES = ("norm", {"type": "huber", "delta": 1.0}, {"type": "epsilon_insensitive", "epsilon": 0.0})


@st.composite
def lockout_instances(draw, *, horizons=(128, 192), rs=(0.5, 1.0, 2.0), losses=LOCKOUT_LOSSES):
    """A stream that locks MONORMA onto the kernel that cannot fit it (spec 6.3 "absorbing zero").

    Round 1 at ``x = 1/2``, where the fitting kernel is 0: its ``gamma_1 = 0``, so its weight is 0 for ever;
    then ``x`` alternates between 1 (target ``+y``) and 0 (target ``-y``): the fitting kernel fits it, the constant
    one cannot. Coarse discrete parameters (``n`` among ``horizons``, ``r`` among ``rs``, the loss among ``losses``), so that a search over
    long horizons shrinks in a few steps. Fields as ``monorma_instances(hyp2=True)``.
    """
    n = draw(st.sampled_from(horizons))
    y = draw(st.sampled_from([1.0, 0.5, 2.0]))
    first = draw(st.sampled_from([1.0, -1.0]))
    lam = draw(st.sampled_from([1.0, 0.5, 2.0]))
    eta = draw(st.sampled_from([0.7, 0.5, 0.9])) / lam
    loss = draw(st.sampled_from(losses))
    kernels = [CONSTANT_KERNEL, FITTING_KERNEL] if draw(st.booleans()) else [FITTING_KERNEL, CONSTANT_KERNEL]
    return lockout_instance(n, y=y, first=first, lam=lam, eta=eta, r=draw(st.sampled_from(rs)), loss=loss, kernels=kernels)


def lockout_instance(n: int, *, y=1.0, first=1.0, lam=1.0, eta=0.7, r=1.0, loss="norm",
                     kernels=(FITTING_KERNEL, CONSTANT_KERNEL)) -> dict:
    """The lockout stream of ``lockout_instances`` with horizon ``n`` (first target ``first * y``)."""
    X = [[0.5]] + [[1.0] if t % 2 else [0.0] for t in range(1, n)]
    Y = [[first * y]] + [[y] if t % 2 else [-y] for t in range(1, n)]
    return {"kernels": list(kernels), "p": 1, "d": 1, "X": X, "Y": Y, "lam": lam, "eta": eta, "r": r, "loss": loss,
            "kappa2": [1.0, 1.0], "C": ovk_ref.as_loss(loss).lipschitz}


@st.composite
def kernel_point_sets(draw, *, max_k: int = 6, min_k: int = 1, feature_only: bool = False):
    """A kernel with points ``x_1..x_k`` in ``[0,1]^p``, coefficients ``a_i`` and a probe ``(x, y)`` (spec 2.2-2.3);
    the points, the coefficients, ``x`` and ``y`` are not all 0 (all-0 makes most identities 0 = 0)."""
    d, p = draw(dimensions), draw(dimensions)
    kernel, kappa2 = draw(kernels_with_kappa2(d, p, feature_only=feature_only))
    X, A = draw(round_arrays(p, d, min_k, max_k))
    X, A = lifted(X), lifted(A)
    x, y = (np.array(row) for row in draw(rounds(p, d, False, False, True)))
    return {"kernel": kernel.to_dict(), "p": p, "d": d, "kappa2": kappa2, "X": X.tolist(), "A": A.tolist(),
            "x": x.tolist(), "y": y.tolist()}


@st.composite
def loss_points(draw):
    """A loss of spec 4 with a target ``y`` and two predictions ``z != z2`` (entries in [-3, 3]) and ``theta`` in (0, 1)."""
    d = draw(dimensions)
    loss = draw(losses(d))
    if ovk_ref.as_loss(loss).one_hot_targets:
        y = np.eye(d)[draw(integers(0, d - 1))]
    else:
        y = draw(bounded_arrays(d, bound=2.0))
    z, z2 = draw(bounded_arrays(d, bound=3.0)), draw(bounded_arrays(d, bound=3.0))
    assume(np.any(z != z2))   # z = z' makes every loss inequality 0 <= 0
    return {"loss": loss, "d": d, "y": y.tolist(), "z": z.tolist(), "z2": z2.tolist(),
            "theta": draw(floats(0.0, 1.0, exclude_min=True, exclude_max=True, **FLOATS))}

