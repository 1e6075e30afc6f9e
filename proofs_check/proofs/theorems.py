"""Theorems 1 and 2: the proofs of spec C18, C18s, C20 and C21 as chains (the paper refers to Kivinen, Smola and
Williamson for them; the spec writes them out).

For a prefix n and the comparator ``g = f_n`` (the batch minimiser: exact ridge for the squared loss, the certified
minimiser for a feature kernel), ``D_t = ||f_t - g||^2``, ``G_t = K(., x_t) u_t + lam f_{t-1}`` (a subgradient of
``R_t`` at ``f_{t-1}``) and ``h_t = f_{t-1} - eta_t G_t`` (the untruncated update; ``Delta_t = h_t - f_t`` is what
truncation removed). Per round: the SGD identity ``<G_t, f_{t-1} - g> = (D_{t-1} - ||h_t - g||^2)/(2 eta_t) +
(eta_t/2)||G_t||^2``, convexity ``R_t(f_{t-1}) - R_t(g) <= <G_t, f_{t-1} - g>``, the bounds ``||G_t|| <= 2 lam U``,
``||f_t|| <= U``, ``||g|| <= U``; then the sums: summation by parts, ``1/eta_t`` increasing, ``sum_t t^(-1/2) <= 2
sqrt(n) - 1`` and the constants ``a``, ``b`` (spec 10). Theorem 2 (C21) adds the a-priori bound on the dropped term and
the certificate ``S_n <= 8 rho sqrt(n)``.

Vectors of H are coefficient arrays on ``x_1..x_n`` with the block Gram matrix as inner product, or, for a feature
kernel ``A(x) A(z)^T``, the feature vectors ``w`` with ``f = A(.) w`` (spec 3.3), where the certified comparator lives.
"""
from __future__ import annotations

import math

import numpy as np

import ovk_ref
from proofs_check import comparators, constants, tolerances
from proofs_check.claims import common
from proofs_check.claims.bounds import removed_norms
from proofs_check.proofs import theorem2_formula
from proofs_check.proofs.chain import TIE, Chain, Comparison, Step, identity, inequality
from proofs_check.proofs.onorma_run import onorma_run


class _Space:
    """H restricted to what one run needs: embeddings of ``f_t``, ``K(., x_t) u``, inner products, evaluations."""

    def __init__(self, run):
        self.run = run
        kernel = run.kernel
        self.feature = isinstance(kernel, ovk_ref.Feature)
        if self.feature:
            self.features = [kernel.features(x) for x in run.X]
        else:
            self.gram = kernel.gram(run.X)

    def embed(self, coefficients) -> np.ndarray:
        coefficients = np.asarray(coefficients, dtype=float)
        if self.feature:
            return sum((A.T @ a for A, a in zip(self.features, coefficients)), np.zeros(self.run.kernel.q))
        padded = np.zeros_like(self.run.Y, dtype=float)
        padded[: len(coefficients)] = coefficients
        return padded.ravel()

    def new_term(self, t: int, u) -> np.ndarray:
        if self.feature:
            return self.features[t - 1].T @ u
        vector = np.zeros_like(self.run.Y, dtype=float)
        vector[t - 1] = u
        return vector.ravel()

    def inner(self, a, b) -> float:
        return float(a @ b) if self.feature else float(a @ self.gram @ b)

    def norm(self, a) -> float:
        return math.sqrt(max(self.inner(a, a), 0.0))

    def value(self, a, t: int) -> np.ndarray:
        if self.feature:
            return self.features[t - 1] @ a
        return (self.gram @ a).reshape(self.run.Y.shape)[t - 1]

    def comparator(self, n: int) -> np.ndarray:
        """``g = f_n``: the minimiser of ``R_reg(., n)``."""
        X, Y, instance = self.run.X[:n], self.run.Y[:n], self.run.instance
        comparator = comparators.minimum(instance["kernel"], X, Y, instance["lam"], instance["loss"])
        if self.feature and self.run.loss.name != "squared":
            return np.asarray(comparator.minimiser, dtype=float)
        return self.embed(comparator.minimiser)


def _risk(run, space, vector, t: int) -> float:
    """``R_t(h) = l(h(x_t), y_t) + (lam/2)||h||^2``."""
    return float(run.loss.value(space.value(vector, t), run.Y[t - 1])) + run.lam / 2 * space.inner(vector, vector)


