"""Helpers shared by the tests/ref files: explicit spec formulas written independently of ovk_ref's loops."""
import numpy as np
from shared.closeness import assert_close

from ovk_ref import tolerances


def gram_norm2(kernel, X, coefficients) -> float:
    """``||sum_i K(., x_i) a_i||^2 = sum_{i,j} <K(x_i, x_j) a_j, a_i>`` as a double loop (spec 2.3)."""
    return sum(coefficients[i] @ kernel(X[i], X[j]) @ coefficients[j]
               for i in range(len(X)) for j in range(len(X)))


def gram_norm2_scale(kernel, X, coefficients) -> float:
    """``sum_{i,j} |a_i|_1 |K(x_i, x_j)|_1 |a_j|_1`` (entrywise sums, no squares that could underflow): an upper
    bound on the size of the terms of ``gram_norm2``, the scale of its round-off."""
    sizes = np.abs(coefficients).sum(axis=1)
    return sum(sizes[i] * np.abs(kernel(X[i], X[j])).sum() * sizes[j] for i in range(len(X)) for j in range(len(X)))


def step_sizes(eta, n) -> np.ndarray:
    """``eta_t = eta / sqrt(t)`` for t = 1..n (spec 1)."""
    return eta / np.sqrt(np.arange(1, n + 1))


def shrink_products(eta, lam, n) -> np.ndarray:
    """``P[i-1] = P_{i,n} = prod_{k=i+1}^{n} (1 - eta_k lam)`` (spec 5.2)."""
    factors = 1 - step_sizes(eta, n) * lam
    return np.array([np.prod(factors[i:]) for i in range(1, n + 1)])


def assert_rounds_close(actual, expected, what: str, scale=None) -> None:
    """Row t of ``actual`` equals row t of ``expected`` up to ``IDENTITY_RTOL * scale[t] + UNDERFLOW_ATOL``
    (``tolerances.ROUNDS``).

    ``scale[t]`` is the size of the terms summed to get row t (round-off is relative to it, not to a sum
    that cancels); by default the largest entry of rows 1..t, since online runs may grow (spec E30)."""
    actual, expected = np.asarray(actual, dtype=float), np.asarray(expected, dtype=float)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    actual, expected = actual.reshape(len(expected), -1), expected.reshape(len(expected), -1)
    if scale is None:
        scale = np.maximum.accumulate(np.maximum(np.abs(expected).max(axis=1), np.abs(actual).max(axis=1)))
    assert_close(actual, expected, tolerances.ROUNDS, scale=np.asarray(scale, dtype=float), what=what)
