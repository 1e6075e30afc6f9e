"""Claims on Algorithm 1, ONORMA (spec 5, C5-C13, C23, E1, E3): run through ``impl.onorma``."""
from __future__ import annotations

import math

import mpmath
import numpy as np
from hypothesis import strategies as st

import ovk_ref
from proofs_check import constants, strategies, tolerances
from proofs_check.claims import common, explicit
from proofs_check.claims.base import Outcome, claim


@claim("onorma.closed_form", statement="alpha_{i,t} = alpha_{i,i} prod_{k=i+1}^t (1 - eta_k lam) (no truncation)",
       reference="Alg. 1; spec 5.2, C5", hypotheses="any kernel, loss, lam > 0, 0 < eta lam < 1", expected="holds",
       instances=strategies.onorma_instances("any", min_n=2), uses=("onorma",),
       informative="a non-zero coefficient alpha_{i,i} with i < n (one that was shrunk)",
       faults=("eta_next_index", "step_size_over_t", "shrink_skipped"))
def closed_form(instance, impl, precision=None):
    record = common.run_onorma(impl, instance, precision=precision)
    n = len(record["predictions"])
    shrink = 1 - common.step_sizes(instance, n) * instance["lam"]
    products = np.array([np.prod(shrink[i + 1:]) for i in range(n)])  # P_{i,n}, i = 1..n
    outcome = common.close(record["coefficients"], record["new_coefficients"] * products[:, None])
    outcome.informative = common.resolved(record["new_coefficients"][:-1])
    return outcome


def _sgd_predictions(instance):
    """Plain SGD on w in R^q for the feature kernel (spec 5.2): w_t = w_{t-1} - eta_t (A(x_t)^T u_t + lam w_{t-1});
    the predictions, the last w, and the size of the terms they are sums of (the same recursion in absolute
    values: where the terms cancel, e.g. a softmax gradient against equal feature rows, both sides are round-off)."""
    K, loss = common.kernel(instance), ovk_ref.as_loss(instance["loss"])
    X, Y = common.arrays(instance)
    w, size, predictions, magnitude = np.zeros(K.q), np.zeros(K.q), [], 0.0
    for eta_t, x, y in zip(common.step_sizes(instance, len(X)), X, Y):
        A = K.features(x)
        predictions.append(A @ w)
        magnitude = max(magnitude, float(np.max(np.abs(A) @ size, initial=0.0)))
        u = loss.gradient(A @ w, y)
        w = w - eta_t * (A.T @ u + instance["lam"] * w)
        size = abs(1 - eta_t * instance["lam"]) * size + eta_t * (np.abs(A.T) @ np.abs(u))
    return np.array(predictions), w, max(magnitude, float(np.max(size, initial=0.0)))


@claim("onorma.sgd", statement="ONORMA is SGD with step eta_t on R_t; feature kernel: SGD on w in R^q (non-symmetric blocks)",
       reference="eq. (1)-(3), Alg. 1; spec 5.2, C6, E1, E3", hypotheses="feature kernel, a differentiable loss",
       expected="holds", uses=("onorma",),
       instances=strategies.onorma_instances("any", feature_only=True, min_n=2, among=strategies.SMOOTH_LOSSES),
       informative="two rounds or more and a non-zero prediction f_{t-1}(x_t)",
       faults=("shrink_applied_to_new_coefficient", "new_coefficient_short", "kernel_transposed"))
def sgd(instance, impl, precision=None):
    record = common.run_onorma(impl, instance, precision=precision)
    predictions, w, magnitude = _sgd_predictions(instance)
    K = common.kernel(instance)
    X, _ = common.arrays(instance)
    w_onorma = sum(K.features(x).T @ a for x, a in zip(X, record["coefficients"]))  # f_n = A(.) w (spec 3.3)
    outcome = common.close(np.concatenate([record["predictions"].ravel(), w_onorma]), np.concatenate([predictions.ravel(), w]),
                           magnitude=magnitude)
    # a prediction that is round-off of cancelling terms tells nothing about the identity
    outcome.informative = common.resolved(predictions) and float(np.max(np.abs(predictions))) > tolerances.IDENTITY_RTOL * magnitude
    return outcome


