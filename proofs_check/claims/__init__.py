"""The registry of the paper's checkable claims (spec 8) and testable errata (spec 9): ``CLAIMS[id]``.

Importing this package registers every claim; ids are stable (``prop2.iv``, ``thm1.predictor``, ...).
"""
# the import order below is the registration order, hence the order of the verify table (ruff: I001 off here)
from proofs_check.claims.base import CLAIMS, Claim, Outcome
from proofs_check.claims import kernels, losses, onorma, monorma, bounds  # noqa: F401,E402 -- registration order = table order
from proofs_check.claims import removal  # noqa: F401,E402 -- Theorem 2' on the removal policies (after bounds)
from proofs_check.claims import batch  # noqa: F401 -- spec 7's minimal value and shortcuts (C25)
from proofs_check.claims import monorma_guarantees  # noqa: F401,E402 -- MONORMA's open guarantees (docs/monorma-guarantees.md)

__all__ = ["CLAIMS", "Claim", "Outcome"]
