"""Theorem 2' on the budget literature's removal policies (``ovk_ref.truncation``: ``smallest``, ``random``,
``projection``), with the dropped parts ``Delta_t`` read off the implementation's own iterates (spec C20).

Theorem 2' holds for any truncation (perturbed SGD), given ``||f_t|| <= U``: a policy that only shrinks keeps
``alpha_{i,t} = alpha_{i,i} P_{i,t}`` on a subset of the terms, so the triangle inequality of C10/C12 still bounds
``||f_t||``; a projection makes ``f_t`` the orthogonal projection of ``c_t f_{t-1} + K(., x_t) alpha_{t,t}`` onto the
kept terms' span, which does not increase the norm either. The dropped term's bound: ``||Delta_t|| <= kappa
||alpha_{i,t}||`` for every policy (a projection's residual is no longer than the term), and ``kappa ||alpha_{i,t}|| <=
lam U eta_i P_{i,t}`` for the policies that only shrink (a projection moves the kept coefficients).
"""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from ovk_ref import arithmetic
from proofs_check import constants, strategies, tolerances
from proofs_check.claims import common
from proofs_check.claims.base import Outcome, claim
from proofs_check.claims.bounds import THEOREM_INFORMATIVE, removed_norms, theorem2_any_truncation


def policy_instances(max_n: int = 8):
    """Hyp. 1 and (Hyp. 2 with a feature kernel, for the certified comparator) or Hyp. 3, with a removal policy."""
    return st.one_of(strategies.onorma_instances("hyp2", feature_only=True, truncation="policy", max_n=max_n, min_n=2),
                     strategies.onorma_instances("hyp3", truncation="policy", max_n=max_n, min_n=2))


@claim("thm2.removal_policies", statement="with a removal policy (smallest, random, projection): LHS_n <= R_reg(f_n,n) + "
       "a/sqrt(n) - (3U^2/(2 eta) + 2 lam^2 U^2 eta)/n + (2U/n) sum_t ||Delta_t||/eta_t, Delta_t what the policy removed",
       reference="Thm. 2' (any truncation); spec C20", hypotheses="Hyp. 1 and (Hyp. 2 or 3), a removal policy of ovk_ref.truncation",
       expected="holds", instances=st.one_of(policy_instances(), strategies.tight_policy_onorma_instances("hyp2", feature_only=True, max_n=6)),
       uses=("onorma",), informative=THEOREM_INFORMATIVE,
       notes="thm2.any_truncation on the budget literature's policies; Delta_t = c_t f_{t-1} + K(., x_t) alpha_{t,t} - f_t from "
             "the implementation's own coefficients (bounds.removed_norms)",
       faults=("norm_gradient_unnormalised",))
def theorem2_removal_policies(instance, impl, precision=None):
    return theorem2_any_truncation(instance, impl, precision)      # Theorem 2' itself, on the policies' instances


def _removes(instance) -> bool:
    """The budget is smaller than the stream: some round removes a term."""
    return instance["truncation"]["budget"] < len(instance["X"])


def _support(coefficients) -> set:
    """The indices (1-based) of the non-zero rows: the terms an iterate keeps."""
    return {int(i) + 1 for i in np.flatnonzero([any(value != 0 for value in row) for row in coefficients])}


@claim("thm2.policy_dropped_norm", statement="when a removal policy drops the terms i at round t: ||Delta_t|| <= kappa sum_i "
       "||alpha_{i,t}|| (alpha_{i,t} = c_t alpha_{i,t-1}), and for a policy that only shrinks (smallest, random) <= lam U sum_i "
       "eta_i P_{i,t}",
       reference="Thm. 2 (the a-priori bound on the dropped part), for removal policies; spec C20, C21",
       hypotheses="Hyp. 1 and (Hyp. 2 or 3), a removal policy whose budget is below the stream's length", expected="holds",
       instances=st.one_of(policy_instances().filter(_removes), strategies.tight_policy_onorma_instances("hyp2", max_n=5)),
       uses=("onorma",),
       informative="a round that removes a term with a non-zero coefficient; margin relative to the bound of the tighter side",
       notes="the dropped terms are read off the implementation's iterates (kept in f_{t-1}, absent from f_t); ||K(., x) a|| <= "
             "kappa ||a|| and a projection's residual is no longer than the term; alpha_{i,t} = alpha_{i,i} P_{i,t} with "
             "||alpha_{i,i}|| <= eta_i C (Hyp. 2) or 2 eta_i C_y (Hyp. 3) when the kept terms are only shrunk; attained at every "
             "removal by one point at the top of K(x, x) with the subgradient -C v every round",
       faults=("removal_keeps_unshrunk",))
def theorem2_policy_dropped_norm(instance, impl, precision=None):
    trajectory = common.trajectory(impl, instance, precision)
    removed = removed_norms(instance, trajectory, precision)
    n = len(trajectory.X)
    etas = common.step_sizes(instance, n, precision)
    shrink = 1 - etas * instance["lam"]
    kappa = arithmetic.sqrt(common.constant(constants.kappa2_, instance, precision))
    lam_U = instance["lam"] * common.U(instance, precision)
    projects = common.schedule(instance).projects
    worst, margins, dropped_any = None, [], False
    for t in range(2, n + 1):
        dropped = sorted(_support(trajectory.coefficients[t - 2]) - _support(trajectory.coefficients[t - 1]))
        if not dropped:
            continue
        previous = trajectory.coefficients[t - 2]
        term = kappa * sum(common.rows_norm(shrink[t - 1] * previous[[i - 1 for i in dropped]]))    # kappa sum ||alpha_{i,t}||
        a_priori = lam_U * sum(etas[i - 1] * np.prod(shrink[i:t]) for i in dropped)   # P_{i,t} = prod_{k=i+1}^t (1 - eta_k lam)
        sides = [("kappa ||alpha_{i,t}||", term, removed[t - 1])] + ([] if projects else [("lam U eta_i P_{i,t}", a_priori, term)])
        for name, bound, observed in sides:
            scale = float(bound) if float(bound) > 0 else 1.0
            margins.append(float(bound - observed) / scale)
            if worst is None or margins[-1] < worst.relative_margin:
                worst = Outcome(margin=float(bound - observed), scale=scale, tie=tolerances.PSD_EIGENVALUE,
                                quantities={"round": t, "dropped": dropped, "side": name, "norm_Delta": float(removed[t - 1]),
                                            "kappa_alpha": float(term), "a_priori": float(a_priori)},
                                observed=float(observed), bound=float(bound))
        dropped_any = dropped_any or common.resolved(float(removed[t - 1]))
    if worst is None:
        return Outcome(margin=1.0, quantities={"dropped": []}, informative=False)
    worst.informative = dropped_any
    return worst
