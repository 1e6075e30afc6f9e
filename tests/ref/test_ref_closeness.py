"""``ovk_ref.closeness``: the one comparison of two computations of the same numbers. With a per-entry scale it is
numpy's ``assert_allclose`` rule (|a - d| <= atol + rtol |d|, nan equal to nan); a per-row scale applies to its row;
the default scale is the field's max |desired|; a non-finite entry agrees only with the same non-finite entry.
Planted wrong comparisons (a NaN let through, each entry relative to itself) are told apart."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from shared.closeness import IDENTITY_OF_SCALE, assert_close

from ovk_ref import closeness, tolerances
from ovk_ref.closeness import ToleranceClass

FINITE = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)
ANY = st.one_of(FINITE, st.sampled_from([np.nan, np.inf, -np.inf]))
CLASS = ToleranceClass("test", 1e-3, 1e-9, "a test class")


def close(actual, desired, tolerance_class=CLASS, scale=None) -> bool:
    try:
        assert_close(actual, desired, tolerance_class, scale=scale)
    except AssertionError:
        return False
    return True


def numpy_close(actual, desired, rtol, atol) -> bool:
    try:
        np.testing.assert_allclose(actual, desired, rtol=rtol, atol=atol)
    except AssertionError:
        return False
    return True


@given(desired=hnp.arrays(float, st.tuples(st.integers(1, 5), st.integers(1, 3)), elements=ANY),
       noise=st.lists(st.sampled_from([0.0, 1e-12, 1e-4, 1e-2, np.nan, np.inf]), min_size=15, max_size=15))
def test_a_per_entry_scale_is_numpys_assert_allclose_rule(desired, noise):
    with np.errstate(invalid="ignore"):
        actual = desired + np.resize(np.array(noise), desired.shape) * np.where(np.isfinite(desired), desired, 1.0)
    assert close(actual, desired, scale=np.abs(desired)) == numpy_close(actual, desired, CLASS.rtol, CLASS.atol)


@given(rows=hnp.arrays(float, st.tuples(st.integers(1, 6), st.integers(1, 3)), elements=FINITE),
       row=st.integers(0, 5), factor=st.sampled_from([0.5, 2.0]))
def test_a_per_row_scale_applies_to_its_row(rows, row, factor):
    row %= len(rows)
    scale = np.arange(1.0, len(rows) + 1)
    allowed = CLASS.rtol * scale[row] + CLASS.atol
    actual = rows.copy()
    actual[row, 0] += factor * allowed
    assert close(actual, rows, scale=scale) == (factor < 1 or abs(actual[row, 0] - rows[row, 0]) <= allowed)


def test_the_default_scale_is_the_largest_finite_entry_of_desired():
    desired = np.array([[1000.0], [1.0], [np.inf]])
    actual = desired + np.array([[0.0], [0.9], [0.0]])      # 0.9 <= 1e-3 x 1000 + 1e-9
    assert close(actual, desired) and not close(actual + np.array([[0.0], [0.2], [0.0]]), desired)


@pytest.mark.parametrize("actual, desired, same", [
    ([np.nan], [np.nan], True), ([np.inf], [np.inf], True), ([-np.inf], [np.inf], False),
    ([np.nan], [1.0], False), ([1.0], [np.nan], False), ([np.inf], [1.0], False), ([1.0], [np.inf], False),
])
def test_non_finite_entries_agree_only_with_the_same_non_finite_entry(actual, desired, same):
    assert close(np.array(actual), np.array(desired)) == same


def test_the_message_names_the_first_differing_row_the_error_and_the_class():
    desired = np.zeros((4, 2))
    actual = desired.copy()
    actual[2, 1] = actual[3, 0] = 1.0
    with pytest.raises(AssertionError, match=r"^rounds: 2 row\(s\) differ, the first at row 3 .* test tolerance"):
        assert_close(actual, desired, CLASS, what="rounds")
    with pytest.raises(AssertionError, match="shape"):
        assert_close(np.zeros(3), np.zeros(4), CLASS)


def test_the_classes_keep_their_values():
    assert (tolerances.IDENTITY.rtol, tolerances.IDENTITY.atol) == (tolerances.IDENTITY_RTOL, tolerances.IDENTITY_ATOL)
    assert (IDENTITY_OF_SCALE.rtol, IDENTITY_OF_SCALE.atol) == (tolerances.IDENTITY_RTOL, 0.0)
    assert (tolerances.ROUNDS.rtol, tolerances.ROUNDS.atol) == (tolerances.IDENTITY_RTOL, tolerances.UNDERFLOW_ATOL)


# --- planted wrong comparisons: each decides one of these pairs otherwise than assert_close -----------------------

def lets_nan_through(actual, desired, tolerance_class, scale=None):
    """``error > allowed`` (False for nan) instead of ``not error <= allowed``."""
    error = np.abs(np.asarray(actual, float) - np.asarray(desired, float))
    assert not (error > tolerance_class.allowed(closeness.field_scale(desired) if scale is None else scale)).any()


def relative_to_each_entry(actual, desired, tolerance_class, scale=None):
    """Each entry against itself: an entry that cancels (small beside the field) fails on round-off."""
    assert_close(actual, desired, tolerance_class, scale=np.abs(desired) if scale is None else scale)


@pytest.mark.parametrize("planted, actual, desired", [
    (lets_nan_through, [np.nan], [1.0]),
    (relative_to_each_entry, [[1000.0], [1.5]], [[1000.0], [1.0]]),
], ids=["lets NaN through", "relative to each entry"])
def test_a_planted_wrong_comparison_is_told_apart(planted, actual, desired):
    actual, desired = np.array(actual), np.array(desired)
    try:
        planted(actual, desired, CLASS)
        planted_says_close = True
    except AssertionError:
        planted_says_close = False
    assert close(actual, desired) != planted_says_close
