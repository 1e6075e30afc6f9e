"""The envelope: the space of sizes and kinds the oracle certifies, what each level's fresh cases reach of it, and
what a run exercised (docs/conformance.md, "What exit 0 means").

``AXES`` are the sizes a library author's engine meets (d up to 32, p up to 8, m up to 10, t up to 4096, windows up
to 2048, Theorem 2's t0 up to 100, listed schedules dropping up to 64 terms in one round, batch systems of t d up to
4000), each with the algorithms it applies to and its top. Beside them, the kinds: every kernel family and loss in
long streams of every algorithm. ``REACH`` says how far each level's stratified fresh cases go on each axis
(``stratified.py`` draws one case at that top per algorithm and axis, log-uniform elsewhere): the expected values
are ovk_ref's, literal and slow (about 10 us per kernel block and 100 us per batch Gram block on one core), so the
quick and standard levels stop below the envelope's top where ovk_ref's cost would pass their time budgets (5 s, 20 s
on 2 cores); the stored regimes add their fixed points (windows 1000, t d = 4000, t = 140000). ``exercised`` measures
a run's cases on every axis and ``coverage_lines`` prints, per axis, the range exercised and what the run cannot see.
"""
from __future__ import annotations

from dataclasses import dataclass

ONLINE = ("onorma", "monorma")
EVERY = ("onorma", "monorma", "batch_ridge")


@dataclass(frozen=True)
class Axis:
    """One size of the envelope: ``description``, the algorithms it applies to, its lowest and its top value."""

    description: str
    algorithms: tuple
    low: int
    top: int


AXES = {
    "d": Axis("outputs d", EVERY, 1, 32),
    "p": Axis("inputs p", EVERY, 1, 8),
    "m": Axis("MONORMA kernels m", ("monorma",), 2, 10),
    "t": Axis("rounds t", ONLINE, 2, 4096),
    "window": Axis("window s", ("onorma",), 1, 2048),
    "t0": Axis("Theorem 2's t0", ("onorma",), 1, 100),
    "drop": Axis("terms a listed schedule drops in one round", ("onorma",), 1, 64),
    "td": Axis("batch system size t d", ("batch_ridge",), 2, 4000),
}

#: level -> (algorithm, axis) -> the top its stratified fresh cases reach; the envelope's top when not listed.
#: Lowered only where ovk_ref's cost passes the level's budget: a window s costs s^2/2 kernel blocks before it
#: truncates, MONORMA t^2 m / 2, a batch system (t d)^2 / d^2 Gram blocks.
REACH = {
    "quick": {("onorma", "window"): 128, ("monorma", "t"): 128, ("onorma", "drop"): 32, ("batch_ridge", "td"): 256},
    "standard": {("onorma", "window"): 256, ("monorma", "t"): 200, ("batch_ridge", "td"): 512},
    "exhaustive": {("monorma", "t"): 1100},
}
#: level -> (rounds of ONORMA's long kind streams, of MONORMA's): every kernel family and loss in each
KIND_ROUNDS = {"quick": ((100, 160), (40, 64)), "standard": ((520, 700), (100, 140)),
               "exhaustive": ((1000, 4096), (600, 1100))}


def reach(level: str, algorithm: str, axis: str) -> int:
    """The top the level's stratified fresh cases reach on ``axis`` for ``algorithm``."""
    return REACH.get(level, {}).get((algorithm, axis), AXES[axis].top)


def listed_drop(sizes) -> int:
    """The most terms a listed schedule ``s_1..s_n`` drops in one round (``lo_t = max(lo_{t-1}, t - s_t)``)."""
    lo, most = 0, 0
    for t, s in enumerate(sizes, start=1):
        new = max(lo, t - s)
        most = max(most, new - lo)
        lo = new
    return most


def values(case) -> dict:
    """The case's value on each axis it has (``AXES``)."""
    algorithm, arguments = case.algorithm, case.arguments
    n, d = case.Y.shape
    found = {"d": d, "p": case.X.shape[1]}
    if algorithm == "batch_ridge":
        found["td"] = n * d
        return found
    found["t"] = n
    if algorithm == "monorma":
        found["m"] = len(arguments["kernels"])
    truncation = arguments.get("truncation") or {}
    if truncation.get("type") == "window":
        found["window"] = truncation["s"]
    elif truncation.get("type") == "theorem2":
        found["t0"] = truncation["t0"]
    elif truncation.get("type") == "listed":
        found["drop"] = listed_drop(truncation["s"])
    return found


