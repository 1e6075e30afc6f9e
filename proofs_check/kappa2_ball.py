"""``kappa^2`` of a kernel on ``[0, 1]^p`` enclosed in a ball of FLINT's arb (ball arithmetic), for the float an instance
carries (Hypothesis 1; spec 3).

An instance's ``kappa2`` is the smallest float ``>= kappa^2`` (``constants.kappa2_ceiling``). ``constants.kappa2``
computes ``kappa^2`` with mpmath at 60 digits (eigenvalue problems by Jacobi iterations in Python: about 0.5 ms for
a 3 x 3 matrix, 1 ms for 4 x 4), once per kernel a search draws. ``ball(kernel, p)`` encloses the same number, by
the same formulas (the largest eigenvalue of ``B`` times the scalar kernel's sup for a separable kernel,
``p (mu d + (1 - mu) p)``, for a feature kernel the largest eigenvalue of the same 60-digit ``K(v, v)`` at the
contending vertices, weighted sums of these), with FLINT's rigorous eigenvalue enclosures (``acb_mat.eig``: about
40 us, 120 us for 4 x 4). ``certified_ceiling`` reads the float off the
ball when every number of the ball, widened by ``tolerances.KAPPA2_EXACT_PATH_ERROR``, has the same smallest float
``>=`` it, and returns None otherwise (a ball that straddles a float, as ``kappa^2 = 1`` exactly does; FLINT failing
to isolate an eigenvalue; python-flint not installed): the caller then takes the 60-digit path. Either way the
instance gets the same float.
"""
from __future__ import annotations

import contextlib
import functools
import math

import numpy as np
import sympy as sp

from ovk_ref.kernels import Feature, LinearQuadratic, Separable, WeightedSum
from proofs_check import tolerances

#: working precision of the balls (bits): kappa^2 to about 75 digits, far below KAPPA2_EXACT_PATH_ERROR
PRECISION_BITS = 256


def _flint():
    """python-flint, or None (an install without the extra ``proofs``: every kappa^2 then takes the 60-digit path)."""
    try:
        import flint
    except ImportError:   # pragma: no cover -- the test extra installs it; tests/claims make it unavailable by hand
        return None
    return flint


class Uncertified(ArithmeticError):
    """The ball cannot be computed (FLINT does not isolate the eigenvalues, or a value is not finite)."""


@functools.lru_cache(maxsize=None)
def _arb_function(expr: sp.Expr, names: tuple):
    """``expr`` (+, *, ** of symbols and rationals: the closed forms of ``constants``) as a function of arb numbers."""
    symbols = {symbol.name: symbol for symbol in expr.free_symbols}
    return sp.lambdify([symbols[name] for name in names], expr, modules=[{}])


def closed_form(flint, expr: sp.Expr, **values):
    """A closed form of ``constants`` at ``values`` (floats, exact in arb; ints kept as ints), as a ball."""
    names = tuple(sorted(symbol.name for symbol in expr.free_symbols))
    if not names:
        rational = sp.Rational(expr)
        return flint.arb(flint.fmpq(int(rational.p), int(rational.q)))
    arguments = [values[name] if isinstance(values[name], int) else flint.arb(float(values[name])) for name in names]
    return flint.arb(1) * _arb_function(expr, names)(*arguments)


def largest_eigenvalue(flint, rows):
    """A ball containing the largest eigenvalue of the real symmetric matrix ``rows`` (arb entries or floats)."""
    matrix = flint.acb_mat(flint.arb_mat(rows))
    try:
        eigenvalues = matrix.eig(multiple=True)
    except ValueError as error:   # FLINT could not isolate them at this precision
        raise Uncertified(str(error)) from None
    return largest([value.real for value in eigenvalues])


def largest(balls):
    """A ball containing the largest of the numbers in ``balls`` (from the largest lower and upper ends)."""
    ends = [(value.lower(), value.upper()) for value in balls]
    if not all(low.is_finite() and high.is_finite() for low, high in ends):
        raise Uncertified("an enclosure is not finite")
    low, high = ends[0]
    for other_low, other_high in ends[1:]:   # endpoints are exact numbers: their order is decided exactly
        low = other_low if other_low > low else low
        high = other_high if other_high > high else high
    return low.union(high)


