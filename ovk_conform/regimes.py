"""The regimes where fast implementations break, each a named set of stored cases.

A blocked, chunked, batched or mixed-precision engine is right on short streams and wrong past a boundary
it introduced itself: the quick cases (``cases.py``: t <= 25, d <= 3, m <= 3, inputs in [0, 1]) cannot
see that. Each regime below reaches one such place; ``generate.py`` computes the expected values with
``ovk_ref`` in float64 (50 digits would take hours on streams of thousands of rounds: ``REFERENCE_REASON``)
and stores every row of streams up to ``ALL_ROUNDS_UP_TO`` rounds; longer ones keep the rows near a boundary
(``stored_rounds``) and ovk_ref's state every ``checkpoints.CHECKPOINT_EVERY`` rounds, from which each run
recomputes rows drawn from its seed.
Changing anything here changes the vectors: bump ``vectors/VERSION`` and add a line to ``vectors/CHANGELOG.md``.
"""
from __future__ import annotations

import numpy as np

from ovk_conform.cases import (
    _case,
    _feature,
    _gaussian,
    _linear_quadratic,
    _psd,
    _stream,
)

#: why the regimes' expected values are ovk_ref float64 runs (stored in the vector files too)
REFERENCE_REASON = ("ovk_ref in float64: a 50-digit run of thousands of rounds takes hours; the float64 reference's "
                    "own round-off on these cases is below 1e-12 of each field's scale (measured against a second "
                    "float64 engine, ovk_fast, in a different summation order), far inside the tolerance")

#: streams up to this length store every round; longer ones store ``stored_rounds(n)`` and checkpoints
ALL_ROUNDS_UP_TO = 5000


def stored_rounds(n: int) -> np.ndarray:
    """The 1-based rounds kept for a stream of ``n`` rounds: the first 8; every round within 3 of a power of two,
    of a multiple of 64 up to 8192 and of a multiple of 256 beyond (block boundaries of blocked engines); every
    32nd round up to 8192 and every 1024th beyond; the last 3."""
    if n <= ALL_ROUNDS_UP_TO:
        return np.arange(1, n + 1)
    rounds = set(range(1, 9)) | set(range(max(1, n - 2), n + 1))
    rounds |= set(range(32, min(n, 8192) + 1, 32)) | set(range(8192, n + 1, 1024))
    boundaries = list(range(64, min(n, 8192) + 4, 64)) + list(range(8192, n + 4, 256))
    for boundary in boundaries + [2 ** k for k in range(1, n.bit_length() + 1)]:
        rounds |= {t for t in range(boundary - 3, boundary + 4) if 1 <= t <= n}
    return np.array(sorted(rounds))


def _grid_stream(seed: int, n: int, p: int, d: int, steps: int = 16):
    """X and Y on a grid of ``steps`` values in [0, 1) and [-1, 1): a long stream that compresses well."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, steps, size=(n, p)) / steps, rng.integers(-steps, steps, size=(n, d)) / steps


def _shifted(stream, offset: float = 0.0, scale: float = 1.0):
    X, Y = stream
    return offset + scale * X, Y


SQ = {"type": "squared"}


def long_streams() -> list[dict]:
    """ONORMA to t = 4096 and MONORMA to t = 1100: block boundaries at 64, 128, 256, 512, ... and scale folds."""
    return [
        ("onorma", _case("onorma-t4096-gaussian-d2", "4096 rounds: 16 blocks of 256, every power of two up to 4096",
                         ["long"], _stream(101, 4096, 3, 2), kernel=_gaussian(1.0, 2), loss=SQ, lam=0.1, eta=0.5)),
        ("monorma", _case("monorma-t1100-m3", "1100 rounds, m = 3 (two Gaussians, the non-separable kernel)",
                          ["long"], _stream(102, 1100, 2, 2), kernels=[_gaussian(0.5, 2), _gaussian(2.0, 2),
                                                                       _linear_quadratic(0.5, 2)],
                          loss=SQ, lam=0.1, eta=0.3, r=1.0)),
    ]


def wide_windows() -> list[dict]:
    """Windows 64 and 1000, and Theorem 2's schedule up to s_t = 310 (spec 5.3)."""
    return [
        ("onorma", _case("window-64-t1500", "fixed window s = 64 over 1500 rounds", ["truncation"],
                         _stream(111, 1500, 2, 2), kernel=_gaussian(1.0, 2), loss=SQ, lam=0.1, eta=0.5,
                         truncation={"type": "window", "s": 64})),
        ("onorma", _case("window-1000-t1500", "fixed window s = 1000: the first drop after round 1000", ["truncation"],
                         _stream(112, 1500, 2, 2), kernel=_gaussian(1.0, 2), loss=SQ, lam=0.1, eta=0.5,
                         truncation={"type": "window", "s": 1000})),
        ("onorma", _case("theorem2-t2048", "Theorem 2 schedule t0 = 3, epsilon = 0.25 over 2048 rounds (s_t up to 305)",
                         ["truncation"], _stream(113, 2048, 2, 2), kernel=_gaussian(1.0, 2), loss=SQ, lam=0.1, eta=0.5,
                         truncation={"type": "theorem2", "t0": 3, "epsilon": 0.25})),
    ]


