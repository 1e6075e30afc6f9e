"""Planted faults in the batch solver and the RKHS computations (spec 2.3, 7.1): the comparators of the theorems,
the norms of the bounds and the claims' evaluations of ``f`` share this code."""
from __future__ import annotations

import numpy as np

from ovk_ref import arithmetic, batch, rkhs, validation
from ovk_ref.arithmetic import Arithmetic
from ovk_ref.kernels import as_kernel
from proofs_check.faults.fault import Fault, Patch


def _ridge_without_t(original):
    def batch_ridge(X, Y, kernel, *, lam, precision=None):
        kernel = as_kernel(kernel)
        X, Y = validation.stream(X, Y, kernel)
        num = Arithmetic(precision)
        with num.context():
            G = kernel.gram(num.array(X))
            system = G + num.scalar(lam) * num.array(np.eye(G.shape[0]))
            return num.solve(system, num.array(Y).reshape(-1)).reshape(Y.shape)
    return batch_ridge


def _norm_column_major(original):
    def rkhs_norm2(kernel, X, coefficients):
        kernel, X, coefficients = rkhs.expansion(kernel, X, coefficients)
        a = coefficients.T.reshape(-1)
        return a @ kernel.gram(X) @ a
    return rkhs_norm2


def _evaluate_transposed(original):
    def evaluate(kernel, X_train, coefficients, X_new):
        kernel, X_train, coefficients = rkhs.expansion(kernel, X_train, coefficients)
        X_new = arithmetic.lift(validation.finite_matrix("X_new", X_new), coefficients)
        n_train, n_new, d = len(X_train), len(X_new), kernel.d
        blocks = kernel.gram(X_train, X_new).reshape(n_train, d, n_new, d)     # block (i, new) = K(x_i, x_new)
        G = blocks.transpose(2, 1, 0, 3).reshape(n_new * d, n_train * d)       # read as the block (new, i)
        return (G @ coefficients.reshape(-1)).reshape(n_new, d)
    return evaluate


SOLVER_FAULTS = [
    Fault("batch_ridge_without_t", "batch", "(G + lam I) c = vec(Y): the t of (1/t) sum l dropped from t lam I",
          (Patch(batch, "batch_ridge", _ridge_without_t),)),
    Fault("rkhs_norm_column_major", "RKHS norm", "vec(A) taken column-major (A.T.ravel()) against the point-major Gram",
          (Patch(rkhs, "rkhs_norm2", _norm_column_major),)),
    Fault("evaluate_kernel_transposed", "evaluation", "f(x) = sum_i K(x_i, x) a_i in ovk_ref.evaluate (E3 read the other way)",
          (Patch(rkhs, "evaluate", _evaluate_transposed),)),
]