def _schedule_sum(rho: float, schedule, n: int) -> float:
    """``S_n = sum_{t<=n, drop at t} sqrt(t/i_t) prod_{k=i_t+1}^t (1 - rho/sqrt k)`` (spec C21), float64."""
    total, cut = 0.0, 0
    for t in range(1, n + 1):
        new_cut = t - schedule(t)
        if new_cut > cut:
            i = new_cut
            total += math.sqrt(t / i) * math.prod(1 - rho / math.sqrt(k) for k in range(i + 1, t + 1))
        cut = new_cut
    return total


def _summation_comparisons(D, etas, sgd_terms, gradient_terms, *, U, lam, eta, a, sharpening) -> list:
    """The sums over rounds 1..n of Theorem 1's proof (n = ``len(etas)``, ``D[t] = ||f_t - g||^2``): summation by
    parts, the telescoped SGD terms, ``sum 1/sqrt(t) <= 2 sqrt(n) - 1``, the gradient terms, and the constants."""
    n = len(etas)
    by_parts = D[0] / (2 * etas[0]) - D[n] / (2 * etas[n - 1]) + sum(D[t] * (1 / (2 * etas[t]) - 1 / (2 * etas[t - 1])) for t in range(1, n))
    root = math.sqrt(n)
    telescoped = U**2 / (2 * eta) + 2 * U**2 * (root - 1) / eta
    return [identity("summation_by_parts", sum(sgd_terms), by_parts, sum(abs(x) for x in sgd_terms) + D[0] / etas[0], n),
            inequality("telescoped", sum(sgd_terms), telescoped, n),
            inequality("step_sum", sum(1 / math.sqrt(t) for t in range(1, n + 1)), 2 * root - 1, n),
            inequality("gradient_sum", sum(gradient_terms), 2 * lam**2 * U**2 * eta * (2 * root - 1), n),
            identity("constants", telescoped + 2 * lam**2 * U**2 * eta * (2 * root - 1), root * a - sharpening,
                     root * a + sharpening, n)]


