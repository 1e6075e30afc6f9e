"""MONORMA's guarantees: the bounds the paper leaves open, stated and decided (spec 6; paper, conclusion).

The paper proves bounds for ONORMA only and lists "deriving cumulative error bound for MONORMA" as future work.
The natural candidates, in the notation of spec 6 (``g^j_t``, ``f_t = sum_j delta^j_t g^j_t``, ``gamma^j_t``,
``kappa_max^2 = max_j kappa_j^2``, ``K_delta = sum_j delta_j K^j``):

1. ``monorma.best_kernel``: Theorem 1 against the best single kernel (false: a first round that zeroes the
   fitting kernel's gamma locks MONORMA onto a kernel that cannot fit the stream; the gap does not vanish, so the
   ``o(1)`` form fails too: docs/monorma-guarantees.md, notebook 06);
2. ``monorma.best_combination``: against the best fixed combination ``K_delta``, ``sum_j delta_j^r <= 1`` (false,
   the same streams: a single kernel is such a combination);
3. ``monorma.beats_best_onorma`` / ``monorma.beats_worst_onorma``: MONORMA's cumulative loss against ONORMA's
   with its kernels (false, both); ``monorma.beats_worst_onorma_r1``: the same at r = 1 with distinct kernels (false:
   three rounds suffice, two cannot);
4. ``monorma.norm_prop1`` (Prop. 1(ii) with ``kappa_max``; false for ``r > 1``) and ``monorma.norm_prop1_factor``
   (with the factor ``m^((1 - 1/r)_+ / 2)``; holds, proved in docs/monorma-guarantees.md, each step checked);
   ``monorma.norm_prop2_factor`` (Prop. 2(i) for the squared loss with that factor, under
   ``lam > 2 m^((1-1/r)_+) kappa_max^2``; holds, proved, each step checked); under Hyp. 3's ``lam > 2 kappa_max^2``
   alone, ``monorma.norm_prop2`` (Prop. 2(i)'s bound) and ``monorma.norm_prop2_factor_hyp3`` (with the factor) are
   false for r > 1, and so is statement 1, ``monorma.best_kernel_hyp3`` (m copies make MONORMA ONORMA with
   ``m^(1-1/r) K``, outside Hyp. 3);
5. ``monorma.zero_weight_absorbing`` (holds); ``sum_j (delta^j_t)^r = 1`` is ``monorma.delta_normalised``;
6. the cost per round is ``complexity.monorma``.

The losses of ONORMA and the RKHS norms are computed here from the spec's formulas (``claims.explicit``), never
through ``ovk_ref``; the comparators ``min R_reg`` are the certified ones of
``proofs_check.comparators``.
"""
from __future__ import annotations

import json
import math

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st

import ovk_ref
from ovk_ref import arithmetic
from ovk_ref.arithmetic import Arithmetic
from proofs_check import comparators, constants, strategies, tolerances
from proofs_check.claims import common, explicit
from proofs_check.claims.base import Outcome, claim
from proofs_check.claims.common import discrete
from proofs_check.claims.monorma import explicit_gammas, run_monorma


def online_losses(instance, predictions) -> list:
    """``l(f_{t-1}(x_t), y_t)`` for t = 1..n: MONORMA's online losses (in the predictions' number type)."""
    loss = ovk_ref.as_loss(instance["loss"])
    _, Y = common.arrays(instance)
    return [loss.value(prediction, arithmetic.lift(y, prediction)) for prediction, y in zip(predictions, Y)]


def combined_kernel(instance, delta) -> ovk_ref.Feature:
    """``K_delta = sum_j delta_j K^j`` of feature kernels ``A_j A_j^T``: the feature kernel of the stacked
    ``sqrt(delta_j) A_j`` (spec 3.3, 6.4)."""
    blocks = [math.sqrt(weight) * ovk_ref.as_kernel(kernel).M for weight, kernel in zip(delta, instance["kernels"])]
    return ovk_ref.Feature(np.concatenate(blocks, axis=2))


def _kernel_of(instance, delta):
    """``K_delta``: at a vertex ``e_j`` the kernel ``K^j`` itself (any kernel of spec 3), else ``combined_kernel``."""
    if sorted(delta) == [0.0] * (len(delta) - 1) + [1.0]:
        return ovk_ref.as_kernel(instance["kernels"][delta.index(1.0)])
    return combined_kernel(instance, delta)


def vertex_combinations(instance) -> list:
    m = len(instance["kernels"])
    return [tuple(float(j == k) for k in range(m)) for j in range(m)]