def high_dimensions() -> list[dict]:
    """d = 16 outputs, p = 64 inputs; a feature kernel (non-symmetric blocks) with d = 6; a batch system d = 16."""
    return [
        ("onorma", _case("gaussian-d16-p64", "d = 16, p = 64, a full-rank random B", ["high-dimension"],
                         _stream(121, 300, 64, 16), kernel={"type": "gaussian_separable", "mu": 16.0,
                                                            "B": _psd(1210, 16, 16).tolist()},
                         loss=SQ, lam=0.1, eta=0.2)),
        ("onorma", _case("feature-d6-p8", "feature kernel, d = 6: blocks not symmetric", ["high-dimension"],
                         _stream(122, 300, 8, 6), kernel=_feature(1220, 8, 6, 4, scale=0.15), loss=SQ, lam=0.1,
                         eta=0.2)),
        ("monorma", _case("monorma-d16-p64", "MONORMA with d = 16, p = 64", ["high-dimension"],
                          _stream(123, 200, 64, 16), kernels=[_gaussian(16.0, 16), _gaussian(64.0, 16)],
                          loss=SQ, lam=0.1, eta=0.2, r=1.0)),
        ("batch_ridge", _case("gaussian-d16-p64", "t d = 4160", ["high-dimension"], _stream(124, 260, 64, 16),
                              kernel={"type": "gaussian_separable", "mu": 16.0, "B": _psd(1240, 16, 16).tolist()},
                              lam=0.05)),
    ]


def many_kernels() -> list[dict]:
    """m = 8 kernels with r = 0.1 and r = 10 (spec 6.3)."""
    kernels = [_gaussian(mu, 2) for mu in (0.1, 0.3, 1.0, 3.0, 10.0)] + [
        _linear_quadratic(mu, 2) for mu in (0.0, 0.5, 1.0)]
    return [("monorma", _case(f"m8-r{r:g}", f"8 kernels (5 Gaussians, 3 non-separable), r = {r:g}", ["many-kernels"],
                              _stream(130 + i, 300, 2, 2), kernels=kernels, loss=SQ, lam=0.1, eta=0.2, r=r))
            for i, r in enumerate((0.1, 10.0))]


def large_batches() -> list[dict]:
    """Batch systems with t d >= 4000 through each solver path (spec 7.2, 7.3, 7.1)."""
    return [
        ("batch_ridge", _case("gaussian-t1000-d4", "separable Gaussian, t d = 4000", ["large-batch"],
                              _stream(141, 1000, 3, 4), kernel={"type": "gaussian_separable", "mu": 1.0,
                                                                "B": _psd(1410, 4, 4).tolist()}, lam=0.05)),
        ("batch_ridge", _case("linear-quadratic-t800-d5", "non-separable kernel, t d = 4000", ["large-batch"],
                              _stream(142, 800, 2, 5), kernel=_linear_quadratic(0.3, 5), lam=0.05)),
        ("batch_ridge", _case("feature-t1000-d4", "feature kernel (direct solve), t d = 4000", ["large-batch"],
                              _stream(143, 1000, 2, 4), kernel=_feature(1430, 2, 4, 3, scale=0.3), lam=0.05)),
    ]


