"""Steps of the proofs proved with sympy for all values of their symbols in their stated ranges (verdict "proved").

A ``SymbolicProof`` states one step as a sympy relation ``E = 0`` (identity), ``E >= 0`` or ``E > 0`` over symbols
with stated ranges (``domain``), and proves it by ``obligations``: expressions that sympy must simplify to 0, or
show non-negative / positive from the signs of their symbols (after a substitution that turns a range such as
``lam >= 2 kappa^2`` into ``lam = 2 kappa^2 + s`` with ``s >= 0``). An induction is two obligations (base, step); a
certificate such as ``(2a^2 + 1)^2 - 4a^2(a^2 + 1) = 1`` is an obligation that simplifies to 0.

Each proof has a planted wrong variant (``WRONG_VARIANTS``: a plausible mistake in the step's formula) that sympy
refutes: its obligations fail, and ``refute`` finds an exact point of the domain where the variant's relation is
false (evaluated exactly: rationals and radicals, no floats). The tests (tests/proofs/test_symbolic.py) prove every
proof and refute every variant; ``ovk-check explain`` runs the proofs of a chain's steps. Results are cached per
process (``prove`` is pure).
"""
from __future__ import annotations

import functools
import itertools
from collections.abc import Callable
from dataclasses import dataclass

import sympy as sp

# symbols: positive unless said otherwise
lam, eta, U, C, C_y, kappa, N, eps = sp.symbols("lam eta U C C_y kappa N epsilon", positive=True)
s, v, a, e, P, x = sp.symbols("s v a e P x", positive=True)
A_, B_, Q = sp.symbols("A B Q", real=True)           # <a,a>, <G,G>, <G,a>: a Gram matrix (A, B >= 0 by domain)
n, t, i = sp.symbols("n t i", integer=True, positive=True)
D = sp.IndexedBase("D", real=True)
c = sp.IndexedBase("c", real=True)
w = sp.IndexedBase("w", positive=True)
r = sp.Symbol("r", positive=True)
m = sp.Symbol("m", integer=True, positive=True)
rho, g2 = sp.symbols("rho g2", positive=True)       # eta lam; ||G(x_t)||^2
F_ = sp.Symbol("F", real=True)                       # <f, G>

#: exact sample values of a symbol's range where ``refute`` looks for a counterexample
SAMPLES = (sp.Rational(1, 3), sp.Rational(1, 2), sp.Integer(1), sp.Integer(2), sp.Rational(7, 2), sp.Integer(16))


@dataclass(frozen=True)
class SymbolicProof:
    name: str
    statement: str
    method: str
    build: Callable      # () -> (relation, kind, domain, obligations)

    def parts(self):
        return _built(self)


@functools.cache
def _built(proof: SymbolicProof):
    return proof.build()


def _holds(kind: str, expr) -> bool:
    """One obligation, decided by sympy: ``zero`` (simplifies to 0), ``nonnegative``, ``positive``."""
    if kind == "zero":
        return sp.simplify(expr) == 0
    for form in (expr, sp.expand(expr), sp.factor(sp.together(expr)), sp.simplify(expr)):
        decided = form.is_positive if kind == "positive" else form.is_nonnegative
        if decided:
            return True
    return False


@functools.cache
def prove(proof: SymbolicProof) -> bool:
    """True when sympy discharges every obligation of ``proof``."""
    _, _, _, obligations = proof.parts()
    return all(_holds(kind, expr) for kind, expr in obligations)


def _fails(kind: str, value) -> bool:
    """Is the relation false at a point? Exact values (rationals, radicals): sympy decides the sign of a number by
    evaluating it with error control."""
    if kind == "zero":
        return value.equals(0) is False
    return bool(value.is_negative) if kind == "nonnegative" else bool(value.is_nonpositive)


#: how near a boundary ``refute``'s second pass goes: ``low + 1/10^k``, ``high - 1/10^k`` (exact rationals), and
#: ``10^k`` for a range without an upper end
NEAR = (3, 6)


def refute(proof: SymbolicProof, boundaries: bool = True):
    """An exact point of the domain where the relation of ``proof`` is false (a dict symbol -> value), or None. First the
    grid of ``SAMPLES`` (and the domain's own values); then (``boundaries``) each symbol at its ends and near them
    (``boundary_values``) with the others on the grid's first two values, and every corner of the near-boundary
    values."""
    relation, kind, domain, _ = proof.parts()
    symbols = sorted(domain, key=str)
    grid = [_admissible(symbol, domain[symbol], SAMPLES + tuple(domain[symbol][2])) for symbol in symbols]
    edges = [[value for value in _admissible(symbol, domain[symbol], boundary_values(domain[symbol]))
              if not (symbol.is_positive and value <= 0)] for symbol in symbols]
    points = itertools.product(*grid)
    if boundaries:
        points = itertools.chain(points, _boundary_points(grid, edges), itertools.product(*edges))
    for point in points:
        substitution = dict(zip(symbols, point))
        if _fails(kind, relation.subs(substitution).doit()):
            return substitution
    return None


def boundary_values(bounds) -> tuple:
    """The ends of a range and exact rationals near them (``NEAR``): a failure confined near a boundary is found."""
    low, high, _ = bounds
    values = []
    if low is not None:
        values += [sp.sympify(low)] + [low + sp.Rational(1, 10**k) for k in NEAR]
    if high is not None:
        values += [sp.sympify(high)] + [high - sp.Rational(1, 10**k) for k in NEAR]
    else:
        values += [sp.Integer(10**k) for k in NEAR]
    return tuple(values)


def _admissible(symbol, bounds, values) -> list:
    """The values inside the range (a boundary of 0 only where a domain lists it), integers for an integer symbol."""
    return [value for value in dict.fromkeys(values) if _inside(value, bounds) and (not symbol.is_integer or sp.Integer(value) == value)]


def _boundary_points(grid, edges):
    """Each symbol at each of its boundary values, the others at their grid's first two values."""
    for index, values in enumerate(edges):
        others = [column[:2] for column in grid]
        yield from itertools.product(*others[:index], values, *others[index + 1:])


def _inside(value, bounds) -> bool:
    low, high, _ = bounds
    return (low is None or value >= low) and (high is None or value <= high)


def _domain(**ranges):
    """``name=(low, high)`` or ``(low, high, extra sample values)`` over the module's symbols."""
    out = {}
    for name, bounds in ranges.items():
        low, high, *extra = bounds
        out[_SYMBOLS[name]] = (low, high, tuple(extra[0]) if extra else ())
    return out


_SYMBOLS = {str(symbol): symbol for symbol in (lam, eta, U, C, C_y, kappa, N, eps, s, v, a, e, P, x, A_, B_, Q, n, t, r, m, rho, g2, F_)}


# --- the proofs ---------------------------------------------------------------------------------------------------

def _telescoping(shrink_of_new):
    """``S_t = sum_{i<=t} e_i P_{i,t} = 1 - P_{0,t}`` by induction: ``S_1 = e_1``; ``S_{t+1} = (1 - e) S_t + e``
    (every ``P_{i,t}`` gains the factor ``1 - e_{t+1}``, the new term has ``P_{t+1,t+1} = 1``; ``shrink_of_new`` is
    the factor the new term gets), and ``1 - P_{0,t+1} = 1 - (1 - e) P_{0,t}``."""
    def build():
        base = e - (1 - (1 - e))                                     # S_1 = e_1 = 1 - P_{0,1}
        step = (1 - e) * (1 - P) + e * shrink_of_new - (1 - (1 - e) * P)
        return step, "zero", _domain(e=(0, 1), P=(0, 1)), [("zero", base), ("zero", step)]
    return build


