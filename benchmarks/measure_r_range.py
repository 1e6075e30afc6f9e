"""Measurement (not a test): the values of MONORMA's ``r`` whose runs keep the delta update's invariants, in float64
and at 50 digits, against the range ``ovk_ref.monorma.r_range`` accepts.

    .venv/bin/python benchmarks/measure_r_range.py      # about 20 minutes on one core, most of it 100-digit runs

A run keeps the invariants when, at every round (spec 6.3, claims monorma.delta_normalised and
monorma.zero_weight_absorbing):

* every weight is finite and >= 0;
* after a round whose update happened (some w_j > 0 in the 100-digit run), sum_j delta_j^r = 1 to within
  ``tolerances.DELTA_NORMALISATION``, evaluated exactly (at 120 digits) on the run's own weights;
* the weights agree with the 100-digit run: within ``FLOAT64_VS_MPMATH_RTOL`` (float64) or ``MPMATH_VS_EXACT_RTOL``
  (50 digits) of the round's largest weight. (A weight may fall below float64's range and become 0: MONORMA's weights
  fall doubly exponentially when r < 1, spec 6.3, so every long run has some; what counts is whether the loss moves
  the weights that remain.)

The family: m Gaussian kernels (mu log-spaced in [0.3, 3], so that the weights differ), 40 rounds (10 for m = 64)
of standard normal inputs in R^2 and targets of scale 1e-3, 1 and 1e3, seeds 0-2, lam = 0.1, eta = 0.5. For each m and each
end of the range the boundary is found by bisection on log10(r) (to 1/16 of a decade) between a value that keeps
the invariants on every stream and one that does not; ovk_fast is run beside ovk_ref in float64 and must agree on
which values keep them. The report prints the measured usable range, the accepted range and the margin between
them.
"""
from __future__ import annotations

import contextlib
import importlib
import sys
import time
import warnings

import mpmath
import numpy as np

import ovk_fast
import ovk_ref
from ovk_ref import tolerances
from ovk_ref.monorma import r_range

#: the module (``ovk_ref.monorma`` as an attribute is the function of the same name)
MONORMA_MODULE = importlib.import_module("ovk_ref.monorma")

KERNEL_COUNTS = (1, 2, 3, 8, 64)
#: at 50 digits (against 100) m = 64 would take most of an hour; the bound there does not depend on m
MULTIPRECISION_KERNEL_COUNTS = (1, 2, 3, 8)
SCALES = (1e-3, 1.0, 1e3)
SEEDS = (0, 1, 2)
#: rounds per stream: weights fall doubly exponentially, so small r needs rounds to show its underflow; m = 64 is
#: costly at 100 digits, and its bound (ln(m)/r) shows in the first rounds
ROUNDS = {64: 10}
DEFAULT_ROUNDS = 40
STEP = dict(lam=0.1, eta=0.5)
#: bisection stops when the bracket is this many decades wide
RESOLUTION = 1 / 16


def streams(m: int):
    kernels = [ovk_ref.gaussian_separable(float(mu), 1) for mu in np.geomspace(0.3, 3.0, m)]
    for seed in SEEDS:
        rng = np.random.default_rng(seed)
        rounds = ROUNDS.get(m, DEFAULT_ROUNDS)
        X = rng.standard_normal((rounds, 2))
        Y = rng.standard_normal((rounds, 1))
        for scale in SCALES:
            yield X, scale * Y, kernels


def _updated(reference, t) -> bool:
    """Did round t (0-based) update the weights in the reference run: some (delta_{t-1})^2 gamma_t > 0?"""
    m = reference.weights.shape[1]
    previous = reference.weights[t - 1] if t else [mpmath.mpf(1) / m] * m
    return any(previous[j] ** 2 * max(reference.gamma[t][j], 0) > 0 for j in range(m))


def _normalisation_failures(rows, reference, r) -> list[str]:
    """The first updated round whose weights break sum_j delta_j^r = 1 (to DELTA_NORMALISATION), if any."""
    for t, row in enumerate(rows):
        if _updated(reference, t):
            error = abs(mpmath.fsum(mpmath.power(value, r) for value in row) - 1)
            if error > tolerances.DELTA_NORMALISATION:
                return [f"round {t + 1}: |sum delta^r - 1| = {mpmath.nstr(error, 2)}"]
    return []


def failures(weights, reference, r, rtol) -> list[str]:
    """Which invariants the run's ``weights`` (n x m, float64 or mpf) break, against the 100-digit ``reference``."""
    broken = []
    with mpmath.workdps(120):
        rows = [[mpmath.mpf(value) if isinstance(value, mpmath.mpf) else mpmath.mpf(float(value)) for value in row]
                for row in weights]
        if not all(mpmath.isfinite(value) and value >= 0 for row in rows for value in row):
            return ["not finite or negative"]
        broken += _normalisation_failures(rows, reference, r)
        for t, row in enumerate(rows):
            scale = max(abs(value) for value in reference.weights[t])
            error = max(abs(a - b) for a, b in zip(row, reference.weights[t])) / scale
            if error > rtol:
                broken.append(f"round {t + 1}: weights off the 100-digit run by {mpmath.nstr(error, 2)} of the largest")
                break
    return broken


