"""The paper's synthetic multi-task data (spec 3.4; the paper's Experiments section, after Evgeniou, Micchelli &
Pontil 2005).

As printed: inputs ``x = (x_1, ..., x_20)`` with coordinates independent and uniform on ``[0, 1]``;
``phi(x) = (x_1^2, x_4^2, x_1 x_2, x_3 x_5, x_2, x_4, 1)``; task weights ``w^i`` i.i.d.
``N(0, Diag(0.5, 0.25, 0.1, 0.05, 0.15, 0.1, 0.15))`` in R^7 (the Diag is the covariance, so these are
variances); outputs ``y^i = <w^i, phi(x)>``. Only ``x_1, ..., x_5`` enter the outputs.

Where the paper is silent (our reading, spec 3.4 "ours" note): one ``w^i`` per task, drawn once per data set
and shared by all its examples (each task is a fixed function, as in EMP 2005's multi-task setting); the
number of inputs ``p`` may differ from 20 (``p >= 5``: coordinates 6..p are distractors); no noise by
default (the paper states none; ``noise > 0`` adds ``N(0, noise^2)`` to every output). The draws, from one
``numpy.random.default_rng(seed)``: the ``d x 7`` weights first, then the ``n x p`` inputs, then the noise.
"""
from __future__ import annotations

import numpy as np

from ovk_ref import validation

#: the printed covariance Diag(0.5, 0.25, 0.1, 0.05, 0.15, 0.1, 0.15) of each task's weight vector in R^7
WEIGHT_VARIANCES = (0.5, 0.25, 0.1, 0.05, 0.15, 0.1, 0.15)
#: the inputs phi reads, 1-based as printed: x_1, ..., x_5 (the other coordinates are distractors)
NAMED_INPUTS = (1, 2, 3, 4, 5)


def features(X) -> np.ndarray:
    """``phi(x) = (x_1^2, x_4^2, x_1 x_2, x_3 x_5, x_2, x_4, 1)`` for each row of X (n x 7; 1-based names)."""
    X = validation.finite_matrix("X", X)
    if X.shape[1] < len(NAMED_INPUTS):
        raise ValueError(f"X must have at least {len(NAMED_INPUTS)} columns (phi reads x_1..x_5), got {X.shape[1]}")
    x1, x2, x3, x4, x5 = (X[:, i - 1] for i in NAMED_INPUTS)
    return np.column_stack([x1 ** 2, x4 ** 2, x1 * x2, x3 * x5, x2, x4, np.ones(len(X))])


def synthetic(n: int, p: int = 20, d: int = 4, *, seed: int = 0, noise: float = 0.0, return_weights: bool = False):
    """``(X, Y)``: X of shape (n, p) uniform on ``[0, 1]^p``, ``Y = phi(X) W^T`` of shape (n, d) (+ noise);
    with ``return_weights`` also the drawn task weights W (d x 7, row i = ``w^i``). Seeded: the same
    arguments give the same arrays. The paper's two sets: ``synthetic(500, d=4)`` and ``synthetic(5000, d=10)``.
    """
    n = validation.integer("n", n, minimum=1)
    try:
        p = validation.integer("p", p, minimum=len(NAMED_INPUTS))
    except ValueError:
        raise ValueError(f"p must be >= {len(NAMED_INPUTS)}: phi reads x_1..x_5 (spec 3.4), got {p!r}") from None
    d = validation.integer("d", d, minimum=1)
    seed = validation.integer("seed", seed, minimum=0)
    noise = validation.non_negative("noise", noise)
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((d, len(WEIGHT_VARIANCES))) * np.sqrt(WEIGHT_VARIANCES)
    X = rng.uniform(0.0, 1.0, size=(n, p))
    Y = features(X) @ W.T
    if noise > 0:
        Y = Y + noise * rng.standard_normal((n, d))
    return (X, Y, W) if return_weights else (X, Y)

