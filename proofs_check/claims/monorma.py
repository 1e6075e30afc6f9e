"""Claims on Algorithm 2, MONORMA (spec 6, C15-C17, C24, E20, E22): run through ``impl.monorma``.

The identities (gamma, the log-linear form, one kernel, copies) compare the run with quantities computed here from
the spec's formulas (``claims.explicit``), never with another path through ``ovk_ref``.
"""
from __future__ import annotations

import dataclasses

import mpmath
import numpy as np
from hypothesis import strategies as st

import ovk_ref
from proofs_check import strategies, tolerances
from proofs_check.claims import common, explicit
from proofs_check.claims.base import Outcome, claim
from proofs_check.claims.common import close, discrete


def run_monorma(impl, instance, precision=None) -> dict:
    X, Y = common.arrays(instance)
    record = impl.monorma(X, Y, instance["kernels"], lam=instance["lam"], eta=instance["eta"], r=instance["r"],
                          loss=instance["loss"], precision=precision)
    return {name: np.asarray(record[name], dtype=float) for name in
            ("predictions", "weights", "gamma", "coefficients", "new_coefficients", "kernel_evaluations")
            if common.holds_field(record, name)}


def updated_rounds(record, above: float = 0.0) -> list:
    """Rounds t (1-based) whose delta update is not the all-zero case: some ``w_j = (delta^j_{t-1})^2 gamma^j_t > 0``
    (``> above``: ``IDENTITY_ATOL ** 2`` for an update that is more than round-off)."""
    m = record["weights"].shape[1]
    previous = np.vstack([np.full((1, m), 1.0 / m), record["weights"][:-1]])
    w = previous**2 * np.maximum(record["gamma"], 0)
    return [t for t in range(1, len(w) + 1) if np.any(w[t - 1] > above)]


#: every loss but the epsilon-insensitive one: its gradient is 0 whenever ||p_t - y_t|| <= epsilon, which leaves most
#: drawn streams unlearnt (no coefficient, gamma = 0); the identities below hold for every loss
LEARNING_LOSSES = tuple(name for name in (*strategies.REGRESSION_LOSSES, *strategies.CLASSIFICATION_LOSSES)
                        if name != "epsilon_insensitive")


def explicit_gammas(instance, record) -> np.ndarray:
    """n x m: ``gamma^j_t = ||g^j_t||^2`` as the double sum over the closed-form coefficients ``alpha_{i,t}`` built
    from the run's own ``alpha_{i,i}`` (spec 6.2: the quantity the recursion must equal)."""
    X, _ = common.arrays(instance)
    kernels = [ovk_ref.as_kernel(kernel) for kernel in instance["kernels"]]
    blocks = [explicit.kernel_blocks(K, X) for K in kernels]
    return np.array([[explicit.norm2(K, X[:t], explicit.shrunk(record["new_coefficients"], instance["eta"], instance["lam"], t),
                                     K_blocks) for K, K_blocks in zip(kernels, blocks)] for t in range(1, len(X) + 1)])


def _gamma_magnitudes(instance, record) -> np.ndarray:
    """n x m: the size of the terms each ``gamma^j_t`` sums, ``sum_{i,k} |a_i| |K(x_i, x_k)| |a_k|``: a float64
    gamma is resolved relative to it, not to itself."""
    X, _ = common.arrays(instance)
    kernels = [common.PointsGram(ovk_ref.as_kernel(kernel), X) for kernel in instance["kernels"]]   # each Gram matrix once
    return np.array([[float(np.abs(a.ravel()) @ np.abs(K.gram(X[:t])) @ np.abs(a.ravel())) for K in kernels]
                     for t, a in ((t, explicit.shrunk(record["new_coefficients"], instance["eta"], instance["lam"], t))
                                  for t in range(1, len(X) + 1))])


def _cross_terms(instance, record) -> list:
    """``<g^j_{t-1}(x_t), alpha_{t,t}>`` for t >= 2 and every j: the terms the gamma recursion adds beyond the new one."""
    X, _ = common.arrays(instance)
    kernels = [ovk_ref.as_kernel(kernel) for kernel in instance["kernels"]]
    new = record["new_coefficients"]
    return [float(np.dot(explicit.value(K, X[: t - 1], explicit.shrunk(new, instance["eta"], instance["lam"], t - 1), X[t - 1]),
                         new[t - 1])) for t in range(2, len(X) + 1) for K in kernels]


