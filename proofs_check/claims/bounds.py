"""Claims on the batch minimiser and the cumulative-risk bounds (spec 7, 8: C11, C14, C18-C22, C25; spec 10).

``R_reg(f_n, n) = min_h R_reg(h, n)`` comes from proofs_check.comparators: a bound checked against its
certified lower end is proved for the instance (spec 11). Theorem margins are relative to the excess
term (``a/sqrt(n) + b/n`` and its variants), so they read as the fraction of the slack left.
"""
from __future__ import annotations

import mpmath
import numpy as np
import sympy as sp
from hypothesis import strategies as st

import ovk_ref
from ovk_ref import arithmetic
from ovk_ref.arithmetic import Arithmetic
from proofs_check import comparators, constants, strategies, tolerances
from proofs_check.claims import common, explicit
from proofs_check.claims.base import Outcome, claim
from proofs_check.claims.common import U, constant

#: the Lipschitz losses with a continuous gradient (the certified comparator needs a differentiable loss)
SMOOTH_LIPSCHITZ = ("huber", "softmax")


def theorem_instances(truncation=False):
    """Hyp. 1 and (Hyp. 2 with a feature kernel, for the certified comparator) or Hyp. 3 (any kernel); unless the
    claim needs Theorem 2's schedule, also streams where Prop. 1's norm bound is attained
    (``strategies.tight_onorma_instances``: one point, the loss's subgradient of norm C in one direction every round,
    the targets far beyond the prediction; no truncation) and Theorem 1's edge (``strategies.edge_onorma_instances``:
    one point, the norm loss, rho near 1, targets on one side or alternating)."""
    drawn = [strategies.onorma_instances("hyp2", feature_only=True, truncation=truncation, max_n=8, min_n=2),
             strategies.onorma_instances("hyp3", truncation=truncation, max_n=8, min_n=2)]
    tight = [] if truncation == "schedule" else [strategies.tight_onorma_instances("hyp2", feature_only=True, max_n=6),
                                                 strategies.edge_onorma_instances()]
    return st.one_of(*drawn, *tight)


#: what makes an instance of a risk bound (Theorems 1-2) informative
THEOREM_INFORMATIVE = ("two rounds or more, and a prefix whose online average exceeds min R_reg (the excess term is "
                       "needed); margin relative to the excess term")


def _prefix_kernel(instance):
    """The kernel the comparators of every prefix take: for the squared loss (the closed form, a Gram matrix of each
    prefix twice) with the Gram matrix of the stream's points computed once (``common.PointsGram``: the same numbers);
    the feature-kernel bracket takes the kernel's dict."""
    if common.loss_name(instance) != "squared":
        return instance["kernel"]
    return common.PointsGram(common.kernel(instance), common.arrays(instance)[0])


def _comparator(instance, n, precision=None, kernel=None):
    """``min_h R_reg(h, n)`` of the prefix of length n (``kernel``: ``_prefix_kernel(instance)``, shared by the prefixes)."""
    X, Y = common.arrays(instance)
    kernel = instance["kernel"] if kernel is None else kernel
    return comparators.minimum(kernel, X[:n], Y[:n], instance["lam"], instance["loss"], precision)


@claim("prop1.iii", statement="||f_n|| <= U = C kappa / lam for the batch minimiser f_n of every prefix",
       reference="Prop. 1(iii); spec C11, E15", hypotheses="Hyp. 1-2; feature kernel, differentiable loss (certified norm)",
       expected="holds",
       instances=strategies.onorma_instances("hyp2", feature_only=True, among=SMOOTH_LIPSCHITZ),
       informative="f_n != 0; margin relative to U")
def prop1_iii(instance, impl=None, precision=None):
    bound = U(instance)
    norms = [float(comparators.feature_minimum(instance["kernel"], *[a[:n] for a in common.arrays(instance)], instance["lam"],
                                               instance["loss"]).norm_upper) for n in range(1, len(instance["X"]) + 1)]
    # the certified norm is resolved only to 2 gtol / lam (tolerances.OPTIMISER_GRADIENT_NORM); the claim is tight
    resolution = 2 * tolerances.OPTIMISER_GRADIENT_NORM / instance["lam"]
    return Outcome(margin=bound - max(norms), scale=bound, tie=resolution / bound,
                   quantities={"max_norm_upper": max(norms), "U": bound}, informative=max(norms) > resolution,
                   observed=max(norms), bound=bound)


def _batch_norms(instance, precision=None):
    kernel = _prefix_kernel(instance)
    return [float(_comparator(instance, n, precision, kernel).norm) for n in range(1, len(instance["X"]) + 1)]