def _identity(left, right, **ranges):
    def build():
        return left - right, "zero", _domain(**ranges), [("zero", left - right)]
    return build


def _bound(small, large, strict=False, **ranges):
    """``small <= large`` (``<`` with ``strict``) on the domain, written over symbols whose signs sympy knows (a range
    such as ``lam >= 2 kappa^2`` as ``lam = 2 kappa^2 + s``, ``s >= 0``): proved by the sign of ``large - small``."""
    def build():
        difference = large - small
        kind = "positive" if strict else "nonnegative"
        return difference, kind, _domain(**ranges), [(kind, difference)]
    return build


HALF = sp.Rational(1, 2)


def _sgd_identity(half=HALF):
    """``<G, a> = (||a||^2 - ||a - eta G||^2)/(2 eta) + (eta/2)||G||^2`` in any inner-product space: on span{a, G},
    ``||a - eta G||^2 = A - 2 eta Q + eta^2 B`` with the Gram entries ``A = <a,a>``, ``Q = <G,a>``, ``B = <G,G>``."""
    def build():
        relation = (A_ - (A_ - 2 * eta * Q + eta**2 * B_)) / (2 * eta) + half * eta * B_ - Q
        return relation, "zero", _domain(A=(0, None), B=(0, None), Q=(None, None, [-1]), eta=(0, None)), [("zero", relation)]
    return build


def _summation_by_parts(sign=1):
    """``sum_{t=1}^n (D_{t-1} - D_t) c_t = D_0 c_1 - D_n c_n + sum_{t<n} D_t (c_{t+1} - c_t)`` by induction on n: from n
    to n + 1 the left side gains its term ``(D_n - D_{n+1}) c_{n+1}``, the right side's sum gains its term ``t = n``
    and its boundary term ``-D_n c_n`` becomes ``-D_{n+1} c_{n+1}``. ``refute`` compares both sides at n = 3 for
    ``D = (1, 2, 3, 5)``, ``c = (1, 2, 4)``."""
    def term(k):
        return sign * D[k] * (c[k + 1] - c[k])

    def rhs(k):
        return D[0] * c[1] - D[k] * c[k] + sp.Sum(term(t), (t, 1, k - 1))

    def lhs(k):
        return sp.Sum((D[t - 1] - D[t]) * c[t], (t, 1, k))

    def build():
        base = (lhs(1) - rhs(1)).doit()
        step = (D[n] - D[n + 1]) * c[n + 1] - (term(n) - D[n + 1] * c[n + 1] + D[n] * c[n])
        values = {D[0]: 1, D[1]: 2, D[2]: 3, D[3]: 5, c[1]: 1, c[2]: 2, c[3]: 4}
        return (lhs(3) - rhs(3)).doit().subs(values), "zero", {}, [("zero", base), ("zero", step)]
    return build


def _step_sum(constant=-1):
    """``sum_{t<=n} t^(-1/2) <= 2 sqrt(n) + constant`` (constant -1): base ``n = 1``; step ``2(sqrt(n+1) - sqrt(n))
    >= 1/sqrt(n+1)``, i.e. with ``a = sqrt(n)``: ``2a^2 + 1 - 2a sqrt(a^2+1) >= 0``, whose two sides are positive
    and whose squares differ by the certificate ``(2a^2 + 1)^2 - 4a^2(a^2 + 1) = 1``."""
    def build():
        relation = 2 * sp.sqrt(n) + constant - sp.Sum(1 / sp.sqrt(t), (t, 1, n))
        base = 2 + constant - 1
        certificate = (2 * a**2 + 1) ** 2 - 4 * a**2 * (a**2 + 1) - 1
        return relation, "nonnegative", {n: (1, None, (3, 4))}, [("nonnegative", sp.sympify(base)), ("zero", certificate),
                                                                 ("positive", 2 * a**2 + 1)]
    return build


def _limit_coefficient(coefficient):
    """Prop. 1(iii): ``h(eps) = (lam/2)(eps^2 - 2 eps)N^2 + C eps kappa N >= 0`` for all eps > 0 and ``h(0) = 0`` give
    ``lim_{eps -> 0+} h(eps)/eps >= 0``; sympy computes the limit, ``C kappa N - lam N^2``."""
    def build():
        h = lam / 2 * (eps**2 - 2 * eps) * N**2 + C * eps * kappa * N
        relation = sp.limit(h / eps, eps, 0, "+") - coefficient
        return relation, "zero", _domain(lam=(0, None), N=(0, None), C=(0, None), kappa=(0, None)), [("zero", relation)]
    return build


#: spec 10: the horizon as n = s^4 (sympy simplifies the nested radicals then)
_A = 2 * lam * U**2 * (2 * eta * lam + 1 / (eta * lam))
_A2 = 2 * lam * U**2 * (10 * eta * lam + 1 / (eta * lam))
_B = U**2 / (2 * eta)
_SHARPENING = 3 * U**2 / (2 * eta) + 2 * lam**2 * U**2 * eta
_EXCESS = _A / s**2 + _B / s**4
_ETA_STAR = sp.sqrt(2 + 1 / (2 * s**2)) / (2 * lam)


def _eta_star(kind):
    def build():
        domain = _domain(lam=(0, None), U=(0, None), s=(1, None))
        if kind == "stationary":
            relation = sp.diff(_EXCESS, eta).subs(eta, _ETA_STAR)
            return relation, "zero", domain, [("zero", relation)]
        if kind == "minimum":
            relation = _EXCESS.subs(eta, _ETA_STAR) - 2 * sp.sqrt(2) * lam * U**2 * sp.sqrt(4 * s**2 + 1) / s**3
            return relation, "zero", domain, [("zero", relation)]
        if kind in ("convex", "convex_wrong"):    # B'' = U^2 (sqrt(n) + 4n)/(eta^3 n^(3/2)) > 0 (spec 10)
            power = 3 if kind == "convex" else 2
            second = U**2 * (s**2 + 4 * s**4) / (eta**power * s**6)
            relation = sp.diff(_EXCESS, eta, 2) - second
            return relation, "zero", {**domain, eta: (0, None, ())}, [("zero", relation), ("positive", second)]
        relation = 1 - _ETA_STAR * lam                                    # admissible: eta* lam < 1 for n >= 1
        # eta* lam = sqrt(2 + 1/(2 s^2))/2 <= sqrt(5/2)/2 < 1: 1 - (eta* lam)^2 = (2 - 1/(2 s^2))/4 > 0 with s = 1 + v
        squared = (1 - (_ETA_STAR * lam) ** 2).subs(s, 1 + v)
        return relation, "positive", domain, [("positive", sp.factor(sp.together(squared)))]
    return build


