"""Fresh cases (issue 9, item 3): drawn from a printed seed over the regimes' axes, computed by ovk_ref on the spot.

No table of stored answers can pass them: the inputs exist only in this run. They are small (t <= 40, d <= 4,
m <= 5) so that ovk_ref float64 computes each in milliseconds; float64 round-off on them stays near 1e-14 of each
field's scale (eta and the kernels are bounded so that every run is stable), far inside the tolerance.
A failing fresh case is shrunk (``shrink``) to the shortest stream that still fails and written as a
replayable case file (``write_case_file``; ``ovk-check conform --replay FILE``).
"""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np

import ovk_ref
from ovk_ref import atomic_file, tolerances
from proofs_check.conformance.vectors import ALGORITHMS, EXACT_FIELDS, FORMAT, Case, cases_in

FRESH_REGIME = "fresh"
#: at most this many calls of the implementation while shrinking one failure
SHRINK_CALLS = 60


def _psd(rng, d: int) -> list:
    R = rng.standard_normal((d, d))
    B = R @ R.T
    return (B / np.linalg.eigvalsh(B)[-1]).tolist()       # largest eigenvalue 1


def _kernel(rng, family: str, p: int, d: int, mu_scale: float) -> dict:
    if family == "gaussian":
        return {"type": "gaussian_separable", "mu": float(rng.uniform(0.3, 3.0)) * mu_scale, "B": _psd(rng, d)}
    if family == "linear":
        return {"type": "linear_separable", "B": _psd(rng, d)}
    if family == "polynomial":
        return {"type": "polynomial_separable", "degree": int(rng.integers(2, 4)), "offset": 0.5, "B": _psd(rng, d)}
    if family == "constant":
        return {"type": "constant_separable", "c": float(rng.uniform(0.2, 1.0)), "B": _psd(rng, d)}
    if family == "linear_quadratic":
        return {"type": "linear_quadratic", "mu": float(rng.uniform(0.0, 1.0)), "d": d}
    if family == "feature":
        return {"type": "feature", "M": (0.5 / np.sqrt(p + 1) * rng.standard_normal((p + 1, d, 3))).tolist()}
    return {"type": "sum", "terms": [{"weight": 0.5, "kernel": _kernel(rng, "gaussian", p, d, mu_scale)},
                                     {"weight": 0.5, "kernel": _kernel(rng, "linear_quadratic", p, d, mu_scale)}]}


FAMILIES = ("gaussian", "linear", "polynomial", "constant", "linear_quadratic", "feature", "sum")
LOSSES = ({"type": "squared"}, {"type": "norm"}, {"type": "huber", "delta": 0.5},
          {"type": "epsilon_insensitive", "epsilon": 0.2}, {"type": "hinge"}, {"type": "softmax"})


def draw_case(seed: int, index: int, algorithms=ALGORITHMS) -> dict:
    """The ``index``-th fresh case of ``seed`` as (algorithm, case dict), inputs and parameters only."""
    rng = np.random.default_rng([seed, index])
    algorithm = str(rng.choice(list(algorithms)))
    n, p, d = int(rng.integers(2, 41)), int(rng.integers(1, 6)), int(rng.integers(1, 5))
    # far or extreme inputs only with Gaussian kernels (the bandwidth follows the scale)
    placement = int(rng.choice(4, p=[0.55, 0.15, 0.15, 0.15]))
    offset, scale = [(0.0, 1.0), (1e6, 1.0), (0.0, 1e-4), (0.0, 1e4)][placement]
    family = "gaussian" if placement else str(rng.choice(FAMILIES))
    if algorithm == "monorma":
        families = ["gaussian" if placement else str(rng.choice(["gaussian", "linear_quadratic"]))
                    for _ in range(int(rng.integers(2, 6)))]
    loss = LOSSES[int(rng.integers(0, len(LOSSES)))] if algorithm != "batch_ridge" else None
    classes = loss is not None and loss["type"] in ("hinge", "softmax")
    if classes and d == 1:
        d = 2
    # |x| <= 1 for the kernels that grow with |x| (then every kernel norm is at most about 2^3 = 8)
    X = offset + scale * rng.uniform(0.0, 1.0, size=(n, p)) / (1.0 if placement else np.sqrt(p))
    Y = np.eye(d)[rng.integers(0, d, size=n)] if classes else rng.standard_normal((n, d))
    lam = float(rng.uniform(0.02, 0.5))
    eta = float(min(rng.uniform(0.05, 0.25), 0.99 / lam))     # eta_1 kappa^2 <= 2: stable runs
    arguments = {"lam": lam}
    mu_scale = scale * scale
    if algorithm == "batch_ridge":
        arguments = {"kernel": _kernel(rng, family, p, d, mu_scale), "lam": max(lam, 0.05)}
    elif algorithm == "onorma":
        arguments.update(kernel=_kernel(rng, family, p, d, mu_scale), loss=loss, eta=eta)
        kind = int(rng.integers(0, 3))
        if kind == 1:
            arguments["truncation"] = {"type": "window", "s": int(rng.integers(1, n + 1))}
        elif kind == 2:
            arguments["truncation"] = {"type": "theorem2", "t0": int(rng.integers(1, 6)),
                                       "epsilon": float(rng.choice([0.1, 0.25, 0.4]))}
    else:
        arguments.update(kernels=[_kernel(rng, f, p, d, mu_scale) for f in families], loss=loss, eta=eta,
                         r=float(rng.choice([0.1, 0.5, 1.0, 2.0, 10.0])))
    comment = (f"fresh case {index} of seed {seed}: {algorithm}, "
               f"{family if algorithm != 'monorma' else '+'.join(families)}"
               + (f", {loss['type']} loss" if loss else "") + (f", x = {offset:g} + {scale:g} U" if placement else ""))
    return algorithm, {"id": f"fresh-{seed}-{index}", "comment": comment, "flags": ["fresh"], "X": X, "Y": Y,
                       "arguments": arguments}


