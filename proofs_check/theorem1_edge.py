"""Theorem 1 at its edge: the best constant of each Theorem 1 claim over the one-point family, bracketed (docs/bounds.md).

**The family.** One point ``x`` with ``K(x, x) = 1`` (d = 1; the feature kernel ``A(x) = 1``, whose comparator is
certified), the norm loss (``C = 1``), ``lam = 1`` (so ``U = C kappa / lam = 1``), ``rho = eta`` in (0, 1), any targets
``y_1..y_n``. The ratio of a claim does not change when ``lam`` is scaled with the targets (every term of both sides
is ``1/lam`` times the scaled one), so this is the one-point family at any ``lam``. ONORMA's iterate is
``f_t = A_t K(., x)`` with ``A_t = (1 - r_t) A_{t-1} - r_t s_t``, ``r_t = rho/sqrt(t)``, ``s_t`` the sign of
``A_{t-1} - y_t`` (0 when ``y_t = A_{t-1}``): ``|A_t| <= 1``. For a sign pattern ``s`` the iterates are fixed, and

    LHS_n - min R_reg = max_b [ (1/n) sum_t (l_t - |b - y_t|) + (1/n) sum_t A^2/2 - b^2/2 ]

(``min_h R_reg(h, n) = min_b (1/n) sum_t |b - y_t| + b^2/2``), with ``l_t = |A_{t-1} - y_t|`` (predictor reading) or
``|A_t - y_t|`` (post-update reading) and ``A = A_{t-1}`` or ``A_t``. Each ``y_t`` enters one term, so its supremum over
the targets of pattern ``s`` is taken term by term, in closed form (``_term``): ``s_t (A_{t-1} - b)`` (predictor, any
target beyond ``b``) or ``-|b - A_{t-1}|`` (``s_t = 0``); post-update ``max(s_t (A_t - b), |A_t - A_{t-1}| - |b - A_{t-1}|)``
(the target far away, or just beside the prediction: ``|A_t - y| - |b - y|`` is monotone in ``y``). The supremum over
the family of ``ratio = (LHS_n - min R_reg) / excess_n(rho)`` is then ``max_s sup_rho V_s(rho) / excess_n(rho)``,
``V_s(rho) = max_b F_s(b; rho)``, and the maximiser has ``|b| <= 1`` (``F_s`` has slope in ``[-1, 1] - b``).

**The bracket.** The lower end is the claim's own check on a pinned instance of the family (``pinned_instance``: the
best pattern at ``rho = 1 - 1e-6``, its targets placed as the closed form says); the upper end is certified by
branch and bound in FLINT's arb ball arithmetic over ``(rho, b)`` cells (``certified_upper``): every cell's ball
encloses ``F_s / excess`` on it, and a cell is discarded once its upper end is at most the bound claimed. Below
``rho = RHO_FLOOR`` a hand bound covers the rest: ``F_s <= 3`` (``|A| <= 1``, ``|b| - b^2/2 <= 1/2``) and
``excess_n >= alpha_n / rho - gamma_n`` (``_small_rho_bound``).

The bracket is of the best constant over the one-point family, the family where every search so far found the
largest ratios; over all instances it is a lower bound only.
"""
from __future__ import annotations

import itertools
import math

from flint import arb

#: the Theorem 1 claims bracketed, with their reading of the left side (post-update or predictor)
KINDS = {"thm1.predictor": False, "thm1.sharpened": False, "thm1.post_update": True, "thm1.phi_sum": True}
#: the rho of the pinned instances (rho -> 1 is the edge; rho = 1 itself is outside the hypotheses)
PINNED_RHO = 1 - 1e-6
#: below this rho the hand bound of ``_small_rho_bound`` covers the family
RHO_FLOOR = 1e-3
#: the feature kernel A(x) = 1 (K = 1 everywhere, a certified comparator) and the scale of far targets
CONSTANT_FEATURE = {"type": "feature", "M": [[[1.0]], [[0.0]]]}
FAR = 10.0