def cumulative_bound(instance, impl, precision, combinations, record=None) -> Outcome:
    """``(1/n) sum_t l(f_{t-1}(x_t), y_t) <= min_delta [min_{g in H_delta} R_reg(g, n) + a/sqrt(n) + b/n]`` at the last
    prefix, with Theorem 1's constants for ``K_delta`` (``U = C kappa_delta / lam`` under Hyp. 2, ``U =
    max(C_y / kappa_delta, 2 C_y / lam)`` for the squared loss under Hyp. 3: ``common.U``); ``delta`` over
    ``combinations``. The right side at any one ``delta`` bounds the minimum from above, and the comparator's
    certified upper end is used: a negative margin is a violation of every reading of the statement (the online
    losses alone are below Theorem 1's regularised left side). ``record``: the float64 run, when the caller has it
    (proofs.monorma_bounds)."""
    record = record if record is not None else run_monorma(impl, instance, precision) if precision is None else impl.monorma(
        *common.arrays(instance), instance["kernels"], lam=instance["lam"], eta=instance["eta"], r=instance["r"],
        loss=instance["loss"], precision=precision)
    X, Y = common.arrays(instance)
    n = len(X)
    lhs = sum(online_losses(instance, record["predictions"])) / n
    best = None
    for delta in combinations:
        kernel = _kernel_of(instance, delta)
        comparator = comparators.minimum(kernel, X, Y, instance["lam"], instance["loss"], precision)
        u = common.U({**instance, "kappa2": float(constants.kappa2(kernel, instance["p"]))}, precision)
        values = {"U": u, "lam": instance["lam"], "eta": instance["eta"], "n": n}
        excess = constants.evaluate(constants.THEOREM1_EXCESS, **values) if precision else constants.value(constants.THEOREM1_EXCESS, **values)
        if best is None or comparator.upper + excess < best[0] + best[1]:
            best = (comparator.upper, excess, comparator.lower, delta)
    upper, excess, lower, delta = best
    margin = upper + excess - lhs
    return Outcome(margin=float(margin), scale=float(excess), magnitude=float(abs(lhs) + abs(upper) + excess),
                   quantities={"n": n, "lhs": float(lhs), "min_R_reg_upper": float(upper), "excess": float(excess),
                               "delta": list(delta), "gap_without_excess": float(lhs - upper)},
                   informative=float(lhs - lower) > tolerances.IDENTITY_RTOL * float(abs(lhs) + abs(lower)) + tolerances.IDENTITY_ATOL,
                   observed=float(lhs), bound=float(upper + excess))


#: the shrunk counterexamples of the ci search (regression pins; tests/claims/test_monorma_guarantees.py)
LOCKOUT_128 = strategies.lockout_instance(128, lam=1.0, eta=0.7, r=0.5, loss="norm")
TWO_COPIES = {"kernels": [{"type": "linear_quadratic", "mu": 0.0, "d": 1}] * 2, "p": 1, "d": 1, "X": [[1.0], [1.0]],
              "Y": [[1.0], [0.0]], "lam": 1.0, "eta": 0.5, "r": 2.0, "loss": "squared"}
NORM_COPIES = {"kernels": [{"type": "gaussian_separable", "mu": 1.0, "B": [[1.0]]}] * 2, "p": 1, "d": 1, "X": [[1.0]],
               "Y": [[1.0]], "lam": 1.0, "eta": 0.75, "r": 10.0, "loss": "norm", "kappa2": [1.0, 1.0], "C": 1.0}


def amplifying_copies_instance(n: int, *, m: int = 7, r: float = 5.0, lam: float = 2.00000001, eta: float = 0.495) -> dict:
    """m copies of the Gaussian kernel (``kappa^2 = 1``) at ``x = 1`` with targets ``+1, -1, +1, ...`` and ``lam`` just
    above ``2 kappa_max^2``: hand-checked counterexamples with fewer copies than the ones the searches of
    ``_amplifying_copies`` report (they start from its most amplifying corner, 8 copies, r = 100, rho = 0.99)."""
    return {"kernels": [{"type": "gaussian_separable", "mu": 1.0, "B": [[1.0]]}] * m, "p": 1, "d": 1, "X": [[1.0]] * n,
            "Y": [[(-1.0) ** t] for t in range(n)], "lam": lam, "eta": eta, "r": r, "loss": "squared", "kappa2": [1.0] * m,
            "C_y": 1.0}


#: the cumulative bound broken at n = 5 by 4 copies (S = 4^0.99 < 4), the norm bounds at t = 2 by 7 copies
#: (tests/claims/test_monorma_guarantees.py)
AMPLIFYING_5, AMPLIFYING_2 = amplifying_copies_instance(5, m=4, r=100.0), amplifying_copies_instance(2)

CUMULATIVE_INFORMATIVE = ("MONORMA's average online loss exceeds min R_reg of the comparator (the excess term is needed); "
                          "margin relative to the excess a/sqrt(n) + b/n")


@claim("monorma.best_kernel",
       statement="(1/n) sum_t l(f_{t-1}(x_t), y_t) <= min_j min_{||g||_{H^j}} R_reg(g, n) + a/sqrt(n) + b/n (Theorem 1's a, b with U = C kappa_max / lam)",
       reference="docs/monorma-guarantees.md, statement 1; Thm. 1 for MONORMA; paper, conclusion (future work)",
       hypotheses="Hyp. 1-2 (Lipschitz loss), feature kernels (certified comparator), any r", expected="false",
       instances=strategies.lockout_instances(), uses=("monorma",), informative=CUMULATIVE_INFORMATIVE,
       known_counterexamples=[LOCKOUT_128],
       notes="a first round at a point where the fitting kernel is 0 gives it gamma_1 = 0 and weight 0 for ever (spec 6.3); "
             "MONORMA then runs ONORMA with the constant kernel, whose average loss stays ~y while the fitting kernel's "
             "min R_reg is ~y - 1/(2 lam): a gap that does not vanish, so the o(1) form fails too (notebook 06)")
def best_kernel(instance, impl, precision=None):
    return cumulative_bound(instance, impl, precision, vertex_combinations(instance))