@claim("prop2.iv", statement="||f_n|| <= 2 C_y / lam for the batch minimiser f_n of every prefix",
       reference="Prop. 2(iv); spec C14, E18", hypotheses="Hyp. 1, 3 (squared loss, ||y_t|| <= C_y, lam > 2 kappa^2)",
       expected="false", instances=strategies.onorma_instances("hyp3", lam_boundary=False, extreme=True),
       informative="f_n != 0",
       known_counterexamples=[{"kernel": {"type": "sum", "terms": [{"weight": 10.0, "kernel": {
                                   "type": "gaussian_separable", "mu": 1.0, "B": [[1.0]]}}]},
                               "p": 1, "d": 1, "loss": "squared", "C": None, "C_y": 1.0, "truncation": None,
                               "X": [[0.0]], "Y": [[1.0]], "lam": 100.0, "eta": 0.005, "kappa2": 10.0}],
       notes="the proof's (lam/2)||f||^2 <= C_y^2/2 gives ||f|| <= C_y/sqrt(lam), not 2 C_y/lam; one point with "
             "K = kappa^2 I gives ||f|| = kappa C_y/(kappa^2 + lam) > 2 C_y/lam once kappa > 2 and lam > 2 kappa^2/(kappa-2)")
def prop2_iv(instance, impl=None, precision=None):
    bound = constant(2 * constants.C_y / constants.lam, instance)
    norms = _batch_norms(instance, precision)
    return Outcome(margin=bound - max(norms), scale=bound,
                   quantities={"max_norm": max(norms), "2C_y/lam": bound, "C_y/kappa": constant(constants.C_y / constants.kappa, instance)},
                   informative=common.resolved(norms), observed=max(norms), bound=bound)


@claim("prop2.iv_U", statement="||f_n|| <= U = max(C_y/kappa, 2 C_y/lam): the norm bound Theorem 1 actually uses",
       reference="Prop. 2(iv) as used by Thm. 1; spec C14, E11", hypotheses="Hyp. 1, 3", expected="holds",
       instances=strategies.onorma_instances("hyp3"), informative="f_n != 0; margin relative to U",
       notes="||f_n|| <= C_y/sqrt(lam) (from R_reg(f_n) <= R_reg(0) <= C_y^2/2) < C_y/(sqrt(2) kappa) <= U",
       faults=("U_prop2_max_as_min",))
def prop2_iv_u(instance, impl=None, precision=None):
    bound = U(instance)
    norms = _batch_norms(instance, precision)
    return Outcome(margin=bound - max(norms), scale=bound, quantities={"max_norm": max(norms), "U": bound},
                   informative=common.resolved(norms), observed=max(norms), bound=bound)


#: Prop. 2(iv) corrected and tight (docs/bounds.md): ``||f_n|| <= kappa C_y / (kappa^2 + lam)`` when ``lam >= kappa^2``
PROP2_IV_TIGHT = constants.kappa * constants.C_y / (constants.kappa2_ + constants.lam)


@claim("prop2.iv_tight", statement="||f_n|| <= kappa C_y / (kappa^2 + lam) for the batch minimiser f_n of every prefix (attained)",
       reference="Prop. 2(iv) corrected; spec C14, E18", hypotheses="Hyp. 1, 3 (the bound needs only lam >= kappa^2)", expected="holds",
       instances=st.one_of(strategies.onorma_instances("hyp3", extreme=True), strategies.tight_onorma_instances("hyp3", min_n=2, max_n=3)),
       informative="f_n != 0; margin relative to the bound",
       notes="f_n = T*(T T* + lam)^(-1) y~ with T f = (f(x_i))_i / sqrt(n), ||T|| <= kappa and ||y~||^2 = (1/n) sum ||y_i||^2 <= C_y^2, so "
             "||f_n|| <= max_{0 <= sigma <= kappa} sigma / (sigma^2 + lam) C_y = kappa C_y / (kappa^2 + lam), since sigma / (sigma^2 "
             "+ lam) increases on [0, sqrt(lam)] and kappa^2 <= lam (symbolic.PROOFS['prop2_iv_tight_monotone']); equality for "
             "one point x with ||K(x, x)||_op = kappa^2 (repeated) and y_i = C_y v, v the top eigenvector of K(x, x) "
             "(docs/bounds.md). Smaller than C_y / (2 kappa) <= U, and than 2 C_y / lam exactly when lam (kappa - 2) <= 2 kappa^2",
       faults=("batch_ridge_without_t",))
def prop2_iv_tight(instance, impl=None, precision=None):
    bound = constant(PROP2_IV_TIGHT, instance, precision)
    kernel = _prefix_kernel(instance)
    norms = [_comparator(instance, n, precision, kernel).norm for n in range(1, len(instance["X"]) + 1)]
    worst = max(range(len(norms)), key=lambda index: float(norms[index]))
    return Outcome(margin=float(bound - norms[worst]), scale=float(bound), quantities={"n": worst + 1, "max_norm": float(norms[worst]),
                                                                                        "bound": float(bound)},
                   informative=common.resolved([float(norm) for norm in norms]), observed=float(norms[worst]), bound=float(bound))


def direct_risk(instance, n: int, blocks, coefficients=None, w=None) -> float:
    """``R_reg(h, n) = (1/n) sum_{i<=n} l(h(x_i), y_i) + (lam/2) ||h||^2`` written out term by term (spec 2.3, with the
    ``blocks[i][k] = K(x_i, x_k)`` of ``explicit.kernel_blocks``): ``h = sum_{k<=n} K(., x_k) a_k`` (``coefficients``),
    or for a feature kernel ``h = A(.) w`` with ``||w||^2`` in place of ``||h||^2`` (``||h|| <= ||w||``: the value bounds
    ``R_reg(h, n)`` from above, hence ``min R_reg``)."""
    K, loss = common.kernel(instance), ovk_ref.as_loss(instance["loss"])
    X, Y = common.arrays(instance)
    if w is not None:
        values = [K.features(x) @ w for x in X[:n]]
        regulariser = float(np.dot(w, w))
    else:
        values = [sum((blocks[i][k] @ coefficients[k] for k in range(n)), np.zeros(Y.shape[1])) for i in range(n)]
        regulariser = explicit.norm2(K, X[:n], coefficients, blocks)
    return float(sum(float(loss.value(value, y)) for value, y in zip(values, Y[:n])) / n + instance["lam"] / 2 * regulariser)


