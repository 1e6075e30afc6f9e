"""Theorem 2 decided where it can be: the certificate ``S_n <= 8 rho sqrt(n)`` for every n (spec C21), proved with
ball arithmetic for given ``(rho, epsilon, t0)`` (docs/theorem2-certificate.md has the proofs of the bounds).

``S_n = sum_{t<=n, drop at t} sqrt(t/i_t) P_{i_t,t}``, ``P_{i,t} = prod_{k=i+1}^t (1 - rho/sqrt(k))``, where round t
drops the index ``i_t = t - s_t`` when the cut ``c_t = t - s_t`` grows (by 1: spec 5.3) and ``s_t`` is Theorem 2's
schedule with ``epsilon`` read as its decimal (as ``ovk_ref.theorem2_schedule`` does), computed with integers only:
``floor(u^(p/q)) = k`` with ``k^q <= u^p < (k+1)^q``. Three parts, every number an arb ball (python-flint), every
comparison decided only when the balls are apart:

1. exact prefix ``n <= PREFIX``: ``S_n`` as a ball;
2. blocks ``(a, b]``, ``b = ceil(a (1 + BLOCK_GROWTH))``: ``S_b <= S_a + (c_b - c_a) sqrt(b/(c_a + 1))
   exp(-rho s_{a+1}/sqrt(b+1))``, and ``S_b <= 8 rho sqrt(a+1)`` certifies every n in the block (S is non-decreasing);
   the same blocks give a lower bound ``S_b >= S_a + (c_b - c_a) exp(-rho s_b / (sqrt(c_{a+1}) (1 - rho/sqrt(c_{a+1}+1))))``,
   and ``S_b > 8 rho sqrt(b)`` refutes the certificate;
3. tail past N (``N >= 2 t0 + 1``, ``2 (s_N + 1) <= N`` and ``t/2 - t0 - (t - t0)^beta`` non-decreasing past N, so
   ``s_t <= t/2`` for t > N): ``sum_{t>N} term_t <= sqrt2 (1/eps) c^(-1/eps)
   Gamma(1/eps, c (N+1)^eps)``, ``c = rho 2^-(1/2 + eps)``; ``S_N + tail <= 8 rho sqrt(N+1)`` certifies every n > N.
"""
from __future__ import annotations

import functools
import json
import math
from dataclasses import asdict, dataclass
from fractions import Fraction
from pathlib import Path

#: exact prefix: rounds computed term by term
PREFIX = 20000
#: relative growth of a block
BLOCK_GROWTH = Fraction(1, 100)
#: blocks past this round are not computed: the certificate is then undecided
HORIZON = 10**60
#: bits of the balls
PRECISION_BITS = 128
#: once the upper bound passes 8 rho sqrt(n) at n, the lower bound is followed up to REFUTATION_REACH * n to refute
REFUTATION_REACH = 10**6
#: the stored table (``ovk-check certify-theorem2``)
TABLE = Path(__file__).with_name("theorem2_certificates.json")


def flint_library():
    """python-flint, with its working precision (a module-wide setting of FLINT) at PRECISION_BITS."""
    try:
        import flint
    except ImportError as error:   # pragma: no cover -- an install without the extra
        raise RuntimeError("the Theorem 2 certificate needs python-flint (pip install 'ovk[proofs]')") from error
    flint.ctx.prec = PRECISION_BITS
    return flint


class Schedule:
    """``s_t`` of spec 5.3 in integers: ``beta = 1/2 + epsilon = p/q``."""

    def __init__(self, t0: int, epsilon: str):
        if isinstance(t0, bool) or not isinstance(t0, int) or t0 < 1:
            raise ValueError(f"t0 must be an integer >= 1, got {t0!r}")
        eps = Fraction(epsilon)
        if not 0 < eps < Fraction(1, 2):
            raise ValueError(f"epsilon must lie in (0, 1/2), got {epsilon!r}")
        self.t0, self.epsilon = t0, eps
        self.beta = Fraction(1, 2) + eps

    def floor_power(self, u: int) -> int:
        """``floor(u^beta) = floor((u^p)^(1/q))`` exactly (FLINT's integer root)."""
        return int(flint_library().fmpz(u**self.beta.numerator).root(self.beta.denominator))

    def window(self, t: int) -> int:
        return t if t <= self.t0 else self.t0 + self.floor_power(t - self.t0)

    def cut(self, t: int) -> int:
        return t - self.window(t)


@dataclass
class Certificate:
    rho: str
    epsilon: str
    t0: int
    status: str                 # certified | refuted | undecided
    n: int | None = None        # refuted: an n with S_n > 8 rho sqrt(n) (proved); certified: N, where the tail starts
    ratio: float | None = None  # certified: max of S_upper / (8 rho sqrt(n)) over the prefix and blocks (how close the
                                # certificate comes; the tail's check is not counted); refuted: S_lower / (8 rho sqrt n)
    blocks: int = 0


