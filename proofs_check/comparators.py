"""Certified values of ``min_h R_reg(h, n)``, the comparator of Theorems 1-2 (spec 7.1, 11).

``Comparator.upper >= min >= Comparator.lower`` and ``||f_n|| <= norm_upper``: a bound checked against
``lower`` is proved for that instance, and a violation against ``upper`` is a real violation.

* squared loss, any kernel: the closed form ``min = (lam/2) y^T (G + n lam I)^{-1} y`` with ``c`` from
  ``ovk_ref.batch_ridge`` (spec 7.1); upper = lower up to the float64 solve.
* any loss, feature kernel ``A(x) A(z)^T``: ``R_reg`` is ``F(w) = (1/n) sum l(A(x_i) w, y_i) + (lam/2)||w||^2``
  over ``w in R^q`` (spec 3.3); scipy minimises it, and lam-strong convexity gives, for any subgradient
  ``g`` of F at the returned ``w``, ``min >= F(w) - ||g||^2/(2 lam)`` and ``||w* - w|| <= ||g||/lam`` (spec 11).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import optimize

import ovk_ref
from ovk_ref.arithmetic import Arithmetic, sqrt
from ovk_ref.kernels import Feature, as_kernel
from proofs_check import tolerances


@dataclass
class Comparator:
    """Floats, or mpf when computed at a given precision."""

    upper: float
    lower: float
    norm_upper: float
    norm: float
    minimiser: object = None    # the (approximate) minimiser: ridge coefficients c (n x d), or the feature vector w


def ridge(kernel, X, Y, lam, precision=None) -> Comparator:
    """Exact minimiser of the squared-loss ``R_reg`` (spec 7.1)."""
    c = ovk_ref.batch_ridge(X, Y, kernel, lam=lam, precision=precision)   # solved at ``precision`` (mpf) or float64
    num = Arithmetic(precision)
    with num.context():
        value = num.scalar(lam) / 2 * np.dot(num.array(Y).reshape(-1), c.reshape(-1))
        norm2 = ovk_ref.rkhs_norm2(kernel, X, c)
        norm = sqrt(max(norm2, 0 * norm2))
    return Comparator(upper=value, lower=value, norm_upper=norm, norm=norm, minimiser=c)


def feature_objective(kernel: Feature, X, Y, lam, loss, precision=None):
    """``w -> (F(w), g)`` with ``g`` a subgradient (the loss's own selection at kinks); mpf at ``precision`` digits
    (then ``w`` must be an mpf array and the call made inside ``mpmath.workdps``)."""
    loss = ovk_ref.as_loss(loss)
    num = Arithmetic(precision)
    X, Y, lam = num.array(X), num.array(Y), num.scalar(lam)
    features = [kernel.features(x) for x in X]
    n = len(X)

    def objective(w):
        value = lam / 2 * np.dot(w, w)
        gradient = lam * w
        for A, y in zip(features, Y):
            z = A @ w
            value = value + loss.value(z, y) / n
            gradient = gradient + A.T @ loss.gradient(z, y) / n
        return value, gradient
    return objective


def feature_minimum(kernel, X, Y, lam, loss, precision=None) -> Comparator:
    """Certified bracket of ``min_w F(w)`` for a feature kernel (spec 11): scipy finds ``w`` in float64; the
    bracket at ``w`` is evaluated at ``precision`` digits when given (its fields are then mpf)."""
    kernel = as_kernel(kernel)
    if not isinstance(kernel, Feature):
        raise TypeError(f"kernel must be a feature kernel for a non-squared loss comparator, got {type(kernel).__name__}")
    objective = feature_objective(kernel, np.asarray(X, dtype=float), np.asarray(Y, dtype=float), lam, loss)
    result = optimize.minimize(objective, np.zeros(kernel.q), jac=True, method="BFGS", options={"gtol": tolerances.OPTIMISER_GRADIENT_NORM, "maxiter": 500})
    num = Arithmetic(precision)
    exact_objective = feature_objective(kernel, np.asarray(X, dtype=float), np.asarray(Y, dtype=float), lam, loss, precision)
    brackets = []   # every point w gives valid bounds; keep the best of w = 0 and the optimiser's point
    with num.context():
        for w in (num.zeros(kernel.q), num.array(result.x)):
            value, gradient = exact_objective(w)
            gradient_norm, w_norm = sqrt(np.dot(gradient, gradient)), sqrt(np.dot(w, w))
            brackets.append((value, value - gradient_norm**2 / (2 * num.scalar(lam)), w_norm + gradient_norm / num.scalar(lam), w_norm, w))
    best = min(brackets, key=lambda bracket: bracket[0])
    return Comparator(upper=best[0], lower=max(b[1] for b in brackets), norm_upper=min(b[2] for b in brackets), norm=best[3],
                      minimiser=best[4])


def minimum(kernel, X, Y, lam, loss, precision=None) -> Comparator:
    """The comparator for ``loss``: closed form for the squared loss, else the feature-kernel bracket."""
    if ovk_ref.as_loss(loss).name == "squared":
        return ridge(kernel, X, Y, lam, precision)
    return feature_minimum(kernel, X, Y, lam, loss, precision)