@claim("monorma.best_combination",
       statement="(1/n) sum_t l(f_{t-1}(x_t), y_t) <= min_{sum delta_j^r <= 1} [min_g R_reg^{K_delta}(g, n) + a/sqrt(n) + b/n] (U = C kappa_delta / lam)",
       reference="docs/monorma-guarantees.md, statement 2; Thm. 1 for ONORMA with K_delta (spec 6.4)",
       hypotheses="Hyp. 1-2 (Lipschitz loss), feature kernels, any r", expected="false",
       instances=strategies.lockout_instances(), uses=("monorma",), informative=CUMULATIVE_INFORMATIVE,
       known_counterexamples=[LOCKOUT_128],
       notes="delta over the vertices e_j and the uniform m^(-1/r): any admissible delta bounds the minimum from above")
def best_combination(instance, impl, precision=None):
    m, r = len(instance["kernels"]), instance["r"]
    return cumulative_bound(instance, impl, precision, vertex_combinations(instance) + [(m ** (-1 / r),) * m])


def _onorma_losses(instance) -> list:
    """The cumulative loss of Algorithm 1 with each kernel ``K^j``, written out in the claim (``explicit``)."""
    X, Y = common.arrays(instance)
    loss = ovk_ref.as_loss(instance["loss"])
    totals = []
    for kernel in instance["kernels"]:
        predictions = explicit.onorma_predictions(ovk_ref.as_kernel(kernel), loss, X, Y, instance["lam"], instance["eta"])
        totals.append(float(sum(loss.value(p, y) for p, y in zip(predictions, Y))))
    return totals


@st.composite
def _comparison_instances(draw):
    """Streams where the two learners part: lockout (short), m copies of one kernel (MONORMA = ONORMA with
    m^(1-1/r) K, spec 6.4) and any kernels; r in {1/2, 1, 2} as the issue asks."""
    r = draw(st.sampled_from([0.5, 1.0, 2.0]))
    instance = draw(st.one_of(strategies.lockout_instances(horizons=(3, 5, 8), losses=(LOCKOUT_SMOOTH_LOSS,)),
                              # a loss with a continuous gradient: at a kink a prediction one ulp off (delta = 1 - 1e-16
                              # in place of 1) picks another subgradient, an O(1) difference that is no finding
                              strategies.monorma_instances(copies=True, min_m=2, min_n=2, among=strategies.SMOOTH_LOSSES),
                              strategies.monorma_instances(min_m=2, min_n=2, among=strategies.SMOOTH_LOSSES)))
    return {**instance, "r": r}


#: the Lipschitz loss with a continuous gradient (a lockout stream with the norm loss puts p_t on its kink)
LOCKOUT_SMOOTH_LOSS = {"type": "huber", "delta": 1.0}


def _comparison(instance, impl, pick) -> Outcome:
    record = run_monorma(impl, instance)
    ours = float(sum(online_losses(instance, record["predictions"])))
    onorma = pick(_onorma_losses(instance))
    scale = max(abs(onorma), abs(ours), tolerances.IDENTITY_ATOL)
    # ONORMA is written out in float64 (claims.explicit): a tie is resolved only to IDENTITY_RTOL (a lockout
    # stream makes MONORMA the ONORMA of the kernel it kept, exactly)
    return Outcome(margin=onorma - ours, scale=scale, tie=tolerances.IDENTITY_RTOL, quantities={"monorma": ours, "onorma": onorma},
                   informative=len(instance["X"]) >= 2 and abs(onorma - ours) > tolerances.IDENTITY_RTOL * scale + tolerances.IDENTITY_ATOL,
                   observed=ours, bound=onorma)


COMPARISON_INFORMATIVE = "two rounds or more and cumulative losses that differ by more than round-off"


@claim("monorma.beats_best_onorma", statement="sum_t l(f_{t-1}(x_t), y_t) of MONORMA <= that of ONORMA with the best of its kernels",
       reference="docs/monorma-guarantees.md, statement 3; paper, experiments ('MONORMA performs better than ONORMA')",
       hypotheses="any kernels, any loss, r in {1/2, 1, 2}", expected="false", instances=_comparison_instances(),
       uses=("monorma",), informative=COMPARISON_INFORMATIVE, known_counterexamples=[TWO_COPIES],
       notes="ONORMA is Algorithm 1 written out in the claim (claims.explicit)")
def beats_best_onorma(instance, impl, precision=None):
    return _comparison(instance, impl, min)


@claim("monorma.beats_worst_onorma", statement="sum_t l(f_{t-1}(x_t), y_t) of MONORMA <= that of ONORMA with the worst of its kernels",
       reference="docs/monorma-guarantees.md, statement 3 (weak form)", hypotheses="any kernels, any loss, r in {1/2, 1, 2}", expected="false",
       instances=_comparison_instances(), uses=("monorma",), informative=COMPARISON_INFORMATIVE,
       known_counterexamples=[TWO_COPIES],
       notes="m copies of K with r != 1: MONORMA is ONORMA with m^(1-1/r) K (spec 6.4), a different step size")
def beats_worst_onorma(instance, impl, precision=None):
    return _comparison(instance, impl, max)


