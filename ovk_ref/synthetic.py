"""The paper's synthetic multi-output data, after Evgeniou, Micchelli & Pontil (2005).

The paper gives only the sizes (500 x 20 with d = 4; 5000 x 20 with d = 10) and the input box
[0, 1]^20 (spec 3.2, E30). The generator below is our reading of EMP 2005's related-tasks model,
with every choice explicit: inputs uniform on ``[0, 1]^p``; output ``l`` is linear,
``y_l = w_l . x + noise``, with task weights ``w_l = w_0 + v_l`` sharing a common part
``w_0 ~ N(0, I_p)`` and a task-specific part ``v_l ~ N(0, task_spread^2 I_p)`` (so outputs are
related, the point of an operator-valued kernel), then centred and divided by
``sqrt(p)`` so that ``|y_l|`` is O(1); noise ``N(0, noise^2)``.
"""
from __future__ import annotations

import numpy as np

from ovk_ref import validation


def synthetic(n: int, p: int = 20, d: int = 4, *, seed: int = 0, task_spread: float = 0.5,
              noise: float = 0.1) -> tuple[np.ndarray, np.ndarray]:
    """``(X, Y)`` with X of shape (n, p) in ``[0, 1]^p`` and Y of shape (n, d); seeded."""
    n = validation.integer("n", n, minimum=1)
    p = validation.integer("p", p, minimum=1)
    d = validation.integer("d", d, minimum=1)
    seed = validation.integer("seed", seed, minimum=0)
    task_spread = validation.non_negative("task_spread", task_spread)
    noise = validation.non_negative("noise", noise)
    rng = np.random.default_rng(seed)
    shared = rng.standard_normal(p)
    weights = shared[None, :] + task_spread * rng.standard_normal((d, p))
    X = rng.uniform(0.0, 1.0, size=(n, p))
    Y = (X - 0.5) @ weights.T / np.sqrt(p) + noise * rng.standard_normal((n, d))
    return X, Y
