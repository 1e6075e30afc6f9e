"""Planted faults as implementation objects, and wrong readings of the synthetic data (planted faults).

``MUTANTS`` maps a name to a module-like object offering ``onorma``/``monorma`` with ovk_ref's signatures that
differs from ovk_ref in exactly the one step its name says: the learner faults of ``proofs_check.faults`` (one
definition each), carried by subclasses of ovk_ref's learners so that nothing is patched for any other caller (the
conformance oracle runs them next to the reference in one process). The claim checks must reject every one of them
(tests/meta/test_claims_mutants.py); ``proofs_check.faults.FAULTS`` plants the same faults, and many more, in the
shared code itself (``ovk-check sensitivity``).
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

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


def _synthetic_with(*, weight_scale=None, per_example_weights=False, shared_weights=False, phi_offset=0):
    """The paper's generator (``ovk_ref.synthetic``, spec 3.4) with one plausible mistake."""
    from ovk_ref.synthetic import NAMED_INPUTS, WEIGHT_VARIANCES

    variances = np.asarray(WEIGHT_VARIANCES)

    def features(X):
        X = np.asarray(X, dtype=float)
        x1, x2, x3, x4, x5 = (X[:, i - 1 + phi_offset] for i in NAMED_INPUTS)
        return np.column_stack([x1 ** 2, x4 ** 2, x1 * x2, x3 * x5, x2, x4, np.ones(len(X))])

    def synthetic(n, p=20, d=4, *, seed=0, noise=0.0, return_weights=False):
        rng = np.random.default_rng(seed)
        scale = np.sqrt(variances) if weight_scale is None else weight_scale(variances)
        W = rng.standard_normal((1 if shared_weights else d, len(variances))) * scale
        W = np.repeat(W, d, axis=0) if shared_weights else W
        X = rng.uniform(0.0, 1.0, size=(n, p))
        if per_example_weights:
            rows = [W] + [rng.standard_normal(W.shape) * scale for _ in range(n - 1)]
            Y = np.array([features(X[i:i + 1])[0] @ rows[i].T for i in range(n)])
        else:
            Y = features(X) @ W.T
        return (X, Y, W) if return_weights else (X, Y)

    return SimpleNamespace(synthetic=synthetic, features=features)


#: name -> a wrong reading of the paper's synthetic data (spec 3.4), with ``synthetic`` and ``features``
SYNTHETIC_MUTANTS = {
    "variances_used_as_standard_deviations": _synthetic_with(weight_scale=lambda variances: variances),
    "weights_redrawn_per_example": _synthetic_with(per_example_weights=True),
    "one_weight_vector_for_all_tasks": _synthetic_with(shared_weights=True),
    "phi_indices_read_zero_based": _synthetic_with(phi_offset=1),
}

