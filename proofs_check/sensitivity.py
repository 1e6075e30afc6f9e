"""Fault sensitivity: every claim searched under every planted fault in its scope (``ovk-check sensitivity``).

Would ``verify`` have said "false" if the algorithm, a kernel or a loss were wrong? The run answers it claim by claim:

1. the reference run: every claim's search on ovk_ref as it is (the profile's ``verify`` search, without shrinking),
   recording which planted faults' code runs during it (``faults.recording``). **A fault is in scope of a claim when
   the code it patches runs during the claim's search on the reference**: a kernel fault is in scope of the claims
   that evaluate that kernel family, a MONORMA fault of the claims that run MONORMA, and so on;
2. one unit per (claim, fault in its scope): the claim's search with the fault planted in the worker process
   (``units.Unit.fault``), stopped at its first violation.

A cell is detected when the verdict differs from the reference's: ``F`` the claim turned false (a counterexample
of a claim that holds), ``H`` a false claim turned holds/open (its counterexample vanished), ``E`` the check
raised; ``.`` the same verdict; blank, out of scope. The units run where ``verify``'s run (``parallel.map_ordered``:
local worker processes, or a Dask cluster), longest first; the matrix is the same however they ran.

Cost: the reference run plus, for each fault, the searches of the claims in its scope; a search under a fault that
it detects stops at its first violation, one that it does not runs the profile's instances. So the time grows
linearly with the number of faults, by the mean cost of a claim's search times the claims in a fault's scope.
"""
from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field

from proofs_check.claims import CLAIMS
from proofs_check.faults import FAULTS, recording
from proofs_check.runner import Verdict
from proofs_check.units import Unit, run_unit

#: cell symbols: the verdict under the fault against the reference's
SYMBOLS = {"false": "F", "holds": "H", "open": "H", "proved": "H", "error": "E", "not applicable": "-"}


def reference_unit(unit: Unit) -> dict:
    """``run_unit`` on the reference, with the names of the faults whose code ran (``touched``)."""
    with recording(FAULTS.values()) as touched:
        result = run_unit(unit)
    return {**result, "touched": sorted(touched)}


@dataclass
class Cell:
    verdict: str
    reference: str
    instances: int = 0
    seconds: float = 0.0
    counterexample: dict | None = None
    error: str = ""

    @property
    def detected(self) -> bool:
        return self.verdict != self.reference

    @property
    def symbol(self) -> str:
        return SYMBOLS[self.verdict] if self.detected else "."


@dataclass
class Matrix:
    """``cells[claim][fault]`` for the faults in the claim's scope; ``reference[claim]`` the reference verdicts."""

    claims: list
    faults: list
    reference: dict
    cells: dict = field(default_factory=dict)
    profile: str = "ci"
    seconds: float = 0.0
    work_seconds: float = 0.0

    def in_scope(self, claim_id: str, fault: str) -> bool:
        return fault in self.cells.get(claim_id, {})

    def detectors(self, fault: str) -> list:
        return [claim_id for claim_id in self.claims if self.in_scope(claim_id, fault) and self.cells[claim_id][fault].detected]

    def violators(self, fault: str) -> list:
        """The claims the fault turned false (a counterexample under the fault)."""
        return [claim_id for claim_id in self.detectors(fault) if self.cells[claim_id][fault].verdict == "false"]

    def undetected(self) -> list:
        return [fault for fault in self.faults if not self.violators(fault)]

    def to_dict(self) -> dict:
        return {"profile": self.profile, "seconds": self.seconds, "work_seconds": self.work_seconds,
                "faults": {name: {"layer": FAULTS[name].layer, "reason": FAULTS[name].reason, "targets": list(FAULTS[name].targets),
                                  "in_scope_of": [c for c in self.claims if self.in_scope(c, name)],
                                  "detected_by": self.detectors(name), "turned_false": self.violators(name)}
                           for name in self.faults},
                "claims": {claim_id: {"expected": CLAIMS[claim_id].expected, "reference": self.reference[claim_id],
                                      "cells": {fault: {"verdict": cell.verdict, "detected": cell.detected,
                                                        "instances": cell.instances, "seconds": round(cell.seconds, 3),
                                                        "counterexample": cell.counterexample, "error": cell.error}
                                                for fault, cell in self.cells.get(claim_id, {}).items()}}
                           for claim_id in self.claims}}


def plan(claim_ids, profile: str, seed: int | None) -> list[Unit]:
    """The reference run: one unit per claim."""
    return [Unit(claim_id, profile, seed) for claim_id in claim_ids]


def fault_plan(reference_units, reference_results, fault_names) -> list[Unit]:
    """One unit per (claim, fault in its scope), the claims whose reference search took longest first."""
    pairs = [(result["seconds"], unit, fault) for unit, result in zip(reference_units, reference_results)
             for fault in fault_names if fault in result["touched"]]
    pairs.sort(key=lambda pair: -pair[0])
    return [Unit(unit.claim, unit.profile, unit.seed, fault=fault) for _, unit, fault in pairs]


