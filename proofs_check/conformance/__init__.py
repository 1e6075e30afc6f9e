"""The reference as a CI correctness oracle (issue 4): golden vectors, a runner, pytest helpers.

``run(implementation)`` checks every stored case the implementation offers; ``assert_conforms`` and
``parametrize_with_vectors`` put that into a pytest suite; ``ovk-check conform MODULE[:ATTR]`` is the CLI.
The protocol is in ``protocol.py``, the vector format in ``vectors.py``; ``python -m
proofs_check.conformance.generate`` regenerates the vectors from ``cases.py``.
"""
from proofs_check.conformance.protocol import load_implementation
from proofs_check.conformance.pytest_helpers import assert_conforms, parametrize_with_vectors
from proofs_check.conformance.runner import Outcome, Report, check_case, run
from proofs_check.conformance.vectors import VECTORS_VERSION, Case, load_cases

__all__ = ["run", "check_case", "assert_conforms", "parametrize_with_vectors", "load_cases", "load_implementation",
           "Case", "Outcome", "Report", "VECTORS_VERSION"]