def _delta_normalised(exponent_of_w):
    """MONORMA (spec 6.3, C16): ``delta_j = w_j^(1/(r+1)) / (sum_k w_k^(r/(r+1)))^(1/r)`` has ``sum_j delta_j^r = 1``,
    for every m and r > 0 (a sum over j = 1..m of ``w_j^(r/(r+1)) / sum_k w_k^(r/(r+1))``)."""
    def build():
        j, k = sp.symbols("j k", integer=True, positive=True)
        total = sp.Sum(w[k] ** (r / (r + 1)), (k, 1, m))
        delta = w[j] ** exponent_of_w / total ** (1 / r)
        relation = sp.Sum(delta**r, (j, 1, m)) - 1
        proved = sp.powsimp(sp.expand_power_base(relation, force=True), force=True).xreplace({k: j})   # one dummy index
        concrete = relation.subs(m, 2).doit().subs({w[1]: 2, w[2]: 3})
        return concrete, "zero", {r: (0, None, ())}, [("zero", sp.simplify(proved))]
    return build


def _copies(exponent):
    """m copies of one kernel (spec 6.4): every ``w_j = W`` gives ``delta_j = W^(1/(r+1)) / (m W^(r/(r+1)))^(1/r) = m^(-1/r)``."""
    def build():
        W = sp.Symbol("W", positive=True)
        relation = W ** (1 / (r + 1)) / (m * W ** (r / (r + 1))) ** (1 / r) - m ** exponent
        return relation, "zero", {r: (0, None, ()), m: (2, None, (3,)), W: (0, None, ())}, [
            ("zero", sp.powsimp(sp.expand_power_base(relation, force=True), force=True))]
    return build


def _tight_norm_monotone(floor):
    """Prop. 2(iv) corrected (C14'): ``sigma^2/(sigma^2 + lam)^2 <= kappa^2/(kappa^2 + lam)^2`` for ``sigma^2 <= kappa^2``
    and ``lam >= floor`` (``kappa^2`` for the proof): ``sigma^2 = s``, ``kappa^2 = s + v``, ``lam = floor + e``; the
    difference is ``(kappa^2 - s)(lam^2 - kappa^2 s)`` over positive squares."""
    def build():
        k = s + v
        L = floor(k) + e
        difference = k / (k + L) ** 2 - s / (s + L) ** 2
        return difference, "nonnegative", _domain(s=(0, None), v=(0, None), e=(0, None)), [("nonnegative", sp.factor(sp.together(difference)))]
    return build


def _psi_minus_phi(b_term=True):
    """``Psi(n, rho) - Phi(n, rho) >= 9/4`` for ``n >= 1``, ``0 < rho <= 1`` (spec C19): with ``a = sqrt(n)``, ``S = sum_{t<=n}
    t^(-1/2)``, ``C = sum_{t<n} c_t^+``, ``H = H_n``, ``Psi - Phi = 1/2 + 2 rho (2a - S) + 2a/rho - 4C - 2 rho^2 H``
    (identity); the coefficients of S, C, H are <= 0, so their upper bounds give a lower bound: ``S <= 2a - 1``
    (step_sum), ``4 c_t^+ <= 2 (1/rho - 1)(sqrt(t+1) - sqrt(t))`` (both cases of the max, ``sqrt(t+1) - sqrt(t) <= 1``),
    which telescopes to ``4C <= 2 (1/rho - 1)(a - 1)``, and ``H_n <= a + 1/8`` (n <= 4 by value; then induction:
    ``1/(n+1) <= sqrt(n+1) - sqrt(n)`` as ``sqrt(n) + sqrt(n+1) <= 2 b <= b^2``, ``b = sqrt(n+1) >= 2``). The lower bound is
    ``[2 rho + 2/rho - rho^2/4 - 15/4] + 9/4 + 2a (1 - rho^2)``, and with ``rho = 1/(1+e)`` the bracket is ``e (8e^2 + 9e
    + 2)/(4 (1+e)^2) >= 0``. ``b_term=False``: Psi without its ``b/n`` part ``1/(2 rho)``."""
    def build():
        b_part = 1 / (2 * rho) if b_term else 0
        psi = (4 * rho + 2 / rho) * sp.sqrt(n) + b_part
        c_t = (sp.sqrt(t + 1) - sp.sqrt(t)) / (2 * rho) - HALF
        phi = ((1 / rho - 1) / 2 + 4 * sp.Sum(sp.Max(0, c_t), (t, 1, n - 1)) + 2 * rho * sp.Sum(1 / sp.sqrt(t), (t, 1, n))
               + 2 * rho**2 * sp.harmonic(n))
        relation = psi - phi - sp.Rational(9, 4)
        S_, C_, H_ = sp.symbols("S C_plus H", real=True)
        psi_a, b_a = (4 * rho + 2 / rho) * a + b_part, sp.sqrt(a**2 + 1)
        decomposition = psi_a - ((1 / rho - 1) / 2 + 4 * C_ + 2 * rho * S_ + 2 * rho**2 * H_) - (
            HALF + 2 * rho * (2 * a - S_) + 2 * a / rho - 4 * C_ - 2 * rho**2 * H_)
        lower = HALF + 2 * rho + 2 / rho + 2 * a - 2 - 2 * rho**2 * a - rho**2 / 4
        substituted = HALF + 2 * rho * (2 * a - (2 * a - 1)) + 2 * a / rho - 2 * (1 / rho - 1) * (a - 1) - 2 * rho**2 * (a + sp.Rational(1, 8)) - lower

        def at_e(expr):
            return sp.factor(sp.together(expr.subs(rho, 1 / (1 + e))))
        obligations = (_step_sum()()[3]                                                         # S <= 2a - 1
                       + [("nonnegative", 2 - 2 / (1 + v)), ("nonnegative", 2 * a * e)]           # 4c^+ <= 2(1/rho - 1) delta: both cases
                       + [("zero", (b_a - 1) - (a - 1) - (b_a - a))]                               # the increments telescope
                       + [("nonnegative", sp.sqrt(k) + sp.Rational(1, 8) - sp.harmonic(k)) for k in range(1, 5)]   # H_n, n <= 4
                       + [("nonnegative", (2 + v) ** 2 - 2 * (2 + v))]                             # b^2 >= 2b for b >= 2
                       + [("zero", decomposition), ("zero", substituted),
                          ("nonnegative", at_e(2 * rho + 2 / rho - rho**2 / 4 - sp.Rational(15, 4))),
                          ("nonnegative", at_e(2 * a * (1 - rho**2)))])
        return relation, "nonnegative", _domain(n=(1, None, [2, 5]), rho=(0, 1, [sp.Rational(99, 100)])), obligations
    return build


def _delta_homogeneous(inner, outer):
    """MONORMA (spec 6.3, C16): with ``W = sum_k w_k^outer``, the update ``delta_j = w_j^inner / W^(1/r)`` at ``s^2 w``
    (``delta_{t-1}`` scaled by ``s``): every term of the sum scales by ``s^(2 outer)``, so ``W -> s^(2 outer) W``, and
    ``delta_j`` is unchanged when ``2 inner = 2 outer / r`` (``inner = 1/(r+1)``, ``outer = r/(r+1)``)."""
    def build():
        j, k = sp.symbols("j k", integer=True, positive=True)
        W = sp.Symbol("W", positive=True)

        def update(scale):
            total = sp.Sum((scale * w[k]) ** outer, (k, 1, m))
            return (scale * w[j]) ** inner / total ** (1 / r)
        relation = update(s**2) - update(1)
        concrete = relation.subs(m, 2).doit().subs(j, 1).subs({w[1]: 2, w[2]: 3})
        term = (s**2 * w[k]) ** outer - s ** (2 * outer) * w[k] ** outer
        closed = (s**2 * w[j]) ** inner / (s ** (2 * outer) * W) ** (1 / r) - w[j] ** inner / W ** (1 / r)
        return concrete, "zero", {r: (0, None, ()), s: (0, None, ())}, [
            ("zero", sp.expand_power_base(term, force=True)), ("zero", sp.powsimp(sp.expand_power_base(closed, force=True), force=True))]
    return build