#: r = 1, two distinct kernels (constant kernels 1 and 4 at one point), 3 rounds: MONORMA's weights move to the larger
#: kernel between rounds 2 and 3 and amplify its prediction past both ONORMAs' (docs/monorma-guarantees.md, statement 3)
WEIGHT_SHIFT = {"kernels": [{"type": "constant_separable", "c": 1.0, "B": [[1.0]]},
                            {"type": "constant_separable", "c": 4.0, "B": [[1.0]]}],
                "p": 1, "d": 1, "X": [[1.0]] * 3, "Y": [[1.0], [1.0], [0.0]], "lam": 1.0, "eta": 0.25, "r": 1.0, "loss": "squared"}


@st.composite
def _weight_shift_instances(draw):
    """Two constant kernels ``1`` and ``c`` at one point, ``lam = 1``, squared loss, targets ``(y, y, y', ...)``: the
    weights (``delta_t`` proportional to ``sqrt(c_j)^t`` at r = 1) shift to the larger kernel while the target drops,
    so MONORMA overshoots where each ONORMA does not (the first choices are the pinned ``WEIGHT_SHIFT``)."""
    c, rho = draw(st.sampled_from([4.0, 8.0, 2.0])), draw(st.sampled_from([0.25, 0.5]))
    y = draw(st.sampled_from([1.0, 2.0, -1.0]))
    after = draw(st.sampled_from([0.0, -math.copysign(1.0, y)]))
    n = draw(st.sampled_from([3, 4]))
    return {**WEIGHT_SHIFT, "kernels": [WEIGHT_SHIFT["kernels"][0], {**WEIGHT_SHIFT["kernels"][1], "c": c}], "X": [[1.0]] * n,
            "Y": [[y], [y]] + [[after]] * (n - 2), "eta": rho}


@st.composite
def _distinct_r1_instances(draw):
    """r = 1 and pairwise distinct kernels: the targeted family above or any MONORMA instance (smooth losses)."""
    instance = draw(st.one_of(_weight_shift_instances(),
                              strategies.monorma_instances(min_m=2, min_n=2, among=strategies.SMOOTH_LOSSES)))
    assume(len({json.dumps(kernel, sort_keys=True) for kernel in instance["kernels"]}) == len(instance["kernels"]))
    return {**instance, "r": 1.0}


@claim("monorma.beats_worst_onorma_r1",
       statement="r = 1, distinct kernels: sum_t l(f_{t-1}(x_t), y_t) of MONORMA <= that of ONORMA with each of its kernels",
       reference="docs/monorma-guarantees.md, statement 3 at r = 1", hypotheses="r = 1, pairwise distinct kernels, smooth losses",
       expected="false", instances=_distinct_r1_instances(), uses=("monorma",), informative=COMPARISON_INFORMATIVE,
       known_counterexamples=[WEIGHT_SHIFT],
       notes="not the step-size effect of copies (r = 1 keeps sum_j delta_j = 1): at n = 2 MONORMA's prediction is a convex "
             "combination of the ONORMAs' and cannot lose to both; from n = 3 the weights shift between rounds and amplify "
             "the prediction (constant kernels 1 and 4: cumulative 357/400 against 0.8389 and 0.8385)")
def beats_worst_onorma_r1(instance, impl, precision=None):
    return _comparison(instance, impl, max)


def norm_factor2(m: int, r: float, precision=None):
    """``m^((1 - 1/r)_+)``: the largest ``sum_j delta_j`` under ``sum_j delta_j^r = 1`` (Hoelder for r > 1;
    ``sum delta_j <= (sum delta_j^r)^(1/r) = 1`` for r <= 1); the square of the norm bound's factor."""
    num = Arithmetic(precision)
    with num.context():
        exponent = 1 - 1 / num.scalar(r)
        return num.scalar(m) ** max(exponent, 0 * exponent)


def norm_steps(instance, impl, precision=None) -> list:
    """For every prefix t, the proof's quantities (docs/monorma-guarantees.md): ``sum_j delta^j_t ||g^j_t||^2``,
    ``||g^j_t||^2`` and ``sum_j delta^j_t``. ``f_t`` is rebuilt from the run's coefficients on the prefix (an online
    run's state after t rounds) with explicit Gram norms (float64); the weights at the run's precision."""
    X, Y = common.arrays(instance)
    kernels = [ovk_ref.as_kernel(kernel) for kernel in instance["kernels"]]
    steps = []
    records = common.prefix_records(impl, "monorma", X, Y, instance["kernels"], lam=instance["lam"], eta=instance["eta"],
                                    r=instance["r"], loss=instance["loss"], precision=precision)
    blocks = [explicit.kernel_blocks(kernel, X) for kernel in kernels]
    for t, record in enumerate(records, 1):
        delta = np.asarray(record["weights"])[-1]
        coefficients = np.asarray(record["coefficients"], dtype=float)
        norms2 = [explicit.norm2(kernel, X[:t], coefficients, kernel_blocks) for kernel, kernel_blocks in zip(kernels, blocks)]
        prediction = np.asarray(record["predictions"])[-1]     # at the run's precision: ||u_t|| = C is attained
        gradient = ovk_ref.as_loss(instance["loss"]).gradient(prediction, arithmetic.lift(Y[t - 1], prediction))
        steps.append({"t": t, "delta": delta, "norms2": norms2, "norm2": float(np.dot(np.asarray(delta, dtype=float), norms2)),
                      "delta_sum": sum(delta), "gradient_norm": common.rows_norm(np.asarray(gradient)[None, :])[0]})
    return steps


