"""Extreme parameters through the public API: ovk_ref and ovk_fast accept the same values and report the same
divergence, and an exponent r the arithmetic cannot carry is refused before any work, with its usable range named
(``ovk_ref.monorma.r_range``, measured by ``benchmarks/measure_r_range.py``).

Inside the range, at both of its ends, a run keeps the delta update's invariants (spec 6.3): sum_j delta_j^r = 1
after every update, and weights as a 100-digit run computes them. Outside it (the range check bypassed: the
planted fault, the engines as they were) the same check fails, so the range is no wider than it must be.
"""
import importlib
import math
import warnings

import mpmath
import numpy as np
import pytest
from shared.closeness import assert_close

import ovk_fast
import ovk_ref
from ovk_ref import tolerances

#: the module (the attribute ovk_ref.monorma is the function); its r_range is looked up when a test runs
MONORMA_MODULE = importlib.import_module("ovk_ref.monorma")
ENGINES = [ovk_ref, ovk_fast]
RNG = np.random.default_rng(0)
#: 40 rounds: MONORMA's weights fall doubly exponentially, and small r shows its underflow after a few dozen
X, Y = RNG.standard_normal((40, 2)), RNG.standard_normal((40, 1))
KERNELS = {m: [ovk_ref.gaussian_separable(float(mu), 1) for mu in np.geomspace(0.3, 3.0, m)] for m in (2, 3)}
STEP = {"lam": 0.1, "eta": 0.5}


@pytest.mark.parametrize("r", [1e-4, 1e-8, 1e20], ids=["1e-4", "1e-8", "1e20"])
@pytest.mark.parametrize("engine", ENGINES, ids=lambda engine: engine.__name__)
def test_an_r_the_arithmetic_cannot_carry_is_refused_with_its_usable_range(engine, r):
    """r = 1e-4 or 1e-8 set every weight to 0 for ever, r = 1e20 kept every weight 1 (sum of delta^r = m)."""
    with pytest.raises(ValueError, match=r"r must lie in the usable range \[0\.05, 1e\+03\] for 2 kernels in float64 "
                                         r"\(with precision=50: \[0\.0001, 8\.\d+e\+37\]\)"):
        engine.monorma(X, Y, KERNELS[2], r=r, **STEP)


def test_the_learner_and_the_precision_have_their_own_range():
    with pytest.raises(ValueError, match=r"usable range \[0\.05, 1e\+03\] for 3 kernels in float64"):
        ovk_ref.MONORMA(KERNELS[3], r=0.01, **STEP)
    ovk_ref.MONORMA(KERNELS[3], r=0.01, precision=50, **STEP)          # 50 digits carry it
    for r in (1e-5, 1e40):
        with pytest.raises(ValueError, match=r"for 3 kernels in precision=50 \(in float64: \[0\.05, 1e\+03\]\)"):
            ovk_ref.MONORMA(KERNELS[3], r=r, precision=50, **STEP)
    assert MONORMA_MODULE.r_range(1000)[0] == pytest.approx(math.log(1000) / tolerances.R_UNDERFLOW_LOG)   # many kernels: more


def _broken_invariants(m: int, r: float, engine=ovk_ref, precision=None) -> list[str]:
    """What the run of ``engine`` (m kernels, this r) breaks, against a 100-digit run: sum_j delta_j^r = 1 after an
    update (DELTA_NORMALISATION, evaluated exactly on the run's weights) and the weights' accuracy (float64:
    FLOAT64_VS_MPMATH_RTOL; mpmath: MPMATH_VS_EXACT_RTOL) relative to the round's largest weight."""
    run = {"X": X, "Y": Y, "kernels": KERNELS[m], "r": r, **STEP}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        weights = engine.monorma(**run, precision=precision).weights
        exact = ovk_ref.monorma(**run, precision=100)
    rtol = tolerances.FLOAT64_VS_MPMATH_RTOL if precision is None else tolerances.MPMATH_VS_EXACT_RTOL
    broken = []
    with mpmath.workdps(120):
        for t, (row, reference) in enumerate(zip(weights, exact.weights)):
            row = [mpmath.mpf(value) if isinstance(value, mpmath.mpf) else mpmath.mpf(float(value)) for value in row]
            previous = exact.weights[t - 1] if t else [mpmath.mpf(1) / m] * m
            if any(previous[j] ** 2 * max(exact.gamma[t][j], 0) > 0 for j in range(m)):
                if not abs(mpmath.fsum(value**r for value in row) - 1) <= tolerances.DELTA_NORMALISATION:
                    broken.append(f"sum_j delta_j^r != 1 at round {t + 1}")
            if not max(abs(a - b) for a, b in zip(row, reference)) <= rtol * max(reference):
                broken.append(f"weights off the 100-digit run at round {t + 1}")
    return broken


