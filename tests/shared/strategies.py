"""Hypothesis strategies only the tests use (the claims' own are in ``proofs_check.strategies``, which these compose)."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from proofs_check.strategies import (
    SMOOTH_LOSSES,
    dimensions,
    integers,
    kernels,
    losses,
    reused,
    step_parameters,
    streams,
)


@reused
def class_arrays(n: int, d: int):
    """``n`` class indices in ``0..d-1`` (one-hot targets), one integer choice each."""
    return st.lists(integers(0, d - 1), min_size=n, max_size=n).map(lambda classes: np.array(classes, dtype=int))


@st.composite
def problems(draw, *, feature: bool = True, max_n: int = 12):
    """A whole ONORMA instance: dict with kernel, X, Y, lam, eta, loss."""
    d, p = draw(dimensions), draw(dimensions)
    kernel = draw(kernels(d, p, feature=feature))
    loss = draw(losses(d))
    X, Y = draw(streams(p, d, loss=loss, max_n=max_n))
    lam, eta = draw(step_parameters())
    return {"kernel": kernel, "X": X, "Y": Y, "lam": lam, "eta": eta, "loss": loss}


def smooth_losses(d: int):
    """``losses(d, SMOOTH_LOSSES)``: squared, Huber, and softmax for ``d >= 2``."""
    return losses(d, SMOOTH_LOSSES)