def _bracket_sides(instance, impl) -> list:
    """Per prefix n: ``(lower, upper, [R_reg(h, n) for h in 0, ONORMA's f_n, the comparator's minimiser])``, each risk
    written out (``direct_risk``)."""
    trajectory = common.trajectory(impl, instance)
    X, Y = trajectory.X, trajectory.Y
    blocks = explicit.kernel_blocks(common.kernel(instance), X)
    sides = []
    for n in range(1, len(X) + 1):
        comparator = _comparator(instance, n)
        online = np.asarray(trajectory.coefficients[n - 1], dtype=float)
        risks = [direct_risk(instance, n, blocks, np.zeros_like(Y[:n])), direct_risk(instance, n, blocks, online)]
        minimiser = np.asarray(comparator.minimiser, dtype=float)
        risks.append(direct_risk(instance, n, blocks, w=minimiser) if common.loss_name(instance) != "squared"
                     else direct_risk(instance, n, blocks, minimiser))
        sides.append((float(comparator.lower), float(comparator.upper), risks))
    return sides


@claim("comparator.bracket", statement="the certified comparator brackets min R_reg: lower <= R_reg(h, n) for h = 0, ONORMA's f_n "
       "and the comparator's own minimiser, and upper >= R_reg(minimiser, n) (an identity for the squared loss), every prefix n",
       reference="spec 7.1, 11 (the comparator of Theorems 1-2)", hypotheses="the squared loss with any kernel, or a feature "
       "kernel with any loss (the two comparators of proofs_check.comparators)", expected="holds",
       instances=st.one_of(strategies.onorma_instances("any", min_n=1, max_n=6, among=("squared",)),
                           strategies.onorma_instances("any", feature_only=True, min_n=1, max_n=6)), uses=("onorma",),
       informative="a prefix whose risk at the comparator's minimiser is below R_reg(0, n) by more than round-off (the minimum "
                   "is not the trivial one); margin relative to the size of the risks compared",
       notes="each risk is the sum over the prefix written out (claims.explicit), nothing shared with the comparator's "
             "arithmetic but the kernel and the loss; a lower end above any R_reg(h, n) is not a lower bound of the minimum",
       faults=("ridge_minimum_without_half", "comparator_regulariser_doubled"))
def comparator_bracket(instance, impl, precision=None):
    worst, useful = None, False
    for n, (lower, upper, risks) in enumerate(_bracket_sides(instance, impl), start=1):
        size = max(abs(lower), abs(upper), *(abs(risk) for risk in risks))
        allowed = tolerances.IDENTITY_RTOL * size + tolerances.IDENTITY_ATOL
        # lower <= every risk; upper >= the minimiser's risk (equal to it for the closed form of the squared loss)
        gaps = [risk - lower for risk in risks] + [upper - risks[2]]
        if common.loss_name(instance) == "squared":
            gaps.append(risks[2] - upper)
        margin = min(gaps) + allowed
        useful = useful or risks[0] - risks[2] > allowed
        if worst is None or margin / allowed < worst.relative_margin:
            worst = Outcome(margin=float(margin), scale=float(allowed), quantities={
                "n": n, "lower": lower, "upper": upper, "R_reg(0)": risks[0], "R_reg(f_n)": risks[1], "R_reg(minimiser)": risks[2]},
                observed=lower, bound=float(min(risks)))
    worst.informative = useful
    return worst


def _theorem_outcome(instance, impl, precision, *, excess, post_update=False, truncation_term=False) -> Outcome:
    """``LHS_n <= R_reg(f_n, n) + excess(n)`` (+ the C20 truncation term) for every prefix n; worst prefix. ``excess`` is
    an expression of proofs_check.constants, or a function of ``U, lam, eta, n`` (and ``precision``)."""
    trajectory = common.trajectory(impl, instance, precision)
    K = common.kernel(instance)
    risks = list(common.regularised_risks(K, instance["loss"], trajectory, instance["lam"], post_update=post_update))
    removed = removed_norms(instance, trajectory) if truncation_term else None
    u = U(instance, precision)
    worst, excess_needed, margins, prefix_kernel = None, False, [], _prefix_kernel(instance)
    for n in range(1, len(risks) + 1):
        lhs = sum(risks[:n]) / n
        comparator = _comparator(instance, n, precision, prefix_kernel)
        values = {"U": u, "lam": instance["lam"], "eta": instance["eta"], "n": n}
        if callable(excess):
            slack = excess(precision=precision, **values)
        else:
            slack = constants.evaluate(excess, **values) if precision else constants.value(excess, **values)
        extra = 2 * float(u) / n * float(np.sum(removed[:n] / common.step_sizes(instance, n))) if truncation_term else 0.0
        margin = comparator.lower + slack + extra - lhs
        # the excess term is needed at prefix n: the online average exceeds min R_reg by more than round-off
        excess_needed = excess_needed or float(lhs - comparator.lower) > (
            tolerances.IDENTITY_RTOL * float(abs(lhs) + abs(comparator.lower)) + tolerances.IDENTITY_ATOL)
        margins.append(float(margin / slack))
        if worst is None or float(margin / slack) < worst.relative_margin:
            worst = Outcome(margin=float(margin), scale=float(slack),
                            magnitude=float(abs(lhs) + abs(comparator.lower) + slack + extra), quantities={
                                "n": n, "lhs": float(lhs), "min_R_reg_lower": float(comparator.lower),
                                "min_R_reg_upper": float(comparator.upper), "excess": float(slack),
                                "truncation_term": extra, "U": float(u)},
                            observed=float(lhs), bound=float(comparator.lower + slack + extra))
    worst.informative = len(risks) >= 2 and excess_needed
    worst.settled = common.settled(margins)
    return worst


