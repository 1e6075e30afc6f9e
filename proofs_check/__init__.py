"""proofs_check: every claim of the paper as a named, executable check (spec 8-11).

Public API (stable; used by ``ovk-check verify`` and the notebooks):

* ``CLAIMS``: id -> ``Claim`` (statement, reference, hypotheses, expected verdict ``holds``/``false``/``open``,
  ``instances`` strategy, ``check(instance, impl, precision=None) -> Outcome``);
* ``run_claim(id, profile=None, impl=ovk_ref, seed=None) -> Verdict`` (``verdict``, ``instances``,
  ``worst_margin``, ``counterexample`` -- a plain dict, replay it with ``CLAIMS[id].check(counterexample, impl)``);
* ``verify(ids=None, profile=None, impl=ovk_ref, seed=None) -> list[Verdict]``;
* ``MUTANTS``: planted faults (name -> implementation object) that the claims must reject;
* ``FAULTS``: planted faults in the shared code (name -> ``Fault``, ``with FAULTS[name].applied(): ...``), the
  rows of ``ovk-check sensitivity``.
"""
from proofs_check.claims import CLAIMS, Claim, Outcome
from proofs_check.faults import FAULTS
from proofs_check.mutants import MUTANTS
from proofs_check.runner import Verdict, run_claim, verify

__all__ = ["CLAIMS", "Claim", "Outcome", "Verdict", "run_claim", "verify", "MUTANTS", "FAULTS"]