#: the scalar kernels of KSW's NORMA (every family of ovk_ref's, bandwidths in log scale; the constant kernel left
#: out, as this claim's draws always have), and its losses with a continuous gradient (d = 1)
_SCALAR_KERNELS = strategies.scalar_kernels(excluding=(ovk_ref.Constant,), mu=strategies.log_uniform(1e-3, 1e2),
                                            offset=st.floats(0.0, 1.0))
_SCALAR_LOSSES = strategies.losses(1, ("squared", "huber"))


@st.composite
def _scalar_instances(draw):
    p = draw(strategies.dimensions)
    kernel = ovk_ref.Separable(draw(_SCALAR_KERNELS), [[1.0]])
    loss = draw(_SCALAR_LOSSES)
    X, Y = draw(strategies.streams(p, 1, loss=loss, min_n=2, max_n=10, nonzero=True))
    lam = draw(strategies.log_uniform(1e-3, 1e2))
    return {"kernel": kernel.to_dict(), "p": p, "d": 1, "X": X.tolist(), "Y": Y.tolist(), "lam": lam,
            "eta": draw(strategies.rhos()) / lam, "loss": loss}


#: the first example and the step of a scalar instance, at least this large (relative to their ranges): a smaller one
#: makes every prediction round-off of size below IDENTITY_ATOL, and the comparison 0 = 0
SCALAR_FIRST_EXAMPLE = 1e-3


def _predicts_at_all(instance) -> bool:
    """``x_1``, ``y_1`` and ``rho`` not vanishing (``SCALAR_FIRST_EXAMPLE``), and some later input sharing a non-zero
    coordinate with ``x_1`` (inputs in [0, 1]^p): without one the linear kernel predicts 0 at every round."""
    X, Y = np.asarray(instance["X"], dtype=float), np.asarray(instance["Y"], dtype=float)
    return bool(np.max(X[0]) > SCALAR_FIRST_EXAMPLE and abs(Y[0, 0]) > SCALAR_FIRST_EXAMPLE
                and instance["eta"] * instance["lam"] > SCALAR_FIRST_EXAMPLE and np.any(X[1:] @ X[0] > SCALAR_FIRST_EXAMPLE**2))


@claim("onorma.scalar_norma", statement="d = 1: ONORMA's predictions equal scalar NORMA's (KSW) on the same stream",
       reference="spec 5.2, C7", hypotheses="scalar kernel k [[1]], squared or Huber loss", expected="holds",
       instances=_scalar_instances().filter(lambda i: 0 < i["eta"] * i["lam"] < 1).filter(_predicts_at_all),
       uses=("onorma",),
       informative="two rounds or more and a non-zero prediction f_{t-1}(x_t)")
def scalar_norma(instance, impl, precision=None):
    record = common.run_onorma(impl, instance, precision=precision)
    k, loss = common.kernel(instance).scalar, ovk_ref.as_loss(instance["loss"])
    X, Y = common.arrays(instance)
    centres, weights, predictions = [], [], []   # KSW: f_{t+1} = (1 - eta_t lam) f_t - eta_t l'(f_t(x_t)) k(x_t, .)
    for eta_t, x, y in zip(common.step_sizes(instance, len(X)), X, Y):
        f_x = sum(a * k(c, x) for c, a in zip(centres, weights)) if centres else 0.0
        predictions.append(f_x)
        weights = [(1 - eta_t * instance["lam"]) * a for a in weights] + [-eta_t * float(loss.gradient(np.array([f_x]), y)[0])]
        centres.append(x)
    outcome = common.close(record["predictions"][:, 0], predictions)
    outcome.informative = common.resolved(predictions)
    return outcome


@claim("onorma.truncation_support", statement="after round t, f_t keeps exactly the coefficients i in {max(1, t-s_t+1), ..., t}",
       reference="Alg. 1, Thm. 2; spec 5.1 step 4, C8", hypotheses="any truncation schedule s_t >= 1", expected="holds",
       instances=strategies.onorma_instances("any", truncation=True, min_n=2).filter(
           lambda i: any(common.window(i, t) < t for t in range(1, len(i["X"]) + 1))),
       uses=("onorma",), informative="a round whose window s_t < t (truncation removed a term)",
       faults=("truncation_keeps_one_more",), needs=("coefficients", "support_sizes"))
