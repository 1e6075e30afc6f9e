"""The paper's random half split into a training stream and a test set (its Experiments section)."""
from __future__ import annotations

import numpy as np

from ovk_ref import validation


def half_split(n: int, seed: int, size: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Indices ``(train, test)``: the first ``size`` (default all n) entries of a seeded random permutation of
    ``range(n)``, cut in two, the training half (``size // 2`` indices, in the order the online learners see
    them) first."""
    n = validation.integer("n", n, minimum=2)
    seed = validation.integer("seed", seed, minimum=0)
    size = n if size is None else validation.integer("size", size, minimum=2)
    if size > n:
        raise ValueError(f"size must be <= n ({n}), got {size}")
    order = np.random.default_rng(seed).permutation(n)[:size]
    return order[: size // 2], order[size // 2:]


def k_folds(n: int, folds: int) -> list[np.ndarray]:
    """``folds`` contiguous validation blocks of ``range(n)`` with sizes differing by at most one."""
    n = validation.integer("n", n, minimum=1)
    folds = validation.integer("folds", folds, minimum=2)
    if folds > n:
        raise ValueError(f"folds must be <= the number of examples ({n}), got {folds}")
    return np.array_split(np.arange(n), folds)