def _comparisons(instance, impl, *, excess, truncated: bool, certificate: bool = False) -> list:
    run = onorma_run(instance, impl)
    space = _Space(run)
    squared = run.loss.name == "squared"
    lam, eta, kappa = run.lam, float(instance["eta"]), run.kappa
    U = float(common.U(instance))
    G_bound = 2 * instance["C_y"] if squared else instance["C"]
    iterates = [np.zeros_like(space.embed(run.coefficients[0]))] + [space.embed(c) for c in run.coefficients]
    comparisons = []
    for n in range(1, run.n + 1):
        g = space.comparator(n)
        comparisons.append(inequality("comparator_norm", space.norm(g), U, 0))
        comparisons.append(inequality("distance", space.norm(iterates[0] - g) ** 2, U**2, 0))
        sgd_terms, gradient_terms, dropped_terms, drop_bounds, lhs, rhs = [], [], [], [], 0.0, 0.0
        for t in range(1, n + 1):
            eta_t = run.etas[t - 1]
            previous, current = iterates[t - 1], iterates[t]
            u = run.gradients[t - 1]
            G = lam * previous + space.new_term(t, u)
            h = previous - eta_t * G
            delta = h - current
            D_prev, D_t, H = (space.norm(previous - g) ** 2, space.norm(current - g) ** 2, space.norm(h - g) ** 2)
            G_norm, pairing = space.norm(G), space.inner(G, previous - g)
            risk_f, risk_g = _risk(run, space, previous, t), _risk(run, space, g, t)
            lhs, rhs = lhs + risk_f, rhs + risk_g
            size = D_prev / eta_t + H / eta_t + eta_t * G_norm**2 + abs(pairing)
            if truncated:    # Delta_t is what a drop removed: 0 at a round that drops nothing (not h_t - f_t's round-off)
                dropped = space.norm(delta) if common.cut(instance, t) > common.cut(instance, t - 1) else 0.0
                comparisons.append(inequality("perturbation", D_t, H + 2 * space.norm(current - g) * dropped, t,
                                              scale=max(D_t, H) + 1e-300))
                comparisons.append(inequality("perturbation_distance", space.norm(current - g), 2 * U, t))
                dropped_terms.append(space.norm(current - g) * dropped / eta_t)
                drop_bounds.append(2 * U * dropped / eta_t)
            else:
                comparisons.append(identity("sgd_step", space.norm(delta), 0.0, space.norm(previous) + eta_t * G_norm, t))
            comparisons += [
                identity("sgd_identity", pairing, (D_prev - H) / (2 * eta_t) + eta_t / 2 * G_norm**2, size, t),
                inequality("convexity", risk_f - risk_g, pairing, t, scale=abs(risk_f) + abs(risk_g) + abs(pairing) + 1e-300)]
            if squared:
                comparisons.append(inequality("prop2_i", space.norm(previous), instance["C_y"] / kappa, t))
            comparisons += [inequality("gradient", np.linalg.norm(u), G_bound, t),
                            inequality("gradient_norm", G_norm, 2 * lam * U, t),
                            inequality("iterate_norm", space.norm(current), U, t),
                            inequality("distance", D_t, 4 * U**2, t)]
            i = common.cut(instance, t)
            if certificate and i > common.cut(instance, t - 1):     # round t drops the term i = t - s_t (one per round, spec 5.3)
                comparisons.append(inequality("dropped_norm", space.norm(delta), lam * U * run.etas[i - 1] * run.product(i, t), t))
            sgd_terms.append((D_prev - D_t) / (2 * eta_t))
            gradient_terms.append(eta_t / 2 * G_norm**2)
        root = math.sqrt(n)
        sharpening = float(constants.value(constants.SHARPENING, U=U, lam=lam, eta=eta))
        a = float(constants.value(constants.A, U=U, lam=lam, eta=eta))
        D = [space.norm(iterate - g) ** 2 for iterate in iterates[: n + 1]]
        comparisons += _summation_comparisons(D, run.etas[:n], sgd_terms, gradient_terms, U=U, lam=lam, eta=eta, a=a,
                                              sharpening=sharpening)
        slack = float(constants.value(excess, U=U, lam=lam, eta=eta, n=n))
        extra = 0.0
        if truncated:
            extra = sum(drop_bounds) / n
            comparisons.append(inequality("truncation_sum", sum(dropped_terms), sum(drop_bounds), n,
                                          scale=max(sum(drop_bounds), 1e-300)))
        if certificate:
            rho = eta * lam
            S = _schedule_sum(rho, common.schedule(instance), n)
            a2 = float(constants.value(constants.A2, U=U, lam=lam, eta=eta))
            if n == run.n:    # the lemmas of the closed-form t0 (docs/theorem2-certificate.md, The formula)
                truncation = instance["truncation"]
                comparisons += theorem2_formula.lemma_comparisons(rho, float(truncation["epsilon"]), int(truncation["t0"]),
                                                                  common.schedule(instance), n)
            comparisons += [inequality("certificate", S, 8 * rho * root, n),
                            inequality("truncation_term", extra, 2 * lam * U**2 / n * S, n, scale=max(extra, 1e-300)),
                            identity("theorem2_constants", a / root + 2 * lam * U**2 / n * 8 * rho * root, a2 / root, a2 / root, n)]
            extra = 0.0    # the truncation term is inside a2 (C21)
        if excess is not constants.SHARPENED_EXCESS and not certificate:
            comparisons.append(inequality("sharpened", root * a - sharpening, root * a + float(constants.value(constants.B, U=U, eta=eta)), n))
        margin_scale = slack + extra
        comparisons.append(inequality("conclusion", lhs / n, rhs / n + slack + extra, n, scale=abs(margin_scale) + 1e-300))
    return comparisons


