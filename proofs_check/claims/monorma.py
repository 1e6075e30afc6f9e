"""Claims on Algorithm 2, MONORMA (spec 6, C15-C17, C24, E20, E22): run through ``impl.monorma``."""
from __future__ import annotations

import mpmath
import numpy as np
from hypothesis import strategies as st

import ovk_ref
from ovk_ref import tolerances
from proofs_check import strategies
from proofs_check.claims import common
from proofs_check.claims.base import Outcome, claim
from proofs_check.claims.common import close, discrete


def run_monorma(impl, instance, precision=None) -> dict:
    X, Y = common.arrays(instance)
    record = impl.monorma(X, Y, instance["kernels"], lam=instance["lam"], eta=instance["eta"], r=instance["r"],
                          loss=instance["loss"], precision=precision)
    return {name: np.asarray(record[name], dtype=float) for name in
            ("predictions", "weights", "gamma", "coefficients", "new_coefficients", "kernel_evaluations")}


def _updated_rounds(record) -> list:
    """Rounds t (1-based) whose delta update is not the all-zero case: some ``w_j = (delta^j_{t-1})^2 gamma^j_t > 0``."""
    m = record["weights"].shape[1]
    previous = np.vstack([np.full((1, m), 1.0 / m), record["weights"][:-1]])
    w = previous**2 * np.maximum(record["gamma"], 0)
    return [t for t in range(1, len(w) + 1) if np.any(w[t - 1] > 0)]


@claim("monorma.gamma", statement="gamma^j_t = ||g^j_t||^2 (the recursion equals the Gram norm), for every kernel j",
       reference="Alg. 2 step 2.1, eq. (6); spec 6.2, C15, E27", hypotheses="any kernels (non-symmetric blocks included)",
       expected="holds", instances=strategies.monorma_instances(), uses=("monorma",))
def gamma(instance, impl, precision=None):
    record = run_monorma(impl, instance, precision)
    X, _ = common.arrays(instance)
    a = record["coefficients"].ravel()
    grams = [ovk_ref.as_kernel(kernel).gram(X) for kernel in instance["kernels"]]
    expected = [float(a @ G @ a) for G in grams]
    outcome = close(record["gamma"][-1], expected)
    magnitude = max(float(np.abs(a) @ np.abs(G) @ np.abs(a)) for G in grams)   # the Gram sum's own scale
    allowed = tolerances.IDENTITY_RTOL * magnitude + tolerances.IDENTITY_ATOL
    error = outcome.quantities["max_error"]
    return Outcome(margin=allowed - error, scale=allowed, quantities={"max_error": error})


@claim("monorma.delta_normalised", statement="sum_j (delta^j_t)^r = 1 and delta^j_t >= 0 after every (non all-zero) update",
       reference="Alg. 2 step 3, closed form (d); spec 6.3, C16, E20", hypotheses="any kernels, r > 0", expected="holds",
       instances=strategies.monorma_instances(), uses=("monorma",))
def delta_normalised(instance, impl, precision=None):
    record = run_monorma(impl, instance, precision)
    rounds = _updated_rounds(record)
    if not rounds:
        return Outcome(margin=1.0, quantities={"updated_rounds": 0})
    weights = record["weights"][[t - 1 for t in rounds]]
    sums = np.sum(np.abs(weights) ** instance["r"], axis=1)
    error = float(np.max(np.abs(sums - 1))) if np.all(np.isfinite(sums)) else float("inf")
    negative = float(-np.min(weights))
    margin = min(tolerances.DELTA_NORMALISATION - error, -negative if negative > 0 else tolerances.DELTA_NORMALISATION)
    return Outcome(margin=margin, scale=tolerances.DELTA_NORMALISATION, quantities={"max_error": error, "updated_rounds": len(rounds)})


@claim("monorma.delta_log_linear", statement="delta^j_t is proportional to (delta^j_0)^(q^t) prod_s (gamma^j_s)^(q^(t-s)/(r+1)), q = 2/(r+1)",
       reference="spec 6.3 (closed form over time), C16", hypotheses="while every gamma^j_s > 0", expected="holds",
       instances=strategies.monorma_instances(), uses=("monorma",))
