"""Truncation schedules (spec 5.1 step 4, 5.3): Theorem 2's parameters are checked with a message naming them and
the rule, every s_t of the stream (t = 1..n, and only those) is checked before any kernel evaluation."""
import re

import mpmath
import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from test_ref_bad_input import CountingKernel

import ovk_ref
from ovk_ref import tolerances, truncation

X = np.array([[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]])
Y = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])


@pytest.mark.parametrize("t0, epsilon, error_type, message", [
    (0, 0.25, ValueError, "t0 must be >= 1, got 0"),
    (1.5, 0.25, TypeError, "t0 must be an int"),
    (1, "0.25", TypeError, "epsilon must be a real number"),
    (1, 0.0, ValueError, "epsilon must lie in (0, 1/2) (Theorem 2), got 0.0"),
    (1, -0.25, ValueError, "epsilon must lie in (0, 1/2) (Theorem 2), got -0.25"),
    (1, 0.5, ValueError, "epsilon must lie in (0, 1/2) (Theorem 2), got 0.5"),
    (1, 1.0, ValueError, "epsilon must lie in (0, 1/2) (Theorem 2), got 1.0"),
])
def test_theorem2_schedule_parameters_outside_their_range_are_rejected(t0, epsilon, error_type, message):
    with pytest.raises(error_type, match="^" + re.escape(message)):
        ovk_ref.theorem2_schedule(t0, epsilon)


def test_theorem2_schedule_accepts_epsilon_just_inside_its_range():
    """0 < epsilon < 1/2 is open at both ends, nothing more: s_t <= t for epsilon close to either end."""
    for epsilon in (1e-9, 0.5 - 1e-9):
        schedule = ovk_ref.theorem2_schedule(2, epsilon)
        assert all(1 <= schedule(t) <= t for t in range(1, 50))


def test_a_bad_first_window_is_rejected_before_any_kernel_evaluation():
    """s_1 = 0 would drop the first coefficient (spec 5.1): rejected before round 1, which evaluates K(x_1, x_1)."""
    kernel = CountingKernel()
    with pytest.raises(ValueError, match="^" + re.escape("truncation(1) must be >= 1, got 0")):
        ovk_ref.onorma(X, Y, kernel, lam=0.1, eta=0.5, truncation=lambda t: 0 if t == 1 else 1)
    assert kernel.calls == 0


def test_only_the_windows_of_the_stream_are_checked():
    """A schedule is a function of the rounds 1..n that happen; its value at n + 1 is never used."""
    n = len(X)
    record = ovk_ref.onorma(X, Y, CountingKernel(), lam=0.1, eta=0.5, truncation=lambda t: 2 if t <= n else 0)
    assert list(record.support_sizes) == [1, 2, 2]


def _floor_power_at_50_digits(base: int, epsilon: str) -> int:
    with mpmath.workdps(tolerances.SCHEDULE_DIGITS):
        return int(mpmath.floor(mpmath.power(base, mpmath.mpf(1) / 2 + mpmath.mpf(epsilon)) + tolerances.SCHEDULE_INTEGER_SNAP))


@given(st.integers(1, 10**12), st.floats(1e-6, 0.5, exclude_max=True))
@example(32, 0.1)                 # 32^0.6 = 8 exactly; float64 gives 7.999...
@example(10**10, 0.25)            # 10^7.5: far from an integer
@example(2**40, 0.125)            # 2^25 exactly
def test_the_schedule_floor_read_off_float64_is_the_50_digit_one(base, epsilon):
    """``floor_power`` takes the float64 power's floor only where it is farther than SCHEDULE_FLOAT_GUARD from every
    integer: the same floor as the SCHEDULE_DIGITS evaluation, exact powers included."""
    truncation.floor_power.cache_clear()
    assert truncation.floor_power(base, repr(epsilon)) == _floor_power_at_50_digits(base, repr(epsilon))