@claim("monorma.gamma", statement="gamma^j_t = ||g^j_t||^2 (the recursion equals the Gram norm), for every kernel j and round t",
       reference="Alg. 2 step 2.1, eq. (6); spec 6.2, C15, E27", hypotheses="any kernels (non-symmetric blocks included)",
       expected="holds", instances=strategies.monorma_instances(min_n=2, among=LEARNING_LOSSES), uses=("monorma",),
       informative="a round t >= 2 with a non-zero cross term <g^j_{t-1}(x_t), alpha_{t,t}>; the Gram norm is the double "
                   "sum over alpha_{i,t} = alpha_{i,i} prod (1 - eta_k lam), computed in the claim",
       faults=("gamma_cross_term_once",))
def gamma(instance, impl, precision=None):
    record = run_monorma(impl, instance, precision)
    expected = explicit_gammas(instance, record)
    allowed = tolerances.IDENTITY_RTOL * _gamma_magnitudes(instance, record) + tolerances.IDENTITY_ATOL
    errors = np.abs(record["gamma"] - expected)
    errors[~np.isfinite(errors)] = np.inf
    worst = np.unravel_index(np.argmax(errors / allowed), errors.shape)
    return Outcome(margin=float(allowed[worst] - errors[worst]), scale=float(allowed[worst]),
                   quantities={"max_error": float(errors[worst]), "round": int(worst[0]) + 1, "kernel": int(worst[1])},
                   informative=common.resolved(_cross_terms(instance, record), order=2),
                   observed=float(errors[worst]), bound=float(allowed[worst]))


@claim("monorma.delta_normalised", statement="sum_j (delta^j_t)^r = 1 and delta^j_t >= 0 after every (non all-zero) update",
       reference="Alg. 2 step 3, closed form (d); spec 6.3, C16, E20", hypotheses="any kernels, r > 0", expected="holds",
       instances=strategies.monorma_instances(min_m=2), uses=("monorma",),
       informative="m >= 2 kernels and a delta update that happened (some w_j > 0)",
       faults=("delta_exponents_misparsed", "monorma_weights_on_simplex"))
def delta_normalised(instance, impl, precision=None):
    record = run_monorma(impl, instance, precision)
    rounds = updated_rounds(record)
    if not rounds:
        return Outcome(margin=tolerances.DELTA_NORMALISATION, scale=tolerances.DELTA_NORMALISATION,
                       quantities={"updated_rounds": 0}, informative=False)
    weights = record["weights"][[t - 1 for t in rounds]]
    sums = np.sum(np.abs(weights) ** instance["r"], axis=1)
    error = float(np.max(np.abs(sums - 1))) if np.all(np.isfinite(sums)) else float("inf")
    negative = float(-np.min(weights))
    margin = min(tolerances.DELTA_NORMALISATION - error, -negative if negative > 0 else tolerances.DELTA_NORMALISATION)
    return Outcome(margin=margin, scale=tolerances.DELTA_NORMALISATION, quantities={"max_error": error, "updated_rounds": len(rounds)},
                   informative=len(instance["kernels"]) >= 2 and bool(updated_rounds(record, tolerances.IDENTITY_ATOL**2)),
                   observed=error, bound=tolerances.DELTA_NORMALISATION)


@claim("monorma.delta_log_linear", statement="delta^j_t is proportional to (delta^j_0)^(q^t) prod_s (gamma^j_s)^(q^(t-s)/(r+1)), q = 2/(r+1)",
       reference="spec 6.3 (closed form over time), C16",
       hypotheses="while every gamma^j_s > 0 (resolved: above GAMMA_CANCELLATION of the size of its terms)", expected="holds",
       instances=strategies.monorma_instances(min_n=2, min_m=2, among=LEARNING_LOSSES),
       uses=("monorma",),
       informative="m >= 2, two rounds or more with every gamma^j_s resolved and delta_1 not uniform; gamma^j_s is the "
                   "Gram norm computed in the claim, not the run's recursion",
       faults=("monorma_weights_without_square",))
