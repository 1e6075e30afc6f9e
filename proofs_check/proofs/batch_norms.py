"""Propositions 1(iii) and 2(iv): the proofs of the norm bounds on the batch minimiser ``f_n``, as chains
(spec C11, C14, E15, E18).

* ``prop2.iv`` (the paper's proof): ``R_reg(f_n) <= R_reg(0) <= C_y^2/2``, so ``(lam/2)||f_n||^2 <= C_y^2/2`` and
  ``||f_n|| <= C_y/sqrt(lam)``; the paper's "Hence ``||f_n|| <= 2 C_y/lam``" is the step ``C_y/sqrt(lam) <= 2 C_y/lam``,
  true only for ``lam <= 4`` (refuted by sympy: ``symbolic.PROOFS["prop2_iv_hence"]``).
* ``prop2.iv_U`` (the repair Theorem 1 uses): the same first steps, then ``C_y/sqrt(lam) <= C_y/(sqrt2 kappa) <= U``
  under ``lam >= 2 kappa^2``.
* ``prop2.iv_tight`` (the tight corrected bound, docs/bounds.md): in the eigenbasis of ``G``, ``||f_n||^2`` is a mean of
  ``sigma^2 / (sigma^2 + lam)^2`` over the spectrum of ``G / n``, which lies in ``[0, kappa^2]``, where that function
  increases (``kappa^2 <= lam``): ``||f_n|| <= kappa C_y / (kappa^2 + lam)``.
* ``prop1.iii`` (the paper's proof): minimality against ``(1 - eps) f_n``, the Lipschitz bound on the loss change and
  ``||f_n(x)|| <= kappa ||f_n||``; the coefficient of ``eps`` gives ``lam ||f_n|| <= C kappa`` (at ``EPSILON``).
"""
from __future__ import annotations

import math

import numpy as np

import ovk_ref
from proofs_check import comparators
from proofs_check.claims import common
from proofs_check.proofs.chain import Chain, Step, identity, inequality

#: the eps of Prop. 1(iii)'s proof at which its steps are evaluated (the proof holds for every eps in (0, 1))
EPSILON = 0.01


def _ridge_prefixes(instance):
    """For every prefix n: ``(n, ||f_n||, R_reg(f_n, n), R_reg(0, n))`` of the exact ridge minimiser (spec 7.1)."""
    X, Y = common.arrays(instance)
    kernel, lam = common.kernel(instance), instance["lam"]
    for n in range(1, len(X) + 1):
        c = np.asarray(ovk_ref.batch_ridge(X[:n], Y[:n], instance["kernel"], lam=lam), dtype=float)
        G = kernel.gram(X[:n])
        norm2 = max(float(c.ravel() @ G @ c.ravel()), 0.0)
        residuals = (G @ c.ravel()).reshape(n, -1) - Y[:n]
        risk = 0.5 * float(np.sum(residuals**2)) / n + lam / 2 * norm2
        yield n, math.sqrt(norm2), risk, 0.5 * float(np.sum(Y[:n] ** 2)) / n


FIRST_STEPS = (
    Step("minimality", "R_reg(f_n, n) <= R_reg(0, n)", "f_n minimises R_reg(., n) and 0 is in H"),
    Step("zero", "R_reg(0, n) = (1/n) sum_i ||y_i||^2 / 2 <= C_y^2 / 2", "||y_i|| <= C_y (Hyp. 3(ii)); the paper writes C_y^2"),
    Step("regulariser", "(lam/2) ||f_n||^2 <= C_y^2 / 2", "the loss is >= 0, then the two steps above"),
    Step("root", "||f_n|| <= C_y / sqrt(lam)", "square root of the step above"),
)


def _first_comparisons(instance) -> list:
    C_y, lam = instance["C_y"], instance["lam"]
    comparisons = []
    for n, norm, risk, zero in _ridge_prefixes(instance):
        comparisons += [inequality("minimality", risk, zero, n), inequality("zero", zero, C_y**2 / 2, n),
                        inequality("regulariser", lam / 2 * norm**2, C_y**2 / 2, n),
                        inequality("root", norm, C_y / math.sqrt(lam), n)]
    return comparisons


def _paper(instance, impl) -> list:
    C_y, lam = instance["C_y"], instance["lam"]
    comparisons = _first_comparisons(instance)
    for n, norm, _, _ in _ridge_prefixes(instance):
        comparisons += [inequality("hence", C_y / math.sqrt(lam), 2 * C_y / lam, n), inequality("conclusion", norm, 2 * C_y / lam, n)]
    return comparisons