def _norm_outcome(instance, impl, precision, factor2, gradient_bound: float, *, steps_checked: bool) -> Outcome:
    """``||f_t||_{H_delta_t} <= sqrt(factor2) G kappa_max / lam`` with ``G = gradient_bound`` (``C`` under Hyp. 2,
    ``2 C_y`` under Hyp. 3), and with ``steps_checked`` the proof's steps: ``||u_t|| <= G``, (b), (c)."""
    C, lam = gradient_bound, instance["lam"]
    kappas = [math.sqrt(k2) for k2 in instance["kappa2"]]
    bound = math.sqrt(float(factor2)) * C * max(kappas) / lam
    worst, resolved, margins = None, [], []
    for step in norm_steps(instance, impl, precision):
        norm = math.sqrt(max(step["norm2"], 0.0))
        resolved.append(norm)
        checks = [("||f_t||_{H_delta_t} <= bound", norm, bound)]
        if steps_checked:   # the proof's steps (u), (b) and (c), each a checked inequality (``norm_step_values``)
            # (c) is an equality for m copies (delta_j = m^(-1/r)): compared at the run's precision
            checks += [(label, observed, allowed) for name, label, observed, allowed
                       in norm_step_values(step, C, lam, kappas, factor2) if name != "combination"]
        margins.append(math.inf)
        for name, observed, allowed in checks:
            margin = float(allowed - observed)
            if not math.isfinite(margin):
                margin = -math.inf
            margins[-1] = min(margins[-1], margin / float(allowed))
            if worst is None or margin / float(allowed) < worst.relative_margin:
                worst = Outcome(margin=margin, scale=float(allowed), quantities={"round": step["t"], "inequality": name,
                                                                                 "delta": [float(v) for v in step["delta"]]},
                                observed=float(observed), bound=float(allowed))
    worst.informative = len(instance["kernels"]) >= 2 and common.resolved(resolved)
    worst.settled = common.settled(margins)
    return worst


#: how many times ``_tight_copies`` repeats its point (at 8 rounds, 1 - P_{0,8} > 0.9 for rho >= 1/2: ||f_8|| exceeds the
#: bound once m^((1-1/r)/2) > 1.08)
_TIGHT_REPEATS = st.integers(2, 8)


@st.composite
def _tight_copies(draw, top: bool):
    """m copies of a kernel with d = 1 on vertices of the box (where k(x, x) B reaches kappa^2), or with ``top`` the top
    of K(x, x) repeated with a target beyond reach (``strategies.top_direction``), r > 1, rho = eta lam >= 1/2 and a Lipschitz
    loss: where ||f_t||_{H_delta} = m^((1-1/r)/2) ||g_t|| comes closest to the bound (spec 6.4)."""
    p, m = draw(strategies.dimensions), draw(st.integers(2, 3))
    kernel, kappa2 = draw(strategies.kernels_with_kappa2(1, p))
    loss = draw(st.sampled_from(["norm", {"type": "huber", "delta": 1.0}]))
    X, Y = draw(strategies.streams(p, 1, loss=loss, max_n=4, nonzero=True, extreme=True))
    lam = draw(strategies.log_uniform(1e-2, 1e2))
    if top:   # the top of K(x, x) again and again, the target beyond reach: ||u_t|| = C every round and
        # ||g_t|| grows fastest towards the bound (at t = 1 already ||f_1||_{H_delta} = m^((1-1/r)/2) rho C kappa / lam)
        x, v = strategies.top_direction(kernel, p)
        beyond = (ovk_ref.as_loss(loss).lipschitz * kappa2 / lam + 1.0) * draw(strategies.log_uniform(1.01, 100.0))
        times = draw(_TIGHT_REPEATS)
        X, Y = np.repeat(x[None, :], times, axis=0), np.repeat((beyond * v)[None, :], times, axis=0)
    return {"kernels": [kernel.to_dict()] * m, "p": p, "d": 1, "X": X.tolist(), "Y": Y.tolist(), "lam": lam,
            "eta": draw(st.floats(0.5, 0.999)) / lam, "r": draw(st.sampled_from([10.0, 2.0, 5.0])), "loss": loss,
            "kappa2": [kappa2] * m, "C": ovk_ref.as_loss(loss).lipschitz}


NORM_BOUND_INFORMATIVE = "m >= 2 and f_t != 0; ||f_t||^2_{H_delta} = sum_j delta_j ||g^j_t||^2 from explicit Gram norms"


def _norm_instances():
    return st.one_of(_tight_copies(top=True), _tight_copies(top=False), strategies.monorma_instances(hyp2=True, min_m=2),
                     strategies.monorma_instances(hyp2=True, copies=True, min_m=2, extreme=True))


@claim("monorma.norm_prop1", statement="||f_t||_{H_{delta_t}} <= C kappa_max / lam for every t (Prop. 1(ii) with kappa_max)",
       reference="docs/monorma-guarantees.md, statement 4; Prop. 1(ii) for MONORMA; spec C9, 6.4", hypotheses="Hyp. 1-2, any r > 0",
       expected="false", instances=_norm_instances(), uses=("monorma",), known_counterexamples=[NORM_COPIES],
       informative=NORM_BOUND_INFORMATIVE,
       notes="m copies with r > 1: f_t = m^(1-1/r) g_t, ||f_t||^2_{H_delta} = m^(1-1/r) ||g_t||^2, and ||g_1|| = eta_1 C kappa "
             "at a point where K(x, x) = kappa^2 I: violated at t = 1 once rho^2 m^(1-1/r) > 1")
