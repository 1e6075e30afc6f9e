"""What every operator-valued kernel offers (spec 1, 2.1)."""
from __future__ import annotations

import numpy as np


class OperatorKernel:
    """``K(x, z)``: a d x d matrix; a function is ``f(x) = sum_i K(x, x_i) a_i`` (spec 1, E3).

    Subclasses set ``d`` (output dimension) and ``p`` (input dimension, or None for any) and
    implement ``__call__`` and ``to_dict``. A family of the portable dicts (``ovk_ref.kernels.portable``) also
    declares ``family`` (its ``"type"``) and ``fields`` (the dict's other fields, each with the JSON Schema of its
    value); the separable families are named by their scalar kernels (``ovk_ref.kernels.scalar``).
    """

    d: int
    p: int | None = None
    family: str | None = None
    fields: dict = {}

    def __call__(self, x: np.ndarray, z: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def to_dict(self) -> dict:
        """Portable, JSON-able description (see ``ovk_ref.kernels.portable``)."""
        raise NotImplementedError

    def gram(self, X, Z=None) -> np.ndarray:
        """Block Gram matrix, block (i, j) = ``K(X[i], Z[j])``, point-major (spec 2.1)."""
        Z = X if Z is None else Z
        rows = [np.concatenate([self(x, z) for z in Z], axis=1) for x in X]
        return np.concatenate(rows, axis=0)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.to_dict()})"

    def __eq__(self, other) -> bool:
        return isinstance(other, OperatorKernel) and self.to_dict() == other.to_dict()

    __hash__ = None