def iterates(signs, rho):
    """``A_0 = 0, A_1, ..., A_n`` for the sign pattern ``signs`` (floats or arb balls)."""
    values = [rho * 0]
    for t, s in enumerate(signs, start=1):
        r = rho / math.sqrt(t) if isinstance(rho, float) else rho / arb(t).sqrt()
        values.append((1 - r) * values[-1] - r * s)
    return values


def excess(kind: str, n: int, rho):
    """The claim's excess term at ``lam = U = 1`` (floats or arb balls): a/sqrt(n) + b/n, a/sqrt(n) - (3/(2 rho) +
    2 rho)/n, or Phi(n, rho)/n (spec C18, C18s, C19)."""
    exact = isinstance(rho, float)
    root = math.sqrt if exact else (lambda value: arb(value).sqrt())
    inverse = 1 / n if exact else 1 / arb(n)
    # as alpha rho + beta / rho with alpha, beta >= 0: each term monotone in rho, so that a ball's enclosure stays tight
    if kind in ("thm1.predictor", "thm1.post_update"):     # a/sqrt(n) + b/n
        return 4 / root(n) * rho + (2 / root(n) + inverse / 2) / rho
    if kind == "thm1.sharpened":                           # a/sqrt(n) - (3/(2 rho) + 2 rho)/n
        return (4 / root(n) - 2 * inverse) * rho + (2 / root(n) - 3 * inverse / 2) / rho
    positive = 0
    for t in range(1, n):
        c_t = (root(t + 1) - root(t)) / (2 * rho) - 0.5
        positive = positive + (max(c_t, 0.0) if isinstance(rho, float) else _arb_positive_part(c_t))
    phi = (1 / rho - 1) / 2 + 4 * positive + 2 * rho * sum(1 / root(t) for t in range(1, n + 1)) \
        + 2 * rho**2 * sum(1 / t for t in range(1, n + 1))
    return phi / n


def _arb_positive_part(x):
    return x if x.lower() >= 0 else (arb(0) if x.upper() <= 0 else arb(0).union(x))


def _arb_max(x, y):
    """A ball containing ``max(x, y)``."""
    if x.lower() >= y.upper():
        return x
    if y.lower() >= x.upper():
        return y
    return x.union(y)


def _term(post: bool, s: int, previous, current, b):
    """The supremum over the targets of pattern ``s`` of ``l_t - |b - y_t|`` (module docstring)."""
    if not post:
        return s * (previous - b) if s else -abs(b - previous)
    near = abs(current - previous) - abs(b - previous)
    if not s:
        return near
    far = s * (current - b)
    return max(far, near) if isinstance(b, float) else _arb_max(far, near)


def objective(kind: str, signs, rho, b):
    """``F_s(b; rho)`` (floats or arb balls)."""
    post, n = KINDS[kind], len(signs)
    A = iterates(signs, rho)
    terms = sum(_term(post, s, A[t - 1], A[t], b) for t, s in enumerate(signs, start=1))
    squares = sum((A[t] if post else A[t - 1]) ** 2 for t in range(1, n + 1))
    return (terms + squares / 2) / n - b * b / 2


def patterns(n: int):
    """Sign patterns up to the symmetry ``s -> -s`` (``y -> -y``): the first sign 1 or 0."""
    return [signs for signs in itertools.product((1, 0, -1), repeat=n) if signs[0] != -1]


def best_b(kind: str, signs, rho: float) -> tuple:
    """``(V_s(rho), b)`` in float64: ``F_s`` is piecewise ``linear - b^2/2`` with kinks at the iterates and the crossings
    of the post-update terms; on each piece its maximum is at the clipped stationary point (the piece's slope)."""
    A = iterates(signs, rho)
    kinks = set()
    for t, s in enumerate(signs, start=1):
        kinks.update((A[t - 1], A[t]))
        if KINDS[kind] and s:
            kinks.add((A[t] + A[t - 1] - s * abs(A[t] - A[t - 1])) / 2)
    edges = sorted(kinks | {-2.0, 2.0})
    candidates = list(edges)
    for low, high in zip(edges, edges[1:]):
        if high - low < 1e-15:
            continue
        quarter, three_quarters = low + (high - low) / 4, low + 3 * (high - low) / 4
        slope = ((objective(kind, signs, rho, three_quarters) + three_quarters**2 / 2)
                 - (objective(kind, signs, rho, quarter) + quarter**2 / 2)) / (three_quarters - quarter)
        candidates.append(min(max(slope, low), high))
    b = max(candidates, key=lambda value: objective(kind, signs, rho, value))
    return objective(kind, signs, rho, b), b


