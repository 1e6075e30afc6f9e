"""The batch minimiser (spec 7, C25): its minimal value and the structured solves of spec 7.2-7.3, as chains.

* ``batch.minimal_value``: ``(G + t lam I) c = y`` gives ``G c - y = -t lam c``, hence ``R_reg(f_t, t) = (lam/2) y^T c``.
* ``batch.separable_shortcut``: ``G = K_s (x) B`` (point-major), so in the eigenbases of ``K_s`` and ``B`` the system is
  diagonal: ``(s_i beta_k + t lam) (U^T C V)_{ik} = (U^T Y V)_{ik}``.
* ``batch.commuting_shortcut``: ``11^T`` and ``I`` commute; ``V^T 11^T V = d e_1 e_1^T`` for ``V`` orthonormal with first
  column ``1/sqrt(d)``, so ``C V`` solves one ``t x t`` system per column.
Every step is evaluated on ``impl.batch_ridge``'s solution ``C`` (t x d, ``c = vec(C)``).
"""
from __future__ import annotations

import numpy as np

from proofs_check.claims import batch, common
from proofs_check.proofs.chain import Chain, Step, identity


def _problem(instance, impl):
    X, Y = common.arrays(instance)
    C = batch.solution(impl, instance)
    return X, Y, C, common.kernel(instance).gram(X), len(X) * instance["lam"]


def _size(*arrays) -> float:
    return max(float(np.max(np.abs(array), initial=0.0)) for array in arrays)


def _minimal_value(instance, impl) -> list:
    X, Y, C, G, shift = _problem(instance, impl)
    c, y, lam, t = C.ravel(), Y.ravel(), instance["lam"], len(X)
    residual = G @ c - y
    direct = float(residual @ residual) / (2 * t) + lam / 2 * float(c @ G @ c)
    magnitude = float(np.abs(G) @ np.abs(c) @ np.abs(c)) + float(np.abs(y) @ np.abs(c))
    return [identity("system", float(np.max(np.abs(G @ c + shift * c - y))), 0.0, _size(np.abs(G) @ np.abs(c), y), t),
            identity("residual", float(np.max(np.abs(residual + shift * c))), 0.0, _size(residual, shift * c), t),
            identity("expansion", direct, lam / 2 * (float(c @ G @ c) + shift * float(c @ c)), lam * magnitude, t),
            identity("conclusion", direct, lam / 2 * float(y @ c), lam * magnitude, t)]


def _separable(instance, impl) -> list:
    X, Y, C, G, shift = _problem(instance, impl)
    kernel = common.kernel(instance)
    K_s = np.array([[float(kernel.scalar(x_i, x_j)) for x_j in X] for x_i in X])
    s, U = np.linalg.eigh(K_s)
    beta, V = np.linalg.eigh(kernel.B)
    shortcut = batch.separable_shortcut(instance)
    rotated, target = U.T @ C @ V, U.T @ Y @ V
    t = len(X)
    return [identity("kronecker", float(np.max(np.abs(G - np.kron(K_s, kernel.B)))), 0.0, _size(G), t),
            identity("eigen", float(max(np.max(np.abs(U * s @ U.T - K_s)), np.max(np.abs(V * beta @ V.T - kernel.B)))), 0.0,
                     _size(K_s, kernel.B), t),
            identity("diagonal", float(np.max(np.abs((np.outer(s, beta) + shift) * rotated - target))), 0.0,
                     _size(np.abs(np.outer(s, beta) + shift) * np.abs(rotated), target), t),
            identity("conclusion", float(np.max(np.abs(C - shortcut))), 0.0, _size(C, shortcut), t)]


def _commuting(instance, impl) -> list:
    X, Y, C, G, shift = _problem(instance, impl)
    d, mu, t = Y.shape[1], common.kernel(instance).mu, len(X)
    V, _ = np.linalg.qr(np.column_stack([np.ones(d), np.eye(d)[:, 1:]]))
    L = X @ X.T
    rotated, target = C @ V, Y @ V
    other = (1 - mu) * L * L + shift * np.eye(t)
    residuals = [(other + mu * d * L if k == 0 else other) @ rotated[:, k] - target[:, k] for k in range(d)]
    projected = V.T @ np.ones((d, d)) @ V - d * np.outer(np.eye(d)[0], np.eye(d)[0])
    shortcut = batch.commuting_shortcut(instance)
    return [identity("commute", float(np.max(np.abs(projected))), 0.0, float(d), t),
            identity("block_systems", float(np.max(np.abs(residuals))), 0.0, _size(np.abs(other + mu * d * L) @ np.abs(rotated), target), t),
            identity("conclusion", float(np.max(np.abs(C - shortcut))), 0.0, _size(C, shortcut), t)]


CHAINS = [
    Chain("batch.minimal_value", "spec 7.1: the minimal value from the normal equations", (
        Step("system", "(G + t lam I) c = y", "the minimiser of R_reg (spec 7.1)"),
        Step("residual", "G c - y = -t lam c", "the system rearranged"),
        Step("expansion", "(1/(2t))||G c - y||^2 + (lam/2) c^T G c = (lam/2)(c^T G c + t lam ||c||^2)", "the residual substituted",
             symbolic="batch_minimal_value"),
        Step("conclusion", "R_reg(f_t, t) = (lam/2) y^T c", "y^T c = c^T G c + t lam ||c||^2")), _minimal_value, "spec 7.1, C25"),
    Chain("batch.separable_shortcut", "spec 7.2: the system is diagonal in the eigenbases of K_s and B", (
        Step("kronecker", "G = K_s (x) B (point-major)", "K(x_i, x_j) = k(x_i, x_j) B (spec 3.1, 7.2)"),
        Step("eigen", "K_s = U diag(s) U^T, B = V diag(beta) V^T", "symmetric matrices"),
        Step("diagonal", "(s_i beta_k + t lam) (U^T C V)_{ik} = (U^T Y V)_{ik}", "K_s C B + t lam C = Y in the eigenbases"),
        Step("conclusion", "C = U [(U^T Y V) / (s beta^T + t lam)] V^T", "divide: s_i beta_k + t lam > 0")), _separable, "spec 7.2, C25"),
    Chain("batch.commuting_shortcut", "spec 7.3: 11^T and I commute, one t x t system per column of C V", (
        Step("commute", "V^T 11^T V = d e_1 e_1^T", "V orthonormal, first column 1/sqrt(d)"),
        Step("block_systems", "(mu d L + (1-mu) L o L + t lam I) c'_1 = y'_1, ((1-mu) L o L + t lam I) c'_k = y'_k",
             "G = mu L (x) 11^T + (1-mu) (L o L) (x) I rotated by I (x) V"),
        Step("conclusion", "C = [c'_1 ... c'_d] V^T", "V orthonormal")), _commuting, "spec 7.3, C25"),
]
