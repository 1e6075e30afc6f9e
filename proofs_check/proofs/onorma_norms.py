"""Propositions 1(i)-(ii) and 2(i)-(iii): the proofs of the norm bounds on ONORMA's iterates, as chains (spec C9-C13).

* ``prop1.i`` (paper): ``alpha_{t,t} = -eta_t u_t`` and ``||u_t|| <= C``.
* ``prop1.ii``, ``prop2.i`` (spec C10, C12, the sharpened forms, any truncation): the triangle inequality over the
  expansion, ``||K(., x_i) a|| <= kappa ||a||``, the closed form ``alpha_{i,t} = alpha_{i,i} P_{i,t}``, the bound on
  ``||alpha_{i,i}||`` and the telescoping sum ``sum_{i<=t} eta_i lam P_{i,t} = 1 - P_{0,t}``. Under Hyp. 3 the bound
  on ``||u_t|| = ||p_t - y_t||`` comes from the bound at round t - 1 (Prop. 2(ii)-(iii), E16's induction order).
* ``prop2.iii``: (i) at t - 1 gives (iii) at t.
* ``prop1.ii_from_f0``, ``prop2.i_from_f0`` (spec C10, C12 from ``f_0 != 0``, no truncation): the paper's inductions
  ``||f_t|| <= (1 - eta_t lam)||f_{t-1}|| + kappa ||alpha_{t,t}||``, from ``||f_0||``.
* ``prop2.i_without_lam``: the paper's induction for Prop. 2(i), ``||f_t|| <= (1 - eta_t lam)||f_{t-1}|| + kappa
  ||alpha_{t,t}|| = C_y/kappa + eta_t C_y (2 kappa - lam/kappa)``, whose last step needs ``lam > 2 kappa^2``.
"""
from __future__ import annotations

import numpy as np

from proofs_check import constants
from proofs_check.claims import common
from proofs_check.proofs.chain import Chain, Step, identity, inequality
from proofs_check.proofs.onorma_run import onorma_run, warm_onorma_run

GRADIENT_LIPSCHITZ = Step("gradient", "||u_t|| <= C", "Hyp. 2: a C-Lipschitz convex loss has subgradients of norm <= C")
NEW_COEFFICIENT = Step("new_coefficient", "alpha_{t,t} = -eta_t u_t", "Alg. 1 step 2 (spec 5.1)")

# Hyp. 3: the residual from the bound at round t - 1 (Prop. 2(ii)-(iii), in E16's order)
PREVIOUS_ROUND = Step("previous_round", "||f_{t-1}|| <= C_y / kappa",
                      "Prop. 2(i) at round t-1: (2 kappa C_y/lam)(1 - P_{0,t-1}) <= 2 kappa C_y/lam <= C_y/kappa as lam >= 2 kappa^2",
                      symbolic="prop2_hypothesis3_norm")
EVALUATION = Step("evaluation", "||p_t|| = ||f_{t-1}(x_t)|| <= kappa ||f_{t-1}||", "reproducing property, Hyp. 1 (spec C2)")
RESIDUAL = Step("residual", "||u_t|| = ||p_t - y_t|| <= ||p_t|| + C_y <= 2 C_y", "triangle inequality, ||y_t|| <= C_y (Hyp. 3(ii))")

EXPANSION_STEPS = (
    Step("closed_form", "alpha_{i,t} = alpha_{i,i} P_{i,t} for every kept term", "spec 5.2 (C5); truncation only zeroes terms"),
    Step("triangle", "||f_t|| <= sum_{i kept} ||K(., x_i) alpha_{i,t}||", "triangle inequality over the expansion (spec C10)"),
    Step("evaluation_bound", "sum_i ||K(., x_i) alpha_{i,t}|| <= kappa sum_i ||alpha_{i,t}||",
         "||K(., x) a||^2 = <K(x, x) a, a> <= kappa^2 ||a||^2 (Hyp. 1)"),
    Step("coefficients", "kappa sum_i ||alpha_{i,i}|| P_{i,t} <= kappa G sum_{i kept} eta_i P_{i,t}",
         "||alpha_{i,i}|| = eta_i ||u_i|| <= eta_i G (the gradient step)"),
    Step("truncation", "sum_{i kept} eta_i P_{i,t} <= sum_{i<=t} eta_i P_{i,t}", "the terms are >= 0 (eta_i lam <= 1)"),
    Step("telescoping", "sum_{i<=t} eta_i lam P_{i,t} = 1 - P_{0,t}", "eta_i lam P_{i,t} = P_{i,t} - P_{i-1,t}",
         symbolic="telescoping"),
)