def truncation_support(instance, impl, precision=None):
    trajectory = common.trajectory(impl, instance, precision)
    mismatches = []
    for t, coefficients in enumerate(trajectory.coefficients, start=1):
        kept = min(t, common.window(instance, t))
        if trajectory.record["support_sizes"][t - 1] != kept:
            mismatches.append(f"round {t}: support size {trajectory.record['support_sizes'][t - 1]}, s_t = {kept}")
        if np.any(coefficients[: t - kept] != 0):
            mismatches.append(f"round {t}: nonzero coefficient among i <= t - s_t = {t - kept}")
    outcome = common.discrete(mismatches)
    outcome.informative = any(common.window(instance, t) < t for t in range(1, len(trajectory.X) + 1))
    return outcome


def _norm_terms(instance, trajectory) -> tuple:
    """Per round t: the Gram norm ``||f_t||^2`` of the run's own coefficients as the double sum of spec 2.3
    (``explicit.norm2``: nothing shared with the recursion), and the size of the terms the recursion summed up to
    round t: ``sum_{s<=t} sum_{i,k<=s} |a_{i,s}| |K(x_i, x_k)| |a_{k,s}|`` over the untruncated coefficients
    ``a_{i,s} = alpha_{i,i} P_{i,s}`` (the update adds these terms each round, the downdate takes some off again;
    each round's float rounding is relative to them, and it accumulates)."""
    K = common.kernel(instance)
    X = trajectory.X
    n = len(X)
    blocks = explicit.kernel_blocks(K, X)
    sizes = np.array([[np.abs(block) for block in row] for row in blocks])     # n x n x d x d
    new = np.asarray(trajectory.record["new_coefficients"], dtype=float)
    gram_norms, magnitudes, total = [], [], 0.0
    for t in range(1, n + 1):
        coefficients = np.asarray(trajectory.coefficients[t - 1], dtype=float)
        gram_norms.append(explicit.norm2(K, X[:t], coefficients, blocks))
        untruncated = np.abs(explicit.shrunk(new, instance["eta"], instance["lam"], t))
        total += float(np.einsum("id,ikde,ke->", untruncated, sizes[:t, :t], untruncated))
        magnitudes.append(total)
    return np.array(gram_norms), np.array(magnitudes)


def _without(coefficients, i: int) -> np.ndarray:
    """The coefficients with the term ``i`` (1-based) set to 0: the rest of ``h`` that a dropped term has cross terms with."""
    rest = np.array(coefficients, dtype=float)
    rest[i - 1] = 0
    return rest


@claim("onorma.norm_recursion", statement="the tracked ||f_t||^2 (the update of spec 6.2, the downdates of 6.5) equals the "
       "Gram norm of f_t's coefficients, every round, with and without truncation",
       reference="Alg. 1; spec 5.1, 6.2 (one kernel), 6.5", hypotheses="any kernel, loss and truncation", expected="holds",
       instances=st.one_of(strategies.onorma_instances("any", truncation=True, min_n=2),
                           strategies.tight_truncated_onorma_instances("hyp2", max_n=5)),
       uses=("onorma",),
       informative="a round t >= 2 with a non-zero cross term <f_{t-1}(x_t), alpha_{t,t}>, or a dropped term with a non-zero "
                   "cross term <h(x_i), a_i> with the rest; the Gram norm is the double sum over the run's own coefficients, "
                   "computed in the claim",
       faults=("onorma_norm_cross_term_once", "onorma_norm_shrink_not_squared", "onorma_downdate_cross_term_sign",
               "onorma_downdate_term_alone"))