def removed_norms(instance, trajectory, precision=None) -> np.ndarray:
    """``||Delta_t||_H``: the part of ``c_t f_{t-1} + K(., x_t) alpha_{t,t}`` that truncation removed at round t (float64,
    or mpf at ``precision``)."""
    K = common.kernel(instance)
    n = len(trajectory.X)
    shrink = 1 - common.step_sizes(instance, n, precision) * instance["lam"]
    num = Arithmetic(precision)
    norms = []
    with num.context():
        for t in range(1, n + 1):
            untruncated = num.zeros((t, trajectory.Y.shape[1]))
            if t > 1:
                untruncated[: t - 1] = shrink[t - 1] * arithmetic.lift(trajectory.coefficients[t - 2], untruncated)
            untruncated[t - 1] = arithmetic.lift(trajectory.record["new_coefficients"][t - 1], untruncated)
            delta = untruncated - arithmetic.lift(trajectory.coefficients[t - 1], untruncated)
            norm2 = ovk_ref.rkhs_norm2(trajectory.points_gram(K), trajectory.X[:t], delta)
            norms.append(arithmetic.sqrt(max(norm2, 0 * norm2)))
    return np.array(norms, dtype=object if precision else float)


@claim("thm1.predictor", statement="(1/n) sum_t R_inst(f_{t-1}, x_t, y_t) <= R_reg(f_n, n) + a/sqrt(n) + b/n for every n",
       reference="Thm. 1 (predictor reading); spec C18, E10, E11", hypotheses="Hyp. 1 and (Hyp. 2 or Hyp. 3), no truncation",
       expected="holds", instances=theorem_instances(), uses=("onorma",), informative=THEOREM_INFORMATIVE)
def theorem1_predictor(instance, impl, precision=None):
    return _theorem_outcome(instance, impl, precision, excess=constants.THEOREM1_EXCESS)


@claim("thm1.sharpened", statement="(1/n) sum_t R_t(f_{t-1}) <= R_reg(f_n, n) + a/sqrt(n) - (3U^2/(2 eta) + 2 lam^2 U^2 eta)/n",
       reference="Thm. 1 sharpened; spec C18s, 11", hypotheses="Hyp. 1 and (Hyp. 2 or Hyp. 3), no truncation",
       expected="holds", instances=theorem_instances(), uses=("onorma",), informative=THEOREM_INFORMATIVE,
       faults=("sharpening_b_without_half", "theorem1_a_rho_inverted"))
def theorem1_sharpened(instance, impl, precision=None):
    return _theorem_outcome(instance, impl, precision, excess=constants.SHARPENED_EXCESS)


@claim("thm1.post_update", statement="(1/n) sum_t R_inst(f_t, x_t, y_t) <= R_reg(f_n, n) + a/sqrt(n) + b/n for every n",
       reference="Thm. 1 (post-update reading f_i); spec C19, E10", hypotheses="Hyp. 1 and (Hyp. 2 or Hyp. 3), no truncation",
       expected="holds", instances=theorem_instances(), uses=("onorma",), informative=THEOREM_INFORMATIVE,
       faults=("shrink_skipped",))
def theorem1_post_update(instance, impl, precision=None):
    return _theorem_outcome(instance, impl, precision, excess=constants.THEOREM1_EXCESS, post_update=True)


def _phi_excess(*, U, lam, eta, n, precision=None):
    """``lam U^2 Phi(n, rho) / n`` (spec C19, ``constants.phi``), rho = eta lam exactly."""
    rho = constants.evaluate(constants.eta * constants.lam, eta=eta, lam=lam)
    with mpmath.workdps(constants.DIGITS):
        value = constants.exact_mpf(lam) * mpmath.mpf(U) ** 2 * constants.phi(n, rho) / n
    return value if precision else float(value)