def _repaired(instance, impl) -> list:
    C_y, lam, kappa = instance["C_y"], instance["lam"], math.sqrt(instance["kappa2"])
    U = float(common.U(instance))
    comparisons = _first_comparisons(instance)
    for n, norm, _, _ in _ridge_prefixes(instance):
        comparisons += [inequality("hypothesis3", C_y / math.sqrt(lam), C_y / (math.sqrt(2) * kappa), n),
                        inequality("within_U", C_y / (math.sqrt(2) * kappa), U, n), inequality("conclusion", norm, U, n)]
    return comparisons


def _variational(instance, impl) -> list:
    """Prop. 1(iii)'s proof at the certified minimiser ``w`` of every prefix (feature kernel, spec 11)."""
    X, Y = common.arrays(instance)
    kernel, lam, C, eps = common.kernel(instance), instance["lam"], instance["C"], EPSILON
    kappa = math.sqrt(instance["kappa2"])
    loss = ovk_ref.as_loss(instance["loss"])
    comparisons = []
    for n in range(1, len(X) + 1):
        comparator = comparators.feature_minimum(kernel, X[:n], Y[:n], lam, loss)
        w = np.asarray(comparator.minimiser, dtype=float)
        objective = comparators.feature_objective(kernel, X[:n], Y[:n], lam, loss)
        norm = float(np.linalg.norm(w))
        values = [kernel.features(x) @ w for x in X[:n]]
        loss_change = sum(loss.value((1 - eps) * v, y) - loss.value(v, y) for v, y in zip(values, Y[:n])) / n
        regulariser_change = lam / 2 * ((1 - eps) ** 2 - 1) * norm**2
        largest = max(float(np.linalg.norm(v)) for v in values)
        size = eps * (lam * norm**2 + C * kappa * norm) + 1e-300
        # the certified minimiser is resolved to ||grad F(w)|| <= OPTIMISER_GRADIENT_NORM (comparators): a tie to that
        comparisons += [
            inequality("minimality", 0.0, objective((1 - eps) * w)[0] - objective(w)[0], n, scale=size),
            inequality("lipschitz", loss_change, C * eps * largest, n, scale=size),
            inequality("evaluation", largest, kappa * norm, n, scale=max(largest, kappa * norm, 1e-300)),
            identity("expansion", regulariser_change, lam / 2 * (eps**2 - 2 * eps) * norm**2, lam * norm**2, n),
            inequality("coefficient", lam * norm**2, C * kappa * norm + lam / 2 * eps * norm**2, n, scale=size / eps),
            inequality("conclusion", float(comparator.norm_upper), C * kappa / lam, n)]
    return comparisons


def _spectral(instance, impl) -> list:
    """Prop. 2(iv) corrected (spec C14'): ``G = sum_k s_k u_k u_k^T``, ``c = (G + n lam I)^(-1) y``, so ``||f_n||^2 = c^T G c
    = sum_k sigma_k^2 p_k / (sigma_k^2 + lam)^2`` with ``sigma_k^2 = s_k / n`` and ``p_k = (u_k^T y)^2 / n``."""
    X, Y = common.arrays(instance)
    kernel, lam, C_y, kappa2 = common.kernel(instance), instance["lam"], instance["C_y"], float(instance["kappa2"])
    bound = math.sqrt(kappa2) * C_y / (kappa2 + lam)
    comparisons = []
    for n in range(1, len(X) + 1):
        G = kernel.gram(X[:n])
        y = Y[:n].ravel()
        c = np.asarray(ovk_ref.batch_ridge(X[:n], Y[:n], instance["kernel"], lam=lam), dtype=float).ravel()
        s, vectors = np.linalg.eigh((G + G.T) / 2)
        sigma2, projections = np.maximum(s, 0.0) / n, (vectors.T @ y) ** 2 / n
        terms = sigma2 * projections / (sigma2 + lam) ** 2
        norm2 = max(float(c @ G @ c), 0.0)
        comparisons += [identity("spectral", norm2, terms.sum(), float(np.abs(c) @ np.abs(G) @ np.abs(c)), n),
                        inequality("top_eigenvalue", sigma2.max(), kappa2, n),
                        inequality("hypothesis3", kappa2, lam, n),
                        inequality("monotone", float(np.max(sigma2 / (sigma2 + lam) ** 2)), kappa2 / (kappa2 + lam) ** 2, n),
                        inequality("targets", projections.sum(), C_y**2, n),
                        inequality("conclusion", math.sqrt(norm2), bound, n)]
    return comparisons


