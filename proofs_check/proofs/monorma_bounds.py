"""MONORMA's candidate guarantees (docs/monorma-guarantees.md) and the proofs that would give them, as chains.

* The norm bounds (``monorma.norm_prop1``, ``norm_prop1_factor``, ``norm_prop2``, ``norm_prop2_factor``,
  ``norm_prop2_factor_hyp3``): Prop. 1(ii)/2(i)'s argument per kernel, (u) ``||u_t|| <= G``, (b) ``||g^j_t|| <= G
  kappa_j / lam``, (c) ``sum_j delta^j_t <= S`` and (a) ``||f_t||^2_{H_delta} = sum_j delta_j ||g^j_t||^2 <= S max_j
  ||g^j_t||^2``. ``S = m^((1-1/r)_+)`` for the factor claims; ``S = 1`` (weights summing to at most 1, as a convex
  combination) is what the bounds without the factor take for granted. ``claims.monorma_guarantees.norm_step_values`` is the one
  definition of these steps: the factor claims check them in their own margin (``steps_checked``), the chains report them.
* Theorem 1 against the best kernel or combination (``monorma.best_kernel``, ``best_combination``,
  ``best_kernel_hyp3``): from round 1 on MONORMA keeps the weights ``delta_n``, so it is ONORMA with ``K_{delta_n}``
  (spec 6.4); Theorem 1 for that kernel (under its hypotheses: Hyp. 3 for ``K_delta`` is ``lam > 2 kappa_delta^2``);
  and the combination it keeps is as good as the comparator's.
"""
from __future__ import annotations

import math

import numpy as np

import ovk_ref
from proofs_check import comparators, constants
from proofs_check.claims import common, explicit
from proofs_check.claims.monorma_guarantees import combined_kernel, norm_factor2, norm_step_values, norm_steps
from proofs_check.proofs.chain import Chain, Step, identity, inequality


def _norm_chain(gradient_bound, factor):
    """``gradient_bound(instance)``: C (Hyp. 2) or 2 C_y (Hyp. 3); ``factor(instance)``: S."""
    def evaluate(instance, impl):
        G, lam = gradient_bound(instance), instance["lam"]
        kappas = [math.sqrt(k2) for k2 in instance["kappa2"]]
        S = float(factor(instance))
        comparisons = []
        for step in norm_steps(instance, impl):
            t = step["t"]
            comparisons += [inequality(name, observed, allowed, t)
                            for name, _, observed, allowed in norm_step_values(step, G, lam, kappas, S)]
            comparisons.append(inequality("conclusion", math.sqrt(max(step["norm2"], 0.0)), math.sqrt(S) * G * max(kappas) / lam, t))
        return comparisons
    return evaluate


def _factor2(instance):
    return norm_factor2(len(instance["kernels"]), instance["r"])


def _norm_steps_of(weights: str, gradient: str, conclusion: str):
    return (Step("gradient", f"(u) ||u_t|| <= G = {gradient}", "Hyp. 2; under Hyp. 3 ||f_{t-1}(x_t)|| < C_y needs 2 S kappa_max^2 / lam < 1"),
            Step("kernel_norms", "(b) ||g^j_t|| <= G kappa_j / lam", "Prop. 1(ii)'s telescoping sum, per kernel"),
            Step("weight_sum", f"(c) sum_j delta^j_t <= {weights}", "Hoelder and sum_j delta_j^r = 1 (spec 6.3)"
                 if weights != "1" else "the weights read as a convex combination (what Prop. 1(ii) with kappa_max needs)"),
            Step("combination", "(a) ||f_t||^2_{H_delta} = sum_j delta^j_t ||g^j_t||^2 <= (sum_j delta^j_t) max_j ||g^j_t||^2",
                 "the norm of K_delta's expansion (spec 2.3)"),
            Step("conclusion", conclusion, "(a), (b), (c)"))


def _lipschitz(instance):
    return instance["C"]


def _squared(instance):
    return 2 * instance["C_y"]


NORM_CHAINS = [
    Chain("monorma.norm_prop1", "Prop. 1(ii)'s proof with kappa_max", _norm_steps_of("1", "C", "||f_t||_{H_delta_t} <= C kappa_max / lam"),
          _norm_chain(_lipschitz, lambda instance: 1.0), "docs/monorma-guarantees.md, section 4"),
    Chain("monorma.norm_prop1_factor", "docs/monorma-guarantees.md, section 4 (Hyp. 2)",
          _norm_steps_of("m^((1-1/r)_+)", "C", "||f_t||_{H_delta_t} <= m^((1-1/r)_+/2) C kappa_max / lam"),
          _norm_chain(_lipschitz, _factor2), "docs/monorma-guarantees.md, section 4"),
    Chain("monorma.norm_prop2", "Prop. 2(i)'s proof with kappa_max", _norm_steps_of("1", "2 C_y", "||f_t||_{H_delta_t} <= 2 kappa_max C_y / lam"),
          _norm_chain(_squared, lambda instance: 1.0), "docs/monorma-guarantees.md, section 4"),
    Chain("monorma.norm_prop2_factor", "docs/monorma-guarantees.md, section 4 (Hyp. 3, lam > 2 S kappa_max^2)",
          _norm_steps_of("m^((1-1/r)_+)", "2 C_y", "||f_t||_{H_delta_t} <= m^((1-1/r)_+/2) 2 kappa_max C_y / lam"),
          _norm_chain(_squared, _factor2), "docs/monorma-guarantees.md, section 4"),
    Chain("monorma.norm_prop2_factor_hyp3", "docs/monorma-guarantees.md, section 4, under lam > 2 kappa_max^2 only",
          _norm_steps_of("m^((1-1/r)_+)", "2 C_y", "||f_t||_{H_delta_t} <= m^((1-1/r)/2) 2 kappa_max C_y / lam"),
          _norm_chain(_squared, _factor2), "docs/monorma-guarantees.md, section 4"),
]