def norm_recursion(instance, impl, precision=None):
    trajectory = common.trajectory(impl, instance, precision)
    tracked = np.asarray(trajectory.record["rkhs_norm2"], dtype=float)
    expected, magnitudes = _norm_terms(instance, trajectory)
    allowed = tolerances.IDENTITY_RTOL * magnitudes + tolerances.IDENTITY_ATOL
    errors = np.abs(tracked - expected)
    errors[~np.isfinite(errors)] = np.inf
    worst = int(np.argmax(errors / allowed))
    K = common.kernel(instance)
    X = trajectory.X
    cross = [float(np.dot(np.asarray(trajectory.record["predictions"][t - 1], dtype=float),
                          np.asarray(trajectory.record["new_coefficients"][t - 1], dtype=float))) for t in range(2, len(X) + 1)]
    kept = [(t, trajectory.coefficients[t - 2]) for t in range(2, len(X) + 1) if common.dropped_indices(instance, t)]
    cross += [float(np.dot(explicit.value(K, X[:t - 1], _without(previous, i), X[i - 1]), np.asarray(previous[i - 1], dtype=float)))
              for t, previous in kept for i in common.dropped_indices(instance, t)]
    return Outcome(margin=float(allowed[worst] - errors[worst]), scale=float(allowed[worst]),
                   quantities={"max_error": float(errors[worst]), "round": worst + 1, "tracked": float(tracked[worst]),
                               "gram": float(expected[worst])},
                   informative=common.resolved(cross, order=2), observed=float(errors[worst]), bound=float(allowed[worst]))


#: digits of the independent evaluation of Theorem 2's schedule, and how close to an integer a root counts as it
SCHEDULE_FORMULA_DIGITS, SCHEDULE_FORMULA_SNAP = 60, 1e-40


def schedule_formula(t0: int, epsilon: float, horizon: int) -> list:
    """``[s_1, ..., s_horizon]``: ``s_t = t`` for ``t <= t0``, else ``t0 + floor(b^a)`` with ``b = t - t0`` and
    ``a = 1/2 + epsilon``, ``epsilon`` the decimal it prints as (spec 5.3). Evaluated here, not with ovk_ref's code:
    ``floor(b^a)`` counts the ``k >= 1`` whose threshold ``ceil(k^(1/a))`` is at most ``b``; an exact power
    (``32^0.6 = 8``) lands on its integer. A threshold is read off the float64 power where that is farther than
    ``tolerances.SCHEDULE_FORMULA_FLOAT_GUARD`` from every integer (the same ceiling), else computed with mpmath at
    ``SCHEDULE_FORMULA_DIGITS`` digits."""
    with mpmath.workdps(SCHEDULE_FORMULA_DIGITS):
        inverse = 1 / (mpmath.mpf(1) / 2 + mpmath.mpf(repr(epsilon)))
        inverse_float = float(inverse)
        thresholds, k = [], 1
        while not thresholds or thresholds[-1] <= horizon:
            power = k ** inverse_float
            if abs(power - round(power)) > tolerances.SCHEDULE_FORMULA_FLOAT_GUARD * power:
                thresholds.append(math.ceil(power))
            else:
                thresholds.append(int(mpmath.ceil(mpmath.power(k, inverse) - SCHEDULE_FORMULA_SNAP)))
            k += 1
    floors = np.searchsorted(np.array(thresholds), np.arange(1, horizon + 1), side="right")   # #{k: threshold_k <= b}
    return [t if t <= t0 else t0 + int(floors[t - t0 - 1]) for t in range(1, horizon + 1)]


@claim("trunc.schedule", statement="Theorem 2's s_t = t for t <= t0, t0 + floor((t - t0)^(1/2 + epsilon)) after: s_t = t "
       "up to t0 + 1, and the cut t - s_t grows by 0 or 1 per round",
       reference="Thm. 2; spec 5.3, C8", hypotheses="t0 >= 1, 0 < epsilon < 1/2", expected="holds",
       instances=st.fixed_dictionaries({"t0": st.integers(1, 50), "epsilon": st.floats(0.001, 0.499)}),
       informative="every instance (the schedule starts cutting before round 2000); s_t is compared with the formula "
                   "evaluated in the claim for t = 1..2000", faults=("theorem2_exponent_halved",))
def schedule_facts(instance, impl=None, precision=None):
    t0, epsilon = instance["t0"], instance["epsilon"]
    schedule = ovk_ref.theorem2_schedule(t0, epsilon)
    windows = [schedule(t) for t in range(1, 2001)]
    cuts = [t - s for t, s in enumerate(windows, 1)]
    formula = schedule_formula(t0, epsilon, 2000)
    mismatches = [f"s_{t} = {s}, the formula gives {f}" for t, (s, f) in enumerate(zip(windows, formula), 1) if s != f]
    mismatches += [f"s_{t} = {windows[t - 1]} != t" for t in range(1, t0 + 2) if windows[t - 1] != t]
    mismatches += [f"the cut grows by {cuts[t - 1] - cuts[t - 2]} at round {t}" for t in range(2, 2001)
                   if cuts[t - 1] - cuts[t - 2] not in (0, 1)]
    return common.discrete(mismatches)