def delta_log_linear(instance, impl, precision=None):
    record = run_monorma(impl, instance, precision)
    m, r = record["weights"].shape[1], instance["r"]
    observed, expected = [], []
    with mpmath.workdps(40):
        q = mpmath.mpf(2) / (r + 1)
        for t in range(1, len(record["gamma"]) + 1):
            if not np.all(record["gamma"][:t] > 0):
                break
            logs = [q**t * mpmath.log(mpmath.mpf(1) / m) +
                    mpmath.fsum(q ** (t - s) / (r + 1) * mpmath.log(record["gamma"][s - 1, j]) for s in range(1, t + 1))
                    for j in range(m)]
            top = max(logs)
            unnormalised = [mpmath.exp(value - top) for value in logs]
            norm = mpmath.fsum(u**r for u in unnormalised) ** (1 / mpmath.mpf(r))
            expected.extend(float(u / norm) for u in unnormalised)
            observed.extend(record["weights"][t - 1])
    return close(observed, expected, rounds=len(observed) // m)


@claim("monorma.one_kernel", statement="m = 1: delta_t = 1 and MONORMA's predictions equal ONORMA's",
       reference="spec 6.4, C17", hypotheses="one kernel, any r > 0", expected="holds", uses=("monorma",),
       instances=strategies.monorma_instances(max_m=1))
def one_kernel(instance, impl, precision=None):
    record = run_monorma(impl, instance, precision)
    X, Y = common.arrays(instance)
    reference = ovk_ref.onorma(X, Y, instance["kernels"][0], lam=instance["lam"], eta=instance["eta"], loss=instance["loss"])
    rounds = _updated_rounds(record)
    weights = record["weights"][[t - 1 for t in rounds], 0] if rounds else np.ones(1)
    return close(np.concatenate([record["predictions"].ravel(), weights]),
                  np.concatenate([reference.predictions.ravel(), np.ones_like(weights)]))


@claim("monorma.copies", statement="m copies of K: delta^j_t = m^(-1/r) and MONORMA = ONORMA with the kernel m^(1-1/r) K",
       reference="spec 6.4, C17", hypotheses="m identical kernels, r > 0", expected="holds", uses=("monorma",),
       instances=strategies.monorma_instances(copies=True))
def copies(instance, impl, precision=None):
    record = run_monorma(impl, instance, precision)
    X, Y = common.arrays(instance)
    m, r = len(instance["kernels"]), instance["r"]
    kernel = strategies.scaled(ovk_ref.as_kernel(instance["kernels"][0]), m ** (1 - 1 / r))
    reference = ovk_ref.onorma(X, Y, kernel, lam=instance["lam"], eta=instance["eta"], loss=instance["loss"])
    rounds = _updated_rounds(record)
    weights = record["weights"][[t - 1 for t in rounds]].ravel()
    return close(np.concatenate([record["predictions"].ravel(), weights]),
                  np.concatenate([reference.predictions.ravel(), np.full(weights.shape, m ** (-1 / r))]))


@claim("complexity.monorma", statement="round t makes m t kernel evaluations", reference="spec 6.6, C24, E28",
       hypotheses="any instance", expected="holds", instances=strategies.monorma_instances(), uses=("monorma",))
def monorma_evaluations(instance, impl, precision=None):
    record = run_monorma(impl, instance, precision)
    m = len(instance["kernels"])
    return discrete([t for t, count in enumerate(record["kernel_evaluations"], 1) if count != m * t])


@st.composite
def _all_zero_instances(draw):
    instance = draw(strategies.monorma_instances())
    Y = np.asarray(instance["Y"], dtype=float)
    Y[0] = 0.0   # squared loss with y_1 = 0: alpha_{1,1} = 0, every gamma^j_1 = 0 (spec 6.3)
    return {**instance, "Y": Y.tolist(), "loss": "squared"}


@claim("monorma.all_zero_keeps_delta", statement="when every gamma^j_t = 0 the update keeps delta_{t-1} (no 0/0)",
       reference="Alg. 2 step 3; spec 6.3, E22", hypotheses="squared loss, y_1 = 0", expected="holds", uses=("monorma",),
       instances=_all_zero_instances())
def all_zero(instance, impl, precision=None):
    record = run_monorma(impl, instance, precision)
    m = len(instance["kernels"])
    return close(record["weights"][0], np.full(m, 1.0 / m))


@st.composite
def _weight_vectors(draw):
    return {"w": draw(st.lists(strategies.log_uniform(1e-3, 1e3), min_size=1, max_size=4)),
            "r": draw(strategies.log_uniform(0.1, 10.0))}


@claim("monorma.exponents_literal", statement="the box's exponents read literally, (1/r)+1 and (r/r)+1, keep sum_j delta_j^r = 1",
       reference="Alg. 2 step 3 as printed; spec 6.3, E20", hypotheses="w_j > 0, r > 0", expected="false",
       instances=_weight_vectors(), known_counterexamples=[{"w": [10.0], "r": 10.0}, {"w": [0.3, 1.7, 0.05], "r": 2.0}],
       notes="only 1/(r+1) and r/(r+1) normalise; e.g. w = (0.3, 1.7, 0.05), r = 2")
def exponents_literal(instance, impl=None, precision=None):
    w, r = np.asarray(instance["w"]), instance["r"]
    delta = w ** (1 / r + 1) / np.sum(w ** (r / r + 1)) ** (1 / r)
    error = abs(float(np.sum(delta**r)) - 1)
    return Outcome(margin=tolerances.DELTA_NORMALISATION - error, scale=tolerances.DELTA_NORMALISATION,
                   quantities={"sum_delta_r": float(np.sum(delta**r))})
