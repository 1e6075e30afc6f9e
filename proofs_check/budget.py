"""Budget-based hunts: ``--budget 10m`` or ``--budget 20000`` spread over the claims.

A budget run starts with the profile's own run (one unit per claim): it gives every claim its verdict and its
tightest margin. What is left of the budget goes to the claims still searched for a counterexample (verdict
holds or open, search space not exhausted), in proportion to ``weight(margin)``: 1 for a margin of 1 (an
identity met exactly, a bound with room to spare) up to 4 for a margin of ``TIGHT_MARGIN`` or less (a bound
attained or nearly), so the tightest claims get up to four times the instances of the loosest. A claim's share
runs as extra units of at most ``SHARD_EXAMPLES`` instances (shards 1, 2, ... of ``units.Unit``: their own search
seeds), so that a cluster can spread one claim's hunt; the merged verdict counts them all.

An instance budget is reproducible: the shares depend only on the first run's margins. A time budget is
converted into instances with each claim's measured seconds per instance, so it depends on the machine; the
report says what each claim received, in instances and units, either way.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

from proofs_check.claims import CLAIMS
from proofs_check.units import Unit, shards

#: a margin at or below this (relative) is as tight as it gets for the weights
TIGHT_MARGIN = 1e-3
#: most instances one unit of a budget's share asks for
SHARD_EXAMPLES = 250
_UNITS = {"s": 1.0, "m": 60.0, "h": 3600.0}


@dataclass(frozen=True)
class Budget:
    """Either ``seconds`` of wall time or ``instances`` in all, for the whole run."""

    seconds: float | None = None
    instances: int | None = None

    def __str__(self) -> str:
        return f"{self.seconds:g} s" if self.seconds is not None else f"{self.instances} instances"


def parse(text: str) -> Budget:
    """``10m``, ``90s``, ``1.5h`` (wall time) or ``20000`` (instances over every claim)."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smh]?)\s*", str(text))
    if match is None:
        raise ValueError(f"--budget must be a time (90s, 10m, 1.5h) or a whole number of instances, got {text!r}")
    number, unit = match.groups()
    if unit:
        seconds = float(number) * _UNITS[unit]
        if not seconds > 0:
            raise ValueError(f"--budget must be a positive time, got {text!r}")
        return Budget(seconds=seconds)
    if "." in number or int(number) < 1:
        raise ValueError(f"--budget in instances must be a whole number >= 1, got {text!r}")
    return Budget(instances=int(number))


def weight(margin: float) -> float:
    """1 + log10(1/|margin|), |margin| clipped to [TIGHT_MARGIN, 1]: from 1 (margin 1) to 4 (margin <= 1e-3)."""
    return 1.0 + math.log10(1.0 / min(1.0, max(abs(margin), TIGHT_MARGIN)))


def still_hunted(verdict) -> bool:
    """A claim worth more instances: no counterexample yet, and a search space not yet exhausted."""
    space = CLAIMS[verdict.claim].space
    return verdict.verdict in ("holds", "open", "proved") and not math.isinf(verdict.worst_margin) and (
        space is None or verdict.instances < space)


def shares(verdicts, budget: Budget, *, elapsed: float, workers: int) -> dict:
    """Claim id -> extra informative instances, from the first run's ``verdicts`` (``elapsed`` seconds of wall
    time on ``workers`` processes). Rounded down: the run never asks for more than the budget."""
    hunted = [verdict for verdict in verdicts if still_hunted(verdict)]
    weights = {verdict.claim: weight(verdict.worst_margin) for verdict in hunted}
    total = sum(weights.values())
    if not hunted:
        return {}
    if budget.instances is not None:
        left = max(0, budget.instances - sum(verdict.instances for verdict in verdicts))
        return {claim_id: int(left * share / total) for claim_id, share in weights.items()}
    worker_seconds = max(0.0, budget.seconds - elapsed) * workers
    return {verdict.claim: int(worker_seconds * weights[verdict.claim] / total
                               / (verdict.seconds / max(verdict.instances, 1) or math.inf))
            for verdict in hunted}


def extra_units(extra: dict, plan: list[Unit]) -> list[Unit]:
    """Each claim's extra instances as units of at most ``SHARD_EXAMPLES``, numbered after the claim's shards in
    ``plan`` (the profile's run), with its profile and seed."""
    units = []
    for claim_id, count in extra.items():
        own = [unit for unit in plan if unit.claim == claim_id]
        units += shards(claim_id, count, own[0].profile, own[0].seed, first=max(unit.shard for unit in own) + 1,
                        size=SHARD_EXAMPLES)
    return units