def _descent_expansion(curvature):
    """Squared loss (spec C19, Hyp. 3): ``R_t(f) = ||e||^2/2 + (lam/2)||f||^2``, ``e = f(x_t) - y_t``, step ``f - eta G`` with
    ``G = K(., x_t) e + lam f``: ``R_t(f - eta G) - R_t(f) = -eta (<e, g> + lam <f, G>) + (eta^2/2)(||g||^2 + lam ||G||^2)``,
    ``g = G(x_t)``, and ``<e, g> = <K(., x_t) e, G>`` (reproducing property), so ``<e, g> + lam <f, G> = ||G||^2``:
    with ``Q = <e, g> = B - lam F`` the change is ``-eta B + curvature``."""
    def build():
        change = -eta * (B_ - lam * F_) + eta**2 / 2 * g2 - eta * lam * F_ + eta**2 * lam / 2 * B_
        relation = change - (-eta * B_ + curvature)
        return relation, "zero", _domain(eta=(0, None), lam=(0, None), B=(0, None), g2=(0, None), F=(None, None, [-1])), [
            ("zero", relation)]
    return build


def _minimal_value(factor):
    """Batch ridge (spec 7.1, C25): at ``c = (G + t lam I)^(-1) y``, ``G c - y = -t lam c`` and ``y^T c = c^T G c + t lam ||c||^2``,
    so ``(1/(2t))||G c - y||^2 + (lam/2) c^T G c = factor * y^T c`` with ``factor = lam/2`` (``A = c^T G c``, ``B = ||c||^2``)."""
    def build():
        relation = t**2 * lam**2 * B_ / (2 * t) + lam / 2 * A_ - factor * (A_ + t * lam * B_)
        return relation, "zero", _domain(t=(1, None), lam=(0, None), A=(0, None), B=(0, None)), [("zero", relation)]
    return build


