"""The top of MONORMA's usable r at a multiprecision setting scales with the unit roundoff (``monorma.r_range``, spec
6.3): above it ``delta_j^r`` magnifies the rounding error of ``delta_j`` r times, so the top is inversely proportional
to the precision's unit roundoff ``2^-bits``."""
import mpmath
import pytest

from ovk_ref import tolerances
from ovk_ref.monorma import r_range


@pytest.mark.parametrize("m", [1, 2, 5])
def test_at_float64s_53_bits_the_top_is_float64s(m):
    """mpmath at 15 digits works with float64's 53-bit significand, hence float64's rounding and its top."""
    assert mpmath.libmp.dps_to_prec(15) == 53
    assert r_range(m, 15)[1] == r_range(m)[1] == tolerances.R_MAX_FLOAT64


@pytest.mark.parametrize("low, high", [(15, 16), (15, 30), (16, 50), (30, 50)])
def test_each_bit_of_precision_doubles_the_top(low, high):
    bits = mpmath.libmp.dps_to_prec(high) - mpmath.libmp.dps_to_prec(low)
    assert r_range(2, high)[1] == r_range(2, low)[1] * 2.0 ** bits