def _gradient_bound(run) -> float:
    return run.instance["C"] if run.loss.name != "squared" else 2 * run.instance["C_y"]


def _gradient_comparisons(run, t: int, squared: bool, previous_step: str = "previous_round") -> list:
    """``||u_t|| <= G``: directly (Hyp. 2), or through the bound on ``||f_{t-1}||`` (Hyp. 3: ``previous_step``)."""
    u = float(np.linalg.norm(run.gradients[t - 1]))
    if not squared:
        return [inequality("gradient", u, run.instance["C"], t)]
    C_y, previous = run.instance["C_y"], run.norms[t - 1]
    prediction = float(np.linalg.norm(run.predictions[t - 1]))
    return [inequality(previous_step, previous, C_y / run.kappa, t),
            inequality("evaluation", prediction, run.kappa * previous, t, scale=max(prediction, run.kappa * previous, C_y)),
            inequality("residual", u, 2 * C_y, t)]


def _new_coefficient(run, t: int) -> list:
    expected = -run.etas[t - 1] * run.gradients[t - 1]
    error = float(np.max(np.abs(run.new[t - 1] - expected)))
    size = float(np.max(np.abs(expected), initial=0.0))
    return [identity("new_coefficient", error, 0.0, size, t)]


def _expansion_comparisons(run, t: int, G: float) -> list:
    """The chain ``||f_t|| <= ... <= (kappa G/lam)(1 - P_{0,t})`` at round t."""
    kept = run.kept(t)
    coefficients = run.coefficients[t - 1]
    closed = np.array([run.new[i - 1] * run.product(i, t) for i in kept])
    error = float(np.max(np.abs(coefficients[kept - 1] - closed)))
    terms = run.term_norms(t)[kept - 1]
    coefficient_norms = np.linalg.norm(closed, axis=1)
    kept_weights = sum(run.etas[i - 1] * run.product(i, t) for i in kept)
    all_weights = sum(run.etas[i - 1] * run.product(i, t) for i in range(1, t + 1))
    lam = run.lam
    return [identity("closed_form", error, 0.0, float(np.max(np.abs(closed), initial=0.0)), t),
            inequality("triangle", run.norms[t], terms.sum(), t),
            inequality("evaluation_bound", terms.sum(), run.kappa * coefficient_norms.sum(), t),
            inequality("coefficients", run.kappa * coefficient_norms.sum(), run.kappa * G * kept_weights, t),
            inequality("truncation", kept_weights, all_weights, t),
            identity("telescoping", lam * all_weights, 1 - run.product(0, t), 1.0, t)]


def _sharpened(instance, impl) -> list:
    run = onorma_run(instance, impl)
    squared = run.loss.name == "squared"
    G = _gradient_bound(run)
    comparisons = []
    for t in range(1, run.n + 1):
        comparisons += _gradient_comparisons(run, t, squared) + _new_coefficient(run, t) + _expansion_comparisons(run, t, G)
        comparisons.append(inequality("conclusion", run.norms[t], run.kappa * G / run.lam * (1 - run.product(0, t)), t))
    return comparisons


def _new_coefficient_bounded(instance, impl, squared: bool, gradient_bound) -> list:
    """``||alpha_{t,t}|| <= eta_t G`` at every round, with its steps: Prop. 1(i) (``G = C``), Prop. 2(iii)
    (``G = 2 C_y``, the squared loss)."""
    run = onorma_run(instance, impl)
    comparisons = []
    for t in range(1, run.n + 1):
        comparisons += _gradient_comparisons(run, t, squared) + _new_coefficient(run, t)
        comparisons.append(inequality("conclusion", np.linalg.norm(run.new[t - 1]), run.etas[t - 1] * gradient_bound, t))
    return comparisons


def _prop1_i(instance, impl) -> list:
    return _new_coefficient_bounded(instance, impl, False, instance["C"])


