"""Test streams of any width (``p < 5`` included), which the paper's data (``ovk_ref.synthetic``) cannot give."""
from __future__ import annotations

import numpy as np

from ovk_ref import validation


def linear_related_tasks(n: int, p: int = 20, d: int = 4, *, seed: int = 0, task_spread: float = 0.5,
                         noise: float = 0.1) -> tuple[np.ndarray, np.ndarray]:
    """NOT the paper's data (that is ``synthetic``): our former stand-in, for test streams of any width p >= 1.

    Inputs uniform on ``[0, 1]^p``; output ``l`` is ``w_l . (x - 1/2) / sqrt(p) + noise``, with related task
    weights ``w_l = w_0 + v_l``, ``w_0 ~ N(0, I_p)``, ``v_l ~ N(0, task_spread^2 I_p)``, noise ``N(0, noise^2)``.
    """
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
