"""Float64 or mpmath arithmetic for the same literal code.

`Arithmetic(None)` is plain float64; `Arithmetic(50)` works with mpmath numbers at 50 decimal
digits, stored in numpy arrays of dtype ``object`` so that the algorithm code (``+``, ``*``, ``@``)
reads the same in both modes. Only the transcendental functions and linear solves dispatch on type.

A product of an array and a number is written ``array * number``: ``mpf * array`` first tries mpmath's own
multiplication, which fails only after building the message of the TypeError it then discards from the repr of the
whole array, every entry printed at full precision (140 us against 12 us for a 4 x 4 array at 50 digits; a 50-digit
recheck of a claim makes thousands). Both orders give the same numbers (each product is rounded once).
"""
from __future__ import annotations

import contextlib

import mpmath
import numpy as np

from ovk_ref import tolerances


def is_multiprecision(values) -> bool:
    """True when ``values`` holds mpmath numbers (an object array or an ``mpf``)."""
    if isinstance(values, np.ndarray):
        return values.dtype == object
    return isinstance(values, mpmath.mpf)


#: the mpf of each float converted so far (``mpf_array``); emptied when it reaches ``_MPF_CACHE_SIZE`` entries
_MPF_OF: dict = {}
_MPF_CACHE_SIZE = 1 << 16


def _mpf(value: float):
    """``mpmath.mpf(value)`` of a float, remembered: a 50-digit recheck lifts the same kernel parameters and
    points into mpf at every kernel evaluation (thousands per instance), and a float is read exactly at any working
    precision of 53 bits or more, so the remembered number is the one ``mpmath.mpf`` would make."""
    if mpmath.mp.prec < 53:   # below float64's precision mpf(value) rounds: nothing to remember
        return mpmath.mpf(value)
    number = _MPF_OF.get(value)
    if number is None:
        if len(_MPF_OF) >= _MPF_CACHE_SIZE:
            _MPF_OF.clear()
        number = _MPF_OF[value] = mpmath.mpf(value)
    return number


def mpf_array(values: np.ndarray) -> np.ndarray:
    """An object array of the mpf numbers of an array's entries (exact for floats and small ints)."""
    numbers = np.empty(values.size, dtype=object)
    convert = _mpf if values.dtype.kind == "f" else mpmath.mpf
    numbers[:] = [convert(value) for value in values.ravel().tolist()]
    return numbers.reshape(values.shape)


def lift(values, reference):
    """``values`` converted to the number type of ``reference`` (float64 array or mpf array)."""
    values = np.asarray(values)
    if is_multiprecision(reference) and values.dtype != object:
        return mpf_array(values) if values.ndim else _mpf(float(values))
    return values


def _elementwise(float_fn, mp_fn, values):
    if isinstance(values, np.ndarray) and values.dtype == object:
        return np.array([mp_fn(v) for v in values.flat], dtype=object).reshape(values.shape)
    if isinstance(values, mpmath.mpf):
        return mp_fn(values)
    return float_fn(values)


def exp(values):
    return _elementwise(np.exp, mpmath.exp, values)


def log(values):
    return _elementwise(np.log, mpmath.log, values)


def sqrt(values):
    return _elementwise(np.sqrt, mpmath.sqrt, values)


def power(values, exponent):
    """``values ** exponent`` for non-negative ``values`` (mpmath keeps full precision)."""
    return _elementwise(lambda v: np.power(v, exponent), lambda v: mpmath.power(v, exponent), values)


class Arithmetic:
    """The number system of one run: float64 (``precision=None``) or mpmath with ``precision`` digits."""

    def __init__(self, precision: int | None = None):
        if precision is not None:
            if isinstance(precision, bool) or not isinstance(precision, int):
                raise TypeError(f"precision must be None or an int number of decimal digits, got {precision!r}")
            if precision < 16:
                raise ValueError(f"precision must be at least 16 decimal digits (float64 is ~16), got {precision}")
        self.precision = precision

    @property
    def multiprecision(self) -> bool:
        return self.precision is not None

    def context(self):
        """Context in which every operation of the run happens (mpmath's working precision)."""
        return mpmath.workdps(self.precision) if self.multiprecision else contextlib.nullcontext()

    def array(self, values) -> np.ndarray:
        """``values`` as a float64 array, or an object array of mpf (exact conversion of each float)."""
        values = np.asarray(values, dtype=float)
        if not self.multiprecision:
            return values.copy()
        return mpf_array(values) if values.size else values.astype(object)

    def zeros(self, shape) -> np.ndarray:
        return self.array(np.zeros(shape))

    def scalar(self, value):
        return mpmath.mpf(value) if self.multiprecision else float(value)

    def solve(self, matrix: np.ndarray, rhs: np.ndarray) -> np.ndarray:
        """Solution of ``matrix @ x = rhs`` (LU; mpmath's at the run's precision)."""
        if not self.multiprecision:
            return np.linalg.solve(matrix, rhs)
        solution = mpmath.lu_solve(mpmath.matrix(matrix.tolist()), mpmath.matrix(rhs.tolist()))
        return np.array([solution[i] for i in range(len(rhs))], dtype=object)


    def project(self, matrix: np.ndarray, rhs: np.ndarray) -> np.ndarray:
        """The least-norm solution of ``matrix @ x = rhs`` for a symmetric PSD ``matrix`` (a Gram matrix) and ``rhs`` in
        its range: ``sum over eigenpairs (l, u) with l > PROJECTION_EIGENVALUE l_max of (u . rhs / l) u`` (numpy's
        ``eigh``; mpmath's ``eigsy`` at the run's precision). The normal equations of a projection onto a span."""
        if not len(rhs):
            return rhs.copy()
        if self.multiprecision:
            values, vectors = mpmath.eigsy(mpmath.matrix(matrix.tolist()))
            values = np.array([values[i] for i in range(len(rhs))], dtype=object)
            vectors = np.array(vectors.tolist(), dtype=object)
        else:
            values, vectors = np.linalg.eigh(matrix)
        floor = tolerances.PROJECTION_EIGENVALUE * max(max(values), 0 * values[0])
        solution = self.zeros(len(rhs))
        for index, value in enumerate(values):
            if value > floor:
                solution = solution + vectors[:, index] * (np.dot(vectors[:, index], rhs) / value)
        return solution


def finite_entries(values) -> np.ndarray:
    """Entrywise ``isfinite`` of a float64 or mpf array (or number), as a bool array."""
    values = np.asarray(values)
    if values.dtype == object:
        return np.array([bool(mpmath.isfinite(v)) for v in values.flat], dtype=bool).reshape(values.shape)
    return np.isfinite(values)


def to_float(values) -> np.ndarray:
    """float64 copy of an array of floats or mpf numbers."""
    if isinstance(values, np.ndarray) and values.dtype == object:
        return np.array([float(v) for v in values.flat], dtype=float).reshape(values.shape)
    if isinstance(values, mpmath.mpf):
        return np.float64(float(values))
    return np.asarray(values, dtype=float)