def assemble(reference_units, reference_results, units, results, fault_names, *, profile, seconds) -> Matrix:
    reference = {unit.claim: result["verdict"] for unit, result in zip(reference_units, reference_results)}
    matrix = Matrix(claims=[unit.claim for unit in reference_units], faults=list(fault_names), reference=reference,
                    profile=profile, seconds=seconds,
                    work_seconds=sum(result["seconds"] for result in [*reference_results, *results]))
    for unit, result in zip(units, results):
        verdict = Verdict(**{key: value for key, value in result.items() if key != "touched"})
        matrix.cells.setdefault(unit.claim, {})[unit.fault] = Cell(
            verdict=verdict.verdict, reference=reference[unit.claim], instances=verdict.instances, seconds=verdict.seconds,
            counterexample=verdict.counterexample, error=verdict.error)
    for claim_id in matrix.cells:   # faults in the order of FAULTS
        matrix.cells[claim_id] = {fault: matrix.cells[claim_id][fault] for fault in fault_names if fault in matrix.cells[claim_id]}
    return matrix


def run(claim_ids, fault_names, profile: str, seed: int | None, *, run_units) -> Matrix:
    """The whole sensitivity run; ``run_units(function, units)`` runs units where the caller says."""
    start = time.perf_counter()
    reference_units = plan(claim_ids, profile, seed)
    reference_results = run_units(reference_unit, reference_units)
    units = fault_plan(reference_units, reference_results, fault_names)
    results = run_units(run_unit, units)
    return assemble(reference_units, reference_results, units, results, fault_names, profile=profile,
                    seconds=time.perf_counter() - start)


def _column_names(matrix: Matrix) -> list:
    return [f"{index:>2d}" for index in range(1, len(matrix.faults) + 1)]


def table(matrix: Matrix, *, markdown: bool = False) -> str:
    """Claims as rows, faults as numbered columns (the legend below names them, with their layer and reason)."""
    columns = _column_names(matrix)
    rows = []
    for claim_id in matrix.claims:
        cells = matrix.cells.get(claim_id, {})
        rows.append((claim_id, matrix.reference[claim_id], [cells[fault].symbol if fault in cells else " " for fault in matrix.faults]))
    if markdown:
        lines = ["| claim | reference | " + " | ".join(column.strip() for column in columns) + " |",
                 "|---|---|" + "---|" * len(columns)]
        lines += [f"| {claim_id} | {reference} | " + " | ".join(symbols) + " |" for claim_id, reference, symbols in rows]
    else:
        width = max(len(claim_id) for claim_id in matrix.claims)
        lines = [f"{'claim':{width}s}  {'reference':9s}  " + " ".join(columns)]
        lines += [f"{claim_id:{width}s}  {reference:9s}  " + " ".join(f"{symbol:>2s}" for symbol in symbols)
                  for claim_id, reference, symbols in rows]
    return "\n".join(lines)


def legend(matrix: Matrix, *, markdown: bool = False) -> str:
    """One line per fault: its number, name, layer, reason, and the claims that turned false under it."""
    lines = []
    if markdown:
        lines += ["| # | fault | layer | the bug | turned false (of the claims in scope) |", "|---|---|---|---|---|"]
    for index, fault in enumerate(matrix.faults, 1):
        scope = sum(matrix.in_scope(claim_id, fault) for claim_id in matrix.claims)
        caught = matrix.violators(fault)
        others = [claim_id for claim_id in matrix.detectors(fault) if claim_id not in caught]
        found = (", ".join(caught) or "none") + (f"; also {', '.join(others)}" if others else "")
        if markdown:
            reason = FAULTS[fault].reason.replace("|", "\\|")     # GFM: a pipe in a cell is escaped
            lines.append(f"| {index} | {fault} | {FAULTS[fault].layer} | {reason} | {found} ({len(caught)} of {scope}) |")
        else:
            lines.append(f"{index:>2d} {fault} [{FAULTS[fault].layer}]: {FAULTS[fault].reason}\n"
                         f"   turned false: {found} ({len(caught)} of {scope} in scope)")
    return "\n".join(lines)


def summary(matrix: Matrix) -> str:
    pairs = sum(len(cells) for cells in matrix.cells.values())
    detected = sum(cell.detected for cells in matrix.cells.values() for cell in cells.values())
    undetected = matrix.undetected()
    lines = [f"{len(matrix.faults)} faults x {len(matrix.claims)} claims, profile {matrix.profile}: {pairs} searches in "
             f"scope, {detected} detected (F: turned false, H: a false claim turned holds, E: the check raised); "
             f"{matrix.seconds:.1f} s wall, {matrix.work_seconds:.1f} s of searches"]
    lines.append("every fault turned at least one claim false" if not undetected else
                 f"faults that turned no claim false: {', '.join(undetected)}")
    return "\n".join(lines)


def to_json(matrix: Matrix, **metadata) -> str:
    return json.dumps({**metadata, **matrix.to_dict()}, indent=2,
                      default=lambda value: None if isinstance(value, float) and math.isnan(value) else float(value))