def _post_update(instance, impl, *, phi_form: bool = False) -> list:
    """Theorem 1, post-update reading (spec C19): Hyp. 3 by descent, then C18; Hyp. 2 by the per-round inequality. With
    ``phi_form`` (Hyp. 2), its conclusion is the sum bound ``sum_t [R_t(f_t) - R_t(g)] <= lam U^2 Phi(n, rho)``."""
    run = onorma_run(instance, impl)
    space = _Space(run)
    lam, eta, kappa, rho = run.lam, float(instance["eta"]), run.kappa, float(instance["eta"]) * run.lam
    U = float(common.U(instance))
    squared = run.loss.name == "squared"
    iterates = [np.zeros_like(space.embed(run.coefficients[0]))] + [space.embed(c) for c in run.coefficients]
    predictor = [] if not squared else [
        Comparison("predictor", c.observed, c.bound, c.scale, c.round)
        for c in _comparisons(instance, impl, excess=constants.THEOREM1_EXCESS, truncated=False) if c.step == "conclusion"]
    comparisons = list(predictor)
    L = lam * U
    for n in range(1, run.n + 1):
        g = space.comparator(n)
        lhs = rhs = 0.0
        round_terms = []
        for t in range(1, n + 1):
            eta_t = run.etas[t - 1]
            previous, current = iterates[t - 1], iterates[t]
            risk_new, risk_old, risk_g = (_risk(run, space, vector, t) for vector in (current, previous, g))
            lhs, rhs = lhs + risk_new, rhs + risk_g
            if squared:
                comparisons += [inequality("step_size", eta_t * (kappa**2 + lam), 1.5, t),
                                inequality("descent", risk_new, risk_old, t, scale=abs(risk_old) + abs(risk_new) + 1e-300)]
                continue
            P = space.new_term(t, run.gradients[t - 1])
            G = P + lam * previous
            Q = space.new_term(t, run.loss.gradient(space.value(current, t), run.Y[t - 1]))
            E = eta_t * ((space.inner(P, P) - lam**2 * space.inner(previous, previous)) / 2 - space.inner(Q, G)) \
                + lam / 2 * eta_t**2 * space.inner(G, G)
            D_prev, D_t = space.norm(previous - g) ** 2, space.norm(current - g) ** 2
            bound = (D_prev - D_t) / (2 * eta_t) - lam / 2 * D_prev + E
            size = abs(risk_new) + abs(risk_g) + D_prev / eta_t + D_t / eta_t + abs(E) + 1e-300
            comparisons += [inequality("per_round", risk_new - risk_g, bound, t, scale=size),
                            inequality("E_bound", E, 2 * L**2 * eta_t + 2 * lam * L**2 * eta_t**2, t,
                                       scale=2 * L**2 * eta_t + 2 * lam * L**2 * eta_t**2)]
            round_terms.append((D_prev - D_t) / (2 * eta_t) - lam / 2 * D_prev + 2 * L**2 * eta_t + 2 * lam * L**2 * eta_t**2)
        if not squared:
            phi = float(constants.phi(n, rho))
            psi = (4 * rho + 2 / rho) * math.sqrt(n) + 1 / (2 * rho)
            comparisons.append(inequality("sum_bound", sum(round_terms), lam * U**2 * phi, n))
            if phi_form:
                comparisons.append(inequality("conclusion", lhs - rhs, lam * U**2 * phi, n, scale=lam * U**2 * phi))
                continue
            comparisons.append(inequality("phi_psi", phi, psi - 9 / 4, n))
        slack = float(constants.value(constants.THEOREM1_EXCESS, U=U, lam=lam, eta=eta, n=n))
        comparisons.append(inequality("conclusion", lhs / n, rhs / n + slack, n, scale=slack))
    return comparisons


def _descent_scale(decrease: float, after: float, before: float) -> float:
    """The conclusion's margin is relative to the first-order decrease ``eta_t ||G_t||^2``, or, where that is below what
    float64 resolves between the two risks (``tolerances.RISK_ROUNDOFF`` of their size, at the chain's ``TIE``), to that
    resolution: the step is then a tie, as the claim's own check finds it at 50 digits."""
    resolution = tolerances.RISK_ROUNDOFF * (abs(after) + abs(before)) / TIE
    return max(decrease, resolution) if max(decrease, resolution) > 0 else 1.0


def _descent(instance, impl) -> list:
    """The descent step of C19 under Hyp. 3, per round: ``f_t = f_{t-1} - eta_t G_t``, the exact expansion of the quadratic
    ``R_t`` along ``G_t``, ``||G_t(x_t)|| <= kappa ||G_t||`` and ``eta_t (kappa^2 + lam) < 3/2``."""
    run = onorma_run(instance, impl)
    space = _Space(run)
    lam, kappa = run.lam, run.kappa
    iterates = [np.zeros_like(space.embed(run.coefficients[0]))] + [space.embed(c) for c in run.coefficients]
    comparisons = []
    for t in range(1, run.n + 1):
        eta_t = run.etas[t - 1]
        previous, current = iterates[t - 1], iterates[t]
        G = lam * previous + space.new_term(t, run.gradients[t - 1])
        G2, at_point = space.inner(G, G), float(np.linalg.norm(space.value(G, t)))
        before, after = _risk(run, space, previous, t), _risk(run, space, current, t)
        change = -eta_t * G2 + eta_t**2 / 2 * (at_point**2 + lam * G2)
        comparisons += [identity("sgd_step", space.norm(current - (previous - eta_t * G)), 0.0, space.norm(previous) + eta_t * math.sqrt(G2), t),
                        identity("expansion", after - before, change, abs(after) + abs(before) + eta_t * G2, t),
                        inequality("evaluation", at_point**2, kappa**2 * G2, t),
                        inequality("step_size", eta_t * (kappa**2 + lam), 1.5, t),
                        inequality("conclusion", after, before - eta_t * (1 - eta_t * (kappa**2 + lam) / 2) * G2, t,
                                   scale=_descent_scale(eta_t * G2, after, before))]
    return comparisons