@claim("complexity.onorma", statement="round t makes t-1 kernel evaluations (truncated: min(t-1, s_{t-1}))",
       reference="spec 5.4, C23, E28", hypotheses="any instance, any truncation", expected="holds",
       instances=strategies.onorma_instances("any", truncation=True, min_n=2), uses=("onorma",),
       informative="two rounds or more (a round with kernel evaluations)", needs=("kernel_evaluations",))
def onorma_evaluations(instance, impl, precision=None):
    record = common.run_onorma(impl, instance, precision=precision)
    counts = record["kernel_evaluations"]
    expected = [0] + [min(t - 1, common.window(instance, t - 1)) for t in range(2, len(counts) + 1)]
    return common.discrete([f"round {t}: {int(c)} evaluations, expected {e}" for t, (c, e) in enumerate(zip(counts, expected), 1)
                      if c != e])


@claim("prop1.i", statement="||alpha_{t,t}|| <= eta_t C for all t",
       reference="Prop. 1(i); spec C9", hypotheses="Hyp. 1-2 (a C-Lipschitz loss)", expected="holds",
       instances=strategies.onorma_instances("hyp2", truncation=True), uses=("onorma",),
       informative="a non-zero alpha_{t,t}; margin 1 - ||alpha_{t,t}|| / (eta_t C) at the tightest round",
       faults=("new_coefficient_without_decay",))
def prop1_i(instance, impl, precision=None):
    record = common.run_onorma(impl, instance, precision=precision)
    n = len(record["predictions"])
    ratios = common.rows_norm(record["new_coefficients"]) / (common.step_sizes(instance, n, precision) * instance["C"])
    return Outcome(margin=float(np.min(1 - ratios)), quantities={"max_ratio": float(np.max(ratios)), "round": int(np.argmax(ratios)) + 1},
                   informative=float(np.max(ratios)) > tolerances.IDENTITY_RTOL, observed=float(np.max(ratios)), bound=1.0,
                   settled=common.settled(1 - ratios))


def _norm_bound_outcome(instance, impl, precision, factor) -> Outcome:
    """``||f_t|| <= factor (1 - prod_{k<=t}(1 - eta_k lam))`` for every t, norms from the Gram matrix."""
    trajectory = common.trajectory(impl, instance, precision)
    K = common.kernel(instance)
    n = len(trajectory.X)
    bounds = factor * (1 - common.shrink_products(instance, n, precision))
    norms = [trajectory.norm(K, t) for t in range(1, n + 1)]
    # margin relative to the bound of the round: 1 - ||f_t|| / bound_t, tightest over t
    margins = [float((bounds[t] - norms[t]) / bounds[t]) for t in range(n)]
    worst = int(np.argmin(margins))
    # the bound goes through ||K(., x) a|| <= kappa ||a||: K is PSD only up to PSD_EIGENVALUE for a drawn float B
    return Outcome(margin=float(bounds[worst] - norms[worst]), scale=float(bounds[worst]), tie=tolerances.PSD_EIGENVALUE,
                   quantities={"round": worst + 1, "norm": float(norms[worst]), "bound": float(bounds[worst]),
                               "factor": float(factor)},
                   informative=n >= 2 and common.resolved(float(norms[-1])), observed=float(norms[worst]), bound=float(bounds[worst]),
                   settled=common.settled(margins))


@claim("prop1.ii", statement="||f_t|| <= U (1 - prod_{k<=t}(1 - eta_k lam)) < U = C kappa / lam, also under truncation",
       reference="Prop. 1(ii); spec C10, E14", hypotheses="Hyp. 1-2, f_0 = 0, any truncation", expected="holds",
       instances=st.one_of(strategies.onorma_instances("hyp2", truncation=True, min_n=2), strategies.tight_onorma_instances("hyp2")),
       uses=("onorma",),
       informative="two rounds or more and f_n != 0; margin 1 - ||f_t|| / bound_t at the tightest round",
       faults=("shrink_halved", "U_prop1_kappa_squared", "tie_taken_above_zero"))
