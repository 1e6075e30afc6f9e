"""The registry of the paper's checkable claims (spec 8) and testable errata (spec 9): ``CLAIMS[id]``.

Importing this package registers every claim; ids are stable (``prop2.iv``, ``thm1.predictor``, ...).
"""
from proofs_check.claims import (  # noqa: F401,E402 -- registration order = table order
    batch,  # noqa: F401 -- spec 7's minimal value and shortcuts (C25)
    bounds,
    kernels,
    losses,
    monorma,
    monorma_guarantees,  # noqa: F401,E402 -- MONORMA's open guarantees (docs/monorma-guarantees.md)
    onorma,
)
from proofs_check.claims.base import CLAIMS, Claim, Outcome

__all__ = ["CLAIMS", "Claim", "Outcome"]
