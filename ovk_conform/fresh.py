"""Fresh cases: drawn from a printed seed inside the declared scope, computed by ovk_ref on the spot.

No table of stored answers can pass them: the inputs exist only in this run. Most are small (t <= 40, d <= 4,
m <= 5) so that ovk_ref float64 computes each in milliseconds; the long ones (``LONG_ROUNDS``: ONORMA up to
4096 rounds with a window, or Theorem 2's schedule) take ovk_ref a few seconds. float64 round-off on them stays
near 1e-14 of each field's scale (eta and the kernels are bounded so that every run is stable), far inside the
tolerance. Their expected values are computed before any case is sent (``seal.py``). A failing fresh case is
shrunk (``shrink``) to a short stream that still fails and written as a replayable case file
(``write_case_file``; ``ovk-check conform --replay FILE``).
"""
from __future__ import annotations

import dataclasses
import functools
import json
import time
from pathlib import Path

import numpy as np

import ovk_ref
from ovk_conform import tolerance, vocabulary
from ovk_conform.reference import computed_on, reference_fields
from ovk_conform.scope import Scope
from ovk_conform.vectors import EXACT_FIELDS, FORMAT, Case, cases_in
from ovk_ref import atomic_file, input_file
from ovk_ref.kernels import portable
from ovk_ref.losses import LOSSES as LOSS_CLASSES

FRESH_REGIME = "fresh"
#: at most this many calls of the implementation while shrinking one failure
SHRINK_CALLS = 60
#: rounds are dropped one at a time only from streams this short (after the cut at the first divergence)
SHRINK_ROUNDS = 200


def _psd(rng, d: int) -> list:
    R = rng.standard_normal((d, d))
    B = R @ R.T
    return (B / np.linalg.eigvalsh(B)[-1]).tolist()       # largest eigenvalue 1


def _kernel(rng, family: str, p: int, d: int, mu_scale: float, families: tuple) -> dict:
    """A kernel of ``family`` (a sum's terms drawn from ``families``), bounded by about 8 for |x| <= 1: a separable
    family's scalar fields as its scalar kernel draws them (``fresh_fields``, its bandwidth scaled by ``mu_scale``)
    and a ``B`` of largest eigenvalue 1; another family's fields as it draws them; ValueError for an unknown one."""
    scalar = portable.scalar_of(family)
    if scalar is not None:
        return {"type": family, **scalar.fresh_fields(rng, mu_scale), "B": _psd(rng, d)}
    if family == "sum":
        terms = [str(rng.choice([name for name in families if name != "sum"])) for _ in range(2)]
        return {"type": "sum", "terms": [{"weight": 0.5, "kernel": _kernel(rng, term, p, d, mu_scale, families)}
                                         for term in terms]}
    if family not in portable.OPERATOR_FAMILIES:
        raise ValueError(f"unknown kernel family {family!r}; known families: {', '.join(vocabulary.KERNEL_FAMILIES)}")
    return {"type": family, **portable.OPERATOR_FAMILIES[family].fresh_fields(rng, p, d)}


#: every loss with the fields fresh cases use (``fresh_fields``)
LOSSES = tuple({"type": name, **loss.fresh_fields()} for name, loss in LOSS_CLASSES.items())
#: long fresh cases: rounds of a truncated ONORMA stream (window s <= LONG_WINDOW, or Theorem 2 with
#: epsilon 0.1), of an untruncated one, of MONORMA, and the size of a batch; chosen so that ovk_ref computes
#: each in a second or two (it evaluates every kept term literally: 5-25 us per kernel block)
LONG_ROUNDS = {"window": (2000, 4096), "listed": (2000, 4096), "theorem2": (1200, 1600), "none": (600, 900),
               "smallest": (600, 900), "random": (600, 900), "projection": (300, 500),
               "monorma": (300, 500), "batch_ridge": (150, 250)}
LONG_WINDOW = 32
#: the truncation kinds fresh cases draw: not ``listed`` nor the removal policies (drawing them would change what
#: every earlier seed draws), except for a scope that offers no other: then its kinds
DRAWN_TRUNCATIONS = ("none", "window", "theorem2")
#: the largest budget of a long fresh case with a projection (each removal solves (budget - 1) d unknowns in ovk_ref)
LONG_PROJECTION_BUDGET = 8
#: the kernel families long streams use when the scope has one of them: all but the feature kernel and sums (they cost
#: ovk_ref two to three times more per block; the kernel-family regime runs each family over 200 rounds)
LONG_FAMILIES = tuple(name for name in vocabulary.KERNEL_FAMILIES if name not in ("feature", "sum"))
#: the scope's ``inputs`` value of each placement of the inputs a fresh case draws
PLACEMENTS = ("near", "offset", "scaled", "scaled")
#: (offset, scale) of the inputs at each placement: ``x = offset + scale U``
PLACEMENT_OFFSET_SCALE = ((0.0, 1.0), (1e6, 1.0), (0.0, 1e-4), (0.0, 1e4))
#: the losses whose outputs are one-hot classes
CLASS_LOSSES = vocabulary.CLASS_LOSSES


