"""The kernels of each experiment, as the paper names them (its Experiments section; spec 3)."""
from __future__ import annotations

import numpy as np

import ovk_ref

#: the set on which the paper uses the non-separable kernel (spec 3.2: p = 20, d = 4, mu = 0.2)
NON_SEPARABLE_SET = "synthetic-500"


def onorma_kernel(dataset: str, d: int):
    """ONORMA's (and the batch baseline's) kernel: non-separable mu = 0.2 on the 500 x 20 synthetic set,
    the separable Gaussian mu = 1 elsewhere."""
    if dataset == NON_SEPARABLE_SET:
        return ovk_ref.LinearQuadratic(0.2, d)
    return ovk_ref.gaussian_separable(1.0, d)


def monorma_kernels(dataset: str, d: int) -> tuple[list, str]:
    """MONORMA's kernels and their label: ``<x,z> 11^T`` and ``<x,z>^2 I`` on the synthetic set, Gaussians
    mu = 0.1, 1, 10 elsewhere."""
    if dataset == NON_SEPARABLE_SET:
        return [ovk_ref.LinearQuadratic(1.0, d), ovk_ref.LinearQuadratic(0.0, d)], "<x,z>11^T and <x,z>^2 I"
    return [ovk_ref.gaussian_separable(mu, d) for mu in (0.1, 1.0, 10.0)], "Gaussians mu = 0.1, 1, 10"


def kernel_label(dataset: str) -> str:
    return "non-separable mu = 0.2" if dataset == NON_SEPARABLE_SET else "Gaussian mu = 1"


def sweep(dataset: str, d: int, points: int) -> tuple[str, np.ndarray, list]:
    """Figure 2's kernel family: non-separable mu in [0, 1] on the synthetic set, Gaussian mu from 1e-3 to 1e2."""
    if dataset == NON_SEPARABLE_SET:
        values = np.linspace(0.0, 1.0, points)
        return "non-separable mu", values, [ovk_ref.LinearQuadratic(float(mu), d) for mu in values]
    values = np.logspace(-3.0, 2.0, points)
    return "Gaussian mu", values, [ovk_ref.gaussian_separable(float(mu), d) for mu in values]