@claim("thm1.phi_sum", statement="sum_{t<=n} [R_t(f_t) - R_t(f_n)] <= lam U^2 Phi(n, rho) for every n (Phi of spec C19, Psi - Phi >= 9/4)",
       reference="Thm. 1 post-update proof under Hyp. 2; spec C19", hypotheses="Hyp. 1-2 (feature kernel, for the certified comparator), no truncation",
       expected="holds", instances=st.one_of(strategies.onorma_instances("hyp2", feature_only=True, max_n=8, min_n=2),
                                             strategies.tight_onorma_instances("hyp2", feature_only=True, max_n=6),
                                             strategies.edge_onorma_instances()),
       uses=("onorma",), informative=THEOREM_INFORMATIVE.replace("the excess term", "lam U^2 Phi(n, rho) / n"),
       notes="the sharper form of thm1.post_update that its proof gives (the theorem's side is lam U^2 Psi, Psi = (4 rho + 2/rho) "
             "sqrt(n) + 1/(2 rho)); Psi - Phi >= 9/4 is symbolic.PROOFS['psi_minus_phi']",
       faults=("norm_gradient_unnormalised", "shrink_skipped"))
def theorem1_phi_sum(instance, impl, precision=None):
    return _theorem_outcome(instance, impl, precision, excess=_phi_excess, post_update=True)


def _first_update_moves(instance) -> bool:
    """``f_1 != 0``: ``u_1^T K(x_1, x_1) u_1`` resolved, ``u_1`` the loss's subgradient at the prediction 0 (a hinge
    target whose classes a rank-one ``B`` does not tell apart, a target inside the tube, leave ONORMA at 0 for ever,
    and the per-round inequality 0 <= allowance)."""
    X, Y = common.arrays(instance)
    u = ovk_ref.as_loss(instance["loss"]).gradient(np.zeros(Y.shape[1]), Y[0])
    return common.resolved(float(u @ common.kernel(instance)(X[0], X[0]) @ u), order=2)


@claim("thm1.per_round", statement="R_t(f_t) - R_t(0) <= (||f_{t-1}||^2 - ||f_t||^2)/(2 eta_t) - (lam/2)||f_{t-1}||^2 "
                                    "+ 2 L^2 eta_t + 2 lam L^2 eta_t^2 every round",
       reference="Thm. 1 post-update proof, per-round inequality with g = 0; spec C19, 11(v)",
       hypotheses="Hyp. 1-2 (L = kappa C = lam U), any kernel, no truncation", expected="holds",
       instances=strategies.onorma_instances("hyp2", min_n=2).filter(_first_update_moves), uses=("onorma",),
       informative="a round t >= 2 with f_{t-1} != 0; margin relative to the allowance 2 L^2 eta_t + 2 lam L^2 eta_t^2")
def theorem1_per_round(instance, impl, precision=None):
    trajectory = common.trajectory(impl, instance, precision)
    K, loss, lam = common.kernel(instance), ovk_ref.as_loss(instance["loss"]), instance["lam"]
    n = len(trajectory.X)
    etas = common.step_sizes(instance, n, precision)
    L = common.constant(constants.lam * constants.U_PROP1, instance, precision)
    risks = common.regularised_risks(K, loss, trajectory, lam, post_update=True)
    worst, margins = None, []
    for t in range(1, n + 1):
        zero = arithmetic.lift(np.zeros(trajectory.Y.shape[1]), etas[0])
        at_zero = loss.value(zero, arithmetic.lift(trajectory.Y[t - 1], etas[0]))        # R_t(0): ||0||^2 = 0
        previous, current = trajectory.norm(K, t - 1) ** 2, trajectory.norm(K, t) ** 2
        eta_t = etas[t - 1]
        allowance = 2 * L**2 * eta_t + 2 * lam * L**2 * eta_t**2        # the bound on E_t
        bound = (previous - current) / (2 * eta_t) - lam / 2 * previous + allowance
        observed = risks[t - 1] - at_zero
        magnitude = float(abs(previous) / eta_t + abs(current) / eta_t + abs(risks[t - 1]) + abs(at_zero) + allowance)
        margin = float(bound - observed)
        margins.append(margin / float(allowance))
        if worst is None or margin / float(allowance) < worst.relative_margin:   # relative to the allowance for E_t
            worst = Outcome(margin=margin, scale=float(allowance), magnitude=magnitude, tie=tolerances.PSD_EIGENVALUE,
                            quantities={"round": t, "lhs": float(observed), "rhs": float(bound)},
                            observed=float(observed), bound=float(bound))
    worst.informative = common.resolved([float(trajectory.norm(K, t)) for t in range(1, n)])
    worst.settled = common.settled(margins)
    return worst


def _gradient_coefficients(trajectory, kernel, loss, lam, t: int) -> np.ndarray:
    """``G_t = K(., x_t) u_t + lam f_{t-1}`` as coefficients on ``x_1..x_t``, ``u_t`` the loss's gradient at ``f_{t-1}(x_t)``
    (spec 5.2: a subgradient of ``R_t`` at ``f_{t-1}``)."""
    prediction = trajectory.value(kernel, t - 1, trajectory.X[t - 1])
    u = loss.gradient(prediction, arithmetic.lift(trajectory.Y[t - 1], prediction))
    previous = trajectory.coefficients[t - 2] if t > 1 else np.zeros((0, len(u)))
    return np.concatenate([lam * arithmetic.lift(previous, u), u[None, :]])


