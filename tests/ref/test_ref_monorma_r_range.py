"""MONORMA's usable range of r (``monorma.r_range``, ``monorma.check_r``; spec 6.3). Above the top ``delta_j^r``
magnifies the rounding error of ``delta_j`` r times, so at a multiprecision setting the top is inversely proportional
to the precision's unit roundoff ``2^-bits``; the range is closed, and an r outside it is refused naming the range,
the arithmetic, and the range of the other arithmetic."""
import mpmath
import pytest

import ovk_ref
from ovk_ref import tolerances
from ovk_ref.monorma import check_r, r_range


@pytest.mark.parametrize("m", [1, 2, 5])
def test_at_float64s_53_bits_the_top_is_float64s(m):
    """mpmath at 15 digits works with float64's 53-bit significand, hence float64's rounding and its top."""
    assert mpmath.libmp.dps_to_prec(15) == 53
    assert r_range(m, 15)[1] == r_range(m)[1] == tolerances.R_MAX_FLOAT64


@pytest.mark.parametrize("low, high", [(15, 16), (15, 30), (16, 50), (30, 50)])
def test_each_bit_of_precision_doubles_the_top(low, high):
    bits = mpmath.libmp.dps_to_prec(high) - mpmath.libmp.dps_to_prec(low)
    assert r_range(2, high)[1] == r_range(2, low)[1] * 2.0 ** bits


@pytest.mark.parametrize("m", [1, 2, 3])
@pytest.mark.parametrize("precision", [None, 50])
def test_both_ends_of_the_range_are_accepted(m, precision):
    """The range is closed: its ends are values the invariants were measured at (benchmarks/measure_r_range.py)."""
    low, high = r_range(m, precision)
    assert check_r(low, m, precision) == low and check_r(high, m, precision) == high


def test_a_multiprecision_run_accepts_what_float64_refuses():
    """At 50 digits the top is 2^116 times float64's: r = 1e30 is refused in float64, accepted at 50 digits."""
    with pytest.raises(ValueError, match="usable range"):
        check_r(1e30, 2)
    assert check_r(1e30, 2, 50) == 1e30


def _range(m, precision=None) -> str:
    low, high = r_range(m, precision)
    return f"[{low:.3g}, {high:.3g}]"


@pytest.mark.parametrize("r, m, precision, where, other", [
    (1e20, 2, None, "for 2 kernels in float64", f"with precision=50: {_range(2, 50)}"),
    (1e-9, 1, 50, "for 1 kernel in precision=50", f"in float64: {_range(1)}"),
])
def test_an_r_outside_the_range_names_the_range_the_arithmetic_and_the_other_one(r, m, precision, where, other):
    with pytest.raises(ValueError) as raised:
        check_r(r, m, precision)
    assert str(raised.value) == (f"r must lie in the usable range {_range(m, precision)} {where} ({other}), got {r!r}: "
                                 "outside it the delta update loses sum_j delta_j^r = 1 or its weights to rounding "
                                 "(spec 6.3)")


def test_monorma_checks_r_in_its_own_arithmetic():
    """MONORMA at 50 digits takes an r that float64 refuses (1e30), and refuses it in float64."""
    kernels = [ovk_ref.LinearQuadratic(1.0, 2), ovk_ref.gaussian_separable(1.0, 2)]
    assert ovk_ref.MONORMA(kernels, lam=0.1, eta=0.5, r=1e30, precision=50).r == 1e30
    with pytest.raises(ValueError, match=r"r must lie in the usable range \[0\.05, 1e\+03\] for 2 kernels in float64"):
        ovk_ref.MONORMA(kernels, lam=0.1, eta=0.5, r=1e30)
