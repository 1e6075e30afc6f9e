"""What a claim is: a checkable statement of the paper with its search space.

A ``Claim`` has a stable id, the statement in one line, the paper's reference, its hypotheses, the
expected verdict (``holds``, ``false``, ``open`` or ``proved``: proved for its whole range by an argument the
docs give, the search run all the same), a Hypothesis strategy of instances (plain,
JSON-able dicts, so that a counterexample can be replayed by pasting it) and ``check(instance, impl,
precision)`` returning an ``Outcome``: the margin (bound minus observed; negative means violated).
A claim says what makes an instance ``informative`` for it (at least two rounds, a non-zero target, a delta
update that happened, a bound that is not vacuous, ...); its check marks each ``Outcome`` so, and a verdict
counts only informative instances. A claim whose search space is finite says how many distinct
instances it has (``space``): a search that checked them all needs no more.
A claim expected ``false`` carries ``known_counterexamples``: small instances (shrunk by an earlier search),
kept as regression pins; a run replays them only when its own search finds no violation.
A claim expected to hold names the planted faults (``proofs_check.faults.FAULTS``) it must turn false in ci
(``faults``: a side computed independently of the code each breaks); every planted fault is named by some claim,
and the tests run each pair (tests/meta/test_claims_faults.py). A claim that runs an algorithm says which fields of
its records it reads (``needs``), so that another engine's records are checked only by the claims they can feed
(``ovk-check verify --engine``). Its proof chain, when it has one, names it in turn
(``proofs_check.proofs``: a chain imports the claims' helpers, so the link is written on the chain's side).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from proofs_check.faults import FAULTS

EXPECTED_VERDICTS = ("holds", "false", "open", "proved")
#: the first round at which every step of ONORMA has acted on the iterate: a shrink of older terms, a new
#: coefficient, and (with a window of 2) a truncation; bounds report their margin from this round on apart
#: (``Outcome.settled``), since a bound that is tight only at t = 1 has not been tested against the shrink
SETTLED_ROUND = 3
#: functions an implementation under test may offer (ovk_ref's names)
IMPLEMENTATION_FUNCTIONS = ("onorma", "monorma", "batch_ridge")
#: the record fields a claim that runs an algorithm reads unless it says otherwise (``needs``): ONORMA's iterates are
#: read off its coefficients (every norm and value is recomputed from them), MONORMA's checks read the whole record
#: (``claims.monorma.run_monorma``); an engine that does not report them cannot be checked by the claim
#: (``ovk-check verify --engine``: "not applicable")
NEEDS = {"onorma": ("predictions", "coefficients", "new_coefficients"),
         "monorma": ("predictions", "weights", "gamma", "coefficients", "new_coefficients", "kernel_evaluations")}


@dataclass
class Outcome:
    """One instance checked: ``margin = bound - observed`` (< 0: violated), reported relative to ``scale > 0``.

    ``magnitude`` is the size of the quantities compared (default: ``scale``): a margin within
    ``NEAR_ZERO_MARGIN * magnitude`` of 0 is below what float64 can resolve and gets recomputed.
    ``tie`` (relative to ``magnitude``) is how far below 0 the recomputed margin may be and still count as a tie:
    ``HIGH_PRECISION_TIE`` by default, more when the claim rests on an input that is exact only up to a
    tolerance (a float matrix B accepted as PSD up to ``PSD_EIGENVALUE``).
    ``informative`` says whether the instance tests the claim at all (the claim's ``informative`` text says
    when: two rounds, a non-zero target, a delta update that happened, ...); ``observed`` and ``bound`` are the
    two sides compared where the margin is tightest (for an identity: the error and the error allowed).
    ``settled``: for a bound checked round by round, its relative margin over the rounds t >= ``SETTLED_ROUND`` only.
    """

    margin: float
    scale: float = 1.0
    quantities: dict = field(default_factory=dict)
    magnitude: float | None = None
    tie: float | None = None
    informative: bool = True
    observed: float | None = None
    bound: float | None = None
    settled: float | None = None   # a bound's relative margin over rounds (prefixes) t >= SETTLED_ROUND; None: none

    @property
    def resolution_scale(self) -> float:
        return self.scale if self.magnitude is None else self.magnitude

    @property
    def relative_margin(self) -> float:
        return self.margin / self.scale


@dataclass
class Claim:
    id: str
    statement: str
    reference: str
    hypotheses: str
    expected: str
    instances: object                      # a Hypothesis strategy of instance dicts
    check: Callable                        # check(instance, impl, precision=None) -> Outcome
    uses: tuple = ()                       # the functions of the implementation under test it calls
    notes: str = ""
    known_counterexamples: tuple = ()      # instances that violate the claim (for expected == "false")
    informative: str = ""                  # what makes an instance informative for this claim (Outcome.informative)
    space: int | None = None               # the number of distinct instances, when the search space is finite
    faults: tuple = ()                     # names of the planted faults (FAULTS) that must turn it false in ci
    needs: tuple = ()                      # the record fields it reads (default: NEEDS of the algorithm it uses)

    def __post_init__(self):
        if not self.needs:
            self.needs = tuple(dict.fromkeys(field for name in self.uses for field in NEEDS.get(name, ())))
        if self.expected not in EXPECTED_VERDICTS:
            raise ValueError(f"expected must be one of {EXPECTED_VERDICTS}, got {self.expected!r}")
        unknown = set(self.uses) - set(IMPLEMENTATION_FUNCTIONS)
        if unknown:
            raise ValueError(f"uses must name functions among {IMPLEMENTATION_FUNCTIONS}, got {sorted(unknown)}")
        if not self.informative:
            raise ValueError(f"informative must say what makes an instance informative for claim {self.id}")
        if self.known_counterexamples and self.expected != "false":
            raise ValueError(f"known_counterexamples belong to claims expected false, not {self.expected!r} ({self.id})")
        unknown = [name for name in self.faults if name not in FAULTS]
        if unknown:
            raise ValueError(f"faults must name planted faults of proofs_check.faults.FAULTS, got {unknown} ({self.id})")
        if self.faults and self.expected != "holds":
            raise ValueError(f"faults belong to claims expected to hold, not {self.expected!r} ({self.id})")

    def applies_to(self, impl) -> bool:
        """True when ``impl`` offers every function this claim calls."""
        return all(callable(getattr(impl, name, None)) for name in self.uses)


#: id -> Claim, in registration order (spec 8 then spec 9)
CLAIMS: dict[str, Claim] = {}


def claim(id, *, statement, reference, hypotheses, expected, instances, informative, uses=(), notes="",
          known_counterexamples=(), space=None, faults=(), needs=()):
    """Decorator registering ``check`` as the check of a new claim ``id``."""
    def register(check):
        if id in CLAIMS:
            raise ValueError(f"claim id {id!r} is registered twice")
        CLAIMS[id] = Claim(id=id, statement=statement, reference=reference, hypotheses=hypotheses, expected=expected,
                           instances=instances, check=check, uses=tuple(uses), notes=notes,
                           known_counterexamples=tuple(known_counterexamples), informative=informative, space=space,
                           faults=tuple(faults), needs=tuple(needs))
        return check
    return register
