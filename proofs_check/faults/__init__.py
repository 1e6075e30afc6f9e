"""Planted faults (sensitivity analysis): plausible bugs planted in the shared code they would live in.

``FAULTS`` maps a name to a ``Fault`` (name, layer, one-line reason, ``applied()`` context manager); ``LAYERS`` names
the parts of the library they cover. ``ovk-check sensitivity`` runs every claim under every fault in its scope and
prints the claims x faults matrix (``proofs_check.sensitivity``); the tests assert that each fault is caught
(tests/meta/test_claims_faults.py), as scikit-learn runs each estimator check against an estimator broken on purpose.
``proofs_check.mutants.MUTANTS`` holds the learner faults as implementation objects (nothing patched globally).
"""
from proofs_check.faults.checks import CHECK_FAULTS
from proofs_check.faults.fault import LAYERS, Fault, Patch, recording
from proofs_check.faults.kernels import KERNEL_FAULTS
from proofs_check.faults.learner import LEARNER_FAULTS
from proofs_check.faults.losses import LOSS_FAULTS
from proofs_check.faults.solvers import SOLVER_FAULTS

#: name -> Fault, by layer in the order of LAYERS
FAULTS = {fault.name: fault for fault in sorted(LEARNER_FAULTS + KERNEL_FAULTS + LOSS_FAULTS + SOLVER_FAULTS
                                                + CHECK_FAULTS,
                                                key=lambda fault: list(LAYERS).index(fault.layer))}


def of_layer(layer: str) -> tuple:
    """The names of the faults planted in ``layer`` (a key of LAYERS)."""
    if layer not in LAYERS:
        raise ValueError(f"layer must be one of {sorted(LAYERS)}, got {layer!r}")
    return tuple(name for name, fault in FAULTS.items() if fault.layer == layer)


__all__ = ["FAULTS", "LAYERS", "Fault", "Patch", "recording", "of_layer"]
