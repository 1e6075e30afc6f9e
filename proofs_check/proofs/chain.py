"""A proof as a chain of named steps (docs/proofs.md): each step a checked inequality or identity on an instance.

A ``Chain`` belongs to one claim: the proof that the claim's statement follows from its hypotheses (the paper's
proof, or the spec's repaired one), written as an ordered tuple of ``Step``\\ s whose last one is the claim's own
statement (``conclusion``). Its ``evaluate(instance, impl)`` computes, once per instance, every quantity the steps
compare and returns ``Comparison``\\ s: ``observed <= bound`` at one round (``round``; a step used at every round of
an induction gives one comparison per round). The margin of a comparison is ``(bound - observed) / scale``, as a
claim's margin (negative: the step fails there).

If every step holds, the conclusion follows (that is what the proof says); so when the conclusion fails, some step
fails, and ``first_failing`` names the first one in the proof's order: the earliest round, and within a round the
first step of the chain (an induction goes wrong at the first round where one of its steps does). For a claim that
holds, ``tightest`` names the step with the smallest margin (the first in the chain's order among
those equal as a report prints them, ``proofs_check.margins``). A step with a sympy proof
(``symbolic``: a name of ``proofs_check.proofs.symbolic.PROOFS``) is proved for all values of its symbols in their
stated ranges; on instances it is still evaluated, as a check that the instance's numbers are the proof's.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from proofs_check import margins, tolerances

#: a step's relative margin within this of 0 is a tie (the step holds with equality up to round-off): the steps
#: are float64 computations of the claim's own quantities, whose round-off stays far below it (the same reason as
#: for the claims' NEAR_ZERO_MARGIN); a step that really fails misses by far more
TIE = tolerances.NEAR_ZERO_MARGIN


@dataclass(frozen=True)
class Step:
    """One step of a proof: ``statement`` (what is compared), ``because`` (why it holds in the proof)."""

    name: str
    statement: str
    because: str
    symbolic: str | None = None       # a proof of proofs_check.proofs.symbolic.PROOFS that proves the step
    refuted: str | None = None        # a statement of symbolic.WRONG_VARIANTS: the step as the proof uses it, which sympy refutes


@dataclass(frozen=True)
class Comparison:
    """``observed <= bound`` for one step at one round; for an identity, ``observed`` is the error and ``bound``
    the error allowed."""

    step: str
    observed: float
    bound: float
    scale: float
    round: int = 0

    @property
    def margin(self) -> float:
        margin = (self.bound - self.observed) / self.scale if self.scale > 0 else self.bound - self.observed
        return margin if math.isfinite(margin) else -math.inf


def inequality(step: str, observed, bound, round: int = 0, scale=None) -> Comparison:
    """``observed <= bound``, margin relative to the larger side (or ``scale``)."""
    observed, bound = float(observed), float(bound)
    size = float(scale) if scale is not None else max(abs(observed), abs(bound))
    return Comparison(step, observed, bound, size if size > 0 else 1.0, round)


def identity(step: str, left, right, magnitude=0.0, round: int = 0) -> Comparison:
    """``left = right`` up to ``IDENTITY_RTOL`` of the size of the terms (``magnitude``, at least the sides')."""
    left, right = float(left), float(right)
    size = max(abs(left), abs(right), float(magnitude))
    allowed = tolerances.IDENTITY_RTOL * size + tolerances.IDENTITY_ATOL
    error = abs(left - right) if math.isfinite(left - right) else math.inf
    return Comparison(step, error, allowed, allowed, round)


@dataclass(frozen=True)
class Chain:
    claim: str
    proof: str                       # which proof: "Prop. 2(iv), the paper's proof"
    steps: tuple                     # Step, ..., the last one the claim's statement (name "conclusion")
    evaluate: Callable               # evaluate(instance, impl) -> list[Comparison]
    reference: str = ""

    def __post_init__(self):
        names = [step.name for step in self.steps]
        if len(set(names)) != len(names):
            raise ValueError(f"steps of the chain of {self.claim} must have distinct names, got {names}")
        if not names or names[-1] != "conclusion":
            raise ValueError(f"the chain of {self.claim} must end with the claim's statement, a step named 'conclusion'")

    def step(self, name: str) -> Step:
        return next(step for step in self.steps if step.name == name)


@dataclass
class StepResult:
    """One step on one instance: its tightest comparison (``None``: the step is not used on this instance)."""

    name: str
    statement: str
    symbolic: str | None
    refuted: str | None = None
    margin: float | None = None
    observed: float | None = None
    bound: float | None = None
    round: int | None = None
    comparisons: int = 0

    @property
    def verdict(self) -> str:
        """``proved`` (by sympy, for all values in the stated ranges), ``refuted`` (the step as the proof uses it is
        false: sympy finds an exact counterexample), else ``checked on the instance`` (its ``status``)."""
        if self.symbolic:
            return "proved"
        return "refuted" if self.refuted else "checked on the instance"

    @property
    def status(self) -> str:
        if self.margin is None:
            return "not used"
        if self.margin < -TIE or math.isnan(self.margin):
            return "fails"
        return "tie" if self.margin <= TIE else "holds"


@dataclass
class ChainResult:
    claim: str
    proof: str
    steps: list = field(default_factory=list)
    first_failing: str | None = None
    first_failing_round: int | None = None
    first_failing_margin: float | None = None     # the step's margin at that round (its worst may come later)
    tightest: str | None = None
    error: str = ""

    def to_dict(self) -> dict:
        return {"proof": self.proof, "first_failing": self.first_failing, "first_failing_round": self.first_failing_round,
                "first_failing_margin": self.first_failing_margin,
                "tightest": self.tightest, "error": self.error,
                "steps": [{"name": s.name, "statement": s.statement, "status": s.status, "verdict": s.verdict, "margin": s.margin,
                           "observed": s.observed, "bound": s.bound, "round": s.round, "symbolic": s.symbolic,
                           "refuted": s.refuted}
                          for s in self.steps]}


def _step_result(step, own: list) -> StepResult:
    """A step's entry: its comparisons counted, the tightest one's margin, sides and round (nan first)."""
    entry = StepResult(step.name, step.statement, step.symbolic, step.refuted, comparisons=len(own))
    if own:
        worst = min(own, key=lambda c: (c.margin if not math.isnan(c.margin) else -math.inf))
        entry.margin, entry.observed, entry.bound, entry.round = worst.margin, worst.observed, worst.bound, worst.round
    return entry


def check(chain: Chain, instance, impl) -> ChainResult:
    """Every step of ``chain`` on ``instance``: its tightest comparison, the first failing step (earliest round,
    then chain order) and the tightest step."""
    comparisons = chain.evaluate(instance, impl)
    order = {step.name: index for index, step in enumerate(chain.steps)}
    unknown = {c.step for c in comparisons} - set(order)
    if unknown:
        raise ValueError(f"the chain of {chain.claim} compared steps it does not declare: {sorted(unknown)}")
    result = ChainResult(claim=chain.claim, proof=chain.proof)
    failing = []
    for step in chain.steps:
        own = [c for c in comparisons if c.step == step.name]
        result.steps.append(_step_result(step, own))
        failing += [(c.round, order[step.name], c.margin) for c in own if c.margin < -TIE or math.isnan(c.margin)]
    if failing:
        round_, index, margin = min(failing, key=lambda failure: failure[:2])
        result.first_failing, result.first_failing_round, result.first_failing_margin = chain.steps[index].name, round_, margin
    used = [entry for entry in result.steps if entry.margin is not None]
    if used:
        result.tightest = tightest(used)
    return result


def tightest(entries) -> str:
    """The name of the tightest of ``entries`` (in chain order): the first of those whose margin, as a report tells
    it (``margins.resolved``: 0 for a tie, else 3 significant digits), is the smallest. The digits beyond are
    round-off, which differs from one CPU's BLAS kernels and SIMD paths to another's; the chain's order breaks the tie
    so that every machine names the same step."""
    smallest = min(margins.resolved(entry.margin) for entry in entries)
    return next(entry.name for entry in entries if margins.resolved(entry.margin) == smallest)