@functools.lru_cache(maxsize=64)
def _products(rho: str, length: int):
    """``L_t = prod_{k<=t} (1 - rho/sqrt(k))``, t = 0..length, as balls."""
    flint = flint_library()
    r = flint.arb(Fraction(rho).numerator) / Fraction(rho).denominator
    products, current = [flint.arb(1)], flint.arb(1)
    for k in range(1, length + 1):
        current = current * (1 - r / flint.arb(k).sqrt())
        products.append(current)
    return products


def _prefix_terms(rho: str, schedule: Schedule):
    """The exact prefix of ``S_n``: ``(t, sqrt(t/i_t) P_{i_t,t})`` at each drop ``t <= PREFIX`` (none before ``t0 + 2``)."""
    if schedule.t0 + 1 >= PREFIX:
        return
    arb = flint_library().arb
    products = _products(rho, PREFIX)
    cut = 0
    for t in range(schedule.t0 + 2, PREFIX + 1):
        new = schedule.cut(t)
        if new > cut:
            yield t, (arb(t) / new).sqrt() * products[t] / products[new]
        cut = new


def certify(rho: str, epsilon: str, t0: int) -> Certificate:
    """Decide ``S_n <= 8 rho sqrt(n)`` for every n (``certified``), or prove an n where it fails (``refuted``)."""
    flint = flint_library()
    arb = flint.arb
    fraction = Fraction(rho)
    if not 0 < fraction < 1:
        raise ValueError(f"rho must lie in (0, 1), got {rho!r}")
    r = arb(fraction.numerator) / fraction.denominator
    schedule = Schedule(t0, epsilon)
    eight_rho = 8 * r
    upper = lower = arb(0)
    worst = 0.0

    failed_at = None     # the first n where the upper bound passes 8 rho sqrt(n): not certified, maybe refuted later

    def check(S_up, S_low, n_certified, n_refuted):
        """``S_low > 8 rho sqrt(n_refuted)``: refuted; ``S_up <= 8 rho sqrt(n_certified)`` everywhere so far: None;
        else undecided once the lower bound had ``REFUTATION_REACH`` times the stream to catch up."""
        nonlocal worst, failed_at
        if S_low > eight_rho * arb(n_refuted).sqrt():
            return "refuted"
        limit = eight_rho * arb(n_certified).sqrt()
        if failed_at is None:
            worst = max(worst, float((S_up / limit).mid()))
            if not S_up < limit:
                failed_at = n_certified
        if failed_at is not None and n_refuted > REFUTATION_REACH * failed_at:
            return "undecided"
        return None

    # 1. the exact prefix
    for t, term in _prefix_terms(rho, schedule):
        upper, lower = upper + term, lower + term
        state = check(upper, lower, t, t)
        if state:
            return Certificate(rho, epsilon, t0, state, t if state == "refuted" else failed_at,
                               worst if state != "refuted" else float((lower / (eight_rho * arb(t).sqrt())).mid()))
    # 2. blocks, 3. the tail
    a = max(PREFIX, t0 + 1)
    blocks = 0
    while a < HORIZON:
        b = math.ceil(a * (1 + BLOCK_GROWTH)) if a >= 100 else a + 1
        block_upper, block_lower = block_bounds(schedule, r, a, b)
        upper, lower = upper + block_upper, lower + block_lower
        blocks += 1
        state = check(upper, lower, a + 1, b)
        if state == "refuted":
            return Certificate(rho, epsilon, t0, state, b, float((lower / (eight_rho * arb(b).sqrt())).mid()), blocks)
        if state == "undecided":
            return Certificate(rho, epsilon, t0, state, failed_at, worst, blocks)
        tail = tail_bound(schedule, r, b)
        if tail is not None and failed_at is None and upper + tail < eight_rho * arb(b + 1).sqrt():
            return Certificate(rho, epsilon, t0, "certified", b, worst, blocks)
        a = b
    return Certificate(rho, epsilon, t0, "undecided", failed_at or a, worst, blocks)


def block_bounds(schedule: Schedule, r, a: int, b: int) -> tuple:
    """Balls ``(upper, lower)`` with ``lower <= sum_{a < t <= b, drop at t} sqrt(t/i_t) P_{i_t,t} <= upper`` (lemmas B1-B3
    of docs/theorem2-certificate.md): ``c_b - c_a`` drops, each ``i_t >= c_a + 1`` (``>= c_{a+1}``), ``t <= b``, and
    ``s_{a+1} <= s_t <= s_b``."""
    arb = flint_library().arb
    s_first, s_last, c_before, c_first = schedule.window(a + 1), schedule.window(b), schedule.cut(a), schedule.cut(a + 1)
    drops = schedule.cut(b) - c_before
    if not drops:
        return arb(0), arb(0)
    upper = drops * (arb(b) / (c_before + 1)).sqrt() * (-r * s_first / arb(b + 1).sqrt()).exp()
    lower = arb(0)
    if c_first >= 1:
        lower = drops * (-r * s_last / (arb(c_first).sqrt() * (1 - r / arb(c_first + 1).sqrt()))).exp()
    return upper, lower