@pytest.mark.parametrize("m", [2, 3])
@pytest.mark.parametrize("end", [0, 1], ids=["lowest", "highest"])
@pytest.mark.parametrize("engine", ENGINES, ids=lambda engine: engine.__name__)
def test_both_ends_of_the_float64_range_keep_the_invariants(engine, m, end):
    assert _broken_invariants(m, MONORMA_MODULE.r_range(m)[end], engine) == []


@pytest.mark.parametrize("end", [0, 1], ids=["lowest", "highest"])
def test_both_ends_of_the_50_digit_range_keep_the_invariants(end):
    assert _broken_invariants(2, MONORMA_MODULE.r_range(2, 50)[end], precision=50) == []


@pytest.mark.parametrize("r, precision", [(1e-4, None), (0.02, None), (1e5, None), (1e20, None), (1e-8, 50), (1e40, 50)],
                         ids=["1e-4", "0.02", "1e5", "1e20", "1e-8-at-50-digits", "1e40-at-50-digits"])
def test_the_check_catches_the_range_check_bypassed(monkeypatch, r, precision):
    """The planted fault: every r > 0 accepted (as before the range); just outside the range the invariants fail."""
    monkeypatch.setattr(MONORMA_MODULE, "r_range", lambda m, precision=None: (0.0, math.inf))
    assert _broken_invariants(2, r, precision=precision) != []


#: accepted extreme parameters (name, monorma arguments, target scale); each engine must report the same divergence
EXTREMES = [
    ("lam 1e-300", {"lam": 1e-300, "eta": 1.0}, 1.0),
    ("eta 1e300, eta lam 0.1", {"lam": 1e-301, "eta": 1e300}, 1.0),
    ("eta 1e-300", {"lam": 0.1, "eta": 1e-300}, 1.0),
    ("eta lam just below 1", {"lam": 1.0, "eta": 1 - 1e-16}, 1.0),
    ("targets 1e150", STEP, 1e150),
    ("targets 1e-150", STEP, 1e-150),
    ("targets 1e-300", STEP, 1e-300),
    ("divergence_bound 1e-300", {**STEP, "divergence_bound": 1e-300}, 1.0),
]
MU_EXTREMES = [("mu 1e-300", 1e-300), ("mu 1e300", 1e300)]


@pytest.mark.parametrize("name, arguments, scale", EXTREMES, ids=[case[0] for case in EXTREMES])
def test_both_engines_report_the_same_divergence_on_extreme_parameters(name, arguments, scale):
    diverged = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ovk_ref.DivergenceWarning)
        for engine in ENGINES:
            diverged[engine.__name__] = (engine.monorma(X, scale * Y, KERNELS[2], r=1.0, **arguments).diverged_at,
                                         engine.onorma(X, scale * Y, KERNELS[2][0], **arguments).diverged_at)
    assert diverged["ovk_ref"] == diverged["ovk_fast"]


@pytest.mark.parametrize("name, mu", MU_EXTREMES, ids=[case[0] for case in MU_EXTREMES])
def test_both_engines_agree_on_extreme_kernel_widths(name, mu):
    kernels = [ovk_ref.gaussian_separable(mu, 1), KERNELS[2][1]]
    records = [engine.monorma(X, Y, kernels, r=1.0, **STEP) for engine in ENGINES]
    assert records[0].diverged_at is None and records[1].diverged_at is None
    desired = np.asarray(records[0].weights, float)
    assert_close(np.asarray(records[1].weights, float), desired, tolerances.IDENTITY, scale=np.abs(desired),
                 what="weights of the two engines")