def _combined(instance, delta):
    """``K_delta = sum_j delta_j K^j``: the stacked feature kernel (feature kernels, any loss), else a weighted sum."""
    if all(ovk_ref.as_kernel(kernel).__class__ is ovk_ref.Feature for kernel in instance["kernels"]):
        return combined_kernel(instance, delta)
    terms = [{"weight": float(weight), "kernel": kernel} for weight, kernel in zip(delta, instance["kernels"]) if weight > 0]
    return ovk_ref.as_kernel({"type": "sum", "terms": terms})


def _cumulative(uniform: bool):
    """``uniform``: the comparator ranges over the vertices and the uniform combination (``best_combination``), else
    over the vertices (single kernels)."""
    def evaluate(instance, impl):
        from proofs_check.claims.monorma import run_monorma
        from proofs_check.claims.monorma_guarantees import (
            cumulative_bound,
            online_losses,
            vertex_combinations,
        )
        record = run_monorma(impl, instance)
        m, r = len(instance["kernels"]), instance["r"]
        combinations = vertex_combinations(instance) + ([(m ** (-1 / r),) * m] if uniform else [])
        outcome = cumulative_bound(instance, impl, None, combinations, record=record)    # the claim's own two sides
        X, Y = common.arrays(instance)
        n, lam, eta = len(X), instance["lam"], instance["eta"]
        weights = np.asarray(record["weights"], dtype=float)
        delta = weights[-1]
        kernel = _combined(instance, delta)
        loss = ovk_ref.as_loss(instance["loss"])
        predictions = explicit.onorma_predictions(kernel, loss, X, Y, lam, eta)
        comparator = comparators.minimum(kernel.to_dict(), X, Y, lam, instance["loss"])
        kappa2 = float(constants.kappa2(kernel, instance["p"]))
        u = float(common.U({**instance, "kappa2": kappa2}))
        excess = constants.value(constants.THEOREM1_EXCESS, U=u, lam=lam, eta=eta, n=n)
        average = float(sum(online_losses(instance, record["predictions"]))) / n
        size = float(np.max(np.abs(predictions), initial=0.0))
        comparisons = [identity("weights_settle", float(np.max(np.abs(weights - delta))), 0.0, 1.0, 1),
                       identity("onorma_with_K_delta", float(np.max(np.abs(record["predictions"] - predictions))), 0.0, size, n)]
        if loss.name == "squared":
            comparisons.append(inequality("hypothesis_for_K_delta", 2 * kappa2, lam, n))
        comparisons += [inequality("theorem1_for_K_delta", average, float(comparator.upper) + excess, n, scale=excess),
                        inequality("comparator", float(comparator.upper) + excess, outcome.bound, n, scale=outcome.scale),
                        inequality("conclusion", outcome.observed, outcome.bound, n, scale=outcome.scale)]
        return comparisons
    return evaluate


def _cumulative_steps(comparator: str):
    return (Step("weights_settle", "delta_t = delta_n for t = 1..n", "then MONORMA is ONORMA with K_{delta_n} from round 1 (spec 6.4)"),
            Step("onorma_with_K_delta", "MONORMA's predictions = ONORMA's with K_{delta_n}", "spec 6.4, frozen weights"),
            Step("hypothesis_for_K_delta", "squared loss: lam > 2 kappa_{delta_n}^2", "Hyp. 3 for the kernel MONORMA runs with"),
            Step("theorem1_for_K_delta", "(1/n) sum_t l(f_{t-1}(x_t), y_t) <= min R_reg^{K_delta_n} + a/sqrt(n) + b/n (U of K_delta_n)",
                 "Theorem 1 for ONORMA with K_{delta_n}"),
            Step("comparator", f"min R_reg^{{K_delta_n}} + excess <= {comparator}",
                 "the combination MONORMA keeps fits as well as the comparator"),
            Step("conclusion", f"(1/n) sum_t l(f_{{t-1}}(x_t), y_t) <= {comparator}", "the steps above, chained"))


CUMULATIVE_CHAINS = [
    Chain("monorma.best_kernel", "Theorem 1 through the combination MONORMA keeps", _cumulative_steps("min_j [min R_reg^{K^j} + excess_j]"),
          _cumulative(uniform=False), "docs/monorma-guarantees.md, sections 1-2"),
    Chain("monorma.best_combination", "Theorem 1 through the combination MONORMA keeps",
          _cumulative_steps("min_delta [min R_reg^{K_delta} + excess_delta]"), _cumulative(uniform=True),
          "docs/monorma-guarantees.md, sections 1-2"),
    Chain("monorma.best_kernel_hyp3", "Theorem 1 through the combination MONORMA keeps (Hyp. 3)",
          _cumulative_steps("min_j [min R_reg^{K^j} + excess_j]"), _cumulative(uniform=False),
          "docs/monorma-guarantees.md, section 1"),
]

CHAINS = NORM_CHAINS + CUMULATIVE_CHAINS
