"""Input checks, run before any work.

Every failure is a ValueError or TypeError whose message names the parameter and the rule it breaks.
"""
from __future__ import annotations

import math
import numbers
import reprlib

import numpy as np

from ovk_ref import tolerances

_SHORT = reprlib.Repr()
_SHORT.maxlevel, _SHORT.maxstring, _SHORT.maxother = 3, 60, 60


def shown(value) -> str:
    """A short repr of a user's value for an error message, bounded in length and nesting depth (the repr of a
    list nested 100000 deep would raise RecursionError)."""
    return _SHORT.repr(value)


def real_number(name: str, value) -> float:
    """``value`` as a finite float; TypeError for non-numbers (bools included), ValueError for inf/nan."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__} {shown(value)}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {shown(value)}")
    return value


def positive(name: str, value) -> float:
    value = real_number(name, value)
    if value <= 0:
        raise ValueError(f"{name} must be > 0, got {value!r}")
    return value


def non_negative(name: str, value) -> float:
    value = real_number(name, value)
    if value < 0:
        raise ValueError(f"{name} must be >= 0, got {value!r}")
    return value


def integer(name: str, value, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int, got {type(value).__name__} {shown(value)}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value!r}")
    return int(value)


def step_parameters(lam, eta) -> tuple[float, float]:
    """``lam > 0``, ``eta > 0`` and ``eta * lam < 1`` (spec 1: then ``0 < 1 - eta_t lam < 1`` for all t)."""
    lam = positive("lam", lam)
    eta = positive("eta", eta)
    if eta * lam >= 1:
        raise ValueError(f"eta*lam must be < 1 (spec 1, shrink factor 1 - eta_t*lam > 0), got eta*lam = {eta * lam!r}")
    return lam, eta


def real_array(name: str, values) -> np.ndarray:
    """``values`` as a float64 array; TypeError unless every entry is a real number.

    Complex numbers, strings, bytes and other objects are refused rather than converted (numpy would drop
    an imaginary part or parse ``"1.5"`` as a number)."""
    try:
        array = np.asarray(values)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{name} must be a rectangular array of real numbers ({error})") from None
    if array.dtype.kind == "O":
        wrong = [entry for entry in array.flat if not isinstance(entry, numbers.Real)][:1]
        if wrong:
            wrong = wrong[0]
            raise TypeError(f"{name} must be an array of real numbers, got an entry of type {type(wrong).__name__}: {shown(wrong)}")
    elif array.dtype.kind not in "biuf":
        kind = "complex numbers" if array.dtype.kind == "c" else f"dtype {array.dtype}"
        raise TypeError(f"{name} must be an array of real numbers, got {kind}")
    try:
        return array.astype(float)
    except OverflowError:
        raise ValueError(f"{name} must be finite (an entry is beyond the float64 range)") from None


def finite_matrix(name: str, values, ndim: int = 2) -> np.ndarray:
    """``values`` as a finite float64 array with ``ndim`` dimensions."""
    array = real_array(name, values)
    if array.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-dimensional, got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    return array


def symmetric_psd(name: str, matrix) -> np.ndarray:
    """A square, symmetric, positive semi-definite float matrix (spec 2.2: the output operator B)."""
    matrix = finite_matrix(name, matrix)
    if matrix.shape[0] != matrix.shape[1] or matrix.shape[0] == 0:
        raise ValueError(f"{name} must be a non-empty square matrix, got shape {matrix.shape}")
    scale = float(np.max(np.abs(matrix)))   # the tolerances are relative to B's own scale (a tiny B is no safer)
    if not np.allclose(matrix, matrix.T, rtol=0, atol=tolerances.SYMMETRY * scale):
        raise ValueError(f"{name} must be symmetric (B == B.T), got max |B - B.T| = {np.max(np.abs(matrix - matrix.T))!r}")
    smallest = float(np.linalg.eigvalsh(matrix).min())
    if smallest < -tolerances.PSD_EIGENVALUE * scale:
        raise ValueError(f"{name} must be positive semi-definite, got smallest eigenvalue {smallest!r}")
    return matrix


def stream(X, Y, kernel) -> tuple[np.ndarray, np.ndarray]:
    """Inputs (t x p) and targets (t x d) of a stream for ``kernel`` (spec 1: Y = R^d)."""
    X = finite_matrix("X", X)
    Y = finite_matrix("Y", Y)
    if X.shape[0] != Y.shape[0]:
        raise ValueError(f"X and Y must have the same number of rows, got {X.shape[0]} and {Y.shape[0]}")
    if X.shape[0] == 0:
        raise ValueError("X must have at least one row")
    if Y.shape[1] != kernel.d:
        raise ValueError(f"Y must have the kernel's output dimension d = {kernel.d} columns, got {Y.shape[1]}")
    if kernel.p is not None and X.shape[1] != kernel.p:
        raise ValueError(f"X must have the kernel's input dimension p = {kernel.p} columns, got {X.shape[1]}")
    return X, Y


def point(name: str, x, learner) -> np.ndarray:
    """One input of a stream: length ``learner.p`` (the kernel's input dimension, or the first example's)."""
    x = finite_matrix(name, x, ndim=1)
    if learner.p is not None and x.shape[0] != learner.p:
        raise ValueError(f"{name} must have the input dimension p = {learner.p} (the kernel's, or the first "
                         f"example's), got length {x.shape[0]}")
    return x


def target(name: str, y, kernel) -> np.ndarray:
    y = finite_matrix(name, y, ndim=1)
    if y.shape[0] != kernel.d:
        raise ValueError(f"{name} must have the kernel's output dimension d = {kernel.d}, got {y.shape[0]}")
    return y