PROOFS = {proof.name: proof for proof in [
    SymbolicProof("telescoping", "sum_{i<=t} eta_i lam P_{i,t} = 1 - P_{0,t}, P_{i,t} = prod_{k=i+1}^t (1 - eta_k lam)",
                  "induction on t: base and step simplify to 0", _telescoping(1)),
    SymbolicProof("prop2_induction_algebra", "(1 - eta lam) C_y/kappa + 2 kappa eta C_y = C_y/kappa + eta C_y (2 kappa - lam/kappa)",
                  "simplifies to 0", _identity((1 - eta * lam) * C_y / kappa + 2 * kappa * eta * C_y,
                                               C_y / kappa + eta * C_y * (2 * kappa - lam / kappa),
                                               eta=(0, None), lam=(0, None), C_y=(0, None), kappa=(0, None))),
    SymbolicProof("prop2_hypothesis3_sign", "eta C_y (2 kappa - lam/kappa) < 0 for lam > 2 kappa^2",
                  "lam = 2 kappa^2 + s, s > 0: the expression is -eta C_y s / kappa",
                  _bound(eta * C_y * (2 * kappa - (2 * kappa**2 + s) / kappa), 0, strict=True, eta=(0, None), C_y=(0, None),
                         kappa=(0, None), s=(0, None))),
    SymbolicProof("prop2_hypothesis3_norm", "2 kappa C_y / lam <= C_y / kappa for lam >= 2 kappa^2",
                  "lam = 2 kappa^2 + s, s >= 0: the difference is C_y s / (kappa (2 kappa^2 + s))",
                  _bound(2 * kappa * C_y / (2 * kappa**2 + s), C_y / kappa, C_y=(0, None), kappa=(0, None), s=(0, None))),
    SymbolicProof("prop2_iv_hence", "C_y / sqrt(lam) <= 2 C_y / lam for 0 < lam <= 4 (the paper's 'Hence'; false for lam > 4)",
                  "lam = mu^2, mu = 2/(1 + s), s >= 0: the difference is C_y s (1 + s)/2 >= 0",
                  _bound(C_y / (2 / (1 + s)), 2 * C_y / (2 / (1 + s)) ** 2, C_y=(0, None), s=(0, None))),
    SymbolicProof("prop2_iv_hypothesis3", "C_y / sqrt(lam) <= C_y / (sqrt2 kappa) for lam >= 2 kappa^2",
                  "both sides positive; lam = 2 kappa^2 + s: the squares differ by C_y^2 s / (2 kappa^2 (2 kappa^2 + s))",
                  _bound(C_y**2 / (2 * kappa**2 + s), C_y**2 / (2 * kappa**2), C_y=(0, None), kappa=(0, None), s=(0, None))),
    SymbolicProof("prop1_iii_expansion", "(lam/2)(||(1-eps) f||^2 - ||f||^2) = (lam/2)(eps^2 - 2 eps)||f||^2", "simplifies to 0",
                  _identity(lam / 2 * ((1 - eps) ** 2 - 1) * N**2, lam / 2 * (eps**2 - 2 * eps) * N**2, lam=(0, None),
                            epsilon=(0, 1), N=(0, None))),
    SymbolicProof("prop1_iii_coefficient", "lim_{eps->0+} [(lam/2)(eps^2 - 2 eps)N^2 + C eps kappa N]/eps = C kappa N - lam N^2",
                  "sympy's limit", _limit_coefficient(C * kappa * N - lam * N**2)),
    SymbolicProof("sgd_identity", "<G, a> = (||a||^2 - ||a - eta G||^2)/(2 eta) + (eta/2)||G||^2 in any inner-product space",
                  "bilinearity on span{a, G}: simplifies to 0", _sgd_identity()),
    SymbolicProof("summation_by_parts", "sum_{t=1}^n (D_{t-1} - D_t) c_t = D_0 c_1 - D_n c_n + sum_{t<n} D_t (c_{t+1} - c_t)",
                  "induction on n: base and step simplify to 0", _summation_by_parts()),
    SymbolicProof("telescoped_increments", "1/eta_{t+1} - 1/eta_t = 1/(eta (sqrt(t+1) + sqrt(t))) > 0 (eta_t = eta/sqrt(t))",
                  "rationalise: simplifies to 0; the right side is positive",
                  _identity(sp.sqrt(t + 1) / eta - sp.sqrt(t) / eta, 1 / (eta * (sp.sqrt(t + 1) + sp.sqrt(t))), eta=(0, None),
                            t=(1, None))),
    SymbolicProof("step_sum", "sum_{t<=n} t^(-1/2) <= 2 sqrt(n) - 1", "induction on n with the certificate "
                  "(2a^2+1)^2 - 4a^2(a^2+1) = 1, a = sqrt(n)", _step_sum()),
    SymbolicProof("theorem1_constants", "U^2/(2 eta) + 2U^2(sqrt(n)-1)/eta + 2 lam^2 U^2 eta (2 sqrt(n)-1) = sqrt(n) a - "
                  "(3U^2/(2 eta) + 2 lam^2 U^2 eta), a = 2 lam U^2 (2 eta lam + 1/(eta lam))", "simplifies to 0",
                  _identity(U**2 / (2 * eta) + 2 * U**2 * (s - 1) / eta + 2 * lam**2 * U**2 * eta * (2 * s - 1), s * _A - _SHARPENING,
                            U=(0, None), eta=(0, None), lam=(0, None), s=(1, None))),
    SymbolicProof("sharpening_gap", "b + (3U^2/(2 eta) + 2 lam^2 U^2 eta) = 2U^2(eta^2 lam^2 + 1)/eta > 0 (C18s is sharper than C18)",
                  "simplifies to 0", _identity(_B + _SHARPENING, 2 * U**2 * (eta**2 * lam**2 + 1) / eta, U=(0, None), eta=(0, None),
                                               lam=(0, None))),
    SymbolicProof("gradient_norm_hyp3", "2 kappa C_y <= lam U for lam >= 2 kappa^2 and U >= C_y/kappa (Hyp. 3; so ||G_t|| <= 2 lam U)",
                  "lam = 2 kappa^2 + s, U = C_y/kappa + v, s, v >= 0: the difference expands to non-negative terms",
                  _bound(2 * kappa * C_y, (2 * kappa**2 + s) * (C_y / kappa + v), kappa=(0, None), C_y=(0, None), s=(0, None),
                         v=(0, None))),
    SymbolicProof("theorem2_constants", "a + 16 rho lam U^2 = a2 (rho = eta lam): a/sqrt(n) + (2 lam U^2/n) 8 rho sqrt(n) = a2/sqrt(n)",
                  "simplifies to 0", _identity(_A + 16 * eta * lam * lam * U**2, _A2, U=(0, None), eta=(0, None), lam=(0, None))),
    SymbolicProof("post_update_step_size", "eta (kappa^2 + lam) < 3/2 for eta lam < 1 and lam > 2 kappa^2 (spec C19, Hyp. 3)",
                  "eta lam = 1/(1 + v), lam = 2 kappa^2 + s: 3/2 - eta (kappa^2 + lam) = (s + 6 kappa^2 v + 3 s v)/(2 (1+v)(2 kappa^2 + s))",
                  _bound((kappa**2 + 2 * kappa**2 + s) / ((1 + v) * (2 * kappa**2 + s)), sp.Rational(3, 2), strict=True,
                         kappa=(0, None), s=(0, None), v=(0, None))),
    SymbolicProof("eta_star_stationary", "d/d eta (a/sqrt(n) + b/n) = 0 at eta* = sqrt(2 + 1/(2 sqrt n))/(2 lam)",
                  "n = s^4: simplifies to 0 (spec 10)", _eta_star("stationary")),
    SymbolicProof("eta_star_minimum", "a/sqrt(n) + b/n at eta* = 2 sqrt2 lam U^2 sqrt(4 sqrt(n) + 1)/n^(3/4)",
                  "n = s^4: simplifies to 0 (spec 10)", _eta_star("minimum")),
    SymbolicProof("eta_star_convex", "d^2/d eta^2 (a/sqrt(n) + b/n) = U^2 (sqrt(n) + 4n)/(eta^3 n^(3/2)) > 0 for eta > 0",
                  "n = s^4: simplifies to 0; the right side is a product of positive terms", _eta_star("convex")),
    SymbolicProof("eta_star_admissible", "eta* lam < 1 for every n >= 1", "1 - (eta* lam)^2 = (2 - 1/(2 s^2))/4 > 0 with s = 1 + v",
                  _eta_star("admissible")),
    SymbolicProof("monorma_delta_normalised", "sum_j (delta^j_t)^r = 1 after the update, any m kernels, any r > 0",
                  "powers of positive symbols combined: simplifies to 0 (spec 6.3, C16)", _delta_normalised(1 / (r + 1))),
    SymbolicProof("monorma_copies", "m copies: delta_j = m^(-1/r) (spec 6.4)", "powers of positive symbols combined", _copies(-1 / r)),
    SymbolicProof("prop2_iv_tight_monotone", "sigma^2/(sigma^2 + lam)^2 <= kappa^2/(kappa^2 + lam)^2 for 0 <= sigma^2 <= kappa^2 <= lam",
                  "sigma^2 = s, kappa^2 = s + v, lam = kappa^2 + e: the difference factors into positive terms (spec C14 corrected)",
                  _tight_norm_monotone(lambda k: k)),
    SymbolicProof("psi_minus_phi", "Psi(n, rho) - Phi(n, rho) >= 9/4 for every n >= 1 and 0 < rho <= 1 (spec C19)",
                  "Psi - Phi written over S = sum t^(-1/2), C = sum c_t^+, H = H_n; their upper bounds (step_sum, 4 c_t^+ <= 2(1/rho - 1)"
                  "(sqrt(t+1) - sqrt t), H_n <= sqrt(n) + 1/8 by induction from n = 4); the rest is e (8e^2 + 9e + 2)/(4(1+e)^2) "
                  "+ 2 sqrt(n)(1 - rho^2) >= 0 with rho = 1/(1+e)", _psi_minus_phi()),
    SymbolicProof("monorma_delta_homogeneous", "delta update at (s delta_{t-1}): w -> s^2 w leaves delta_t unchanged, any m, r > 0 (spec 6.3, C16)",
                  "each term of the sum scales by s^(2r/(r+1)); powers of positive symbols combined", _delta_homogeneous(1 / (r + 1), r / (r + 1))),
    SymbolicProof("descent_expansion", "R_t(f - eta G) - R_t(f) = -eta ||G||^2 + (eta^2/2)(||G(x_t)||^2 + lam ||G||^2), squared loss, "
                  "G = K(., x_t)(f(x_t) - y_t) + lam f", "expand the quadratic; <e, G(x_t)> + lam <f, G> = ||G||^2: simplifies to 0",
                  _descent_expansion(eta**2 / 2 * (g2 + lam * B_))),
    SymbolicProof("batch_minimal_value", "(1/(2t))||G c - y||^2 + (lam/2) c^T G c = (lam/2) y^T c at c = (G + t lam I)^(-1) y (spec 7.1)",
                  "G c - y = -t lam c: simplifies to 0", _minimal_value(lam / 2)),
]}