def prop1_ii(instance, impl, precision=None):
    return _norm_bound_outcome(instance, impl, precision, common.U(instance, precision))


@claim("prop2.i", statement="||f_t|| <= (2 kappa C_y / lam)(1 - prod_{k<=t}(1 - eta_k lam)) < C_y / kappa, also under truncation",
       reference="Prop. 2(i); spec C12, E17", hypotheses="Hyp. 1, 3 (squared loss, ||y_t|| <= C_y, lam >= 2 kappa^2), f_0 = 0",
       expected="holds", instances=st.one_of(strategies.onorma_instances("hyp3", truncation=True, min_n=2),
                                             strategies.tight_onorma_instances("hyp3")), uses=("onorma",),
       informative="two rounds or more and f_n != 0; margin 1 - ||f_t|| / bound_t at the tightest round")
def prop2_i(instance, impl, precision=None):
    return _norm_bound_outcome(instance, impl, precision, common.constant(constants.PROP2_NORM_FACTOR, instance, precision))


@claim("prop2.i_without_lam", statement="Prop. 2(i) without lam > 2 kappa^2: ||f_t|| < C_y / kappa",
       reference="Prop. 2(i), Hyp. 3(iii); spec C12", hypotheses="Hyp. 1, 3(i)-(ii) only: lam < 2 kappa^2 (breaks Hyp. 3(iii))",
       expected="false", instances=strategies.onorma_instances("hyp3_without_lam"), uses=("onorma",),
       informative="f_n != 0",
       known_counterexamples=[{"kernel": {"type": "gaussian_separable", "mu": 1.0, "B": [[1.0]]}, "p": 1, "d": 1,
                               "loss": "squared", "C": None, "C_y": 1.0, "truncation": None, "X": [[0.0]], "Y": [[1.0]],
                               "lam": 0.1, "eta": 5.0, "kappa2": 1.0}],
       notes="shows that Hyp. 3(iii) is needed: without it the squared-loss iterates can grow without bound")
def prop2_i_without_lam(instance, impl, precision=None):
    trajectory = common.trajectory(impl, instance, precision)
    K = common.kernel(instance)
    bound = common.constant(constants.C_y / constants.kappa, instance)
    norms = np.array([float(trajectory.norm(K, t)) for t in range(1, len(trajectory.X) + 1)])
    return Outcome(margin=float(bound - norms.max()), scale=bound, quantities={"max_norm": float(norms.max()), "C_y/kappa": bound},
                   informative=common.resolved(norms), observed=float(norms.max()), bound=bound)


@claim("prop2.iii", statement="||f_{t-1}(x_t) - y_t|| < 2 C_y and ||alpha_{t,t}|| <= 2 eta_t C_y",
       reference="Prop. 2(ii)-(iii); spec C13, E16", hypotheses="Hyp. 1, 3, f_0 = 0, any truncation", expected="holds",
       instances=st.one_of(strategies.onorma_instances("hyp3", truncation=True, min_n=2),
                           strategies.tight_onorma_instances("hyp3", reversal=True)), uses=("onorma",),
       informative="two rounds or more and a non-zero prediction f_{t-1}(x_t)")
def prop2_iii(instance, impl, precision=None):
    record = common.run_onorma(impl, instance, precision=precision)
    _, Y = common.arrays(instance)
    n, C_y = len(Y), instance["C_y"]
    residuals = common.rows_norm(record["predictions"] - Y) / (2 * C_y)
    steps = common.rows_norm(record["new_coefficients"]) / (2 * common.step_sizes(instance, n, precision) * C_y)
    ratio = max(residuals.max(), steps.max())
    per_round = [1 - max(residual, step) for residual, step in zip(residuals, steps)]
    return Outcome(margin=float(1 - ratio), quantities={"max_residual/2C_y": float(residuals.max()), "max_step/(2 eta_t C_y)": float(steps.max()),
                                                        "round": int(np.argmin([float(m) for m in per_round])) + 1},
                   informative=common.resolved(record["predictions"]), observed=float(ratio), bound=1.0,
                   settled=common.settled(per_round))


