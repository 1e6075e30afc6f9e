"""What an implementation offers beyond the scope it declares: one tiny probe case per value it declares away.

The adopter owns the verdict (docs/conformance.md, "What exit 0 means"): a declared scope says what the engine
*asks* to be certified on, not what it *offers*. Before the cases run, the oracle sends a probe for every algorithm
the implementation has a function for (a command: every algorithm of ``--algorithms``) that its declared scope
leaves out, and, for each algorithm it declares, for every kernel family, loss and truncation kind it declares away.
A probe is a six-round case (``probe_cases``) with ovk_ref's expected values. An answer that is not a refusal
(a result with fields, right or wrong: an "unsupported" answer, an error, an exception, a crash or a time-out is a
refusal) means the value is offered; offered but not in the declared scope is ``PARTIAL: <value> offered, not
certified``, and the run fails unless the adopter narrows it explicitly (``--require``, ``--allow-partial``;
``--algorithms`` narrows what is probed too). The probe's answer is compared with the reference and the report
says how far off it is. An implementation that declares no scope declares every case of what it offers: nothing to
probe.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ovk_conform import fresh
from ovk_conform.scope import AXES

#: rounds of a probe case (t = 6, p = 2, d = 2: milliseconds for any engine)
PROBE_ROUNDS = 6
#: ONORMA's truncation argument of a probe of each kind (a listed schedule that drops two terms at round 5)
PROBE_TRUNCATIONS = {"window": {"type": "window", "s": 2}, "theorem2": {"type": "theorem2", "t0": 2, "epsilon": 0.25},
                     "listed": {"type": "listed", "s": [1, 2, 3, 4, 2, 3]}}
#: the probe's kernel and loss when the scope does not name one: the first family and loss of the vocabulary
DEFAULT_FAMILY, DEFAULT_LOSS = "gaussian_separable", "squared"
#: how a probe names the axis of the value it asks
AXIS_NAMES = {"kernels": "kernel", "losses": "loss", "truncations": "truncation"}


@dataclass(frozen=True)
class Probe:
    """A probe case and what it asks: ``what`` is "monorma", "onorma kernel feature", "onorma loss huber", ..."""

    what: str
    case: object


@dataclass
class ProbeAnswer:
    """``offered``: the implementation answered with fields; ``detail``: how (refused: why; answered: how far
    from the reference)."""

    what: str
    offered: bool
    detail: str

    def to_dict(self) -> dict:
        return {"what": self.what, "offered": self.offered, "detail": self.detail}


def _case(algorithm: str, index: int, seed, family: str, loss: str, truncation: str, families: tuple):
    rng = np.random.default_rng([0 if seed is None else seed, 9, index])
    loss_dict = next(item for item in fresh.LOSSES if item["type"] == loss)
    p, d = 2, 2
    X = rng.uniform(0.0, 1.0, size=(PROBE_ROUNDS, p)) / np.sqrt(p)
    Y = (np.eye(d)[rng.integers(0, d, size=PROBE_ROUNDS)] if loss in fresh.CLASS_LOSSES
         else rng.standard_normal((PROBE_ROUNDS, d)))
    terms = tuple(name for name in families if name != "sum") or (DEFAULT_FAMILY,)

    def kernel(name):
        return fresh._kernel(rng, name, p, d, 1.0, terms)
    if algorithm == "batch_ridge":
        arguments = {"kernel": kernel(family), "lam": 0.2}
    elif algorithm == "monorma":
        arguments = {"lam": 0.1, "eta": 0.5, "kernels": [kernel(family), kernel(terms[0])], "loss": loss_dict, "r": 1.0}
    else:
        arguments = {"lam": 0.1, "eta": 0.5, "kernel": kernel(family), "loss": loss_dict}
        if truncation != "none":
            arguments["truncation"] = PROBE_TRUNCATIONS[truncation]
    case = {"id": f"probe-{index}", "comment": f"probe {index}", "flags": ["probe"], "X": X, "Y": Y,
            "arguments": arguments}
    return fresh.reference_case(algorithm, case, "probe")


def _first(values: tuple, preferred: str) -> str:
    usable = [value for value in values if value != "sum"] or list(values)
    return preferred if preferred in usable else usable[0]


def probe_cases(scope, offers, algorithms, seed) -> list[Probe]:
    """The probes of what ``offers`` (algorithm names) holds and the declared ``scope`` leaves out, among
    ``algorithms`` (the adopter's ``--algorithms``): an undeclared algorithm with the default kernel and loss, an
    undeclared kernel family, loss or truncation kind with the scope's own values on the other axes."""
    probes = []

    def add(what, algorithm, family, loss, truncation, families):
        probes.append(Probe(what, _case(algorithm, len(probes), seed, family, loss, truncation, families)))
    for algorithm in algorithms:
        if algorithm not in offers:
            continue
        axes = scope.algorithms.get(algorithm)
        if axes is None:
            add(algorithm, algorithm, DEFAULT_FAMILY, DEFAULT_LOSS, "none", (DEFAULT_FAMILY,))
            continue
        family = _first(axes["kernels"], DEFAULT_FAMILY)
        loss = _first(axes.get("losses", (DEFAULT_LOSS,)), DEFAULT_LOSS)
        truncation = _first(axes.get("truncations", ("none",)), "none")
        for axis, known in AXES[algorithm].items():
            for value in known:
                if axis == "inputs" or value in axes[axis] or axis == "truncations" and value not in (
                        "none", *PROBE_TRUNCATIONS):
                    continue
                add(f"{algorithm} {AXIS_NAMES[axis]} {value}", algorithm, value if axis == "kernels" else family,
                    value if axis == "losses" else loss, value if axis == "truncations" else truncation,
                    axes["kernels"])
    return probes


def answer(probe: Probe, result, judge) -> ProbeAnswer:
    """What the implementation's ``result`` (a ``wire.CallResult``) to ``probe`` says: refused or offered (and the
    probe's comparison with the reference, ``judge(case, result)``)."""
    if result.unsupported is not None:
        return ProbeAnswer(probe.what, False, f"refused (unsupported: {result.unsupported[:80]})")
    if result.error is not None or result.timed_out:
        return ProbeAnswer(probe.what, False, f"refused ({(result.error or 'timed out')[:80]})")
    outcome = judge(probe.case, result)
    if outcome.status == "pass":
        return ProbeAnswer(probe.what, True, f"answered a {PROBE_ROUNDS}-round probe within the tolerance")
    where = f" at {outcome.where}" if outcome.where else ""
    error = "" if outcome.max_rel_error is None else f", max relative error {outcome.max_rel_error:.2g}"
    return ProbeAnswer(probe.what, True, f"answered a {PROBE_ROUNDS}-round probe WRONG{where}{error}")


def offered_not_certified(answers) -> list[str]:
    """The values the implementation offers and its declared scope leaves out."""
    return [item.what for item in answers if item.offered]