def tail_bound(schedule: Schedule, r, N: int):
    """A ball above ``sum_{t > N, drop at t} sqrt(t/i_t) P_{i_t,t}`` (lemma T): ``sqrt2 (1/eps) c^(-1/eps) Gamma(1/eps,
    c (N+1)^eps)``, ``c = rho 2^(-beta)``; None where the lemma's conditions (``N >= 2 t0 + 1``, ``s_t <= t/2`` past N)
    are not met."""
    if not (N >= 2 * schedule.t0 + 1 and _increasing(schedule, N) and 2 * (schedule.window(N) + 1) <= N):
        return None
    arb = flint_library().arb
    eps = arb(schedule.epsilon.numerator) / schedule.epsilon.denominator
    c = r * arb(2) ** (-arb(schedule.beta.numerator) / schedule.beta.denominator)
    return arb(2).sqrt() / eps * c ** (-1 / eps) * (c * arb(N + 1) ** eps).gamma_upper(1 / eps)   # Gamma(1/eps, .)


def _increasing(schedule: Schedule, N: int) -> bool:
    """Is ``t/2 - t0 - (t - t0)^beta`` non-decreasing for t >= N? Its derivative is ``1/2 - beta u^(beta-1)``, u = t - t0:
    ``u^(1-beta) >= 2 beta``, i.e. ``u^(q-p) q^q >= (2p)^q`` for ``beta = p/q`` (integers; lemma T of
    docs/theorem2-certificate.md)."""
    p, q = schedule.beta.numerator, schedule.beta.denominator
    return (N - schedule.t0) ** (q - p) * q**q >= (2 * p) ** q


def _doubling(rho: str, epsilon: str, tried: dict, limit: int) -> tuple:
    """Certify t0 = 2, 4, 8, ... (each certificate into ``tried``) until one is certified or t0 reaches ``limit``;
    returns ``(low, high)``: the last t0 not certified before ``high``, and the last t0 tried."""
    low, high = 1, 2
    while True:
        tried[high] = certify(rho, epsilon, high)
        if tried[high].status == "certified":
            break
        if high >= limit:
            break
        low, high = high, high * 2
    return low, high


def _bisection(rho: str, epsilon: str, tried: dict, low: int, high: int, relative: Fraction) -> None:
    """Bisect between ``low`` (not certified) and ``high`` (certified) down to ``relative`` of ``high`` (exact below
    128), each certificate into ``tried``; nothing to do when ``high`` is not certified."""
    while tried[high].status == "certified" and high - low > max(1, int(high * relative) if high >= 128 else 1):
        middle = (low + high) // 2
        tried[middle] = certify(rho, epsilon, middle)
        low, high = (low, middle) if tried[middle].status == "certified" else (middle, high)


def smallest_t0(rho: str, epsilon: str, *, limit: int = 2**62, relative: Fraction = Fraction(0)) -> dict:
    """The smallest certified t0 found: 1, else doubling until certified, then bisection down to ``relative`` (default
    exact: the t0 returned is certified and t0 - 1 is not). Returns the certified t0 with its certificate, the largest
    t0 below it that was not certified (refuted, or undecided) with its certificate, and the largest t0 tested whose
    certificate is refuted (proved to fail: ``S_n > 8 rho sqrt(n)`` at some n)."""
    tried = {1: certify(rho, epsilon, 1)}
    if tried[1].status != "certified":
        low, high = _doubling(rho, epsilon, tried, limit)
        _bisection(rho, epsilon, tried, low, high, relative)
    certified = sorted(t0 for t0, attempt in tried.items() if attempt.status == "certified")
    t0 = certified[0] if certified else None
    failing = sorted(value for value, attempt in tried.items() if attempt.status != "certified" and (t0 is None or value < t0))
    refuted = sorted(value for value in failing if tried[value].status == "refuted")
    return {"rho": rho, "epsilon": epsilon, "t0": t0, "certificate": asdict(tried[t0]) if t0 else None,
            "below": asdict(tried[failing[-1]]) if failing else None,
            "refuted_below": asdict(tried[refuted[-1]]) if refuted else None}


#: the grid of the stored table: rho down to 0.1, epsilon down to 0.1
GRID_RHO = ("0.1", "0.2", "0.3", "0.5", "0.7", "0.9")
GRID_EPSILON = ("0.1", "0.25", "0.4")


def stored_table() -> list:
    return json.loads(TABLE.read_text())["rows"] if TABLE.exists() else []

