"""Stratified fresh cases: every axis of the envelope reaches its level's top, and every kernel family and loss runs
in a long stream of every algorithm (``envelope.py``).

For each algorithm of the declared scope and each axis it has, one case sits at the level's top on that axis
(``envelope.reach``) while its other sizes are drawn log-uniform over small ranges: few large cases, so the cost
stays in hand (ovk_ref computes each). Then one long stream per kernel family of the scope (its loss the next of
the scope's losses in turn), for ONORMA (a window of 4 to 32) and MONORMA (the family beside a Gaussian kernel), and a small batch system per
family.
Drawn from the run's seed inside the declared scope, as the other fresh cases (``fresh.py``), with ovk_ref's
expected values computed before any case is sent.
"""
from __future__ import annotations

import functools

import numpy as np

from ovk_conform import envelope, fresh

#: small ranges of the axes a case does not push to its top
SMALL = {"p": (1, 4), "d": (1, 4), "m": (2, 4), "t": (8, 40)}
#: batch systems up to this size t d are checked for their condition here (``fresh._well_posed``: ovk_ref's Gram and
#: an eigendecomposition, in the oracle's process, before the pool computes anything); larger ones need no check:
#: with lam >= 0.05 and kernels bounded by about 8 (``fresh._kernel``), cond(G + t lam I) <= 1 + 8 / 0.05 = 161,
#: far below BATCH_CONDITION_LIMIT
CHECKED_BATCH = 1000


def _log_uniform(rng, low: int, high: int) -> int:
    """An integer drawn log-uniform in [low, high]."""
    return int(min(high, max(low, round(float(np.exp(rng.uniform(np.log(low), np.log(high + 1)))) - 0.5))))


def _listed(rng, drop: int, tail: int) -> tuple:
    """A listed schedule that keeps every term until round r, drops ``drop`` terms at round r, then keeps growing:
    ``(s_1..s_n, n)``."""
    r = drop + _log_uniform(rng, 2, 16)
    n = r + tail
    sizes = [t for t in range(1, r)] + [r - drop] + [r - drop + (t - r) for t in range(r + 1, n + 1)]
    return sizes, n


def _case(rng, algorithm: str, scope, label: str, sizes: dict, families: list, loss_name, truncation=None) -> tuple:
    """(algorithm, case dict) of the given sizes, kernel families and loss, inputs near the origin."""
    axes = scope.algorithms[algorithm]
    p, d, n = sizes["p"], sizes["d"], sizes["t"]
    loss = next((item for item in fresh.LOSSES if item["type"] == loss_name), None)
    classes = loss is not None and loss["type"] in fresh.CLASS_LOSSES
    d = max(d, 2) if classes else d
    X, Y = fresh._draw_stream(rng, n, p, d, 0, classes)
    terms = tuple(name for name in axes["kernels"] if name != "sum") or ("gaussian_separable",)
    kernel = functools.partial(fresh._kernel, rng, p=p, d=d, mu_scale=1.0, families=terms)
    lam = float(rng.uniform(0.02, 0.5))
    eta = float(min(rng.uniform(0.05, 0.25), 0.99 / lam))
    if algorithm == "batch_ridge":
        arguments = {"kernel": kernel(families[0]), "lam": max(lam, 0.05)}
    elif algorithm == "onorma":
        arguments = {"lam": lam, "kernel": kernel(families[0]), "loss": loss, "eta": eta}
        if truncation is not None:
            arguments["truncation"] = truncation
    else:
        arguments = {"lam": lam, "kernels": [kernel(name) for name in families], "loss": loss, "eta": eta,
                     "r": float(rng.choice([0.1, 0.5, 1.0, 2.0, 10.0]))}
    return algorithm, {"id": label, "comment": f"stratified fresh case {label}: {algorithm}, {'+'.join(families)}"
                       + (f", {loss['type']} loss" if loss else ""), "flags": ["fresh", "stratified"], "X": X, "Y": Y,
                       "arguments": arguments}


def _truncation_at_top(rng, axis: str, top: int, sizes: dict, truncations) -> dict | None:
    """ONORMA's truncation at the top of a truncation axis (the stream's rounds set in ``sizes`` to reach it), or
    None when the scope does not offer its kind."""
    kind = {"window": "window", "t0": "theorem2", "drop": "listed"}[axis]
    if kind not in truncations:
        return None
    if axis == "window":
        sizes["t"] = top + _log_uniform(rng, 8, 64)
        return {"type": "window", "s": top}
    if axis == "t0":
        sizes["t"] = top + _log_uniform(rng, 16, 128)
        return {"type": "theorem2", "t0": top, "epsilon": float(rng.choice([0.1, 0.25, 0.4]))}
    listed, sizes["t"] = _listed(rng, top, _log_uniform(rng, 4, 32))
    return {"type": "listed", "s": listed}


def _long_stream_window(rng, sizes: dict, truncations) -> dict | None:
    """A window of 2 to 16 for ONORMA's longest stream; without windows, no truncation over at most 900 rounds."""
    if "window" in truncations:
        return {"type": "window", "s": _log_uniform(rng, 2, 16)}
    sizes["t"] = min(sizes["t"], 900)
    return None


def _some_truncation(rng, n: int, truncations) -> dict | None:
    """A window or Theorem 2's schedule, for a scope that offers no untruncated ONORMA (None: neither)."""
    if "window" in truncations:
        return {"type": "window", "s": _log_uniform(rng, 1, n)}
    if "theorem2" in truncations:
        return {"type": "theorem2", "t0": _log_uniform(rng, 1, 10), "epsilon": 0.25}
    return None