def _dropped(instance, impl) -> list:
    """C20's a-priori bound at every round that drops a term i: the removed part is ``K(., x_i) alpha_{i,t}``,
    ``alpha_{i,t} = alpha_{i,i} P_{i,t}``, ``||K(., x_i) a|| <= kappa ||a||``, ``||alpha_{i,i}|| = eta_i ||u_i||``."""
    run = onorma_run(instance, impl)
    removed = removed_norms(instance, common.trajectory(impl, instance))
    squared = run.loss.name == "squared"
    lam, kappa, U = run.lam, run.kappa, float(common.U(instance))
    G_bound = 2 * instance["C_y"] if squared else instance["C"]
    comparisons = []
    for t in range(1, run.n + 1):
        for i in common.dropped_indices(instance, t):
            shrink = 1 - run.etas[t - 1] * lam
            alpha = shrink * run.coefficients[t - 2][i - 1]                # alpha_{i,t}: shrunk at round t, then dropped
            closed = run.new[i - 1] * run.product(i, t)
            term = math.sqrt(max(float(alpha @ run.kernel(run.X[i - 1], run.X[i - 1]) @ alpha), 0.0))
            comparisons += [identity("removed", removed[t - 1], term, term, t),
                            identity("closed_form", float(np.max(np.abs(alpha - closed))), 0.0, float(np.max(np.abs(closed))), t),
                            inequality("evaluation_bound", term, kappa * np.linalg.norm(closed), t),
                            inequality("gradient", np.linalg.norm(run.gradients[i - 1]), G_bound, t),
                            inequality("constant", kappa * G_bound, lam * U, t),
                            inequality("conclusion", removed[t - 1], lam * U * run.etas[i - 1] * run.product(i, t), t)]
    return comparisons


PER_ROUND = (
    Step("sgd_identity", "<G_t, f_{t-1} - g> = (D_{t-1} - ||h_t - g||^2)/(2 eta_t) + (eta_t/2)||G_t||^2",
         "h_t = f_{t-1} - eta_t G_t: expand ||h_t - g||^2", symbolic="sgd_identity"),
    Step("convexity", "R_t(f_{t-1}) - R_t(g) <= <G_t, f_{t-1} - g>", "G_t is a subgradient of the convex R_t at f_{t-1} (spec 5.2)"),
)
NORMS = (
    Step("gradient", "||u_t|| <= C (Hyp. 2), 2 C_y (Hyp. 3: Prop. 2(iii))", "Hyp. 2, or Prop. 2(iii)"),
    Step("gradient_norm", "||G_t|| <= kappa ||u_t|| + lam ||f_{t-1}|| <= 2 lam U",
         "kappa C = lam U (Hyp. 2), 2 kappa C_y <= lam U (Hyp. 3)", symbolic="gradient_norm_hyp3"),
    Step("iterate_norm", "||f_t|| <= U", "Prop. 1(ii) / 2(i)"),
    Step("comparator_norm", "||g|| <= U (round 0)", "Prop. 1(iii) / 2(iv) as repaired (prop2.iv_U)"),
    Step("distance", "D_0 <= U^2, D_t <= 4 U^2", "||f_t - g|| <= ||f_t|| + ||g||"),
)
SUMS = (
    Step("summation_by_parts", "sum_t (D_{t-1} - D_t)/(2 eta_t) = D_0/(2 eta_1) - D_n/(2 eta_n) + sum_{t<n} D_t (1/(2 eta_{t+1}) - 1/(2 eta_t))",
         "Abel summation", symbolic="summation_by_parts"),
    Step("telescoped", "sum_t (D_{t-1} - D_t)/(2 eta_t) <= U^2/(2 eta) + 2 U^2 (sqrt(n) - 1)/eta",
         "the bounds on D_t, 1/eta_t increasing, the increments telescope", symbolic="telescoped_increments"),
    Step("step_sum", "sum_{t<=n} t^(-1/2) <= 2 sqrt(n) - 1", "induction on n", symbolic="step_sum"),
    Step("gradient_sum", "sum_t (eta_t/2) ||G_t||^2 <= 2 lam^2 U^2 eta (2 sqrt(n) - 1)", "||G_t|| <= 2 lam U and step_sum"),
)
CONSTANTS = Step("constants", "U^2/(2 eta) + 2U^2(sqrt(n)-1)/eta + 2 lam^2 U^2 eta (2 sqrt(n)-1) = sqrt(n) a - (3U^2/(2 eta) + 2 lam^2 U^2 eta)",
                 "a = 2 lam U^2 (2 eta lam + 1/(eta lam)) (spec 10)", symbolic="theorem1_constants")