#: a plausible mistake in each proved step, which sympy must refute (planted faults of the symbolic proofs)
WRONG_VARIANTS = {proof.name: proof for proof in [
    SymbolicProof("telescoping", "the new term shrunk too: S_{t+1} = (1 - e) S_t + e (1 - e)", "induction", _telescoping(1 - e)),
    SymbolicProof("prop2_induction_algebra", "2 kappa - lam/(2 kappa) in place of 2 kappa - lam/kappa", "simplifies to 0",
                  _identity((1 - eta * lam) * C_y / kappa + 2 * kappa * eta * C_y, C_y / kappa + eta * C_y * (2 * kappa - lam / (2 * kappa)),
                            eta=(0, None), lam=(0, None), C_y=(0, None), kappa=(0, None))),
    SymbolicProof("prop2_hypothesis3_sign", "lam > kappa^2 in place of lam > 2 kappa^2", "lam = kappa^2 + s",
                  _bound(eta * C_y * (2 * kappa - (kappa**2 + s) / kappa), 0, strict=True, eta=(0, None), C_y=(0, None),
                         kappa=(0, None), s=(0, None))),
    SymbolicProof("prop2_hypothesis3_norm", "2 kappa C_y / lam <= C_y / (2 kappa)", "lam = 2 kappa^2 + s",
                  _bound(2 * kappa * C_y / (2 * kappa**2 + s), C_y / (2 * kappa), C_y=(0, None), kappa=(0, None), s=(0, None))),
    SymbolicProof("prop2_iv_hence", "the paper's step for every lam > 0: C_y/sqrt(lam) <= 2 C_y/lam", "lam = x^2",
                  _bound(C_y / x, 2 * C_y / x**2, C_y=(0, None), x=(0, None))),
    SymbolicProof("prop2_iv_hypothesis3", "C_y / sqrt(lam) <= C_y / (2 kappa) for lam >= 2 kappa^2", "squares",
                  _bound(C_y**2 / (2 * kappa**2 + s), C_y**2 / (4 * kappa**2), C_y=(0, None), kappa=(0, None), s=(0, None))),
    SymbolicProof("prop1_iii_expansion", "(lam/2)(eps^2 - eps)||f||^2", "simplifies to 0",
                  _identity(lam / 2 * ((1 - eps) ** 2 - 1) * N**2, lam / 2 * (eps**2 - eps) * N**2, lam=(0, None), epsilon=(0, 1),
                            N=(0, None))),
    SymbolicProof("prop1_iii_coefficient", "the coefficient of eps read as C kappa N - lam N^2 / 2", "limit",
                  _limit_coefficient(C * kappa * N - lam * N**2 / 2)),
    SymbolicProof("sgd_identity", "eta ||G||^2 in place of (eta/2) ||G||^2", "bilinearity", _sgd_identity(half=1)),
    SymbolicProof("summation_by_parts", "the increments with the wrong sign, D_t (c_t - c_{t+1})", "induction",
                  _summation_by_parts(sign=-1)),
    SymbolicProof("telescoped_increments", "1/eta_{t+1} - 1/eta_t = 1/(2 eta sqrt(t)) (the derivative's value)", "simplifies to 0",
                  _identity(sp.sqrt(t + 1) / eta - sp.sqrt(t) / eta, 1 / (2 * eta * sp.sqrt(t)), eta=(0, None), t=(1, None))),
    SymbolicProof("step_sum", "sum_{t<=n} t^(-1/2) <= 2 sqrt(n) - 3/2", "induction", _step_sum(constant=sp.Rational(-3, 2))),
    SymbolicProof("theorem1_constants", "b = U^2/(2 eta) subtracted in place of the sharpening", "simplifies to 0",
                  _identity(U**2 / (2 * eta) + 2 * U**2 * (s - 1) / eta + 2 * lam**2 * U**2 * eta * (2 * s - 1), s * _A - _B,
                            U=(0, None), eta=(0, None), lam=(0, None), s=(1, None))),
    SymbolicProof("sharpening_gap", "the gap read as U^2 (eta^2 lam^2 + 1)/eta", "simplifies to 0",
                  _identity(_B + _SHARPENING, U**2 * (eta**2 * lam**2 + 1) / eta, U=(0, None), eta=(0, None), lam=(0, None))),
    SymbolicProof("gradient_norm_hyp3", "without Hyp. 3(iii): lam >= kappa^2 only", "lam = kappa^2 + s",
                  _bound(2 * kappa * C_y, (kappa**2 + s) * (C_y / kappa + v), kappa=(0, None), C_y=(0, None), s=(0, None, [0]),
                         v=(0, None, [0]))),
    SymbolicProof("theorem2_constants", "a + 8 rho lam U^2 = a2", "simplifies to 0",
                  _identity(_A + 8 * eta * lam * lam * U**2, _A2, U=(0, None), eta=(0, None), lam=(0, None))),
    SymbolicProof("post_update_step_size", "eta (kappa^2 + lam) < 1 (a step below 1/L, where the descent needs < 2/L)",
                  "eta lam = 1/(1 + v), lam = 2 kappa^2 + s",
                  _bound((kappa**2 + 2 * kappa**2 + s) / ((1 + v) * (2 * kappa**2 + s)), 1, strict=True, kappa=(0, None), s=(0, None),
                         v=(0, None))),
    SymbolicProof("eta_star_stationary", "eta* = sqrt(2 + 1/sqrt n)/(2 lam)", "n = s^4",
                  lambda: _wrong_eta_star(sp.sqrt(2 + 1 / s**2) / (2 * lam))),
    SymbolicProof("eta_star_minimum", "minimum 2 lam U^2 sqrt(4 sqrt(n) + 1)/n^(3/4)", "n = s^4",
                  _identity(_EXCESS.subs(eta, _ETA_STAR), 2 * lam * U**2 * sp.sqrt(4 * s**2 + 1) / s**3, lam=(0, None), U=(0, None),
                            s=(1, None))),
    SymbolicProof("eta_star_convex", "the second derivative with eta^2 in place of eta^3", "n = s^4", _eta_star("convex_wrong")),
    SymbolicProof("eta_star_admissible", "eta* = sqrt(2 + 1/(2 sqrt n))/lam (without the 1/2) is admissible", "squares",
                  _bound(sp.sqrt(2 + 1 / (2 * s**2)), 1, strict=True, s=(1, None))),
    SymbolicProof("monorma_delta_normalised", "the box's exponents read literally: w_j^((1/r) + 1)", "powers",
                  _delta_normalised(1 / r + 1)),
    SymbolicProof("monorma_copies", "m copies: delta_j = 1/m", "powers", _copies(-1)),
    SymbolicProof("prop2_iv_tight_monotone", "for every lam > 0 (without kappa^2 <= lam)", "sigma^2 = s, kappa^2 = s + v, lam = e",
                  _tight_norm_monotone(lambda k: 0)),
    SymbolicProof("psi_minus_phi", "Psi without its b/n part 1/(2 rho): (4 rho + 2/rho) sqrt(n) - Phi >= 9/4", "the same bounds",
                  _psi_minus_phi(b_term=False)),
    SymbolicProof("monorma_delta_homogeneous", "the box's exponents read literally, (1/r) + 1 and (r/r) + 1", "powers",
                  _delta_homogeneous(1 / r + 1, 2)),
    SymbolicProof("descent_expansion", "the curvature lam ||G||^2 only (the loss's ||G(x_t)||^2 forgotten)", "expand",
                  _descent_expansion(eta**2 / 2 * lam * B_)),
    SymbolicProof("batch_minimal_value", "R_reg(f_t, t) = lam y^T c (the 1/2 of (lam/2)||h||^2 lost)", "expand", _minimal_value(lam)),
]}


def _wrong_eta_star(star):
    relation = sp.diff(_EXCESS, eta).subs(eta, star)
    return relation, "zero", _domain(lam=(0, None), U=(0, None), s=(1, None)), [("zero", relation)]