def _at_top(rng, algorithm: str, axis: str, top: int, sizes: dict, truncations):
    """``sizes`` set for a case at ``top`` on ``axis``; its truncation (None: none), or False when the scope cannot
    hold the case."""
    truncation = None
    if axis in ("d", "p", "m"):
        sizes[axis] = top
    elif axis == "t":
        sizes["t"] = top
        if algorithm == "onorma":   # thousands of rounds: a window keeps ovk_ref's cost linear
            truncation = _long_stream_window(rng, sizes, truncations)
    elif axis == "td":      # wide outputs for large systems: ovk_ref's Gram costs t^2 blocks
        sizes["d"] = min(envelope.AXES["d"].top, _log_uniform(rng, max(1, top // 128), max(2, top // 64)))
        sizes["t"] = max(2, top // sizes["d"])
    elif axis in ("window", "t0", "drop"):
        truncation = _truncation_at_top(rng, axis, top, sizes, truncations)
        if truncation is None:
            return False
    if algorithm == "onorma" and truncation is None and "none" not in truncations:
        truncation = _some_truncation(rng, sizes["t"], truncations)
        if truncation is None:
            return False
    return truncation


def _axis_case(rng, level: str, algorithm: str, axis: str, scope, label: str):
    """The case of ``algorithm`` at the level's top on ``axis``, or None when the scope cannot hold it (a truncation
    kind it leaves out)."""
    axes = scope.algorithms[algorithm]
    top = envelope.reach(level, algorithm, axis)
    sizes = {name: _log_uniform(rng, *SMALL[name]) for name in SMALL}
    truncations = axes.get("truncations", ("none",))
    family = str(rng.choice([name for name in axes["kernels"] if name != "sum"] or axes["kernels"]))
    truncation = _at_top(rng, algorithm, axis, top, sizes, truncations)
    if truncation is False:
        return None
    families = [family] * (sizes["m"] if algorithm == "monorma" else 1)
    loss = str(rng.choice(axes["losses"])) if "losses" in axes else None
    return _case(rng, algorithm, scope, label, sizes, families, loss, truncation)


def _kind_cases(rng, level: str, algorithm: str, scope, seed) -> list:
    """One long stream per kernel family of the scope, each with the next loss of the scope (batch ridge: a small
    system per family)."""
    axes = scope.algorithms[algorithm]
    rounds = {"onorma": envelope.KIND_ROUNDS[level][0], "monorma": envelope.KIND_ROUNDS[level][1]}.get(
        algorithm, SMALL["t"])
    families = [name for name in axes["kernels"] if name != "sum" or len(axes["kernels"]) > 1]
    truncations = axes.get("truncations", ("none",))
    drawn = []
    for index, family in enumerate(families):
        loss = axes["losses"][index % len(axes["losses"])] if "losses" in axes else None
        sizes = {"p": _log_uniform(rng, *SMALL["p"]), "d": _log_uniform(rng, *SMALL["d"]),
                 "t": _log_uniform(rng, *rounds)}
        truncation = None
        if algorithm == "onorma":
            if "window" in truncations:
                truncation = {"type": "window", "s": _log_uniform(rng, 4, 32)}
            elif "theorem2" in truncations:
                truncation = {"type": "theorem2", "t0": _log_uniform(rng, 1, 10), "epsilon": 0.1}
            else:
                sizes["t"] = min(sizes["t"], 600)
        partner = "gaussian_separable" if "gaussian_separable" in axes["kernels"] else family
        kernels = [family] if algorithm == "onorma" else [family, partner]
        drawn.append(_case(rng, algorithm, scope, f"fresh-{seed}-K{algorithm[0]}{index}", sizes, kernels, loss,
                           truncation))
    return drawn


def stratified_cases(seed, level: str, scope) -> list:
    """(algorithm, case dict) of every stratified case of ``level`` inside ``scope``: one per algorithm and axis at
    the level's top, one long stream per algorithm and kernel family (ill-conditioned batch draws drawn again)."""
    drawn = []
    for algorithm in scope.algorithms:
        for axis, definition in envelope.AXES.items():
            if algorithm not in definition.algorithms:
                continue
            for attempt in range(20):
                rng = np.random.default_rng([0 if seed is None else seed, 33, fresh_index(algorithm, axis), attempt])
                case = _axis_case(rng, level, algorithm, axis, scope, f"fresh-{seed}-S{algorithm[0]}-{axis}")
                if _accepted(case):
                    break
            if case is not None:
                drawn.append(case)
        rng = np.random.default_rng([0 if seed is None else seed, 34, fresh_index(algorithm, "kinds")])
        drawn.extend(case for case in _kind_cases(rng, level, algorithm, scope, seed) if _accepted(case))
    return drawn


def _accepted(case) -> bool:
    """A drawn case the oracle keeps: none to keep (None), or a batch system well-posed (``CHECKED_BATCH``)."""
    if case is None or case[0] == "batch_ridge" and len(case[1]["X"]) * case[1]["Y"].shape[1] > CHECKED_BATCH:
        return True
    return fresh._well_posed(*case)


def fresh_index(algorithm: str, axis: str) -> int:
    """A stable number for (algorithm, axis): the draws of one stratum do not move when another changes."""
    return sum((index + 1) * ord(char) for index, char in enumerate(f"{algorithm}/{axis}"))