SHARPENED = Step("sharpened", "-(3U^2/(2 eta) + 2 lam^2 U^2 eta) <= b = U^2/(2 eta)", "C18s is sharper than C18 by 2U^2(eta^2 lam^2 + 1)/eta",
                 symbolic="sharpening_gap")
PERTURBED = (
    Step("perturbation", "D_t <= ||h_t - g||^2 + 2 ||f_t - g|| ||Delta_t||", "f_t = h_t - Delta_t, Cauchy-Schwarz (spec C20)"),
    Step("perturbation_distance", "||f_t - g|| <= 2 U", "||f_t|| <= U under any truncation (C10, C12)"),
)
TRUNCATION_SUM = Step("truncation_sum", "sum_t ||f_t - g|| ||Delta_t|| / eta_t <= 2U sum_t ||Delta_t|| / eta_t", "perturbation_distance")


def _theorem1(excess):
    return lambda instance, impl: _comparisons(instance, impl, excess=excess, truncated=False)


def _chain(claim: str, proof: str, conclusion: str, excess, reference: str) -> Chain:
    steps = (Step("sgd_step", "f_t = f_{t-1} - eta_t G_t", "Alg. 1 without truncation is SGD on R_t (spec 5.2, C6)"),) + PER_ROUND
    steps += (Step("prop2_i", "||f_{t-1}|| <= C_y / kappa (squared loss)", "Prop. 2(i): needs lam > 2 kappa^2"),) + NORMS + SUMS + (CONSTANTS,)
    if excess is not constants.SHARPENED_EXCESS:
        steps += (SHARPENED,)
    return Chain(claim, proof, steps + (Step("conclusion", conclusion, "sum the per-round inequalities, divide by n"),),
                 _theorem1(excess), reference)


def _theorem2(certificate: bool):
    excess = constants.THEOREM2_EXCESS if certificate else constants.SHARPENED_EXCESS
    return lambda instance, impl: _comparisons(instance, impl, excess=excess, truncated=True, certificate=certificate)


_TRUNCATED_STEPS = PERTURBED + PER_ROUND + (Step("prop2_i", "||f_{t-1}|| <= C_y / kappa (squared loss)", "Prop. 2(i) under any truncation (C12)"),) + NORMS