# --- Theorem 2 for every (rho, eps): the lemmas of the closed-form t0 (docs/theorem2-certificate.md, "The formula") ---

omega, tau, T1, k_, Z_, K_ = sp.symbols("omega tau T1 k Z K", positive=True)
B_real = sp.Symbol("B", real=True)
_SYMBOLS.update({str(symbol): symbol for symbol in (omega, tau, T1, k_, Z_, K_, B_real)})


def _monotone_from(f, variable, point, right, left=None):
    """``f >= 0`` on the range of ``variable`` because ``f(point) = 0``, ``f' >= 0`` right of ``point`` (``variable =
    right(v)``, ``v > 0``) and ``f' <= 0`` left of it (``variable = left(v)``): obligations decided by sympy after the
    substitution (a transcendental inequality proved by the sign of its derivative)."""
    derivative = sp.diff(f, variable)
    obligations = [("zero", f.subs(variable, point)), ("nonnegative", sp.simplify(derivative.subs(variable, right(v))))]
    if left is not None:
        obligations.append(("nonnegative", sp.simplify(-derivative.subs(variable, left(v)))))
    return obligations


def _exponential_below(factor):
    """Lemma P: ``1 - x <= exp(-factor x)`` for ``x >= 0`` (factor 1: true; ``exp(-x) - 1 + x`` is 0 at 0 and its
    derivative ``1 - exp(-x)`` is ``v/(1+v) >= 0`` at ``x = ln(1+v)``)."""
    def build():
        f = sp.exp(-factor * x) - (1 - x)
        return f, "nonnegative", _domain(x=(0, None)), _monotone_from(f, x, 0, lambda u: sp.log(1 + u))
    return build


def _allowance(numerator):
    """Lemma A: ``numerator rho / sqrt(t) <= 8 rho (sqrt(t) - sqrt(t-1))`` for ``t >= 1`` (numerator 4): with ``a = sqrt(t-1)``,
    ``p = sqrt(a^2 + 1)``: ``8 (p - a) = 8/(p + a)`` and ``8/(p + a) - 4/p = 4/(p (p + a)^2) > 0``; ``t = 1``: ``8 - 4 >= 0``."""
    def build():
        relation = 8 * rho * (sp.sqrt(t) - sp.sqrt(t - 1)) - numerator * rho / sp.sqrt(t)
        p = sp.sqrt(a**2 + 1)
        rest = 4 / (p * (p + a) ** 2) - (numerator - 4) / p      # 8/(p+a) - numerator/p, with p - a = 1/(p+a)
        return relation, "nonnegative", _domain(t=(1, None, [2, 3]), rho=(0, 1)), [
            ("zero", 8 * (p - a) - 8 / (p + a)), ("zero", 8 / (p + a) - numerator / p - rest),
            ("nonnegative", rest), ("nonnegative", sp.Integer(8 - numerator))]
    return build


def _regime_early(power):
    """Lemma E: with ``t0 = K w^2/rho^2``, ``ln(sqrt((K-1) t0) exp(-rho sqrt(t0/K)) / (4 rho)) = ln w - w +
    ln(sqrt(K(K-1))/(4 rho^power))`` (power 2): the condition of the early drops is ``w - ln w >= ln(sqrt(K(K-1))/(4 rho^2))``."""
    def build():
        t0 = K_ * s**2 / rho**2
        left = sp.log(sp.sqrt((K_ - 1) * t0)) - rho * sp.sqrt(t0 / K_) - sp.log(4 * rho)
        right = sp.log(s) - s + sp.log(sp.sqrt(K_ * (K_ - 1)) / (4 * rho**power))
        relation = (left - right).subs(K_, 1 + v)
        return relation, "zero", _domain(s=(0, None), rho=(0, 1), v=(0, None)), [
            ("zero", sp.expand_log(sp.expand(relation), force=True))]
    return build


def _tangent_root(divided):
    """Lemma R: for ``z1 = A + v > A``, ``F = (B + A ln z1 - A)/(1 - A/z1)`` and ``Z = max(A, F) + s`` (``s >= 0``; so
    ``Z = F + u`` with ``u >= s >= 0``): ``Z - A ln Z >= B``. ``ln y <= y - 1`` (``f = y - 1 - ln y`` is 0 at 1, increasing
    right of 1, decreasing left of it) at ``y = Z/z1`` gives ``Z - A ln Z >= Z (1 - A/z1) - A ln z1 + A = B + u v/(A + v)
    >= B``."""
    def build():
        z1 = a + v        # a plays A
        F = (B_real + a * sp.log(z1) - a) / ((1 - a / z1) if divided else 1)
        Z = sp.Max(a, F) + s
        relation = Z - a * sp.log(Z) - B_real
        y, u = sp.Symbol("y", positive=True), sp.Symbol("u", positive=True)
        obligations = _monotone_from(y - 1 - sp.log(y), y, 1, lambda w_: 1 + w_, lambda w_: 1 / (1 + w_))
        obligations += [("zero", (F + u) * (1 - a / z1) - a * sp.log(z1) + a - B_real - u * v / (a + v)),
                        ("nonnegative", u * v / (a + v))]
        return relation.subs(s, sp.Rational(1, 3)), "nonnegative", _domain(a=(0, None, [3]), v=(0, None), B=(None, None, [-1, 5])), obligations
    return build


def _half_window(numerator):
    """Lemma W: ``t/K + t^beta <= t/2`` once ``Y = t^(1 - beta) >= 2K/(K - 2)`` (numerator 2), i.e. ``t >= W``:
    ``t/2 - t/K - t/Y = t ((K - 2)/(2K) - 1/Y)``, and with ``K = 2 + k``, ``Y = numerator K/(K - 2) + v`` the bracket is
    ``v k^2/(2 (2+k) (...))``-like: a positive fraction."""
    def build():
        K = 2 + k_
        Y = numerator * K / k_ + v
        relation = t / 2 - t / K - t / Y
        return relation, "nonnegative", _domain(k=(0, None, [2, 14]), v=(0, None), t=(1, None)), [
            ("nonnegative", sp.factor(sp.together(relation)))]
    return build


def _late_identity(decay):
    """Lemma L: ``D(t) = omega ln t + k - rho c' t^eps`` at ``t = T1 e^(-tau)``: ``D(T1) - omega tau + Z (1 - e^(-eps tau))``,
    ``Z = rho c' T1^eps`` (``c'`` is ``P`` here)."""
    def build():
        def D(point):
            return omega * sp.log(point) + k_ - rho * P * point**eps
        Z = rho * P * T1**eps
        relation = D(T1 * sp.exp(-tau)) - (D(T1) - omega * tau + Z * (1 - sp.exp(-decay * tau)))
        expanded = sp.powsimp(sp.expand_power_base(sp.expand_log(relation, force=True), force=True), force=True)
        sample = {omega: HALF, k_: sp.Rational(1, 3), rho: sp.Rational(1, 3), P: sp.Rational(2, 3)}   # the relation's check
        return relation.subs(sample), "zero", _domain(tau=(0, None), T1=(1, None), epsilon=(0, HALF)), [("zero", sp.simplify(expanded))]
    return build