def delta_log_linear(instance, impl, precision=None):
    record = run_monorma(impl, instance, precision)
    gammas = explicit_gammas(instance, record)
    # resolved gammas: not the last digits of terms that cancel (a gamma that is 0 exactly comes out as 1e-33 or so
    # from terms of size 1, and its root would be noise); a small gamma of terms that do not cancel is resolved
    resolved = gammas > tolerances.GAMMA_CANCELLATION * _gamma_magnitudes(instance, record)
    m, r = record["weights"].shape[1], instance["r"]
    observed, expected = [], []
    with mpmath.workdps(40):
        q = mpmath.mpf(2) / (r + 1)
        for t in range(1, len(gammas) + 1):
            if not np.all(resolved[:t]):
                break
            logs = [q**t * mpmath.log(mpmath.mpf(1) / m) +
                    mpmath.fsum(q ** (t - s) / (r + 1) * mpmath.log(gammas[s - 1, j]) for s in range(1, t + 1))
                    for j in range(m)]
            top = max(logs)
            unnormalised = [mpmath.exp(value - top) for value in logs]
            norm = mpmath.fsum(u**r for u in unnormalised) ** (1 / mpmath.mpf(r))
            expected.extend(float(u / norm) for u in unnormalised)
            observed.extend(record["weights"][t - 1])
    outcome = close(observed, expected, rounds=len(observed) // m)
    first = np.asarray(expected[:m])
    outcome.informative = len(observed) >= 2 * m and m >= 2 and float(first.max() - first.min()) > 1e-6 * float(first.max())
    return outcome


def _onorma_identity(instance, record, kernel, delta: float) -> Outcome:
    """MONORMA's predictions against Algorithm 1 written out in the claim with ``kernel``, and delta_t = ``delta``
    on every updated round (spec 6.4)."""
    X, Y = common.arrays(instance)
    predictions = explicit.onorma_predictions(kernel, ovk_ref.as_loss(instance["loss"]), X, Y, instance["lam"], instance["eta"])
    rounds = updated_rounds(record)
    weights = record["weights"][[t - 1 for t in rounds]].ravel()
    outcome = close(np.concatenate([record["predictions"].ravel(), weights]),
                    np.concatenate([predictions.ravel(), np.full(weights.shape, delta)]))
    outcome.informative = bool(updated_rounds(record, tolerances.IDENTITY_ATOL**2)) and common.resolved(predictions)
    return outcome


@claim("monorma.one_kernel", statement="m = 1: delta_t = 1 and MONORMA's predictions equal ONORMA's",
       reference="spec 6.4, C17", hypotheses="one kernel, any r > 0", expected="holds", uses=("monorma",),
       instances=strategies.monorma_instances(max_m=1, min_n=2, among=LEARNING_LOSSES).filter(
           lambda i: np.any(np.asarray(i["X"])[1:] != 0)),   # x_t = 0 for t >= 2 predicts 0 with a linear kernel
       informative="a delta update and a non-zero prediction; ONORMA is Algorithm 1 written out in the claim")
def one_kernel(instance, impl, precision=None):
    record = run_monorma(impl, instance, precision)
    return _onorma_identity(instance, record, ovk_ref.as_kernel(instance["kernels"][0]), 1.0)


@claim("monorma.copies", statement="m copies of K: delta^j_t = m^(-1/r) and MONORMA = ONORMA with the kernel m^(1-1/r) K",
       reference="spec 6.4, C17", hypotheses="m identical kernels, r > 0; a loss with a continuous gradient (compared in float64)",
       expected="holds", uses=("monorma",),
       instances=strategies.monorma_instances(copies=True, min_m=2, min_n=3, among=strategies.SMOOTH_LOSSES),
       informative="m >= 2, a delta update and a non-zero prediction; ONORMA is Algorithm 1 written out in the claim",
       notes="the kernel m^(1-1/r) K is rounded, so the two trajectories agree to round-off only, and at a kink of a "
             "non-smooth loss round-off picks another subgradient: thorough found a multiclass-hinge stream with tied "
             "class scores where the two differ by 0.82 (strategies.SMOOTH_LOSSES)",
       faults=("monorma_prediction_without_weights",))
def copies(instance, impl, precision=None):
    record = run_monorma(impl, instance, precision)
    m, r = len(instance["kernels"]), instance["r"]
    kernel = strategies.scaled(ovk_ref.as_kernel(instance["kernels"][0]), m ** (1 - 1 / r))
    return _onorma_identity(instance, record, kernel, m ** (-1 / r))


@claim("complexity.monorma", statement="round t makes m t kernel evaluations", reference="spec 6.6, C24, E28",
       hypotheses="any instance", expected="holds", instances=strategies.monorma_instances(min_n=2), uses=("monorma",),
       informative="two rounds or more")
def monorma_evaluations(instance, impl, precision=None):
    record = run_monorma(impl, instance, precision)
    m = len(instance["kernels"])
    outcome = discrete([t for t, count in enumerate(record["kernel_evaluations"], 1) if count != m * t])
    outcome.informative = len(record["kernel_evaluations"]) >= 2
    return outcome


#: the constant feature kernel A(x) = 1 (K = 1 everywhere) on p inputs
def _constant_feature(p: int) -> dict:
    return {"type": "feature", "M": [[[1.0]]] + [[[0.0]]] * p}


@st.composite
def _vanishing_at_zero(draw, p: int):
    """A kernel of spec 3 with ``K(x, .) = 0`` at ``x = 0``: linear, polynomial without offset, non-separable, feature
    without constant term (d = 1)."""
    B = [[draw(strategies.positive_weights())]]
    return draw(st.sampled_from([
        {"type": "linear_separable", "B": B}, {"type": "polynomial_separable", "degree": 2, "offset": 0.0, "B": B},
        {"type": "linear_quadratic", "mu": draw(st.floats(0.0, 1.0)), "d": 1},
        {"type": "feature", "M": [[[0.0]]] + [[[draw(st.floats(-2.0, 2.0))]] for _ in range(p)]}]))


@st.composite
def _all_zero_instances(draw):
    """An all-zero round at t = 2 after delta moved (spec 6.3, E22), exact in float64: the constant kernel ``K = 1``
    and kernels that vanish at ``x = 0``; ``lam = 1/2``, ``eta = sqrt(2)`` (``eta_2 = 1``, ``c_2 = 1/2`` exactly),
    ``r = 1``, squared loss. Round 1 at ``x = 0`` with ``y_1 = +-2^j``: only the constant kernel learns, so
    ``delta_1 = e_const`` (moved from 1/m); round 2 at ``x = 0`` with ``y_2 = alpha_{1,1} / 2``: ``alpha_{2,2} =
    -c_2 alpha_{1,1}`` cancels ``g_1``, every ``gamma^j_2 = 0``. Then up to four rounds drawn at random."""
    p, others = draw(strategies.dimensions), draw(st.integers(1, 2))
    kernels = [_constant_feature(p)] + [draw(_vanishing_at_zero(p)) for _ in range(others)]
    kernels = draw(st.permutations(kernels))
    y_1 = draw(st.sampled_from([1.0, -1.0])) * 2.0 ** draw(st.integers(-3, 3))
    alpha = float(np.sqrt(2.0)) * y_1   # alpha_{1,1} = -eta_1 (0 - y_1)
    X, Y = draw(strategies.streams(p, 1, max_n=4))
    return {"kernels": kernels, "p": p, "d": 1, "X": [[0.0] * p] * 2 + X.tolist(), "Y": [[y_1], [alpha / 2]] + Y.tolist(),
            "lam": 0.5, "eta": float(np.sqrt(2.0)), "r": 1.0, "loss": "squared"}


@claim("monorma.all_zero_keeps_delta", statement="when every w_j = (delta^j_{t-1})^2 gamma^j_t is 0 the update keeps "
       "delta_{t-1} (no 0/0), also after delta moved",
       reference="Alg. 2 step 3; spec 6.3, E22", hypotheses="any kernels, r > 0", expected="holds", uses=("monorma",),
       instances=_all_zero_instances(),
       informative="an all-zero round at t >= 2 after delta moved (delta_{t-1} != 1/m), as the run computed w",
       faults=("all_zero_resets_delta",))
def all_zero(instance, impl, precision=None):
    record = run_monorma(impl, instance, precision)
    m = len(instance["kernels"])
    previous = np.vstack([np.full((1, m), 1.0 / m), record["weights"][:-1]])
    w = previous**2 * np.maximum(record["gamma"], 0)
    rounds = [t for t in range(1, len(w) + 1) if not np.any(w[t - 1] > 0)]
    outcome = close(record["weights"][[t - 1 for t in rounds]], previous[[t - 1 for t in rounds]], rounds=rounds)
    outcome.informative = any(t >= 2 and np.any(previous[t - 1] != 1.0 / m) for t in rounds)
    return outcome


@st.composite
def _weight_vectors(draw):
    return {"w": draw(st.lists(strategies.log_uniform(1e-3, 1e3), min_size=1, max_size=4)),
            "r": draw(strategies.log_uniform(0.1, 10.0))}


@claim("monorma.exponents_literal", statement="the box's exponents read literally, (1/r)+1 and (r/r)+1, keep sum_j delta_j^r = 1",
       reference="Alg. 2 step 3 as printed; spec 6.3, E20", hypotheses="w_j > 0, r > 0", expected="false",
       instances=_weight_vectors(), informative="every instance", known_counterexamples=[{"w": [10.0], "r": 10.0}, {"w": [0.3, 1.7, 0.05], "r": 2.0}],
       notes="only 1/(r+1) and r/(r+1) normalise; e.g. w = (0.3, 1.7, 0.05), r = 2")
def exponents_literal(instance, impl=None, precision=None):
    w, r = np.asarray(instance["w"]), instance["r"]
    delta = w ** (1 / r + 1) / np.sum(w ** (r / r + 1)) ** (1 / r)
    error = abs(float(np.sum(delta**r)) - 1)
    return Outcome(margin=tolerances.DELTA_NORMALISATION - error, scale=tolerances.DELTA_NORMALISATION,
                   quantities={"sum_delta_r": float(np.sum(delta**r))}, observed=error, bound=tolerances.DELTA_NORMALISATION)


@st.composite
def _uniform_start_instances(draw):
    """A MONORMA instance (m >= 2 kernels) with a uniform start ``delta_0 = c 1`` (``strategies.delta_starts``) and a scale
    ``s`` of ``delta_{t-1}`` (log-uniform in [1e-3, 1e3])."""
    instance = draw(strategies.monorma_instances(min_m=2, min_n=2, among=LEARNING_LOSSES))
    return {**instance, "delta0": draw(strategies.delta_starts()), "scale": draw(strategies.log_uniform(1e-3, 1e3))}


def start_value(instance) -> float:
    """The ``c`` of the instance's ``delta_0 = c 1``: a number, ``1/m`` or ``m^(-1/r)``."""
    m, c = len(instance["kernels"]), instance["delta0"]
    return {"1/m": 1.0 / m, "m^(-1/r)": m ** (-1.0 / instance["r"])}.get(c, c) if isinstance(c, str) else float(c)


def run_from(instance, delta0: float) -> dict:
    """ovk_ref's MONORMA learner started from ``delta_0 = delta0 1`` (the interface of ``monorma`` fixes ``1/m``)."""
    X, Y = common.arrays(instance)
    learner = ovk_ref.MONORMA(instance["kernels"], lam=instance["lam"], eta=instance["eta"], r=instance["r"], loss=instance["loss"])
    learner.state = dataclasses.replace(learner.state, weights=np.full(len(instance["kernels"]), float(delta0)))
    record = ovk_ref.run_monorma(learner, X, Y)
    return {name: np.asarray(record[name], dtype=float) for name in ("predictions", "weights", "gamma", "new_coefficients")}


@claim("monorma.delta_homogeneous", statement="the delta update is invariant under delta_{t-1} -> s delta_{t-1}, so any uniform "
       "delta_0 (1/m, m^(-1/r), 1, ...) gives the same run from t = 1 on",
       reference="Alg. 2 step 3, E21; spec 6.3, C16", hypotheses="any kernels, r > 0, a uniform delta_0 = c 1", expected="holds",
       instances=_uniform_start_instances(),
       informative="m >= 2, two rounds or more and a delta update that happened (some w_j > 0); ovk_ref's learner started "
                   "from delta_0 = c 1 (the monorma interface fixes 1/m)",
       notes="w_j = (delta^j_{t-1})^2 gamma^j_t scales by s^2 and delta^j_t = w_j^(1/(r+1)) / (sum_k w_k^(r/(r+1)))^(1/r) is "
             "homogeneous of degree 0 in w (symbolic.PROOFS['monorma_delta_homogeneous']); f_0 = 0, so delta_0 enters "
             "only through w at round 1; the update at every round is also compared with itself at s delta_{t-1}",
       faults=("delta_exponents_misparsed",))
def delta_homogeneous(instance, impl=None, precision=None):
    paper = run_from(instance, 1.0 / len(instance["kernels"]))
    other = run_from(instance, start_value(instance))
    rounds = updated_rounds(paper)
    after = [t - 1 for t in range(1, len(paper["weights"]) + 1) if rounds and t >= rounds[0]]   # delta_0 kept before
    m = len(instance["kernels"])
    previous = np.vstack([np.full((1, m), 1.0 / m), paper["weights"][:-1]])
    learner = ovk_ref.MONORMA(instance["kernels"], lam=instance["lam"], eta=instance["eta"], r=instance["r"], loss=instance["loss"])
    scaled = [learner.next_weights((instance["scale"] * previous[t - 1]) ** 2 * np.maximum(paper["gamma"][t - 1], 0))
              for t in rounds]
    outcome = close(np.concatenate([other["predictions"].ravel(), other["new_coefficients"].ravel(), other["weights"][after].ravel(),
                                    np.ravel(scaled)]),
                    np.concatenate([paper["predictions"].ravel(), paper["new_coefficients"].ravel(), paper["weights"][after].ravel(),
                                    paper["weights"][[t - 1 for t in rounds]].ravel()]), rounds=len(rounds))
    outcome.informative = m >= 2 and len(paper["weights"]) >= 2 and bool(updated_rounds(paper, tolerances.IDENTITY_ATOL**2))
    return outcome