@claim("thm1.descent", statement="R_t(f_t) <= R_t(f_{t-1}) - eta_t (1 - eta_t (kappa^2 + lam)/2) ||G_t||^2 <= R_t(f_{t-1}) every round, "
       "G_t = K(., x_t) u_t + lam f_{t-1}",
       reference="Thm. 1 post-update proof under Hyp. 3, the descent step; spec C19", expected="holds",
       hypotheses="Hyp. 1, 3 (squared loss, lam >= 2 kappa^2, so that eta_t (kappa^2 + lam) < 3/2), no truncation",
       instances=st.one_of(strategies.onorma_instances("hyp3", min_n=2), strategies.tight_onorma_instances("hyp3", max_n=4)), uses=("onorma",),
       informative="a round t >= 2 with f_{t-1} != 0 and G_t != 0; margin relative to eta_t ||G_t||^2 (the first-order decrease)",
       notes="R_t is quadratic with Hessian K(., x_t) K(x_t, .) + lam I, whose norm is at most kappa^2 + lam: R_t(f - eta G) = R_t(f) "
             "- eta ||G||^2 + (eta^2/2)(||G(x_t)||^2 + lam ||G||^2) (symbolic.PROOFS['descent_expansion']) and ||G(x_t)|| <= "
             "kappa ||G||; attained when G_t lies along K(., x*) v (one point at the top of K(x, x), targets along v)",
       faults=("eta_next_index",))
def theorem1_descent(instance, impl, precision=None):
    trajectory = common.trajectory(impl, instance, precision)
    K, loss, lam = common.kernel(instance), ovk_ref.as_loss(instance["loss"]), instance["lam"]
    n = len(trajectory.X)
    etas = common.step_sizes(instance, n, precision)
    L = common.constant(constants.kappa2_ + constants.lam, instance, precision)
    after = common.regularised_risks(K, loss, trajectory, lam, post_update=True)
    before = common.regularised_risks(K, loss, trajectory, lam, post_update=False)
    worst, margins, moved = None, [], False
    for t in range(1, n + 1):
        gradient2 = ovk_ref.rkhs_norm2(trajectory.points_gram(K), trajectory.X[:t],
                                       _gradient_coefficients(trajectory, K, loss, lam, t))
        eta_t = etas[t - 1]
        decrease = eta_t * gradient2
        bound = before[t - 1] - eta_t * (1 - eta_t * L / 2) * gradient2
        margin = float(bound - after[t - 1])
        scale = float(decrease) if float(decrease) > 0 else 1.0
        margins.append(margin / scale)
        moved = moved or (t >= 2 and common.resolved(float(gradient2), order=2) and common.resolved(float(trajectory.norm(K, t - 1))))
        if worst is None or margin / scale < worst.relative_margin:
            worst = Outcome(margin=margin, scale=scale, magnitude=float(abs(before[t - 1]) + abs(after[t - 1]) + decrease),
                            tie=tolerances.PSD_EIGENVALUE, quantities={"round": t, "R_t(f_t)": float(after[t - 1]),
                                                                       "R_t(f_{t-1})": float(before[t - 1]), "||G_t||^2": float(gradient2)},
                            observed=float(after[t - 1]), bound=float(bound))
    worst.informative = moved
    worst.settled = common.settled(margins)
    return worst


@claim("thm1.squared_without_lam", statement="Theorem 1 for the squared loss also holds without lam > 2 kappa^2",
       reference="Thm. 1, Hyp. 3(iii); spec C22, E19", hypotheses="Hyp. 1, 3(i)-(ii) only: lam < 2 kappa^2 (breaks Hyp. 3(iii))",
       expected="false", instances=strategies.onorma_instances("hyp3_without_lam", max_n=8), uses=("onorma",),
       informative=THEOREM_INFORMATIVE,
       known_counterexamples=[{"kernel": {"type": "gaussian_separable", "mu": 1.0, "B": [[1.0]]}, "p": 1, "d": 1,
                               "loss": "squared", "C": None, "C_y": 1.0, "truncation": None, "X": [[0.0]] * 4,
                               "Y": [[1.0], [0.0], [0.0], [0.0]], "lam": 0.1, "eta": 5.0, "kappa2": 1.0}],
       notes="C22 decided: the hypothesis (or some bound on eta kappa^2) is needed, not only the proof; with "
             "eta_1 kappa^2 > 2 the squared-loss iterates oscillate with growing amplitude")
def theorem1_without_lam(instance, impl, precision=None):
    return _theorem_outcome(instance, impl, precision, excess=constants.THEOREM1_EXCESS)


@claim("thm2.any_truncation", statement="LHS_n <= R_reg(f_n,n) + a/sqrt(n) - (3U^2/(2 eta) + 2 lam^2 U^2 eta)/n + (2U/n) sum_t ||Delta_t||/eta_t",
       reference="Thm. 2' (perturbed SGD); spec C20", hypotheses="Hyp. 1 and (Hyp. 2 or 3), any truncation schedule",
       expected="holds", instances=theorem_instances(truncation=True), uses=("onorma",), informative=THEOREM_INFORMATIVE,
       faults=("sharpening_b_without_half",))
def theorem2_any_truncation(instance, impl, precision=None):
    return _theorem_outcome(instance, impl, precision, excess=constants.SHARPENED_EXCESS, truncation_term=True)