def _T1_value(with_c_prime):
    """Lemma L: at ``T1 = (Z/(rho c'))^(1/eps)``, ``D(T1) = omega ln T1 + ln(g/(4 rho)) - Z = A ln Z + B - Z`` with
    ``A = omega/eps``, ``B = A ln(1/(rho c')) + ln(g/(4 rho))``: ``D(T1) <= 0`` is lemma R's ``Z - A ln Z >= B``."""
    def build():
        T = (Z_ / (rho * (P if with_c_prime else 1))) ** (1 / eps)
        A = omega / eps
        B = A * sp.log(1 / (rho * P)) + sp.log(x / (4 * rho))
        relation = omega * sp.log(T) + sp.log(x / (4 * rho)) - Z_ - (A * sp.log(Z_) + B - Z_)
        sample = {x: sp.sqrt(2), P: sp.Rational(2, 3), omega: HALF}                  # the relation's check at gamma = sqrt2
        return relation.subs(sample), "zero", _domain(Z=(0, None), rho=(0, 1), epsilon=(0, HALF)), [
            ("zero", sp.simplify(sp.expand_log(relation, force=True)))]
    return build


def _peak(bound):
    """``tau e^(-tau/2) <= 2/e`` for ``tau >= 0`` (bound 2/e): ``f = 2/e - tau e^(-tau/2)`` is 0 at 2, its derivative
    ``e^(-tau/2)(tau/2 - 1)`` is ``>= 0`` right of 2 and ``<= 0`` left of it (``tau = 2/(1+v)``)."""
    def build():
        f = bound - tau * sp.exp(-tau / 2)
        return f, "nonnegative", _domain(tau=(0, None, [2])), _monotone_from(f, tau, 2, lambda u: 2 + u, lambda u: 2 / (1 + u))
    return build


THEOREM2_FORMULA_PROOFS = [
    SymbolicProof("t2_exponential_below", "1 - x <= exp(-x) for x >= 0 (lemma P: P_{i,t} <= exp(-rho s_t/sqrt t); lemma L: "
                  "1 - e^(-eps tau) <= eps tau)", "0 at x = 0, derivative v/(1+v) >= 0 at x = ln(1+v)", _exponential_below(1)),
    SymbolicProof("t2_allowance", "4 rho/sqrt(t) <= 8 rho (sqrt(t) - sqrt(t-1)) for t >= 1 (lemma A: terms below it sum to at "
                  "most 8 rho sqrt(n))", "a = sqrt(t-1), p = sqrt(a^2+1): the difference is 4 rho/(p (p+a)^2)", _allowance(4)),
    SymbolicProof("t2_early", "t0 = K w^2/rho^2: ln(sqrt((K-1) t0) e^(-rho sqrt(t0/K))/(4 rho)) = ln w - w + ln(sqrt(K(K-1))/(4 rho^2)) "
                  "(lemma E)", "logarithms expanded: simplifies to 0", _regime_early(2)),
    SymbolicProof("t2_tangent_root", "Z >= (B + A ln z1 - A)/(1 - A/z1), z1 > A: Z - A ln Z >= B (lemma R)",
                  "ln y <= y - 1 (derivative signs about y = 1) at y = Z/z1; the rest is s v/(A + v) >= 0", _tangent_root(True)),
    SymbolicProof("t2_half_window", "t/K + t^beta <= t/2 when t^(1-beta) >= 2K/(K-2) (lemma W: s_t <= t/2 past max(K t0, W))",
                  "K = 2 + k, t^(1-beta) = 2K/k + v: a positive fraction", _half_window(2)),
    SymbolicProof("t2_late_identity", "D(T1 e^(-tau)) = D(T1) - omega tau + Z (1 - e^(-eps tau)), D(t) = omega ln t + k - rho c' t^eps, "
                  "Z = rho c' T1^eps (lemma L)", "logarithms and powers expanded: simplifies to 0", _late_identity(eps)),
    SymbolicProof("t2_T1", "T1 = (Z/(rho c'))^(1/eps): D(T1) = A ln Z + B - Z, A = omega/eps, B = A ln(1/(rho c')) + ln(gamma/(4 rho)) "
                  "(lemma L)", "logarithms expanded: simplifies to 0", _T1_value(True)),
    SymbolicProof("t2_peak", "tau e^(-tau/2) <= 2/e for tau >= 0 (lemma L)", "0 at tau = 2, derivative signs about 2",
                  _peak(2 * sp.exp(-1))),
]

THEOREM2_FORMULA_WRONG = [
    SymbolicProof("t2_exponential_below", "1 - x <= exp(-2x) (the exponent doubled)", "derivative", _exponential_below(2)),
    SymbolicProof("t2_allowance", "8 rho/sqrt(t) <= 8 rho (sqrt(t) - sqrt(t-1)) (the 1/2 of 1/(2 sqrt t) lost)", "radicals",
                  _allowance(8)),
    SymbolicProof("t2_early", "ln(sqrt(K(K-1))/(4 rho)) (rho^1 where t0 = K w^2/rho^2 gives rho^2)", "logarithms", _regime_early(1)),
    SymbolicProof("t2_tangent_root", "Z >= B + A ln z1 - A (the division by 1 - A/z1 forgotten)", "tangent", _tangent_root(False)),
    SymbolicProof("t2_half_window", "t^(1-beta) >= K/(K-2) (the 2 of 2K/(K-2) lost)", "fraction", _half_window(1)),
    SymbolicProof("t2_late_identity", "Z (1 - e^(-tau)) (the eps of the exponent lost)", "expanded", _late_identity(1)),
    SymbolicProof("t2_T1", "T1 = (Z/rho)^(1/eps) (c' forgotten)", "expanded", _T1_value(False)),
    SymbolicProof("t2_peak", "tau e^(-tau/2) <= 1/e", "derivative", _peak(sp.exp(-1))),
]

PROOFS.update({proof.name: proof for proof in THEOREM2_FORMULA_PROOFS})
WRONG_VARIANTS.update({proof.name: proof for proof in THEOREM2_FORMULA_WRONG})


#: wrong variants whose failure lies only near a boundary of their domain, which the grid of SAMPLES misses and
#: ``refute``'s boundary pass must find (tests/proofs/test_symbolic.py)
BOUNDARY_VARIANTS = {proof.name: proof for proof in [
    SymbolicProof("post_update_step_size", "eta (kappa^2 + lam) < 149/100 (a margin taken off 3/2): false only near eta lam -> 1 "
                  "and lam -> 2 kappa^2", "eta lam = 1/(1 + v), lam = 2 kappa^2 + s",
                  _bound((kappa**2 + 2 * kappa**2 + s) / ((1 + v) * (2 * kappa**2 + s)), sp.Rational(149, 100), strict=True,
                         kappa=(0, None), s=(0, None), v=(0, None))),
    SymbolicProof("prop2_iv_hence", "C_y / sqrt(lam) <= 2 C_y / lam for 0 < lam <= 401/100: false only for lam in (4, 4.01]",
                  "lam = x^2", _bound(C_y / x, 2 * C_y / x**2, C_y=(0, None), x=(0, sp.sqrt(sp.Rational(401, 100))))),
    SymbolicProof("t2_exponential_below", "1 - x <= exp(-(101/100) x) (the exponent 1 % too large): false only for x < 0.02",
                  "derivative", _exponential_below(sp.Rational(101, 100))),
]}
