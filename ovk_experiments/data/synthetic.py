"""The paper's two synthetic sets, drawn by ``ovk_ref.synthetic`` (the paper's generator, spec 3.4)."""
from __future__ import annotations

import ovk_ref
from ovk_experiments.data.dataset import Dataset

#: name -> (n, p, d) as the paper gives them
SIZES = {"synthetic-500": (500, 20, 4), "synthetic-5000": (5000, 20, 10)}


def load(name: str, seed: int) -> Dataset:
    if name not in SIZES:
        raise ValueError(f"name must be one of {sorted(SIZES)}, got {name!r}")
    n, p, d = SIZES[name]
    X, Y = ovk_ref.synthetic(n, p=p, d=d, seed=seed)
    return Dataset(name=name, label=f"synthetic {n} x {p}, d = {d}", X=X, Y=Y, task="regression", stand_in=False,
                   source=f"the paper's generator (spec 3.4), ovk_ref.synthetic(n={n}, p={p}, d={d}, seed={seed}): "
                          f"x uniform on [0,1]^{p}, y^i = <w^i, phi(x)>, phi of x_1..x_5, no noise")