CHAINS = [
    _chain("thm1.predictor", "Theorem 1 (spec C18's proof)", "LHS_n <= R_reg(g, n) + a/sqrt(n) + b/n",
           constants.THEOREM1_EXCESS, "Thm. 1; spec C18"),
    _chain("thm1.sharpened", "Theorem 1 sharpened (spec C18s)", "LHS_n <= R_reg(g, n) + a/sqrt(n) - (3U^2/(2 eta) + 2 lam^2 U^2 eta)/n",
           constants.SHARPENED_EXCESS, "Thm. 1; spec C18s"),
    _chain("thm1.squared_without_lam", "Theorem 1 (spec C18's proof) under Hyp. 3 without lam > 2 kappa^2",
           "LHS_n <= R_reg(g, n) + a/sqrt(n) + b/n", constants.THEOREM1_EXCESS, "Thm. 1; spec C18, C22"),
    Chain("thm1.post_update", "Theorem 1, post-update reading (spec C19): descent (Hyp. 3) or the per-round inequality (Hyp. 2)", (
        Step("step_size", "Hyp. 3: eta_t (kappa^2 + lam) < 3/2", "eta lam < 1 and lam > 2 kappa^2", symbolic="post_update_step_size"),
        Step("descent", "Hyp. 3: R_t(f_t) <= R_t(f_{t-1})", "R_t is (kappa^2 + lam)-smooth and eta_t (kappa^2 + lam) < 2"),
        Step("predictor", "Hyp. 3: (1/n) sum_t R_t(f_{t-1}) <= R_reg(g, n) + a/sqrt(n) + b/n", "Theorem 1, predictor reading (thm1.predictor's chain)"),
        Step("per_round", "Hyp. 2: R_t(f_t) - R_t(g) <= (D_{t-1} - D_t)/(2 eta_t) - (lam/2) D_{t-1} + E_t",
             "lam-strong convexity of R_t at f_{t-1} (against g) and at f_t (against f_{t-1}), the SGD identity"),
        Step("E_bound", "Hyp. 2: E_t <= 2 L^2 eta_t + 2 lam L^2 eta_t^2, L = kappa C = lam U", "||P_t||, ||Q_t|| <= L, ||G_t|| <= 2L"),
        Step("sum_bound", "Hyp. 2: sum_t [(D_{t-1} - D_t)/(2 eta_t) - (lam/2) D_{t-1} + 2L^2 eta_t + 2 lam L^2 eta_t^2] <= lam U^2 Phi(n, rho)",
             "D_0 <= U^2, D_t <= 4U^2: only rounds with c_t = (sqrt(t+1) - sqrt(t))/(2 rho) - 1/2 > 0 keep a D_t term"),
        Step("phi_psi", "Hyp. 2: Phi(n, rho) <= Psi(n, rho) - 9/4, Psi = (4 rho + 2/rho) sqrt(n) + 1/(2 rho) = n (a/sqrt(n) + b/n) / (lam U^2)",
             "spec C19 (H_n <= sqrt(n) + 1/8)", symbolic="psi_minus_phi"),
        Step("conclusion", "(1/n) sum_t R_t(f_t) <= R_reg(g, n) + a/sqrt(n) + b/n", "the steps above")), _post_update, "Thm. 1; spec C19"),
    Chain("thm1.descent", "the descent step of C19 under Hyp. 3 (R_t is (kappa^2 + lam)-smooth)", (
        Step("sgd_step", "f_t = f_{t-1} - eta_t G_t", "Alg. 1 without truncation is SGD on R_t (spec 5.2, C6)"),
        Step("expansion", "R_t(f_t) - R_t(f_{t-1}) = -eta_t ||G_t||^2 + (eta_t^2/2)(||G_t(x_t)||^2 + lam ||G_t||^2)",
             "R_t is quadratic; <f_{t-1}(x_t) - y_t, G_t(x_t)> + lam <f_{t-1}, G_t> = ||G_t||^2", symbolic="descent_expansion"),
        Step("evaluation", "||G_t(x_t)||^2 <= kappa^2 ||G_t||^2", "reproducing property, Hyp. 1 (spec C2)"),
        Step("step_size", "eta_t (kappa^2 + lam) < 3/2", "eta lam < 1 and lam > 2 kappa^2", symbolic="post_update_step_size"),
        Step("conclusion", "R_t(f_t) <= R_t(f_{t-1}) - eta_t (1 - eta_t (kappa^2 + lam)/2) ||G_t||^2 <= R_t(f_{t-1})",
             "the steps above; the factor is > 1/4")), _descent, "Thm. 1; spec C19"),
    Chain("thm1.phi_sum", "the sum bound of C19's proof under Hyp. 2", (
        Step("per_round", "R_t(f_t) - R_t(g) <= (D_{t-1} - D_t)/(2 eta_t) - (lam/2) D_{t-1} + E_t",
             "lam-strong convexity of R_t at f_{t-1} (against g) and at f_t (against f_{t-1}), the SGD identity"),
        Step("E_bound", "E_t <= 2 L^2 eta_t + 2 lam L^2 eta_t^2, L = kappa C = lam U", "||P_t||, ||Q_t|| <= L, ||G_t|| <= 2L"),
        Step("sum_bound", "sum_t [(D_{t-1} - D_t)/(2 eta_t) - (lam/2) D_{t-1} + 2L^2 eta_t + 2 lam L^2 eta_t^2] <= lam U^2 Phi(n, rho)",
             "D_0 <= U^2, D_t <= 4U^2: only rounds with c_t = (sqrt(t+1) - sqrt(t))/(2 rho) - 1/2 > 0 keep a D_t term"),
        Step("conclusion", "sum_{t<=n} [R_t(f_t) - R_t(g)] <= lam U^2 Phi(n, rho)", "sum the per-round inequalities")),
          lambda instance, impl: _post_update(instance, impl, phi_form=True), "Thm. 1; spec C19"),
    Chain("thm2.dropped_norm", "the a-priori bound on the dropped part (spec C20)", (
        Step("removed", "||Delta_t|| = ||K(., x_i) alpha_{i,t}||", "truncation removes the oldest kept term i (spec 5.1 step 4, 5.3)"),
        Step("closed_form", "alpha_{i,t} = alpha_{i,i} P_{i,t}", "spec 5.2 (C5)"),
        Step("evaluation_bound", "||K(., x_i) alpha_{i,t}|| <= kappa ||alpha_{i,i}|| P_{i,t}", "||K(., x) a||^2 = <K(x, x) a, a> <= kappa^2 ||a||^2"),
        Step("gradient", "||alpha_{i,i}|| = eta_i ||u_i||, ||u_i|| <= C (Hyp. 2), 2 C_y (Hyp. 3: Prop. 2(iii))", "Prop. 1(i), 2(iii)"),
        Step("constant", "kappa C = lam U (Hyp. 2), 2 kappa C_y <= lam U (Hyp. 3)", "U's definition; lam >= 2 kappa^2",
             symbolic="gradient_norm_hyp3"),
        Step("conclusion", "||Delta_t|| <= lam U eta_i P_{i,t}", "the steps above, chained")), _dropped, "Thm. 2; spec C20"),
    Chain("thm2.any_truncation", "Theorem 2' (spec C20: perturbed SGD)", _TRUNCATED_STEPS + SUMS + (TRUNCATION_SUM, CONSTANTS, Step(
        "conclusion", "LHS_n <= R_reg(g,n) + a/sqrt(n) - (3U^2/(2 eta) + 2 lam^2 U^2 eta)/n + (2U/n) sum_t ||Delta_t||/eta_t",
        "sum the per-round inequalities, divide by n")), _theorem2(False), "Thm. 2; spec C20"),
    Chain("thm2.exists_t0", "Theorem 2 (spec C21: C20, the a-priori bound on the dropped term, the certificate)",
          _TRUNCATED_STEPS + (Step("dropped_norm", "||Delta_t|| <= kappa ||alpha_{i_t,t}|| <= lam U eta_{i_t} P_{i_t,t}",
                                   "one term dropped per round (spec 5.3), Prop. 1(i)/2(iii), kappa G <= lam U"),) + SUMS
          + (TRUNCATION_SUM, CONSTANTS,
             Step("product_bound", "P_{i_t,t} <= exp(-rho s_t/sqrt(t))", "1 - x <= e^-x and k^(-1/2) >= t^(-1/2) for k <= t (lemma P)",
                  symbolic="t2_exponential_below"),
             Step("early_drops", "S_n <= 2 sqrt(n c_n) exp(-rho t0/sqrt(n)); <= 8 rho sqrt(n) up to K t0 once w - ln w >= "
                  "ln(sqrt(K(K-1))/(4 rho^2)), w = rho sqrt(t0/K)", "s_t >= t0, the i_t are distinct in 1..c_n, "
                  "sum_{i<=c} i^(-1/2) <= 2 sqrt(c) (lemma E)", symbolic="t2_early"),
             Step("late_term", "sqrt(t/i_t) P_{i_t,t} <= sqrt(t/i_t) exp(-rho (t0 - 1 + (t - t0)^beta)/sqrt(t))",
                  "s_t = t0 + floor((t - t0)^beta) (spec 5.3), lemma P", symbolic="t2_late_identity"),
             Step("half_window", "s_t <= t/2 for t >= max(K t0, W), W = (2K/(K-2))^(2/(1-2 eps))", "t/K + t^beta <= t/2 (lemma W)",
                  symbolic="t2_half_window"),
             Step("allowance", "4 rho/sqrt(t) <= 8 rho (sqrt(t) - sqrt(t-1)): drops past K t0 whose terms are below it keep "
                  "S_n <= 8 rho sqrt(n)", "lemma A", symbolic="t2_allowance"),
             Step("tangent_root", "Z - A ln Z >= B for Z = max(A, (B + A ln z1 - A)/(1 - A/z1)) (the roots of the formula)",
                  "ln y <= y - 1 at y = Z/z1 (lemma R)", symbolic="t2_tangent_root"),
             Step("T1", "D(T1) <= 0: the late terms need nothing of t0 past T1 = (Z/(rho c'))^(1/eps)", "lemma R (lemma L)",
                  symbolic="t2_T1"),
             Step("late_bound", "sqrt(t) D(t) <= (2/e) sqrt(T1) (eps Z - omega) for t <= T1: t0 >= 1 + (2/(e rho)) sqrt(T1) "
                  "(eps Z - omega) suffices", "D(T1 e^-tau) <= tau (eps Z - omega), tau e^(-tau/2) <= 2/e (lemma L)",
                  symbolic="t2_peak"),
             Step("certificate", "S_n <= 8 rho sqrt(n)", "every t0 >= t0(rho, eps), the closed form of the lemmas above, or the "
                  "certifier (docs/theorem2-certificate.md)"),
             Step("truncation_term", "(2U/n) sum_t ||Delta_t||/eta_t <= (2 lam U^2/n) S_n", "dropped_norm, eta_i/eta_t = sqrt(t/i)"),
             Step("theorem2_constants", "a/sqrt(n) + (2 lam U^2/n) 8 rho sqrt(n) = a2/sqrt(n)", "a2 - a = 16 lam^2 U^2 eta",
                  symbolic="theorem2_constants"),
             Step("conclusion", "LHS_n <= R_reg(g, n) + a2/sqrt(n) + b/n", "C20 with the certificate")),
          _theorem2(True), "Thm. 2; spec C21"),
]