def norm_prop1(instance, impl, precision=None):
    return _norm_outcome(instance, impl, precision, 1.0, instance["C"], steps_checked=False)


@claim("monorma.norm_prop1_factor",
       statement="||f_t||_{H_{delta_t}} <= m^((1-1/r)_+/2) C kappa_max / lam for every t, with each step of its proof",
       reference="docs/monorma-guarantees.md, statement 4 (corrected); docs/monorma-guarantees.md", hypotheses="Hyp. 1-2, any r > 0",
       expected="holds", instances=_norm_instances(), uses=("monorma",),
       informative="m >= 2 and f_t != 0; margin relative to each step's bound (docs/monorma-guarantees.md (a)-(c))")
def norm_prop1_factor(instance, impl, precision=None):
    return _norm_outcome(instance, impl, precision, norm_factor2(len(instance["kernels"]), instance["r"], precision), instance["C"],
                         steps_checked=True)


#: c > 1 in lam = c 2 ... kappa_max^2, near 1 included (strict: c = 1 is E17's boundary)
_ABOVE_ONE = st.one_of(st.just(1.0 + 1e-9), strategies.log_uniform(1.0, 1e2).filter(lambda c: c > 1))


@st.composite
def _squared_loss_instances(draw, *, proof_condition: bool = True):
    """Hyp. 1, 3 for MONORMA: squared loss, ``||y_t|| <= C_y``, m >= 2 kernels or copies, a drawn stream or its first
    example repeated, and
    ``lam = c 2 m^((1-1/r)_+) kappa_max^2`` (the proof's condition) or, without ``proof_condition``,
    ``lam = c 2 kappa_max^2`` (Hyp. 3's own), with ``c > 1`` (``c`` near 1 included)."""
    d, p, m = draw(strategies.dimensions), draw(strategies.dimensions), draw(st.integers(2, 3))
    if draw(st.booleans()):
        pairs = [draw(strategies.kernels_with_kappa2(d, p))] * m
    else:
        pairs = draw(strategies.kernel_lists(d, p, m))
    C_y = draw(strategies.log_uniform(1e-2, 1e2))
    X, Y = draw(strategies.streams(p, d, max_n=6, y_bound=C_y, nonzero=True, extreme=draw(st.booleans())))
    repeated = draw(st.booleans())
    if repeated:   # the first example again and again, rho >= 1/2: where ||f_t|| grows fastest towards the bound
        X, Y = np.repeat(X[:1], len(X), axis=0), np.repeat(Y[:1], len(Y), axis=0)
    r = draw(strategies.monorma_exponents())
    kappa2 = [pair[1] for pair in pairs]
    factor2 = float(norm_factor2(m, r)) if proof_condition else 1.0
    c = draw(_ABOVE_ONE)
    lam = c * 2 * factor2 * max(kappa2)
    return {"kernels": [pair[0].to_dict() for pair in pairs], "p": p, "d": d, "X": X.tolist(), "Y": Y.tolist(), "lam": lam,
            "eta": draw(st.floats(0.5, 0.999) if repeated else strategies.rhos()) / lam, "r": r, "loss": "squared",
            "kappa2": kappa2, "C_y": C_y}


#: how many times ``_tight_squared_copies`` repeats its example
_TIGHT_SQUARED_REPEATS = st.integers(4, 8)


@st.composite
def _tight_squared_copies(draw):
    """Hyp. 1, 3 where the norm bound of ``monorma.norm_prop2_factor`` comes closest: m copies of a kernel with d = 1,
    one point ``x*`` where ``K(x*, x*) = kappa^2`` (``strategies.top_direction``) repeated 4-8 times with the target
    ``+-C_y`` every time, rho = eta lam >= 1/2, and ``lam = c 2 m^((1-1/r)_+) kappa^2``, ``c > 1``: ``||f_t||`` grows
    towards the bound round after round (as ``_tight_copies`` for Hyp. 2)."""
    p, m = draw(strategies.dimensions), draw(st.integers(2, 3))
    kernel, kappa2 = draw(strategies.kernels_with_kappa2(1, p, sums=False))
    x, _ = strategies.top_direction(kernel, p)
    C_y, sign, n = draw(strategies.log_uniform(1e-2, 1e2)), draw(st.sampled_from([1.0, -1.0])), draw(_TIGHT_SQUARED_REPEATS)
    r = draw(strategies.monorma_exponents())
    lam = draw(_ABOVE_ONE) * 2 * float(norm_factor2(m, r)) * kappa2
    return {"kernels": [kernel.to_dict()] * m, "p": p, "d": 1, "X": [x.tolist()] * n, "Y": [[sign * C_y]] * n, "lam": lam,
            "eta": draw(st.floats(0.5, 0.999)) / lam, "r": r, "loss": "squared", "kappa2": [kappa2] * m, "C_y": C_y}