def _families(scope, algorithm: str, long: bool) -> tuple:
    """The kernel families fresh cases of ``algorithm`` may use: the scope's, without ``sum`` when no other
    family is there to be summed; long streams keep to ``LONG_FAMILIES`` when the scope has one of them."""
    families = scope.algorithms[algorithm]["kernels"]
    families = tuple(name for name in families if name != "sum" or len(families) > 1)
    if long:
        families = tuple(name for name in families if name in LONG_FAMILIES) or families
    return families


def _draw_algorithm(rng, scope, long: bool) -> str:
    """Any algorithm of the scope; a long stream's is the first one that is not batch ridge (drawn from nothing)."""
    algorithms = [name for name in scope.algorithms if not long or name != "batch_ridge"] or list(scope.algorithms)
    return str(algorithms[0] if long else rng.choice(algorithms))


def _draw_placement(rng, inputs: tuple, families: tuple, long: bool) -> int:
    """The index in ``PLACEMENTS`` of where the inputs lie: far or extreme inputs (placements 1-3) only with Gaussian
    kernels (the bandwidth follows the scale); long streams near the origin when the scope has them."""
    weights = np.array([0.55, 0.15, 0.15, 0.15]) * [kind in inputs for kind in PLACEMENTS]
    if "gaussian_separable" not in families or long and "near" in inputs:
        weights[1:] = 0.0
    return int(rng.choice(4, p=weights / weights.sum()))


def _draw_truncation_and_rounds(rng, algorithm: str, axes: dict, long: bool) -> tuple:
    """The truncation kind (ONORMA, among ``DRAWN_TRUNCATIONS``; for a scope with none of them, its removal policies,
    else ``listed``; ``none`` elsewhere, and never for a long stream when there is another) and the number of rounds: 2 to 40, or
    ``LONG_ROUNDS`` of the truncation (ONORMA) or of the algorithm."""
    offered = axes.get("truncations", ("none",))
    kinds = [kind for kind in offered if kind in DRAWN_TRUNCATIONS and (not long or kind != "none")]
    kinds = kinds or (["none"] if "none" in offered else [kind for kind in offered if kind != "listed"] or ["listed"])
    truncation = str(rng.choice(kinds))
    if not long:
        return truncation, int(rng.integers(2, 41))
    low, high = LONG_ROUNDS[truncation if algorithm == "onorma" else algorithm]
    return truncation, int(rng.integers(low, high + 1))


def _draw_kernel_families(rng, algorithm: str, placement: int, families: tuple, long: bool) -> list:
    """The family of each kernel: one (MONORMA: 2 to 5, or 2 to 3 for a long stream), Gaussian for inputs that are
    not near the origin. MONORMA draws its families after one unused draw of a single family."""
    family = "gaussian_separable" if placement else str(rng.choice(families))
    if algorithm != "monorma":
        return [family]
    return ["gaussian_separable" if placement else str(rng.choice(families))
            for _ in range(int(rng.integers(2, 4 if long else 6)))]


def _draw_loss(rng, axes: dict):
    """One of ``LOSSES`` among the scope's, or None for an algorithm without a loss (batch ridge)."""
    loss_name = str(rng.choice(axes["losses"])) if "losses" in axes else None
    return next((loss for loss in LOSSES if loss["type"] == loss_name), None)


def _draw_stream(rng, n: int, p: int, d: int, placement: int, classes: bool) -> tuple:
    """``X`` (n, p) at ``placement``, ``|x| <= 1`` near the origin (for the kernels that grow with |x|, so that every
    kernel norm is at most about 2^3 = 8); ``Y`` (n, d): one-hot ``classes`` or standard normal."""
    offset, scale = PLACEMENT_OFFSET_SCALE[placement]
    X = offset + scale * rng.uniform(0.0, 1.0, size=(n, p)) / (1.0 if placement else np.sqrt(p))
    if placement:       # spread exactly ``scale`` in the first input: the placement the scope sees (input_placement)
        X[0, 0], X[-1, 0] = offset, offset + scale
    Y = np.eye(d)[rng.integers(0, d, size=n)] if classes else rng.standard_normal((n, d))
    return X, Y


