"""Planted faults as implementation objects.

``MUTANTS`` maps a name to a module-like object offering ``onorma``/``monorma`` with ovk_ref's signatures that
differs from ovk_ref in exactly the one step its name says: the learner faults of ``proofs_check.faults`` (one
definition each), carried by subclasses of ovk_ref's learners so that nothing is patched for any other caller (the
conformance oracle runs them next to the reference in one process). The claim checks must reject every one of them
(tests/meta/test_claims_mutants.py); ``proofs_check.faults.FAULTS`` plants the same faults, and many more, in the
shared code itself (``ovk-check sensitivity``).
"""
from __future__ import annotations

from proofs_check.faults import FAULTS

#: mutant -> (fault, the algorithms it is offered for)
_LEARNER_MUTANTS = {
    "shrink_skipped": ("shrink_skipped", ("onorma",)),
    "shrink_applied_to_new_coefficient": ("shrink_applied_to_new_coefficient", ("onorma",)),
    "eta_next_index": ("eta_next_index", ("onorma", "monorma")),
    "kernel_transposed": ("kernel_transposed", ("onorma",)),
    "delta_exponents_misparsed": ("delta_exponents_misparsed", ("monorma",)),
    "truncation_keeps_one_more": ("truncation_keeps_one_more", ("onorma",)),
    "new_coefficient_without_decay": ("new_coefficient_without_decay", ("onorma", "monorma")),
    "shrink_halved": ("shrink_halved", ("onorma", "monorma")),
    "monorma_prediction_without_weights": ("monorma_prediction_without_weights", ("monorma",)),
    "monorma_weights_without_square": ("monorma_weights_without_square", ("monorma",)),
    "monorma_shrink_skipped": ("shrink_skipped", ("monorma",)),
    "monorma_zero_weight_revived": ("monorma_zero_weight_revived", ("monorma",)),
    "monorma_weights_on_simplex": ("monorma_weights_on_simplex", ("monorma",)),
}

#: name -> implementation object; each differs from ovk_ref in the one step its name says
MUTANTS = {name: FAULTS[fault].implementation(algorithms) for name, (fault, algorithms) in _LEARNER_MUTANTS.items()}

