"""``ovk-check demo``: ONORMA and MONORMA on the paper's synthetic data (spec 3.4), online MSE next to the batch MSE."""
from __future__ import annotations

import time

import numpy as np

import ovk_ref
from ovk_cli.errors import front_door


def register(subparsers) -> None:
    parser = subparsers.add_parser("demo", help="ONORMA, MONORMA and batch ridge on the paper's synthetic data")
    parser.add_argument("-n", type=int, default=200, help="stream length (default 200)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the synthetic data (default 0)")
    parser.set_defaults(run=run)


def run(args) -> int:
    with front_door():
        X, Y = ovk_ref.synthetic(args.n, p=20, d=4, seed=args.seed)
    lam, eta = 0.01, 1.0
    gaussian = ovk_ref.gaussian_separable(1.0, 4)
    kernels = [ovk_ref.gaussian_separable(mu, 4) for mu in (0.1, 1.0, 10.0)]
    rows = []
    start = time.perf_counter()
    record = ovk_ref.onorma(X, Y, gaussian, lam=lam, eta=eta)
    rows.append(("ONORMA, Gaussian mu=1", np.mean(np.sum((record.predictions - Y) ** 2, axis=1)), time.perf_counter() - start))
    start = time.perf_counter()
    record = ovk_ref.monorma(X, Y, kernels, lam=lam, eta=eta, r=1.0)
    rows.append(("MONORMA, Gaussians mu=0.1,1,10, r=1", np.mean(np.sum((record.predictions - Y) ** 2, axis=1)), time.perf_counter() - start))
    start = time.perf_counter()
    coefficients = ovk_ref.batch_ridge(X, Y, gaussian, lam=lam)
    fitted = ovk_ref.evaluate(gaussian, X, coefficients, X)
    rows.append(("batch ridge, Gaussian mu=1 (training MSE)", np.mean(np.sum((fitted - Y) ** 2, axis=1)), time.perf_counter() - start))
    print(f"the paper's synthetic data (spec 3.4: y^i = <w^i, phi(x)>, x uniform on [0,1]^20): n={args.n}, d=4, "
          f"seed={args.seed}; lam={lam}, eta={eta}")
    print(f"{'learner':45s} {'MSE':>10s} {'seconds':>8s}")
    for name, mse, seconds in rows:
        print(f"{name:45s} {mse:10.4f} {seconds:8.2f}")
    print("online MSE is progressive (predict, then learn); batch MSE is a training error (spec E30(c)).")
    return 0