def _draw_truncation(rng, truncation: str, n: int, long: bool) -> dict:
    """ONORMA's ``truncation`` argument (empty for ``none``): a window of 1 to n rounds (long: 8 to ``LONG_WINDOW``),
    Theorem 2's schedule with t0 in 1..5 (long: epsilon 0.1), a listed schedule of such windows, one per round, or a
    removal policy with such a budget (a projection's, long: at most ``LONG_PROJECTION_BUDGET``; random: a seed)."""
    if truncation == "listed":
        low, high = (8, LONG_WINDOW) if long else (1, n)
        return {"truncation": {"type": "listed", "s": rng.integers(low, high + 1, size=n).tolist()}}
    if truncation == "window":
        return {"truncation": {"type": "window",
                               "s": int(rng.integers(8, LONG_WINDOW + 1) if long else rng.integers(1, n + 1))}}
    if truncation in ("smallest", "random", "projection"):
        high = min(LONG_PROJECTION_BUDGET if truncation == "projection" else LONG_WINDOW, n) if long else n
        budget = {"type": truncation, "budget": int(rng.integers(8 if long else 1, high + 1))}
        return {"truncation": {**budget, "seed": int(rng.integers(0, 2**31))} if truncation == "random" else budget}
    if truncation == "theorem2":
        return {"truncation": {"type": "theorem2", "t0": int(rng.integers(1, 6)),
                               "epsilon": 0.1 if long else float(rng.choice([0.1, 0.25, 0.4]))}}
    return {}


def _draw_arguments(rng, algorithm: str, kernel, kernel_families: list, loss, truncation: str, n: int,
                    long: bool) -> dict:
    """The algorithm's parameters: lam, eta with ``eta_1 kappa^2 <= 2`` (stable runs), the kernel(s) (``kernel``
    draws one of a family), ONORMA's truncation, MONORMA's r."""
    lam = float(rng.uniform(0.02, 0.5))
    eta = float(min(rng.uniform(0.05, 0.25), 0.99 / lam))     # eta_1 kappa^2 <= 2: stable runs
    if algorithm == "batch_ridge":
        return {"kernel": kernel(kernel_families[0]), "lam": max(lam, 0.05)}
    if algorithm == "onorma":
        return {"lam": lam, "kernel": kernel(kernel_families[0]), "loss": loss, "eta": eta,
                **_draw_truncation(rng, truncation, n, long)}
    return {"lam": lam, "kernels": [kernel(family) for family in kernel_families], "loss": loss, "eta": eta,
            "r": float(rng.choice([0.1, 0.5, 1.0, 2.0, 10.0]))}


def draw_case(seed: int, index: int, scope, long: bool = False) -> tuple:
    """The ``index``-th fresh case of ``seed`` inside ``scope`` (``scope.Scope``) as (algorithm, case dict),
    inputs and parameters only; ``long``: from the long streams' draw (``LONG_ROUNDS``). The draws come in one
    fixed order (a seed replays its cases): algorithm, sizes, placement, truncation and rounds, kernel families,
    loss, stream, parameters."""
    rng = np.random.default_rng([seed, index, 1] if long else [seed, index])
    algorithm = _draw_algorithm(rng, scope, long)
    axes, families = scope.algorithms[algorithm], _families(scope, algorithm, long)
    p, d = int(rng.integers(1, 6)), int(rng.integers(1, 5))
    placement = _draw_placement(rng, axes["inputs"], families, long)
    truncation, n = _draw_truncation_and_rounds(rng, algorithm, axes, long)
    kernel_families = _draw_kernel_families(rng, algorithm, placement, families, long)
    loss = _draw_loss(rng, axes)
    classes = loss is not None and loss["type"] in CLASS_LOSSES
    d = 2 if classes and d == 1 else d
    X, Y = _draw_stream(rng, n, p, d, placement, classes)
    offset, scale = PLACEMENT_OFFSET_SCALE[placement]
    kernel = functools.partial(_kernel, rng, p=p, d=d, mu_scale=scale * scale, families=families)
    arguments = _draw_arguments(rng, algorithm, kernel, kernel_families, loss, truncation, n, long)
    comment = (f"fresh {'long ' if long else ''}case {index} of seed {seed}: {algorithm}, {'+'.join(kernel_families)}"
               + (f", {loss['type']} loss" if loss else "") + (f", x = {offset:g} + {scale:g} U" if placement else ""))
    return algorithm, {"id": f"fresh-{seed}-{'L' if long else ''}{index}", "comment": comment,
                       "flags": ["fresh", "long"] if long else ["fresh"], "X": X, "Y": Y, "arguments": arguments}