@claim("monorma.norm_prop2_factor",
       statement="squared loss, lam > 2 m^((1-1/r)_+) kappa_max^2: ||f_t||_{H_{delta_t}} <= m^((1-1/r)_+/2) 2 kappa_max C_y / lam for every t",
       reference="docs/monorma-guarantees.md, statement 4 (Prop. 2(i) analogue, with the condition on lam that makes it hold); docs/monorma-guarantees.md",
       hypotheses="Hyp. 1, 3 with lam > 2 m^((1-1/r)_+) kappa_max^2, any r > 0", expected="holds",
       instances=st.one_of(_tight_squared_copies(), _squared_loss_instances()), uses=("monorma",),
       informative="m >= 2 and f_t != 0; margin relative to each step's bound (||u_t|| = ||p_t - y_t|| <= 2 C_y, (b), (c))")
def norm_prop2_factor(instance, impl, precision=None):
    return _norm_outcome(instance, impl, precision, norm_factor2(len(instance["kernels"]), instance["r"], precision),
                         2 * instance["C_y"], steps_checked=True)


#: r > 1 for the copies that amplify (S = m^(1-1/r) > 1), m copies and rho = eta lam: coarse lists, so that a search
#: shrinks in a few steps, each from the most amplifying value, which Hypothesis draws most often and shrinks towards
#: (in the other order, 4 of 9 ci seeds missed every violation: 9% of the family violates, all of it with m >= 4)
AMPLIFYING_RS = (100.0, 10.0, 5.0, 2.0)
AMPLIFYING_COPIES = (8, 7, 6, 5, 4, 3, 2)
AMPLIFYING_RHOS = (0.99, 0.9, 0.7)
#: where lam = 2 kappa^2 (1 + s (S - 1)) falls in (2 kappa_max^2, 2 S kappa_max^2]: just above the left end, or within
AMPLIFYING_LAM_POSITIONS = (1e-9, 0.5, 1.0)


@st.composite
def _amplifying_copies(draw, *, min_n: int = 2, max_n: int = 8):
    """Hyp. 1, 3 with ``lam`` in ``(2 kappa_max^2, 2 S kappa_max^2]``, ``S = m^(1-1/r)``: m <= 8 copies of one kernel
    with ``d = 1``, r > 1. MONORMA is then ONORMA with ``S K`` (spec 6.4), for which Hyp. 3's ``lam > 2 (S kappa^2)``
    fails: at a point where ``K(x, x) = kappa^2`` its prediction moves by ``-eta_t S kappa^2 u_t``, which overshoots
    and, while ``1 - eta_t (lam + S kappa^2) < -1``, grows. The stream repeats the vertex ``x = 1`` (where every
    kernel of spec 3.1-3.2 reaches ``kappa^2``) with targets alternating ``+-C_y``: the adversarial ordering, whose
    sign flips resonate with the overshoot; ``rho = eta lam`` in {0.7, 0.9, 0.99}."""
    p, m = draw(strategies.dimensions), draw(st.sampled_from(AMPLIFYING_COPIES))
    kernel, kappa2 = draw(strategies.kernels_with_kappa2(1, p, feature=False))   # spec 3.1-3.2: kappa^2 at x = 1
    r = draw(st.sampled_from(AMPLIFYING_RS))
    S = float(norm_factor2(m, r))
    C_y = draw(st.sampled_from([1.0, 0.5, 2.0]))
    sign, n = draw(st.sampled_from([1.0, -1.0])), draw(st.integers(min_n, max_n))
    position = draw(st.one_of(st.just(AMPLIFYING_LAM_POSITIONS[0]), st.sampled_from(AMPLIFYING_LAM_POSITIONS)))
    lam = 2 * kappa2 * (1 + position * (S - 1))
    return {"kernels": [kernel.to_dict()] * m, "p": p, "d": 1, "X": [[1.0] * p] * n,
            "Y": [[sign * C_y * (-1) ** t] for t in range(n)], "lam": lam, "eta": draw(st.sampled_from(AMPLIFYING_RHOS)) / lam,
            "r": r, "loss": "squared", "kappa2": [kappa2] * m, "C_y": C_y}


def _hyp3_instances():
    """Hyp. 1, 3 with Hyp. 3's own ``lam > 2 kappa_max^2``: the copies that amplify, or any kernels."""
    return st.one_of(_amplifying_copies(min_n=3), _squared_loss_instances(proof_condition=False))


@claim("monorma.best_kernel_hyp3",
       statement="squared loss, lam > 2 kappa_max^2: (1/n) sum_t l(f_{t-1}(x_t), y_t) <= min_j min_{g in H^j} R_reg(g, n) + a/sqrt(n) + b/n "
                 "(Theorem 1's a, b with U = max(C_y / kappa_j, 2 C_y / lam))",
       reference="docs/monorma-guarantees.md, statement 1 under Hyp. 3; Thm. 1 and Prop. 2 for MONORMA",
       hypotheses="Hyp. 1, 3 (squared loss, ||y_t|| <= C_y, lam > 2 kappa_max^2), any r", expected="false",
       instances=_hyp3_instances(), uses=("monorma",), known_counterexamples=[AMPLIFYING_5], informative=CUMULATIVE_INFORMATIVE,
       notes="m copies with r > 1 make MONORMA ONORMA with S K, S = m^(1-1/r) (spec 6.4), and lam > 2 kappa_max^2 "
             "is not lam > 2 S kappa^2: the predictions overshoot and grow for a few rounds; the lockout stream "
             "(lam > 2 S kappa_max^2 too) needs n = 10^4 (notebook 06)")