#: up to this n the pinned instances try every sign pattern; beyond it the alternating one and its one-sign changes
EVERY_PATTERN_UP_TO = 6


def candidate_patterns(n: int) -> list:
    if n <= EVERY_PATTERN_UP_TO:
        return patterns(n)
    alternating = tuple((-1) ** t for t in range(n))
    return [alternating] + [alternating[:t] + (s,) + alternating[t + 1:] for t in range(1, n) for s in (1, 0, -1)
                            if s != alternating[t]]


def best_pattern(kind: str, n: int, rho: float = PINNED_RHO) -> tuple:
    """``(ratio, signs, b)``: the pattern of largest ``V_s(rho) / excess`` at ``rho`` (``candidate_patterns``)."""
    E = excess(kind, n, rho)
    found = ((best_b(kind, signs, rho), signs) for signs in candidate_patterns(n))
    (value, b), signs = max(found, key=lambda item: item[0][0])
    return value / E, signs, b


def targets(kind: str, signs, rho: float, b: float) -> list:
    """Targets realising the supremum of each term for pattern ``signs`` at the maximiser ``b``: far beyond (``-s FAR``)
    or, for a post-update term whose near end wins, just beside the prediction ``A_{t-1}`` on the side of ``s``."""
    A = iterates(signs, rho)
    values = []
    for t, s in enumerate(signs, start=1):
        previous, current = A[t - 1], A[t]
        if not s:
            values.append(previous)
        elif KINDS[kind] and abs(current - previous) - abs(b - previous) > s * (current - b):
            values.append(previous - s * 1e-9)
        else:
            values.append(-s * FAR)
    return values


def pinned_instance(kind: str, n: int, rho: float = PINNED_RHO) -> dict:
    """The instance of the family with the best pattern at ``rho`` (an instance of the claim's hypotheses: Hyp. 1-2)."""
    _, signs, b = best_pattern(kind, n, rho)
    return {"kernel": CONSTANT_FEATURE, "p": 1, "d": 1, "X": [[0.0]] * n, "Y": [[y] for y in targets(kind, signs, rho, b)],
            "lam": 1.0, "eta": rho, "loss": "norm", "kappa2": 1.0, "C": 1.0, "C_y": FAR, "truncation": None}


def _small_rho_bound(kind: str, n: int) -> float:
    """An upper bound of the ratio for rho <= RHO_FLOOR: ``F_s <= 3`` and ``excess_n(rho) >= alpha / rho - gamma`` with
    the terms in rho dropped (they are positive): ``alpha = 2/sqrt(n) + 1/(2n)`` (predictor, post-update) or
    ``2/sqrt(n) - 3/(2n)`` (sharpened), ``gamma = 0``; for Phi, whose every ``c_t^+`` is ``c_t`` while ``rho <= sqrt(n) -
    sqrt(n - 1)`` (above RHO_FLOOR for n <= 10^5), ``alpha = (1/2 + 2 (sqrt(n) - 1))/n`` and ``gamma = (1/2 + 2 (n - 1))/n``."""
    if kind in ("thm1.predictor", "thm1.post_update"):
        alpha, gamma = 2 / math.sqrt(n) + 1 / (2 * n), 0.0
    elif kind == "thm1.sharpened":
        alpha, gamma = 2 / math.sqrt(n) - 3 / (2 * n), 0.0
    else:
        alpha, gamma = (0.5 + 2 * (math.sqrt(n) - 1)) / n, (0.5 + 2 * (n - 1)) / n
    bound = 3 / (alpha / RHO_FLOOR - gamma)
    return bound * (1 + 1e-12)   # float rounding of the few operations above, outward