def reference_case(algorithm: str, case: dict, origin: str, fields: dict | None = None) -> Case:
    """The case with ovk_ref's float64 values of every field, every round (``fields``: already computed)."""
    fields = reference_fields(algorithm, case["X"], case["Y"], case["arguments"]) if fields is None else fields
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
    return eigenvalues[0] > 0 and eigenvalues[-1] / eigenvalues[0] <= tolerance.BATCH_CONDITION_LIMIT


def draw_cases(seed: int, count: int, scope, long: int = 0) -> list:
    """``count`` fresh cases and ``long`` long ones of ``seed`` inside ``scope``, as (algorithm, case dict)
    (ill-conditioned batch draws are replaced by the next index)."""
    drawn = []
    for is_long, wanted in ((False, count), (True, long)):
        index, found = 0, 0
        while found < wanted:
            algorithm, case = draw_case(seed, index, scope, is_long)
            index += 1
            if _well_posed(algorithm, case):
                drawn.append((algorithm, case))
                found += 1
    return drawn


def _cost(drawn: tuple) -> int:
    """ovk_ref's relative cost of a drawn case: the kernel blocks it evaluates (each round evaluates every kept
    term of every kernel; a batch system every pair)."""
    algorithm, case = drawn
    n = len(case["X"])
    if algorithm == "batch_ridge":
        return n * n
    spec = case["arguments"].get("truncation") or {}
    kept = {"window": lambda: min(n, spec.get("s", n)), "theorem2": lambda: min(n, spec.get("t0", 1) + int(n ** 0.6)),
            "listed": lambda: max(spec.get("s", [n])), }.get(spec.get("type"), lambda: n // 2)()
    return n * max(1, kept) * max(1, len(case["arguments"].get("kernels", ())))


def fresh_cases(seed: int, count: int, scope=None, long: int = 0, pool=None, extra=()) -> list[Case]:
    """``count`` (and ``long``) fresh cases of ``seed`` inside ``scope`` (default: every case), and the ``extra``
    drawn ones (``stratified.py``), with their expected values, computed on ``pool`` (``reference.computed_on``;
    costliest first, so that no process ends alone on a long stream) or here."""
    scope = Scope.full() if scope is None else scope
    drawn = draw_cases(seed, count, scope, long) + list(extra)
    futures = {index: computed_on(pool, reference_fields, drawn[index][0], drawn[index][1]["X"], drawn[index][1]["Y"],
                                  drawn[index][1]["arguments"])
               for index in sorted(range(len(drawn)), key=lambda index: -_cost(drawn[index]))}
    return [reference_case(algorithm, case, f"seed {seed}", futures[index].result())
            for index, (algorithm, case) in enumerate(drawn)]


def _sub_case(case: Case, rows) -> Case:
    """The case on the rounds ``rows`` (0-based, ascending); a listed schedule keeps each kept round's ``s_t``."""
    arguments = case.arguments
    if (arguments.get("truncation") or {}).get("type") == "listed":
        s = arguments["truncation"]["s"]
        arguments = dict(arguments, truncation={"type": "listed", "s": [s[row] for row in rows]})
    sub = {"id": case.id, "comment": case.comment, "flags": case.flags, "X": case.X[rows], "Y": case.Y[rows],
           "arguments": arguments}
    return reference_case(case.algorithm, sub, case.origin)


def shrink(case: Case, fails, outcome, deadline: float | None = None) -> Case:
    """A short sub-stream of ``case`` on which ``fails(case)`` still holds: first cut after the first diverging
    round (ONORMA and MONORMA are causal: round t depends on rounds <= t only), then, for streams of at most
    SHRINK_ROUNDS rounds, drop single rounds greedily; at most SHRINK_CALLS calls, none after ``deadline``
    (``time.monotonic()``)."""
    rows = np.arange(len(case.X))
    current = case
    if outcome.diverging_round is not None and outcome.diverging_round < len(rows):
        candidate = _sub_case(case, rows[:outcome.diverging_round])
        if fails(candidate):
            rows, current = rows[:outcome.diverging_round], candidate
    calls, position = 1, 0
    while (position < len(rows) and 1 < len(rows) <= SHRINK_ROUNDS and calls < SHRINK_CALLS
           and (deadline is None or time.monotonic() < deadline)):
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
    """A replayable case file (the vectors' format, expected values as float.hex)."""
    atomic_file.write_text(path, json.dumps({"format": FORMAT, "cases": [case.to_dict()]}, indent=1) + "\n")


def read_case_file(path: Path) -> list[Case]:
    try:
        content = json.loads(input_file.read_text(path, "--replay"))
    except (OSError, ValueError) as error:
        raise ValueError(f"case file {path} cannot be read: {error}") from None
    return cases_in(content, str(path))