#: what makes an instance of a bound from ``f_0 != 0`` informative
WARM_INFORMATIVE = ("||f_0|| >= bound / 2 (a start the f_0 = 0 bound says nothing about) and a round whose new coefficient "
                    "is non-zero; margin 1 - ||f_t|| / bound_t at the tightest round")


def _warm_outcome(instance, impl, precision, bound, sharpened: bool) -> Outcome:
    """``||f_t|| <= bound_t`` for t = 0..n from ``f_0 != 0``: ``bound_t = P_{0,t} ||f_0|| + (1 - P_{0,t}) bound``
    (``sharpened``) or ``bound``; norms from the Gram matrix (``common.warm_trajectory``)."""
    warm = common.warm_trajectory(impl, instance, bound, precision)
    K = common.kernel(instance)
    n = len(warm.run.X)
    norms = [warm.norm(K, t) for t in range(n + 1)]
    bounds = [warm.products[t] * norms[0] + (1 - warm.products[t]) * bound if sharpened else bound for t in range(n + 1)]
    # rounds t >= 1 (||f_0|| <= bound is the hypothesis): margin relative to the bound of the round
    margins = [float((bounds[t] - norms[t]) / bounds[t]) for t in range(1, n + 1)]
    worst = int(np.argmin(margins)) + 1
    # the bound goes through ||K(., x) a|| <= kappa ||a||: K is PSD only up to PSD_EIGENVALUE for a drawn float B
    return Outcome(margin=float(bounds[worst] - norms[worst]), scale=float(bounds[worst]), tie=tolerances.PSD_EIGENVALUE,
                   quantities={"round": worst, "norm": float(norms[worst]), "bound": float(bounds[worst]),
                               "norm_f0": float(norms[0])},
                   informative=float(norms[0]) >= float(bound) / 2 and common.resolved(warm.run.record["new_coefficients"]),
                   observed=float(norms[worst]), bound=float(bounds[worst]), settled=common.settled(margins))


@claim("prop1.ii_from_f0", statement="||f_0|| <= U implies ||f_t|| <= P_{0,t} ||f_0|| + (1 - P_{0,t}) U <= U = C kappa / lam for every t",
       reference="Prop. 1(ii); spec C10", hypotheses="Hyp. 1-2, a loss of z - y (norm, Huber, epsilon-insensitive), f_0 != 0, no truncation",
       expected="holds", instances=st.one_of(strategies.warm_onorma_instances("hyp2", min_n=2), strategies.tight_warm_onorma_instances("hyp2", max_n=4)),
       uses=("onorma",), informative=WARM_INFORMATIVE,
       notes="the paper's induction ||f_t|| <= (1 - eta_t lam)||f_{t-1}|| + eta_t kappa C solved with b_0 = ||f_0||; attained at "
             "every t by f_0 = b K(., x*) v with the subgradient -C v every round (strategies.tight_warm_onorma_instances)",
       faults=("shrink_halved",))
def prop1_ii_from_f0(instance, impl, precision=None):
    return _warm_outcome(instance, impl, precision, common.U(instance, precision), sharpened=True)


@claim("prop2.i_from_f0", statement="||f_0|| <= C_y / kappa implies ||f_t|| <= C_y / kappa for every t",
       reference="Prop. 2(i); spec C12, E17", hypotheses="Hyp. 1, 3 (squared loss, ||y_t|| <= C_y, lam >= 2 kappa^2), f_0 != 0, no truncation",
       expected="holds", instances=st.one_of(strategies.warm_onorma_instances("hyp3", min_n=2), strategies.tight_warm_onorma_instances("hyp3", max_n=4)),
       uses=("onorma",), informative=WARM_INFORMATIVE,
       notes="the paper's induction from ||f_0|| <= C_y/kappa; not attained (the first-order change of ||f||^2 at the bound is "
             "-2 eta_t (lam ||f||^2 + ||f(x_t)||^2 - <f(x_t), y_t>) < 0), approached as rho -> 0 from ||f_0|| = C_y/kappa",
       faults=("squared_gradient_without_half",))
def prop2_i_from_f0(instance, impl, precision=None):
    return _warm_outcome(instance, impl, precision, common.constant(constants.C_y / constants.kappa, instance, precision),
                         sharpened=False)