def exact_ball(flint, value):
    """The float or mpf ``value`` as an exact arb number (an mpf is ``(-1)^sign man 2^exp``)."""
    if isinstance(value, float):
        if not math.isfinite(value):
            raise Uncertified(f"a K(v, v) entry is {value}")
        return flint.arb(value)
    sign, man, exp, _ = value._mpf_
    if not man and exp:   # mpmath's inf and nan have mantissa 0 and a non-zero special exponent
        raise Uncertified(f"a K(v, v) entry is {value}")
    return flint.arb((-man if sign else man, exp))   # the midpoint (man, exp) exactly, radius 0


def feature_ball(flint, blocks):
    """The largest eigenvalue over the 60-digit blocks ``K(v, v)`` (``constants.feature_blocks``: through the kernel's
    own code, so that a planted fault of ``ovk-check sensitivity`` reaches the ball as it reaches the 60-digit path).
    A block that is not exactly symmetric (a planted fault may make it so) is Uncertified: mpmath's symmetric
    eigensolver and FLINT's general one would not read it alike."""
    balls = []
    for block in blocks:
        rows = np.asarray(block, dtype=object).tolist()
        if any(rows[i][j] != rows[j][i] for i in range(len(rows)) for j in range(i)):
            raise Uncertified("K(v, v) is not exactly symmetric")
        balls.append(largest_eigenvalue(flint, [[exact_ball(flint, value) for value in row] for row in rows]))
    return largest(balls)


def ball(kernel, p: int, scalar_sup, linear_quadratic_kappa2, feature_blocks):
    """``kappa^2`` of ``kernel`` on ``[0, 1]^p`` as an arb ball, by ``constants.kappa2``'s formulas (its ``scalar_sup``,
    ``LINEAR_QUADRATIC_KAPPA2`` and ``feature_blocks`` are passed in, so that the two paths read the same definitions and
    the same 60-digit ``K(v, v)``). Raises ``Uncertified`` where FLINT gives no enclosure."""
    flint = _flint()
    if isinstance(kernel, Separable):
        scalar = kernel.scalar
        sup = closed_form(flint, scalar_sup(type(scalar)), **{"p": p, **scalar.params()})
        return sup * largest_eigenvalue(flint, np.asarray(kernel.B, dtype=float).tolist())
    if isinstance(kernel, LinearQuadratic):
        return closed_form(flint, linear_quadratic_kappa2, p=p, mu=kernel.mu, d=kernel.d)
    if isinstance(kernel, Feature):
        return feature_ball(flint, feature_blocks(kernel, p))
    if isinstance(kernel, WeightedSum):
        return sum((flint.arb(weight) * ball(term, p, scalar_sup, linear_quadratic_kappa2, feature_blocks)
                    for weight, term in kernel.terms), flint.arb(0))
    raise Uncertified(f"no ball for {type(kernel).__name__}: the 60-digit path")


def ceiling(flint, value) -> float:
    """The smallest float ``>=`` the exact arb number ``value`` (a ball's endpoint)."""
    candidate = float(value.mid())
    if not math.isfinite(candidate):
        raise Uncertified(f"kappa^2 bound {value} is not a finite float")
    while flint.arb(candidate) < value:
        candidate = math.nextafter(candidate, math.inf)
    below = math.nextafter(candidate, -math.inf)
    while flint.arb(below) >= value:
        candidate, below = below, math.nextafter(below, -math.inf)
    return candidate


@contextlib.contextmanager
def _precision(flint):
    saved = flint.ctx.prec
    flint.ctx.prec = PRECISION_BITS
    try:
        yield
    finally:
        flint.ctx.prec = saved


def certified_ceiling(kernel, p: int, scalar_sup, linear_quadratic_kappa2, feature_blocks) -> float | None:
    """The smallest float ``>= kappa^2``, read off the ball when every number within ``KAPPA2_EXACT_PATH_ERROR``
    (relative) of it has the same one, hence also the 60-digit value of ``constants.kappa2``; None otherwise."""
    flint = _flint()
    if flint is None:
        return None
    with _precision(flint):
        try:
            enclosure = ball(kernel, p, scalar_sup, linear_quadratic_kappa2, feature_blocks)
        except Uncertified:
            return None
        if not enclosure.is_finite() or not enclosure > 0:
            return None
        widen = flint.arb(tolerances.KAPPA2_EXACT_PATH_ERROR)
        lower, upper = (enclosure * (1 - widen)).lower(), (enclosure * (1 + widen)).upper()
        try:
            low, high = ceiling(flint, lower), ceiling(flint, upper)
        except Uncertified:
            return None
        return low if low == high else None
