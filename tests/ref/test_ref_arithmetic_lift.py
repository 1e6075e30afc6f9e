"""``arithmetic.lift`` remembers the mpf of each float it converts (ovk_ref.arithmetic._mpf): the numbers must be those
``mpmath.mpf`` makes at the working precision, whatever was converted before and at which precision."""
import mpmath
import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from ovk_ref import arithmetic

FLOATS = st.floats(allow_nan=False, allow_infinity=False)


@given(st.lists(FLOATS, min_size=1, max_size=8), st.sampled_from([16, 30, 50, 80]))
def test_a_lifted_array_holds_the_exact_mpf_of_every_entry(values, digits):
    with mpmath.workdps(digits):
        reference = arithmetic.Arithmetic(digits).zeros(1)
        for _ in range(2):   # the second time from the remembered numbers
            lifted = arithmetic.lift(np.array(values), reference)
            assert lifted.dtype == object
            assert [number._mpf_ for number in lifted] == [mpmath.mpf(value)._mpf_ for value in values]


def test_below_float64s_precision_a_float_is_rounded_not_read_from_what_was_remembered():
    value = 0.1
    with mpmath.workdps(50):
        exact = arithmetic.lift(np.array([value]), mpmath.mpf(1))[0]
    with mpmath.workprec(20):   # 20 bits: mpmath.mpf(0.1) rounds
        rounded = arithmetic.lift(np.array([value]), mpmath.mpf(1))[0]
        assert rounded == mpmath.mpf(value) and rounded != exact
    assert arithmetic.lift(np.float64(value), mpmath.mpf(1)) == exact


def test_int_arrays_and_scalars_are_lifted_exactly():
    reference = mpmath.mpf(1)
    assert list(arithmetic.lift(np.arange(3), reference)) == [0, 1, 2]
    assert arithmetic.lift(2.5, reference) == mpmath.mpf("2.5")
    assert arithmetic.lift(np.array([1.0]), np.zeros(1)).dtype == float   # a float64 reference: left as it is
