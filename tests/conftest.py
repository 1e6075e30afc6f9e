"""Test configuration: the Hypothesis profile (HYPOTHESIS_PROFILE, or ci when CI is set) and mpmath hygiene."""
import mpmath
import pytest

from proofs_check import profiles

PROFILE = profiles.load()


def pytest_report_header(config):
    return f"hypothesis profile: {PROFILE} (set {profiles.ENVIRONMENT_VARIABLE}=dev|ci|thorough)"


@pytest.fixture(autouse=True)
def reset_mpmath_precision():
    """mpmath's precision is global state: restore it after every test."""
    precision = mpmath.mp.prec
    yield
    mpmath.mp.prec = precision