def kernel_families() -> list[dict]:
    """Every kernel family with a loss each, 200 rounds (spec 3, 4)."""
    families = [
        ({"type": "linear_separable", "B": _psd(1500, 3, 3).tolist()}, {"type": "norm"}, False),
        ({"type": "polynomial_separable", "degree": 3, "offset": 0.5, "B": _psd(1501, 3, 2).tolist()},
         {"type": "huber", "delta": 0.3}, False),
        ({"type": "constant_separable", "c": 0.5, "B": _psd(1502, 3, 3).tolist()},
         {"type": "epsilon_insensitive", "epsilon": 0.2}, False),
        (_linear_quadratic(0.7, 3), SQ, False),
        (_feature(1503, 2, 3, 3, scale=0.4), {"type": "hinge"}, True),
        ({"type": "sum", "terms": [{"weight": 0.6, "kernel": _gaussian(0.5, 3)},
                                   {"weight": 0.4, "kernel": _linear_quadratic(0.2, 3)}]}, {"type": "softmax"}, True),
    ]
    return [("onorma", _case(f"{kernel['type'].replace('_', '-')}-{loss['type'].replace('_', '-')}",
                             f"{kernel['type']} kernel, {loss['type']} loss, 200 rounds", ["kernel-family"],
                             _stream(150 + i, 200, 2, 3, classes=classes), kernel=kernel, loss=loss, lam=0.1, eta=0.3))
            for i, (kernel, loss, classes) in enumerate(families)]


def far_inputs() -> list[dict]:
    """Inputs offset by 1e6 and 1e8, scaled by 1e-6 and 1e6 (Gaussian bandwidth scaled along, spec 3.1)."""
    return [
        ("onorma", _case("offset-1e6", "x = 1e6 + U[0,1]^3", ["far"], _shifted(_stream(161, 300, 3, 2), 1e6),
                         kernel=_gaussian(1.0, 2), loss=SQ, lam=0.1, eta=0.5)),
        ("onorma", _case("offset-1e8", "x = 1e8 + U[0,1]^3", ["far"], _shifted(_stream(162, 300, 3, 2), 1e8),
                         kernel=_gaussian(1.0, 2), loss=SQ, lam=0.1, eta=0.5)),
        ("onorma", _case("scale-1e-6", "x = 1e-6 U[0,1]^3, mu = 1e-12", ["far"],
                         _shifted(_stream(163, 300, 3, 2), scale=1e-6), kernel=_gaussian(1e-12, 2), loss=SQ,
                         lam=0.1, eta=0.5)),
        ("onorma", _case("scale-1e6", "x = 1e6 U[0,1]^3, mu = 1e12", ["far"],
                         _shifted(_stream(164, 300, 3, 2), scale=1e6), kernel=_gaussian(1e12, 2), loss=SQ,
                         lam=0.1, eta=0.5)),
        ("monorma", _case("offset-1e7", "x = 1e7 + U[0,1]^2, two Gaussians", ["far"],
                          _shifted(_stream(165, 300, 2, 2), 1e7), kernels=[_gaussian(0.5, 2), _gaussian(2.0, 2)],
                          loss=SQ, lam=0.1, eta=0.3, r=1.0)),
        ("batch_ridge", _case("offset-1e8", "x = 1e8 + U[0,1]^2", ["far"], _shifted(_stream(166, 200, 2, 2), 1e8),
                              kernel=_gaussian(1.0, 2), lam=0.05)),
    ]


def strong_shrink() -> list[dict]:
    """eta lam = 0.999: the first shrink factor is 1e-3 and the early coefficients nearly vanish (spec 5.1 step 3)."""
    return [
        ("onorma", _case("eta-lam-0.999", "eta = 1, lam = 0.999", ["shrink"], _stream(171, 500, 2, 2),
                         kernel=_gaussian(1.0, 2), loss=SQ, lam=0.999, eta=1.0)),
        ("monorma", _case("eta-lam-0.99", "eta = 1, lam = 0.99, m = 2", ["shrink"], _stream(172, 300, 2, 2),
                          kernels=[_gaussian(0.5, 2), _gaussian(2.0, 2)], loss=SQ, lam=0.99, eta=1.0, r=1.0)),
    ]


def shrink_underflow() -> list[dict]:
    """140000 rounds with eta lam = 0.99 and a window of 8: prod_t (1 - eta_t lam) ~ exp(-1.98 sqrt(t)) < 1e-308."""
    return [("onorma", _case("window-8-t140000", "product of the shrink factors falls below 1e-308 (float64 underflow)",
                             ["underflow", "truncation"], _grid_stream(181, 140_000, 1, 1), kernel=_gaussian(0.5, 1),
                             loss=SQ, lam=0.99, eta=1.0, truncation={"type": "window", "s": 8}))]

