"""The inputs of every golden vector; ``generate.py`` adds the expected outputs.

Each case is a plain dict: ``id``, ``comment``, ``flags``, the stream ``X``, ``Y`` (float64 arrays from a
seeded generator), the kernel(s) and loss as portable dicts, and the parameters. Streams are short
(t <= 25) because the expected values come from 50-digit runs of the literal reference.
Changing anything here changes the vectors: bump ``vectors/VERSION`` and add a line to ``vectors/CHANGELOG.md``.
"""
from __future__ import annotations

import math

import numpy as np

import ovk_ref


def _stream(seed: int, n: int, p: int, d: int, *, classes: bool = False):
    """X uniform on ``[0, 1]^p``; Y standard normal, or one-hot rows (``classes``)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(0.0, 1.0, size=(n, p))
    if classes:
        return X, np.eye(d)[rng.integers(0, d, size=n)]
    return X, rng.standard_normal((n, d))


def _psd(seed: int, d: int, rank: int) -> np.ndarray:
    """``R R^T / rank``, each entry a correctly rounded sum (``math.fsum``): the same bits on every machine,
    whatever BLAS would do (the regeneration test compares bytes)."""
    R = np.random.default_rng(seed).standard_normal((d, rank))
    return np.array([[math.fsum(R[i] * R[j]) / rank for j in range(d)] for i in range(d)])


def _gaussian(mu, d):
    return ovk_ref.gaussian_separable(mu, d).to_dict()


def _feature(seed, p, d, q, scale=0.5):
    return {"type": "feature", "M": (scale * ovk_ref.random_feature(p, d, q, seed).M).tolist()}


def _linear_quadratic(mu, d):
    return {"type": "linear_quadratic", "mu": mu, "d": d}


def _sum(seed, d):
    return {"type": "sum", "terms": [
        {"weight": 0.7, "kernel": {"type": "gaussian_separable", "mu": 2.0, "B": _psd(seed, d, d).tolist()}},
        {"weight": 0.3, "kernel": _linear_quadratic(0.5, d)}]}


def _case(id, comment, flags, stream, **arguments):
    X, Y = stream
    return {"id": id, "comment": comment, "flags": flags, "X": X, "Y": Y, "arguments": arguments}


def onorma_cases() -> list[dict]:
    """ONORMA (Algorithm 1, spec 5): kernels, losses, truncation schedules, edge streams."""
    sq = {"type": "squared"}
    g3 = _gaussian(1.0, 3)
    cases = [
        _case("gaussian-d3-squared", "paper's separable Gaussian kernel, J of size 3", ["separable"],
              _stream(1, 20, 2, 3), kernel=g3, loss=sq, lam=0.1, eta=0.5),
        _case("gaussian-d1-squared", "d = 1, J = [[1]]: scalar NORMA (C7)", ["separable", "d=1"],
              _stream(2, 20, 3, 1), kernel=_gaussian(0.5, 1), loss=sq, lam=0.2, eta=0.8),
        _case("linear-quadratic-d2-squared", "paper's non-separable kernel, mu = 0.2", ["non-separable"],
              _stream(3, 20, 2, 2), kernel=_linear_quadratic(0.2, 2), loss=sq, lam=0.05, eta=0.1),
        _case("feature-d2-squared", "feature kernel: blocks not symmetric, catches K(x_i, x) for K(x, x_i) (E3)",
              ["non-symmetric-blocks"], _stream(4, 20, 2, 2), kernel=_feature(40, 2, 2, 3), loss=sq, lam=0.1, eta=0.2),
        _case("sum-d2-squared", "weighted sum of a Gaussian (random PSD B) and the non-separable kernel", ["sum"],
              _stream(5, 20, 2, 2), kernel=_sum(50, 2), loss=sq, lam=0.1, eta=0.3),
        _case("polynomial-d2-squared", "(<x,z> + 1)^2 B with a rank-1 B", ["separable", "singular-B"],
              _stream(6, 20, 2, 2), kernel={"type": "polynomial_separable", "degree": 2, "offset": 1.0,
                                            "B": _psd(60, 2, 1).tolist()}, loss=sq, lam=0.1, eta=0.1),
    ]
    for loss in ({"type": "norm"}, {"type": "huber", "delta": 0.5}, {"type": "epsilon_insensitive", "epsilon": 0.3}):
        cases.append(_case(f"gaussian-d3-{loss['type'].replace('_', '-')}", f"{loss['type']} loss (spec 4)",
                           ["separable", "lipschitz-loss"], _stream(7, 20, 2, 3), kernel=g3, loss=loss, lam=0.1, eta=0.5))
    for loss in ({"type": "hinge"}, {"type": "softmax"}):
        cases.append(_case(f"gaussian-d3-{loss['type']}", f"{loss['type']} loss on one-hot targets (spec 4)",
                           ["separable", "classification"], _stream(8, 20, 2, 3, classes=True), kernel=g3, loss=loss,
                           lam=0.1, eta=0.5))
    cases += [
        _case("window-4-gaussian-d2", "fixed window s_t = 4: f_t keeps the 4 most recent terms (C8)", ["truncation"],
              _stream(9, 20, 2, 2), kernel=_gaussian(1.0, 2), loss=sq, lam=0.1, eta=0.5, truncation={"type": "window", "s": 4}),
        _case("window-1-gaussian-d2", "window s_t = 1: f_t is the newest term only", ["truncation"],
              _stream(10, 12, 2, 2), kernel=_gaussian(1.0, 2), loss=sq, lam=0.1, eta=0.5, truncation={"type": "window", "s": 1}),
        _case("theorem2-gaussian-d2", "Theorem 2 schedule t0 = 3, epsilon = 0.25: first drop at t = 5 (spec 5.3)",
              ["truncation"], _stream(11, 25, 2, 2), kernel=_gaussian(1.0, 2), loss=sq, lam=0.1, eta=0.5,
              truncation={"type": "theorem2", "t0": 3, "epsilon": 0.25}),
        _case("window-3-feature-d2-huber", "window with non-symmetric blocks and a kinked loss",
              ["truncation", "non-symmetric-blocks"], _stream(12, 20, 2, 2), kernel=_feature(41, 2, 2, 3),
              loss={"type": "huber", "delta": 0.5}, lam=0.1, eta=0.3, truncation={"type": "window", "s": 3}),
        _case("single-example", "t = 1: prediction 0, alpha_11 = eta y_1", ["edge"],
              _stream(13, 1, 2, 2), kernel=_gaussian(1.0, 2), loss=sq, lam=0.1, eta=0.5),
        _case("repeated-inputs", "every x_t equal: K(x_t, x_i) = J for all pairs", ["edge"],
              (np.repeat(_stream(14, 1, 2, 2)[0], 12, axis=0), _stream(14, 12, 2, 2)[1]),
              kernel=_gaussian(1.0, 2), loss=sq, lam=0.1, eta=0.3),
        _case("zero-targets", "Y = 0: every coefficient and prediction is exactly 0", ["edge"],
              (_stream(15, 8, 2, 2)[0], np.zeros((8, 2))), kernel=_gaussian(1.0, 2), loss=sq, lam=0.1, eta=0.5),
    ]
    return cases


def monorma_cases() -> list[dict]:
    """MONORMA (Algorithm 2, spec 6): m = 2 and 3, several r, degenerate gamma rounds."""
    sq = {"type": "squared"}
    paper = [_gaussian(1.0, 2), _linear_quadratic(1.0, 2), _linear_quadratic(0.0, 2)]
    X_zero, Y_zero = _stream(24, 12, 2, 2)
    Y_zero[0] = 0.0
    X_orth, Y_orth = _stream(25, 12, 2, 2)
    Y_orth[0] = [1.0, -1.0]
    return [
        _case("m2-gaussians-r1", "two Gaussian bandwidths, r = 1 (multiplicative weights)", ["m=2"],
              _stream(20, 20, 2, 2), kernels=[_gaussian(0.5, 2), _gaussian(2.0, 2)], loss=sq, lam=0.1, eta=0.3, r=1.0),
        _case("m3-paper-r0.5", "Gaussian, <x,z>11^T and <x,z>^2 I (spec 3.2 endpoints), r = 0.5", ["m=3"],
              _stream(21, 20, 2, 2), kernels=paper, loss=sq, lam=0.1, eta=0.1, r=0.5),
        _case("m3-paper-r2", "same kernels, r = 2: the exponents 1/(r+1), r/(r+1) differ from 1/r+1, r/r+1 (E20)",
              ["m=3"], _stream(21, 20, 2, 2), kernels=paper, loss=sq, lam=0.1, eta=0.1, r=2.0),
        _case("m2-feature-gaussian-r1.5", "a kernel with non-symmetric blocks next to a Gaussian", ["m=2", "non-symmetric-blocks"],
              _stream(22, 20, 2, 2), kernels=[_feature(42, 2, 2, 3), _gaussian(1.0, 2)], loss=sq, lam=0.1, eta=0.2, r=1.5),
        _case("m2-hinge-d3-r1", "hinge loss on one-hot targets", ["m=2", "classification"],
              _stream(23, 20, 2, 3, classes=True), kernels=[_gaussian(0.5, 3), _gaussian(2.0, 3)],
              loss={"type": "hinge"}, lam=0.1, eta=0.3, r=1.0),
        _case("m2-d1-huber-r1.5", "d = 1 (scalar outputs) with the Huber loss", ["m=2", "d=1"],
              _stream(27, 20, 3, 1), kernels=[_gaussian(0.5, 1), _linear_quadratic(0.5, 1)],
              loss={"type": "huber", "delta": 0.5}, lam=0.1, eta=0.2, r=1.5),
        _case("all-zero-gamma", "y_1 = 0: every gamma_1 = 0, delta_1 = delta_0 is kept (spec 6.3, E22)", ["m=2", "edge"],
              (X_zero, Y_zero), kernels=[_gaussian(0.5, 2), _gaussian(2.0, 2)], loss=sq, lam=0.1, eta=0.3, r=2.0),
        _case("absorbing-zero", "<x,z>11^T with y_1 = (1,-1) orthogonal to 1: gamma^1_1 = 0, delta^1 = 0 for ever (6.3)",
              ["m=2", "edge"], (X_orth, Y_orth), kernels=[_linear_quadratic(1.0, 2), _gaussian(1.0, 2)], loss=sq,
              lam=0.1, eta=0.3, r=1.0),
        _case("m2-single-example", "t = 1", ["m=2", "edge"], _stream(26, 1, 2, 2),
              kernels=[_gaussian(0.5, 2), _gaussian(2.0, 2)], loss=sq, lam=0.1, eta=0.3, r=1.0),
    ]


def batch_ridge_cases() -> list[dict]:
    """Batch ridge (spec 7): separable (7.2), non-separable (7.3) and general kernels."""
    return [
        _case("gaussian-d3", "separable Gaussian, J of size 3 (7.2)", ["separable"], _stream(30, 15, 2, 3),
              kernel=_gaussian(1.0, 3), lam=0.05),
        _case("gaussian-d1", "d = 1", ["separable", "d=1"], _stream(31, 15, 3, 1), kernel=_gaussian(0.5, 1), lam=0.05),
        _case("linear-quadratic-d3", "paper's non-separable kernel, mu = 0.3 (7.3)", ["non-separable"],
              _stream(32, 12, 2, 3), kernel=_linear_quadratic(0.3, 3), lam=0.1),
        _case("feature-d2", "feature kernel (direct solve)", ["non-symmetric-blocks"], _stream(33, 10, 2, 2),
              kernel=_feature(43, 2, 2, 3), lam=0.1),
        _case("sum-d2", "weighted sum (direct solve)", ["sum"], _stream(34, 10, 2, 2), kernel=_sum(51, 2), lam=0.1),
        _case("linear-singular-B-d3", "<x,z> B with a rank-1 B: a zero eigenvalue of B", ["separable", "singular-B"],
              _stream(35, 10, 2, 3), kernel={"type": "linear_separable", "B": _psd(61, 3, 1).tolist()}, lam=0.1),
        _case("single-example", "t = 1: c = (K(x,x) + lam I)^{-1} y", ["edge"], _stream(36, 1, 2, 2),
              kernel=_gaussian(1.0, 2), lam=0.1),
        _case("repeated-inputs", "every x equal: G is rank d, only t lam I makes the system regular", ["edge"],
              (np.repeat(_stream(37, 1, 2, 2)[0], 8, axis=0), _stream(37, 8, 2, 2)[1]), kernel=_gaussian(1.0, 2), lam=0.1),
    ]


#: algorithm name -> its cases; the names are the functions an implementation offers
CASES = {"onorma": onorma_cases, "monorma": monorma_cases, "batch_ridge": batch_ridge_cases}