@contextlib.contextmanager
def any_r():
    """Both engines accept every r > 0 (their check is what this script measures)."""
    MONORMA_MODULE.r_range = lambda m, precision=None: (0.0, float("inf"))
    try:
        yield
    finally:
        MONORMA_MODULE.r_range = r_range


def keeps(m: int, r: float, precision) -> tuple[bool, str]:
    """Whether every stream of the family keeps the invariants with (m, r) in ``precision`` (None: float64, where
    ovk_fast must agree with ovk_ref); the first failure's description."""
    for X, Y, kernels in streams(m):
        run = dict(X=X, Y=Y, kernels=kernels, r=r, **STEP, on_divergence="warn")
        with warnings.catch_warnings(), any_r():
            warnings.simplefilter("ignore")
            reference = ovk_ref.monorma(**run, precision=100)
            if precision is None:
                verdicts = []
                for engine in (ovk_ref, ovk_fast):
                    record = engine.monorma(**run)
                    verdicts.append(failures(record.weights, reference, r, tolerances.FLOAT64_VS_MPMATH_RTOL))
                if bool(verdicts[0]) != bool(verdicts[1]):
                    raise AssertionError(f"ovk_ref and ovk_fast disagree at m={m}, r={r!r}: {verdicts}")
                broken = verdicts[0]
            else:
                record = ovk_ref.monorma(**run, precision=precision)
                broken = failures(record.weights, reference, r, tolerances.MPMATH_VS_EXACT_RTOL)
        if broken:
            return False, broken[0]
    return True, ""


def boundary(m: int, precision, good: float, bad: float) -> tuple[float, float | None, str]:
    """Bisect log10(r) between ``good`` (keeps the invariants) and ``bad`` (does not); returns the bracket, or
    ``(bad, None, "")`` when ``bad`` keeps them too (no failure within the search)."""
    ok, _ = keeps(m, 10.0**good, precision)
    assert ok, f"m={m}, precision={precision}: r=1e{good} does not keep the invariants"
    ok, why = keeps(m, 10.0**bad, precision)
    if ok:
        return bad, None, ""
    while abs(good - bad) > RESOLUTION:
        middle = (good + bad) / 2
        ok, reason = keeps(m, 10.0**middle, precision)
        if ok:
            good = middle
        else:
            bad, why = middle, reason
    return good, bad, why


def _bracket(good: float, bad: float | None) -> str:
    return f"1e{good:+.2f} (fails at 1e{bad:+.2f})" if bad is not None else f"1e{good:+.2f} (no failure)"


def main() -> int:
    load = " ".join(f"{value:.2f}" for value in __import__("os").getloadavg())
    print(f"load average {load}; family: {len(SEEDS)} seeds x targets {SCALES}, {DEFAULT_ROUNDS} rounds "
          f"({', '.join(f'{rounds} for m = {m}' for m, rounds in ROUNDS.items())}), Gaussian kernels")
    print(f"{'arithmetic':11s} {'m':>3s}  {'usable from (measured)':>24s}  {'accepted from':>13s}  "
          f"{'usable up to (measured)':>24s}  {'accepted up to':>14s}  first failure outside")
    ok = True
    for precision, name, counts, searches in ((None, "float64", KERNEL_COUNTS, ((0.0, -16.0), (0.0, 20.0))),
                                              (50, "50 digits", MULTIPRECISION_KERNEL_COUNTS, ((0.0, -16.0), (0.0, 60.0)))):
        for m in counts:
            start = time.perf_counter()
            low_good, low_bad, low_why = boundary(m, precision, *searches[0])
            high_good, high_bad, high_why = boundary(m, precision, *searches[1])
            accepted = r_range(m, precision)
            inside = 10.0**low_good <= accepted[0] and accepted[1] <= 10.0**high_good
            ok &= inside
            print(f"{name:11s} {m:3d}  {_bracket(low_good, low_bad):>24s}  {accepted[0]:13.3g}  "
                  f"{_bracket(high_good, high_bad):>24s}  {accepted[1]:14.3g}  "
                  f"below: {low_why}; above: {high_why}{'' if inside else '  ACCEPTED RANGE NOT INSIDE'} "
                  f"({time.perf_counter() - start:.0f} s)", flush=True)
    print("every accepted range lies inside the measured usable range" if ok else "SOME ACCEPTED RANGE IS TOO WIDE")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