#: a listed schedule over 40 rounds that grows, collapses from 6 to 2 (round 20) and from 8 to 1 (round 35), then
#: jumps to 4
LISTED_COLLAPSE = [6] * 19 + [2] + [3, 4, 5, 6, 7, 8] + [8] * 8 + [1] + [4] * 5


def corner_cases() -> list[dict]:
    """Shapes no other stored case has: round 257 alone in its block of 256 with a window dropping terms (spec 5.1);
    MONORMA with Gaussian kernels of distinct output matrices B_j (``K_j(x, x) = B_j`` in gamma, spec 6.2), and with
    ``y_1 = (1, -1)`` orthogonal to the last kernel's ``B = 11^T / 2``: its ``gamma_1 = 0`` and weight 0 for ever
    while the first kernel's is not (delta updated, not kept: spec 6.3, E22); a listed schedule ``t -> s_t`` (spec 5.1:
    any schedule) that drops several terms in one round, 4 at round 20 and 7 at round 35, and then grows by more than
    one (a dropped term never returns: ``lo = max(lo, t - s_t)``, as ovk_ref)."""
    distinct = [{"type": "gaussian_separable", "mu": 0.5, "B": [[1.0, 0.0], [0.0, 1.0]]},
                {"type": "gaussian_separable", "mu": 2.0, "B": [[0.5, 0.5], [0.5, 0.5]]}]
    X, Y = _stream(192, 100, 2, 2)
    Y[0] = (1.0, -1.0)
    return [
        ("onorma", _case("window-16-t257", "window s = 16 over 257 rounds: round 257 alone in a block of 256, its "
                         "prediction without the 241 dropped terms", ["truncation", "block-of-one"],
                         _stream(190, 257, 2, 2), kernel=_gaussian(1.0, 2), loss=SQ, lam=0.1, eta=0.5,
                         truncation={"type": "window", "s": 16})),
        ("onorma", _case("listed-collapse-t40", "listed s_t: 6 up to round 19, 2 at round 20 (4 terms dropped at "
                         "once), 3 to 8 at rounds 21-26, 8 to round 34, 1 at round 35 (7 dropped), 4 from round 36 "
                         "(the dropped terms stay dropped)", ["truncation", "listed", "several-drops"],
                         _stream(193, 40, 2, 2), kernel=_gaussian(0.7, 2), loss=SQ, lam=0.05, eta=0.5,
                         truncation={"type": "listed", "s": LISTED_COLLAPSE})),
        ("monorma", _case("distinct-outputs-m2", "Gaussians mu = 0.5 with B = I and mu = 2 with B = 11^T/2: "
                          "gamma_j takes each kernel's own B", ["m=2", "distinct-B"], _stream(191, 100, 2, 2),
                          kernels=distinct, loss=SQ, lam=0.1, eta=0.3, r=1.0)),
        ("monorma", _case("zero-last-weight", "the same kernels, y_1 = (1, -1): gamma^2_1 = 0, delta = (1, 0) from "
                          "round 1 on (the last kernel's weight 0, the first's not)", ["m=2", "distinct-B", "edge"],
                          (X, Y), kernels=distinct, loss=SQ, lam=0.1, eta=0.3, r=1.0)),
    ]


#: regime name -> (what it probes, its cases as (algorithm, case) pairs)
REGIMES = {
    "long-stream": ("streams crossing power-of-two and block boundaries", long_streams),
    "wide-window": ("truncation windows from 64 to 1000 and Theorem 2 over 2048 rounds", wide_windows),
    "high-dimension": ("d = 16 outputs, p = 64 inputs, non-symmetric blocks with d = 6", high_dimensions),
    "many-kernels": ("MONORMA with m = 8 kernels, r = 0.1 and 10", many_kernels),
    "large-batch": ("batch systems with t d = 4000, every solver path", large_batches),
    "kernel-family": ("every kernel family and loss over 200 rounds", kernel_families),
    "far-inputs": ("inputs offset by 1e6 to 1e8, scaled by 1e-6 and 1e6", far_inputs),
    "strong-shrink": ("eta lam close to 1", strong_shrink),
    "shrink-underflow": ("the product of shrink factors underflows float64", shrink_underflow),
    "corner-cases": ("a truncated block of one round; a listed schedule dropping several terms in one round; "
                     "MONORMA with distinct output matrices and a zero last weight",
                     corner_cases),
}

#: the regime of the stored quick cases (``cases.py``)
QUICK_REGIME = "basic"
