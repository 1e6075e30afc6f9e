"""Planted faults in the checks' own code (proofs_check): the constants U, a, b, the comparators ``min R_reg`` and the
bound formulas, and the rule that decides a violation. A slip there changes what ``verify`` checks, not what the
algorithm does: a bound made too strict turns a claim false on a correct run, one made too lax hides a violation.
Each fault below is caught in ci: the too-strict ones by the claims whose bound they shrink (where a bound is
attained or its excess term nearly used), the too-lax comparators by ``comparator.bracket``, whose sides are the
regularised risk evaluated term by term (``claims.explicit``), not the comparator's own arithmetic."""
from __future__ import annotations

import importlib

import numpy as np
import sympy as sp

from proofs_check import comparators, constants, tolerances
from proofs_check.faults.fault import Fault, Patch

#: the modules of the checks that import the faults (``proofs_check.claims``): named, imported when a fault is planted
COMMON, RUNNER = "proofs_check.claims.common", "proofs_check.runner"

lam, eta, U, n = constants.lam, constants.eta, constants.U, constants.n


def _U_kappa_squared(original):
    common = importlib.import_module(COMMON)

    def U(instance, precision=None):
        if common.loss_name(instance) != "squared":
            return common.constant(constants.C * constants.kappa2_ / constants.lam, instance, precision)
        return original(instance, precision)
    return U


def _U_max_as_min(original):
    common = importlib.import_module(COMMON)

    def U(instance, precision=None):
        if common.loss_name(instance) == "squared":
            return common.constant(sp.Min(constants.C_y / constants.kappa, 2 * constants.C_y / constants.lam), instance, precision)
        return original(instance, precision)
    return U


def _with_formulas(replacements: dict):
    """``constants.evaluate`` that evaluates ``replacements[expr]`` in place of each expression it names."""
    def make(original):
        def evaluate(expr, **values):
            return original(replacements.get(expr, expr), **values)
        return evaluate
    return make


#: a = 2 lam U^2 (2 eta lam + 1/(eta lam)) with its second term read as eta lam
_A_INVERTED = 2 * lam * U**2 * (2 * eta * lam + eta * lam)
#: the sharpened bound's 3 b = 3 U^2 / (2 eta) with the 1/2 of b lost
_SHARPENING_WITHOUT_HALF = 3 * U**2 / eta + 2 * lam**2 * U**2 * eta


def _ridge_without_half(original):
    def ridge(kernel, X, Y, lam, precision=None):
        exact = original(kernel, X, Y, lam, precision)
        return comparators.Comparator(upper=2 * exact.upper, lower=2 * exact.lower, norm_upper=exact.norm_upper,
                                      norm=exact.norm, minimiser=exact.minimiser)
    return ridge


def _regulariser_doubled(original):
    def feature_objective(kernel, X, Y, lam, loss, precision=None):
        objective = original(kernel, X, Y, lam, loss, precision)

        def doubled(w):
            value, gradient = objective(w)
            return value + lam / 2 * np.dot(w, w), gradient + lam * w
        return doubled
    return feature_objective


def _tie_above_zero(original):
    def _evaluate(claim, instance, impl):
        violated, outcome, rechecked = original(claim, instance, impl)
        if rechecked:   # the recomputed margin compared with +tie instead of -tie
            tie = max(tolerances.HIGH_PRECISION_TIE, outcome.tie or 0.0)
            violated = not outcome.margin >= tie * outcome.resolution_scale
        return violated, outcome, rechecked
    return _evaluate


CHECK_FAULTS = [
    Fault("U_prop1_kappa_squared", "checks", "U = C kappa^2 / lam: the kappa2 an instance carries read as kappa",
          (Patch(COMMON, "U", _U_kappa_squared),)),
    Fault("U_prop2_max_as_min", "checks", "U = min(C_y/kappa, 2 C_y/lam) for the squared loss: Theorem 1's max read as a min",
          (Patch(COMMON, "U", _U_max_as_min),)),
    Fault("theorem1_a_rho_inverted", "checks", "a = 2 lam U^2 (2 eta lam + eta lam): the 1/(eta lam) of a read as eta lam",
          (Patch(constants, "evaluate", _with_formulas({
              constants.THEOREM1_EXCESS: _A_INVERTED / sp.sqrt(n) + constants.B / n,
              constants.SHARPENED_EXCESS: _A_INVERTED / sp.sqrt(n) - constants.SHARPENING / n})),)),
    Fault("sharpening_b_without_half", "checks", "the sharpened bound subtracts (3 U^2/eta + 2 lam^2 U^2 eta)/n: the 1/2 of "
          "b = U^2/(2 eta) lost in its 3 b", (Patch(constants, "evaluate", _with_formulas({
              constants.SHARPENED_EXCESS: constants.A / sp.sqrt(n) - _SHARPENING_WITHOUT_HALF / n})),)),
    Fault("ridge_minimum_without_half", "checks", "min R_reg = lam y^T c for the squared loss: the 1/2 of (lam/2) y^T c lost "
          "(a comparator too high: every theorem check too lax)", (Patch(comparators, "ridge", _ridge_without_half),)),
    Fault("comparator_regulariser_doubled", "checks", "the feature comparator minimises lam ||w||^2 + (1/n) sum l: the 1/2 of "
          "(lam/2) ||w||^2 lost (its bracket is another problem's)",
          (Patch(comparators, "feature_objective", _regulariser_doubled),)),
    Fault("tie_taken_above_zero", "checks", "a recomputed margin counts as a tie when >= +tie, not >= -tie: every attained "
          "bound reported violated", (Patch(RUNNER, "_evaluate", _tie_above_zero),)),
]