def reference_case(algorithm: str, case: dict, origin: str) -> Case:
    """The case with ovk_ref's float64 values of every field, every round."""
    from proofs_check.conformance.generate import reference_fields

    fields = reference_fields(algorithm, case["X"], case["Y"], case["arguments"])
    expected = {name: np.asarray(values, dtype=int if name in EXACT_FIELDS else float) for name, values in fields.items()}
    return Case(algorithm=algorithm, id=case["id"], comment=case["comment"], flags=case["flags"], X=case["X"],
                Y=case["Y"], arguments=case["arguments"], expected=expected, regime=FRESH_REGIME, rounds=None,
                reference="float64", origin=origin)


def _well_posed(algorithm: str, case: dict) -> bool:
    """Batch systems within BATCH_CONDITION_LIMIT (the tolerance assumes it)."""
    if algorithm != "batch_ridge":
        return True
    kernel = ovk_ref.as_kernel(case["arguments"]["kernel"])
    t = len(case["X"])
    eigenvalues = np.linalg.eigvalsh(kernel.gram(case["X"]) + t * case["arguments"]["lam"] * np.eye(t * kernel.d))
    return eigenvalues[0] > 0 and eigenvalues[-1] / eigenvalues[0] <= tolerances.BATCH_CONDITION_LIMIT


def fresh_cases(seed: int, count: int, algorithms=ALGORITHMS) -> list[Case]:
    """``count`` fresh cases of ``seed`` (ill-conditioned batch draws are replaced by the next index)."""
    cases, index = [], 0
    while len(cases) < count:
        algorithm, case = draw_case(seed, index, algorithms)
        index += 1
        if _well_posed(algorithm, case):
            cases.append(reference_case(algorithm, case, f"seed {seed}"))
    return cases


def _sub_case(case: Case, rows) -> Case:
    sub = {"id": case.id, "comment": case.comment, "flags": case.flags, "X": case.X[rows], "Y": case.Y[rows],
           "arguments": case.arguments}
    return reference_case(case.algorithm, sub, case.origin)


def shrink(case: Case, fails, outcome=None) -> Case:
    """The shortest sub-stream of ``case`` on which ``fails(case)`` still holds: first cut after the first
    diverging round (ONORMA and MONORMA are causal: round t depends on rounds <= t only), then drop single
    rounds greedily, at most SHRINK_CALLS calls."""
    rows = np.arange(len(case.X))
    current = case
    if outcome is not None and outcome.diverging_round is not None and outcome.diverging_round < len(rows):
        candidate = _sub_case(case, rows[:outcome.diverging_round])
        if fails(candidate):
            rows, current = rows[:outcome.diverging_round], candidate
    calls, position = 1, 0
    while position < len(rows) and len(rows) > 1 and calls < SHRINK_CALLS:
        kept = np.delete(rows, position)
        candidate = _sub_case(case, kept)
        calls += 1
        if fails(candidate):
            rows, current = kept, candidate
        else:
            position += 1
    return dataclasses.replace(current, id=f"{case.id}-shrunk", comment=(
        f"{case.comment}; shrunk from {len(case.X)} to {len(rows)} rounds (rows {rows.tolist()})"))


def write_case_file(case: Case, path: Path) -> None:
    """A replayable case file (format ``ovk-vectors-2``, expected values as float.hex)."""
    atomic_file.write_text(path, json.dumps({"format": FORMAT, "cases": [case.to_dict()]}, indent=1) + "\n")


def read_case_file(path: Path) -> list[Case]:
    try:
        content = json.loads(Path(path).read_text())
    except (OSError, ValueError) as error:
        raise ValueError(f"case file {path} cannot be read: {error}") from None
    return cases_in(content, str(path))