def _truncates(instance) -> bool:
    return any(common.dropped_indices(instance, t) for t in range(1, len(instance["X"]) + 1))


@claim("thm2.dropped_norm", statement="when truncation drops the term i at round t: ||Delta_t|| <= kappa ||alpha_{i,t}|| <= lam U eta_i P_{i,t}",
       reference="Thm. 2 (the a-priori bound on the dropped part); spec C20, C21",
       hypotheses="Hyp. 1 and (Hyp. 2 or 3), any truncation schedule", expected="holds",
       instances=st.one_of(strategies.onorma_instances("hyp2", truncation=True, min_n=2).filter(_truncates),
                           strategies.onorma_instances("hyp3", truncation=True, min_n=2).filter(_truncates),
                           strategies.tight_truncated_onorma_instances("hyp2", max_n=4)), uses=("onorma",),
       informative="a round that drops a term with a non-zero coefficient; margin relative to lam U sum_i eta_i P_{i,t} over the "
                   "dropped i (one per round for a window and for Theorem 2's schedule)",
       notes="||K(., x) a|| <= kappa ||a||, alpha_{i,t} = alpha_{i,i} P_{i,t} and ||alpha_{i,i}|| <= eta_i C (Hyp. 2: kappa C = lam U) "
             "or 2 eta_i C_y (Hyp. 3: 2 kappa C_y <= lam U); attained at every drop by one point at the top of K(x, x) with the "
             "subgradient -C v every round (strategies.tight_truncated_onorma_instances)",
       faults=("truncation_keeps_one_more",))
def theorem2_dropped_norm(instance, impl, precision=None):
    trajectory = common.trajectory(impl, instance, precision)
    removed = removed_norms(instance, trajectory, precision)
    n = len(trajectory.X)
    etas = common.step_sizes(instance, n, precision)
    shrink = 1 - etas * instance["lam"]
    lam_U = instance["lam"] * common.U(instance, precision)
    worst, margins, dropped_any = None, [], False
    for t in range(1, n + 1):
        dropped = common.dropped_indices(instance, t)
        if not dropped:
            margins.append(float("inf"))
            continue
        bound = lam_U * sum(etas[i - 1] * np.prod(shrink[i:t]) for i in dropped)   # P_{i,t} = prod_{k=i+1}^t (1 - eta_k lam)
        margins.append(float((bound - removed[t - 1]) / bound))
        dropped_any = dropped_any or common.resolved(float(removed[t - 1]))
        if worst is None or margins[-1] < worst.relative_margin:
            worst = Outcome(margin=float(bound - removed[t - 1]), scale=float(bound), tie=tolerances.PSD_EIGENVALUE,
                            quantities={"round": t, "dropped": list(dropped), "norm_Delta": float(removed[t - 1]), "bound": float(bound)},
                            observed=float(removed[t - 1]), bound=float(bound))
    if worst is None:
        return Outcome(margin=1.0, quantities={"dropped": []}, informative=False)
    worst.informative = dropped_any
    settled = common.settled(margins)
    worst.settled = settled if settled is not None and np.isfinite(settled) else None
    return worst


@claim("thm2.exists_t0", statement="with Theorem 2's schedule, LHS_n <= R_reg(f_n, n) + a2/sqrt(n) + b/n for every n",
       reference="Thm. 2; spec C21, E12, E13", hypotheses="Hyp. 1 and (Hyp. 2 or 3), schedule of spec 5.3 with a drawn t0",
       expected="proved",
       instances=theorem_instances(truncation="schedule"),
       uses=("onorma",), informative=THEOREM_INFORMATIVE,
       notes="E13: the paper's 'there exists t0' cannot be refuted by finitely many runs; it is proved for every rho in "
             "(0, 1) and eps in (0, 1/2): every t0 >= t0(rho, eps), a closed form (proofs_check.proofs.theorem2_formula, "
             "docs/theorem2-certificate.md), makes C21's certificate hold for every n; the search also draws smaller t0, "
             "which the proof does not cover (no drawn t0 has given a violation)")
def theorem2_exists_t0(instance, impl, precision=None):
    return _theorem_outcome(instance, impl, precision, excess=constants.THEOREM2_EXCESS)


#: horizon of the finite part of the C21 certificate (the tail bound of spec C21 is not run)
CERTIFICATE_HORIZON = 5000


@st.composite
def _certificate_instances(draw):
    return {"rho": draw(st.floats(0.5, 0.95)), "epsilon": draw(st.floats(0.25, 0.45)), "t0": 1}


@claim("thm2.certificate", statement="with Theorem 2's schedule (t0 = 1): S_n <= 8 rho sqrt(n) for n <= 5000, the condition that gives Thm. 2 for every stream",
       reference="Thm. 2; spec C21, E13", hypotheses="rho = eta lam in [0.5, 0.95], epsilon in [0.25, 0.45], t0 = 1",
       expected="holds", instances=_certificate_instances(), informative="every instance",
       notes="finite part of the C21 certificate only (n <= CERTIFICATE_HORIZON; the tail bound is not run)")
