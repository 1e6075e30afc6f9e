"""Reading an instance dict and running the implementation under test on it (shared by the claim modules).

``impl`` is any object with ovk_ref's ``onorma``/``monorma``/``batch_ridge`` signatures (ovk_ref itself, a
mutant of proofs_check.mutants, a faster engine). ``precision`` (decimal digits, or None) is passed on to
the implementation, so that a near-zero margin can be recomputed at high precision;
results then stay mpmath numbers (object arrays), and the checks compute their margins with the same
generic operations (``rows_norm``, ``step_sizes(..., precision)``), so that a tie stays a tie.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import mpmath
import numpy as np

import ovk_ref
from ovk_ref import arithmetic, closeness
from ovk_ref.arithmetic import Arithmetic
from ovk_ref.kernels import OperatorKernel, as_kernel
from proofs_check import constants, tolerances
from proofs_check.claims.base import SETTLED_ROUND, Outcome


def arrays(instance) -> tuple[np.ndarray, np.ndarray]:
    return np.asarray(instance["X"], dtype=float).reshape(-1, instance["p"]), np.asarray(instance["Y"], dtype=float)


def kernel(instance):
    return as_kernel(instance["kernel"])


def schedule(instance):
    """The instance's truncation as ovk_ref takes it: None, an int window, a Theorem2Schedule or a removal policy (its
    portable dict, ``ovk_ref.truncation``)."""
    truncation = instance.get("truncation")
    if truncation is None:
        return None
    if "type" in truncation:
        return ovk_ref.truncation.from_dict(truncation)
    if "window" in truncation:
        return truncation["window"]
    return ovk_ref.theorem2_schedule(truncation["t0"], truncation["epsilon"])


def window(instance, t: int) -> int:
    """``s_t`` (``t`` when there is no truncation)."""
    truncation = schedule(instance)
    return t if truncation is None else (truncation if isinstance(truncation, int) else truncation(t))


def cut(instance, t: int) -> int:
    """``t - s_t``: the terms ``i <= t - s_t`` are dropped after round t (0 for t = 0; spec 5.1 step 4)."""
    return 0 if t == 0 else t - min(t, window(instance, t))


def dropped_indices(instance, t: int) -> range:
    """The indices ``i`` truncation drops at round t: ``(t - 1) - s_{t-1} < i <= t - s_t``."""
    return range(cut(instance, t - 1) + 1, cut(instance, t) + 1)


def step_sizes(instance, n: int, precision=None) -> np.ndarray:
    """``eta_t = eta / sqrt(t)`` for t = 1..n (spec 1), float64 or mpf at ``precision`` digits."""
    num = Arithmetic(precision)
    with num.context():
        return num.scalar(instance["eta"]) / arithmetic.sqrt(num.array(np.arange(1, n + 1)))


def rows_norm(values) -> np.ndarray:
    """Euclidean norm of every row (float64, or mpf for object arrays)."""
    values = np.asarray(values)
    if values.dtype == object:
        return np.array([mpmath.sqrt(np.dot(row, row)) for row in values], dtype=object)
    return np.linalg.norm(values, axis=1)


#: the fields of an ONORMA record the checks read
ONORMA_FIELDS = ("predictions", "coefficients", "new_coefficients", "rkhs_norm2", "kernel_evaluations", "support_sizes")


def _onorma_fields(record) -> dict:
    """The fields of ``ONORMA_FIELDS`` the record holds (another engine's may hold fewer: ``Claim.needs``)."""
    return {name: np.asarray(record[name]) for name in ONORMA_FIELDS if holds_field(record, name)}


def holds_field(record, name: str) -> bool:
    """The record (a dict, or a record object) holds the field ``name``."""
    return name in record if isinstance(record, dict) else getattr(record, name, None) is not None


def _onorma_options(instance, precision) -> dict:
    return dict(lam=instance["lam"], eta=instance["eta"], loss=instance["loss"], truncation=schedule(instance),
                precision=precision)


def run_onorma(impl, instance, X=None, Y=None, precision=None):
    """``impl.onorma`` on the instance (or on the prefix ``X, Y``); fields at the run's precision."""
    if X is None:
        X, Y = arrays(instance)
    return _onorma_fields(impl.onorma(X, Y, instance["kernel"], **_onorma_options(instance, precision)))


def prefix_records(impl, algorithm: str, X, Y, *arguments, **options) -> list:
    """``impl.<algorithm>`` (``onorma`` or ``monorma``) run on every prefix ``X[:t], Y[:t]``, t = 1..n: its records. An
    online algorithm's ``f_t`` depends on the first t examples only; from one run (``impl.<algorithm>_prefixes``,
    ``ovk_ref.run_prefixes``) when the implementation offers it, else one run per prefix."""
    prefixes = getattr(impl, f"{algorithm}_prefixes", None)
    if prefixes is not None:
        return prefixes(X, Y, *arguments, **options)
    run = getattr(impl, algorithm)
    return [run(X[:t], Y[:t], *arguments, **options) for t in range(1, len(X) + 1)]


class PointsGram(OperatorKernel):
    """``kernel``, whose Gram matrices among the rows of ``points`` (a prefix ``points[:t]``, or one point against a
    prefix) are read off the Gram matrix of all of them, computed once per number type (float64, or mpf at the working
    precision): the same blocks ``K(x_i, x_j)``, the same numbers, evaluated once instead of once per prefix (``||f_t||``
    for every t costs n^3 / 3 kernel evaluations, this n^2). Any other Gram matrix is the kernel's own."""

    def __init__(self, kernel, points):
        self.kernel, self.points = kernel, np.asarray(points, dtype=float)
        self.d, self.p = kernel.d, kernel.p
        self._grams = {}

    def __call__(self, x, z):
        return self.kernel(x, z)

    def to_dict(self) -> dict:
        return self.kernel.to_dict()

    def _of_points(self, dtype) -> tuple:
        """The points in the number type ``dtype`` (lifted exactly) and their Gram matrix, computed once."""
        multiprecision = dtype.kind == "O"
        key = (dtype.kind, mpmath.mp.prec if multiprecision else None)
        if key not in self._grams:
            points = arithmetic.mpf_array(self.points) if multiprecision else self.points
            self._grams[key] = (points, self.kernel.gram(points))
        return self._grams[key]

    @staticmethod
    def _identical(rows, points) -> bool:
        """The same numbers, bit for bit (a float -0.0 is not 0.0; mpf numbers by their exact value)."""
        if rows.shape != points.shape or rows.dtype != points.dtype:
            return False
        if rows.dtype.kind == "O":
            return all(a._mpf_ == b._mpf_ for a, b in zip(rows.ravel(), points.ravel()))
        return rows.tobytes() == points.tobytes()

    def _rows(self, X, points):
        """``slice`` of ``points`` that ``X`` is: a prefix, or a single point; None otherwise."""
        if X.ndim != 2 or not 0 < len(X) <= len(points):
            return None
        if self._identical(X, points[: len(X)]):
            return slice(0, len(X))
        if len(X) == 1:
            return next((slice(k, k + 1) for k in range(len(points)) if self._identical(X, points[k:k + 1])), None)
        return None

    def gram(self, X, Z=None) -> np.ndarray:
        X = np.asarray(X)
        Z_ = X if Z is None else np.asarray(Z)
        if X.dtype.kind in "Of" and X.dtype == Z_.dtype and X.dtype.itemsize == 8:
            points, G = self._of_points(X.dtype)
            rows, columns = self._rows(X, points), self._rows(Z_, points)
            if rows is not None and columns is not None and (Z is None or columns.start == 0):
                d = self.d
                return np.array(G[rows.start * d: rows.stop * d, columns.start * d: columns.stop * d])
        return self.kernel.gram(X, Z)


@dataclass
class Trajectory:
    """``f_1..f_n`` of one ONORMA run, each as its t x d coefficients on ``x_1..x_t`` (zero where truncated).

    ``norm`` and ``value`` remember what they computed (per kernel object, round and point): a check asks for the same
    ``||f_t||`` and ``f_t(x_{t+1})`` several times (the risks before and after round t, the gradient, the informative
    test), and each is a Gram matrix of kernel evaluations, thousands of mpf operations in a 50-digit recheck."""

    X: np.ndarray
    Y: np.ndarray
    record: dict
    coefficients: list
    precision: int | None = None
    _known: dict = field(default_factory=dict, repr=False, compare=False)

    def _remembered(self, key: tuple, kernel, compute):
        key = (id(kernel), *key)
        if key not in self._known:
            self._known[key] = (kernel, compute())   # the kernel kept alive: its id is not reused meanwhile
        return self._known[key][1]

    def points_gram(self, kernel) -> PointsGram:
        """``kernel`` with its Gram matrix on ``x_1..x_n`` computed once (``PointsGram``): for the norms and values of
        any coefficients on a prefix of the stream."""
        return self._remembered(("points",), kernel, lambda: PointsGram(kernel, self.X))

    def norm(self, kernel, t: int) -> float:
        """``||f_t||_H`` from the Gram matrix (spec 2.3), independent of the implementation's own tracking."""
        if t == 0:
            return Arithmetic(self.precision).scalar(0)
        return self._remembered(("norm", t), kernel, lambda: self._norm(kernel, t))

    def _norm(self, kernel, t: int):
        norm2 = ovk_ref.rkhs_norm2(self.points_gram(kernel), self.X[:t], self.coefficients[t - 1])
        return arithmetic.sqrt(max(norm2, 0 * norm2))

    def value(self, kernel, t: int, x) -> np.ndarray:
        """``f_t(x)``."""
        if t == 0:   # f_0 = 0, in the run's number type (a float64 zero would round what it meets)
            return Arithmetic(self.precision).zeros(self.Y.shape[1])
        x = np.asarray(x)
        value = self._remembered(("value", t, x.dtype.str, x.shape, x.tobytes()), kernel, lambda: ovk_ref.evaluate(
            self.points_gram(kernel), self.X[:t], self.coefficients[t - 1], x[None, :])[0])
        return value.copy()


def trajectory(impl, instance, precision=None) -> Trajectory:
    """Every iterate ``f_t``: ``impl.onorma`` on each prefix of the stream (``prefix_records``)."""
    X, Y = arrays(instance)
    records = [_onorma_fields(record) for record in
               prefix_records(impl, "onorma", X, Y, instance["kernel"], **_onorma_options(instance, precision))]
    return Trajectory(X=X, Y=Y, record=records[-1], coefficients=[record["coefficients"] for record in records],
                      precision=precision)


def regularised_risks(kernel, loss, trajectory: Trajectory, lam: float, *, post_update: bool) -> np.ndarray:
    """``R_t(f_{t-1})`` (predictor reading) or ``R_t(f_t)`` (post-update reading) for t = 1..n (spec 1, E10)."""
    loss = ovk_ref.as_loss(loss)
    risks = []
    for t in range(1, len(trajectory.X) + 1):
        s = t if post_update else t - 1
        value = trajectory.value(kernel, s, trajectory.X[t - 1])
        target = arithmetic.lift(trajectory.Y[t - 1], value)
        risks.append(loss.value(value, target) + lam / 2 * trajectory.norm(kernel, s) ** 2)
    return np.array(risks, dtype=object if arithmetic.is_multiprecision(np.asarray(risks)) else float)


def shrink_products(instance, n: int, precision=None) -> np.ndarray:
    """``prod_{k<=t} (1 - eta_k lam)`` for t = 1..n (the factor of the sharpened norm bounds C10, C12)."""
    return np.cumprod(1 - step_sizes(instance, n, precision) * instance["lam"])


def top_eigenvalue(matrix):
    """Largest eigenvalue of a symmetric matrix: numpy for float64, mpmath for mpf arrays."""
    if matrix.dtype == object:
        return max(mpmath.eigsy(mpmath.matrix(matrix.tolist()), eigvals_only=True))
    return float(np.linalg.eigvalsh((matrix + matrix.T) / 2).max())


def loss_name(instance) -> str:
    return ovk_ref.as_loss(instance["loss"]).name


def resolved(values, order: int = 1) -> bool:
    """Some entry above ``IDENTITY_ATOL ** order`` in magnitude (order 2 for squares and products: squared norms,
    gamma, w). Below it a quantity is rounding noise to the checks: an instance is informative only on quantities
    the check resolves, and an exact-zero test would make the count of informative instances, hence the search,
    hinge on the last bit of a float sum."""
    values = np.abs(np.asarray(values, dtype=float))
    return bool(values.size) and bool(np.max(values) > tolerances.IDENTITY_ATOL**order)


def close(observed, expected, magnitude: float = 0.0, **quantities) -> Outcome:
    """Two computations of the same array, compared with ``tolerances.IDENTITY`` (``ovk_ref.closeness``; margin
    relative to the allowed error).

    ``magnitude``: the size of the terms the arrays are sums of, when it exceeds the arrays themselves (terms that
    cancel): two float64 sums of the same terms differ by round-off relative to the terms, not to the sum."""
    observed, expected = np.asarray(observed, dtype=float), np.asarray(expected, dtype=float)
    error = float(np.max(closeness.errors(observed, expected))) if observed.size else 0.0
    if not np.all(np.isfinite(observed)):   # a non-finite observation is a violation, whatever the other side
        error = float("inf")
    size = max(float(np.max(np.abs(expected), initial=0.0)), magnitude)
    allowed = float(tolerances.IDENTITY.allowed(size))
    return Outcome(margin=allowed - error, scale=allowed, quantities={"max_error": error, **quantities}, observed=error,
                   bound=allowed)


def discrete(mismatches: list, **quantities) -> Outcome:
    """An exact (integer) fact: margin +DISCRETE_MARGIN when it holds, minus that per mismatch otherwise."""
    return Outcome(margin=tolerances.DISCRETE_MARGIN * (1 - 2 * len(mismatches)),
                   quantities={"mismatches": mismatches[:5], **quantities}, observed=len(mismatches), bound=0)


def constant(expr, instance, precision=None):
    """A constant of proofs_check.constants at the instance's parameters: float64, or mpf when ``precision`` is set."""
    values = {name: instance[name] for name in ("C", "C_y", "kappa2", "lam", "eta") if instance.get(name) is not None}
    values = {symbol.name: values[symbol.name] for symbol in expr.free_symbols}
    return constants.evaluate(expr, **values) if precision else constants.value(expr, **values)


def U(instance, precision=None):
    """U of Prop. 1 (Hyp. 2, a Lipschitz loss) or of Prop. 2 (Hyp. 3, the squared loss) (E11)."""
    if loss_name(instance) != "squared":
        return constant(constants.U_PROP1, instance, precision)
    return constant(constants.U_PROP2, instance, precision)


def settled(margins) -> float | None:
    """The smallest of the relative ``margins`` of rounds (prefixes) ``t = 1, 2, ...`` from ``SETTLED_ROUND`` on;
    None when there are fewer rounds (``Outcome.settled``)."""
    later = [float(margin) for margin in list(margins)[SETTLED_ROUND - 1:]]
    if not later:
        return None
    return math.nan if any(map(math.isnan, later)) else min(later)


@dataclass
class WarmTrajectory:
    """ONORMA started from ``f_0 = sum_j K(., z_j) b_j`` instead of 0 (spec C10, C12 with ``f_0 != 0``), for a loss of
    ``z - y`` (every regression loss of spec 4): by induction on t, ``f_t = P_{0,t} f_0 + g_t``, where ``g_t`` is
    ONORMA from 0 on the targets ``y_t - P_{0,t-1} f_0(x_t)`` (``P_{0,t} = prod_{k<=t} (1 - eta_k lam)``, spec 5.2: the
    update is affine in ``f``, and the gradient at ``f_{t-1}(x_t) = P_{0,t-1} f_0(x_t) + g_{t-1}(x_t)`` depends on
    ``f_{t-1}(x_t) - y_t`` only). So the implementation under test runs the stream (``trajectory``) and this adds
    ``f_0``: ``centres``, ``start`` are ``f_0``'s ``z_j`` and scaled ``b_j``, ``products`` the ``P_{0,t}`` (t = 0..n),
    ``shift`` the ``P_{0,t-1} f_0(x_t)``. The shifted targets reach the implementation as float64, so the run is
    exactly ONORMA from ``f_0`` on the targets ``shifted + shift``, within one rounding of the drawn ``y_t``."""

    run: Trajectory
    centres: np.ndarray
    start: np.ndarray
    products: np.ndarray
    shift: np.ndarray
    _on_points: dict = field(default_factory=dict, repr=False, compare=False)

    def norm(self, kernel, t: int):
        """``||f_t||_H`` from the Gram matrix of ``z_1..z_k, x_1..x_t`` (spec 2.3)."""
        centres = np.vstack([self.centres, self.run.X[:t]])
        coefficients = self.products[t] * self.start
        if t:
            coefficients = np.concatenate([coefficients, arithmetic.lift(self.run.coefficients[t - 1], coefficients)])
        if id(kernel) not in self._on_points:   # the kernel kept alive: its id is not reused meanwhile
            self._on_points[id(kernel)] = (kernel, PointsGram(kernel, np.vstack([self.centres, self.run.X])))
        norm2 = ovk_ref.rkhs_norm2(self._on_points[id(kernel)][1], centres, coefficients)
        return arithmetic.sqrt(max(norm2, 0 * norm2))

    def predictions(self) -> np.ndarray:
        """``p_t = f_{t-1}(x_t) = g_{t-1}(x_t) + P_{0,t-1} f_0(x_t)``, t = 1..n."""
        return arithmetic.lift(self.run.record["predictions"], self.shift) + self.shift


def warm_trajectory(impl, instance, bound, precision=None) -> WarmTrajectory:
    """``impl.onorma`` started from the instance's ``f0`` (centres ``X``, direction ``A``), scaled to ``||f_0|| =
    fraction * bound`` (``bound`` a float, or an mpf at ``precision``)."""
    kernel = as_kernel(instance["kernel"])
    X, Y = arrays(instance)
    num = Arithmetic(precision)
    with num.context():
        centres = np.asarray(instance["f0"]["X"], dtype=float).reshape(-1, instance["p"])
        direction = num.array(np.asarray(instance["f0"]["A"], dtype=float))
        length = arithmetic.sqrt(ovk_ref.rkhs_norm2(kernel, centres, direction))
        start = direction * (num.scalar(instance["f0"]["fraction"]) * bound / length)
        products = np.concatenate([num.array(np.ones(1)), shrink_products(instance, len(X), precision)])
        shift = products[:-1, None] * ovk_ref.evaluate(kernel, centres, start, X)
        shifted = np.asarray(arithmetic.lift(Y, shift) - shift, dtype=float)
    run = trajectory(impl, {**instance, "Y": shifted.tolist()}, precision)
    return WarmTrajectory(run=run, centres=centres, start=start, products=products, shift=shift)