def certified_upper(kind: str, n: int, claimed: float, *, max_cells: int = 400000) -> dict:
    """Prove ``ratio <= claimed`` over the family at ``n`` (module docstring): branch and bound over cells
    ``(rho, b)`` in ``[RHO_FLOOR, 1] x [-1, 1]`` per sign pattern, in arb; returns the cells split, or raises
    ``ArithmeticError`` when the budget ends before every cell is below ``claimed``."""
    if _small_rho_bound(kind, n) > claimed:
        raise ArithmeticError(f"the bound below rho = {RHO_FLOOR} ({_small_rho_bound(kind, n):.3g}) exceeds {claimed}")
    cells = 0
    for signs in patterns(n):
        stack = [(RHO_FLOOR, 1.0, -1.0, 1.0)]
        while stack:
            rho_low, rho_high, b_low, b_high = stack.pop()
            cells += 1
            if cells > max_cells:
                raise ArithmeticError(f"{kind} n = {n}: {max_cells} cells did not prove ratio <= {claimed}")
            rho = arb(rho_low).union(arb(rho_high))
            b = arb(b_low).union(arb(b_high))
            E = excess(kind, n, rho)
            if not E.lower() > 0:
                upper = math.inf
            else:
                upper = float((objective(kind, signs, rho, b) / E).upper())
            if upper <= claimed:
                continue
            if rho_high - rho_low > 4 * (b_high - b_low):
                middle = (rho_low + rho_high) / 2
                stack += [(rho_low, middle, b_low, b_high), (middle, rho_high, b_low, b_high)]
            else:
                middle = (b_low + b_high) / 2
                stack += [(rho_low, rho_high, b_low, middle), (rho_low, rho_high, middle, b_high)]
    return {"claimed": claimed, "cells": cells, "rho_floor": RHO_FLOOR, "below_floor": _small_rho_bound(kind, n)}


def prefix_ratio(kind: str, instance: dict, n: int) -> float:
    """``(LHS_n - min R_reg(n)) / excess_n`` of the prefix ``n`` with the claim's own pieces (its risks, its excess, the
    certified upper end of min R_reg: never more than the prefix's true ratio)."""
    import ovk_ref
    from proofs_check import constants
    from proofs_check.claims import bounds, common
    trajectory = common.trajectory(ovk_ref, instance)
    risks = common.regularised_risks(common.kernel(instance), instance["loss"], trajectory, instance["lam"],
                                     post_update=KINDS[kind])
    values = {"U": float(common.U(instance)), "lam": instance["lam"], "eta": instance["eta"], "n": n}
    slack = {"thm1.predictor": lambda: constants.value(constants.THEOREM1_EXCESS, **values),
             "thm1.post_update": lambda: constants.value(constants.THEOREM1_EXCESS, **values),
             "thm1.sharpened": lambda: constants.value(constants.SHARPENED_EXCESS, **values),
             "thm1.phi_sum": lambda: bounds._phi_excess(**values)}[kind]()
    return float((sum(risks[:n]) / n - bounds._comparator(instance, n).upper) / slack)


def lower_bound(kind: str, n: int) -> tuple:
    """``(ratio, instance)``: ``prefix_ratio`` of the pinned instance at its last prefix."""
    instance = pinned_instance(kind, n)
    return prefix_ratio(kind, instance, n), instance


def bracket(kind: str, n: int, slack: float = 2e-3) -> dict:
    """The bracket of the best constant of ``kind`` at ``n``: the pinned lower end and the certified upper end
    (the lower end plus ``slack``, proved by ``certified_upper``)."""
    lower, instance = lower_bound(kind, n)
    claimed = round(lower + slack, 4)
    proof = certified_upper(kind, n, claimed)
    return {"claim": kind, "n": n, "lower": lower, "upper": claimed, "instance": instance, **proof}