def _prop2_iii(instance, impl) -> list:
    return _new_coefficient_bounded(instance, impl, True, 2 * instance["C_y"])


def _paper_induction(instance, impl) -> list:
    """Prop. 2(i) as the paper proves it (induction on ``||f_t|| < C_y/kappa``), at every round."""
    return _induction_comparisons(onorma_run(instance, impl))


def _induction_comparisons(run) -> list:
    instance = run.instance
    C_y, kappa, lam = instance["C_y"], run.kappa, run.lam
    comparisons = []
    for t in range(1, run.n + 1):
        eta_t = run.etas[t - 1]
        alpha = float(np.linalg.norm(run.new[t - 1]))
        one_step = (1 - eta_t * lam) * run.norms[t - 1] + kappa * alpha
        comparisons += _gradient_comparisons(run, t, True, previous_step="induction")
        comparisons += [inequality("new_coefficient", alpha, 2 * eta_t * C_y, t),
                        inequality("one_step", run.norms[t], one_step, t),
                        identity("algebra", (1 - eta_t * lam) * C_y / kappa + 2 * kappa * eta_t * C_y,
                                 C_y / kappa + eta_t * C_y * (2 * kappa - lam / kappa), C_y / kappa, t),
                        inequality("hypothesis3", eta_t * C_y * (2 * kappa - lam / kappa), 0.0, t, scale=eta_t * C_y * lam / kappa),
                        inequality("conclusion", run.norms[t], C_y / kappa, t)]
    return comparisons


def _warm_induction(instance, impl) -> list:
    """Prop. 2(i) from ``f_0 != 0`` (spec C12): the paper's induction, started at ``||f_0|| <= C_y / kappa``."""
    run = warm_onorma_run(instance, impl, float(common.constant(constants.C_y / constants.kappa, instance)))
    return _induction_comparisons(run)


def _warm_recursion(instance, impl) -> list:
    """Prop. 1(ii) from ``f_0 != 0`` (spec C10): ``||f_t|| <= c_t ||f_{t-1}|| + kappa ||alpha_{t,t}|| <= c_t b_{t-1} + eta_t
    lam U = b_t``, ``b_t = P_{0,t} ||f_0|| + (1 - P_{0,t}) U``."""
    U = float(common.U(instance))
    run = warm_onorma_run(instance, impl, U)
    lam, kappa = run.lam, run.kappa
    bounds = [run.product(0, t) * run.norms[0] + (1 - run.product(0, t)) * U for t in range(run.n + 1)]
    comparisons = []
    for t in range(1, run.n + 1):
        eta_t = run.etas[t - 1]
        alpha = float(np.linalg.norm(run.new[t - 1]))
        one_step = (1 - eta_t * lam) * run.norms[t - 1] + kappa * alpha
        comparisons += _gradient_comparisons(run, t, False) + _new_coefficient(run, t)
        comparisons += [inequality("induction", run.norms[t - 1], bounds[t - 1], t),
                        inequality("one_step", run.norms[t], one_step, t),
                        inequality("coefficient_bound", kappa * alpha, eta_t * kappa * instance["C"], t),
                        identity("recursion", (1 - eta_t * lam) * bounds[t - 1] + eta_t * lam * U, bounds[t], U, t),
                        inequality("conclusion", run.norms[t], bounds[t], t)]
    return comparisons


SHARPENED_STEPS = EXPANSION_STEPS + (Step("conclusion", "||f_t|| <= (kappa G / lam)(1 - P_{0,t})", "the steps above, chained"),)

#: Prop. 2(i)'s induction step from ||f_{t-1}|| to ||f_t||, shared by the paper's proof from f_0 = 0 and from f_0 != 0
PROP2_INDUCTION_STEP = (
    Step("new_coefficient", "||alpha_{t,t}|| <= 2 eta_t C_y", "Prop. 2(iii)"),
    Step("one_step", "||f_t|| <= (1 - eta_t lam)||f_{t-1}|| + kappa ||alpha_{t,t}||",
         "f_t = (1 - eta_t lam) f_{t-1} + K(., x_t) alpha_{t,t}, triangle inequality"),
    Step("algebra", "(1 - eta_t lam) C_y/kappa + 2 kappa eta_t C_y = C_y/kappa + eta_t C_y (2 kappa - lam/kappa)",
         "expand", symbolic="prop2_induction_algebra"),
)