def kinds(case) -> tuple:
    """The case's kernel families and loss (None for batch ridge)."""
    from ovk_conform.scope import kernel_families
    kernels = case.arguments.get("kernels") or [case.arguments["kernel"]]
    families = set().union(*(kernel_families(kernel) for kernel in kernels))
    loss = case.arguments.get("loss")
    return families, None if loss is None else loss["type"]


#: a stream this long is a long stream for the kinds' coverage (a fault that starts after round 64 is inside it)
LONG_STREAM = 100


def exercised(cases) -> dict:
    """What ``cases`` exercised: ``{"axes": {axis: {algorithm: [low, high]}}, "long_kinds": {algorithm:
    {"families": [...], "losses": [...]}}}`` (long: at least LONG_STREAM rounds)."""
    axes, long_kinds = {}, {}
    for case in cases:
        for axis, value in values(case).items():
            span = axes.setdefault(axis, {}).setdefault(case.algorithm, [value, value])
            span[0], span[1] = min(span[0], value), max(span[1], value)
        if case.algorithm != "batch_ridge" and len(case.X) >= LONG_STREAM:
            families, loss = kinds(case)
            entry = long_kinds.setdefault(case.algorithm, {"families": set(), "losses": set()})
            entry["families"] |= families
            entry["losses"].add(loss)
    return {"axes": axes, "long_kinds": {algorithm: {key: sorted(value) for key, value in entry.items()}
                                         for algorithm, entry in long_kinds.items()}}


def coverage(cases, scope) -> dict:
    """Per axis, the envelope, what ``cases`` exercised and what they cannot see, for the algorithms of
    ``scope`` (``scope.Scope``); the same for the kinds in long streams."""
    seen = exercised(cases)
    axes = {axis: _axis_coverage(axis, seen, scope) for axis in AXES
            if any(name in scope.algorithms for name in AXES[axis].algorithms)}
    long_kinds = {algorithm: _kind_coverage(algorithm, seen, scope) for algorithm in ONLINE
                  if algorithm in scope.algorithms}
    return {"axes": axes, "long_kinds": long_kinds}


def _axis_coverage(axis: str, seen: dict, scope) -> dict:
    definition = AXES[axis]
    algorithms = [name for name in definition.algorithms if name in scope.algorithms]
    spans = seen["axes"].get(axis, {})
    unseen = []
    for algorithm in algorithms:
        span = spans.get(algorithm)
        if span is None:
            unseen.append(f"{algorithm}: every {definition.description}")
        elif span[1] < definition.top:
            unseen.append(f"{algorithm}: {definition.description} from {span[1] + 1} to {definition.top}")
    return {"description": definition.description, "envelope": [definition.low, definition.top],
            "exercised": {name: spans[name] for name in algorithms if name in spans}, "cannot_see": unseen}


def _kind_coverage(algorithm: str, seen: dict, scope) -> dict:
    axes = scope.algorithms[algorithm]
    entry = seen["long_kinds"].get(algorithm, {"families": [], "losses": []})
    missing = [name for name in axes["kernels"] if name not in entry["families"]]
    missing += [name for name in axes["losses"] if name not in entry["losses"]]
    return {**entry, "cannot_see": missing}


def coverage_lines(report: dict) -> list:
    """The coverage as text, one line per axis and per algorithm's long kinds."""
    lines = []
    for axis, entry in report["axes"].items():
        spans = ", ".join(f"{name} {low}-{high}" for name, (low, high) in entry["exercised"].items()) or "none"
        line = f"  {axis:6s} {entry['description']} (envelope {entry['envelope'][0]}-{entry['envelope'][1]}): {spans}"
        if entry["cannot_see"]:
            line += "; cannot see " + "; ".join(entry["cannot_see"])
        lines.append(line)
    for algorithm, entry in report["long_kinds"].items():
        line = (f"  kinds  {algorithm} streams of {LONG_STREAM}+ rounds: families {', '.join(entry['families']) or 'none'};"
                f" losses {', '.join(entry['losses']) or 'none'}")
        if entry["cannot_see"]:
            line += "; cannot see " + ", ".join(entry["cannot_see"]) + f" after round {LONG_STREAM}"
        lines.append(line)
    return lines