def theorem2_certificate(instance, impl=None, precision=None):
    rho, schedule = instance["rho"], ovk_ref.theorem2_schedule(instance["t0"], instance["epsilon"])
    t = np.arange(1, CERTIFICATE_HORIZON + 1)
    log_shrink = np.concatenate([[0.0], np.cumsum(np.log1p(-rho / np.sqrt(t)))])   # log prod_{k<=t}(1 - rho/sqrt k)
    cuts = np.array([k - schedule(int(k)) for k in t])
    dropped = np.flatnonzero(np.diff(np.concatenate([[0], cuts])) > 0)          # 0-based rounds t - 1 that drop i_t = cut
    terms = np.zeros(CERTIFICATE_HORIZON)
    rounds, indices = dropped + 1, cuts[dropped]                                   # t and i_t of every drop
    terms[dropped] = np.sqrt(rounds / indices) * np.exp(log_shrink[rounds] - log_shrink[indices])
    ratios = np.cumsum(terms) / (8 * rho * np.sqrt(t))
    worst = int(np.argmax(ratios))
    return Outcome(margin=float(1 - ratios[worst]), quantities={"n": worst + 1, "S_n/(8 rho sqrt n)": float(ratios[worst])},
                   observed=float(ratios[worst]), bound=1.0, settled=common.settled(1 - ratios))


_FACTOR = sp.Symbol("factor", positive=True)
_EXCESS_AT_STAR = constants.THEOREM1_EXCESS.subs(constants.eta, constants.ETA_STAR)
_EXCESS_AT_SCALED_STAR = constants.THEOREM1_EXCESS.subs(constants.eta, _FACTOR * constants.ETA_STAR)
_DERIVATIVE_AT_STAR = sp.diff(constants.THEOREM1_EXCESS, constants.eta).subs(constants.eta, constants.ETA_STAR)


@st.composite
def _eta_star_instances(draw):
    return {"n": draw(st.integers(1, 10**6)), "lam": draw(strategies.log_uniform(1e-3, 1e3)),
            "U": draw(strategies.log_uniform(1e-3, 1e3)), "factor": draw(strategies.log_uniform(1e-2, 1e2))}


@claim("bound.eta_star", statement="eta* = sqrt(2 + 1/(2 sqrt n))/(2 lam) minimises a/sqrt(n) + b/n, with eta* lam < 1 "
                                    "and value 2 sqrt2 lam U^2 sqrt(4 sqrt n + 1)/n^(3/4)",
       reference="spec 10", hypotheses="n >= 1, lam > 0, U > 0; compared with eta = factor * eta*", expected="holds",
       instances=_eta_star_instances(), informative="every instance")
def eta_star(instance, impl=None, precision=None):
    values = {name: instance[name] for name in ("n", "lam", "U")}
    star = constants.evaluate(constants.ETA_STAR, n=instance["n"], lam=instance["lam"])
    at_star = constants.evaluate(_EXCESS_AT_STAR, **values)
    elsewhere = constants.evaluate(_EXCESS_AT_SCALED_STAR, factor=instance["factor"], **values)
    minimum = constants.evaluate(constants.THEOREM1_MINIMUM, **values)
    derivative = constants.evaluate(_DERIVATIVE_AT_STAR, **values)
    # exact identities evaluated at constants.DIGITS digits: a violation is a relative error above HIGH_PRECISION_TIE
    violations = [margin for margin in (float((elsewhere - at_star) / at_star) + tolerances.HIGH_PRECISION_TIE,
                                        tolerances.HIGH_PRECISION_TIE - float(abs(at_star - minimum) / minimum),
                                        tolerances.HIGH_PRECISION_TIE - float(abs(derivative) * star / at_star)) if margin < 0]
    margin = min(violations) if violations else 1 - float(star) * instance["lam"]   # eta* is admissible: eta* lam < 1
    return Outcome(margin=margin, quantities={"eta_star_lam": float(star) * instance["lam"], "minimum": float(minimum)},
                   observed=float(star) * instance["lam"], bound=1.0)


@claim("batch.optimality", statement="batch_ridge solves (G + t lam I) c = vec(Y), i.e. lam h + (1/t) sum_i K(., x_i)(h(x_i) - y_i) = 0",
       reference="spec 7.1, C25", hypotheses="any kernel, lam > 0", expected="holds",
       instances=strategies.onorma_instances("any", min_n=2, among=("squared",)), uses=("batch_ridge",),
       informative="two examples or more and a non-zero solution c", faults=("batch_ridge_without_t",))
def batch_optimality(instance, impl, precision=None):
    X, Y = common.arrays(instance)
    K = common.kernel(instance)
    c = np.asarray(impl.batch_ridge(X, Y, instance["kernel"], lam=instance["lam"]), dtype=float).reshape(-1)
    system = K.gram(X) + len(X) * instance["lam"] * np.eye(c.size)
    residual = float(np.max(np.abs(system @ c - Y.reshape(-1))))
    magnitude = float(np.max(np.abs(system) @ np.abs(c) + np.abs(Y.reshape(-1))))
    allowed = tolerances.IDENTITY_RTOL * magnitude + tolerances.IDENTITY_ATOL
    return Outcome(margin=allowed - residual, scale=allowed, quantities={"residual": residual}, informative=common.resolved(c),
                   observed=residual, bound=allowed)