CHAINS = [
    Chain("prop1.i", "Prop. 1(i), the paper's proof", (GRADIENT_LIPSCHITZ, NEW_COEFFICIENT,
          Step("conclusion", "||alpha_{t,t}|| <= eta_t C", "||alpha_{t,t}|| = eta_t ||u_t||")), _prop1_i, "Prop. 1(i); spec C9"),
    Chain("prop1.ii", "Prop. 1(ii) sharpened, any truncation (spec C10), G = C",
          (GRADIENT_LIPSCHITZ, NEW_COEFFICIENT) + SHARPENED_STEPS, _sharpened, "Prop. 1(ii); spec C10"),
    Chain("prop2.i", "Prop. 2(i) sharpened, any truncation (spec C12), G = 2 C_y",
          (PREVIOUS_ROUND, EVALUATION, RESIDUAL, NEW_COEFFICIENT) + SHARPENED_STEPS, _sharpened, "Prop. 2(i); spec C12, E16"),
    Chain("prop2.iii", "Prop. 2(ii)-(iii): (i) at t-1 gives (iii) at t (spec C13, E16)",
          (PREVIOUS_ROUND, EVALUATION, RESIDUAL, NEW_COEFFICIENT,
           Step("conclusion", "||alpha_{t,t}|| <= 2 eta_t C_y", "||alpha_{t,t}|| = eta_t ||u_t||")), _prop2_iii, "Prop. 2(iii); spec C13"),
    Chain("prop2.i_without_lam", "Prop. 2(i), the paper's induction",
          (Step("induction", "||f_{t-1}|| < C_y / kappa", "the induction hypothesis (f_0 = 0)"), EVALUATION, RESIDUAL,
           *PROP2_INDUCTION_STEP,
           Step("hypothesis3", "eta_t C_y (2 kappa - lam/kappa) < 0", "Hyp. 3(iii): lam > 2 kappa^2",
                symbolic="prop2_hypothesis3_sign"),
           Step("conclusion", "||f_t|| < C_y / kappa", "the steps above, chained")), _paper_induction,
          "Prop. 2(i); spec C12"),
    Chain("prop1.ii_from_f0", "Prop. 1(ii) from f_0 != 0: the paper's induction, solved with b_0 = ||f_0|| (spec C10)",
          (GRADIENT_LIPSCHITZ, NEW_COEFFICIENT,
           Step("induction", "||f_{t-1}|| <= b_{t-1} = P_{0,t-1} ||f_0|| + (1 - P_{0,t-1}) U", "the induction hypothesis (t = 1: b_0 = ||f_0||)"),
           Step("one_step", "||f_t|| <= (1 - eta_t lam)||f_{t-1}|| + kappa ||alpha_{t,t}||",
                "f_t = (1 - eta_t lam) f_{t-1} + K(., x_t) alpha_{t,t}, triangle inequality, Hyp. 1"),
           Step("coefficient_bound", "kappa ||alpha_{t,t}|| <= eta_t kappa C = eta_t lam U", "||u_t|| <= C, U = C kappa / lam"),
           Step("recursion", "(1 - eta_t lam) b_{t-1} + eta_t lam U = b_t", "P_{0,t} = (1 - eta_t lam) P_{0,t-1}", symbolic="telescoping"),
           Step("conclusion", "||f_t|| <= P_{0,t} ||f_0|| + (1 - P_{0,t}) U <= U", "the steps above, chained")),
          _warm_recursion, "Prop. 1(ii); spec C10"),
    Chain("prop2.i_from_f0", "Prop. 2(i) from f_0 != 0: the paper's induction (spec C12, E17: lam >= 2 kappa^2)",
          (Step("induction", "||f_{t-1}|| <= C_y / kappa", "the induction hypothesis (t = 1: the hypothesis on f_0)"), EVALUATION, RESIDUAL,
           *PROP2_INDUCTION_STEP,
           Step("hypothesis3", "eta_t C_y (2 kappa - lam/kappa) <= 0", "Hyp. 3(iii) in E17's form lam >= 2 kappa^2"),
           Step("conclusion", "||f_t|| <= C_y / kappa", "the steps above, chained")), _warm_induction,
          "Prop. 2(i); spec C12, E17"),
]