CHAINS = [
    Chain("prop2.iv", "Prop. 2(iv), the paper's proof", FIRST_STEPS + (
        Step("hence", "C_y / sqrt(lam) <= 2 C_y / lam", "the paper's 'Hence': true only for lam <= 4 (symbolic.PROOFS['prop2_iv_hence'])",
             refuted="prop2_iv_hence"),
        Step("conclusion", "||f_n|| <= 2 C_y / lam", "the steps above, chained")), _paper, "Prop. 2(iv); spec C14, E18"),
    Chain("prop2.iv_U", "Prop. 2(iv) repaired: the bound U that Theorem 1 uses (spec C14, E11)", FIRST_STEPS + (
        Step("hypothesis3", "C_y / sqrt(lam) <= C_y / (sqrt2 kappa)", "lam >= 2 kappa^2 (Hyp. 3(iii))", symbolic="prop2_iv_hypothesis3"),
        Step("within_U", "C_y / (sqrt2 kappa) <= U = max(C_y/kappa, 2 C_y/lam)", "sqrt2 > 1"),
        Step("conclusion", "||f_n|| <= U", "the steps above, chained")), _repaired, "Prop. 2(iv); spec C14"),
    Chain("prop2.iv_tight", "Prop. 2(iv) corrected and tight: the spectral proof (spec C14', docs/bounds.md)", (
        Step("spectral", "||f_n||^2 = sum_k sigma_k^2 p_k / (sigma_k^2 + lam)^2, sigma_k^2 = s_k/n, p_k = (u_k^T y)^2/n",
             "c = (G + n lam I)^(-1) y and ||f_n||^2 = c^T G c in the eigenbasis G = sum_k s_k u_k u_k^T (spec 7.1)"),
        Step("top_eigenvalue", "sigma_k^2 <= kappa^2", "s_max = max_{||f|| = 1} sum_i ||f(x_i)||^2 <= n kappa^2 (Hyp. 1)"),
        Step("hypothesis3", "kappa^2 <= lam", "Hyp. 3(iii): lam >= 2 kappa^2"),
        Step("monotone", "sigma^2 / (sigma^2 + lam)^2 <= kappa^2 / (kappa^2 + lam)^2", "increasing in sigma^2 on [0, lam]",
             symbolic="prop2_iv_tight_monotone"),
        Step("targets", "sum_k p_k = (1/n) sum_i ||y_i||^2 <= C_y^2", "u_k orthonormal, ||y_i|| <= C_y (Hyp. 3(ii))"),
        Step("conclusion", "||f_n|| <= kappa C_y / (kappa^2 + lam)", "the steps above, chained")), _spectral,
          "Prop. 2(iv) corrected; spec C14, E18"),
    Chain("prop1.iii", "Prop. 1(iii), the paper's proof (at eps = 0.01, the certified minimiser)", (
        Step("minimality", "0 <= R_reg((1 - eps) f_n, n) - R_reg(f_n, n)", "f_n minimises R_reg(., n)"),
        Step("lipschitz", "(1/n) sum_i [l((1-eps) f_n(x_i)) - l(f_n(x_i))] <= C eps max_i ||f_n(x_i)||", "Hyp. 2"),
        Step("evaluation", "max_i ||f_n(x_i)|| <= kappa ||f_n||", "reproducing property, Hyp. 1"),
        Step("expansion", "(lam/2)(||(1-eps) f_n||^2 - ||f_n||^2) = (lam/2)(eps^2 - 2 eps)||f_n||^2", "expand",
             symbolic="prop1_iii_expansion"),
        Step("coefficient", "lam ||f_n||^2 <= C kappa ||f_n|| + (lam/2) eps ||f_n||^2",
             "divide the sum of the steps above by eps > 0; eps -> 0 leaves lam ||f_n|| <= C kappa",
             symbolic="prop1_iii_coefficient"),
        Step("conclusion", "||f_n|| <= C kappa / lam", "the coefficient of eps is >= 0 (E15)")), _variational,
          "Prop. 1(iii); spec C11, E15"),
]