def best_kernel_hyp3(instance, impl, precision=None):
    return cumulative_bound(instance, impl, precision, vertex_combinations(instance))


@claim("monorma.norm_prop2",
       statement="squared loss, lam > 2 kappa_max^2: ||f_t||_{H_{delta_t}} <= 2 kappa_max C_y / lam for every t (Prop. 2(i) with kappa_max)",
       reference="docs/monorma-guarantees.md, statement 4; Prop. 2(i) for MONORMA; spec C12, 6.4",
       hypotheses="Hyp. 1, 3 with lam in (2 kappa_max^2, 2 m^(1-1/r) kappa_max^2], r > 1", expected="false",
       instances=_amplifying_copies(), uses=("monorma",), known_counterexamples=[AMPLIFYING_2],
       informative=NORM_BOUND_INFORMATIVE,
       notes="m copies: ||f_t||_{H_delta} = sqrt(S) ||g_t||, S = m^(1-1/r), and the run is ONORMA with S K, outside Hyp. 3")
def norm_prop2(instance, impl, precision=None):
    return _norm_outcome(instance, impl, precision, 1.0, 2 * instance["C_y"], steps_checked=False)


@claim("monorma.norm_prop2_factor_hyp3",
       statement="squared loss, lam > 2 kappa_max^2 only: ||f_t||_{H_{delta_t}} <= m^((1-1/r)/2) 2 kappa_max C_y / lam for every t",
       reference="docs/monorma-guarantees.md, statement 4 (monorma.norm_prop2_factor without the factor in the condition on lam)",
       hypotheses="Hyp. 1, 3 with lam in (2 kappa_max^2, 2 m^(1-1/r) kappa_max^2], r > 1", expected="false",
       instances=_amplifying_copies(), uses=("monorma",), known_counterexamples=[AMPLIFYING_2],
       informative=NORM_BOUND_INFORMATIVE,
       notes="the proof's step (u) needs 2 S kappa_max^2 / lam < 1: with lam <= 2 S kappa_max^2 the residual u_t can "
             "exceed 2 C_y and the norm grows past the bound (copies, S > 4.5: at t = 2)")
def norm_prop2_factor_hyp3(instance, impl, precision=None):
    return _norm_outcome(instance, impl, precision, norm_factor2(len(instance["kernels"]), instance["r"], precision),
                         2 * instance["C_y"], steps_checked=False)


@claim("monorma.zero_weight_absorbing",
       statement="delta^j_t = 0 exactly when w_j = (delta^j_{t-1})^2 gamma^j_t = 0 (and some w_k > 0): a zero weight stays 0 for ever",
       reference="docs/monorma-guarantees.md, statement 5; Alg. 2 step 3; spec 6.3 ('absorbing zero'), E22", hypotheses="any kernels, r > 0",
       expected="holds", instances=strategies.lockout_instances(horizons=(3, 5, 8), rs=(0.3, 0.5, 1.0, 2.0, 5.0)), uses=("monorma",),
       informative="m >= 2 and a weight that is 0 before the last round (gamma^j_t from explicit Gram norms)",
       faults=("monorma_zero_weight_revived",))
def zero_weight_absorbing(instance, impl, precision=None):
    record = run_monorma(impl, instance)
    gammas = explicit_gammas(instance, record)
    m = len(instance["kernels"])
    previous = np.full(m, 1.0 / m)
    mismatches, zero_before_last = [], False
    for t, (gamma, delta) in enumerate(zip(gammas, record["weights"]), start=1):
        w = previous**2 * np.maximum(gamma, 0.0)
        if np.any(w > 0):
            mismatches += [(t, j) for j in range(m) if (w[j] == 0) != (delta[j] == 0)]
        else:
            mismatches += [(t, j) for j in range(m) if delta[j] != previous[j]]   # E22: delta kept
        zero_before_last = zero_before_last or (t < len(gammas) and bool(np.any(delta == 0)))
        previous = delta
    outcome = discrete(mismatches)
    outcome.informative = m >= 2 and zero_before_last
    return outcome


GRADIENT_LABEL = "||u_t|| <= G"
WEIGHT_SUM_LABEL = "sum_j delta^j_t <= m^((1-1/r)_+)"


def norm_step_values(step: dict, G, lam, kappas, factor2) -> list:
    """The steps of the norm proof at one round, ``(name, label, observed, allowed)``, in the numbers of ``step`` (a
    round of ``norm_steps``: float64, or mpf for the weights at a recheck's precision)."""
    values = [("gradient", GRADIENT_LABEL, step["gradient_norm"], G)]
    values += [("kernel_norms", f"||g^{j}_t|| <= C kappa_j / lam", math.sqrt(max(g2, 0.0)), G * kappa / lam)
               for j, (g2, kappa) in enumerate(zip(step["norms2"], kappas))]
    values.append(("weight_sum", WEIGHT_SUM_LABEL, step["delta_sum"], factor2))
    values.append(("combination", "||f_t||^2 <= S(delta_t) max_j ||g^j_t||^2", step["norm2"],
                   float(step["delta_sum"]) * max(step["norms2"])))
    return values
