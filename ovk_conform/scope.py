"""The declared scope: what an implementation offers, said before it sees any case.

A scope is JSON (schema ``schemas/scope.schema.json``)::

    {"precision": "float64",                               # or "float32"; absent: float64
     "algorithms": {
       "onorma": {"kernels": ["gaussian_separable"], "losses": ["squared"], "truncations": ["none", "window"]},
       "monorma": {},                                      # every kernel family and loss
       "batch_ridge": {"kernels": ["gaussian_separable", "linear_quadratic"]}}}

An algorithm that is absent is not offered; an axis that is absent means every value of it. The axes are the
kernel families (the portable dicts' ``type``; a ``sum`` kernel needs ``sum`` and the family of each term),
the losses (ONORMA, MONORMA), the truncation kinds (ONORMA: ``none``, ``window``, ``theorem2``, ``listed``: one
``s_t`` per round, stored cases only) and where the inputs lie (``near``, ``offset`` far from the origin,
``scaled`` to tiny or huge spreads). A case is in scope when its algorithm is and each of its values is; fresh
cases are drawn inside the scope (never with a listed schedule); a case inside it cannot be refused
("unsupported" fails). ``--require`` names a scope the declared one must cover (``missing``): a JSON text, a
file, or algorithm names (``onorma,monorma``: every case of those).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ovk_conform import vocabulary
from ovk_conform.protocol import ALGORITHMS
from ovk_ref import input_file, truncation

#: the kernel families, losses and truncation kinds, from ovk_ref's definitions (``vocabulary``)
KERNEL_FAMILIES, LOSSES, TRUNCATIONS = vocabulary.KERNEL_FAMILIES, vocabulary.LOSSES, vocabulary.TRUNCATIONS
#: where the inputs lie: ``near`` the origin at a unit scale, ``offset`` far from the origin compared with their
#: spread (where ``|x|^2 + |z|^2 - 2 <x, z>`` cancels), ``scaled`` to tiny or huge spreads (``input_placement``)
INPUTS = ("near", "offset", "scaled")
PRECISIONS = ("float64", "float32")
#: algorithm -> its axes and their values, in the order they are reported and drawn
AXES = {
    "onorma": {"kernels": KERNEL_FAMILIES, "losses": LOSSES, "truncations": TRUNCATIONS, "inputs": INPUTS},
    "monorma": {"kernels": KERNEL_FAMILIES, "losses": LOSSES, "inputs": INPUTS},
    "batch_ridge": {"kernels": KERNEL_FAMILIES, "inputs": INPUTS},
}
#: input magnitudes beyond this many spreads are ``offset``; spreads outside [1 / SCALE_LIMIT, SCALE_LIMIT] ``scaled``
SCALE_LIMIT = 1e3


def kernel_families(kernel: dict) -> set:
    """The families a portable kernel dict uses (a sum: ``sum`` and its terms')."""
    families = {kernel["type"]}
    for term in kernel.get("terms", ()) if kernel["type"] == "sum" else ():
        families |= kernel_families(term["kernel"])
    return families


def input_placement(X) -> str:
    """``near``, ``offset`` or ``scaled`` (``INPUTS``), from the inputs' largest magnitude and largest spread."""
    X = np.asarray(X, dtype=float)
    magnitude = float(np.max(np.abs(X))) if X.size else 0.0
    spread = float(np.max(np.ptp(X, axis=0))) if len(X) > 1 else 0.0
    if magnitude > SCALE_LIMIT * max(spread, 1.0 / SCALE_LIMIT):
        return "offset"
    if spread > SCALE_LIMIT or 0 < spread < 1 / SCALE_LIMIT and magnitude < 1 / SCALE_LIMIT:
        return "scaled"
    return "near"


def traits(case) -> dict:
    """The case's value on each axis of its algorithm: {"kernels": set, "losses": set, "truncations": set,
    "inputs": set}."""
    arguments = case.arguments
    kernels = arguments["kernels"] if "kernels" in arguments else [arguments["kernel"]]
    values = {"kernels": set().union(*(kernel_families(kernel) for kernel in kernels))}
    if "losses" in AXES[case.algorithm]:
        values["losses"] = {arguments["loss"]["type"]}
    if "truncations" in AXES[case.algorithm]:
        values["truncations"] = {truncation.kind_of(arguments.get("truncation"))}
    values["inputs"] = {input_placement(case.X)}
    return values


def _parse_axes(name: str, axes, where: str) -> dict:
    """What one algorithm of a scope declares: axis -> the values offered, in ``AXES``' order (ValueError)."""
    if name not in AXES:
        raise ValueError(f"{where}: unknown algorithm {name!r} (known: {', '.join(ALGORITHMS)})")
    if not isinstance(axes, dict) or set(axes) - set(AXES[name]):
        raise ValueError(f"{where}: algorithms.{name} must be an object with some of "
                         f"{', '.join(AXES[name])}, got {json.dumps(axes)[:120]}")
    parsed = {}
    for axis, known in AXES[name].items():
        given = axes.get(axis, list(known))
        if not isinstance(given, list) or not given or not set(given) <= set(known):
            raise ValueError(f"{where}: algorithms.{name}.{axis} must be a non-empty list of some of "
                             f"{', '.join(known)}, got {json.dumps(given)[:120]}")
        parsed[axis] = tuple(value for value in known if value in given)
    if parsed["kernels"] == ("sum",):
        raise ValueError(f"{where}: algorithms.{name}.kernels offers sum without a family for its terms")
    if "near" not in parsed["inputs"] and "gaussian_separable" not in parsed["kernels"]:
        raise ValueError(f"{where}: algorithms.{name} offers only far inputs, which come with Gaussian kernels, "
                         f"but no gaussian_separable kernel")
    return parsed


@dataclass(frozen=True)
class Scope:
    """``algorithms``: algorithm -> {axis: tuple of the values offered}, every axis present."""

    algorithms: dict
    precision: str = "float64"

    @classmethod
    def full(cls, algorithms=ALGORITHMS, precision: str = "float64") -> Scope:
        return cls({name: dict(AXES[name]) for name in ALGORITHMS if name in algorithms}, precision)

    @classmethod
    def parse(cls, value, where: str) -> Scope:
        """The scope a JSON value declares; ValueError naming ``where`` and the rule it breaks."""
        if not isinstance(value, dict) or not isinstance(value.get("algorithms"), dict) or set(value) - {
                "algorithms", "precision"}:
            raise ValueError(f"{where} must be a JSON object with 'algorithms' (an object) and optionally 'precision', "
                             f"got {json.dumps(value)[:120]}")
        precision = value.get("precision", "float64")
        if precision not in PRECISIONS:
            raise ValueError(f"{where}: precision must be one of {', '.join(PRECISIONS)}, got {precision!r}")
        algorithms = {name: _parse_axes(name, axes, where) for name, axes in value["algorithms"].items()}
        if not algorithms:
            raise ValueError(f"{where}: declares no algorithm")
        return cls({name: algorithms[name] for name in ALGORITHMS if name in algorithms}, precision)

    @classmethod
    def from_text(cls, text: str, option: str) -> Scope:
        """``--scope``/``--require``: a JSON object, the path of a JSON file, or comma-separated algorithm names."""
        return cls.parse(read_text(text, option), option)

    def restrict(self, algorithms) -> Scope:
        """The part of this scope in ``algorithms``."""
        return Scope({name: axes for name, axes in self.algorithms.items() if name in algorithms}, self.precision)

    def outside(self, case) -> str | None:
        """Why ``case`` is outside the scope (None when it is inside)."""
        if case.algorithm not in self.algorithms:
            return f"the declared scope offers no {case.algorithm}"
        for axis, values in traits(case).items():
            missing = sorted(values - set(self.algorithms[case.algorithm][axis]))
            if missing:
                return f"{axis} {', '.join(missing)} outside the declared scope of {case.algorithm}"
        return None

    def missing(self, required: Scope) -> list[str]:
        """What ``required`` holds that this scope does not (empty: this scope covers it)."""
        gaps = [] if required.precision == self.precision else [f"precision {required.precision}"]
        for name, axes in required.algorithms.items():
            if name not in self.algorithms:
                gaps.append(name)
                continue
            for axis, values in axes.items():
                lacking = [value for value in values if value not in self.algorithms[name][axis]]
                if lacking:
                    gaps.append(f"{name} {axis} {', '.join(lacking)}")
        return gaps

    def to_dict(self) -> dict:
        return {"precision": self.precision,
                "algorithms": {name: {axis: list(values) for axis, values in axes.items()}
                               for name, axes in self.algorithms.items()}}

    def text(self) -> str:
        """One line: ``onorma (kernels all; losses squared; truncations none, window), batch_ridge (all)``."""
        parts = []
        for name, axes in self.algorithms.items():
            described = [f"{axis} " + ("all" if values == AXES[name][axis] else ", ".join(values))
                         for axis, values in axes.items()]
            parts.append(f"{name} ({'all' if all(values == AXES[name][axis] for axis, values in axes.items()) else '; '.join(described)})")
        return ", ".join(parts) + f"; precision {self.precision}"


def read_text(text: str, option: str) -> dict:
    """The JSON scope ``text`` gives (a JSON object, the path of a JSON file, or comma-separated algorithm names:
    every case of those), checked by ``Scope.parse``; ValueError naming ``option``."""
    text = text.strip()
    if text.startswith("{"):
        try:
            value = json.loads(text)
        except json.JSONDecodeError as error:
            raise ValueError(f"{option} is not valid JSON: {error}") from None
    elif Path(text).is_file():
        try:
            value = json.loads(input_file.read_text(text, option))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            raise ValueError(f"{option} {text} cannot be read as JSON: {error}") from None
    else:
        names = [name.strip() for name in text.split(",") if name.strip()]
        if not names or set(names) - set(ALGORITHMS):
            raise ValueError(f"{option} must be a JSON scope, a JSON file or algorithm names among "
                             f"{', '.join(ALGORITHMS)}, got {text!r}")
        value = {"algorithms": {name: {} for name in names}}
    Scope.parse(value, option)
    return value
