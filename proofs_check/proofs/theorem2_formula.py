"""Theorem 2 for every ``(rho, epsilon)``: a closed-form ``t0(rho, epsilon)`` such that every ``t0 >= t0(rho, epsilon)``
makes the certificate ``S_n <= 8 rho sqrt(n)`` hold for every n (spec C21; the proof, lemma by lemma, is "The formula"
in docs/theorem2-certificate.md; its algebraic steps are sympy proofs of ``proofs_check.proofs.symbolic``).

For a regime split ``K`` (drops at ``t <= K t0`` bounded all together, later drops one by one) and a weight ``omega``
(``1/2``: ``sqrt(t/i_t) <= sqrt2``, which needs ``t >= W``; ``1``: ``sqrt(t/i_t) <= sqrt(t)``), with ``beta = 1/2 + eps``,
``c' = (1 - 1/K)^beta``, ``A = omega/eps``, ``gamma = sqrt2`` (omega = 1/2) or 1, ``root(A, B)`` the tangent bound of
lemma R (``Z >= A`` with ``Z - A ln Z >= B``):

* ``a = W/K``, ``W = (2K/(K - 2))^(2/(1 - 2 eps))`` (omega = 1/2 only; else 0): then ``s_t <= t/2`` for ``t >= K t0``;
* ``b = K (w/rho)^2``, ``w = root(1, ln(sqrt(K(K-1))/(4 rho^2)))``: the drops up to ``K t0`` (lemma E);
* ``c = 1 + (2/(e rho)) sqrt(T1) (eps Z - omega)``, ``Z = root(A, A ln(1/(rho c')) + ln(gamma/(4 rho)))``,
  ``T1 = (Z/(rho c'))^(1/eps)``: the drops past ``K t0``, one by one (lemma L);

and ``t0(rho, eps) = ceil(min over K in SPLITS, omega in WEIGHTS of max(a, b, c, 1))``. Every number is an arb ball
(python-flint); a bound that any larger value also satisfies (``Z``, ``w``, the parts) is replaced by its ball's upper
end, so the integer returned is proved to be at least the formula.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from proofs_check.proofs.theorem2_certificate import flint_library

#: the regime splits K tried (each gives a sufficient t0; the smallest is kept)
SPLITS = (4, 16, 64)
#: the weights omega of sqrt(t/i_t) past K t0: 1/2 (sqrt(t/i_t) <= sqrt2, needs t >= W) and 1 (sqrt(t/i_t) <= sqrt(t))
WEIGHTS = (Fraction(1, 2), Fraction(1))


@dataclass(frozen=True)
class Formula:
    rho: str
    epsilon: str
    t0: int                 # ceil(min over (K, omega) of max(a, b, c, 1))
    split: int              # the K of the minimum
    weight: str             # its omega
    parts: dict             # "a", "b", "c" (upper ends, floats) of that (K, omega)
    T1: float               # its T1: past T1 the late drops need nothing of t0


def _ball(value):
    arb = flint_library().arb
    value = Fraction(value)
    return arb(value.numerator) / value.denominator


def _upper(ball) -> Fraction:
    """The upper end of a ball, exactly."""
    mantissa, exponent = ball.upper().mid().man_exp()
    return Fraction(int(mantissa)) * Fraction(2) ** int(exponent)


def tangent_point(A: Fraction, B: float) -> Fraction:
    """A point ``z1 > A`` near the root of ``z - A ln z = B`` (any ``z1 > A`` gives a valid bound; lemma R)."""
    positive = max(B, 0.0)
    return 2 * A + Fraction(positive) + A * Fraction(math.log1p(positive / float(A)))


def root(A: Fraction, B) -> Fraction:
    """Lemma R: ``Z = max(A, (B + A ln z1 - A)/(1 - A/z1))`` (upper end of its ball) has ``Z >= A`` and
    ``Z - A ln Z >= B`` (``ln Z <= ln z1 + Z/z1 - 1``, the tangent of the concave ln at ``z1 > A``)."""
    z1 = tangent_point(A, float(B.mid()))
    a, point = _ball(A), _ball(z1)
    return max(A, _upper((B + a * point.log() - a) / (1 - a / point)))


def parts(rho: str, epsilon: str, split: int, weight: Fraction) -> dict:
    """``a``, ``b``, ``c`` of one ``(K, omega)`` (upper ends, exact), lemma R's ``A``, ``B`` (a ball) and root ``Z``, and
    ``T1``."""
    arb = flint_library().arb
    r, eps, K = _ball(rho), _ball(epsilon), split
    beta = _ball(Fraction(1, 2) + Fraction(epsilon))
    a = Fraction(0)
    if weight == Fraction(1, 2):
        a = _upper((arb(2 * K) / (K - 2)) ** (2 / (1 - 2 * eps)) / K)
    w = root(Fraction(1), (arb(K * (K - 1)).sqrt() / (4 * r * r)).log())
    b = K * (w / Fraction(rho)) ** 2
    c_prime = (1 - arb(1) / K) ** beta
    A = weight / Fraction(epsilon)
    gamma = arb(2).sqrt() if weight == Fraction(1, 2) else arb(1)
    B = _ball(A) * (1 / (r * c_prime)).log() + (gamma / (4 * r)).log()
    Z = root(A, B)
    T1 = (_ball(Z) / (r * c_prime)) ** (1 / eps)
    c = _upper(1 + 2 / (arb.const_e() * r) * T1.sqrt() * (eps * _ball(Z) - _ball(weight)))
    return {"a": a, "b": b, "c": c, "Z": Z, "A": A, "B": B, "T1": _upper(T1)}


def sufficient_t0(rho: str, epsilon: str) -> Formula:
    """The closed-form t0 of docs/theorem2-certificate.md ("The formula") for ``rho`` in (0, 1), ``epsilon`` in (0, 1/2)
    (decimal strings, as the certificate reads them)."""
    if not 0 < Fraction(rho) < 1:
        raise ValueError(f"rho must lie in (0, 1), got {rho!r}")
    if not 0 < Fraction(epsilon) < Fraction(1, 2):
        raise ValueError(f"epsilon must lie in (0, 1/2), got {epsilon!r}")
    best = None
    for split in SPLITS:
        for weight in WEIGHTS:
            found = parts(rho, epsilon, split, weight)
            value = max(found["a"], found["b"], found["c"], Fraction(1))
            if best is None or value < best[0]:
                best = (value, split, weight, found)
    value, split, weight, found = best
    return Formula(rho, epsilon, math.ceil(value), split, str(weight),
                   {key: float(found[key]) for key in ("a", "b", "c")}, float(found["T1"]))


def _float_root(A: float, B: float) -> float:
    """Lemma R in floats (the chain's check on an instance)."""
    z1 = float(tangent_point(Fraction(A), B))
    return max(A, (B + A * math.log(z1) - A) / (1 - A / z1))


def lemma_comparisons(rho: float, epsilon: float, t0: int, schedule, n: int) -> list:
    """The lemmas of the formula on one instance (``proofs.theorems``' chain of ``thm2.exists_t0``), float64: at every
    drop ``t <= n`` the product bound (P), the late bound with ``s_t >= t0 - 1 + (t - t0)^beta`` (L), the half window past
    ``max(4 t0, W)`` (W), the allowance (A); at every n the early bound (E); at the instance's ``(rho, epsilon)`` and each
    ``(K, omega)`` lemma R's root and ``D(T1) <= 0``, and lemma L's ``sqrt(t) D(t) <= (2/e) sqrt(T1) (eps Z - omega)`` on a
    grid of t up to T1."""
    from proofs_check.proofs.chain import inequality
    beta = 0.5 + epsilon
    comparisons, total, cut = [], 0.0, 0
    for t in range(1, n + 1):
        new_cut = t - schedule(t)
        if new_cut > cut:
            i, window = new_cut, t - new_cut
            product = math.prod(1 - rho / math.sqrt(k) for k in range(i + 1, t + 1))
            term = math.sqrt(t / i) * product
            total += term
            comparisons += [inequality("product_bound", product, math.exp(-rho * window / math.sqrt(t)), t),
                            inequality("late_term", term, math.sqrt(t / i) * math.exp(-rho * (t0 - 1 + (t - t0) ** beta) / math.sqrt(t)), t),
                            inequality("allowance", 4 * rho / math.sqrt(t), 8 * rho * (math.sqrt(t) - math.sqrt(t - 1)), t)]
            if t >= 4 * t0 and t >= 4 ** (1 / (0.5 - epsilon)):
                comparisons.append(inequality("half_window", window, t / 2, t))
        cut = new_cut
        if cut:
            comparisons.append(inequality("early_drops", total, 2 * math.sqrt(t * cut) * math.exp(-rho * t0 / math.sqrt(t)), t))
    for split in SPLITS:
        for weight in (0.5, 1.0):
            comparisons += _late_comparisons(rho, epsilon, split, weight)
    return comparisons


def _late_comparisons(rho: float, epsilon: float, split: int, weight: float) -> list:
    from proofs_check.proofs.chain import inequality
    K = split
    c_prime = (1 - 1 / K) ** (0.5 + epsilon)
    A, gamma = weight / epsilon, math.sqrt(2) if weight == 0.5 else 1.0
    k = math.log(gamma / (4 * rho))
    B = A * math.log(1 / (rho * c_prime)) + k
    Z = _float_root(A, B)
    B0 = math.log(math.sqrt(K * (K - 1)) / (4 * rho**2))
    w = _float_root(1.0, B0)
    log_T1 = math.log(Z / (rho * c_prime)) / epsilon
    comparisons = [inequality("tangent_root", B, Z - A * math.log(Z), scale=abs(B) + Z),
                   inequality("tangent_root", B0, w - math.log(w), scale=abs(B0) + w),
                   inequality("T1", weight * log_T1 + k - Z, 0.0, scale=Z)]
    peak = 2 / math.e * (epsilon * Z - weight)
    for fraction in (0.5, 0.75, 0.9, 0.97, 1.0):          # t = T1^fraction, in logs (T1 can pass 1e300)
        log_t = fraction * log_T1
        D = weight * log_t + k - rho * c_prime * math.exp(epsilon * log_t)
        comparisons.append(inequality("late_bound", D * math.exp((log_t - log_T1) / 2), peak, scale=abs(peak) + abs(D) + 1e-300))
    return comparisons


def proved_text() -> str:
    """What ``verify`` says of ``thm2.exists_t0``: the formula, and its value at the hardest grid point."""
    hardest = sufficient_t0("0.1", "0.1")
    return (f"for every rho in (0, 1), eps in (0, 1/2) with every t0 >= t0(rho, eps), a closed form "
            f"(t0(0.1, 0.1) = {hardest.t0:.3g}; docs/theorem2-certificate.md)")
