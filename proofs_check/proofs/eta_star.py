"""The optimal step of spec 10 (``bound.eta_star``): every step proved by sympy, evaluated on the claim's instances
as a check that the instance's numbers are the proof's."""
from __future__ import annotations

import sympy as sp

from proofs_check import constants
from proofs_check.proofs.chain import Chain, Step, identity, inequality

_SECOND = sp.diff(constants.THEOREM1_EXCESS, constants.eta, 2)
_FIRST = sp.diff(constants.THEOREM1_EXCESS, constants.eta)


def _evaluate(instance, impl):
    values = {name: instance[name] for name in ("n", "lam", "U")}
    star = constants.evaluate(constants.ETA_STAR, n=instance["n"], lam=instance["lam"])
    at_star = constants.evaluate(constants.THEOREM1_EXCESS, eta=star, **values)
    elsewhere = constants.evaluate(constants.THEOREM1_EXCESS, eta=star * instance["factor"], **values)
    derivative = constants.evaluate(_FIRST, eta=star, **values)
    second = constants.evaluate(_SECOND, eta=star * instance["factor"], **values)
    minimum = constants.evaluate(constants.THEOREM1_MINIMUM, **values)
    # values at constants.DIGITS digits: the identities are resolved far below IDENTITY_RTOL
    return [identity("stationary", float(derivative * star), 0.0, float(at_star)),
            inequality("convex", 0.0, float(second), scale=float(abs(second)) or 1.0),
            identity("minimum", float(at_star), float(minimum), float(minimum)),
            inequality("admissible", float(star) * instance["lam"], 1.0),
            inequality("conclusion", float(at_star), float(elsewhere))]


CHAINS = [Chain("bound.eta_star", "spec 10: eta* minimises the excess a/sqrt(n) + b/n", (
    Step("stationary", "d/d eta (a/sqrt(n) + b/n) = 0 at eta*", "spec 10, n = s^4", symbolic="eta_star_stationary"),
    Step("convex", "d^2/d eta^2 (a/sqrt(n) + b/n) > 0", "a sum of positive terms", symbolic="eta_star_convex"),
    Step("minimum", "a/sqrt(n) + b/n at eta* = 2 sqrt2 lam U^2 sqrt(4 sqrt(n) + 1)/n^(3/4)", "spec 10", symbolic="eta_star_minimum"),
    Step("admissible", "eta* lam < 1", "eta* lam <= sqrt(10)/4", symbolic="eta_star_admissible"),
    Step("conclusion", "the excess at eta* <= the excess at any eta > 0", "a strictly convex function is minimal where its derivative is 0")),
    _evaluate, "spec 10")]
